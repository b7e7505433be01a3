#!/bin/sh
# SPECweb99's static workload against nicd (docs/nicload.md): the largest
# number of conforming connections (nicload --search) with
#   sendfile   send_backend sendfile;
#   nic        send_backend nic, a 16 MiB cache, the amd33 testbed's bus
#              and host as the limit (nic_bus_limit on);
#   uncached   the same with no cache (every body by normal DMA).
# nicd on CPU 0 (one thread), nicload on CPU 1: two cores shared by server
# and load generator.  Usage: sh bench/specweb.sh (env: MAX=2048
# DURATION=10 WARMUP=3 ROOT=dir for a file set to keep).  Writes
# build/bench/specweb.json.
set -eu

MAX=${MAX:-2048}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
NICD=${NICD:-build/nicd}
. bench/lib.sh
bench_init

root=${ROOT:-$work/www}
echo "file set for $MAX connections in $root (kept when ROOT is given)" >&2
build/nicload fileset --connections "$MAX" --root "$root" >&2

start() { # name, backend directives
    port=$(free_port)
    taskset -c 0 "$NICD" --root "$root" --listen "127.0.0.1:$port" \
        --threads 1 -g "access_log off; error_log $work/$1.log warn;
        worker_connections 16384; open_file_cache max=10000;
        open_file_cache_valid 60s; keepalive_requests 1000000; $2" &
    pids="$pids $!"
    wait_port "$port"
    eval "port_$1=$port"
}
start sendfile "send_backend sendfile;"
start nic "send_backend nic; nic_cache_size 16m; nic_testbed amd33; nic_bus_limit on;"
start uncached "send_backend nic; nic_cache_size 0; nic_testbed amd33; nic_bus_limit on;"

echo "[" > "$OUT/specweb.json"
first=1
for srv in sendfile nic uncached; do
    eval "port=\$port_$srv"
    echo "$srv:" >&2
    taskset -c 1 build/nicload "http://127.0.0.1:$port/" --search --min 1 \
        --max "$MAX" --duration "$DURATION" --warmup "$WARMUP" \
        --json "$work/$srv.json" | tee "$work/$srv.txt" >&2
    [ $first -eq 1 ] || echo "," >> "$OUT/specweb.json"
    first=0
    printf '{"server": "%s", "result": ' "$srv" >> "$OUT/specweb.json"
    cat "$work/$srv.json" >> "$OUT/specweb.json"
    echo "}" >> "$OUT/specweb.json"
done
echo "]" >> "$OUT/specweb.json"
for srv in sendfile nic uncached; do
    printf '%-9s %s\n' "$srv" "$(grep '^capacity' "$work/$srv.txt")"
done
echo "results: $OUT/specweb.json (nicd on CPU 0, nicload on CPU 1; 2 cores)"
