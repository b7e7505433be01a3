# Helpers shared by the benchmark scripts (sourced, POSIX sh).

# what every benchmark starts with: $OUT for results, $work (with a www/
# docroot) for everything else, $pids for the processes it starts, and the
# cleanup of both on every way out
bench_init() {
    OUT=build/bench
    mkdir -p "$OUT"
    work=$(mktemp -d /tmp/nicd-bench-XXXXXX)
    pids=""
    trap cleanup EXIT INT TERM
    mkdir -p "$work/www"
}

# a port the kernel considers free right now (benchmarks only: a server
# binds it a moment later; tests never do this)
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait until something accepts on 127.0.0.1:$1 (10 s at most)
wait_port() {
    python3 - "$1" <<'PY'
import socket, sys, time
end = time.monotonic() + 10
while True:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
        break
    except OSError:
        if time.monotonic() > end:
            sys.exit("server on port %s did not come up" % sys.argv[1])
        time.sleep(0.05)
PY
}

# the user + system CPU time of process $1 so far, in clock ticks
cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$1/stat"
}

# wrk -t1 -c$CONNS (default 64) for $DURATION seconds on CPU 1 against URL
# $1, timing the server process $2 meanwhile; prints "req/s MiB/s errors
# server-CPU-us/request".  The server's CPU per request does not depend on
# which of the two shared cores bounds the rate.
wrk_cpu() {
    t0=$(cpu_ticks "$2")
    json=$(taskset -c 1 wrk -t1 -c"${CONNS:-64}" -d"${DURATION}s" \
        -s bench/wrk/report.lua "$1" | sed -n 's/^JSON //p')
    t1=$(cpu_ticks "$2")
    echo "$json" | python3 -c 'import json,sys
d = json.load(sys.stdin)
t0, t1, hz = (int(a) for a in sys.argv[1:])
print(d["requests_per_s"], d["mib_per_s"], sum(d["errors"].values()),
      (t1 - t0) / hz * 1e6 / max(d["requests"], 1))' "$t0" "$t1" "$(getconf CLK_TCK)"
}

# one of two loads run at once, on CPU 1 for $DURATION seconds against URL
# $1 with half of $CONNS (default 64) connections; writes the count of
# requests answered to file $2
load_wrk() {
    taskset -c 1 wrk -t1 -c$((${CONNS:-64} / 2)) -d"${DURATION}s" \
        -s bench/wrk/report.lua "$1" | sed -n 's/^JSON //p' |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["requests"])' > "$2"
}
# the same with HTTP/1.1 pipelining: $DEPTH (default 16) requests written
# back to back on each connection (bench/wrk/pipeline.lua)
load_wrkpipe() {
    taskset -c 1 wrk -t1 -c$((${CONNS:-64} / 2)) -d"${DURATION}s" \
        -s bench/wrk/pipeline.lua "$1" -- "${DEPTH:-16}" | sed -n 's/^JSON //p' |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["requests"])' > "$2"
}
# the same with h2load, $STREAMS (default 8) streams per connection
# ("failed" if a request failed or none was made)
load_h2load() {
    taskset -c 1 h2load -t1 -c$((${CONNS:-64} / 2)) -m"${STREAMS:-8}" \
        -D"$DURATION" "$1" 2>&1 |
        awk '/^requests:/ {print ($10 == 0 && $8 > 0 ? $8 : "failed")}' > "$2"
}

# two servers loaded at the same time by load_$LOAD ($1: wrk or h2load):
# URL $2 (server process $3) and URL $4 (process $5); prints "requests-1
# CPU-ticks-1 requests-2 CPU-ticks-2", fails if a load did.
# Whatever makes this machine slower or faster for a while hits both.
run_together() {
    t1=$(cpu_ticks "$3")
    t2=$(cpu_ticks "$5")
    "load_$1" "$2" "$work/together-1" &
    l1=$!
    "load_$1" "$4" "$work/together-2" &
    l2=$!
    wait "$l1" "$l2"
    t1=$(($(cpu_ticks "$3") - t1))
    t2=$(($(cpu_ticks "$5") - t2))
    r1=$(cat "$work/together-1")
    r2=$(cat "$work/together-2")
    case " $r1 $r2 " in
    *failed* | *" 0 "* | *"  "*) echo "run_together: $1 failed: $2 $4" >&2; return 1 ;;
    esac
    echo "$r1 $t1 $r2 $t2"
}

# RUNS rounds of run_together with $LOAD (wrk unless set; wrkpipe, h2load) for
# each NAME: base URL $1 (server process $2) and $3 (process $4), each
# asked for NAME.bin; then the table of bench/together.py, its JSON in $5.
# Usage: together_rounds URL-1 PID-1 URL-2 PID-2 OUT.json LABEL-1 LABEL-2
# NAME...
together_rounds() {
    json=$5 n1=$6 n2=$7
    : > "$work/together"
    together_collect "$@"
    together_table "$json" "$n1" "$n2" "$RUNS"
}

# the rounds of together_rounds (same arguments), added to $work/together
together_collect() {
    u1=$1 p1=$2 u2=$3 p2=$4
    shift 7
    for name in "$@"; do
        for r in $(seq "$RUNS"); do
            line="$name $(run_together "${LOAD:-wrk}" "$u1/$name.bin" "$p1" "$u2/$name.bin" "$p2")"
            echo "$line" >> "$work/together"
            echo "  $name together run $r: $line" >&2
        done
    done
}

# the table of the rounds in $work/together: JSON in $1, labels $2 and
# $3, $4 the rounds' description ("5", "3 starts x 5")
together_table() {
    echo "both loaded at once (two ${LOAD:-wrk} -c$((${CONNS:-64} / 2)) on CPU 1): server CPU us/request, medians of $4 rounds"
    python3 bench/together.py "$work/together" "$(getconf CLK_TCK)" "$2" "$3" "$1"
}

# the processes started here ($pids), ended by PID (none left in $pids)
stop_pids() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    pids=""
}

# ... and the work directory
cleanup() {
    stop_pids
    rm -rf "$work"
}

# nginx.conf for Debian's nginx in $work/nginx, one worker in the
# foreground, the settings every benchmark compares on (sendfile, access
# log off, open file cache, unlimited keep-alive); $1: tcp_nopush, $2: more
# http-level directives and the server blocks; env NGINX_WORKERS (default
# 1; more runs a master), NGINX_CONNS (worker_connections, default 4096),
# NGINX_MAIN (more top-level directives)
nginx_conf() {
    mkdir -p "$work/nginx/logs" "$work/nginx/tmp"
    # one process unless NGINX_WORKERS says more (then with its master)
    workers=${NGINX_WORKERS:-1}
    if [ "$workers" = 1 ]; then master=off; else master=on; fi
    cat > "$work/nginx/nginx.conf" <<CONF
worker_processes $workers;
daemon off;
master_process $master;
${NGINX_MAIN:-}
error_log $work/nginx/logs/error.log warn;
pid $work/nginx/nginx.pid;
events { worker_connections ${NGINX_CONNS:-4096}; }
http {
    sendfile on;
    tcp_nopush $1;
    access_log off;
    open_file_cache max=1000;
    open_file_cache_valid 60s;
    keepalive_requests 1000000;
    default_type application/octet-stream;
    client_body_temp_path $work/nginx/tmp;
    proxy_temp_path $work/nginx/tmp;
    fastcgi_temp_path $work/nginx/tmp;
    uwsgi_temp_path $work/nginx/tmp;
    scgi_temp_path $work/nginx/tmp;
$2
}
CONF
}

# files named after their sizes ("1k" -> $work/www/1k.bin of 1,024 bytes;
# k and m are powers of 1024), bytes 0..250 repeated
make_sized_files() {
    for s in "$@"; do
        python3 - "$s" "$work/www/$s.bin" <<'PY'
import sys
n = sys.argv[1]
size = int(n[:-1]) * {"k": 1024, "m": 1048576}[n[-1]] if n[-1] in "km" \
    else int(n)
open(sys.argv[2], "wb").write((bytes(range(251)) * (size // 251 + 1))[:size])
PY
    done
}

# h2o.conf for Debian's h2o in $work, one thread, no compression, serving
# $work/www, then h2o started on CPU 0 (its PID in $pids); $1: the listen
# blocks and any other top-level settings (YAML)
start_h2o() {
    cat > "$work/h2o.conf" <<CONF
num-threads: 1
error-log: $work/h2o-error.log
file.send-gzip: OFF
$1
hosts:
  default:
    paths:
      /:
        file.dir: $work/www
CONF
    taskset -c 0 /usr/bin/h2o -c "$work/h2o.conf" > "$work/h2o.out" 2>&1 &
    pids="$pids $!"
}
