"""Malformed requests: each gets its error status (or a close), a log
line, and the server keeps serving."""

from nicd import Server, check, get, raw

H = b"Host: x\r\n"

CORPUS = [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET\r\n\r\n", 400),
    (b"GET /\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n\r\n", 400),                    # no Host
    (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n" + H + b" folded\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n" + H + b"X: \x00\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n" + H + b"Bad Name: v\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n" + H + b"NoColon\r\n\r\n", 400),
    (b"GET / HTTP/3.0\r\n" + H + b"\r\n", 505),
    (b"GET / HTTP/1.1x\r\n" + H + b"\r\n", 400),
    (b"GET / FOO/1.1\r\n" + H + b"\r\n", 400),
    (b"GET  / HTTP/1.1\r\n" + H + b"\r\n", 400),
    (b"GET /a b HTTP/1.1\r\n" + H + b"\r\n", 400),
    (b"GET /\x01 HTTP/1.1\r\n" + H + b"\r\n", 400),
    (b"GET /%zz HTTP/1.1\r\n" + H + b"\r\n", 400),
    (b"GET /%00 HTTP/1.1\r\n" + H + b"\r\n", 400),
    (b"GET /#x HTTP/1.1\r\n" + H + b"\r\n", 200),  # fragment left out (nginx)
    (b"GET / HTTP/1.1\r\n" + H + b"Content-Length: x\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n" + H + b"Content-Length: 1\r\n"
     b"Content-Length: 2\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\n" + H + b"Content-Length: 5\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\n" + H + b"Transfer-Encoding: gzip\r\n\r\n", 501),
    # nginx's strictness (issue 32): identical Content-Length lines, a list
    (b"POST / HTTP/1.1\r\n" + H + b"Content-Length: 1\r\n"
     b"Content-Length: 1\r\n\r\nx", 400),
    (b"POST / HTTP/1.1\r\n" + H + b"Content-Length: 1, 1\r\n\r\nx", 400),
    (b"POST / HTTP/1.1\r\n" + H + b"Transfer-Encoding: identity, chunked"
     b"\r\n\r\n0\r\n\r\n", 501),
    (b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\n" + H + b"Content-Length: 99999999999\r\n\r\n",
     413),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n" + H + b"\r\n", 414),
    (b"GET / HTTP/1.1\r\n" + H + b"X: " + b"v" * 9000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\n" + H + b"".join(b"X%d: %s\r\n" % (i, b"v" * 500)
                                         for i in range(70)) + b"\r\n", 431),
    (b"GET / HTTP/1.1\r\n" + H + b"X: y\r\n" * 101 + b"\r\n", 431),
    (b"GET / HTTP/1.1\r\nHost: x\rY: z\r\n\r\n", 400),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400),  # TLS hello
    (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
]


def test_malformed_corpus():
    with Server() as s:
        s.put("index.html", b"alive")
        for i, (req, want) in enumerate(CORPUS):
            out = raw(s.port, req)
            status = int(out[9:12]) if out.startswith(b"HTTP/1.1 ") else 0
            check(status == want, "case %d %r: got %r, want %d"
                  % (i, req[:50], out[:40], want))
            check(s.alive(), "nicd died on case %d" % i)
            r = get(s.port, "/")
            check(r.status == 200 and r.body == b"alive",
                  "not serving after case %d" % i)
        s.wait_log(r"client sent invalid request, answering 400")
        s.wait_log(r"client sent invalid request, answering 414")


def test_error_then_pipelined_rest_dropped():
    """After a 400 the connection closes: later pipelined requests are not
    answered (we cannot trust the framing), but the 400 arrives whole."""
    with Server() as s:
        s.put("a", b"a")
        out = raw(s.port, b"GET / HTTP/1.1\r\n\r\n" +
                  b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
        check(out.startswith(b"HTTP/1.1 400 "), "got %r" % out[:40])
        check(out.count(b"HTTP/1.1 ") == 1, "answered after the 400")
        check(b"Connection: close" in out, "no Connection: close")
