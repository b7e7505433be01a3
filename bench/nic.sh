#!/bin/sh
# The nic backend's two benchmarks (docs/interconnect.md):
#  1. emulation cost: nicd with send_backend nic (warm cache, nic_bus_limit
#     off) against nicd with sendfile, 1 KiB to 256 KiB files;
#  2. the paper's AMD/33 testbed as the limit (nic_testbed amd33: its bus
#     and its host, paced with nic_bus_limit on), a file that fits the cache
#     (16 MiB), against the same with no cache (nic_cache_size 0: every
#     body by normal DMA, "uncached").
# Servers on CPU 0 (one thread), wrk -t1 on CPU 1; runs alternate RUNS
# times; medians.  Besides requests/s, each run records the server's own
# CPU time (user + system, from /proc/PID/stat) per request: where wrk's
# CPU bounds the rate (small files here), requests/s cannot show the
# emulation's cost, and the CPU per request can.
#  3. the cost of 1 again, with both servers loaded at the same time (two
#     wrk -c$CONNS/2 on CPU 1, both servers on CPU 0), each server's CPU
#     per request over the same seconds, and the median of the rounds'
#     ratios: this machine's slower and faster spells, which move
#     sequential runs by 10 % and more, then hit both alike.  The kernel
#     charges loopback receive work (softirq) to whichever process CPU 0
#     is running, so when that work dominates (256 KiB) one server may be
#     charged some of the other's: read that row with its spread.
# Usage: sh bench/nic.sh (env: DURATION=10 RUNS=3 CONNS=64)
# Writes build/bench/nic.json.  Two cores shared by servers and wrk.
set -eu

DURATION=${DURATION:-10}
RUNS=${RUNS:-3}
CONNS=${CONNS:-64}
NICD=${NICD:-build/nicd}
. bench/lib.sh
bench_init

for s in 1 16 256; do
    head -c $((s * 1024)) /dev/urandom > "$work/www/${s}k.bin"
done

start() { # name, backend directives
    port=$(free_port)
    taskset -c 0 "$NICD" --root "$work/www" --listen "127.0.0.1:$port" \
        --threads 1 -g "access_log off; error_log $work/$1.log warn;
        open_file_cache max=1000; open_file_cache_valid 60s;
        keepalive_requests 1000000; $2" &
    pids="$pids $!"
    eval "pid_$1=$!"
    wait_port "$port"
    eval "port_$1=$port"
}
start sendfile "send_backend sendfile;"
start nic "send_backend nic; nic_cache_size 16m;"
start limited "send_backend nic; nic_cache_size 16m; nic_testbed amd33; nic_bus_limit on;"
start uncached "send_backend nic; nic_cache_size 0; nic_testbed amd33; nic_bus_limit on;"

echo "nic backend benchmarks: servers on CPU 0 (1 thread), wrk -t1 -c$CONNS on CPU 1, ${DURATION}s runs,"
echo "$RUNS alternating runs; medians.  Two cores shared by servers and load generator."
: > "$work/results"
for pair in "sendfile nic 1k 16k 256k" "uncached limited 16k 256k"; do
    set -- $pair
    a=$1 b=$2
    shift 2
    for size in "$@"; do
        for r in $(seq "$RUNS"); do
            for srv in $a $b; do
                eval "port=\$port_$srv pid=\$pid_$srv"
                # warm up once (the cache, the page cache)
                [ "$r" = 1 ] && curl -s -o /dev/null "http://127.0.0.1:$port/$size.bin"
                res=$(wrk_cpu "http://127.0.0.1:$port/$size.bin" "$pid")
                echo "$size $srv $res" >> "$work/results"
                echo "  $size $srv run $r: $res" >&2
            done
        done
    done
done

python3 - "$work/results" "$OUT/nic.json" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    size, srv, rps, mib, err, us = line.split()
    rows.setdefault((size, srv), []).append((float(rps), float(mib), int(err), float(us)))
med = {k: statistics.median(r[0] for r in v) for k, v in rows.items()}
cpu = {k: statistics.median(r[3] for r in v) for k, v in rows.items()}
errs = {k: sum(r[2] for r in v) for k, v in rows.items()}
out = []
for title, a, b in (("1. emulation cost: nic (warm, bus limit off) vs sendfile", "sendfile", "nic"),
                    ("2. amd33 testbed, paced: cached (16 MiB) vs uncached", "uncached", "limited")):
    print(title)
    print("%-6s %14s %14s %7s   %s" % ("size", a + " req/s", b + " req/s", "ratio",
                                      "server CPU us/request: %s, %s, %s/%s" % (a, b, b, a)))
    for size in ("1k", "16k", "256k"):
        if (size, a) in med:
            ratio = med[(size, b)] / med[(size, a)]
            cratio = cpu[(size, b)] / cpu[(size, a)]
            print("%-6s %14.0f %14.0f %6.2fx   %8.2f %8.2f %6.3fx%s" % (
                size, med[(size, a)], med[(size, b)], ratio, cpu[(size, a)], cpu[(size, b)], cratio,
                "  errors %d/%d" % (errs[(size, a)], errs[(size, b)]) if errs[(size, a)] or errs[(size, b)] else ""))
            out.append({"bench": title, "size": size, a: rows[(size, a)], b: rows[(size, b)],
                        "ratio": ratio, "cpu_us_per_request": {a: cpu[(size, a)], b: cpu[(size, b)]},
                        "cpu_ratio": cratio})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: %s" % sys.argv[2])
PY
echo "3. emulation cost: nic (warm, bus limit off) vs sendfile, both loaded at once"
together_rounds "http://127.0.0.1:$port_sendfile" "$pid_sendfile" "http://127.0.0.1:$port_nic" "$pid_nic" \
    "$OUT/nic-together.json" sendfile nic 1k 16k 256k
