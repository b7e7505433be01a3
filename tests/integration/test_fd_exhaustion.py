"""Out of file descriptors: 503 for a file that cannot be opened, accepting
paused (not spinning) with a log line, and recovery afterwards."""

import re
import socket
import time

from nicd import Server, check, get


def test_out_of_descriptors():
    with Server(threads=1, conf="worker_rlimit_nofile 40;") as s:
        s.put("a.txt", b"aaa")
        conns = []
        for _ in range(60):
            conns.append(socket.create_connection(("127.0.0.1", s.port),
                                                  timeout=10))
        s.wait_log(r"accept4\(\) failed, not accepting new connections "
                   r"for 100 ms")
        t0 = time.monotonic()
        # the first connection was accepted; its file cannot be opened now
        conns[0].sendall(b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        data = conns[0].recv(4096)
        check(data.startswith(b"HTTP/1.1 503 "), "got %r" % data[:40])
        check(b"Retry-After: 1" in data, "no Retry-After")
        s.wait_log(r"out of file descriptors")
        # not spinning: the pause logs at most about ten times a second
        s.wait_log(r"accept4\(\) failed", count=5)
        n = len(re.findall(r"accept4\(\) failed", s.log()))
        dt = time.monotonic() - t0 + 0.1
        check(n / dt < 40, "%d accept failures in %.2fs: spinning" % (n, dt))
        for c in conns:
            c.close()
        r = get(s.port, "/a.txt")
        check(r.status == 200 and r.body == b"aaa", "not recovered")


def test_worker_connections_limit():
    """At worker_connections, a worker stops accepting (the connection
    waits in the backlog) and resumes when one of its connections closes."""
    with Server(threads=1, conf="worker_connections 2;") as s:
        s.put("a.txt", b"aaa")
        c1, c2 = s.connect(), s.connect()
        check(c1.request("/a.txt").status == 200, "first")
        check(c2.request("/a.txt").status == 200, "second")
        c3 = s.connect(timeout=1)
        c3.send(b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        s.wait_log(r"2 worker_connections are not enough")
        try:
            data = c3.sock.recv(100)
            check(False, "served beyond worker_connections: %r" % data)
        except socket.timeout:
            pass    # not accepted yet, as it should be
        c1.close()
        c3.sock.settimeout(20)
        r = c3.read_response()
        check(r.status == 200 and r.body == b"aaa", "not served after a close")
        c2.close()
        c3.close()
