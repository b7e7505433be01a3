#!/bin/sh
# The nginx module's cost: Debian's nginx with ngx_http_sendfile_nic_module
# (sendfile_nic on, a warm 64 MiB cache, bus limit off) against the same
# nginx without it, files of 1 KiB to 256 KiB, wrk -t1 -c64.  Each nginx
# is one worker pinned to CPU 0, wrk to CPU 1 (as make bench).  Both are
# checked first (status 200, the length), the cache is warmed (every file
# fetched twice), and rounds alternate the two RUNS times; medians, and
# the median of each round's ratio ("paired"); and the worker's own CPU
# time per request (/proc/PID/stat), which does not depend on which of
# the two shared cores bounds the rate.  Then the two loaded at the same
# time (two wrk -c32), the worker's CPU per request and the median of the
# rounds' ratios: this machine's slower and faster spells hit both alike
# (loopback receive work is charged to whichever process CPU 0 runs, so
# where it dominates, 256 KiB, read that row with its spread).
# Goal (issue 10): at most 5 % cost.  Two cores shared by servers and
# load generator: compare the ratio.
# Usage: sh bench/module.sh   (env: DURATION=5 RUNS=3 SIZES="1 4 16 64 256"
#        NIC_MEMORY=DIR: sendfile_nic_memory_path DIR, the NIC memory in
#        an unnamed file there instead of a memfd; TMPFS=1: also nginx
#        without the module serving the files from tmpfs, against the
#        docroot in /tmp)
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
# TMPFS=1 (the default): a third nginx, without the module, serving copies
# of the files from tmpfs (/dev/shm), the kind of memory a memfd is: what
# reading 4 KiB shmem pages instead of the docroot's filesystem costs nginx
# itself, the part of the module's cost that belongs to the kernel (both
# plain nginx, loaded at once as below)
if [ "${TMPFS:-1}" = 1 ]; then
    shm=$(mktemp -d /dev/shm/nicd-bench-XXXXXX)
    trap 'cleanup; rm -rf "$shm"' EXIT INT TERM
    chmod 755 "$shm"
    cp -p "$work/www"/*.bin "$shm/"
    p_shm=$(free_port)
    nginx_conf on "    server { listen 127.0.0.1:$p_shm; root $shm; }"
    sed "s|nginx.pid|nginx-shm.pid|" "$work/nginx/nginx.conf" > "$work/nginx/shm.conf"
fi
# master_process off: the process started is the worker, timed by wrk_cpu
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/plain.conf" &
pid_plain=$!
pids="$pids $!"
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nic.conf" &
pid_nic=$!
pids="$pids $!"
wait_port "$p_plain"
wait_port "$p_nic"
if [ "${TMPFS:-1}" = 1 ]; then
    taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/shm.conf" &
    pid_shm=$!
    pids="$pids $!"
    wait_port "$p_shm"
fi

for s in $SIZES; do
    want=$((s * 1024))
    for p in $p_plain $p_nic $p_nic ${p_shm:-}; do
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
        order="plain nic"
        [ $((r % 2)) -eq 0 ] && order="nic plain"
        for who in $order; do
            eval "port=\$p_$who pid=\$pid_$who"
            res=$(wrk_cpu "http://127.0.0.1:$port/$s.bin" "$pid")
            echo "$s $who $res" >> "$work/results"
            echo "  $s KiB $who run $r: $res" >&2
        done
    done
done
python3 - "$work/results" "$OUT/module.json" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    size, who, rps, mib, err, us = line.split()
    rows.setdefault(size, {}).setdefault(who, []).append((float(rps), float(us), int(err)))
out = []
print("%-6s %10s %10s %7s %7s   %s" % ("size", "nginx", "+module", "ratio", "paired",
                                     "worker CPU us/request: nginx, +module, ratio"))
for size, by in rows.items():
    m = {k: statistics.median(r[0] for r in v) for k, v in by.items()}
    cpu = {k: statistics.median(r[1] for r in v) for k, v in by.items()}
    errors = sum(r[2] for v in by.values() for r in v)
    # the two of a round ran one after the other: their ratio cancels the
    # machine's slower and faster spells, which move whole rounds
    paired = statistics.median(n[0] / p[0] for p, n in zip(by["plain"], by["nic"]))
    print("%-6s %10.0f %10.0f %6.3fx %6.3fx   %8.2f %8.2f %6.3fx%s" % (
        size + "k", m["plain"], m["nic"], m["nic"] / m["plain"], paired,
        cpu["plain"], cpu["nic"], cpu["nic"] / cpu["plain"],
        "  errors %d" % errors if errors else ""))
    out.append({"size_kib": int(size), "requests_per_s": m, "ratio": m["nic"] / m["plain"],
                "paired_ratio": paired, "cpu_us_per_request": cpu,
                "cpu_ratio": cpu["nic"] / cpu["plain"], "errors": errors})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: " + sys.argv[2])
PY

# both loaded at once (bench/lib.sh): the worker's CPU per request over
# the same seconds, median of the rounds' ratios; sizes in KiB
together_rounds "http://127.0.0.1:$p_plain" "$pid_plain" "http://127.0.0.1:$p_nic" "$pid_nic" \
    "$OUT/module-together.json" nginx +module $SIZES
if [ "${TMPFS:-1}" = 1 ]; then
    echo "the kernel's part: nginx without the module, the files on tmpfs / on $(df --output=fstype "$work/www" | tail -1)"
    together_rounds "http://127.0.0.1:$p_plain" "$pid_plain" "http://127.0.0.1:$p_shm" "$pid_shm" \
        "$OUT/module-tmpfs.json" nginx nginx-tmpfs $SIZES
fi
