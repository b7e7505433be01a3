"""Range requests (RFC 9110, 14): single, suffix, open-ended, multipart,
416, If-Range."""

import os
import re
import socket
import subprocess
import time

from nicd import DEADLINE, Server, check, get, pattern

N = 10000


def parse_multipart(r):
    m = re.match(r"multipart/byteranges; boundary=(\S+)$",
                 r.header("Content-Type", ""))
    check(m, "Content-Type %r" % r.header("Content-Type"))
    b = m.group(1).encode()
    check(int(r.header("Content-Length")) == len(r.body), "length")
    parts = []
    body = r.body
    check(body.endswith(b"\r\n--" + b + b"--\r\n"), "closing boundary")
    for chunk in body.split(b"\r\n--" + b)[1:-1]:
        head, _, data = chunk.partition(b"\r\n\r\n")
        h = dict(line.split(": ", 1)
                 for line in head.decode().split("\r\n") if line)
        mm = re.match(r"bytes (\d+)-(\d+)/(\d+)$", h["Content-Range"])
        parts.append((int(mm.group(1)), int(mm.group(2)), int(mm.group(3)),
                      h["Content-Type"], data))
    return parts


def test_single_ranges():
    data = pattern(N)
    with Server() as s:
        s.put("f.txt", data)
        for spec, a, b in (("0-0", 0, 0), ("0-9", 0, 9), ("4095-4097", 4095,
                           4097), ("9990-", 9990, N - 1), ("-10", N - 10,
                           N - 1), ("-20000", 0, N - 1), ("5000-99999", 5000,
                           N - 1)):
            r = get(s.port, "/f.txt", headers={"Range": "bytes=" + spec})
            check(r.status == 206, "%s: %d" % (spec, r.status))
            check(r.header("Content-Range") == "bytes %d-%d/%d" % (a, b, N),
                  "%s: %r" % (spec, r.header("Content-Range")))
            check(r.body == data[a:b + 1], "%s: body" % spec)
            # GET is the only method with ranges (RFC 9110 14.2): HEAD
            # gets what a plain GET gets
            h = get(s.port, "/f.txt", method="HEAD",
                    headers={"Range": "bytes=" + spec})
            check(h.status == 200 and h.header("Content-Length") == str(N)
                  and h.header("Content-Range") is None,
                  "HEAD %s: %r" % (spec, h))


def test_multipart():
    data = pattern(N, seed=3)
    with Server() as s:
        s.put("f.txt", data)
        r = get(s.port, "/f.txt",
                headers={"Range": "bytes=0-9, 100-199,-5,20000-"})
        check(r.status == 206, "status %d" % r.status)
        parts = parse_multipart(r)
        check([(p[0], p[1]) for p in parts]
              == [(0, 9), (100, 199), (N - 5, N - 1)], repr(parts))
        for a, b, total, ctype, body in parts:
            check(total == N and ctype == "text/plain", "part header")
            check(body == data[a:b + 1], "part %d-%d body" % (a, b))
        h = get(s.port, "/f.txt", method="HEAD",
                headers={"Range": "bytes=0-9,100-199"})
        check(h.status == 200 and h.body == b""
              and h.header("Content-Length") == str(N), repr(h))


def test_unsatisfiable_and_ignored():
    data = pattern(N)
    with Server(conf="max_ranges 4;") as s:
        s.put("f.txt", data)
        s.put("empty", b"")
        for spec in ("bytes=10000-", "bytes=20000-30000", "bytes=-0"):
            r = get(s.port, "/f.txt", headers={"Range": spec})
            check(r.status == 416, "%s: %d" % (spec, r.status))
            check(r.header("Content-Range") == "bytes */%d" % N,
                  "%s: %r" % (spec, r.header("Content-Range")))
        # as nginx (checked against Debian's): an empty file goes out
        # whole; a specifier that does not parse is a 416; other units
        # and more satisfiable ranges than max_ranges, the whole file
        r = get(s.port, "/empty", headers={"Range": "bytes=0-0"})
        check(r.status == 200 and r.body == b"", repr(r))
        for spec in ("bytes=9-1", "bytes=a-", "bytes=1-2,", "bytes=10",
                     "bytes=10-11 12-"):
            r = get(s.port, "/f.txt", headers={"Range": spec})
            check(r.status == 416, "%s: %d" % (spec, r.status))
        for spec in ("items=0-1", "bytes 0-1", "bytes=0-0,1-1,2-2,3-3,4-4"):
            r = get(s.port, "/f.txt", headers={"Range": spec})
            check(r.status == 200 and r.body == data, "%s: %d" % (spec,
                                                                r.status))
        # unsatisfiable ones do not count against max_ranges
        r = get(s.port, "/f.txt",
                headers={"Range": "bytes=0-0,200000-,1-1,2-2,3-3"})
        check(r.status == 206 and len(parse_multipart(r)) == 4, repr(r))


def test_if_range():
    data = pattern(N)
    with Server() as s:
        path = s.put("f.txt", data)
        os.utime(path, (1700000000, 1700000000))  # long ago: a strong date
        r = get(s.port, "/f.txt")
        etag, lm = r.header("ETag"), r.header("Last-Modified")
        for validator, status in ((etag, 206), (lm, 206), ('"other"', 200),
                                  ("W/" + etag, 200),
                                  ("Sun, 06 Nov 1994 08:49:37 GMT", 200)):
            r = get(s.port, "/f.txt", headers={"Range": "bytes=0-9",
                                               "If-Range": validator})
            check(r.status == status, "If-Range %s: %d" % (validator,
                                                         r.status))
            check(r.body == (data[:10] if status == 206 else data), "body")


def test_if_range_weak_date():
    """A Last-Modified in the current second (here: in the future) is a
    weak validator, and If-Range with a date then means no range."""
    data = pattern(N)
    with Server() as s:
        path = s.put("f.txt", data)
        future = int(time.time()) + 3600
        os.utime(path, (future, future))
        lm = get(s.port, "/f.txt").header("Last-Modified")
        r = get(s.port, "/f.txt", headers={"Range": "bytes=0-9",
                                           "If-Range": lm})
        check(r.status == 200 and r.body == data, "weak date: %d" % r.status)


def test_range_amplification():
    """64 overlapping ranges of a 64 MiB file (Apache's CVE-2011-3192):
    nginx's rule, ranges adding up to more than the file mean the whole
    file once, with 200; over HTTP/1.1 and HTTP/2 alike."""
    size = 64 << 20
    spec = "bytes=" + ",".join(["0-"] * 64)
    with Server(conf="listen 127.0.0.3:0 http2;\n") as s:
        path = os.path.join(s.root, "big")
        with open(path, "wb") as f:
            f.truncate(size)
        # the head alone first: without the rule it says 206 and 4 GiB
        with socket.create_connection(("127.0.0.1", s.port),
                                      timeout=DEADLINE) as so:
            so.sendall(("GET /big HTTP/1.1\r\nHost: x\r\nRange: %s\r\n"
                        "Connection: close\r\n\r\n" % spec).encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = so.recv(4096)
                check(chunk, "closed before the head")
                head += chunk
        head = head.split(b"\r\n\r\n")[0].decode()
        check(head.startswith("HTTP/1.1 200 ")
              and "\r\nContent-Length: %d\r\n" % size in head + "\r\n",
              "head: %r" % head)
        r = get(s.port, "/big", headers={"Range": spec})
        check(r.status == 200 and len(r.body) == size
              and r.header("Content-Range") is None,
              "GET: %d, %d bytes" % (r.status, len(r.body)))
        # overlapping halves: also more than the file
        r = get(s.port, "/big", headers={
            "Range": "bytes=0-%d,%d-" % (size // 2, size // 2 - 1)})
        check(r.status == 200 and len(r.body) == size, "halves: %d" % r.status)
        # disjoint pieces that add up to the file stay a 206
        r = get(s.port, "/big", headers={"Range": "bytes=0-9,20-29"})
        check(r.status == 206 and len(parse_multipart(r)) == 2, "disjoint")
        h2c = int(s.wait_log(
            r"listening on http://127\.0\.0\.3:(\d+)/").group(1))
        p = subprocess.run(
            ["curl", "-s", "--http2-prior-knowledge", "-o", "/dev/null",
             "-w", "%{http_code} %{http_version} %{size_download}",
             "-H", "Range: " + spec, "http://127.0.0.3:%d/big" % h2c],
            capture_output=True, timeout=DEADLINE)
        check(p.stdout.decode() == "200 2 %d" % size,
              "h2c: %r %r" % (p.stdout, p.stderr))

