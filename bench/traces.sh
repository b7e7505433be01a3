#!/bin/sh
# The trace tools on full-size logs: lines per second and peak memory of
# nictrace stats, nicsim (one 16 MiB LRU cache) and nictrace docroot on
# synthetic World Cup-like logs of 1, 3 and 10.6 million lines (the same
# 5,163 files: memory must not grow with the lines) and a NASA-like log
# of 1.7 million, plain text, each tool pinned to CPU 1, three runs,
# medians (docroot's time includes writing the files, to /dev/shm).  Writes build/bench/traces.json and prints a table.
# Usage: sh bench/traces.sh   (make bench-traces)
set -eu
. bench/lib.sh
bench_init

B=build
RUNS=${RUNS:-3}
# docroot writes the data set (93 MB, 271 MB): to memory, so that the
# disk's write-back does not decide the figure
shm=$(mktemp -d /dev/shm/nicd-bench-XXXXXX)
trap 'cleanup; rm -rf "$shm"' EXIT INT TERM

# synthetic logs: name, then nictrace synth's options
make_log() {
    name=$1
    shift
    $B/nictrace synth "$@" --out "$work/$name.log" > /dev/null
}
make_log wc1m --like worldcup --requests 1000000
make_log wc3m --like worldcup --requests 3000000
make_log wc10m --like worldcup
make_log nasa --like nasa

# one run: "seconds max_rss_kb" of the command
measure() {
    /usr/bin/time -f "%e %M" -o "$work/time" taskset -c 1 "$@" \
        > /dev/null 2> "$work/stderr" || {
        cat "$work/stderr" >&2
        exit 1
    }
    cat "$work/time"
}

echo "[" > "$OUT/traces.json"
first=1
printf '%-8s %-16s %10s %9s %12s %9s\n' log tool lines "s (med)" "lines/s" "RSS MB"
for log in wc1m wc3m wc10m nasa; do
    lines=$(wc -l < "$work/$log.log")
    for tool in stats nicsim docroot; do
        times=""
        rss=0
        for i in $(seq "$RUNS"); do
            case $tool in
            stats) set -- $B/nictrace stats "$work/$log.log" ;;
            nicsim) set -- $B/nicsim --sizes 16m --policy lru "$work/$log.log" ;;
            docroot)
                rm -rf "$shm/root"
                set -- $B/nictrace docroot --root "$shm/root" "$work/$log.log"
                ;;
            esac
            r=$(measure "$@")
            times="$times ${r% *}"
            [ "${r#* }" -gt "$rss" ] && rss=${r#* }
        done
        med=$(echo $times | tr ' ' '\n' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        rate=$(awk -v l="$lines" -v s="$med" 'BEGIN {printf "%.0f", l / s}')
        printf '%-8s %-16s %10d %9s %12s %9.1f\n' "$log" "$tool" "$lines" "$med" "$rate" \
            "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
        [ $first -eq 1 ] || echo "," >> "$OUT/traces.json"
        first=0
        printf '{"log": "%s", "tool": "%s", "lines": %d, "seconds": [%s], "median_s": %s, "lines_per_s": %s, "max_rss_kb": %d}' \
            "$log" "$tool" "$lines" "$(echo $times | tr ' ' ',')" "$med" "$rate" "$rss" >> "$OUT/traces.json"
    done
done
echo "]" >> "$OUT/traces.json"
echo "results: $OUT/traces.json (each tool pinned to CPU 1; 2 cores)"
