"""Static files: byte-exact bodies under each backend, headers, HEAD,
directories, index, autoindex, 404/403/405."""

import os
import re
import time

from nicd import Server, Skip, check, get, pattern, sha256, uring_why

SIZES = [0, 1, 4095, 4096, 4097, 1 << 20, 64 << 20]


def exact_bodies(backend):
    with Server(backend=backend) as s:
        files = {}
        for i, n in enumerate(SIZES):
            data = pattern(n, seed=i)
            s.put("f%d.bin" % n, data)
            files[n] = sha256(data)
        c = s.connect()
        for n in SIZES:
            r = c.request("/f%d.bin" % n)
            check(r.status == 200, "%d B: status %d" % (n, r.status))
            check(r.header("Content-Length") == str(n),
                  "%d B: Content-Length %s" % (n, r.header("Content-Length")))
            check(len(r.body) == n and sha256(r.body) == files[n],
                  "%d B: body differs (%d bytes)" % (n, len(r.body)))
        c.close()


def test_exact_bodies_sendfile():
    exact_bodies("sendfile")


def test_exact_bodies_copy():
    exact_bodies("copy")


def test_exact_bodies_uring():
    if uring_why():
        raise Skip(uring_why())
    exact_bodies("uring")


def test_headers_and_head():
    with Server() as s:
        path = s.put("page.html", b"<p>hi</p>")
        st = os.stat(path)
        r = get(s.port, "/page.html")
        check(r.status == 200 and r.body == b"<p>hi</p>", repr(r))
        check(r.header("Content-Type") == "text/html", repr(r))
        check(r.header("Server", "").startswith("nicd"), repr(r))
        check(r.header("Accept-Ranges") == "bytes", repr(r))
        check(re.match(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$",
                       r.header("Date", "")), "Date %r" % r.header("Date"))
        lm = time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                           time.gmtime(st.st_mtime))
        check(r.header("Last-Modified") == lm,
              "Last-Modified %r != %r" % (r.header("Last-Modified"), lm))
        # nginx's ETag: "hex(mtime)-hex(size)"
        check(r.header("ETag") == '"%x-%x"' % (int(st.st_mtime), 9),
              "ETag %r" % r.header("ETag"))
        h = get(s.port, "/page.html", method="HEAD")
        check(h.status == 200 and h.body == b"", repr(h))
        for name in ("Content-Type", "Content-Length", "ETag",
                     "Last-Modified", "Accept-Ranges"):
            check(h.header(name) == r.header(name),
                  "HEAD %s %r != GET %r" % (name, h.header(name),
                                            r.header(name)))
        s.put("x.unknownext", b"x")
        check(get(s.port, "/x.unknownext").header("Content-Type")
              == "text/plain", "default_type")


def test_directories():
    with Server(conf="autoindex off;") as s:
        s.put("d/index.html", b"index of d")
        s.put("e/file.txt", b"x")
        r = get(s.port, "/d/")
        check(r.status == 200 and r.body == b"index of d", repr(r))
        # nginx's absolute_redirect: scheme, Host and the port it came to
        r = get(s.port, "/d?x=1")
        check(r.status == 301 and r.header("Location")
              == "http://localhost:%d/d/?x=1" % s.port, repr(r))
        r = get(s.port, "/e/")
        check(r.status == 403, "no index, no autoindex: %d" % r.status)
        check(b"file.txt" not in r.body, "listing leaked")
        r = get(s.port, "/e/file.txt/")
        check(r.status == 404, "file with a slash: %d" % r.status)
        s.wait_log(r"directory index of .*/e/\" is forbidden")


def test_relative_redirect():
    """absolute_redirect off: the Location of a directory without its
    slash is the path alone, as nginx writes it then."""
    with Server(conf="absolute_redirect off;") as s:
        s.put("d/index.html", b"index of d")
        r = get(s.port, "/d?x=1")
        check(r.status == 301 and r.header("Location") == "/d/?x=1", repr(r))


def test_autoindex():
    with Server(conf="autoindex on;") as s:
        s.put("e/a <b>.txt", b"x")
        s.put("e/sub/f", b"y")
        s.put("e/.hidden", b"z")
        r = get(s.port, "/e/")
        check(r.status == 200 and r.header("Content-Type") == "text/html",
              repr(r))
        check(b'<a href="a%20%3Cb%3E.txt">a &lt;b&gt;.txt</a>' in r.body,
              "escaped entry missing:\n%r" % r.body)
        check(b'<a href="sub/">sub/</a>' in r.body, "directory entry")
        check(b".hidden" not in r.body, "hidden file listed")


def test_errors():
    with Server() as s:
        s.put("a.txt", b"a")
        r = get(s.port, "/missing")
        check(r.status == 404 and b"404 Not Found" in r.body, repr(r))
        for m in ("POST", "PUT", "DELETE", "OPTIONS", "BREW"):
            r = get(s.port, "/a.txt", method=m)
            check(r.status == 405 and r.header("Allow") == "GET, HEAD",
                  "%s: %r" % (m, r))
        os.chmod(s.put("secret.txt", b"s"), 0)
        if os.geteuid() != 0:  # root reads mode-000 files anyway
            check(get(s.port, "/secret.txt").status == 403, "mode 000")
        fifo = os.path.join(s.root, "fifo")
        os.mkfifo(fifo)
        r = get(s.port, "/fifo")
        check(r.status == 403, "a FIFO must not block or be served: %d"
              % r.status)
        check(get(s.port, "/a.txt").status == 200, "still serving")


def test_random_index():
    """random_index on: a "/" URI gets one of the directory's files at
    random (not its dot files or directories); a directory with none goes
    on to the next content handler (autoindex here)."""
    conf = ("location /r/ { random_index on; }\n"
            "location /e/ { random_index on; }\n")
    conf = conf.replace("/e/ { random_index on; }",
                        "/e/ { random_index on; autoindex on; }")
    with Server(conf=conf) as s:
        for name in ("a", "b", "c"):
            s.put("r/" + name, name.encode())
        s.put("r/.hidden", b"hidden")
        os.makedirs(os.path.join(s.root, "r", "sub"))
        s.put("e/sub/x", b"x")

        seen = set()
        for _ in range(60):
            r = get(s.port, "/r/?q=1")
            check(r.status == 200 and r.body in (b"a", b"b", b"c"), repr(r))
            seen.add(r.body)
        check(seen == {b"a", b"b", b"c"}, "every file drawn: %r" % seen)
        r = get(s.port, "/e/")
        check(r.status == 200 and b'href="sub/"' in r.body,
              "no file: autoindex lists the directory: %r" % r)
        check(get(s.port, "/nothere/").status == 404, "no directory")


def test_log_not_found():
    """A missing file is nginx's error line (open() ... failed), unless
    log_not_found is off where it was asked for."""
    with Server(conf="location /quiet/ { log_not_found off; }\n") as s:
        check(get(s.port, "/quiet/gone").status == 404, "quiet 404")
        check(get(s.port, "/loud/gone").status == 404, "loud 404")
        s.wait_log(r'\[error\] .*open\(\) ".*/loud/gone" failed')
        # the quiet one was answered, and would have been written, first
        check("/quiet/gone" not in s.log(), "log_not_found off: no line")
