"""Out of descriptors or connection slots: the connection waiting longest
for a request makes room, 503 for a file that cannot be opened, one log
line a second, and recovery afterwards."""

import re
import socket

from nicd import Server, check, get


def test_out_of_descriptors():
    """Out of descriptors, a worker closes the connection that has waited
    longest for a request and accepts the new one (nginx's "reusing
    connections"); a file that cannot be opened gets 503; the log says it
    once a second with a count, never a line per failure."""
    with Server(threads=1, conf="worker_rlimit_nofile 40;") as s:
        s.put("a.txt", b"aaa")
        conns = []
        for _ in range(60):
            conns.append(socket.create_connection(("127.0.0.1", s.port),
                                                  timeout=10))
        s.wait_log(r"accept4\(\) failed, reusing connections")
        # the oldest silent connections made room for the newest
        check(conns[0].recv(100) == b"", "the oldest was not closed")
        last = conns[-1]
        last.sendall(b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        data = last.recv(4096)
        check(data.startswith(b"HTTP/1.1 503 ") and b"Retry-After: 1" in data
              or data.startswith(b"HTTP/1.1 200 "), "got %r" % data[:40])
        if data.startswith(b"HTTP/1.1 503 "):
            s.wait_log(r"out of file descriptors")
        # more failures than lines: one line a second, with a count
        for _ in range(60):
            conns.append(socket.create_connection(("127.0.0.1", s.port),
                                                  timeout=10))
        conns[-1].sendall(b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        conns[-1].recv(10)
        n = len(re.findall(r"accept4\(\) failed", s.log()))
        check(1 <= n <= 3, "%d accept4() lines for about 80 failures" % n)
        for c in conns:
            c.close()
        r = get(s.port, "/a.txt")
        check(r.status == 200 and r.body == b"aaa", "not recovered")


def test_worker_connections_limit():
    """At worker_connections, a new client takes the slot of the longest
    idle keep-alive connection (nginx's "reusing connections"); when no
    connection waits for a request (all are busy sending), the worker
    stops accepting (the client waits in the backlog) and resumes when one
    closes."""
    with Server(threads=1, conf="worker_connections 2;") as s:
        s.put("a.txt", b"aaa")
        s.put("big.bin", b"x" * (64 << 20))
        c1, c2 = s.connect(), s.connect()
        check(c1.request("/a.txt").status == 200, "first")
        check(c2.request("/a.txt").status == 200, "second")
        c3 = s.connect()
        check(c3.request("/a.txt").status == 200, "third, beyond the limit")
        s.wait_log(r"2 worker_connections are not enough, reusing")
        # c1 had waited longest: closed; c2 still serves
        check(c1.sock.recv(100) == b"", "c1 was not the one closed")
        check(c2.request("/a.txt").status == 200, "c2 after the reuse")
        c1.close()
        # both slots busy (64 MiB responses nobody reads): no room
        c2.send(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        c3.send(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        for c in (c2, c3):
            c.sock.recv(1)      # each is being answered
        c4 = s.connect(timeout=1)
        c4.send(b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        s.wait_log(r"2 worker_connections are not enough, not accepting")
        try:
            data = c4.sock.recv(100)
            check(False, "served beyond worker_connections: %r" % data)
        except socket.timeout:
            pass    # not accepted yet, as it should be
        c2.close()
        c4.sock.settimeout(20)
        r = c4.read_response()
        check(r.status == 200 and r.body == b"aaa", "not served after a close")
        c3.close()
        c4.close()


def test_slowloris_does_not_lock_out_clients():
    """Connections that trickle a request head fill every slot; a normal
    client is still served at once, because the oldest of them is closed
    to make room (issue 32).  Before, it waited in the backlog until
    client_header_timeout."""
    with Server(threads=1, conf="worker_connections 64;") as s:
        s.put("a.txt", b"aaa")
        held = []
        for _ in range(200):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
            c.sendall(b"GET /a.txt HTTP/1.1\r\nHost: x\r\nX-a: ")
            held.append(c)
        for i in range(20):
            r = get(s.port, "/a.txt")
            check(r.status == 200 and r.body == b"aaa", "request %d" % i)
        s.wait_log(r"64 worker_connections are not enough, reusing")
        # one line a second for all the slots taken, with a count
        n = len(re.findall(r"worker_connections are not enough", s.log()))
        check(n <= 3, "%d lines about full slots" % n)
        for c in held:
            c.close()
