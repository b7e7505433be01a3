#!/bin/sh
# Two builds of nicd on the same files: the one in build/ against the one
# a git revision makes (OLD, default HEAD~1), to show what a change costs
# a plain static location.  Each nicd is one thread pinned to CPU 0 with
# the same settings (as bench/peers.sh), the files of 1 KiB to 256 KiB;
# both are checked first (status 200, the length); then both are loaded
# at once (two wrk -c32 on CPU 1) RUNS times per size, on each of
# STARTS fresh pairs of processes, and the table is each worker's CPU
# time per request and the median of all the rounds' ratios
# (bench/together.py).  Whatever makes this machine slower or
# faster for a while hits both alike; two cores shared by servers and
# load generator: read the ratio, not the rates.
# Usage: OLD=REV sh bench/builds.sh   (env: DURATION=5 RUNS=5 STARTS=3
#        SIZES="1 16 256"; LOAD=wrkpipe: pipelined, DEPTH=16 deep;
#        EVENTS_OLD, EVENTS_NEW: each one's event loop, as NICD_EVENTS:
#        OLD=HEAD EVENTS_NEW=io_uring compares the loops of one build;
#        OLD_BIN=PATH: that binary, already built from OLD, in place of
#        building OLD again)
# Writes build/bench/builds-together.json.
set -eu
DURATION=${DURATION:-5}
RUNS=${RUNS:-5}
STARTS=${STARTS:-3}
SIZES=${SIZES:-"1 16 256"}
OLD=${OLD:-HEAD~1}
NEW=${NEW:-build/nicd}
. bench/lib.sh
bench_init

rev=$(git rev-parse --short "$OLD")
echo "old: $rev ($(git log -1 --format=%s "$rev" | cut -c1-60)); new: $NEW"
if [ -n "${OLD_BIN:-}" ]; then
    old_bin=$OLD_BIN
else
    git worktree add --detach -q "$work/old" "$rev"
    trap 'git worktree remove --force "$work/old" 2>/dev/null || true; cleanup' EXIT
    make -C "$work/old" -j2 build/nicd > "$work/old-build.log" 2>&1 ||
        { tail -20 "$work/old-build.log"; exit 1; }
    old_bin=$work/old/build/nicd
fi

for s in $SIZES; do
    head -c $((s * 1024)) /dev/urandom > "$work/www/$s.bin"
done

start() {
    NICD_EVENTS="$4" taskset -c 0 "$1" --root "$work/www" --listen "127.0.0.1:$2" \
        --threads 1 -g "access_log off; error_log $work/$3.log warn;
        open_file_cache max=1000; open_file_cache_valid 60s;
        keepalive_requests 1000000;" &
    pids="$pids $!"
    eval "pid_$3=\$!"
    wait_port "$2"
}

# Each start is a fresh pair of processes (the two started in turns,
# first one then the other first): where a process lands in memory
# moves its CPU per request by a percent or two for as long as it runs,
# the same binary against itself included, so one pair cannot tell
# builds apart more finely than that; the medians are over every start's
# rounds.
: > "$work/together"
for i in $(seq "$STARTS"); do
    p_old=$(free_port)
    p_new=$(free_port)
    if [ $((i % 2)) = 1 ]; then
        start "$old_bin" "$p_old" old "${EVENTS_OLD:-}"
        start "$NEW" "$p_new" new "${EVENTS_NEW:-}"
    else
        start "$NEW" "$p_new" new "${EVENTS_NEW:-}"
        start "$old_bin" "$p_old" old "${EVENTS_OLD:-}"
    fi
    for s in $SIZES; do
        for p in $p_old $p_new; do
            got=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' \
                "http://127.0.0.1:$p/$s.bin")
            [ "$got" = "200 $((s * 1024))" ] ||
                { echo "port $p, $s.bin: $got" >&2; exit 1; }
        done
    done
    echo "start $i of $STARTS" >&2
    # shellcheck disable=SC2086,SC2154
    together_collect "http://127.0.0.1:$p_old" "$pid_old" \
        "http://127.0.0.1:$p_new" "$pid_new" - - - $SIZES
    stop_pids
done
together_table "$OUT/builds-together.json" "old-$rev" new "$STARTS starts x $RUNS"
