"""1,000 concurrent keep-alive connections, all served, twice each."""

import resource
import selectors
import socket

from nicd import Server, build, check

N = 1000


def test_thousand_keepalive_connections():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < N + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4 * N), hard))
    with Server() as s:
        s.put("a.txt", b"x" * 2000)
        req = build("/a.txt")
        socks = []
        for _ in range(N):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=20)
            c.setblocking(False)
            socks.append(c)
        for rnd in range(2):
            sel = selectors.DefaultSelector()
            bufs = {}
            for c in socks:
                c.sendall(req) if rnd == 0 else c.send(req)
                bufs[c] = b""
                sel.register(c, selectors.EVENT_READ)
            done = 0
            while done < N:
                events = sel.select(timeout=20)
                check(events, "round %d: %d of %d answered before the "
                      "deadline" % (rnd, done, N))
                for key, _ in events:
                    c = key.fileobj
                    data = c.recv(65536)
                    check(data, "round %d: a connection was closed" % rnd)
                    bufs[c] += data
                    head, sep, body = bufs[c].partition(b"\r\n\r\n")
                    if sep and len(body) >= 2000:
                        check(head.startswith(b"HTTP/1.1 200 "),
                              "round %d: %r" % (rnd, head[:40]))
                        check(len(body) == 2000, "extra bytes")
                        sel.unregister(c)
                        done += 1
            sel.close()
        for c in socks:
            c.close()
