"""The reverse proxy (issue 42): nicd and Debian's nginx on the same
proxy configuration, in front of the same upstream (a Python server this
test runs), asked the same requests; what the upstream received and what
the client received are compared, and an upgraded (101) connection's
bytes both ways.  Then what only a run of nicd shows:
kept upstream connections, the next server after a dead one, a client
that goes before its answer (499), bad upstream heads (502, a log line
naming the upstream, the server serving on), a response cut short, a
request that waits on its upstream longer than keepalive_timeout, and a
proxied location over HTTP/2.

Intended differences (docs/config.md lists them): the Server field and
the built-in error pages (as test_nginx_diff.py's); a client's
Proxy-Connection field is not passed on (nginx 1.23.2 and later clear it
too; Debian's 1.22.1 passes it); an upstream's answer without a status
line (HTTP/0.9) is a 502 where nginx relays its bytes as they are, with
no status line, to an HTTP/1.1 client (asked of nicd alone, below).
"""

import os
import re
import socket
import subprocess
import tempfile
import threading
import time

from nicd import (DEADLINE, Conn, Server, Skip, check, get, raw,
                  recv_until, wait_until)
from test_nginx_diff import NGINX, Peer, fetch, view

BIG = bytes(range(256)) * 800  # 200 KiB


class Upstream:
    """A threaded HTTP/1.1 server on a free port: what each request asks
    for, by its path; it counts the connections it accepted."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.big = BIG  # what /whole answers
        self.open = 0  # connections not yet closed by the proxy's side
        self.lock = threading.Lock()
        self.stopping = False
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while not self.stopping:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.accepted += 1
                self.open += 1
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def close(self):
        self.stopping = True
        self.sock.close()

    def serve(self, c):
        buf = b""
        c.settimeout(DEADLINE)
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                head, _, buf = buf.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                fields = [ln.split(":", 1) for ln in lines[1:]]
                n = int(dict((k.strip().lower(), v.strip())
                             for k, v in fields).get("content-length", "0"))
                while len(buf) < n:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                body, buf = buf[:n], buf[n:]
                if not self.answer(c, lines, fields, body):
                    return
        except OSError:
            return
        finally:
            c.close()
            with self.lock:
                self.open -= 1

    def answer(self, c, lines, fields, body):
        """one answer; False when the connection ends with it"""
        path = lines[0].split()[1]
        keep = [("Content-Type", "text/plain")]

        def send(status, extra, data, length=True):
            h = "HTTP/1.1 %s\r\n" % status
            for k, v in keep + extra:
                h += "%s: %s\r\n" % (k, v)
            if length:
                h += "Content-Length: %d\r\n" % len(data)
            c.sendall(h.encode() + b"\r\n" + data)

        if path.startswith("/ws"):
            # an upgrade: 101, then every byte back in capitals
            c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: test"
                      b"\r\nConnection: Upgrade\r\n\r\nready\n")
            while True:
                d = c.recv(65536)
                if not d:
                    return False
                c.sendall(d.upper())
        if path.startswith("/echo") or path.startswith("/api/") \
                or path.startswith("/v/"):
            # what came, the fields sorted: the request line, fields, body
            got = [lines[0]] + sorted("%s: %s" % (k.strip().lower(),
                                                  v.strip())
                                      for k, v in fields)
            send("200 OK", [("X-Got", "yes")],
                 ("\n".join(got) + "\n\n").encode("latin-1") + body)
        elif path.startswith("/chunked"):
            c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                      b"Content-Type: text/plain\r\n\r\n")
            for part in (b"first ", b"second ", b"third\n"):
                c.sendall(b"%x\r\n%s\r\n" % (len(part), part))
            c.sendall(b"0\r\n\r\n")
        elif path.startswith("/close"):
            c.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n"
                      + b"until the end\n")
            return False
        elif path.startswith("/whole"):
            send("200 OK", [], self.big)
        elif path.startswith("/big"):
            send("200 OK", [], BIG)
        elif path.startswith("/redirect"):
            send("302 Found", [("Location", "http://127.0.0.1:%d/where/x"
                                % self.port),
                               ("Refresh", "3; url=http://127.0.0.1:%d/r"
                                % self.port)], b"")
        elif path.startswith("/status/"):
            code = int(path.split("/")[2])
            extra = [("WWW-Authenticate", "Basic realm=\"u\"")] \
                if code == 401 else []
            send("%d X" % code, extra, b"upstream said %d\n" % code)
        elif path.startswith("/fields"):
            send("200 OK", [("Server", "upstream/1"), ("X-Pad", "pad"),
                            ("X-Accel-Expires", "10"), ("X-Keep", "kept"),
                            ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
                            ("Cache-Control", "private"),
                            ("Expires", "Thu, 01 Jan 2099 00:00:00 GMT"),
                            ("X-Hide-Me", "h")], b"fields\n")
        elif path.startswith("/slow"):
            time.sleep(1.5)  # (the behaviour asked for: a slow upstream)
            send("200 OK", [], b"late\n")
        elif path.startswith("/bad-head"):
            c.sendall(b"HTTP/1.1 200 OK\r\nBad Field Name: x\r\n\r\nbody")
            return False
        elif path.startswith("/no-status"):
            c.sendall(b"garbage\r\n\r\n")
            return False
        elif path.startswith("/huge-head"):
            c.sendall(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 20000
                      + b"\r\nContent-Length: 0\r\n\r\n")
            return False
        elif path.startswith("/cut"):
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
                      + b"only part")
            return False
        else:
            send("404 Not Found", [], b"no such thing\n")
        return True


SITE = """
    upstream group {
        server 127.0.0.1:UP;
        server 127.0.0.1:DEAD backup;
    }
    server {
        listen 127.0.0.1:%(port)d;
        server_name localhost;
        location / {
            proxy_pass http://127.0.0.1:UP;
        }
        location /api/ {
            proxy_pass http://127.0.0.1:UP/v/;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header Accept-Encoding "";
        }
        location /g/ {
            proxy_pass http://group/echo/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
        location /hide/ {
            proxy_pass http://127.0.0.1:UP/fields;
            proxy_hide_header X-Hide-Me;
            proxy_pass_header X-Pad;
        }
        location /expires/ {
            proxy_pass http://127.0.0.1:UP/fields;
            expires epoch;
            add_header X-Cookie-B $upstream_cookie_b;
            add_trailer X-Length $upstream_response_length;
        }
        location /redir/ {
            proxy_pass http://127.0.0.1:UP/redirect/;
        }
        location /err/ {
            proxy_pass http://127.0.0.1:UP/status/;
            proxy_intercept_errors on;
            error_page 401 404 = /caught;
        }
        location = /caught {
            return 200 "caught $upstream_status\\n";
        }
        location /dead/ {
            proxy_pass http://127.0.0.1:DEAD;
        }
        location /timeout/ {
            proxy_pass http://127.0.0.1:UP/slow;
            proxy_read_timeout 500ms;
        }
        location /rw/ {
            rewrite ^/rw/(.*)$ /echo/$1 break;
            proxy_pass http://127.0.0.1:UP;
        }
        location ~ ^/re/(.*)$ {
            proxy_pass http://127.0.0.1:UP/echo/$1$is_args$args;
        }
        location /ws {
            proxy_pass http://127.0.0.1:UP;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
        }
        location /body/ {
            proxy_pass http://127.0.0.1:UP/echo;
            proxy_set_body "set=$arg_x";
            proxy_method PUT;
        }
    }
"""

REQUESTS = [
    ("/echo/a%20b/c?x=1&y=%2F", {"X-Custom": "1", "Connection": "close"},
     "GET"),
    ("/echo/plain", {"TE": "trailers", "Keep-Alive": "300",
                     "Upgrade": "websocket", "Proxy-Connection": "x"}, "GET"),
    ("/echo/head", {}, "HEAD"),
    ("/api/list?page=2", {"X-Forwarded-For": "192.0.2.7",
                          "Accept-Encoding": "gzip"}, "GET"),
    ("/g/one", {}, "GET"),
    ("/g/two", {}, "GET"),
    ("/chunked", {}, "GET"),
    ("/close", {}, "GET"),
    ("/big", {}, "GET"),
    ("/hide/", {}, "GET"),
    ("/expires/", {}, "GET"),
    ("/expires", {}, "GET"),
    ("/redir/x", {}, "GET"),
    ("/err/401", {}, "GET"),
    ("/err/404", {}, "GET"),
    ("/err/500", {}, "GET"),
    ("/status/503", {}, "GET"),
    ("/dead/x", {}, "GET"),
    ("/timeout/", {}, "GET"),
    ("/rw/x%20y?q=1", {}, "GET"),
    ("/re/deep/er?k=v", {}, "GET"),
    ("/body/?x=42", {}, "GET"),
    ("/bad-head", {}, "GET"),
    ("/huge-head", {}, "GET"),
    ("/nothing", {}, "GET"),
]


def dead_port():
    """a port nothing listens on (bound, never listening, then freed)"""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def upstream_view(body, port, up):
    """what the upstream received (an /echo body): the ports made PORT"""
    return re.sub(rb":(%d|%d)\b" % (port, up), b":PORT", body)


def tunnel(port):
    """an upgrade through the proxy on port: its status line, its
    Upgrade and Connection fields, then two messages echoed back"""
    c = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    try:
        c.sendall(b"GET /ws HTTP/1.1\r\nHost: localhost\r\n"
                  b"Upgrade: test\r\nConnection: Upgrade\r\n\r\n")
        got = recv_until(c, lambda b: b"ready\n" in b)
        head = got.split(b"\r\n\r\n")[0].split(b"\r\n")
        out = [head[0]] + sorted(ln for ln in head[1:] if ln.split(b":")[0]
                                 in (b"Upgrade", b"Connection"))
        for msg in (b"one", b"two and more"):
            c.sendall(msg)
            out.append(recv_until(c, lambda b, n=len(msg): len(b) >= n))
        return out
    finally:
        c.close()


def test_proxy_agrees_with_nginx():
    if not os.path.exists(NGINX):
        raise Skip("Debian's nginx is not installed")
    up = Upstream()
    dead = dead_port()
    body = SITE.replace("UP", str(up.port)).replace("DEAD", str(dead))
    peers = {}
    try:
        for kind in ("nginx", "nicd"):
            peers[kind] = Peer(kind, body, tempfile.gettempdir())
        agree, diffs = 0, []
        for path, headers, method in REQUESTS:
            seen = {}
            for kind, p in peers.items():
                try:
                    status, fields, data = fetch(p.port, path, headers,
                                                 method)
                except (OSError, IndexError, ValueError) as e:
                    seen[kind] = "no response (%r)" % e
                    continue
                data = upstream_view(data, p.port, up.port)
                if kind == "nginx":
                    # proxy-connection: nginx from 1.23.2 clears it as
                    # nicd does; Debian's 1.22.1 passes it on
                    data = data.replace(b"proxy-connection: x\n", b"")
                if "x-got" in fields:
                    # what the upstream got, its ports made PORT: its
                    # length is the body's
                    fields.pop("content-length", None)
                v = view(p.port, status, fields, data, False)
                v.pop("Content-Length", None) if "chunked" in \
                    fields.get("transfer-encoding", [""])[0] else None
                seen[kind] = v
            if seen["nginx"] == seen["nicd"]:
                agree += 1
            else:
                diffs.append("%s %s:\n  nginx %r\n  nicd  %r"
                             % (method, path, seen["nginx"], seen["nicd"]))
        print("proxy: %d of %d requests agree with nginx"
              % (agree, len(REQUESTS)))
        tunnels = {kind: tunnel(p.port) for kind, p in peers.items()}
        print("proxy: an upgraded connection: %r" % tunnels["nicd"])
        if tunnels["nginx"] != tunnels["nicd"]:
            diffs.append("an upgraded connection:\n  nginx %r\n  nicd  %r"
                         % (tunnels["nginx"], tunnels["nicd"]))
        check(not diffs, "\n".join(diffs))
    finally:
        for p in peers.values():
            p.stop()
        up.close()


def proxy_server(up, extra_http="", extra_loc=""):
    dead = dead_port()
    s = Server()
    s.write_conf("""
upstream kept { server 127.0.0.1:%d; keepalive 4; }
upstream two { server 127.0.0.1:%d; server 127.0.0.1:%d; }
upstream none { server 127.0.0.1:%d; server 127.0.0.1:%d; }
log_format up '$request $status [$upstream_addr] [$upstream_status]';
access_log %s/up.log up;
%s
location / { proxy_pass http://127.0.0.1:%d; %s }
location /k/ { proxy_pass http://kept/echo/; proxy_http_version 1.1;
               proxy_set_header Connection ""; }
location /two/ { proxy_pass http://two/echo/; }
location /none/ { proxy_pass http://none; }
""" % (up.port, dead, up.port, dead, dead_port(), s.dir, extra_http,
       up.port, extra_loc))
    return s


def access_lines(s):
    path = os.path.join(s.dir, "up.log")
    return open(path).read().splitlines() if os.path.exists(path) else []


def test_kept_connections_are_reused():
    up = Upstream()
    try:
        with proxy_server(up) as s:
            for i in range(6):
                r = get(s.port, "/k/%d" % i)
                check(r.status == 200 and b"GET /echo/%d " % i in r.body,
                      "%d: %r" % (i, r))
            # each worker thread keeps its own
            check(1 <= up.accepted <= s.threads,
                  "six requests took %d upstream connections (%d threads)"
                  % (up.accepted, s.threads))
            # a request whose upstream closes: not kept, the next reconnects
            check(get(s.port, "/close").status == 200, "close")
    finally:
        up.close()


def test_idle_kept_connections_close_at_their_timeout():
    """An idle kept connection is closed by its worker once
    keepalive_timeout passes, not only when a request next looks at it;
    one the server closes meanwhile is let go and a new one made."""
    up = Upstream()
    try:
        with proxy_server(up, """
upstream short { server 127.0.0.1:%d; keepalive 4; keepalive_timeout 300ms; }
location /s/ { proxy_pass http://short/echo/; proxy_http_version 1.1;
               proxy_set_header Connection ""; }
""" % up.port) as s:
            r = get(s.port, "/s/a")
            check(r.status == 200 and b"GET /echo/a " in r.body, "%r" % r)
            check(up.open == 1, "%d open after one request" % up.open)
            wait_until(lambda: up.open == 0,
                       "the idle connection closed at keepalive_timeout")
            check(get(s.port, "/s/b").status == 200, "a new one made")
            check(up.accepted == 2, "%d connections" % up.accepted)
    finally:
        up.close()


def test_a_request_outlives_the_keepalive_timer_before_it():
    """A kept client connection's next request waits on its upstream
    longer than keepalive_timeout: it gets its answer, the connection
    kept after it.  (The timer of the wait before the request stayed
    armed, and its firing closed the connection under the request; nginx
    deletes it when a request begins.)"""
    up = Upstream()
    try:
        with proxy_server(up, "keepalive_timeout 500ms;") as s:
            c = Conn(s.port)
            try:
                r = c.request("/echo/first")
                check(r.status == 200, "first: %r" % r)
                r = c.request("/slow")  # the upstream answers in 1.5 s
                check(r.status == 200 and r.body == b"late\n",
                      "the slow answer on the kept connection: %r" % r)
                r = c.request("/echo/third")
                check(r.status == 200, "kept after it: %r" % r)
            finally:
                c.close()
    finally:
        up.close()


def test_slow_client_body_waits_in_a_temporary_file():
    """proxy_buffering on: a client slower than its upstream has the rest
    of the body written to a temporary file in proxy_temp_path, so the
    upstream is done with (its connection closed) before the client has
    read; the client then gets every byte.  proxy_temp_path is made when
    the configuration is read; one gone since cuts the response short,
    with a log line."""
    up = Upstream()
    big = BIG * 120  # 24 MiB, more than the sockets between hold
    up.big = big
    try:
        tmp = tempfile.mkdtemp(prefix="nicd-temp-")
        with proxy_server(up, """
location /spill/ { proxy_pass http://127.0.0.1:%d/; proxy_buffers 4 4k;
                   proxy_temp_path %s 1 2; }
location /nospill/ { proxy_pass http://127.0.0.1:%d/; proxy_buffers 4 4k;
                     proxy_temp_path %s/gone; }
""" % (up.port, tmp, up.port, tmp)) as s:
            os.rmdir(os.path.join(tmp, "gone"))  # (made when read)
            for path, whole in (("/spill/whole", True),
                                ("/nospill/whole", False)):
                before = up.accepted
                c = socket.create_connection(("127.0.0.1", s.port))
                c.settimeout(DEADLINE)
                c.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n"
                          % path.encode())
                wait_until(lambda: up.accepted > before and up.open == 0,
                           "%s: the upstream done with, the client not "
                           "yet reading" % path)
                got = recv_until(c, lambda g: len(
                    g.partition(b"\r\n\r\n")[2]) >= len(big))
                c.close()
                head, _, body = got.partition(b"\r\n\r\n")
                if whole:
                    check(b" 200 " in head.split(b"\r\n")[0]
                          and body == big, "%s: %d of %d bytes"
                          % (path, len(body), len(big)))
                else:
                    check(len(body) < len(big), "%s: not cut: %d bytes"
                          % (path, len(body)))
            check(os.listdir(tmp) == [], "files left: %r" % os.listdir(tmp))
            check(re.search(r"could not write a temporary file in \"%s/gone\""
                            r" while reading upstream, .*upstream: \"http://"
                            r".*\(2: No such file or directory\)" % tmp,
                            s.log()), s.log())
            check(get(s.port, "/echo/on").status == 200, "serves on")
    finally:
        up.close()


def test_next_server_after_a_dead_one():
    up = Upstream()
    try:
        with proxy_server(up) as s:
            seen = set()
            for i in range(4):
                r = get(s.port, "/two/%d" % i)
                check(r.status == 200, "%d: %r" % (i, r))
            s.stop()
            lines = access_lines(s)
            for ln in lines:
                seen.add(ln.split("[", 1)[1])
            # the dead one is tried once, then left out (max_fails=1)
            tried_dead = [ln for ln in lines if ", " in ln]
            check(len(tried_dead) == 1 and "502, 200" in tried_dead[0],
                  "upstream log: %r" % lines)
    finally:
        up.close()


def test_no_live_upstream_is_502_and_the_connection_goes_on():
    # both servers dead: the first requests find them so, the next find
    # no live one at once; pipelined on one connection, each is answered
    # once, in order, and the connection serves on
    up = Upstream()
    try:
        with proxy_server(up) as s:
            c = s.connect()
            try:
                c.send(b"".join(b"GET /none/%d HTTP/1.1\r\nHost: x\r\n\r\n"
                                % i for i in range(4))
                       + b"GET /echo/after HTTP/1.1\r\nHost: x\r\n\r\n")
                codes = [c.read_response().status for _ in range(5)]
            finally:
                c.close()
            check(codes == [502] * 4 + [200], "statuses: %r" % codes)
            check("no live upstreams" in s.log(), s.log())
    finally:
        up.close()


def test_client_gone_is_499_and_upstream_closed():
    up = Upstream()
    try:
        with proxy_server(up) as s:
            c = socket.create_connection(("127.0.0.1", s.port))
            c.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            wait_until(lambda: up.accepted == 1, "the upstream asked")
            c.close()
            wait_until(lambda: "client closed connection" in s.log(),
                       "the close noticed")
            check(get(s.port, "/echo/after").status == 200, "serves on")
            s.stop()
            check(any(ln.startswith("GET /slow HTTP/1.1 499 [127.0.0.1:")
                      for ln in access_lines(s)),
                  "no 499 line: %r" % access_lines(s))
    finally:
        up.close()


def test_ssi_includes_proxied_locations():
    """SSI's include of a proxied location: a subrequest answered later,
    its body in the page (or, set=, in a variable: an empty one too), the
    page going on after it; a chunked upstream body and two includes in a
    row."""
    up = Upstream()
    try:
        with proxy_server(up, "location /ssi/ { ssi on; }") as s:
            s.put("ssi/page.html",
                  b'<!--# include virtual="/echo/a?x=1" set="v" -->'
                  b'[<!--# echo var="v" encoding="none" -->]'
                  b'(<!--# include virtual="/chunked" -->)'
                  b'(<!--# include virtual="/k/b" -->)'
                  b'<!--# include virtual="/redirect" set="e" -->'
                  b'{<!--# echo var="e" -->}|end')
            r = get(s.port, "/ssi/page.html")
            check(r.status == 200, "%r" % r)
            body = r.body.decode("latin-1")
            check(body.startswith("[GET /echo/a?x=1 HTTP/1.0\n")
                  and "(first second third\n)" in body
                  and "(GET /echo/b HTTP/1.1\n" in body
                  and body.endswith("){}|end"), "page: %r" % body)
    finally:
        up.close()


def test_ssi_client_gone_while_its_include_waits():
    """The client goes while a proxied include is waited for: the
    subrequest is given up (its upstream closed, nginx's line), nothing
    is answered to no one, and the server serves on."""
    up = Upstream()
    try:
        with proxy_server(up, "location /ssi/ { ssi on; }") as s:
            s.put("ssi/slow.html", b'before <!--# include virtual="/slow" '
                  b'--> after')
            c = socket.create_connection(("127.0.0.1", s.port))
            c.sendall(b"GET /ssi/slow.html HTTP/1.1\r\nHost: x\r\n\r\n")
            wait_until(lambda: up.accepted == 1, "the upstream asked")
            c.close()
            wait_until(lambda: "client closed connection" in s.log(),
                       "the close noticed")
            r = get(s.port, "/ssi/slow.html")
            check(r.status == 200 and r.body == b"before late\n after",
                  "serves on: %r" % r)
            check("[alert]" not in s.log(), s.log())
    finally:
        up.close()


def test_addition_waits_for_proxied_additions():
    """add_before_body and add_after_body naming a proxied location,
    which answers later: a file's response and a proxied one (chunked:
    its length no longer known) wait for it, in order; a client that
    goes meanwhile leaves nothing behind, and the server serves on."""
    up = Upstream()
    try:
        with proxy_server(up, """
location /add/ { add_before_body /slow; add_after_body /echo/after; }
location /addpx/ { add_after_body /slow; addition_types text/plain;
                   proxy_pass http://127.0.0.1:%d/echo/; }
""" % up.port) as s:
            s.put("add/page.html", b"<p>page</p>\n")
            r = get(s.port, "/add/page.html")
            check(r.status == 200 and r.body.startswith(b"late\n<p>page</p>\n"
                                                        b"GET /echo/after "),
                  "file: %r" % r)
            check(r.header("ETag", "W/").startswith("W/")
                  and r.header("Accept-Ranges") is None, "file: %r" % r)
            c = socket.create_connection(("127.0.0.1", s.port))
            c.settimeout(DEADLINE)
            c.sendall(b"GET /addpx/x HTTP/1.1\r\nHost: x\r\n\r\n")
            head = recv_until(c, lambda g: g.endswith(b"\r\n0\r\n\r\n"))
            c.close()
            body = head.split(b"\r\n\r\n", 1)[1]
            check(b"Transfer-Encoding: chunked" in head
                  and b"GET /echo/x HTTP/1.0" in body
                  and body.endswith(b"late\n\r\n0\r\n\r\n"),
                  "proxied: %r" % head)
            n = up.accepted
            for path in ("/add/page.html", "/addpx/y"):
                c = socket.create_connection(("127.0.0.1", s.port))
                c.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n"
                          % path.encode())
                n += 1 if path.startswith("/add/") else 2
                wait_until(lambda: up.accepted >= n, "the upstream asked")
                c.close()
            wait_until(lambda: s.log().count("client closed connection") >= 2,
                       "the closes noticed:\n" + s.log())
            check(get(s.port, "/echo/on").status == 200, "serves on")
            check("[alert]" not in s.log(), s.log())
    finally:
        up.close()


def test_bad_upstream_heads_are_502_with_a_line():
    up = Upstream()
    try:
        with proxy_server(up, extra_loc="proxy_buffer_size 4k;") as s:
            for path, why in (("/bad-head", "upstream sent invalid header"),
                              ("/no-status", "upstream sent no valid HTTP"),
                              ("/huge-head", "upstream sent too big header")):
                r = get(s.port, path)
                check(r.status == 502, "%s: %r" % (path, r))
                check(re.search(why + r".*upstream: \"http://127\.0\.0\.1:%d"
                                % up.port, s.log()),
                      "%s: no line saying %r:\n%s" % (path, why, s.log()))
            check(get(s.port, "/echo/still").status == 200, "serves on")
    finally:
        up.close()


def test_chunked_request_body_goes_with_its_length():
    up = Upstream()
    try:
        with proxy_server(up) as s:
            data = raw(s.port, b"POST /echo/c HTTP/1.1\r\nHost: x\r\n"
                       b"Transfer-Encoding: chunked\r\nConnection: close"
                       b"\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
            check(b"200 OK" in data and b"content-length: 11" in data
                  and data.endswith(b"hello world"),
                  "what came back: %r" % data[-300:])
            data = raw(s.port, b"POST /echo/c HTTP/1.1\r\nHost: x\r\n"
                       b"Transfer-Encoding: chunked\r\n\r\nzz\r\n")
            check(data.startswith(b"HTTP/1.1 400 "), "bad chunks: %r"
                  % data[:100])
            check("client sent invalid chunked body" in s.log(), s.log())
    finally:
        up.close()


def test_a_response_cut_short_closes_the_connection():
    up = Upstream()
    try:
        with proxy_server(up) as s:
            data = raw(s.port, b"GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
            head, _, body = data.partition(b"\r\n\r\n")
            check(b"Content-Length: 1000" in head and body == b"only part",
                  "what came: %r" % data[:300])
            check("upstream prematurely closed connection" in s.log(),
                  s.log())
            check(get(s.port, "/echo/still").status == 200, "serves on")
    finally:
        up.close()


def test_proxied_over_http2():
    if subprocess.run(["curl", "--version"], capture_output=True).returncode:
        raise Skip("curl is not installed")
    up = Upstream()
    try:
        with proxy_server(up, extra_http="listen 127.0.0.3:0 http2;"
                          " location /ssi/ { ssi on; }") as s:
            s.put("ssi/p.html", b'[<!--# include virtual="/echo/i" -->]')
            m = s.wait_log(r"listening on http://127\.0\.0\.3:(\d+)/")
            url = "http://127.0.0.3:%s" % m.group(1)
            # (an SSI page whose include is proxied: its stream waits)
            for path, want in (("/echo/h2", b"GET /echo/h2 HTTP/1.0"),
                               ("/chunked", b"first second third\n"),
                               ("/big", BIG),
                               ("/ssi/p.html", b"[GET /echo/i HTTP/1.0\n")):
                p = subprocess.run(["curl", "-s", "--http2-prior-knowledge",
                                    url + path], capture_output=True,
                                   timeout=DEADLINE)
                check(p.returncode == 0 and want in p.stdout,
                      "%s: %r" % (path, p.stdout[:200]))
    finally:
        up.close()
