"""Virtual hosts and one server per port: every server {} is a site of its
own (the issue's report: two servers on two ports served the second's
root on both); a nicd refuses an address another process listens on,
whether that process is another nicd or not, while its own workers share
it and a reload keeps it."""

import os
import socket
import subprocess
import tempfile

from nicd import DEADLINE, NICD, Server, check, free_port, get, raw


def two_roots(d):
    """d/a and d/b, each with a file "who" that names it."""
    for name in ("a", "b"):
        os.makedirs(os.path.join(d, name))
        with open(os.path.join(d, name, "who"), "w") as f:
            f.write(name)


def test_two_servers_two_roots():
    a, b = free_port(), free_port()
    with tempfile.TemporaryDirectory() as d:
        two_roots(d)
        conf = ("http {\n  server { listen 127.0.0.1:%d; root %s/a; }\n"
                "  server { listen 127.0.0.1:%d; root %s/b; }\n}\n"
                % (a, d, b, d))
        with Server(conf=conf, listen="") as s:
            check(get(a, "/who").body == b"a", "port A serves a")
            check(get(b, "/who").body == b"b", "port B serves b")
            # the generated top-level listen is the implicit server's
            check(get(s.port, "/who").status == 404, "the top level's root")


def test_host_chooses_the_server():
    with tempfile.TemporaryDirectory() as d:
        two_roots(d)
        conf = ("server { server_name a.test; root %s/a; }\n"
                "server { server_name *.b.test; root %s/b; }\n" % (d, d))
        with Server(conf=conf) as s:
            s.put("who", b"top")
            for host, want in (("a.test", b"a"), ("A.TEST:80", b"a"),
                               ("x.b.test", b"b"), ("other", b"top"),
                               (None, b"top")):
                r = get(s.port, "/who", headers={"Host": host},
                        version="1.0" if host is None else "1.1")
                check(r.body == want, "%s: %r" % (host, r.body))


def test_head_limits_are_the_servers():
    """large_client_header_buffers and max_headers of the server Host
    chooses: the head is read to the largest, then held to its own."""
    conf = ("server { server_name small; large_client_header_buffers 2 256;"
            " max_headers 3; return 204; }\n"
            "server { server_name big; return 204; }\n")
    with Server(conf=conf) as s:
        def ask(host, path="/", extra=()):
            head = ["GET %s HTTP/1.1" % path, "Host: " + host,
                    "Connection: close"] + list(extra)
            data = raw(s.port, ("\r\n".join(head) + "\r\n\r\n").encode())
            return int(data[9:12])

        long_line = ["X-Long: " + "v" * 300]
        for host, want in (("small", 431), ("big", 204)):
            check(ask(host, extra=long_line) == want, "%s: long header" % host)
        check(ask("small", "/" + "a" * 300) == 414, "small: long URI")
        check(ask("big", "/" + "a" * 300) == 204, "big: long URI")
        # Host and Connection are two of the lines
        check(ask("small", extra=["X-A: 1"]) == 204, "small: 3 lines")
        check(ask("small", extra=["X-A: 1", "X-B: 2"]) == 400,
              "small: 4 lines, max_headers 3")
        check(ask("big", extra=["X-A: 1", "X-B: 2"]) == 204, "big: 4 lines")
        check(s.alive(), "serving on")


def test_return_444_closes_without_an_answer():
    """The common catch-all: "return 444" in the server no Host matches
    closes the connection without a byte (nginx's), named hosts are
    served on; over HTTP/2 the stream is reset and the connection goes
    on (an error_page = to a 444 location too)."""
    from test_http2 import frame, frames
    with tempfile.TemporaryDirectory() as d:
        two_roots(d)
        conf = ("listen 127.0.0.3:0 http2;\nreturn 444;\n"
                "server { server_name a.test; root %s/a;\n"
                "  location /gone { return 444 \"ignored text\"; } }\n" % d)
        with Server(conf=conf) as s:
            check(raw(s.port, b"GET /who HTTP/1.1\r\nHost: other\r\n\r\n")
                  == b"", "an answer to an unknown host")
            check(raw(s.port, b"GET /gone HTTP/1.1\r\nHost: a.test\r\n\r\n")
                  == b"", "an answer with return 444 TEXT")
            r = get(s.port, "/who", headers={"Host": "a.test"})
            check(r.status == 200 and r.body == b"a", "a.test: %r" % r)
            h2c = int(s.wait_log(
                r"listening on http://127\.0\.0\.3:(\d+)/").group(1))
            sock = socket.create_connection(("127.0.0.3", h2c),
                                            timeout=DEADLINE)
            # stream 1 to a.test's 444 location, stream 3 to its file
            gone = b"\x82\x86\x04\x05/gone\x01\x06a.test"
            who = b"\x82\x86\x04\x04/who\x01\x06a.test"
            sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0)
                         + frame(1, 5, 1, gone) + frame(1, 5, 3, who))
            got = b""
            while not any(t == 0 and f & 1 and st == 3
                          for t, f, st, _ in frames(got)):
                chunk = sock.recv(65536)
                check(chunk, "closed: %r" % frames(got))
                got += chunk
            sock.close()
            fs = frames(got)
            check(any(t == 3 and st == 1 for t, _, st, _ in fs),
                  "no RST_STREAM for the 444: %r" % fs)
            check(not any(t == 1 and st == 1 for t, _, st, _ in fs),
                  "headers for the 444: %r" % fs)


def test_a_second_nicd_is_refused():
    port = free_port()
    conf = "listen 127.0.0.1:%d;\n" % port
    with Server(conf=conf) as s:
        s.put("f", b"first")
        d = tempfile.mkdtemp()
        path = os.path.join(d, "second.conf")
        with open(path, "w") as f:
            f.write("listen 127.0.0.1:%d;\nroot %s;\n" % (port, d))
        p = subprocess.run([NICD, "-c", path], capture_output=True,
                           timeout=DEADLINE)
        err = p.stderr.decode()
        check(p.returncode != 0 and "bind() to 127.0.0.1:%d failed" % port
              in err and "another process listens there" in err, err)
        for _ in range(8):
            check(get(port, "/f").body == b"first", "the first still serves")
        # a reload keeps its own sockets: no refusal of itself
        s.reload()
        check(get(port, "/f").body == b"first", "after the reload")


def test_another_program_on_the_port_is_refused():
    other = socket.socket()
    other.bind(("127.0.0.1", 0))
    other.listen(1)
    port = other.getsockname()[1]
    try:
        d = tempfile.mkdtemp()
        path = os.path.join(d, "n.conf")
        with open(path, "w") as f:
            f.write("listen 127.0.0.1:%d;\nroot %s;\n" % (port, d))
        p = subprocess.run([NICD, "-t", "-c", path], capture_output=True,
                           timeout=DEADLINE)
        check(p.returncode == 0, "nicd -t binds nothing")
        p = subprocess.run([NICD, "-c", path], capture_output=True,
                           timeout=DEADLINE)
        check(p.returncode != 0 and b"another process listens there"
              in p.stderr, p.stderr.decode())
    finally:
        other.close()


def test_error_log_of_each_server_and_location():
    """error_log in a server or location (nginx's): a request answered
    there logs to that level's files, each at its own level (error by
    default), not to the error log nor to another server's; a level
    without one takes its enclosing level's; SIGUSR1 reopens them."""
    import signal
    from nicd import wait_until

    def text(path):
        return open(path).read() if os.path.exists(path) else ""

    a, b = free_port(), free_port()
    with tempfile.TemporaryDirectory() as d:
        two_roots(d)
        os.makedirs(os.path.join(d, "a", "dir", "in"))
        conf = ("http {\n"
                "  server { listen 127.0.0.1:%(a)d; root %(d)s/a;\n"
                "    error_log %(d)s/a.log;\n"
                "    location /dir/in/ { error_log %(d)s/a-in.log info;\n"
                "                        error_log %(d)s/a-in2.log crit; }\n"
                "  }\n"
                "  server { listen 127.0.0.1:%(b)d; root %(d)s/b; }\n"
                "}\n" % {"a": a, "b": b, "d": d})
        with Server(conf=conf, listen="") as s:
            check(get(a, "/dir/").status == 403, "a listing refused")
            wait_until(lambda: "directory index of" in text(d + "/a.log"),
                       "the refusal in server a's log")
            check(get(a, "/dir/in/").status == 403, "the inner listing refused")
            wait_until(lambda: "directory index of" in text(d + "/a-in.log"),
                       "the refusal in the location's log")
            check(get(a, "/dir/in/nothing").status == 404, "404")
            wait_until(lambda: "No such file" in text(d + "/a-in.log"),
                       "the error line in the location's info log")
            check(get(b, "/dir/").status == 404, "b has no /dir/")
            check(text(d + "/a.log").count("directory index of") == 1
                  and "No such file" not in text(d + "/a.log")
                  and text(d + "/a-in2.log") == "",
                  "each line where its level and location say: %r %r"
                  % (text(d + "/a.log"), text(d + "/a-in2.log")))
            check("directory index of" not in text(s.error_log),
                  "a request's line in the error log: %r" % text(s.error_log))
            os.rename(d + "/a.log", d + "/a.log.1")
            s.proc.send_signal(signal.SIGUSR1)
            s.wait_log(r"logs reopened")
            wait_until(lambda: os.path.exists(d + "/a.log"), "a.log again")
            check(get(a, "/dir/").status == 403, "refused again")
            wait_until(lambda: "directory index of" in text(d + "/a.log"),
                       "the line in the reopened file")


def test_server_tokens_per_location():
    """server_tokens at every level, as nginx's server_tokens.t asks it
    (whose "nginx" names nicd says as its own): the Server field and the
    error page name the version unless the location says off; build is
    on (nicd has no build name)."""
    import re
    conf = """
        location /200 { return 200; }
        location /404 { return 404; }
        location /off { server_tokens off;
            location /off/200 { return 200; }
            location /off/404 { return 404; } }
        location /on { server_tokens on;
            location /on/404 { return 404; } }
        location /b { server_tokens build;
            location /b/404 { return 404; } }
    """
    versioned = re.compile(r"^nicd/\d+\.\d+\.\d+$")
    with Server(conf=conf + "server_tokens on;\n") as s:
        for path, on in (("/200", True), ("/404", True), ("/off/200", False),
                         ("/off/404", False), ("/on/404", True),
                         ("/b/404", True)):
            r = get(s.port, path)
            server = r.header("Server")
            check(bool(versioned.match(server)) if on else server == "nicd",
                  "%s: Server %r" % (path, server))
            if r.status == 404:
                page = re.search(rb"<hr><center>([^<]*)</center>", r.body)
                check(page and page.group(1) == server.encode(),
                      "%s: the page names %r" % (path, page))
    with Server(conf="server_tokens off;\n") as s:
        check(get(s.port, "/nothing").header("Server") == "nicd", "http off")
