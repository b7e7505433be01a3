"""Persistent connections: HTTP/1.1 and 1.0 keep-alive, Connection:
close, keepalive_requests, keepalive_timeout."""

import time

from nicd import Server, build, check, raw


def test_http11_keepalive():
    with Server() as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        for _ in range(5):
            r = c.request("/a.txt")
            check(r.status == 200 and r.body == b"aaa", repr(r))
            # nginx says it on 1.1 too
            check(r.header("Connection") == "keep-alive", repr(r))
            check(r.header("Keep-Alive") is None, repr(r))
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
        check(c.request("/a.txt").header("Connection") == "keep-alive", "1st")
        check(c.request("/a.txt").header("Connection") == "keep-alive", "2nd")
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


def test_keepalive_time():
    """keepalive_time (nginx's): a connection older than it answers its
    next request with Connection: close and closes; younger, it stays."""
    with Server(conf="keepalive_time 400ms;") as s:
        s.put("a.txt", b"aaa")
        c = s.connect(timeout=10)
        t0 = time.monotonic()
        check(c.request("/a.txt").header("Connection") == "keep-alive",
              "young")
        # the feature is a duration: let the connection grow older than it
        time.sleep(max(0.0, 0.45 - (time.monotonic() - t0)))
        r = c.request("/a.txt")
        check(r.status == 200 and r.header("Connection") == "close",
              "old: %r" % r)
        check(c.wait_closed(), "open after keepalive_time")


def test_settings_of_the_location_that_answers():
    """keepalive_timeout (with its Keep-Alive header), keepalive_requests
    and keepalive_disable at server and location levels, as nginx: the
    location that answers decides, and its timeout is the idle time."""
    conf = ("keepalive_requests 2; keepalive_timeout 30s 9;\n"
            "location /r/ { keepalive_requests 4; keepalive_timeout 30s; }\n"
            "location /zero/ { keepalive_timeout 0; }\n"
            "location /short/ { keepalive_timeout 300ms; }\n"
            "location /safari/ { keepalive_disable safari; }\n"
            "location /none/ { keepalive_disable none; }\n")
    with Server(conf=conf) as s:
        for d in ("", "r/", "zero/", "short/", "safari/", "none/"):
            s.put(d + "a.txt", b"aaa")
        c = s.connect()
        r = c.request("/a.txt")
        check(r.header("Connection") == "keep-alive"
              and r.header("Keep-Alive") == "timeout=9", repr(r))
        r = c.request("/a.txt")
        check(r.header("Connection") == "close", "server's limit: %r" % r)
        check(c.wait_closed(), "open after the server's 2 requests")
        c = s.connect()
        for i in range(3):
            r = c.request("/r/a.txt")
            check(r.header("Connection") == "keep-alive"
                  and r.header("Keep-Alive") is None, "%d: %r" % (i, r))
        check(c.request("/r/a.txt").header("Connection") == "close", "4th")
        c = s.connect()
        check(c.request("/zero/a.txt").header("Connection") == "close",
              "keepalive_timeout 0 there")
        c = s.connect(timeout=10)
        check(c.request("/short/a.txt").status == 200, "short")
        t0 = time.monotonic()
        check(c.wait_closed(), "idle after /short/ not closed")
        dt = time.monotonic() - t0
        check(0.2 <= dt < 5, "closed after %.2fs, its location's 300ms" % dt)
        ua = {"User-Agent": "Mozilla/5.0 (Mac OS X 10_7) Safari/7534.48.3"}
        msie = {"User-Agent": "Mozilla/4.0 (compatible; MSIE 5.0)"}
        for path, headers, method, want in (
                ("/safari/a.txt", ua, "GET", "close"),
                ("/a.txt", ua, "GET", "keep-alive"),
                ("/a.txt", msie, "POST", "close"),  # msie6 by default
                ("/a.txt", msie, "GET", "keep-alive"),
                ("/none/a.txt", msie, "POST", "keep-alive"),
                ("/a.txt", {"User-Agent": "MSIE 7.0; Windows"}, "POST",
                 "keep-alive")):
            c = s.connect()
            r = c.request(path, method=method, headers=headers)
            check(r.header("Connection") == want,
                  "%s %s %r: %r" % (method, path, headers, r))
            c.close()


def test_http2_goaway_after_keepalive_requests():
    """keepalive_requests over HTTP/2: after that many streams a GOAWAY
    naming the last one, the streams answered, then the end."""
    from test_http2 import frame, frames
    with Server(conf="listen 127.0.0.3:0 http2;\nkeepalive_requests 2;\n") \
            as s:
        s.put("a.txt", b"aaa")
        port = int(s.wait_log(
            r"listening on http://127\.0\.0\.3:(\d+)/").group(1))
        block = b"\x82\x86\x04\x06/a.txt\x01\x01x"
        got = raw(port, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0)
                  + frame(1, 5, 1, block) + frame(1, 5, 3, block),
                  host="127.0.0.3")
        fs = frames(got)
        goaway = [p for t, _, _, p in fs if t == 7]
        check(goaway and int.from_bytes(goaway[0][:4], "big") == 3
              and int.from_bytes(goaway[0][4:8], "big") == 0,
              "GOAWAY (last 3, NO_ERROR): %r" % fs)
        ends = [st for t, f, st, _ in fs if t == 0 and f & 1]
        check(sorted(ends) == [1, 3], "both answered: %r" % fs)


def test_lingering_time_bounds_a_drain():
    """After an error that closes the connection (a bad request) the
    server half-closes and reads what the client still sends, for at most
    lingering_time; with lingering_close off it closes at once.  The
    client keeps sending (the stimulus) until a send fails: the server's
    reset."""
    import socket
    for conf, lo, hi in (("lingering_time 500ms;", 0.4, 3.0),
                         ("lingering_close off;", 0.0, 0.4)):
        with Server(conf=conf) as s:
            c = s.connect(timeout=10)
            c.send(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                   b"Transfer-Encoding: chunked\r\n\r\n")
            r = c.read_response()
            check(r.status == 400, repr(r))
            t0 = time.monotonic()
            dt = None
            while time.monotonic() - t0 < 6:
                try:
                    c.sock.sendall(b"x" * 100)
                except (BrokenPipeError, ConnectionResetError):
                    dt = time.monotonic() - t0
                    break
                time.sleep(0.05)  # the client's pace: what is drained
            check(dt is not None and lo <= dt < hi,
                  "closed after %s s with %s" % (dt, conf))
