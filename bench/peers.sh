#!/bin/sh
# nicd against the fastest static servers Debian has: nginx, lighttpd and
# h2o, all running at once, each with one worker pinned to CPU 0, wrk
# (one thread, CONNS connections) pinned to CPU 1; files of 1 KiB, 16 KiB,
# 256 KiB and 4 MiB, plain and pipelined (DEPTH requests back to back);
# rounds alternate the servers; medians of RUNS rounds and the ratio of
# nicd to the best of h2o and lighttpd (and of all peers).  Beside them
# the floor (bench/floor/): minimal epoll and io_uring responders that
# serve the same files from memory with nothing but the kernel's work,
# and nicd's share of the faster one.
#
# Equal settings: one worker (thread or process), access logs off,
# sendfile (nginx "sendfile on; tcp_nopush on", lighttpd's linux-sendfile
# network backend, h2o's default), open file caches on (nginx
# open_file_cache, lighttpd's stat cache, nicd open_file_cache; h2o keeps
# none), keep-alive without a request limit, no compression.  Before any
# timing every server's answer to every file is checked: status 200 and
# the file's length.
#
# Usage: sh bench/peers.sh  (env: DURATION=8 RUNS=3 CONNS=64 DEPTH=16 PROFILE=0
#                            SIZES="1k 16k 256k 4m" MODES="plain pipelined"
#                            NICD_LISTEN_OPTS="notsent_lowat=off"
#                            URING_ZC_LOCAL=off ALL_AT_ONCE=1 MAIN_ROUNDS=1)
# Where nicd has a working uring send backend, a second nicd runs it
# ("nicd_uring", same settings; URING_ZC_LOCAL=on makes it send zero copy
# to wrk on loopback too, which the kernel copies at transmit).
# Then (ALL_AT_ONCE=1, the default) every server loaded at the same time,
# one wrk each on CPU 1 (CONNS split among them), RUNS rounds a row: each
# server process's own CPU time (user + system, /proc/PID/stat) per
# request, and its inverse, requests per server-core-second: the load
# generator, shared alike, no longer decides the row.
# Writes build/bench/peers.json (and peers-at-once.json).  Two cores shared by servers and wrk:
# compare ratios, not absolute numbers.  For each run it also reads CPU
# 0's time from /proc/stat: microseconds of CPU 0 per request in user
# mode (the server's own code) and in the kernel (system and softirq: its
# syscalls and the TCP path of its sockets), and idle; and the share of
# the run CPU 1 (wrk) sat idle: near 0, the load generator is the bound.
set -eu

DURATION=${DURATION:-8}
RUNS=${RUNS:-3}
CONNS=${CONNS:-64}
DEPTH=${DEPTH:-16}
SIZES=${SIZES:-"1k 16k 256k 4m"}
MODES=${MODES:-"plain pipelined"}
NICD=${NICD:-build/nicd}
# listen parameters for nicd's socket, e.g. notsent_lowat=off
NICD_LISTEN_OPTS=${NICD_LISTEN_OPTS:-}
. bench/lib.sh
bench_init

# shellcheck disable=SC2086
make_sized_files $SIZES
# h2o and lighttpd started as root serve as another user
chmod 755 "$work" "$work/www"
chmod 644 "$work/www"/*

port_nicd=$(free_port)
taskset -c 0 "$NICD" --root "$work/www" \
    --threads 1 -g "listen 127.0.0.1:$port_nicd $NICD_LISTEN_OPTS;
    access_log off; error_log $work/nicd.log warn;
    open_file_cache max=1000; open_file_cache_valid 60s;
    keepalive_requests 1000000;" &
pids="$pids $!"
pid_nicd=$!

# the uring backend beside it, where io_uring works here
URING=""
if "$NICD" -V | grep -q '^  uring ' && ! "$NICD" -V | grep -q 'unavailable here'; then
    URING=nicd_uring
    port_nicd_uring=$(free_port)
    taskset -c 0 "$NICD" --root "$work/www" \
        --threads 1 -g "listen 127.0.0.1:$port_nicd_uring $NICD_LISTEN_OPTS;
        access_log off; error_log $work/nicd-uring.log warn;
        open_file_cache max=1000; open_file_cache_valid 60s;
        keepalive_requests 1000000; send_backend uring;
        uring_zc_local ${URING_ZC_LOCAL:-off};" &
    pids="$pids $!"
    pid_nicd_uring=$!
else
    echo "peers: no working uring backend in $NICD: its column is left out" >&2
fi

port_nginx=$(free_port)
nginx_conf on "    server { listen 127.0.0.1:$port_nginx; root $work/www; }"
taskset -c 0 /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids="$pids $!"
pid_nginx=$!

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
pid_lighttpd=$!

port_h2o=$(free_port)
start_h2o "http1-request-timeout: 600
listen:
  host: 127.0.0.1
  port: $port_h2o"
pid_h2o=${pids##* }

# the floor (bench/floor/floor.h): minimal responders that do no more
# than the kernel's part of a request, from memory; what no server here
# can beat, so every row says how far nicd is from the limit
FLOORS=""
FLOOR_DIR=${FLOOR_DIR:-$(dirname "$NICD")/bench}
for f in floor_epoll floor_uring; do
    if [ ! -x "$FLOOR_DIR/$f" ]; then
        echo "peers: no $FLOOR_DIR/$f (make bench-peers builds it): its column is left out" >&2
        continue
    fi
    port=$(free_port)
    taskset -c 0 "$FLOOR_DIR/$f" --port "$port" --root "$work/www" 2> "$work/$f.log" &
    pids="$pids $!"
    eval "port_$f=$port pid_$f=$!"
    FLOORS="$FLOORS $f"
done

SERVERS="nicd $URING nginx lighttpd h2o"
for f in $FLOORS; do
    # one that could not start (io_uring refused here) says why and is
    # left out
    eval "pid=\$pid_$f port=\$port_$f"
    until curl -s -o /dev/null "http://127.0.0.1:$port/" || ! kill -0 "$pid" 2>/dev/null; do
        :
    done
    if kill -0 "$pid" 2>/dev/null; then
        SERVERS="$SERVERS $f"
    else
        echo "peers: $f did not start: $(cat "$work/$f.log"): its column is left out" >&2
    fi
done
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

# CPU 0's time so far, in clock ticks: user (with nice), system,
# irq + softirq, idle (with iowait).  CPU 0 holds the servers and the
# kernel work of their sockets (on loopback, also the delivery of their
# segments to wrk's socket), so its split per request shows what bounds
# a server: its own code (user) or the kernel's TCP path.
cpu0() {
    awk '/^cpu0 / {print $2 + $3, $4, $7 + $8, $5 + $6}
         /^cpu1 / {print $5 + $6}' /proc/stat
}

run_wrk() { # port size mode: wrk's JSON line, CPU 0's ticks spent, CPU 1's idle
    if [ "$3" = pipelined ]; then
        set -- "$1" "$2" -s bench/wrk/pipeline.lua "http://127.0.0.1:$1/$2.bin" -- "$DEPTH"
    else
        set -- "$1" "$2" -s bench/wrk/report.lua "http://127.0.0.1:$1/$2.bin"
    fi
    shift 2
    before=$(cpu0)
    json=$(taskset -c 1 wrk -t1 -c"$CONNS" -d"${DURATION}s" "$@" | sed -n 's/^JSON //p')
    after=$(cpu0)
    # shellcheck disable=SC2086
    set -- $before $after
    echo "$json $(($6 - $1)) $(($7 - $2)) $(($8 - $3)) $(($9 - $4)) $((${10} - $5))"
}

echo "$SERVERS: one worker each on CPU 0, wrk -t1 -c$CONNS on CPU 1,"
echo "${DURATION}s runs, $RUNS alternating rounds; medians.  Two cores shared by servers and wrk."
# MAIN_ROUNDS=0: only the all-at-once part
: > "$work/results"
if [ "${MAIN_ROUNDS:-1}" = 1 ]; then MODES_MAIN=$MODES; else MODES_MAIN=""; fi
for mode in $MODES_MAIN; do
    for s in $SIZES; do
        for r in $(seq "$RUNS"); do
            for srv in $SERVERS; do
                eval "port=\$port_$srv"
                out=$(run_wrk "$port" "$s" "$mode")
                json=${out% * * * * *}
                echo "$mode $s $srv $r $out" >> "$work/results"
                echo "  $mode $s $srv round $r: $(echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.0f req/s, errors %d" % (d["requests_per_s"], sum(d["errors"].values())))')" >&2
            done
        done
    done
done

python3 - "$work/results" "$OUT/peers.json" "$DEPTH" "$(getconf CLK_TCK)" <<'PY'
import json, statistics, sys
hz = float(sys.argv[4])
rows = {}
for line in open(sys.argv[1]):
    mode, size, srv, run, rest = line.split(" ", 4)
    js, user, system, soft, idle, idle1 = rest.rsplit(" ", 5)
    r = json.loads(js)
    ticks = [int(user), int(system), int(soft), int(idle)]
    # CPU 1 (wrk, and the kernel work of its sockets): the share of the
    # run it sat idle; near 0, the load generator bounds the run
    r["cpu1_idle_share"] = int(idle1) / hz / max(r["seconds"], 1e-9)
    # CPU 0 microseconds per request: user, kernel (system + softirq),
    # idle
    n = max(r["requests"], 1)
    r["cpu0_us_per_request"] = {
        "user": ticks[0] * 1e6 / hz / n,
        "kernel": (ticks[1] + ticks[2]) * 1e6 / hz / n,
        "idle": ticks[3] * 1e6 / hz / n}
    rows.setdefault((mode, size), {}).setdefault(srv, []).append(r)
out = []
servers = []
for d in rows.values():
    for srv in d:
        if srv not in servers:
            servers.append(srv)
ours = [x for x in servers if x.startswith("nicd")]
floors = [x for x in servers if x.startswith("floor")]


def peer(s):
    return not s.startswith(("nicd", "floor"))


print(("%-10s %-5s" + " %10s" * len(servers) + " %9s %9s") % (
    ("mode", "size") + tuple(servers) + ("nicd/h2o,l", "nicd/all")))
for (mode, size), d in rows.items():
    med = {s: statistics.median(r["requests_per_s"] for r in runs)
           for s, runs in d.items()}
    errs = {s: sum(sum(r["errors"].values()) for r in runs)
            for s, runs in d.items()}
    best_hl = max(med["h2o"], med["lighttpd"])
    best = max(v for s, v in med.items() if peer(s))
    print(("%-10s %-5s" + " %10.0f" * len(servers) + " %8.2fx %8.2fx") % (
        (mode, size) + tuple(med[s] for s in servers)
        + (med["nicd"] / best_hl, med["nicd"] / best)))
    if any(errs.values()):
        print("           errors: %r" % errs)
    cpu = {s: {k: statistics.median(r["cpu0_us_per_request"][k]
                                    for r in runs)
               for k in ("user", "kernel", "idle")}
           for s, runs in d.items()}
    idle1 = {s: statistics.median(r["cpu1_idle_share"] for r in runs)
             for s, runs in d.items()}
    print("           CPU 0 us/request, user + kernel (idle): %s" % ", ".join(
        "%s %.2f + %.2f (%.2f)" % (s, c["user"], c["kernel"], c["idle"])
        for s, c in cpu.items()))
    # requests per server-core-second: what one core of the server does,
    # whatever bounds the row (wrk, here, at small sizes): the servers'
    # own CPU 0 time per request, inverted
    per_core = {s: 1e6 / max(c["user"] + c["kernel"], 1e-9)
                for s, c in cpu.items()}
    best_core = max(v for s, v in per_core.items() if peer(s))
    floor_core = max([per_core[s] for s in floors] or [0])
    print("           requests per server-core-second: %s; %s%s" % (
        ", ".join("%s %.0f" % (s, v) for s, v in per_core.items()),
        ", ".join("%s/best peer %.2fx" % (s, per_core[s] / best_core)
                  for s in ours),
        "".join(", %s/floor %.2fx" % (s, per_core[s] / floor_core)
                for s in ours if floor_core)))
    print("           CPU 1 (wrk) idle: %s" % ", ".join(
        "%s %.0f %%" % (s, 100 * v) for s, v in idle1.items()))
    # both cores' busy time per request: the work the request cost the
    # machine, wherever the kernel did it (on loopback the receiving
    # socket's TCP work runs on whichever core delivers the segment)
    both = {s: statistics.median(
                r["cpu0_us_per_request"]["user"]
                + r["cpu0_us_per_request"]["kernel"]
                + (1 - r["cpu1_idle_share"]) * r["seconds"] * 1e6
                / max(r["requests"], 1) for r in runs)
            for s, runs in d.items()}
    print("           both cores busy us/request: %s" % ", ".join(
        "%s %.1f" % (s, v) for s, v in both.items()))
    out.append({"mode": mode, "size": size, "depth": int(sys.argv[3])
                if mode == "pipelined" else 1, "median_rps": med,
                "cpu0_us_per_request": cpu, "cpu1_idle_share": idle1,
                "requests_per_server_core_second": per_core,
                "server_core_vs_best_peer": {s: per_core[s] / best_core
                                             for s in ours},
                "server_core_vs_floor": {s: per_core[s] / floor_core
                                         for s in ours if floor_core},
                "both_cores_busy_us_per_request": both,
                "errors": errs, "runs": {s: [r["requests_per_s"] for r in v]
                                         for s, v in d.items()},
                "nicd_vs_best_of_h2o_lighttpd": med["nicd"] / best_hl,
                "nicd_vs_best_peer": med["nicd"] / best})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: %s" % sys.argv[2])
PY

# every server loaded at once: each one's own CPU per request
if [ "${ALL_AT_ONCE:-1}" = 1 ]; then
    nsrv=$(echo $SERVERS | wc -w)
    each=$((CONNS / nsrv))
    : > "$work/at-once"
    for mode in $MODES; do
        for s in $SIZES; do
            for r in $(seq "$RUNS"); do
                wrks=""
                for srv in $SERVERS; do
                    eval "port=\$port_$srv pid=\$pid_$srv"
                    eval "t0_$srv=$(cpu_ticks "$pid")"
                    if [ "$mode" = pipelined ]; then
                        set -- -s bench/wrk/pipeline.lua "http://127.0.0.1:$port/$s.bin" -- "$DEPTH"
                    else
                        set -- -s bench/wrk/report.lua "http://127.0.0.1:$port/$s.bin"
                    fi
                    taskset -c 1 wrk -t1 -c"$each" -d"${DURATION}s" "$@" |
                        sed -n 's/^JSON //p' > "$work/once-$srv" &
                    wrks="$wrks $!"
                done
                # shellcheck disable=SC2086
                wait $wrks
                for srv in $SERVERS; do
                    eval "pid=\$pid_$srv t0=\$t0_$srv"
                    echo "$mode $s $srv $r $(($(cpu_ticks "$pid") - t0)) $(cat "$work/once-$srv")" >> "$work/at-once"
                done
                echo "  at once: $mode $s round $r" >&2
            done
        done
    done
    python3 - "$work/at-once" "$OUT/peers-at-once.json" "$(getconf CLK_TCK)" <<'PY'
import json, statistics, sys
hz = float(sys.argv[3])
rows, errs = {}, {}
for line in open(sys.argv[1]):
    mode, size, srv, run, ticks, js = line.split(" ", 5)
    r = json.loads(js)
    if r["requests"] == 0:
        sys.exit("peers: %s %s %s at once: no request answered" % (
            mode, size, srv))
    # CPU per answered request (a timed-out one, wrk's 2 s at pipelined
    # 4 MiB, cost its share too: said below)
    us = int(ticks) / hz * 1e6 / r["requests"]
    rows.setdefault((mode, size), {}).setdefault(srv, []).append(us)
    errs.setdefault((mode, size), {}).setdefault(srv, 0)
    errs[(mode, size)][srv] += sum(r["errors"].values())
servers = list(next(iter(rows.values())))
floors = [s for s in servers if s.startswith("floor")]


def peer(s):
    return not s.startswith(("nicd", "floor"))


def spread(v):
    # the rounds' range as a share of their median
    return (max(v) - min(v)) / statistics.median(v) if v else 0


print("every server loaded at once (one wrk each on CPU 1): the server's own "
      "CPU (user + system) per request,\nmedians of the rounds, as requests "
      "per server-core-second; nicd against the best peer and the faster "
      "floor\n(the floor: bench/floor/, the kernel's part of a request "
      "alone); under each row, each server's spread: its rounds' range / "
      "median")
print(("%-10s %-5s" + " %11s" * len(servers) + " %9s %10s") % (
    ("mode", "size") + tuple(servers) + ("nicd/best", "nicd/floor")))
out = []
for (mode, size), d in rows.items():
    us = {s: statistics.median(v) for s, v in d.items()}
    core = {s: 1e6 / max(v, 1e-9) for s, v in us.items()}
    best = max(v for s, v in core.items() if peer(s))
    floor = max([core[s] for s in floors] or [0])
    print(("%-10s %-5s" + " %11.0f" * len(servers) + " %8.2fx %10s") % (
        (mode, size) + tuple(core[s] for s in servers)
        + (core["nicd"] / best,
           "%.2fx" % (core["nicd"] / floor) if floor else "-")))
    print(("%-10s %-5s" + " %10.0f%%" * len(servers)) % (
        ("", "spread") + tuple(100 * spread(d[s]) for s in servers)))
    if any(errs[(mode, size)].values()):
        print("           errors (wrk's, timeouts): %r" % errs[(mode, size)])
    out.append({"mode": mode, "size": size, "cpu_us_per_request": us,
                "requests_per_server_core_second": core,
                "rounds_us": d, "errors": errs[(mode, size)],
                "vs_best_peer": {s: core[s] / best for s in core
                                 if s.startswith("nicd")},
                "vs_floor": {s: core[s] / floor for s in core
                             if s.startswith("nicd") and floor}})
json.dump(out, open(sys.argv[2], "w"), indent=1)
print("results: %s" % sys.argv[2])
PY
fi

# PROFILE=1: then one more run of each server for each size and mode under
# `perf record -a` (cpu-clock): where each core's busy time went, per
# request, by process and by user or kernel code, and the kernel's top
# functions (bench/perf_split.py).  It shows what bounds a row (CPU 1 busy
# and almost all wrk: the load generator) and how close the peers come to
# the same bound.
if [ "${PROFILE:-0}" = 1 ]; then
    echo "profiles: perf record -a, one ${DURATION}s run each, us/request of each core's busy time"
    for mode in $MODES; do
        for s in $SIZES; do
            for srv in $SERVERS; do
                eval "port=\$port_$srv"
                perf record -q -a -e cpu-clock -F 1999 -o "$work/perf.data" 2>/dev/null &
                perf_pid=$!
                pids_before=$pids
                pids="$pids $perf_pid"
                out=$(run_wrk "$port" "$s" "$mode")
                kill -INT "$perf_pid"
                wait "$perf_pid" || true
                pids=$pids_before
                printf "  %s %s %s," "$mode" "$s" "$srv"
                python3 bench/perf_split.py "$work/perf.data" "$srv" "$out"
            done
        done
    done
fi
