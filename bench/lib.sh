# Helpers shared by the benchmark scripts (sourced, POSIX sh).

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

# the processes started here ($pids), ended by PID, and the work directory
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
