#!/bin/sh
# nicd against the fastest static servers Debian has: nginx, lighttpd and
# h2o, all running at once, each with one worker pinned to CPU 0, wrk
# (one thread, CONNS connections) pinned to CPU 1; files of 1 KiB, 16 KiB,
# 256 KiB and 4 MiB, plain and pipelined (DEPTH requests back to back);
# rounds alternate the servers; medians of RUNS rounds and the ratio of
# nicd to the best of h2o and lighttpd (and of all peers).
#
# Equal settings: one worker (thread or process), access logs off,
# sendfile (nginx "sendfile on; tcp_nopush on", lighttpd's linux-sendfile
# network backend, h2o's default), open file caches on (nginx
# open_file_cache, lighttpd's stat cache, nicd open_file_cache; h2o keeps
# none), keep-alive without a request limit, no compression.  Before any
# timing every server's answer to every file is checked: status 200 and
# the file's length.
#
# Usage: sh bench/peers.sh  (env: DURATION=8 RUNS=3 CONNS=64 DEPTH=16
#                            SIZES="1k 16k 256k 4m" MODES="plain pipelined")
# Writes build/bench/peers.json.  Two cores shared by servers and wrk:
# compare ratios, not absolute numbers.
set -eu

DURATION=${DURATION:-8}
RUNS=${RUNS:-3}
CONNS=${CONNS:-64}
DEPTH=${DEPTH:-16}
SIZES=${SIZES:-"1k 16k 256k 4m"}
MODES=${MODES:-"plain pipelined"}
NICD=${NICD:-build/nicd}
. bench/lib.sh
bench_init

# shellcheck disable=SC2086
make_sized_files $SIZES
# h2o and lighttpd started as root serve as another user
chmod 755 "$work" "$work/www"
chmod 644 "$work/www"/*

port_nicd=$(free_port)
taskset -c 0 "$NICD" --root "$work/www" --listen "127.0.0.1:$port_nicd" \
    --threads 1 -g "access_log off; error_log $work/nicd.log warn;
    open_file_cache max=1000; open_file_cache_valid 60s;
    keepalive_requests 1000000;" &
pids="$pids $!"

port_nginx=$(free_port)
nginx_conf on "    server { listen 127.0.0.1:$port_nginx; root $work/www; }"
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids="$pids $!"

port_lighttpd=$(free_port)
cat > "$work/lighttpd.conf" <<CONF
server.document-root = "$work/www"
server.bind = "127.0.0.1"
server.port = $port_lighttpd
server.errorlog = "$work/lighttpd-error.log"
server.max-worker = 0
server.network-backend = "sendfile"
server.stat-cache-engine = "simple"
server.max-keep-alive-requests = 1000000
server.max-keep-alive-idle = 600
server.max-connections = 4096
mimetype.assign = ( "" => "application/octet-stream" )
CONF
taskset -c 0 /usr/sbin/lighttpd -D -f "$work/lighttpd.conf" &
pids="$pids $!"

port_h2o=$(free_port)
start_h2o "http1-request-timeout: 600
listen:
  host: 127.0.0.1
  port: $port_h2o"

SERVERS="nicd nginx lighttpd h2o"
for srv in $SERVERS; do
    eval "wait_port \$port_$srv"
done

# every server answers every file: 200 and the file's length
for srv in $SERVERS; do
    eval "port=\$port_$srv"
    for s in $SIZES; do
        got=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' \
            "http://127.0.0.1:$port/$s.bin")
        want="200 $(stat -c %s "$work/www/$s.bin")"
        if [ "$got" != "$want" ]; then
            echo "peers: $srv answered $s.bin with \"$got\", not \"$want\"" >&2
            exit 1
        fi
    done
done

run_wrk() { # port size mode
    if [ "$3" = pipelined ]; then
        set -- "$1" "$2" -s bench/wrk/pipeline.lua "http://127.0.0.1:$1/$2.bin" -- "$DEPTH"
    else
        set -- "$1" "$2" -s bench/wrk/report.lua "http://127.0.0.1:$1/$2.bin"
    fi
    shift 2
    taskset -c 1 wrk -t1 -c"$CONNS" -d"${DURATION}s" "$@" | sed -n 's/^JSON //p'
}

echo "nicd, nginx, lighttpd, h2o: one worker each on CPU 0, wrk -t1 -c$CONNS on CPU 1,"
echo "${DURATION}s runs, $RUNS alternating rounds; medians.  Two cores shared by servers and wrk."
: > "$work/results"
for mode in $MODES; do
    for s in $SIZES; do
        for r in $(seq "$RUNS"); do
            for srv in $SERVERS; do
                eval "port=\$port_$srv"
                json=$(run_wrk "$port" "$s" "$mode")
                echo "$mode $s $srv $r $json" >> "$work/results"
                echo "  $mode $s $srv round $r: $(echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.0f req/s, errors %d" % (d["requests_per_s"], sum(d["errors"].values())))')" >&2
            done
        done
    done
done

python3 - "$work/results" "$OUT/peers.json" "$DEPTH" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode, size, srv, run, js = line.split(" ", 4)
    rows.setdefault((mode, size), {}).setdefault(srv, []).append(json.loads(js))
out = []
print("%-10s %-5s %10s %10s %10s %10s %9s %9s" % (
    "mode", "size", "nicd", "nginx", "lighttpd", "h2o", "nicd/h2o,l", "nicd/all"))
for (mode, size), d in rows.items():
    med = {s: statistics.median(r["requests_per_s"] for r in runs)
           for s, runs in d.items()}
    errs = {s: sum(sum(r["errors"].values()) for r in runs)
            for s, runs in d.items()}
    best_hl = max(med["h2o"], med["lighttpd"])
    best = max(v for s, v in med.items() if s != "nicd")
    print("%-10s %-5s %10.0f %10.0f %10.0f %10.0f %8.2fx %8.2fx" % (
        mode, size, med["nicd"], med["nginx"], med["lighttpd"], med["h2o"],
        med["nicd"] / best_hl, med["nicd"] / best))
    if any(errs.values()):
        print("           errors: %r" % errs)
    out.append({"mode": mode, "size": size, "depth": int(sys.argv[3])
                if mode == "pipelined" else 1, "median_rps": med,
                "errors": errs, "runs": {s: [r["requests_per_s"] for r in v]
                                         for s, v in d.items()},
                "nicd_vs_best_of_h2o_lighttpd": med["nicd"] / best_hl,
                "nicd_vs_best_peer": med["nicd"] / best})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: %s" % sys.argv[2])
PY
