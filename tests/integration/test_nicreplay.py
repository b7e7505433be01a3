"""nicreplay against nicd, Debian's nginx and a scripted server: sessions
and pipeline groups, every status answered as the docroot says, byte
verification, the HTTP/1.1 cases a pipelining client must get right,
shards and merge, limits, errors."""

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading

from nicd import NICD, DEADLINE, Server, check
from test_nictrace import (NASA, NASA10K, clf_records, content, file_name,
                           object_key, read_manifest, run)

NICREPLAY = os.path.join(os.path.dirname(NICD), "nicreplay")


def replay(trace, url, *args, timeout=120, failure=None):
    """Run nicreplay; its JSON result and its log as a list of
    (session, method, target, status, bytes).  failure: the run is to
    fail (exit 1) with a reason holding it, its outputs still written."""
    with tempfile.TemporaryDirectory() as d:
        js, log = os.path.join(d, "r.json"), os.path.join(d, "r.log")
        p = subprocess.run([NICREPLAY, "-q", "--json", js, "--log", log]
                           + list(args) + [trace, url],
                           capture_output=True, timeout=timeout)
        check(p.returncode == (0 if failure is None else 1)
              and (failure is None
                   or "failed: " in p.stderr.decode()
                   and failure in p.stderr.decode()),
              "nicreplay exit %d: %s" % (p.returncode, p.stderr.decode()))
        res = json.load(open(js))
        check((res["run_failed"] is None) == (failure is None),
              "run_failed: %r" % res["run_failed"])
        lines = []
        for line in open(log, encoding="latin-1"):
            if line.startswith("# run failed: "):
                continue
            s, m, t, st, b = line.split(" ")[:5]
            lines.append((int(s), m, t, int(st), int(b)))
        res["_stdout"] = p.stdout.decode()
        res["_stderr"] = p.stderr.decode()
        return res, lines


def sessions_expected(recs, conn_gap=15, pipe_gap=5):
    """The paper's grouping, computed here: (connections, groups)."""
    last = {}
    conns = groups = 0
    for t, client in recs:
        prev = last.get(client)
        if prev is None or t - prev >= conn_gap:
            conns += 1
            groups += 1
        elif t - prev >= pipe_gap:
            groups += 1
        last[client] = t
    return conns, groups


def in_session_order(recs, conn_gap=15):
    """(time, client, url) -> the urls session by session."""
    last, cur, sessions = {}, {}, []
    for t, client, url in recs:
        if client not in last or t - last[client] >= conn_gap:
            cur[client] = len(sessions)
            sessions.append([])
        sessions[cur[client]].append(url)
        last[client] = t
    return [u for s in sessions for u in s]


def nasa_hosts(path):
    return [line.split(" ", 1)[0]
            for line in open(path, encoding="latin-1").read().splitlines()]


def docroot_files(recs):
    """{object key: size} of the objects with a successful transfer."""
    files = {}
    for _, url, status, b in recs:
        if status in (200, 206) and b:
            k = object_key(url)
            files[k] = max(files.get(k, 0), b)
    return files


def check_answers(lines, root, what):
    """Each answer is what the docroot holds for the target sent: 200
    with the file's size for a file, 301/403 for a directory, 404 for the
    rest."""
    for s, m, target, status, nbytes in lines:
        disk = os.path.join(root, file_name(target.split("?", 1)[0])[1:])
        if os.path.isfile(disk):
            check(status == 200, "%s: %s %s: %d" % (what, m, target, status))
            check(nbytes == (0 if m == "HEAD" else os.path.getsize(disk)),
                  "%s: %s: %d bytes" % (what, target, nbytes))
        elif os.path.isdir(disk):
            check(status in (301, 403), "%s: %s: %d" % (what, target, status))
        else:
            check(status == 404, "%s: %s: %d" % (what, target, status))


def check_fidelity(res, recs, what):
    """Through the manifest, every 2xx of the log is a 2xx now, every
    404 a 404 (the sample has one 404 on an object that also succeeded)
    and every 3xx a 301."""
    f = res["fidelity"]
    n2xx = sum(1 for r in recs if 200 <= r[2] < 300)
    n404 = sum(1 for r in recs if r[2] == 404)
    also_ok = sum(1 for r in recs if r[2] == 404
                  and object_key(r[1]) in docroot_files(recs))
    check(f["log_2xx"] == n2xx == f["answered_2xx"] and f["share_2xx"] == 1
          and f["log_404"] == n404
          and f["answered_404"] == n404 - also_ok
          and f["answered_301"] == f["log_3xx"] > 0,
          "%s: fidelity %r (2xx %d, 404 %d of which %d on files)"
          % (what, f, n2xx, n404, also_ok))


def test_nasa_replayed_against_nicd():
    """The end-to-end test: nictrace docroot of the NASA sample, served
    by nicd, replayed with --verify at several -c: no mismatch, no error,
    every request answered as the docroot says, and the sessions and
    groups the paper's rule gives."""
    lines = open(NASA, encoding="latin-1").read().splitlines()
    recs = clf_records(lines)
    conns, groups = sessions_expected(
        [(r[0], h) for r, h in zip(recs, nasa_hosts(NASA))])
    with tempfile.TemporaryDirectory() as root:
        rc, _, err = run("docroot", "--root", root, NASA)
        check(rc == 0, err)
        with Server(root=root, threads=2) as s:
            url = "http://127.0.0.1:%d/" % s.port
            for c in (1, 4, 32, 200):
                res, log = replay(NASA, url, "-c", str(c), "--verify",
                                  "--docroot", root)
                what = "-c %d" % c
                check_fidelity(res, recs, what)
                check(res["requests"] == len(recs) == len(log),
                      "%s: %d requests" % (what, res["requests"]))
                check(res["mismatches"] == 0 and res["failed"] == 0
                      and sum(res["errors"].values()) == 0,
                      "%s: %r" % (what, res))
                check(res["sessions"] == conns
                      and res["pipeline"]["groups"] == groups,
                      "%s: %d sessions, %d groups, want %d, %d"
                      % (what, res["sessions"], res["pipeline"]["groups"],
                         conns, groups))
                ok_bytes = sum(b for _, _, _, st, b in log if st == 200)
                check(res["verified_bytes"] == ok_bytes,
                      "%s: verified %d of %d" % (what, res["verified_bytes"],
                                                 ok_bytes))
                check_answers(log, root, what)
                # one user replays the sessions one after the other, in
                # the order they open, each in trace order (at the URL
                # the manifest gives, where it gives one)
                if c == 1:
                    m = read_manifest(root)
                    check([t for _, _, t, _, _ in log] == in_session_order(
                        [(r[0], h, m[object_key(r[1])][2] or r[1])
                         for r, h in zip(recs, nasa_hosts(NASA))]),
                        "trace order")


def test_nasa10k_pipelined_and_not():
    """The 10,000-request sample: pipelined and --no-pipeline give the
    same answers; --no-pipeline sends one request per group."""
    import gzip
    lines = gzip.open(NASA10K, "rt", encoding="latin-1").read().splitlines()
    recs = [r for r, line in zip(clf_records(lines), lines)
            if '"GET ' in line or '"HEAD ' in line]
    with tempfile.TemporaryDirectory() as root:
        rc, _, err = run("docroot", "--root", root, NASA10K)
        check(rc == 0, err)
        with Server(root=root, threads=2) as s:
            url = "http://127.0.0.1:%d/" % s.port
            a, la = replay(NASA10K, url, "-c", "64", "--verify",
                           "--docroot", root)
            b, lb = replay(NASA10K, url, "-c", "64", "--verify",
                           "--no-pipeline", "--docroot", root)
            for res, log, what in ((a, la, "pipelined"),
                                   (b, lb, "no pipeline")):
                check(res["requests"] == len(recs) and res["mismatches"] == 0
                      and res["failed"] == 0, "%s: %r" % (what, res))
                check_answers(log, root, what)
                check_fidelity(res, recs, what)
            check(b["pipeline"]["groups"] == len(recs)
                  and b["pipeline"]["max_depth"] == 1, repr(b["pipeline"]))
            check(a["pipeline"]["max_depth"] > 1, repr(a["pipeline"]))
            check(a["responses_by_status"] == b["responses_by_status"],
                  "%r != %r" % (a["responses_by_status"],
                                b["responses_by_status"]))


@contextlib.contextmanager
def nginx(root, conf_extra="", listen=""):
    """Debian's nginx on a kernel-chosen port, as a context giving the
    port and stopping it (and removing its directory) after: the
    listening socket is made here and handed over as nginx's own binary
    upgrade does (the NGINX environment variable), so there is no port to
    guess."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    check(os.path.exists(binary), "nginx is not installed (make test "
          "installs nginx-light)")
    d = tempfile.mkdtemp(prefix="nicreplay-nginx-")
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(128)
    port = ls.getsockname()[1]
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""daemon off; worker_processes 1;
pid %(d)s/nginx.pid; error_log %(d)s/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path %(d)s; proxy_temp_path %(d)s;
  fastcgi_temp_path %(d)s; uwsgi_temp_path %(d)s; scgi_temp_path %(d)s;
  %(extra)s
  server { listen 127.0.0.1:%(port)d %(listen)s; root %(root)s; }
}
""" % {"d": d, "port": port, "root": root, "extra": conf_extra,
       "listen": listen})
    fd = ls.fileno()
    os.set_inheritable(fd, True)
    p = subprocess.Popen([binary, "-c", conf], pass_fds=(fd,),
                         env=dict(os.environ, NGINX="%d;" % fd),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ls.close()
    try:
        yield port
    finally:
        p.terminate()
        p.wait(timeout=DEADLINE)
        shutil.rmtree(d, ignore_errors=True)


def test_nasa_replayed_against_nginx():
    """The same replay against Debian's nginx, which closes persistent
    connections after keepalive_requests (here 3): the replayer reconnects
    and sends the rest again; nothing fails, nothing mismatches."""
    recs = clf_records(open(NASA, encoding="latin-1").read().splitlines())
    with tempfile.TemporaryDirectory() as root:
        rc, _, err = run("docroot", "--root", root, NASA)
        check(rc == 0, err)
        os.chmod(root, 0o755)  # nginx's workers run as nobody
        with nginx(root, "keepalive_requests 3;") as port:
            res, log = replay(NASA, "http://127.0.0.1:%d/" % port, "-c", "16",
                              "--verify", "--docroot", root)
        check_answers(log, root, "nginx")
    check(res["requests"] == len(recs) and res["mismatches"] == 0
          and res["failed"] == 0 and sum(res["errors"].values()) == 0,
          repr(res))
    check(res["reconnects"] > 0, "nginx closed no connection? %r" % res)
    check(res["connections"] == res["sessions"] + res["reconnects"],
          repr(res))
    check_fidelity(res, recs, "nginx")


def make_cert(d):
    """A self-signed certificate naming localhost, 127.0.0.1 and
    127.0.0.2, and its key (openssl from Debian)."""
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "cert.key")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                        "-subj", "/CN=localhost", "-addext",
                        "subjectAltName=DNS:localhost,IP:127.0.0.1,"
                        "IP:127.0.0.2"], capture_output=True, timeout=60)
    check(p.returncode == 0, "openssl req: " + p.stderr.decode())
    os.chmod(key, 0o644)  # nginx's master reads it as root; tests may not
    return cert, key


def check_tls_replay(res, log, root, recs, what, alpn, version):
    check_answers(log, root, what)
    check(res["requests"] == len(recs) and res["mismatches"] == 0
          and res["failed"] == 0 and sum(res["errors"].values()) == 0,
          "%s: %r" % (what, res))
    ok_bytes = sum(b for _, _, _, st, b in log if st == 200)
    check(res["verified_bytes"] == ok_bytes > 0, "%s: verified %d of %d"
          % (what, res["verified_bytes"], ok_bytes))
    t = res["tls"]
    check(t["handshakes"] == res["connections"] and t["failed"] == 0
          and 0 < t["resumed"] < t["handshakes"]
          and t["version"] == version and t["alpn"] == alpn,
          "%s: %r" % (what, t))


def test_tls_replay_against_nicd_and_nginx():
    """https:// targets: every body byte verified over TLS 1.3 (nicd) and
    1.2 (Debian's nginx), with a certificate made here (trusted by
    --cacert, its address checked), sessions resumed after the first,
    HTTP/2 chosen by ALPN with --http2.  Not trusted: the first handshake
    fails, with OpenSSL's reason; --insecure takes it."""
    recs = clf_records(open(NASA, encoding="latin-1").read().splitlines())
    with tempfile.TemporaryDirectory() as root, \
            tempfile.TemporaryDirectory() as d:
        rc, _, err = run("docroot", "--root", root, NASA)
        check(rc == 0, err)
        os.chmod(root, 0o755)  # nginx's workers run as nobody
        cert, key = make_cert(d)
        tls = "ssl_certificate %s;\nssl_certificate_key %s;\n" % (cert, key)

        def both_protocols(url, server, version):
            for extra, alpn in (([], "http/1.1"), (["--http2"], "h2")):
                res, log = replay(NASA, url, "-c", "8", "--verify",
                                  "--docroot", root, "--cacert", cert, *extra)
                check_tls_replay(res, log, root, recs, server + " " + alpn,
                                 alpn, version)
        with Server("listen 127.0.0.2:0 ssl http2;\n" + tls, root=root) as s:
            port = int(s.wait_log(r"listening on https://127\.0\.0\.2:(\d+)/")
                       .group(1))
            url = "https://127.0.0.2:%d/" % port
            both_protocols(url, "nicd", "TLSv1.3")
            res, _ = replay(NASA, url, failure="tls: self-signed certificate")
            check(res["tls"]["failed"] == 1 and res["error_causes"] ==
                  [{"what": "tls", "reason": "self-signed certificate",
                    "count": 1}], repr(res))
            res, _ = replay(NASA, url, "--requests", "5", "--insecure")
            check(res["requests"] == 5, repr(res))
        # nginx closes each connection after 3 requests: the replay
        # reconnects (resuming) and nothing fails
        with nginx(root, tls + "keepalive_requests 3;", "ssl http2") as port:
            # nginx 1.22's default ssl_protocols stop at TLSv1.2
            both_protocols("https://127.0.0.1:%d/" % port, "nginx", "TLSv1.2")


def test_csv_per_request_and_per_second():
    """--csv: a row a request (header row, targets quoted as CSV needs,
    the error of each failed one), the same requests and statuses as
    --log and --json; --csv-seconds: a row a second whose counts add up
    to the run's."""
    import csv
    with tempfile.TemporaryDirectory() as root, \
            tempfile.TemporaryDirectory() as d:
        rc, _, err = run("docroot", "--root", root, NASA)
        check(rc == 0, err)
        a, b = os.path.join(d, "r.csv"), os.path.join(d, "s.csv")
        with Server(root=root) as s:
            res, log = replay(NASA, "http://127.0.0.1:%d/" % s.port, "-c", "4",
                              "--rate", "700", "--csv", a, "--csv-seconds", b)
        rows = list(csv.DictReader(open(a, newline="")))
        secs = list(csv.DictReader(open(b, newline="")))
    check(len(rows) == len(log) == res["requests"] == 1000, "%d rows"
          % len(rows))
    check(sorted((r["method"], r["target"], int(r["status"]),
                  int(r["body_bytes"])) for r in rows)
          == sorted((m, t, st, by) for _, m, t, st, by in log), "csv != log")
    check(all(r["error"] == "" and int(r["latency_us"]) > 0 for r in rows),
          repr(rows[:3]))
    check(len(secs) >= 2 and sum(int(r["answered"]) for r in secs) == 1000
          and sum(int(r["body_bytes"]) for r in secs) == res["content_bytes"]
          and all(int(r["p50_us"]) <= int(r["max_us"]) for r in secs),
          repr(secs))
    # a failed request's row says why; a target with a comma is quoted
    trace = write_trace([(0, "A", "GET", "/a,b", 200)])
    try:
        with tempfile.TemporaryDirectory() as d:
            a = os.path.join(d, "r.csv")
            replay(trace, "http://127.0.0.1:1/", "--csv", a,
                   failure="no request was answered")
            text = open(a).read()
    finally:
        os.unlink(trace)
    check(text.split("\n")[1] == '0,GET,"/a,b",0,0,0,0,0,connect: '
          'Connection refused', text)


class Scripted:
    """A server answering each request by its path, in order, pipelined:
    the HTTP/1.1 cases a replayer must read right.  It records the
    requests of every connection."""

    def __init__(self):
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(64)
        self.port = self.ls.getsockname()[1]
        self.conns = []
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self.serve, daemon=True)
        self.t.start()

    def serve(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            threading.Thread(target=self.conn, args=(c,), daemon=True).start()

    def answer(self, method, path):
        body = content(file_name(path.split("?", 1)[0]), 100)
        if path == "/chunked":
            parts = [body[:10], body[10:70], body[70:]]
            data = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p)
                            for p in parts)
            return (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + data + b"0\r\nX-Trailer: 1\r\n\r\n"), False
        if path == "/close":
            return (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n"
                    b"Connection: close\r\n\r\n" + body), True
        if path == "/http10":
            return b"HTTP/1.0 200 OK\r\n\r\n" + body, True
        if path == "/204":
            return b"HTTP/1.1 204 No Content\r\n\r\n", False
        if path == "/304":
            return (b"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n"
                    b"\r\n"), False
        if path == "/206":
            return (b"HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\n"
                    b"Content-Range: bytes 10-19/100\r\n\r\n"
                    + body[10:20]), False
        if path == "/bad":
            return (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
                    + body[:50] + b"X" + body[51:]), False
        if path == "/100":
            return (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
                    b"Content-Length: 100\r\n\r\n" + body), False
        head = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
        return head + (b"" if method == b"HEAD" else body), False

    def conn(self, c):
        seen = []
        with self.lock:
            self.conns.append(seen)
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    d = c.recv(65536)
                    if not d:
                        return
                    buf += d
                head, buf = buf.split(b"\r\n\r\n", 1)
                method, path, _ = head.split(b"\r\n", 1)[0].split(b" ")
                seen.append((method.decode(), path.decode()))
                data, close = self.answer(method, path.decode())
                c.sendall(data)
                if close:
                    return
        finally:
            c.close()

    def close(self):
        self.ls.close()


def write_trace(entries):
    """entries: (seconds, client, method, path, status); a CLF file."""
    fd, path = tempfile.mkstemp(suffix=".log")
    with os.fdopen(fd, "w") as f:
        for t, client, method, url, status in entries:
            f.write('%s - - [01/Jul/1995:00:%02d:%02d -0400] "%s %s '
                    'HTTP/1.0" %d 100\n' % (client, t // 60, t % 60, method,
                                            url, status))
    return path


def test_http_cases_in_one_pipeline():
    """One client, one pipeline group holding every case: chunked with
    extensions and a trailer, HEAD (Content-Length, no body), 304 with a
    Content-Length, 204, a 206 checked at its offset, a 1xx before the
    real answer, Connection: close mid-pipeline and an HTTP/1.0 body that
    ends with the connection (both: the rest is sent again on a new
    connection), and a corrupt body (one mismatch)."""
    paths = ["/a", "/chunked", "/b", "/304", "/204", "/206", "/100",
             "/close", "/c", "/http10", "/d", "/bad", "/e"]
    trace = write_trace([(0, "h", "HEAD" if p == "/b" else "GET", p, 200)
                         for p in paths])
    srv = Scripted()
    try:
        res, log = replay(trace, "http://127.0.0.1:%d/" % srv.port,
                          "--verify", failure="did not have the docroot's")
    finally:
        srv.close()
        os.unlink(trace)
    want = {"/a": (200, 100), "/chunked": (200, 100), "/b": (200, 0),
            "/304": (304, 0), "/204": (204, 0), "/206": (206, 10),
            "/100": (200, 100), "/close": (200, 100), "/c": (200, 100),
            "/http10": (200, 100), "/d": (200, 100), "/bad": (200, 100),
            "/e": (200, 100)}
    check([t for _, _, t, _, _ in log] == paths, repr(log))
    for _, m, t, st, b in log:
        check((st, b) == want[t], "%s: %d %d, want %r" % (t, st, b, want[t]))
    check(res["mismatches"] == 1, "mismatches %d" % res["mismatches"])
    check(res["failed"] == 0 and sum(res["errors"].values()) == 0, repr(res))
    check(res["pipeline"]["groups"] == 1
          and res["pipeline"]["max_depth"] == len(paths), repr(res))
    check(res["connections"] == 3 and res["reconnects"] == 2, repr(res))
    # the server saw the group pipelined, then the unanswered rest again
    got = [[p for _, p in c] for c in srv.conns]
    check(got == [paths[:8], paths[8:10], paths[10:]], repr(got))


def test_sessions_groups_and_filters():
    """A constructed trace whose connections and groups are known: client
    A: 0, 2, 4 s (one group of 3), 10 s (a new group), 30 s (a new
    session); B: 1 s and a POST (skipped, counted) and a 404 (kept; gone
    with --only-ok)."""
    entries = [(0, "A", "GET", "/1", 200), (1, "B", "GET", "/2", 200),
               (2, "A", "GET", "/3", 200), (3, "B", "POST", "/4", 200),
               (4, "A", "GET", "/5", 200), (5, "B", "GET", "/6", 404),
               (10, "A", "GET", "/7", 200), (30, "A", "GET", "/8", 200)]
    trace = write_trace(entries)
    srv = Scripted()
    try:
        url = "http://127.0.0.1:%d/" % srv.port
        res, log = replay(trace, url)
        check(res["requests"] == 7 and res["trace"]["other_methods"] == 1,
              repr(res))
        check(res["sessions"] == 3 and res["pipeline"]["groups"] == 4
              and res["pipeline"]["max_depth"] == 3, repr(res["pipeline"]))
        # sessions numbered as they open: A=0, B=1, A again=2
        check(sorted((s, t) for s, _, t, _, _ in log) ==
              [(0, "/1"), (0, "/3"), (0, "/5"), (0, "/7"), (1, "/2"),
               (1, "/6"), (2, "/8")], repr(log))
        # one connection per session, groups written back to back
        check(sorted(len(c) for c in srv.conns) == [1, 2, 4],
              repr(srv.conns))
        res, log = replay(trace, url, "--only-ok")
        check(res["requests"] == 6 and res["trace"]["not_ok"] == 1,
              repr(res))
        res, log = replay(trace, url, "--no-pipeline")
        check(res["pipeline"]["groups"] == 7, repr(res["pipeline"]))
        res, log = replay(trace, url, "--conn-gap", "60", "--pipeline-gap",
                          "60")
        check(res["sessions"] == 2 and res["pipeline"]["groups"] == 2,
              repr(res))
    finally:
        srv.close()
        os.unlink(trace)


def test_shards_merge_and_limits():
    """--shard 0/2 and 1/2 split the sessions; merge adds them up to the
    whole run.  --requests stops at N; --loop goes round the trace."""
    recs = clf_records(open(NASA, encoding="latin-1").read().splitlines())
    with tempfile.TemporaryDirectory() as root:
        rc, _, err = run("docroot", "--root", root, NASA)
        check(rc == 0, err)
        with Server(root=root) as s:
            url = "http://127.0.0.1:%d/" % s.port
            whole, _ = replay(NASA, url, "-c", "8")
            parts = []
            with tempfile.TemporaryDirectory() as d:
                for i in range(2):
                    js = os.path.join(d, "%d.json" % i)
                    p = subprocess.run([NICREPLAY, "-q", "-c", "4", "--shard",
                                        "%d/2" % i, "--json", js, NASA, url],
                                       capture_output=True, timeout=60)
                    check(p.returncode == 0, p.stderr.decode())
                    parts.append(json.load(open(js)))
                m = os.path.join(d, "m.json")
                p = subprocess.run([NICREPLAY, "merge", os.path.join(d, "0.json"),
                                    os.path.join(d, "1.json"), "--json", m],
                                   capture_output=True, timeout=60)
                check(p.returncode == 0, p.stderr.decode())
                merged = json.load(open(m))
                # a merge that would count only some runs is refused
                b, h = os.path.join(d, "b.json"), os.path.join(d, "b.hdr")
                p = subprocess.run([NICREPLAY, "-q", "-c", "4", "--shard",
                                    "0/2", "--by-url", "3", "--hdr", h,
                                    "--json", b, NASA, url],
                                   capture_output=True, timeout=60)
                check(p.returncode == 0, p.stderr.decode())
                for args, why in (([b, os.path.join(d, "1.json")],
                                   "is in 1 of the 2 results"),
                                  ([os.path.join(d, "0.json"), h],
                                   "without --hdr FILE"),
                                  ([h, "--hdr", m], "no RESULT.json")):
                    p = subprocess.run([NICREPLAY, "merge"] + args,
                                       capture_output=True, timeout=60)
                    err = p.stderr.decode()
                    check(p.returncode == 1 and why in err
                          and err.count("\n") == 1, "%r: %r" % (args, err))
            check(parts[0]["sessions"] + parts[1]["sessions"]
                  == whole["sessions"] and 0 < parts[0]["requests"]
                  < len(recs), repr([x["sessions"] for x in parts]))
            for k in ("requests", "sessions", "content_bytes"):
                check(merged[k] == whole[k], "%s: %r != %r"
                      % (k, merged[k], whole[k]))
            check(merged["responses_by_status"] ==
                  whole["responses_by_status"], repr(merged))
            check(abs(merged["requests_per_s"] - parts[0]["requests_per_s"]
                      - parts[1]["requests_per_s"]) < 1, repr(merged))
            lat = sorted([parts[0]["latency_us"]["p50"],
                          parts[1]["latency_us"]["p50"]])
            check(lat[0] <= merged["latency_us"]["p50"] <= lat[1],
                  "merged p50 %r outside %r" % (merged["latency_us"], lat))

            res, _ = replay(NASA, url, "-c", "4", "--requests", "100")
            check(res["requests"] == 100 == res["requests_sent"], repr(res))
            res, log = replay(NASA, url, "-c", "4", "--loop", "--requests",
                              "2500")
            check(res["requests"] == 2500, repr(res))
            check(len(log) == 2500 and res["failed"] == 0, repr(res))
            # the second pass is cut into the same sessions as the first
            res, _ = replay(NASA, url, "--loop", "--requests", "2000")
            check(res["sessions"] == 2 * whole["sessions"]
                  and res["pipeline"]["groups"]
                  == 2 * whole["pipeline"]["groups"], repr(res))


def test_errors_are_counted():
    """Nothing listening: the first connection that never connects stops
    the run (--max-errors 0, the default), FAILED first with the system's
    reason, no rate, latency or fidelity over nothing answered; with
    --max-errors 100% every session is tried.  A server that never
    answers: a timeout after --timeout, shown in the progress line on
    stderr while the run goes on."""
    trace = write_trace([(0, "A", "GET", "/1", 200), (1, "A", "GET", "/2", 200),
                         (0, "B", "GET", "/3", 200)])
    try:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: refuses
        url = "http://127.0.0.1:%d/" % port
        res, log = replay(trace, url, failure="no request was answered "
                          "(connect: Connection refused 1); stopped past "
                          "--max-errors")
        check(res["errors"]["connect"] == 1 and res["connections"] == 1
              and res["requests"] == 0 and res["error_causes"]
              == [{"what": "connect", "reason": "Connection refused",
                   "count": 1}], repr(res))
        check(len(log) == res["failed"] and res["failed"] in (1, 2)
              and all(st == 0 for _, _, _, st, _ in log), repr(log))
        out = res["_stdout"]
        check(out.startswith("FAILED: no request was answered (connect: "
                             "Connection refused 1)")
              and "causes       connect: Connection refused 1" in out, out)
        for word in ("latency", "requests/s", "fidelity", "Mb/s"):
            check(word not in out, "%r over nothing answered: %s"
                  % (word, out))
        res, log = replay(trace, url, "--max-errors", "100%",
                          failure="no request was answered")
        s.close()
        check(res["errors"]["connect"] == 2 and res["failed"] == 3
              and res["connections"] == 2 and res["requests"] == 0
              and "stopped" not in res["run_failed"], repr(res))
        check([st for _, _, _, st, _ in log] == [0, 0, 0], repr(log))

        # three sessions, one user: the first times out (by 1.75 s),
        # the progress line at 2 s shows it, the second has not yet
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        trace3 = write_trace([(0, "A", "GET", "/1", 200),
                              (0, "B", "GET", "/2", 200),
                              (0, "C", "GET", "/3", 200)])
        p = subprocess.run([NICREPLAY, "--timeout", "1.5", trace3,
                            "http://127.0.0.1:%d/" % silent.getsockname()[1]],
                           capture_output=True, timeout=60)
        silent.close()
        os.unlink(trace3)
        out, err = p.stdout.decode(), p.stderr.decode()
        check(p.returncode == 1 and "timeout 3" in out
              and "causes       timeout: no byte within --timeout 3" in out
              and "failed: no request was answered" in err, out + err)
        check(re.search(r"^nicreplay: 0 requests, 0/s, 2 s(, ETA \d+ s)?, "
                        r"1 errors \(timeout: no byte within --timeout 1\)$",
                        err, re.M), "no progress line: %r" % err)
    finally:
        os.unlink(trace)


class Dying(Scripted):
    """A scripted server that, asked for /die, stops listening and closes
    the connection unanswered: a server killed mid-run."""

    def answer(self, method, path):
        if path == "/die":
            # shutdown first: a listening socket closed while another
            # thread waits in accept() would go on taking connections
            self.ls.shutdown(socket.SHUT_RDWR)
            self.ls.close()
            return b"", True
        return Scripted.answer(self, method, path)


def test_server_killed_mid_run():
    """Five answered, then the server goes: the run stops at the first
    connection refused, says FAILED first, and fidelity counts the 2xx
    that got nothing (never 100 % of the answered ones alone)."""
    entries = [(i, "c%d" % i, "GET", "/%d" % i, 200) for i in range(5)]
    entries += [(5, "c5", "GET", "/die", 200)]
    entries += [(6 + i, "d%d" % i, "GET", "/x%d" % i, 200) for i in range(5)]
    trace = write_trace(entries)
    srv = Dying()
    try:
        res, log = replay(trace, "http://127.0.0.1:%d/" % srv.port,
                          failure="could not connect, past --max-errors 0: "
                          "the run stopped there")
        check(res["requests"] == 5 and res["errors"]["connect"] == 1
              and res["failed"] == 1, repr(res))
        f = res["fidelity"]
        check(f["log_2xx"] == 6 and f["answered_2xx"] == 5
              and f["exceptions"] == {"2xx_answered_0": 1}, repr(f))
        out = res["_stdout"]
        check(out.startswith("FAILED: 1 of 7 connections could not connect")
              and "2xx answered 2xx 83.33 %" in out
              and "2xx in the log answered nothing: 1" in out
              and "connect: Connection refused 1" in out, out)
        check(len(log) == 6, repr(log))
    finally:
        srv.close()
        os.unlink(trace)


def test_usage_errors():
    for args, what in ((["x", "ftp://h/"], "only http:// and https://"),
                       (["--shard", "2/2", "x", "http://h/"], "--shard"),
                       (["-c", "0", "x", "http://h/"], "-c"),
                       (["--max-depth", "0", "x", "http://h/"],
                        "--max-depth: at least 1"),
                       (["--duration", "1x", "x", "http://h/"],
                        '--duration: "1x" is not a duration'),
                       (["x", "http://127.0.0.1:1/a"], "names the server"),
                       (["merge"], "usage")):
        p = subprocess.run([NICREPLAY] + args, capture_output=True,
                           timeout=30)
        check(p.returncode == 2 and what in p.stderr.decode(),
              "%r: %d %r" % (args, p.returncode, p.stderr.decode()))
    p = subprocess.run([NICREPLAY, "/nonexistent", "http://127.0.0.1:1/"],
                       capture_output=True, timeout=30)
    check(p.returncode == 1 and "cannot open" in p.stderr.decode(),
          p.stderr.decode())
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        f.write('{"requests": 1}')
        f.flush()
        p = subprocess.run([NICREPLAY, "merge", f.name], capture_output=True,
                           timeout=30)
        check(p.returncode == 1 and "not a nicreplay result"
              in p.stderr.decode(), p.stderr.decode())


def test_as_logged_is_the_simulated_stream():
    """--as-logged asks for what the log says was sent: the 200 and 206
    body bytes received equal what nicsim counts as content (successes of n bytes as
    their first n bytes, partial transfers included), the log's 304s come
    back as 304s, and no body byte is wrong."""
    lines = open(NASA, encoding="latin-1").read().splitlines()
    recs = clf_records(lines)
    nicsim = os.path.join(os.path.dirname(NICD), "nicsim")
    p = subprocess.run([nicsim, NASA, "--sizes", "1m", "--json", "-"],
                       capture_output=True, timeout=60)
    check(p.returncode == 0, p.stderr.decode())
    sim_content = json.loads(p.stdout)[0]["content_bytes"]
    # every 304 names an object with a file (empty when only 304s)
    logged_304 = sum(1 for r in recs if r[2] == 304)
    partial = sum(1 for r in recs if r[2] == 200 and r[3]
                  and r[3] < docroot_files(recs)[object_key(r[1])])
    with tempfile.TemporaryDirectory() as root:
        rc, _, err = run("docroot", "--root", root, NASA)
        check(rc == 0, err)
        with Server(root=root, threads=1) as s:
            url = "http://127.0.0.1:%d/" % s.port
            whole, _ = replay(NASA, url, "-c", "4", "--verify",
                              "--docroot", root)
            res, log = replay(NASA, url, "-c", "4", "--as-logged",
                              "--verify", "--docroot", root)
    check(res["mismatches"] == 0 and res["failed"] == 0,
          "as logged: %r" % res)
    # as logged, every 2xx comes back at its logged size
    check(res["fidelity"]["logged_size"] == res["fidelity"]["log_2xx"]
          == res["fidelity"]["answered_2xx"], repr(res["fidelity"]))
    # verified bytes: the bodies of 200 and 206 (error pages have bodies
    # too, which nicsim rightly does not count)
    check(res["verified_bytes"] == sim_content,
          "as logged: %d body bytes, nicsim counts %d"
          % (res["verified_bytes"], sim_content))
    check(res["responses_by_status"].get("304", 0) == logged_304,
          "as logged: %r 304s, the log has %d"
          % (res["responses_by_status"].get("304"), logged_304))
    check(partial > 0 and whole["verified_bytes"] > sim_content,
          "the sample has partial transfers (%d), so a whole-file replay "
          "sends more (%d > %d)" % (partial, whole["verified_bytes"],
                                    sim_content))


def test_several_urls_by_session():
    """With several URLs, session k goes to URL k mod n: of two servers,
    the first answers exactly the even sessions' requests and the second
    the odd ones' (as nicsim --split 2 gives connection k to cache k mod
    2)."""
    with tempfile.TemporaryDirectory() as root, \
            tempfile.TemporaryDirectory() as d:
        rc, _, err = run("docroot", "--root", root, NASA)
        check(rc == 0, err)
        with Server(root=root, threads=1) as a, \
                Server(root=root, threads=1) as b:
            urls = ["http://127.0.0.1:%d/" % a.port,
                    "http://127.0.0.1:%d/" % b.port]
            log = os.path.join(d, "r.log")
            p = subprocess.run([NICREPLAY, "-q", "-c", "8", "--log", log,
                                NASA] + urls, capture_output=True, timeout=60)
            check(p.returncode == 0, p.stderr.decode())
            a.stop()
            b.stop()
            served = [sum(1 for _ in open(s.access_log)) for s in (a, b)]
        sessions = [int(line.split(" ", 1)[0]) for line in open(log)]
    want = [sum(1 for s in sessions if s % 2 == k) for k in (0, 1)]
    check(min(want) > 0 and served == want,
          "served %r, sessions by parity %r" % (served, want))
