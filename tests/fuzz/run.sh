#!/bin/sh
# Run each libFuzzer target for SECONDS (default 60) with ASan+UBSan.  New
# inputs that find new coverage are added to the target's corpus under
# tests/fuzz/corpus/ (commit them); a crash stops with its input saved as
# tests/fuzz/crash-*.
# Usage: sh tests/fuzz/run.sh [SECONDS]
set -eu
seconds=${1:-60}
mkdir -p build/fuzz
objs=""
for src in src/sendfile_nic/*.c src/sendfile_nic/*/*.c src/util/*.c src/server/*.c \
    trace_replayer/*.c; do
    case "$src" in
    src/server/main.c|trace_replayer/nictrace.c|trace_replayer/nicsim.c|trace_replayer/nicreplay.c) continue ;;
    esac
    objs="$objs $src"
done
for target in ${TARGETS:-tests/fuzz/fuzz_*.c}; do
    name=$(basename "$target" .c)
    corpus="tests/fuzz/corpus/${name#fuzz_}"
    mkdir -p "$corpus"
    # shellcheck disable=SC2086
    clang -g -O1 -std=gnu11 -D_GNU_SOURCE -Ibuild -Isrc/server \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -o "build/fuzz/$name" "$target" $objs -levent_core -lz -pthread
    echo "fuzz: $name for ${seconds}s, corpus $corpus"
    "build/fuzz/$name" -max_total_time="$seconds" -max_len=4096 \
        -artifact_prefix=tests/fuzz/ "$corpus"
done
