"""Access log: nginx's combined format, escaping, buffering, off."""

import os
import re
import shutil
import subprocess
import tempfile
import zlib

from nicd import (DEADLINE, NICD, Server, Skip, check, get, raw,
                  wait_until)

COMBINED = re.compile(
    r'^(\S+) - - \[(\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\] '
    r'"(.*?)" (\d{3}) (\d+) "(.*?)" "(.*?)"$')


def lines(path):
    if not os.path.exists(path):
        return []
    return open(path, "rb").read().decode("latin-1").splitlines()


def test_combined_format():
    # one worker: each thread buffers its own lines, so only one thread's
    # lines are in request order
    with Server(threads=1) as s:
        s.put("a.txt", b"0123456789")
        get(s.port, "/a.txt", headers={"Referer": "http://r/",
                                       "User-Agent": 'say "hi"\\'})
        get(s.port, "/a.txt", headers={"Range": "bytes=2-4"})
        get(s.port, "/nope")
        raw(s.port, b"BAD\r\n\r\n")
        ls = wait_until(lambda: len(lines(s.access_log)) >= 4 and
                        lines(s.access_log), "4 access log lines")
        m = [COMBINED.match(line) for line in ls]
        check(all(m), "not combined format: %r" % ls)
        check(m[0].group(1) == "127.0.0.1", ls[0])
        check(m[0].group(3) == "GET /a.txt HTTP/1.1", ls[0])
        check((m[0].group(4), m[0].group(5)) == ("200", "10"), ls[0])
        check(m[0].group(6) == "http://r/", ls[0])
        check(m[0].group(7) == r'say \x22hi\x22\x5C', ls[0])
        check((m[1].group(4), m[1].group(5)) == ("206", "3"), ls[1])
        check(m[2].group(4) == "404", ls[2])
        check(m[3].group(4) == "400" and m[3].group(3) == "-", ls[3])


def test_bytes_sent_of_an_aborted_response():
    with Server() as s:
        s.put("big", b"x" * (64 << 20))
        c = s.connect()
        c.send(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        c.sock.recv(1000)
        c.close()   # abort mid-body
        ls = wait_until(lambda: lines(s.access_log), "a log line")
        m = COMBINED.match(ls[0])
        check(m and m.group(4) == "200", ls[0])
        check(0 < int(m.group(5)) < (64 << 20),
              "logged %s bytes of an aborted 64 MiB response" % m.group(5))


def test_bytes_sent_counts_the_head_and_the_body():
    """$bytes_sent is every byte of the response, head and body (nginx's
    c->sent), $body_bytes_sent the body's: as the client received them,
    for a file, a chunked SSI page and an error page."""
    conf = ("log_format b '$request_uri $status $body_bytes_sent "
            "$bytes_sent'; access_log %s b; ssi on;")
    s = Server(threads=1)
    s.write_conf(conf % os.path.join(s.dir, "b.log"))
    with s:
        s.put("a.txt", b"0123456789" * 7)
        s.put("p.html", b'x<!--# echo var="uri" -->y')
        got = {}
        for path in ("/a.txt", "/p.html", "/missing"):
            got[path] = raw(s.port, b"GET %s HTTP/1.1\r\nHost: x\r\n"
                            b"Connection: close\r\n\r\n" % path.encode())
        log = os.path.join(s.dir, "b.log")
        ls = wait_until(lambda: len(lines(log)) >= 3 and lines(log),
                        "3 log lines")
        for line in ls:
            path, status, body, total = line.split()
            data = got[path]
            head = data.index(b"\r\n\r\n") + 4
            check(int(total) == len(data), "%s: $bytes_sent %s, the client "
                  "got %d" % (path, total, len(data)))
            if path == "/a.txt":
                check(int(body) == 70 == len(data) - head, line)


def test_access_log_off():
    with Server(access_log=False, conf="access_log off;") as s:
        s.put("a", b"a")
        check(get(s.port, "/a").status == 200, "served")
    check(not os.path.exists(s.access_log), "log written with access_log off")


def test_sent_http_and_registry_variables_over_http11_and_http2():
    """$sent_http_NAME in a log_format is the field the response sent,
    over HTTP/1.1 and over HTTP/2 (whose line is made when the stream
    closes), and in add_header it reads the fields sent before it; any
    other variable of the registry is logged too, a map defined after the
    log_format included (issue 40, item 5)."""
    if shutil.which("nghttp") is None:
        raise Skip("nghttp (nghttp2-client) is not installed")
    conf = """
        log_format sent '$status $sent_http_content_type '
                        '$sent_http_content_length "$sent_http_x_echo" '
                        '"$cookie_k" $arg_x $mapped';
        map $arg_x $mapped { 7 seven; default other; }
        access_log %s sent;
        location / { add_header X-Echo "t=$sent_http_content_type"; }
    """
    want = '200 text/plain 10 "t=text/plain" "v" 7 seven'
    with Server(threads=1, access_log=False) as s:
        s.reload(conf % s.access_log)
        s.put("a.txt", b"0123456789")
        r = get(s.port, "/a.txt?x=7", headers={"Cookie": "j=1; k=v"})
        check(r.status == 200 and r.header("x-echo") == "t=text/plain",
              "add_header: %r" % r.headers)
        ls = wait_until(lambda: lines(s.access_log), "a log line")
        check(ls == [want], "logged over HTTP/1.1: %r" % ls)
    with Server(threads=1, listen="http2", access_log=False) as s:
        s.reload(conf % s.access_log)
        s.put("a.txt", b"0123456789")
        # two streams of one connection: each line has its own request's
        # values (the second's were computed last)
        p = subprocess.run(["nghttp", "-H", "cookie: j=1; k=v",
                            "http://127.0.0.1:%d/a.txt?x=7" % s.port,
                            "http://127.0.0.1:%d/a.txt?x=8" % s.port],
                           capture_output=True, timeout=30)
        check(p.returncode == 0 and p.stdout == b"0123456789" * 2,
              "over HTTP/2: %r" % p.stderr)
        ls = wait_until(lambda: len(lines(s.access_log)) >= 2
                        and lines(s.access_log), "2 log lines")
        check(sorted(ls) == [want, want.replace("7 seven", "8 other")],
              "logged over HTTP/2: %r" % ls)


def test_request_id_one_a_request():
    """$request_id (nginx's): 32 hexadecimal digits, random, the same in
    a request's header, body and log line, another for the next request,
    over HTTP/1.1 (pipelined) and HTTP/2 (two streams, logged when they
    close)."""
    if shutil.which("nghttp") is None:
        raise Skip("nghttp (nghttp2-client) is not installed")
    conf = """
        log_format id '$request_id $uri';
        access_log %s id;
        add_header X-Id $request_id;
        location / { return 200 "$request_id"; }
    """
    hexid = re.compile(r"^[0-9a-f]{32}$")
    for listen in ("", "http2"):
        with Server(threads=1, listen=listen, access_log=False) as s:
            s.reload(conf % s.access_log)
            seen = []
            if listen:
                p = subprocess.run(["nghttp", "-v",
                                    "http://127.0.0.1:%d/a" % s.port,
                                    "http://127.0.0.1:%d/b" % s.port],
                                   capture_output=True, timeout=30)
                out = p.stdout.decode()
                check(p.returncode == 0, p.stderr)
                seen = re.findall(r"x-id: ([0-9a-f]+)", out)
                check(len(seen) == 2, out)
            else:
                got = raw(s.port, b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                          b"GET /b HTTP/1.1\r\nHost: x\r\n"
                          b"Connection: close\r\n\r\n")
                pairs = re.findall(rb"X-Id: ([0-9a-f]+)\r\n.*?\r\n\r\n"
                                   rb"([0-9a-f]{32})", got, re.S)
                check(len(pairs) == 2 and all(h == b for h, b in pairs),
                      "header and body: %r" % got)
                seen = [h.decode() for h, _ in pairs]
            check(all(hexid.match(i) for i in seen) and seen[0] != seen[1],
                  "two ids: %r" % seen)
            ls = wait_until(lambda: len(lines(s.access_log)) >= 2
                            and lines(s.access_log), "2 log lines")
            # (HTTP/2's streams may answer in either order)
            want = (["%s /a" % seen[0], "%s /b" % seen[1]] if not listen
                    else ls)
            check(sorted(ls) == sorted(want)
                  and sorted(x.split()[0] for x in ls) == sorted(seen)
                  and sorted(x.split()[1] for x in ls) == ["/a", "/b"],
                  "logged %r, sent %r" % (ls, seen))


def gunzip_members(data):
    """the text of a file of concatenated gzip members (zcat's view)"""
    out = b""
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out += d.decompress(data)
        check(d.eof, "a gzip member cut short")
        data = d.unused_data
    return out


def test_gzip_log_is_members_zcat_reads():
    """access_log ... gzip (nginx's): each flush is one gzip member of the
    level asked, the file whole is what zcat reads; a plain log beside it
    stays plain; a bad level fails -t."""
    d = tempfile.mkdtemp(prefix="nicd-gzlog-")
    with Server(threads=1, conf="""
log_format short "$uri:$status";
location /z/ {
    access_log %s/z.log short gzip=9 flush=50ms;
    access_log %s/plain.log short;
    return 200 "ok";
}
""" % (d, d)) as s:
        for i in range(3):
            check(get(s.port, "/z/%d" % i).status == 200, "served")
        zpath = os.path.join(d, "z.log")
        wait_until(lambda: os.path.exists(zpath)
                   and os.path.getsize(zpath) > 0, "the flush")
        first = open(zpath, "rb").read()
        check(first[:2] == b"\x1f\x8b", "not gzip: %r" % first[:10])
        check(get(s.port, "/z/3").status == 200, "served")
    text = gunzip_members(open(zpath, "rb").read()).decode()
    check(text == "".join("/z/%d:200\n" % i for i in range(4)),
          "decompressed %r" % text)
    check(open(os.path.join(d, "plain.log")).read()
          == "".join("/z/%d:200\n" % i for i in range(4)), "plain log")
    bad = os.path.join(d, "bad.conf")
    with open(bad, "w") as f:
        f.write("root %s;\naccess_log %s/x.log combined gzip=0;\n" % (d, d))
    p = subprocess.run([NICD, "-t", "-c", bad], capture_output=True,
                       timeout=DEADLINE)
    check(p.returncode == 1 and b'invalid compression level "0"' in p.stderr
          and b"bad.conf:2" in p.stderr, p.stderr.decode())
    shutil.rmtree(d)


def test_paths_with_variables_and_the_log_file_cache():
    """access_log with variables in its path (nginx's): each line goes to
    the file its request names, opened for it; open_log_file_cache keeps
    a file open once it has been written min_uses times (a file kept open
    still takes lines after its directory is renamed away, one that is
    not does not), the least recently written leaving first when the
    cache is full.  Buffered logs cannot have variables in their names."""
    d = tempfile.mkdtemp(prefix="nicd-varlog-")
    os.mkdir(os.path.join(d, "dir"))
    conf = """
log_format short "$uri:$status";
location /v { access_log %(d)s/v_$arg_n.log short; return 200; }
location /c {
    open_log_file_cache max=3 inactive=20s valid=1m min_uses=2;
    access_log %(d)s/dir/c_$arg_n short;
    return 200;
}
""" % {"d": d}
    try:
        with Server(conf=conf, threads=1) as s:
            for n in ("a", "b", "a", ""):
                check(get(s.port, "/v?n=" + n).status == 200, n)
            wait_until(lambda: len(lines(d + "/v_a.log")) == 2,
                       "two lines in v_a.log")
            check(lines(d + "/v_b.log") == ["/v:200"]
                  and lines(d + "/v_.log") == ["/v:200"],
                  "%r" % os.listdir(d))
            for n in ("lru", "lru", "once", "first", "first", "second",
                      "second"):
                get(s.port, "/c?n=" + n)
            os.rename(d + "/dir", d + "/moved")
            for n in ("lru", "once", "first", "second"):
                get(s.port, "/c?n=" + n)
            s.wait_log(r"write to the access log .*c_lru.* failed")
        want = {"c_lru": 2, "c_once": 1, "c_first": 3, "c_second": 3}
        got = {k: len(lines(os.path.join(d, "moved", k))) for k in want}
        check(got == want, "lines in each file: %r" % got)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    for bad in ("access_log /tmp/x_$uri buffer=32k;",
                "access_log /tmp/x_$uri gzip;"):
        p = subprocess.run([NICD, "-t", "-c", "/dev/stdin"],
                           input=bad.encode(), capture_output=True,
                           timeout=DEADLINE)
        check(p.returncode == 1 and b"buffered logs cannot have variables "
              b"in name" in p.stderr, p.stderr)


def test_real_ip_logged_over_both_protocols():
    """set_real_ip_from (realip): the access log, allow/deny and the error
    lines of a request from a trusted proxy carry the address its
    X-Forwarded-For names, over HTTP/1.1 and over HTTP/2 (each stream its
    own, logged when it closes); an untrusted peer's header is ignored."""
    if shutil.which("nghttp") is None:
        raise Skip("nghttp (nghttp2-client) is not installed")
    conf = """
        log_format a '$remote_addr $realip_remote_addr $uri $status';
        access_log %s a;
        set_real_ip_from 127.0.0.1;
        real_ip_header X-Forwarded-For;
        location /in/ { deny 192.0.2.66; }
    """
    for listen in ("", "http2"):
        with Server(threads=1, listen=listen, access_log=False) as s:
            s.reload(conf % s.access_log)
            s.put("in/x", b"x")
            want = ["192.0.2.5 127.0.0.1 /in/x 200",
                    "192.0.2.66 127.0.0.1 /in/x 403"]
            if listen:
                for ip in ("192.0.2.5", "192.0.2.66"):
                    p = subprocess.run(
                        ["nghttp", "-H", "x-forwarded-for: 10.9.9.9, " + ip,
                         "http://127.0.0.1:%d/in/x" % s.port],
                        capture_output=True, timeout=30)
                    check(p.returncode == 0, p.stderr)
            else:
                for ip in ("192.0.2.5", "192.0.2.66"):
                    get(s.port, "/in/x",
                        headers={"X-Forwarded-For": "10.9.9.9, " + ip})
            ls = wait_until(lambda: len(lines(s.access_log)) >= 2
                            and lines(s.access_log), "2 log lines")
            check(sorted(ls) == want, "logged %r" % ls)
            s.wait_log(r"access forbidden by rule, client: 192\.0\.2\.66")
    far = """
        log_format a '$remote_addr $realip_remote_addr $uri $status';
        access_log %s a;
        set_real_ip_from 10.0.0.0/8;
        real_ip_header X-Forwarded-For;
    """
    with Server(threads=1, access_log=False) as s:
        s.reload(far % s.access_log)
        s.put("x", b"x")
        check(get(s.port, "/x", headers={"X-Forwarded-For": "10.1.1.1"})
              .status == 200, "/x")
        ls = wait_until(lambda: lines(s.access_log), "a log line")
        check(ls == ["127.0.0.1 127.0.0.1 /x 200"],
              "the peer is no trusted proxy: %r" % ls)
