#!/bin/sh
# Is the replayer what limits a measurement?  nicreplay against wrk, both
# driving the same nicd (one thread, pinned to CPU 0) serving a 1 KiB
# file, each client pinned to CPU 1 with the same number of connections.
# nicreplay replays a synthetic trace in which each of CONNS clients asks
# for the file once a second (so every client is one long session) with
# --no-pipeline --loop --duration: one request at a time per connection,
# as wrk does.  Runs alternate RUNS times; medians and the ratio.
#
# Then the two loaded at once, RUNS rounds (both on CPU 1, CONNS/2
# connections each, against the same nicd): each client's own CPU time
# (user + system, /usr/bin/time) per request it completed, which does
# not depend on which of them the shared core favoured.
#
# Usage: sh bench/replayer.sh   (env: DURATION=10 RUNS=3 CONNS=64)
# Writes build/bench/replayer.json.  Two cores shared by the server and
# the load generator: compare the ratio, not the absolute numbers.
set -eu

DURATION=${DURATION:-10}
RUNS=${RUNS:-3}
CONNS=${CONNS:-64}
NICD=${NICD:-build/nicd}
. bench/lib.sh
bench_init

head -c 1024 /dev/zero | tr '\0' 'x' > "$work/www/1k.bin"
# CONNS clients x 5,000 requests, one a second each: CONNS sessions
python3 - "$CONNS" > "$work/trace.log" <<'PY'
import sys, time
n = int(sys.argv[1])
for t in range(5000):
    stamp = time.strftime("%d/%b/%Y:%H:%M:%S +0000",
                          time.gmtime(804556800 + t))
    for c in range(n):
        print('c%d - - [%s] "GET /1k.bin HTTP/1.1" 200 1024' % (c, stamp))
PY
build/nictrace convert "$work/trace.log" --out "$work/trace.nic" > /dev/null

port=$(free_port)
taskset -c 0 "$NICD" --root "$work/www" --listen "127.0.0.1:$port" \
    --threads 1 -g "access_log off; error_log $work/nicd.log warn;
    open_file_cache max=1000; open_file_cache_valid 60s;
    keepalive_requests 1000000;" &
pids="$pids $!"
wait_port "$port"

echo "nicreplay vs wrk on nicd (1 thread, CPU 0), 1 KiB file; clients on CPU 1,"
echo "$CONNS connections, ${DURATION}s per run, $RUNS alternating runs; medians. Two cores shared by server and load generator."
: > "$work/results"
# a client's CPU seconds (user + system) from /usr/bin/time's file
cpu_s() {
    awk '{print $1 + $2}' "$1"
}

for r in $(seq "$RUNS"); do
    rps=$(taskset -c 1 wrk -t1 -c"$CONNS" -d"${DURATION}s" -s bench/wrk/report.lua \
        "http://127.0.0.1:$port/1k.bin" | sed -n 's/^JSON //p' |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["requests_per_s"])')
    echo "wrk $r $rps" >> "$work/results"
    echo "  run $r: wrk $rps req/s" >&2
    taskset -c 1 build/nicreplay -q -c "$CONNS" --no-pipeline --loop \
        --duration "$DURATION" --json "$work/r.json" "$work/trace.nic" \
        "http://127.0.0.1:$port/" > /dev/null
    rps=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failed"] == 0 and d["responses_by_status"] == {"200": d["requests"]}, d; print(d["requests_per_s"])' "$work/r.json")
    echo "nicreplay $r $rps" >> "$work/results"
    echo "  run $r: nicreplay $rps req/s" >&2
done

# both at once: each client's CPU per request
half=$((CONNS / 2))
: > "$work/at-once"
for r in $(seq "$RUNS"); do
    /usr/bin/time -f "%U %S" -o "$work/t-wrk" taskset -c 1 wrk -t1 -c"$half" \
        -d"${DURATION}s" -s bench/wrk/report.lua "http://127.0.0.1:$port/1k.bin" \
        > "$work/o-wrk" &
    w1=$!
    /usr/bin/time -f "%U %S" -o "$work/t-rep" taskset -c 1 build/nicreplay -q \
        -c "$half" --no-pipeline --loop --duration "$DURATION" \
        --json "$work/r2.json" "$work/trace.nic" "http://127.0.0.1:$port/" > /dev/null &
    w2=$!
    wait "$w1" "$w2"
    n=$(sed -n 's/^JSON //p' "$work/o-wrk" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')
    echo "wrk $r $(cpu_s "$work/t-wrk") $n" >> "$work/at-once"
    n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failed"] == 0, d; print(d["requests"])' "$work/r2.json")
    echo "nicreplay $r $(cpu_s "$work/t-rep") $n" >> "$work/at-once"
    echo "  at once, round $r" >&2
done

python3 - "$work/results" "$OUT/replayer.json" "$work/at-once" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    tool, _, rps = line.split()
    runs.setdefault(tool, []).append(float(rps))
m = {t: statistics.median(v) for t, v in runs.items()}
print("%-10s %12s  %s" % ("client", "req/s", "runs"))
for t in ("wrk", "nicreplay"):
    print("%-10s %12.0f  %s" % (t, m[t], " ".join("%.0f" % x for x in runs[t])))
print("ratio nicreplay/wrk: %.2fx" % (m["nicreplay"] / m["wrk"]))
# at once: microseconds of the client's own CPU per request
us = {}
for line in open(sys.argv[3]):
    tool, _, cpu, n = line.split()
    if int(n) == 0:
        sys.exit("replayer: %s completed no request at once" % tool)
    us.setdefault(tool, []).append(float(cpu) * 1e6 / int(n))
mu = {t: statistics.median(v) for t, v in us.items()}
print("both at once on CPU 1: the client's own CPU (user + system) per "
      "request, medians (rounds)")
for t in ("wrk", "nicreplay"):
    print("%-10s %9.2f us  %s" % (t, mu[t], " ".join("%.2f" % x for x in us[t])))
ratios = sorted(n / w for n, w in zip(us["nicreplay"], us["wrk"]))
print("CPU per request nicreplay/wrk: %.2fx (rounds %.2f-%.2f)" % (
    mu["nicreplay"] / mu["wrk"], ratios[0], ratios[-1]))
json.dump({"runs": runs, "median": m, "ratio": m["nicreplay"] / m["wrk"],
           "at_once_cpu_us_per_request": us,
           "at_once_median_us": mu,
           "cpu_ratio": mu["nicreplay"] / mu["wrk"]},
          open(sys.argv[2], "w"), indent=1)
print("results: %s" % sys.argv[2])
PY
