#!/bin/sh
# The nginx module's cost: Debian's nginx with ngx_http_sendfile_nic_module
# (sendfile_nic on, a warm 64 MiB cache, bus limit off) against the same
# nginx without it, files of 1 KiB to 256 KiB, wrk -t1 -c64.  Each nginx
# is one worker pinned to CPU 0, wrk to CPU 1 (as make bench).  Both are
# checked first (status 200, the length), the cache is warmed (every file
# fetched twice), and rounds alternate the two RUNS times; medians.
# Goal (issue 10): at most 5 % cost.  Two cores shared by servers and
# load generator: compare the ratio.
# Usage: sh bench/module.sh   (env: DURATION=5 RUNS=3 SIZES="1 4 16 64 256"
#        NIC_MEMORY=DIR: sendfile_nic_memory_path DIR, the NIC memory in
#        an unnamed file there instead of a memfd)
set -eu
DURATION=${DURATION:-5}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1 4 16 64 256"}
SO=${SO:-build/ngx_http_sendfile_nic_module.so}
NIC_MEMORY=${NIC_MEMORY:-}
. bench/lib.sh
bench_init
so=$(cd "$(dirname "$SO")" && pwd)/$(basename "$SO")
chmod 755 "$work" "$work/www"
for s in $SIZES; do
    head -c $((s * 1024)) /dev/urandom > "$work/www/$s.bin"
done
chmod 644 "$work/www"/*

p_plain=$(free_port)
p_nic=$(free_port)
nginx_conf on "    server { listen 127.0.0.1:$p_plain; root $work/www; }"
mv "$work/nginx/nginx.conf" "$work/nginx/plain.conf"
nginx_conf on "    sendfile_nic on; sendfile_nic_cache_size 64m;
    ${NIC_MEMORY:+sendfile_nic_memory_path $NIC_MEMORY;}
    server { listen 127.0.0.1:$p_nic; root $work/www;
        location = /nic-status { sendfile_nic_status; } }"
{ echo "load_module $so;"; sed "s|nginx.pid|nginx-nic.pid|" "$work/nginx/nginx.conf"; } \
    > "$work/nginx/nic.conf"
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/plain.conf" &
pids="$pids $!"
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nic.conf" &
pids="$pids $!"
wait_port "$p_plain"
wait_port "$p_nic"

for s in $SIZES; do
    want=$((s * 1024))
    for p in $p_plain $p_nic $p_nic; do
        got=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "http://127.0.0.1:$p/$s.bin")
        if [ "$got" != "200 $want" ]; then
            echo "module.sh: port $p answered '$got' for $s.bin (want '200 $want')" >&2
            exit 1
        fi
    done
done
hits=$(curl -s "http://127.0.0.1:$p_nic/nic-status" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["hits"])')
[ "$hits" -gt 0 ] || { echo "module.sh: the cache did not hit after warming" >&2; exit 1; }

echo "nginx with the module / without, wrk -t1 -c64, ${DURATION}s, $RUNS rounds, medians;"
echo "nginx on CPU 0, wrk on CPU 1 (two cores shared by server and load generator)."
: > "$work/results"
for s in $SIZES; do
    for r in $(seq "$RUNS"); do
        for pair in "plain $p_plain" "nic $p_nic"; do
            set -- $pair
            v=$(taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" "http://127.0.0.1:$2/$s.bin" |
                awk '/Requests\/sec/ {print $2}')
            echo "$s $1 $v" >> "$work/results"
            echo "  $s KiB $1 run $r: $v" >&2
        done
    done
done
python3 - "$work/results" "$OUT/module.json" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    size, who, v = line.split()
    rows.setdefault(size, {}).setdefault(who, []).append(float(v))
out = []
print("%-8s %12s %12s %8s" % ("size", "nginx", "nginx+nic", "ratio"))
for size, by in rows.items():
    m = {k: statistics.median(v) for k, v in by.items()}
    print("%-8s %12.0f %12.0f %7.3fx" % (size + "k", m["plain"], m["nic"], m["nic"] / m["plain"]))
    out.append({"size_kib": int(size), "requests_per_s": m, "ratio": m["nic"] / m["plain"]})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: " + sys.argv[2])
PY
