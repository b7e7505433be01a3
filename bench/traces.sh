#!/bin/sh
# The trace tools on full-size logs: lines per second and peak memory of
# nictrace stats, nicsim (one 16 MiB LRU cache) and nictrace docroot on
# synthetic World Cup-like logs of 1, 3 and 10.6 million lines (the same
# 5,163 files: memory must not grow with the lines) and a NASA-like log
# of 1.7 million, plain text, each tool pinned to CPU 1, three runs,
# medians (docroot's time includes writing the files, to /dev/shm).  Writes build/bench/traces.json and prints a table.
# Then the same tools, and nicsim's one-pass curves exact and sampled,
# on a synthetic trace of SCALE requests (default 100 million).
# Usage: sh bench/traces.sh   (make bench-traces; env RUNS=3 SCALE=N,
#        LOGS="wc1m wc3m wc10m nasa", LOGS="" for the scale part alone)
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
LOGS=${LOGS-wc1m wc3m wc10m nasa}
for log in $LOGS; do
    case $log in
    wc1m) make_log wc1m --like worldcup --requests 1000000 ;;
    wc3m) make_log wc3m --like worldcup --requests 3000000 ;;
    wc10m) make_log wc10m --like worldcup ;;
    nasa) make_log nasa --like nasa ;;
    esac
done

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
for log in $LOGS; do
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

# At scale: SCALE requests (default 100 million) to a million files of a
# 4 GB data set, made once, converted to the compact format, then each
# tool once: memory must follow the objects, not the requests.  The
# sampled curves' error is against the exact one, over all sizes and over
# those whose cache holds 32 or more sampled blocks.  SCALE=0 skips it.
SCALE=${SCALE:-100000000}
[ "$SCALE" -gt 0 ] || exit 0
echo
echo "at scale: $SCALE requests, 1,000,000 files, 4 GB data set (each tool once, CPU 1)"
t0=$(date +%s)
$B/nictrace synth --like worldcup --requests "$SCALE" --files 1000000 \
    --data-set 4000000000 --avg-size 10000 --out "$work/big.log.gz" > /dev/null
t1=$(date +%s)
$B/nictrace convert "$work/big.log.gz" --out "$work/big.nic" > /dev/null
t2=$(date +%s)
rm -f "$work/big.log.gz"
echo "  made in $((t1 - t0)) s, converted in $((t2 - t1)) s: $(du -m "$work/big.nic" | cut -f1) MB compact"
SIZES="--sizes 64k:1g --points 20"
printf '  %-34s %9s %9s\n' tool seconds "RSS MB"
scale_row() {
    label=$1
    shift
    r=$(measure "$@")
    printf '  %-34s %9s %9.1f\n' "$label" "${r% *}" \
        "$(awk -v k="${r#* }" 'BEGIN {print k / 1024}')"
    echo "{\"tool\": \"$label\", \"requests\": $SCALE, \"seconds\": ${r% *}, \"max_rss_kb\": ${r#* }}" \
        >> "$OUT/traces-scale.jsonl"
}
: > "$OUT/traces-scale.jsonl"
scale_row "nictrace stats" $B/nictrace stats "$work/big.nic"
scale_row "nicsim 16m lru" $B/nicsim --sizes 16m "$work/big.nic"
# the curves' CSVs are kept for the error (measure sends stdout away)
/usr/bin/time -f "%e %M" -o "$work/time" taskset -c 1 $B/nicsim --mrc $SIZES \
    --csv "$work/big.nic" > "$work/exact.csv" 2> /dev/null
r=$(cat "$work/time")
printf '  %-34s %9s %9.1f\n' "nicsim --mrc (20 sizes, exact)" "${r% *}" \
    "$(awk -v k="${r#* }" 'BEGIN {print k / 1024}')"
for rate in 0.01 0.001; do
    /usr/bin/time -f "%e %M" -o "$work/time" taskset -c 1 $B/nicsim \
        --mrc --sample "$rate" $SIZES --csv "$work/big.nic" > "$work/s$rate.csv" 2> /dev/null
    r=$(cat "$work/time")
    err=$(python3 - "$work/exact.csv" "$work/s$rate.csv" "$rate" <<'PY'
import csv, sys
ex = list(csv.DictReader(open(sys.argv[1])))
sa = list(csv.DictReader(open(sys.argv[2])))
rate = float(sys.argv[3])
d = [abs(float(a["byte_miss_ratio"]) - float(b["byte_miss_ratio"]))
     for a, b in zip(ex, sa)]
big = [x for x, a in zip(d, ex)
       if int(a["cache_bytes"]) // int(a["block"]) * rate >= 32]
print("MAE %.4f (%.4f over the %d sizes of 32+ sampled blocks)"
      % (sum(d) / len(d), sum(big) / len(big) if big else 0, len(big)))
PY
)
    printf '  %-34s %9s %9.1f  %s\n' "nicsim --mrc --sample $rate" "${r% *}" \
        "$(awk -v k="${r#* }" 'BEGIN {print k / 1024}')" "$err"
done
rm -rf "$shm/big"
scale_row "nictrace docroot" $B/nictrace docroot --root "$shm/big" "$work/big.nic"
rm -rf "$shm/big"
