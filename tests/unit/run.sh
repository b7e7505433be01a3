#!/bin/sh
# Run the unit test programs and the fuzz-corpus replays; sum their
# "N passed, N failed" lines.  A program that crashes or prints no such
# line counts as one failed test.
# Usage: sh tests/unit/run.sh UNIT_BIN... -- REPLAY_BIN...
set -u
passed=0
failed=0
skipped=0
mode=unit
for bin in "$@"; do
    if [ "$bin" = "--" ]; then mode=replay; continue; fi
    if [ "$mode" = unit ]; then
        out=$("$bin" 2>&1); rc=$?
    else
        name=$(basename "$bin")
        out=$("$bin" "tests/fuzz/corpus/${name#fuzz_}" 2>&1); rc=$?
    fi
    line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z0-9_]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out"
        echo "$bin: crashed or printed no result (exit $rc)"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    s=0
    case "$line" in *skipped) s=$(echo "$line" | sed -E 's/.*, ([0-9]+) skipped/\1/') ;; esac
    if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
        printf '%s\n' "$out"
        [ "$f" != 0 ] || f=1
    else
        echo "$line"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
done
if [ "$skipped" != 0 ]; then
    echo "unit: $passed passed, $failed failed, $skipped skipped"
else
    echo "unit: $passed passed, $failed failed"
fi
[ "$failed" = 0 ]
