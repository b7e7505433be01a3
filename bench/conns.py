"""Memory per connection and latency under a slowloris crowd, of one server
process (bench/conns.sh runs it against nicd and nginx in turn).

  conns.py memory PORT PID N DEPTH [SETTLE]   N keep-alive connections,
        each with one request for /4k.bin and idle after it; then DEPTH
        pipelined requests on each (all at once); then all closed.  Prints
        one JSON object: the server's RSS (KiB) at the start, idle (once
        every response is in), after the pipelined load, and after the
        close (the lowest over SETTLE seconds, default 3; 0: not measured),
        and the requests answered.
  conns.py slowloris PORT N REQUESTS   N connections that trickle a request
        head (a byte a second), then REQUESTS normal requests, one at a
        time on new connections, while they hold.  Prints one JSON object:
        requests completed, timed out, latency p50/p99/max (ms).

Loopback only; counts and times bounded by the arguments."""

import json
import resource
import selectors
import socket
import sys
import time

REQ = b"GET /4k.bin HTTP/1.1\r\nHost: x\r\n\r\n"


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def raise_nofile(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, n + 256)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))


def open_conns(port, n):
    conns = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        conns.append(s)
    return conns


def wait_connected(conns, timeout=30):
    """Until every connection is established (a SYN dropped from a full
    backlog is sent again after a second), so that what is timed after
    does not wait behind the crowd's handshakes."""
    sel = selectors.DefaultSelector()
    for s in conns:
        sel.register(s, selectors.EVENT_WRITE)
    left = len(conns)
    end = time.monotonic() + timeout
    while left > 0 and time.monotonic() < end:
        for key, _ in sel.select(1):
            sel.unregister(key.fileobj)
            left -= 1
    sel.close()
    return len(conns) - left


def exchange(conns, payload, responses, timeout=60):
    """Send payload on every connection and read until each has seen
    `responses` complete responses (counted by their status lines; the
    body is 4 KiB of 'x', which never holds "HTTP/1.1 ").  Returns the
    responses seen in all."""
    sel = selectors.DefaultSelector()
    state = {}
    for s in conns:
        state[s.fileno()] = [s, payload, 0, b""]
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
    left = len(conns)
    total = 0
    end = time.monotonic() + timeout
    while left > 0 and time.monotonic() < end:
        for key, ev in sel.select(1):
            st = state[key.fd]
            s = st[0]
            try:
                if ev & selectors.EVENT_WRITE and st[1]:
                    k = s.send(st[1])
                    st[1] = st[1][k:]
                    if not st[1]:
                        sel.modify(s, selectors.EVENT_READ)
                if ev & selectors.EVENT_READ:
                    data = s.recv(262144)
                    if not data:
                        raise ConnectionError("closed")
                    buf = st[3] + data
                    n = buf.count(b"HTTP/1.1 ")
                    st[2] += n
                    total += n
                    st[3] = buf[-8:]  # shorter than the 9-byte marker: never counted twice
                    if st[2] >= responses:
                        sel.unregister(s)
                        left -= 1
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                sel.unregister(s)
                left -= 1
    sel.close()
    return total


def memory(port, pid, n, depth, settle):
    raise_nofile(n)
    out = {"connections": n, "depth": depth, "rss_start_kib": rss_kib(pid)}
    conns = open_conns(port, n)
    out["answered_idle"] = exchange(conns, REQ, 1)
    out["rss_idle_kib"] = rss_kib(pid)
    out["answered_pipelined"] = exchange(conns, REQ * depth, depth)
    out["rss_pipelined_kib"] = rss_kib(pid)
    for s in conns:
        s.close()
    if settle > 0:
        low = rss_kib(pid)
        end = time.monotonic() + settle
        while time.monotonic() < end:
            time.sleep(0.1)
            low = min(low, rss_kib(pid))
        out["rss_closed_kib"] = low
    print(json.dumps(out))


def slowloris(port, n, requests):
    raise_nofile(n)
    held = open_conns(port, n)
    wait_connected(held)
    head = b"GET /4k.bin HTTP/1.1\r\nHost: x\r\n"
    sent = [0] * n
    lat, timeouts = [], 0
    next_trickle = time.monotonic()
    for i in range(requests):
        now = time.monotonic()
        if now >= next_trickle:
            for k, s in enumerate(held):
                try:
                    s.send(head[sent[k]:sent[k] + 1] if sent[k] < len(head)
                           else b"X")
                    sent[k] += 1
                except OSError:
                    pass
            next_trickle = now + 1
        t0 = time.monotonic()
        try:
            c = socket.create_connection(("127.0.0.1", port), timeout=20)
            c.sendall(REQ)
            got = b""
            while b"HTTP/1.1 200" not in got or len(got) < 4096:
                d = c.recv(65536)
                if not d:
                    break
                got += d
            c.close()
            if b"HTTP/1.1 200" in got:
                lat.append((time.monotonic() - t0) * 1000)
            else:
                timeouts += 1
        except OSError:
            timeouts += 1
        time.sleep(0.05)
    for s in held:
        s.close()
    lat.sort()

    def pct(p):
        return round(lat[min(len(lat) - 1, int(len(lat) * p))], 2) \
            if lat else None
    print(json.dumps({"slowloris": n, "requests": requests,
                      "completed": len(lat), "failed": timeouts,
                      "p50_ms": pct(0.5), "p99_ms": pct(0.99),
                      "max_ms": round(lat[-1], 2) if lat else None}))


if __name__ == "__main__":
    if sys.argv[1] == "memory":
        memory(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
               int(sys.argv[5]),
               float(sys.argv[6]) if len(sys.argv) > 6 else 3)
    elif sys.argv[1] == "slowloris":
        slowloris(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
