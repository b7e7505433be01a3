"""Pipelining: requests in one write answered in order, with half-close,
with bodies to skip, across buffer boundaries."""

import socket

from nicd import BACKENDS, Server, build, check, pattern


def test_twenty_in_one_write():
    with Server() as s:
        bodies = {}
        for i in range(20):
            bodies[i] = pattern(100 + i * 997, seed=i)
            s.put("p%d.bin" % i, bodies[i])
        reqs = []
        expect = []
        for i in range(20):
            if i == 7:
                reqs.append(build("/missing%d" % i))
                expect.append((404, None, False))
            elif i == 11:
                reqs.append(build("/p%d.bin" % i, method="HEAD"))
                expect.append((200, b"", True))
            elif i == 13:
                reqs.append(build("/p%d.bin" % i,
                                  headers={"Range": "bytes=5-9"}))
                expect.append((206, bodies[i][5:10], False))
            else:
                reqs.append(build("/p%d.bin" % i))
                expect.append((200, bodies[i], False))
        c = s.connect()
        c.send(b"".join(reqs))  # one write
        for i, (status, body, head) in enumerate(expect):
            r = c.read_response(head=head)
            check(r.status == status, "response %d: %d" % (i, r.status))
            if body is not None:
                check(r.body == body, "response %d: wrong body" % i)
        # and the connection still works
        check(c.request("/p0.bin").body == bodies[0], "after the batch")
        c.close()


def test_half_close_after_batch():
    with Server() as s:
        s.put("a.txt", b"A" * 5000)
        c = s.connect()
        c.send(build("/a.txt") * 10)
        c.sock.shutdown(socket.SHUT_WR)
        for i in range(10):
            r = c.read_response()
            check(r.status == 200 and len(r.body) == 5000, "response %d" % i)
        check(c.wait_closed(), "closed after answering")


def test_bodies_are_skipped():
    with Server() as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        c.send(b"POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"
               b"GET /nope\r\n" + build("/a.txt") +
               b"GET /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n"
               b"xyz" + build("/a.txt"))
        check(c.read_response().status == 405, "POST")
        check(c.read_response().body == b"aaa", "GET after a skipped body")
        check(c.read_response().body == b"aaa", "GET with a body")
        check(c.read_response().body == b"aaa", "GET after it")
        c.close()


def test_many_small_pipelined_over_buffer():
    """More pipelined requests than one read buffer holds (1k): requests
    split across reads are still answered in order."""
    with Server(conf="client_header_buffer_size 1k;") as s:
        for i in range(200):
            s.put("s%d" % i, b"%d" % i)
        c = s.connect()
        c.send(b"".join(build("/s%d" % i, headers={"X-Pad": "p" * 50})
                        for i in range(200)))
        for i in range(200):
            r = c.read_response()
            check(r.status == 200 and r.body == b"%d" % i, "response %d" % i)
        c.close()


def test_chunked_bodies_are_skipped():
    """A chunked request body is read past (extensions, trailers and all)
    and the connection stays in step and open."""
    with Server() as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        c.send(b"POST /a.txt HTTP/1.1\r\nHost: x\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n"
               b"5;ext=1\r\nGET /\r\n"
               b"1A\r\n" + b"G" * 26 + b"\r\n"
               b"0\r\nTrailer-Field: v\r\n\r\n" + build("/a.txt"))
        check(c.read_response().status == 405, "POST")
        r = c.read_response()
        check(r.status == 200 and r.body == b"aaa", "GET after: %r" % r)
        # a chunked GET body arriving in pieces
        c.send(b"GET /a.txt HTTP/1.1\r\nHost: x\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n3\r\nab")
        check(c.read_response().body == b"aaa", "GET with a chunked body")
        c.send(b"c\r\n0\r\n\r\n" + build("/a.txt"))
        check(c.read_response().body == b"aaa", "after the pieces")
        # invalid framing: the connection is closed
        c.send(b"POST / HTTP/1.1\r\nHost: x\r\n"
               b"Transfer-Encoding: chunked\r\n\r\nzz\r\n")
        check(c.read_response().status == 405, "answered first")
        check(c.wait_closed(), "bad chunk size must close")
        s.wait_log(r"client sent invalid chunked body")


def test_expect_continue_body_closes():
    """A body behind Expect: 100-continue may never come once we have
    answered: the response says Connection: close, and the connection
    closes instead of waiting to skip it."""
    with Server() as s:
        s.put("a.txt", b"aaa")
        c = s.connect()
        c.send(b"POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
               b"Expect: 100-continue\r\n\r\n")
        r = c.read_response()
        check(r.status == 405 and r.header("Connection") == "close", repr(r))
        check(c.wait_closed(), "kept waiting for a body")


def test_gathered_and_zero_copy_mixed():
    """Clear-text responses gather headers and small files into one send
    and leave larger ranges to the backend's zero copy: sizes on both
    sides of each limit (4 KiB alone, 16 KiB with company), ranges, HEAD
    and a 404 in one pipeline of 120, read by a client with a small
    receive buffer (so the gathering buffer meets a full socket), come
    back byte-exact under every backend.  sndbuf=16k on the listener
    and a small client receive buffer make the socket fill while a batch
    is gathered (and while zero copy runs)."""
    sizes = [1, 4095, 4096, 4097, 16383, 16384, 16385, 70000, 150000, 10]
    for backend in BACKENDS:
        conf = "nic_cache_size 256k;" if backend == "nic" else ""
        with Server(backend=backend, conf=conf, listen="sndbuf=16k") as s:
            bodies = []
            for i, n in enumerate(sizes):
                bodies.append(pattern(n, seed=i + 3))
                s.put("g%d" % i, bodies[-1])
            reqs, expect = [], []
            # every size in turn, then a run of 16 KiB files that fills
            # the gathering buffer many times over
            order = [(k * 7) % len(sizes) for k in range(60)] + [5, 4] * 30
            for k, i in enumerate(order):
                if k % 13 == 5:
                    reqs.append(build("/g%d" % i, method="HEAD"))
                    expect.append((200, b"", True))
                elif k % 11 == 3:
                    reqs.append(build("/nothing"))
                    expect.append((404, None, False))
                elif k % 5 == 2 and sizes[i] > 100:
                    a, b = sizes[i] // 3, sizes[i] - 2
                    reqs.append(build("/g%d" % i,
                                      headers={"Range": "bytes=%d-%d"
                                               % (a, b)}))
                    expect.append((206, bodies[i][a:b + 1], False))
                else:
                    reqs.append(build("/g%d" % i))
                    expect.append((200, bodies[i], False))
            c = s.connect()
            c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
            c.send(b"".join(reqs))
            for k, (status, body, head) in enumerate(expect):
                r = c.read_response(head=head)
                check(r.status == status,
                      "%s response %d: %d" % (backend, k, r.status))
                if body is not None:
                    check(r.body == body,
                          "%s response %d: wrong body" % (backend, k))
            c.close()


def test_large_bodies_with_a_small_notsent_lowat():
    """notsent_lowat=4k: the socket takes only a few KiB beyond what it
    has sent, so a large body leaves over hundreds of writable events;
    two pipelined 3 MB responses and a range still arrive byte-exact
    under every backend."""
    body = pattern(3 * 1024 * 1024 + 17, seed=9)
    for backend in BACKENDS:
        conf = "nic_cache_size 1m;" if backend == "nic" else ""
        with Server(backend=backend, conf=conf,
                    listen="notsent_lowat=4k") as s:
            s.put("big.bin", body)
            c = s.connect()
            c.send(build("/big.bin") + build("/big.bin") +
                   build("/big.bin", headers={"Range": "bytes=1000-2999999"}))
            for k in range(2):
                r = c.read_response()
                check(r.status == 200 and r.body == body,
                      "%s response %d" % (backend, k))
            r = c.read_response()
            check(r.status == 206 and r.body == body[1000:3000000],
                  "%s range" % backend)
            c.close()
