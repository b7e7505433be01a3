"""TLS: handshakes with TLS 1.2 and 1.3, ALPN, SNI, session resumption,
byte-exact bodies and ranges under every send backend (the nic backend
counting exactly as over plain TCP), a 64 MiB body to a slow reader, HTTP
and HTTPS on one server, clients that stop mid-handshake or send garbage,
bad certificates and keys named at start-up, new certificates on reload."""

import hashlib
import json
import os
import re
import socket
import ssl
import subprocess
import tempfile

from nicd import (BACKENDS, NICD, DEADLINE, Server, check, get, pattern,
                  wait_until)

TLS_LISTEN = "listen 127.0.0.2:0 ssl;\n"


def make_cert(d, name="cert", cn="localhost"):
    """A self-signed certificate and its key (openssl from Debian)."""
    cert, key = os.path.join(d, name + ".pem"), os.path.join(d, name + ".key")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                        "-subj", "/CN=" + cn], capture_output=True,
                       timeout=60)
    check(p.returncode == 0, "openssl req: " + p.stderr.decode())
    return cert, key


def tls_conf(cert, key, extra=""):
    return (TLS_LISTEN + "ssl_certificate %s;\nssl_certificate_key %s;\n"
            % (cert, key) + extra)


def tls_port(s):
    m = s.wait_log(r"listening on https://127\.0\.0\.2:(\d+)/")
    return int(m.group(1))


def client_ctx(version=None, alpn=None):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if version is not None:
        ctx.minimum_version = ctx.maximum_version = version
    if alpn is not None:
        ctx.set_alpn_protocols(alpn)
    return ctx


def tls_connect(port, ctx, session=None, server_hostname="localhost",
                rcvbuf=None, ragged_eof_ok=True):
    raw = socket.socket()
    if rcvbuf is not None:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    raw.settimeout(DEADLINE)
    raw.connect(("127.0.0.2", port))
    return ctx.wrap_socket(raw, server_hostname=server_hostname,
                           session=session,
                           suppress_ragged_eofs=ragged_eof_ok)


def read_response(sock, head_only=False):
    """(status, headers dict, body) of one response on sock."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        check(chunk, "closed before the head: %r" % buf)
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    n = 0 if head_only or status == 304 else \
        int(headers.get("content-length", "0"))
    while len(body) < n:
        chunk = sock.recv(65536)
        check(chunk, "closed inside a body")
        body += chunk
    check(len(body) == n, "%d bytes after the body" % (len(body) - n))
    return status, headers, body


def request(sock, path, headers=None):
    lines = ["GET %s HTTP/1.1" % path, "Host: localhost"]
    for k, v in (headers or {}).items():
        lines.append("%s: %s" % (k, v))
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return read_response(sock)


SIZES = [0, 1, 4095, 4096, 4097, 100000, 1 << 20]


def test_versions_backends_bodies_and_ranges():
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        for backend in BACKENDS:
            with Server(tls_conf(cert, key), backend=backend) as s:
                files = s.put_patterns(SIZES)
                port = tls_port(s)
                for ver, name in ((ssl.TLSVersion.TLSv1_2, "TLSv1.2"),
                                  (ssl.TLSVersion.TLSv1_3, "TLSv1.3")):
                    c = tls_connect(port, client_ctx(ver))
                    check(c.version() == name, "%s: %s" % (name, c.version()))
                    for path, data in files.items():
                        st, _, body = request(c, path)
                        check(st == 200 and body == data,
                              "%s %s %s: %d, %d bytes" % (backend, name, path,
                                                          st, len(body)))
                    data = files["/f6"]
                    for rng, want in (("bytes=5-10", data[5:11]),
                                      ("bytes=4000-70000", data[4000:70001]),
                                      ("bytes=-5000", data[-5000:])):
                        st, _, body = request(c, "/f6", {"Range": rng})
                        check(st == 206 and body == want,
                              "%s %s range %s" % (backend, name, rng))
                    c.close()
                # the same bytes over plain HTTP on the other listener
                r = get(s.port, "/f6")
                check(r.status == 200 and r.body == files["/f6"], "plain")


def test_nic_backend_counts_the_same_over_tls():
    """What the nic backend counts and models does not depend on TLS (a
    NIC with TLS offload encrypts on the card): the same requests over
    TLS and over plain TCP give the same counters."""
    keys = ("content_bytes", "saved_bytes", "crossed_bytes", "hits",
            "misses", "inserts", "insert_bytes", "header_bytes")
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        totals = []
        for over_tls in (False, True):
            with Server(tls_conf(cert, key,
                                 "location = /nic-status { nic_status; }\n"),
                        backend="nic", threads=1) as s:
                data = pattern(50000, seed=3)
                s.put("a", data)
                port = tls_port(s)
                for _ in range(3):
                    if over_tls:
                        c = tls_connect(port, client_ctx())
                        st, hdrs, body = request(c, "/a")
                        c.close()
                    else:
                        r = get(s.port, "/a")
                        st, body = r.status, r.body
                    check(st == 200 and body == data, "bytes")
                t = json.loads(get(s.port, "/nic-status").body)["total"]
                totals.append({k: t[k] for k in keys})
        plain, tls = totals
        # header bytes differ by nothing either: same responses
        check(plain == tls, "plain %r, TLS %r" % (plain, tls))
        check(plain["saved_bytes"] == 2 * 50000, repr(plain))


def test_alpn_sni_and_resumption():
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        with Server(tls_conf(cert, key,
                             "ssl_session_cache shared:SSL:1m;")) as s:
            s.put("index.html", b"hi\n")
            port = tls_port(s)
            c = tls_connect(port, client_ctx(alpn=["h2", "http/1.1"]))
            check(c.selected_alpn_protocol() == "http/1.1",
                  "ALPN: %r" % c.selected_alpn_protocol())
            check(request(c, "/")[2] == b"hi\n", "body after ALPN")
            c.close()
            # no protocol in common: refused, as nginx (no_application_protocol)
            try:
                tls_connect(port, client_ctx(alpn=["spdy/3"]))
                check(False, "a handshake without a common protocol")
            except (ssl.SSLError, ConnectionError) as e:
                check("no application protocol" in str(e).lower(), str(e))
            c = tls_connect(port, client_ctx())
            check(c.selected_alpn_protocol() is None, "no ALPN sent")
            check(request(c, "/")[2] == b"hi\n", "body without ALPN")
            c.close()
            # SNI: a name no server {} block has gets the one certificate
            c = tls_connect(port, client_ctx(), server_hostname="example.org")
            check(request(c, "/")[0] == 200, "SNI")
            c.close()
            for ver in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
                ctx = client_ctx(ver)
                c = tls_connect(port, ctx)
                request(c, "/")  # TLS 1.3 tickets arrive after the handshake
                sess = c.session
                c.close()
                c = tls_connect(port, ctx, session=sess)
                check(c.session_reused, "%s: session not resumed" % ver)
                check(request(c, "/")[2] == b"hi\n", "resumed body")
                c.close()


def test_64mib_to_a_slow_reader():
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        for backend in [b for b in BACKENDS if b != "copy"]:
            with Server(tls_conf(cert, key, "nic_cache_size 16m;"),
                        backend=backend, threads=1) as s:
                data = os.urandom(1 << 20) * 64
                s.put("big", data)
                want = hashlib.sha256(data).hexdigest()
                port = tls_port(s)
                c = tls_connect(port, client_ctx(), rcvbuf=8192)
                c.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
                buf = b""
                while b"\r\n\r\n" not in buf:
                    buf += c.recv(4096)
                head, body = buf.split(b"\r\n\r\n", 1)
                check(b"Content-Length: %d" % len(data) in head, head)
                h = hashlib.sha256(body)
                got = len(body)
                while got < len(data):
                    chunk = c.recv(4096)  # a small window, read slowly
                    check(chunk, "closed at %d" % got)
                    h.update(chunk)
                    got += len(chunk)
                check(h.hexdigest() == want, "%s: 64 MiB differ" % backend)
                c.close()


def test_pipelined_responses_to_a_slow_reader_then_close_notify():
    """Many pipelined responses of mixed sizes fill the ciphertext buffer
    (four records, sent once per flush) while the client reads slowly
    through a small window: every body arrives whole and in order, and
    after "Connection: close" the close_notify does too (an EOF without
    it raises: suppress_ragged_eofs=False)."""
    sizes = [1, 700, 4097, 16383, 16384, 16385, 70000]
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        for backend in [b for b in BACKENDS if b != "copy"]:
            with Server(tls_conf(cert, key, "nic_cache_size 16m;"),
                        backend=backend, threads=1) as s:
                files = {}
                for i, n in enumerate(sizes):
                    data = pattern(n, seed=i + 1)
                    s.put("p%d" % i, data)
                    files["/p%d" % i] = data
                order = [("/p%d" % (k % len(sizes)), None)
                         for k in range(280)]
                order += [("/p6", "bytes=100-40000"), ("/p4", "bytes=-3")]
                c = tls_connect(tls_port(s), client_ctx(), rcvbuf=4096,
                                ragged_eof_ok=False)
                reqs = []
                for i, (path, rng) in enumerate(order):
                    last = i == len(order) - 1
                    reqs.append("GET %s HTTP/1.1\r\nHost: x\r\n%s%s\r\n"
                                % (path, "Range: %s\r\n" % rng if rng else "",
                                   "Connection: close\r\n" if last else ""))
                c.sendall("".join(reqs).encode())
                buf = b""
                for i, (path, rng) in enumerate(order):
                    while b"\r\n\r\n" not in buf:
                        chunk = c.recv(4096)  # a small window, read slowly
                        check(chunk, "%s: closed before response %d"
                              % (backend, i))
                        buf += chunk
                    head, buf = buf.split(b"\r\n\r\n", 1)
                    st = int(head.split(b" ")[1])
                    n = int(re.search(rb"Content-Length: (\d+)",
                                      head).group(1))
                    while len(buf) < n:
                        chunk = c.recv(4096)
                        check(chunk, "%s: closed inside response %d"
                              % (backend, i))
                        buf += chunk
                    body, buf = buf[:n], buf[n:]
                    data = files[path]
                    if rng is None:
                        want, code = data, 200
                    elif rng.startswith("bytes=-"):
                        want, code = data[-3:], 206
                    else:
                        want, code = data[100:40001], 206
                    check(st == code and body == want,
                          "%s response %d (%s %s): %d, %d bytes"
                          % (backend, i, path, rng, st, len(body)))
                check(buf == b"" and c.recv(1) == b"",
                      "%s: bytes after the last response" % backend)
                c.close()


def test_close_notify_before_a_lingering_close():
    """An error answered over TLS while the client still sends (a request
    nicd refuses, bytes behind it): close_notify comes before the write
    side closes and nicd reads on (nginx's lingering close; its suite's
    ssl.t 19); an EOF without it raises (suppress_ragged_eofs=False)."""
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        with Server(tls_conf(cert, key, "lingering_close always;"),
                    threads=1) as s:
            c = tls_connect(tls_port(s), client_ctx(), ragged_eof_ok=False)
            c.sendall(b"GET / HTTP/1.1\r\nHost: a b\r\n\r\nextra")
            try:
                got, eof = read_all(c), None
            except ssl.SSLEOFError as e:
                got, eof = b"", e
            check(eof is None, "no close_notify before the close: %s" % eof)
            check(got.startswith(b"HTTP/1.1 400"), "answer: %r" % got[:60])
            check(get(s.port, "/").status in (200, 403, 404),
                  "the server serves on")


def test_bad_clients_do_not_stop_the_server():
    """Clear text instead of a ClientHello (nginx's 400), garbage in a
    handshake record, and a client that stops in the middle of its
    handshake: each is answered or closed, and logged; others are served
    meanwhile."""
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        with Server(tls_conf(cert, key, "client_header_timeout 1s;")) as s:
            s.put("index.html", b"ok\n")
            port = tls_port(s)
            # clear text to the TLS port: nginx's 400, in clear text
            g = socket.create_connection(("127.0.0.2", port), DEADLINE)
            g.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            rest = read_all(g)
            check(rest.startswith(b"HTTP/1.1 400 ") and
                  b"The plain HTTP request was sent to HTTPS port" in rest
                  and b"ok\n" not in rest, rest)
            s.wait_log(r"plain HTTP request to HTTPS port")
            # a record that says handshake and is garbage: closed, logged
            g = socket.create_connection(("127.0.0.2", port), DEADLINE)
            g.sendall(b"\x16\x03\x01\x00\x05garbage-garbage\r\n\r\n")
            check(b"HTTP/1.1" not in read_all(g), "answered garbage")
            s.wait_log(r"SSL_do_handshake\(\) failed")
            # a ClientHello cut after its first bytes
            h = socket.create_connection(("127.0.0.2", port), DEADLINE)
            h.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
            c = tls_connect(port, client_ctx())
            check(request(c, "/")[2] == b"ok\n", "served meanwhile")
            c.close()
            check(h.recv(4096) == b"", "the stalled handshake was closed")
            h.close()
            c = tls_connect(port, client_ctx())
            check(request(c, "/")[2] == b"ok\n", "served afterwards")
            c.close()


def read_all(sock):
    """What sock gets until its end (a reset ends it too)."""
    rest = b""
    while True:
        try:
            chunk = sock.recv(4096)
        except ConnectionResetError:
            break
        if not chunk:
            break
        rest += chunk
    sock.close()
    return rest


def test_bad_certificates_are_named():
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d)
        cert2, key2 = make_cert(d, "other")
        junk = os.path.join(d, "junk.pem")
        with open(junk, "w") as f:
            f.write("not a certificate\n")
        cases = [(tls_conf(junk, key), "junk.pem"),
                 (tls_conf(cert, junk), "junk.pem"),
                 (tls_conf(cert, key2), "other.key"),
                 (tls_conf(os.path.join(d, "missing.pem"), key),
                  "missing.pem"),
                 (TLS_LISTEN, "no \"ssl_certificate\" is defined")]
        for conf, want in cases:
            s = Server(conf)
            p = subprocess.run([NICD, "-t", "-c", s.conf_path],
                               capture_output=True, timeout=DEADLINE)
            err = p.stderr.decode()
            check(p.returncode == 1 and want in err and "test failed" in err,
                  "%r: exit %d, %s" % (want, p.returncode, err))
            s.cleanup()


def der_of(cert):
    with open(cert) as f:
        return ssl.PEM_cert_to_DER_cert(f.read())


def sni_conf(certs, listen=TLS_LISTEN.replace(" ssl;", " ssl http2;")):
    """server {} blocks, each (names, (cert, key)), after one ssl listen"""
    out = listen
    for names, (cert, key) in certs:
        out += ("server {\n  server_name %s;\n  ssl_certificate %s;\n"
                "  ssl_certificate_key %s;\n}\n" % (names, cert, key))
    return out


def test_sni_chooses_the_server_certificate():
    """Several certificates by SNI: each server {} block presents its own
    to a client naming it (exact, *.leading, .both, trailing.* and ~regex
    names, any case); a client naming none, or sending no SNI, gets the first block's;
    ALPN still answers after the switch; a reload reads the new files; a
    block's bad certificate is named by nicd -t."""
    with tempfile.TemporaryDirectory() as d:
        a = make_cert(d, "a", cn="a.test")
        b = make_cert(d, "b", cn="b.test")
        w = make_cert(d, "w", cn="wild")
        t = make_cert(d, "t", cn="trailing")
        conf = sni_conf([("a.test", a), ("b.test;\n  server_name www.b.test", b),
                         ("*.w.test .dot.test", w), ("www.t.*", t),
                         ("~^re[0-9]+\\.t\\.org$", b)])
        with Server(conf) as s:
            s.put("index.html", b"sni\n")
            port = tls_port(s)

            def presented(host, alpn=None):
                c = tls_connect(port, client_ctx(alpn=alpn),
                                server_hostname=host)
                der = c.getpeercert(binary_form=True)
                proto = c.selected_alpn_protocol()
                if proto != "h2":
                    check(request(c, "/")[2] == b"sni\n", "body for %s" % host)
                c.close()
                return der, proto

            cases = [("a.test", a), ("A.Test", a), ("b.test", b),
                     ("www.b.test", b), ("x.w.test", w), ("x.y.w.test", w),
                     ("dot.test", w), ("q.dot.test", w), ("www.t.org", t),
                     ("re42.t.org", b), ("rex.t.org", a),
                     ("w.test", a), ("unknown.test", a), (None, a)]
            for host, (cert, _) in cases:
                check(presented(host)[0] == der_of(cert),
                      "%s: not the certificate of %s" % (host, cert))
            der, proto = presented("b.test", ["h2", "http/1.1"])
            check(der == der_of(b[0]) and proto == "h2",
                  "ALPN after the switch: %r" % proto)
            # a reload reads b's files again
            b2 = make_cert(d, "b2", cn="b.test")
            os.replace(b2[0], b[0])
            os.replace(b2[1], b[1])
            s.reload()
            wait_until(lambda: presented("b.test")[0] == der_of(b[0]),
                       "b.test's new certificate after a reload")
            check(presented("a.test")[0] == der_of(a[0]), "a.test kept")

        # an http-level certificate is the default and inherited by blocks
        # without one of their own
        conf = (TLS_LISTEN + "ssl_certificate %s;\nssl_certificate_key %s;\n"
                % w + "server { server_name a.test; ssl_certificate %s; "
                "ssl_certificate_key %s; }\nserver { server_name b.test; }\n"
                % a)
        with Server(conf) as s:
            port = tls_port(s)
            for host, cert in (("a.test", a), ("b.test", w), (None, w)):
                c = tls_connect(port, client_ctx(), server_hostname=host)
                got = c.getpeercert(binary_form=True)
                c.close()
                check(got == der_of(cert[0]), "%s: %s" % (host, cert[0]))

        junk = os.path.join(d, "junk.pem")
        with open(junk, "w") as f:
            f.write("not a certificate\n")
        for conf, want in (
                (sni_conf([("a.test", a), ("b.test", (junk, b[1]))]),
                 "junk.pem"),
                (sni_conf([("a.test", a)]) + "server { server_name c.test; "
                 "ssl_certificate %s; }\n" % b[0],
                 "no \"ssl_certificate_key\" is defined for certificate")):
            s = Server(conf)
            p = subprocess.run([NICD, "-t", "-c", s.conf_path],
                               capture_output=True, timeout=DEADLINE)
            err = p.stderr.decode()
            check(p.returncode == 1 and want in err,
                  "%r: exit %d, %s" % (want, p.returncode, err))
            s.cleanup()


def test_reload_takes_new_certificates():
    def serial(port):
        c = tls_connect(port, client_ctx())
        der = c.getpeercert(binary_form=True)
        c.close()
        return hashlib.sha256(der).hexdigest()

    with tempfile.TemporaryDirectory() as d:
        cert, key = make_cert(d, cn="first")
        with Server(tls_conf(cert, key)) as s:
            port = tls_port(s)
            before = serial(port)
            cert2, key2 = make_cert(d, "second", cn="second")
            os.replace(cert2, cert)
            os.replace(key2, key)
            s.reload()
            wait_until(lambda: serial(port) != before,
                       "the new certificate after a reload")


MOZILLA_SERVER = """
  ssl_session_timeout 1d;
  ssl_session_cache shared:MozSSL:10m;
  ssl_session_tickets off;
  ssl_protocols %s;
  ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384;
  ssl_prefer_server_ciphers off;
  ssl_ecdh_curve X25519:prime256v1:secp384r1;
  ssl_stapling on;
  ssl_stapling_verify on;
  ssl_trusted_certificate %s;
  resolver 127.0.0.1;
  add_header Strict-Transport-Security "max-age=63072000" always;
"""


def test_mozilla_settings_in_a_server_block():
    """The lines Mozilla's generator writes into server {} are that
    server's: its protocols hold (TLS 1.3 only refuses a TLS 1.2 client),
    its session cache resumes, tickets off; another server keeps the http
    level's."""
    with tempfile.TemporaryDirectory() as d:
        a = make_cert(d, "a", cn="a.test")
        conf = (TLS_LISTEN + "server {\n  server_name a.test;\n"
                "  ssl_certificate %s;\n  ssl_certificate_key %s;\n%s}\n"
                % (a[0], a[1], MOZILLA_SERVER % ("TLSv1.3", a[0])))
        with Server(conf) as s:
            s.put("index.html", b"moz\n")
            port = tls_port(s)
            c = tls_connect(port, client_ctx(ssl.TLSVersion.TLSv1_3),
                            server_hostname="a.test")
            check(request(c, "/")[2] == b"moz\n", "TLS 1.3 refused")
            c.close()
            try:
                tls_connect(port, client_ctx(ssl.TLSVersion.TLSv1_2),
                            server_hostname="a.test")
                check(False, "TLS 1.2 taken by a TLS 1.3-only server")
            except (ssl.SSLError, ConnectionError):
                pass
        # with TLS 1.2, the session resumes from the server's own cache
        conf = conf.replace("ssl_protocols TLSv1.3;",
                            "ssl_protocols TLSv1.2;")
        with Server(conf) as s:
            s.put("index.html", b"moz\n")
            port = tls_port(s)
            ctx = client_ctx(ssl.TLSVersion.TLSv1_2)
            c = tls_connect(port, ctx, server_hostname="a.test")
            request(c, "/")
            sess = c.session
            c.close()
            check(sess is not None and not sess.has_ticket,
                  "a ticket was issued with ssl_session_tickets off")
            c = tls_connect(port, ctx, session=sess, server_hostname="a.test")
            check(c.session_reused, "the session cache did not resume")
            c.close()
    rc = subprocess.run([NICD, "-t", "-g", "ssl_protocols TLSv9;"],
                        capture_output=True, text=True, timeout=20)
    check(rc.returncode == 1 and "TLSv9" in rc.stderr, rc.stderr)


def test_ecdh_curve_is_the_servers_and_told_in_ssl_curve():
    """ssl_ecdh_curve (nginx's): the groups a server offers for the key
    exchange; $ssl_curve names the one chosen; a group OpenSSL does not
    know fails -t naming it, as does an unreadable ssl_trusted_certificate."""
    with tempfile.TemporaryDirectory() as d:
        a = make_cert(d, "a", cn="a.test")
        for curves, want in (("secp384r1", "secp384r1"),
                             ("prime256v1", "prime256v1"),
                             ("auto", None)):
            conf = (TLS_LISTEN + "ssl_certificate %s;\nssl_certificate_key %s;\n"
                    "ssl_ecdh_curve %s;\nlocation = /c { return 200 "
                    "\"[$ssl_curve]$ssl_curves\"; }\n" % (a[0], a[1], curves))
            with Server(conf) as s:
                c = tls_connect(tls_port(s), client_ctx(ssl.TLSVersion.TLSv1_3),
                                server_hostname="a.test")
                body, offered = request(c, "/c")[2].decode().split("]")
                c.close()
                check(body == "[%s" % want if want else
                      body not in ("[", "[secp384r1"), curves + ": " + body)
                # $ssl_curves: what the client offered (Python's OpenSSL
                # offers both of these)
                check({"prime256v1", "secp384r1"} <= set(offered.split(":")),
                      "offered: " + offered)
        for line, what in (("ssl_ecdh_curve nosuchcurve;", "nosuchcurve"),
                           ("ssl_trusted_certificate %s/none.pem;" % d,
                            "none.pem")):
            conf = os.path.join(d, "bad.conf")
            with open(conf, "w") as f:
                f.write("listen 127.0.0.1:0 ssl;\nssl_certificate %s;\n"
                        "ssl_certificate_key %s;\n%s\n" % (a[0], a[1], line))
            rc = subprocess.run([NICD, "-t", "-c", conf], capture_output=True,
                                text=True, timeout=20)
            check(rc.returncode == 1 and what in rc.stderr, rc.stderr)


def make_ec_cert(d, name, cn):
    """A self-signed ECDSA (P-256) certificate and its key."""
    cert, key = os.path.join(d, name + ".pem"), os.path.join(d, name + ".key")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", key, "-out", cert, "-days", "2",
                        "-subj", "/CN=" + cn], capture_output=True,
                       timeout=60)
    check(p.returncode == 0, p.stderr)
    return cert, key


def test_reject_handshake_and_two_certificates_per_server():
    """ssl_reject_handshake: the default server refuses a client naming no
    server (or none there) with unrecognized_name, a named server with it
    off answers; several ssl_certificate lines in one server (ECDSA and
    RSA): a client that takes only one kind gets it."""
    with tempfile.TemporaryDirectory() as d:
        rsa = make_cert(d, "rsa", cn="a.test")
        ec = make_ec_cert(d, "ec", cn="a.test")
        conf = (TLS_LISTEN + "ssl_reject_handshake on;\n"
                "server {\n  server_name a.test;\n"
                "  ssl_reject_handshake off;\n"
                "  ssl_certificate %s;\n  ssl_certificate_key %s;\n"
                "  ssl_certificate %s;\n  ssl_certificate_key %s;\n}\n"
                % (ec[0], ec[1], rsa[0], rsa[1]))
        with Server(conf) as s:
            s.put("index.html", b"a\n")
            port = tls_port(s)
            for host in (None, "other.test"):
                try:
                    tls_connect(port, client_ctx(), server_hostname=host)
                    check(False, "%s: a handshake the default refuses" % host)
                except (ssl.SSLError, ConnectionError) as e:
                    check("unrecognized name" in str(e).lower(), str(e))
            for ciphers, cert in (("ECDHE-ECDSA-AES128-GCM-SHA256", ec[0]),
                                  ("ECDHE-RSA-AES128-GCM-SHA256", rsa[0])):
                ctx = client_ctx(ssl.TLSVersion.TLSv1_2)
                ctx.set_ciphers(ciphers)
                c = tls_connect(port, ctx, server_hostname="a.test")
                check(c.getpeercert(binary_form=True) == der_of(cert),
                      "%s: not %s" % (ciphers, cert))
                check(request(c, "/")[2] == b"a\n", "served")
                c.close()
            check(s.alive(), "serving on")
        # a key short of its certificates is named
        bad = conf.replace("  ssl_certificate_key %s;\n}" % rsa[1], "}")
        with open(os.path.join(d, "bad.conf"), "w") as f:
            f.write(bad + "error_log stderr;\n")
        p = subprocess.run([NICD, "-t", "-c", os.path.join(d, "bad.conf")],
                           capture_output=True, timeout=60)
        check(p.returncode == 1 and b'no "ssl_certificate_key"' in p.stderr,
              p.stderr)


def test_password_file_opens_an_encrypted_key():
    """ssl_password_file: its lines are tried in turn on an encrypted key;
    without it the key is refused, naming it (never a prompt)."""
    with tempfile.TemporaryDirectory() as d:
        key, cert = os.path.join(d, "enc.key"), os.path.join(d, "enc.pem")
        for cmd in (["openssl", "genrsa", "-aes128", "-passout",
                     "pass:s3cret", "-out", key, "2048"],
                    ["openssl", "req", "-x509", "-new", "-key", key,
                     "-passin", "pass:s3cret", "-subj", "/CN=enc",
                     "-days", "2", "-out", cert]):
            p = subprocess.run(cmd, capture_output=True, timeout=60)
            check(p.returncode == 0, p.stderr)
        pw = os.path.join(d, "passwords")
        with open(pw, "w") as f:
            f.write("wrong\nalso wrong\ns3cret\n")
        with Server(tls_conf(cert, key, "ssl_password_file %s;\n" % pw)) as s:
            s.put("index.html", b"enc\n")
            c = tls_connect(tls_port(s), client_ctx())
            check(request(c, "/")[2] == b"enc\n", "served")
            c.close()
        bad = os.path.join(d, "bad.conf")
        with open(bad, "w") as f:
            f.write(tls_conf(cert, key) + "error_log stderr;\n")
        p = subprocess.run([NICD, "-t", "-c", bad], capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=60)
        check(p.returncode == 1 and b"cannot load certificate key" in p.stderr
              and key.encode() in p.stderr, p.stderr)


def make_ca_and_client(d):
    """A CA, a client certificate it signs (CN=client) and a self-signed
    one (CN=stranger): their files."""
    ca, ca_key = make_cert(d, "ca", cn="Test CA")
    key, csr, cert = (os.path.join(d, "client" + x)
                      for x in (".key", ".csr", ".pem"))
    for cmd in (["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes",
                 "-keyout", key, "-out", csr, "-subj", "/O=nicd/CN=client"],
                ["openssl", "x509", "-req", "-in", csr, "-CA", ca,
                 "-CAkey", ca_key, "-CAcreateserial", "-days", "2",
                 "-out", cert]):
        p = subprocess.run(cmd, capture_output=True, timeout=60)
        check(p.returncode == 0, p.stderr)
    return ca, (cert, key), make_cert(d, "stranger", cn="stranger")


def test_client_certificates():
    """ssl_verify_client on, optional and optional_no_ca with
    ssl_client_certificate: a request without a required certificate is
    400 (nginx's 496), with one that does not verify 400 (495); the
    $ssl_client_* variables say what came."""
    import hashlib
    with tempfile.TemporaryDirectory() as d:
        server = make_cert(d, "server", cn="localhost")
        ca, client, stranger = make_ca_and_client(d)
        show = ('return 200 "$ssl_client_verify|$ssl_client_s_dn|'
                '$ssl_client_i_dn_legacy|$ssl_client_fingerprint|'
                '$ssl_client_v_remain|$ssl_client_serial";')
        conf = (tls_conf(*server) + "ssl_client_certificate %s;\n" % ca
                + "ssl_verify_client %s;\nlocation / { " + show + " }\n"
                + 'location /esc { return 200 "$ssl_client_escaped_cert"; }\n')

        def ask(port, cert, path="/"):
            ctx = client_ctx()
            if cert is not None:
                ctx.load_cert_chain(*cert)
            c = tls_connect(port, ctx)
            status, _, body = request(c, path)
            c.close()
            return status, body.decode()

        with Server(conf % "on") as s:
            port = tls_port(s)
            status, body = ask(port, client)
            fields = body.split("|")
            with open(client[0]) as f:
                der = ssl.PEM_cert_to_DER_cert(f.read())
            check(status == 200 and fields[0] == "SUCCESS"
                  and fields[1] == "CN=client,O=nicd"
                  and fields[2] == "/CN=Test CA"
                  and fields[3] == hashlib.sha1(der).hexdigest()
                  and fields[4] in ("1", "2") and fields[5] != "",
                  "verified: %d %r" % (status, body))
            # the PEM percent-encoded as a URI component, as nginx's
            from urllib.parse import quote
            with open(client[0]) as f:
                pem = f.read()
            status, body = ask(port, client, "/esc")
            check(status == 200 and body == quote(pem, safe=""),
                  "escaped_cert: %r" % body[:80])
            status, body = ask(port, None)
            check(status == 400 and "No required SSL certificate" in body,
                  "none: %d %r" % (status, body))
            status, body = ask(port, stranger)
            check(status == 400 and "The SSL certificate error" in body,
                  "a stranger: %d %r" % (status, body))
            s.wait_log(r"client SSL certificate verify error")
        with Server(conf % "optional") as s:
            status, body = ask(tls_port(s), None)
            check(status == 200 and body.startswith("NONE|"), body)
        with Server(conf % "optional_no_ca") as s:
            status, body = ask(tls_port(s), stranger)
            check(status == 200 and body.startswith("FAILED:"), body)
        # the client's certificate revoked: ssl_crl refuses it
        cnf = os.path.join(d, "ca.cnf")
        with open(cnf, "w") as f:
            f.write("[ca]\ndefault_ca = c\n[c]\ndatabase = %s/index.txt\n"
                    "crlnumber = %s/crlnumber\ndefault_md = sha256\n"
                    "default_crl_days = 2\n" % (d, d))
        open(os.path.join(d, "index.txt"), "w").close()
        with open(os.path.join(d, "crlnumber"), "w") as f:
            f.write("01\n")
        crl = os.path.join(d, "crl.pem")
        for args in (["-revoke", client[0]], ["-gencrl", "-out", crl]):
            p = subprocess.run(["openssl", "ca", "-config", cnf, "-cert", ca,
                                "-keyfile", os.path.join(d, "ca.key")] + args,
                               capture_output=True, timeout=60)
            check(p.returncode == 0, p.stderr)
        with Server(conf % "on" + "ssl_crl %s;\n" % crl) as s:
            status, body = ask(tls_port(s), client)
            check(status == 400 and "The SSL certificate error" in body,
                  "revoked: %d %r" % (status, body))
            s.wait_log(r"verify error: \(23:certificate revoked\)")


def test_certificate_names_with_variables():
    """ssl_certificate $ssl_server_name.pem: the certificate is loaded at
    each handshake from the name the client sent; a name with no file
    fails that handshake (logged), the others go on."""
    with tempfile.TemporaryDirectory() as d:
        for host in ("a.test", "b.test"):
            make_cert(d, host, cn=host)
        conf = (TLS_LISTEN + "ssl_certificate %s/$ssl_server_name.pem;\n"
                "ssl_certificate_key %s/$ssl_server_name.key;\n" % (d, d))
        with Server(conf) as s:
            s.put("index.html", b"dyn\n")
            port = tls_port(s)
            for host in ("a.test", "b.test", "a.test"):
                c = tls_connect(port, client_ctx(), server_hostname=host)
                check(c.getpeercert(binary_form=True)
                      == der_of(os.path.join(d, host + ".pem")), host)
                check(request(c, "/")[2] == b"dyn\n", "served")
                c.close()
            try:
                tls_connect(port, client_ctx(), server_hostname="c.test")
                check(False, "a handshake without a certificate")
            except (ssl.SSLError, ConnectionError):
                pass
            s.wait_log(r'cannot load certificate ".*/c\.test\.pem"')
            check(s.alive(), "serving on")
