#!/bin/sh
# Many connections, nicd against nginx in the same run (issue 32):
#
# memory     CONNS keep-alive connections to one server process (nicd
#            --threads 1, nginx with master_process off), each idle after
#            one request for a 4 KiB file; then DEPTH pipelined requests on
#            each at once; then all closed.  The server's RSS at each step
#            (bench/conns.py memory).
# slowloris  SLOW connections trickling a request head (a byte a second)
#            against worker_connections 4096 x 2 (nicd 2 threads, nginx 2
#            worker processes), while a normal client makes REQUESTS
#            requests one at a time on new connections: how many complete,
#            and their latency (bench/conns.py slowloris).
#
# Usage: sh bench/conns.sh  (env: CONNS=10000 DEPTH=15 SLOW=10000
#                            REQUESTS=144 RUNS=3)
# Writes build/bench/conns.json.  Two cores shared by the servers and the
# Python client; loopback only.  Medians of RUNS runs of each step.
set -eu

CONNS=${CONNS:-10000}
DEPTH=${DEPTH:-15}
SLOW=${SLOW:-10000}
REQUESTS=${REQUESTS:-144}
RUNS=${RUNS:-3}
NICD=${NICD:-build/nicd}
. bench/lib.sh
bench_init
make_sized_files 4k
chmod 755 "$work" "$work/www"
chmod 644 "$work/www"/*
nofile=$((CONNS > SLOW ? CONNS : SLOW))
nofile=$((nofile + 1024))
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt "$nofile" ]; then
    echo "conns.sh: $nofile descriptors needed, the hard limit is $hard" >&2
    exit 1
fi
ulimit -n "$nofile"

# $1: nicd's threads, $2: worker_connections; sets $pid and $port
start_nicd() {
    port=$(free_port)
    "$NICD" --root "$work/www" --listen "127.0.0.1:$port" --threads "$1" \
        -g "access_log off; error_log $work/nicd.log warn;
        worker_connections $2; worker_rlimit_nofile $nofile;
        keepalive_timeout 300s; client_header_timeout 60s;" &
    pid=$!
    pids="$pids $pid"
    wait_port "$port"
}

# $1: processes (1: master_process off), $2: worker_connections
start_nginx() {
    port=$(free_port)
    NGINX_WORKERS=$1 NGINX_CONNS=$2 \
        NGINX_MAIN="worker_rlimit_nofile $nofile;" nginx_conf off "
    keepalive_timeout 300s;
    client_header_timeout 60s;
    server { listen 127.0.0.1:$port; root $work/www; }"
    /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
    pid=$!
    pids="$pids $pid"
    wait_port "$port"
}

stop_server() {
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}

: > "$work/results"
for r in $(seq "$RUNS"); do
    for server in nicd nginx; do
        if [ "$server" = nicd ]; then start_nicd 1 $((CONNS + 1024)); else start_nginx 1 $((CONNS + 1024)); fi
        line=$(python3 bench/conns.py memory "$port" "$pid" "$CONNS" "$DEPTH")
        echo "  run $r $server memory: $line" >&2
        echo "$server memory $line" >> "$work/results"
        stop_server
        if [ "$server" = nicd ]; then start_nicd 2 4096; else start_nginx 2 4096; fi
        line=$(python3 bench/conns.py slowloris "$port" "$SLOW" "$REQUESTS")
        echo "  run $r $server slowloris: $line" >&2
        echo "$server slowloris $line" >> "$work/results"
        stop_server
    done
done

python3 - "$work/results" "$OUT/conns.json" "$CONNS" "$DEPTH" "$SLOW" "$REQUESTS" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    server, kind, js = line.split(" ", 2)
    rows.setdefault((server, kind), []).append(json.loads(js))
conns, depth, slow, requests = sys.argv[3:7]

def med(server, kind, key):
    vals = [r[key] for r in rows[(server, kind)] if r.get(key) is not None]
    return statistics.median(vals) if vals else None

out = {}
print("memory: %s keep-alive connections, one server process (RSS, MiB; "
      "per connection, KiB)" % conns)
print("%-6s %10s %10s %12s %10s %12s" % ("", "start", "idle", "idle/conn",
                                         "pipelined", "closed"))
for s in ("nicd", "nginx"):
    st = med(s, "memory", "rss_start_kib")
    idle = med(s, "memory", "rss_idle_kib")
    pipe = med(s, "memory", "rss_pipelined_kib")
    closed = med(s, "memory", "rss_closed_kib")
    out[s] = {"rss_start_kib": st, "rss_idle_kib": idle,
              "rss_pipelined_kib": pipe, "rss_closed_kib": closed}
    print("%-6s %10.1f %10.1f %12.2f %10.1f %12.1f" % (
        s, st / 1024, idle / 1024, (idle - st) / int(conns), pipe / 1024,
        closed / 1024))
for k, name in (("rss_idle_kib", "idle"), ("rss_pipelined_kib",
                                             "after %s pipelined" % depth)):
    n = out["nicd"][k] - out["nicd"]["rss_start_kib"]
    g = out["nginx"][k] - out["nginx"]["rss_start_kib"]
    print("nicd/nginx, memory above start, %s: %.2fx" % (name, n / max(g, 1)))
print()
print("slowloris: %s connections trickling a head, worker_connections "
      "4096 x 2; %s normal requests" % (slow, requests))
print("%-6s %10s %8s %8s %8s %8s" % ("", "completed", "failed", "p50 ms",
                                     "p99 ms", "max ms"))
for s in ("nicd", "nginx"):
    row = {k: med(s, "slowloris", k) for k in
           ("completed", "failed", "p50_ms", "p99_ms", "max_ms")}
    out[s]["slowloris"] = row
    print("%-6s %10s %8s %8s %8s %8s" % (s, row["completed"], row["failed"],
                                         row["p50_ms"], row["p99_ms"],
                                         row["max_ms"]))
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
