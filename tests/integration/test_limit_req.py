"""limit_req and auth_delay (issue 41): delayed requests over HTTP/1.1 (pipelined, in
order) and HTTP/2 answered after their wait, refusals with nginx's log
line while the server serves on, and malformed lines failing -t with
their file and line.  What nginx does with the same lines is compared in
test_nginx_diff ("limit-req"); nginx's own limit_req*.t run in
test_nginx_suite."""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

from nicd import DEADLINE, NICD, Server, Skip, check, get, wait_until

# 10 a second: a request beyond the first waits 100 ms per request ahead
ZONE = "limit_req_zone $binary_remote_addr zone=z:1m rate=10r/s;\n"
CONF = ZONE + """
location /wait/ {
    limit_req zone=z burst=5;
    add_header X-Limit $limit_req_status always;
    add_header X-Time $request_time always;
}
location /strict/ {
    limit_req zone=z;
    add_header X-Limit $limit_req_status always;
}
location /free/ { }
"""


def read_responses(sock, n):
    """n whole responses (Content-Length framed) from sock."""
    data, out = b"", []
    while len(out) < n:
        head_end = data.find(b"\r\n\r\n")
        if head_end >= 0:
            head = data[:head_end].decode("latin-1")
            m = re.search(r"(?mi)^content-length: (\d+)", head)
            size = head_end + 4 + (int(m.group(1)) if m else 0)
            if len(data) >= size:
                out.append(head)
                data = data[size:]
                continue
        chunk = sock.recv(65536)
        check(chunk, "closed after %d responses: %r" % (len(out), data))
        data += chunk
    return out


def field(head, name):
    m = re.search(r"(?mi)^%s: (.*)\r?$" % name, head)
    return m.group(1).strip() if m else None


def test_pipelined_requests_wait_their_turn():
    with Server(conf=CONF) as s:
        for name in ("a", "b", "c"):
            s.put("wait/" + name, b"x")
        sock = socket.create_connection(("127.0.0.1", s.port),
                                        timeout=DEADLINE)
        t0 = time.monotonic()
        sock.sendall(b"".join(b"GET /wait/%s HTTP/1.1\r\nHost: x\r\n\r\n" % n
                              for n in (b"a", b"b", b"c")))
        heads = read_responses(sock, 3)
        took = time.monotonic() - t0
        sock.close()
        check(all(h.startswith("HTTP/1.1 200") for h in heads), repr(heads))
        check([field(h, "X-Limit") for h in heads]
              == ["PASSED", "DELAYED", "DELAYED"], repr(heads))
        # answered in order, each after its wait
        check(float(field(heads[1], "X-Time")) >= 0.09, repr(heads[1]))
        check(took >= 0.18, "three answers in %.3f s" % took)
        # the connection's next request comes after the delayed ones:
        # nothing was lost or reordered
        check(get(s.port, "/free/").status in (403, 404), "free location")


def test_beyond_the_burst_refused_logged_and_serving_on():
    with Server(conf=CONF) as s:
        s.put("strict/f", b"x")
        s.put("free/f", b"y")
        codes = [get(s.port, "/strict/f").status for _ in range(3)]
        check(codes[0] == 200 and 503 in codes[1:], "codes %r" % codes)
        s.wait_log(r'limiting requests, excess: \d+\.\d{3} by zone "z", '
                   r"client: 127\.0\.0\.1")
        r = get(s.port, "/free/f")
        check(r.status == 200 and r.body == b"y", "serving on: %r" % r)


def test_http2_stream_waits_and_is_answered():
    """Two streams of one connection (nghttp sends them at once): the
    first passes, the second waits and is answered, the connection
    serving on meanwhile."""
    if shutil.which("nghttp") is None:
        raise Skip("nghttp (nghttp2-client) is not installed")
    conf = "listen 127.0.0.3:0 http2;\n" + CONF
    with Server(conf=conf) as s:
        s.put("wait/a", b"a")
        port = int(s.wait_log(
            r"listening on http://127\.0\.0\.3:(\d+)/").group(1))
        p = subprocess.run(["nghttp", "-nv", "-m", "2",
                            "http://127.0.0.3:%d/wait/a" % port],
                           capture_output=True, timeout=DEADLINE)
        out = p.stdout.decode()
        check(p.returncode == 0 and len(re.findall(r":status: 200", out))
              == 2, "nghttp %d: %s %s" % (p.returncode, out, p.stderr))
        check(sorted(re.findall(r"x-limit: (\w+)", out))
              == ["DELAYED", "PASSED"], out)


def test_http2_waits_longer_than_send_timeout():
    """A stream's wait is no idle connection: three streams at 2 a second
    (the last waits a second) on a server whose send_timeout is 300 ms
    are all answered."""
    if shutil.which("nghttp") is None:
        raise Skip("nghttp (nghttp2-client) is not installed")
    conf = ("listen 127.0.0.3:0 http2;\nsend_timeout 300ms;\n"
            "limit_req_zone $binary_remote_addr zone=slow:1m rate=2r/s;\n"
            "location /w/ { limit_req zone=slow burst=5; }\n")
    with Server(conf=conf) as s:
        s.put("w/a", b"a")
        port = int(s.wait_log(
            r"listening on http://127\.0\.0\.3:(\d+)/").group(1))
        p = subprocess.run(["nghttp", "-n", "-s", "-m", "3",
                            "http://127.0.0.3:%d/w/a" % port],
                           capture_output=True, timeout=DEADLINE)
        out = p.stdout.decode()
        check(p.returncode == 0 and out.count(" 200 ") == 3,
              "nghttp %d: %s %s" % (p.returncode, out, p.stderr))


def test_auth_delay_waits_before_a_401_only():
    """auth_delay (nginx's): a wrong or missing password is answered 401
    after the wait, a right one at once; other requests of the server are
    served meanwhile."""
    import base64
    with tempfile.TemporaryDirectory() as d:
        users = os.path.join(d, "htpasswd")
        with open(users, "w") as f:
            f.write("user:{PLAIN}good\n")
        conf = ("location /closed/ { auth_delay 300ms; auth_basic \"c\"; "
                "auth_basic_user_file %s; }\nlocation /open/ { }\n" % users)
        with Server(conf=conf) as s:
            s.put("closed/f", b"secret")
            s.put("open/f", b"open")

            def timed(headers):
                t0 = time.monotonic()
                r = get(s.port, "/closed/f", headers=headers)
                return r, time.monotonic() - t0

            def auth(pw):
                return {"Authorization": "Basic " + base64.b64encode(
                    b"user:" + pw).decode()}

            r, took = timed(auth(b"bad"))
            check(r.status == 401 and took >= 0.28, "bad: %d in %.3f s"
                  % (r.status, took))
            check(r.header("WWW-Authenticate") == 'Basic realm="c"', repr(r))
            r, took = timed({})
            check(r.status == 401 and took >= 0.28, "none: %d in %.3f s"
                  % (r.status, took))
            r, took = timed(auth(b"good"))
            check(r.status == 200 and r.body == b"secret" and took < 0.28,
                  "good: %d in %.3f s" % (r.status, took))
            check(get(s.port, "/open/f").body == b"open", "open")


BAD = [
    ("limit_req zone=nowhere;", r"nowhere.*not made by any.*limit_req_zone"),
    ("limit_req_zone $binary_remote_addr zone=s:1k rate=1r/s;",
     r'zone "s" is too small'),
    ("limit_req_zone $binary_remote_addr zone=r:1m rate=fast;",
     r'invalid rate "rate=fast"'),
    ("limit_req_zone $binary_remote_addr rate=1r/s rate=2r/s;",
     r'missing "zone" parameter'),
    (ZONE + "limit_req zone=z burst=0;", r'invalid burst value "burst=0"'),
    (ZONE + "limit_req burst=2;", r'must have "zone" parameter'),
    (ZONE + "limit_req zone=z;\nlimit_req zone=z;", r"is duplicate"),
    (ZONE + "limit_req_status 200;", r"limit_req_status"),
    (ZONE + ZONE, r'duplicate zone "z"'),
]


def test_malformed_lines_fail_t_with_file_and_line():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad.conf")
        for text, want in BAD:
            with open(path, "w") as f:
                f.write("root %s;\n%s\n" % (d, text))
            p = subprocess.run([NICD, "-t", "-c", path], capture_output=True,
                               timeout=DEADLINE)
            err = p.stderr.decode()
            check(p.returncode == 1 and re.search(want, err),
                  "%r: rc %d, %s" % (text, p.returncode, err))
            if "not made by any" not in want:
                check(re.search(r"bad\.conf:\d+", err), "no line: " + err)


def test_limit_conn_counts_requests_until_their_responses_have_gone():
    """limit_conn (nginx's): a key's requests in progress, counted from
    the location's checks until the response has gone, so a download a
    slow client reads holds its count and a second one is refused (503,
    nginx's log line, $limit_conn_status) while a free location serves on;
    once it has gone (or its client left) the next passes.  dry_run
    refuses nothing; limit_conn_status sets the code; a zone no
    limit_conn_zone made fails -t."""
    conf = """
limit_conn_zone $binary_remote_addr zone=addr:1m;
location /dl/ {
    limit_conn addr 1;
    limit_conn_status 429;
    limit_conn_log_level warn;
    add_header X-Conn $limit_conn_status always;
}
location /dry/ {
    limit_conn addr 1;
    limit_conn_dry_run on;
    add_header X-Conn $limit_conn_status always;
}
location /free/ { }
"""
    big = 16 << 20
    with Server(conf=conf) as s:
        s.put("dl/big", b"b" * big)
        s.put("dl/small", b"s")
        s.put("dry/small", b"d")
        s.put("free/f", b"f")
        slow = socket.create_connection(("127.0.0.1", s.port),
                                        timeout=DEADLINE)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.sendall(b"GET /dl/big HTTP/1.1\r\nHost: x\r\n\r\n")
        check(b"200 OK" in slow.recv(100), "the download began")
        r = get(s.port, "/dl/small")
        check(r.status == 429 and r.header("X-Conn") == "REJECTED",
              "second while the first is in progress: %r" % r)
        s.wait_log(r"\[warn\].*limiting connections by zone \"addr\"")
        check(get(s.port, "/free/f").status == 200, "free location")
        r = get(s.port, "/dry/small")
        check(r.status == 200 and r.header("X-Conn") == "REJECTED_DRY_RUN",
              "dry run: %r" % r)
        slow.close()  # the client leaves: its count goes back
        r = wait_until(lambda: (lambda x: x if x.status == 200 else None)(
            get(s.port, "/dl/small")), "a pass once the download went")
        check(r.header("X-Conn") == "PASSED", "after the first went: %r" % r)
    p = subprocess.run([NICD, "-t", "-c", "/dev/stdin"],
                       input=b"location / { limit_conn nozone 1; }\n",
                       capture_output=True, timeout=DEADLINE)
    check(p.returncode == 1 and b"nozone" in p.stderr
          and b"limit_conn_zone" in p.stderr, p.stderr)
