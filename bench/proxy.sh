#!/bin/sh
# The reverse proxy: wrk through nicd to an upstream against the same
# through Debian's nginx, both loaded at once (issue 42).  The upstream is
# one nicd serving files (one thread, on CPU 1 beside the two wrk, shared
# alike); each proxy is one worker pinned to CPU 0 with the same settings:
# an upstream group with kept connections (keepalive 32, HTTP/1.1,
# "Connection" cleared), buffering on, access logs off.  Files of 1 KiB
# and 64 KiB.  Before any timing both proxies' answers to every file are
# checked (status 200, the file's length).  Reported: each proxy's own
# CPU time (user + system) per request, medians of RUNS rounds, and the
# ratio nginx / nicd (above 1: nicd spends less).  Two cores shared by
# the proxies, the upstream and wrk: compare the ratio, not the numbers.
#
# Usage: sh bench/proxy.sh  (env: DURATION=5 RUNS=5 CONNS=64
#                            SIZES="1k 64k")
# Writes build/bench/proxy.json.
set -eu

DURATION=${DURATION:-5}
RUNS=${RUNS:-5}
SIZES=${SIZES:-"1k 64k"}
NICD=${NICD:-build/nicd}
. bench/lib.sh
bench_init

# shellcheck disable=SC2086
make_sized_files $SIZES

port_up=$(free_port)
taskset -c 1 "$NICD" --root "$work/www" --threads 1 \
    -g "listen 127.0.0.1:$port_up; access_log off;
    error_log $work/upstream.log warn; open_file_cache max=1000;
    keepalive_requests 1000000;" &
pids="$pids $!"

proxy_block() {
    cat <<CONF
    upstream files { server 127.0.0.1:$port_up; keepalive 32; }
    server {
        listen 127.0.0.1:$1;
        location / {
            proxy_pass http://files;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
CONF
}

port_nicd=$(free_port)
cat > "$work/nicd.conf" <<CONF
worker_threads 1;
error_log $work/nicd.log warn;
http {
    access_log off;
    keepalive_requests 1000000;
$(proxy_block "$port_nicd")
}
CONF
taskset -c 0 "$NICD" -c "$work/nicd.conf" &
pids="$pids $!"
pid_nicd=$!

port_nginx=$(free_port)
nginx_conf on "$(proxy_block "$port_nginx")"
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids="$pids $!"
pid_nginx=$!

for p in "$port_up" "$port_nicd" "$port_nginx"; do
    wait_port "$p"
done

for s in $SIZES; do
    want=$(wc -c < "$work/www/$s.bin")
    for p in "$port_nicd" "$port_nginx"; do
        got=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' \
            "http://127.0.0.1:$p/$s.bin")
        if [ "$got" != "200 $want" ]; then
            echo "proxy: 127.0.0.1:$p/$s.bin answered \"$got\", not \"200 $want\"" >&2
            exit 1
        fi
    done
done

echo "bench-proxy: nicd and nginx as reverse proxies (one worker each on CPU 0), upstream nicd and wrk on CPU 1; 2 shared cores"
# shellcheck disable=SC2086
together_rounds "http://127.0.0.1:$port_nicd" "$pid_nicd" \
    "http://127.0.0.1:$port_nginx" "$pid_nginx" "$OUT/proxy.json" \
    nicd nginx $SIZES
