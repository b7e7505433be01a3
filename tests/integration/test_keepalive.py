"""Persistent connections: HTTP/1.1 and 1.0 keep-alive, Connection:
close, keepalive_requests, keepalive_timeout."""

import time

from nicd import Server, build, check


def test_http11_keepalive():
    with Server() as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        for _ in range(5):
            r = c.request("/a.txt")
            check(r.status == 200 and r.body == b"aaa", repr(r))
            check(r.header("Connection") is None, "1.1 needs no header")
        r = c.request("/a.txt", headers={"Connection": "close"})
        check(r.header("Connection") == "close", repr(r))
        check(c.wait_closed(), "not closed after Connection: close")


def test_http10():
    with Server() as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        r = c.request("/a.txt", version="1.0", headers={"Host": None})
        check(r.status == 200 and r.header("Connection") == "close", repr(r))
        check(c.wait_closed(), "HTTP/1.0 without keep-alive stays open")
        c = s.connect()
        for _ in range(3):
            r = c.request("/a.txt", version="1.0",
                          headers={"Connection": "keep-alive"})
            check(r.status == 200 and r.header("Connection") == "keep-alive",
                  repr(r))
        c.close()


def test_keepalive_requests():
    with Server(conf="keepalive_requests 3;") as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        check(c.request("/a.txt").header("Connection") is None, "1st")
        check(c.request("/a.txt").header("Connection") is None, "2nd")
        check(c.request("/a.txt").header("Connection") == "close", "3rd")
        check(c.wait_closed(), "open after keepalive_requests")


def test_keepalive_timeout():
    with Server(conf="keepalive_timeout 1s;") as s:
        s.put("a.txt", b"aaa")
        c = s.connect(timeout=10)
        check(c.request("/a.txt").status == 200, "first request")
        t0 = time.monotonic()
        check(c.wait_closed(), "idle connection not closed")
        dt = time.monotonic() - t0
        check(0.8 <= dt < 5, "closed after %.2fs, keepalive_timeout 1s" % dt)


def test_keepalive_off():
    with Server(conf="keepalive_timeout 0;") as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        c.send(build("/a.txt"))
        r = c.read_response()
        check(r.header("Connection") == "close", repr(r))
        check(c.wait_closed(), "keepalive_timeout 0 keeps connections")
