#!/bin/sh
# HTTP/2 (h2load) and HTTPS (wrk): nicd against Debian's h2o and nginx,
# same docroot, equivalent settings (one worker, access logs off, file
# caches on, unlimited keep-alive, the same self-signed certificate, TLS
# 1.3).  Servers pinned to CPU 0, the load generator to CPU 1.  Each
# server's answer is checked first (status 200 and the file's length, with
# curl over h2c or h2).  For each case, rounds alternate the servers RUNS
# times; the table shows medians and nicd / the best peer.
#
# Cases: h2load -c64 -m8 and -m100 on 1 KiB and 16 KiB, over h2c and over
# TLS (h2); wrk -c64 over HTTPS (HTTP/1.1) against nginx.
# Then the server CPU per stream of nicd and h2o loaded at the same time
# (two h2load -c32 -m8 on CPU 1, user + system time from /proc), over h2c
# and h2: what one server costs per stream, whichever core bounds the
# rate, and whatever the machine does meanwhile hits both.
# Usage: sh bench/h2.sh   (env: DURATION=5 RUNS=3 SIZES="1k 16k")
# Writes build/bench/h2.json, h2-cpu-h2c.json and h2-cpu-h2.json.  Two
# cores shared by servers and load generator: compare ratios, not absolute
# numbers.
set -eu

DURATION=${DURATION:-5}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1k 16k"}
NICD=${NICD:-build/nicd}
. bench/lib.sh
bench_init

for s in $SIZES; do
    head -c $(( ${s%k} * 1024 )) /dev/urandom > "$work/www/$s.bin"
done
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" \
    -out "$work/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null
# h2o started as root serves as "nobody": the docroot must be readable
chmod 755 "$work" "$work/www"
chmod 644 "$work/www"/*

# nicd: h2c on one port, h2 (and HTTPS/1.1 by ALPN) on another
n_h2c=$(free_port)
n_tls=$(free_port)
taskset -c 0 "$NICD" --root "$work/www" --threads 1 -g "
    listen 127.0.0.1:$n_h2c http2; listen 127.0.0.1:$n_tls ssl http2;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.3; access_log off; error_log $work/nicd.log warn;
    open_file_cache max=1000; open_file_cache_valid 60s;
    keepalive_requests 1000000;" &
n_pid=$!
pids="$pids $n_pid"

# nginx 1.22 from Debian: h2c and h2 on separate listeners
g_h2c=$(free_port)
g_tls=$(free_port)
nginx_conf on "    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.3;
    server { listen 127.0.0.1:$g_h2c http2; root $work/www; }
    server { listen 127.0.0.1:$g_tls ssl http2; root $work/www; }"
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids="$pids $!"

# h2o 2.2 from Debian
o_h2c=$(free_port)
o_tls=$(free_port)
start_h2o "http2-idle-timeout: 600
listen:
  host: 127.0.0.1
  port: $o_h2c
listen:
  host: 127.0.0.1
  port: $o_tls
  ssl:
    certificate-file: $work/cert.pem
    key-file: $work/key.pem
    minimum-version: TLSv1.3"
o_pid=${pids##* }

for p in $n_h2c $n_tls $g_h2c $g_tls $o_h2c $o_tls; do wait_port "$p"; done

# every server answers every file correctly, over h2c and h2
for s in $SIZES; do
    want=$(stat -c %s "$work/www/$s.bin")
    for pair in "nicd $n_h2c $n_tls" "nginx $g_h2c $g_tls" "h2o $o_h2c $o_tls"; do
        set -- $pair
        for url in "--http2-prior-knowledge http://127.0.0.1:$2/$s.bin" \
                   "-k --http2 https://127.0.0.1:$3/$s.bin"; do
            # shellcheck disable=SC2086
            got=$(curl -s -o /dev/null -w '%{http_version} %{http_code} %{size_download}' $url)
            if [ "$got" != "2 200 $want" ]; then
                echo "h2.sh: $1 answered '$got' to $url (want '2 200 $want')" >&2
                exit 1
            fi
        done
    done
done

h2load_rps() { # url m
    taskset -c 1 h2load -c64 -m"$2" -D"$DURATION" -t1 "$1" 2>/dev/null |
        awk '/^finished in/ {r=$4} /^requests:/ {f=$10} END {if (f != 0) r="failed"; print r}'
}
wrk_rps() { # url
    taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" "$1" |
        awk '/Requests\/sec/ {print $2}'
}

echo "HTTP/2 and HTTPS: servers on CPU 0 (one worker), load on CPU 1, ${DURATION}s runs,"
echo "$RUNS alternating rounds; medians.  Two cores shared by servers and load generator."
: > "$work/results"
for s in $SIZES; do
    for m in 8 100; do
        for proto in h2c h2; do
            for r in $(seq "$RUNS"); do
                for pair in "nicd $n_h2c $n_tls" "nginx $g_h2c $g_tls" "h2o $o_h2c $o_tls"; do
                    set -- $pair
                    if [ "$proto" = h2c ]; then url="http://127.0.0.1:$2/$s.bin";
                    else url="https://127.0.0.1:$3/$s.bin"; fi
                    v=$(h2load_rps "$url" "$m")
                    echo "$proto -m$m $s $1 $v" >> "$work/results"
                    echo "  $proto -m$m $s $1 run $r: $v" >&2
                done
            done
        done
    done
    for r in $(seq "$RUNS"); do
        for pair in "nicd $n_tls" "nginx $g_tls"; do
            set -- $pair
            v=$(wrk_rps "https://127.0.0.1:$2/$s.bin")
            echo "https-wrk - $s $1 $v" >> "$work/results"
            echo "  https (wrk) $s $1 run $r: $v" >&2
        done
    done
done

python3 - "$work/results" "$OUT/h2.json" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    proto, m, size, server, v = line.split()
    if v == "failed":
        sys.exit("h2.sh: %s %s %s %s had failed requests" % (proto, m, size, server))
    rows.setdefault((proto, m, size), {}).setdefault(server, []).append(float(v))
out = []
print("%-10s %-5s %-5s %12s %12s %12s %8s" % ("case", "m", "size", "nicd", "nginx", "h2o", "nicd/best"))
for (proto, m, size), by in rows.items():
    med = {k: statistics.median(v) for k, v in by.items()}
    best = max(v for k, v in med.items() if k != "nicd")
    print("%-10s %-5s %-5s %12.0f %12s %12s %7.2fx" % (
        proto, m, size, med["nicd"], "%.0f" % med["nginx"],
        "%.0f" % med["h2o"] if "h2o" in med else "-", med["nicd"] / best))
    out.append({"case": proto, "streams": m, "size": size,
                "requests_per_s": med, "ratio_to_best_peer": med["nicd"] / best})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: " + sys.argv[2])
PY

for proto in h2c h2; do
    if [ "$proto" = h2c ]; then
        n_url="http://127.0.0.1:$n_h2c" o_url="http://127.0.0.1:$o_h2c"
    else
        n_url="https://127.0.0.1:$n_tls" o_url="https://127.0.0.1:$o_tls"
    fi
    echo "$proto:"
    # shellcheck disable=SC2086
    LOAD=h2load together_rounds "$n_url" "$n_pid" "$o_url" "$o_pid" \
        "$OUT/h2-cpu-$proto.json" nicd h2o $SIZES
done
