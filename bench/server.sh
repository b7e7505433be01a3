#!/bin/sh
# nicd against Debian's nginx, same docroot, equivalent configurations
# (sendfile on, access log off, open file cache on, one worker, keep-alive
# without a request limit, and nginx's tcp_nopush on: nicd always packs
# headers and body into the same segments (MSG_MORE), which is what
# tcp_nopush does for nginx; without it nginx sends every response header
# as a packet of its own and loses a third of its rate on small files).  Each server is pinned to CPU 0, wrk to CPU 1
# (1 thread, 64 connections).  For each file size, runs alternate
# nicd/nginx RUNS times; the table shows medians and the ratio nicd/nginx.
#
# Usage: sh bench/server.sh   (env: DURATION=10 RUNS=3 CONNS=64
#                              SIZES="1k 16k 256k 4m" BACKEND=sendfile
#                              NGINX_TCP_NOPUSH=on)
# Writes build/bench/server.json.  The two CPUs are shared by server and
# load generator: compare the ratio, not the absolute numbers.
set -eu

DURATION=${DURATION:-10}
RUNS=${RUNS:-3}
CONNS=${CONNS:-64}
SIZES=${SIZES:-"1k 16k 256k 4m"}
BACKEND=${BACKEND:-sendfile}
NICD=${NICD:-build/nicd}
NGINX=${NGINX:-/usr/sbin/nginx}
. bench/lib.sh
bench_init

# the docroot
# shellcheck disable=SC2086
make_sized_files $SIZES

# nginx, as Debian ships it, one worker, pinned
nginx_port=$(free_port)
nginx_conf "${NGINX_TCP_NOPUSH:-on}" "    server {
        listen 127.0.0.1:$nginx_port;
        root $work/www;
    }"
taskset -c 0 "$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids="$pids $!"

# nicd, the same
nicd_port=$(free_port)
taskset -c 0 "$NICD" --root "$work/www" --listen "127.0.0.1:$nicd_port" \
    --threads 1 --backend "$BACKEND" -g "access_log off; error_log $work/nicd.log warn;
    open_file_cache max=1000; open_file_cache_valid 60s;
    keepalive_requests 1000000;" &
pids="$pids $!"

wait_port "$nginx_port"
wait_port "$nicd_port"

run_wrk() {
    taskset -c 1 wrk -t1 -c"$CONNS" -d"${DURATION}s" -s bench/wrk/report.lua \
        "http://127.0.0.1:$1/$2.bin" | sed -n 's/^JSON //p'
}

echo "nicd ($BACKEND) vs nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///'): servers on CPU 0, wrk -t1 -c$CONNS on CPU 1,"
echo "${DURATION}s per run, $RUNS alternating runs per size; medians. Two cores shared by server and load generator."
: > "$work/results"
for s in $SIZES; do
    for r in $(seq "$RUNS"); do
        for srv in nicd nginx; do
            port=$nicd_port
            [ "$srv" = nginx ] && port=$nginx_port
            json=$(run_wrk "$port" "$s")
            echo "$s $srv $r $json" >> "$work/results"
            echo "  $s $srv run $r: $(echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.0f req/s, %.1f MiB/s, errors %s" % (d["requests_per_s"], d["mib_per_s"], sum(d["errors"].values())))')" >&2
        done
    done
done

python3 - "$work/results" "$OUT/server.json" "$BACKEND" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    size, srv, run, js = line.split(" ", 3)
    rows.setdefault(size, {}).setdefault(srv, []).append(json.loads(js))
out = []
print("%-6s %14s %14s %7s %12s %12s" % ("size", "nicd req/s", "nginx req/s",
                                        "ratio", "nicd MiB/s", "nginx MiB/s"))
for size, d in rows.items():
    m = {srv: (statistics.median(r["requests_per_s"] for r in runs),
               statistics.median(r["mib_per_s"] for r in runs),
               sum(sum(r["errors"].values()) for r in runs))
         for srv, runs in d.items()}
    ratio = m["nicd"][0] / m["nginx"][0]
    print("%-6s %14.0f %14.0f %6.2fx %12.1f %12.1f" % (
        size, m["nicd"][0], m["nginx"][0], ratio, m["nicd"][1], m["nginx"][1]))
    if m["nicd"][2] or m["nginx"][2]:
        print("       errors: nicd %d, nginx %d" % (m["nicd"][2], m["nginx"][2]))
    out.append({"size": size, "backend": sys.argv[3],
                "nicd": d["nicd"], "nginx": d["nginx"],
                "nicd_median_rps": m["nicd"][0], "nginx_median_rps": m["nginx"][0],
                "ratio": ratio})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: %s" % sys.argv[2])
PY
