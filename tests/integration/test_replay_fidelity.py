"""Replaying logs as they are: lines out of time order (sessions and
shards do not depend on the order), the log formats people configure
(nginx log_format strings, JSON lines)."""

import gzip
import json
import os
import re
import random
import subprocess
import tempfile

from nicd import Server, check
from test_nicreplay import NICREPLAY, Scripted, replay
from test_nictrace import NASA10K, run

MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def nasa_unsorted(path, seed=7, delay=59):
    """The NASA 10k sample as a log written when requests end: each line
    moves to its request's start time plus up to delay seconds, its own
    (start) time unchanged.  Returns the number of lines earlier than the
    line before."""
    import calendar
    lines = gzip.open(NASA10K, "rt", encoding="latin-1").read().splitlines()
    rnd = random.Random(seed)
    keyed = []
    for i, line in enumerate(lines):
        ts = line.split("[", 1)[1].split("]", 1)[0]
        d, mon, rest = ts.split("/", 2)
        y, hh, mm, ss = rest.split(" ")[0].split(":")
        t = calendar.timegm((int(y), MONTHS.index(mon) + 1, int(d), int(hh),
                             int(mm), int(ss)))
        keyed.append((t + rnd.randint(0, delay), i, t, line))
    keyed.sort()
    with open(path, "w", encoding="latin-1") as f:
        for _, _, _, line in keyed:
            f.write(line + "\n")
    return sum(1 for a, b in zip(keyed, keyed[1:]) if b[2] < a[2])


def test_unsorted_log_shards_partition():
    """On a log whose lines are out of order by up to 59 s, the sessions
    are those of the sorted log, nictrace sessions and nicreplay agree,
    and --shard 0/2 + 1/2 replay every request exactly once."""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "unsorted.log")
        back = nasa_unsorted(log)
        check(back > 3000, "only %d lines out of order" % back)
        rc, out, err = run("sessions", "--json", "-", NASA10K)
        check(rc == 0, err)
        want = json.loads(out)
        rc, out, err = run("sessions", "--json", "-", log)
        check(rc == 0, err)
        got = json.loads(out)
        check(got["connections"] == want["connections"],
              "sessions %d on the unsorted log, %d sorted"
              % (got["connections"], want["connections"]))
        # with the window off, the log's order makes other sessions; so
        # many records late is a failure unless allowed
        rc, out, err = run("sessions", "--json", "-", "--reorder-window", "0",
                           log)
        check(rc == 1 and re.search(r"failed: \d+ of 9999 records of \S+ "
                                    r"\([0-9.]+ %\) came later than the "
                                    r"reorder window allows", err), err)
        rc, out, err = run("sessions", "--json", "-", "--reorder-window", "0",
                           "--allow-late", log)
        check(rc == 0 and json.loads(out)["connections"]
              != want["connections"], "window 0 changed nothing")

        root = os.path.join(d, "root")
        os.mkdir(root)
        rc, _, err = run("docroot", "--root", root, log)
        check(rc == 0, err)
        with Server(root=root) as s:
            url = "http://127.0.0.1:%d/" % s.port
            whole, wlog = replay(log, url, "-c", "16")
            check(whole["sessions"] == want["connections"],
                  "nicreplay %d sessions, nictrace %d"
                  % (whole["sessions"], want["connections"]))
            parts = []
            for i in range(2):
                res, plog = replay(log, url, "-c", "8", "--shard",
                                   "%d/2" % i)
                parts.append((res, plog))
            check(parts[0][0]["sessions"] + parts[1][0]["sessions"]
                  == whole["sessions"], "shard sessions %r"
                  % [p[0]["sessions"] for p in parts])
            key = lambda lg: sorted((s, m, t) for s, m, t, _, _ in lg)
            union = key(parts[0][1] + parts[1][1])
            check(union == key(wlog), "shards: %d requests, whole %d; "
                  "%d differ" % (len(union), len(wlog),
                                 len(set(union) ^ set(key(wlog)))))
            check(len(set(s for s, _, _, _, _ in parts[0][1])
                      & set(s for s, _, _, _, _ in parts[1][1])) == 0,
                  "a session in both shards")


LINE = ('%s - - [01/Mar/2015:12:%02d:%02d +0000] "%s %s HTTP/1.1" %d %s '
        '"-" "test"\n')


def constructed_log(path):
    """Every case a modern log has, as (method, target, status, bytes)."""
    long_name = "/" + "d" * 200 + "/" + "x" * 250 + ".html"
    longer = "/deep/" + "y" * 300  # a component too long for a file
    cases = [
        ("GET", "/blog", 200, "5000"),            # a file ...
        ("GET", "/blog/tags/puppet", 200, "700"),  # ... and a directory
        ("GET", "/blog/tags/puppet?flav=rss20", 200, "1200"),  # a query
        ("GET", "/blog/tags/puppet?flav=atom", 200, "1300"),
        ("GET", "/search?q=a/b%2Fc", 200, "90"),  # "/" and "%" in a query
        ("GET", "/robots.txt", 200, "-"),         # size unknown
        ("HEAD", "/robots.txt", 200, "0"),
        ("GET", "/feed", 301, "178"),             # a redirect
        ("GET", "/old?page=2", 302, "0"),         # a redirect with a query
        ("GET", "/blog/", 302, "0"),              # redirect on a file's dir
        ("GET", "/style.css", 304, "0"),          # 304 only
        ("GET", "/big.iso", 206, "4096"),         # a partial transfer
        ("GET", "/big.iso", 200, "100000"),
        ("GET", "/nothere", 404, "162"),
        ("GET", "/blog/nothere", 404, "162"),     # 404 below a directory
        ("GET", "/blog/tags", 404, "162"),        # 404 on a directory
        ("GET", "/blog/x/", 404, "162"),
        ("GET", "/caf%C3%A9%20menu.html", 200, "321"),  # encoded
        ("GET", "/a%2Fb", 200, "11"),             # an encoded "/"
        ("GET", "/../../etc/passwd", 200, "12"),  # above the root
        ("GET", "http://example.org/abs", 200, "13"),  # absolute form
        ("GET", long_name, 200, "17"),
        ("GET", longer, 200, "19"),
        ("GET", "/.nic/f/0000000000000000", 200, "23"),  # our own names
        ("POST", "/comment", 200, "10"),          # not replayed
        ("GET", "/blog", 200, "4000"),            # a shorter transfer
    ]
    with open(path, "w", encoding="latin-1") as f:
        for i, (m, t, st, b) in enumerate(cases):
            f.write(LINE % ("10.0.0.%d" % (i % 3), i // 60, i % 60, m, t, st,
                            b))
    return cases


def check_fidelity(res, cases, what):
    f = res["fidelity"]
    n2xx = sum(1 for m, _, st, _ in cases if m != "POST" and 200 <= st < 300)
    n404 = sum(1 for _, _, st, _ in cases if st == 404)
    n3xx = sum(1 for _, _, st, _ in cases if 300 <= st < 400 and st != 304)
    check(f["log_2xx"] == n2xx == f["answered_2xx"] == f["logged_size"]
          and f["log_404"] == n404 == f["answered_404"]
          and f["log_3xx"] == n3xx == f["answered_301"]
          and f["exceptions"] == {}, "%s: %r" % (what, f))
    check(res["mismatches"] == 0 and res["failed"] == 0
          and res["responses_by_status"].get("304") == 1,
          "%s: %r" % (what, res))


def test_constructed_log_against_nicd_and_nginx():
    """Every 2xx of the log is answered 2xx at the logged size, every 404
    404 and every 3xx 301, by nicd and by Debian's nginx on the same
    docroot (--as-logged, through the manifest)."""
    from test_nicreplay import nginx
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "site.log")
        cases = constructed_log(log)
        root = os.path.join(d, "root")
        rc, out, err = run("docroot", "--json", "-", "--root", root, log)
        check(rc == 0, err)
        got = json.loads(out)
        check(got["share_2xx"] == 1.0 and got["stays_404"] == got["log_404"]
              and got["other_methods"] == 1, repr(got))
        with Server(root=root) as s:
            res, _ = replay(log, "http://127.0.0.1:%d/" % s.port,
                            "--as-logged", "--verify", "--docroot", root)
            check_fidelity(res, cases, "nicd")
            # without the manifest, queries and renamed objects are lost
            res, _ = replay(log, "http://127.0.0.1:%d/" % s.port,
                            "--as-logged", "--verify")
            check(res["fidelity"]["share_2xx"] < 0.8,
                  "without a manifest: %r" % res["fidelity"])
        os.chmod(d, 0o755)
        for dirpath, dirs, _ in os.walk(root):
            os.chmod(dirpath, 0o755)
        with nginx(root) as port:
            res, _ = replay(log, "http://127.0.0.1:%d/" % port, "--as-logged",
                            "--verify", "--docroot", root)
        check_fidelity(res, cases, "nginx")


def test_bad_input_is_a_clear_error():
    """Binary junk, an empty file, a manifest of another trace, a
    manifest that is not one: an exit status and a message naming it."""
    with tempfile.TemporaryDirectory() as d:
        junk = os.path.join(d, "junk.log")
        with open(junk, "wb") as f:
            f.write(bytes(random.Random(1).randrange(256) for _ in range(5000)))
        empty = os.path.join(d, "empty.log")
        open(empty, "w").close()
        for path in (junk, empty):
            rc, _, err = run("stats", path)
            check(rc != 0 and path in err, "%s: %d %s" % (path, rc, err))
        other = os.path.join(d, "other.log")
        constructed_log(other)
        root = os.path.join(d, "root")
        rc, _, err = run("docroot", "--root", root, NASA10K)
        check(rc == 0, err)
        p = subprocess.run([NICREPLAY, "-q", "--docroot", root, other,
                            "http://127.0.0.1:9/"], capture_output=True,
                           timeout=60)
        check(p.returncode != 0 and b"the manifest has no object for"
              in p.stderr, p.stderr.decode())
        p = subprocess.run([NICREPLAY, "-q", "--manifest", other, other,
                            "http://127.0.0.1:9/"], capture_output=True,
                           timeout=60)
        check(p.returncode != 0 and b"not a nictrace manifest" in p.stderr,
              p.stderr.decode())


class SlowServer(Scripted):
    """The scripted server of test_nicreplay answering every request with
    a 2-byte 200, one at a time, each after delay seconds: a server made
    slow on purpose."""

    def __init__(self, delay):
        import threading
        self.delay = delay
        self.slow = threading.Lock()  # one request at a time
        Scripted.__init__(self)

    def answer(self, method, path):
        import time
        with self.slow:
            if self.delay:
                time.sleep(self.delay)  # the slowness under test
        return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", False


def one_client_log(path, n, gap=0):
    with open(path, "w") as f:
        for i in range(n):
            t = i * gap
            f.write(LINE % ("10.1.1.1", t // 60, t % 60, "GET", "/r%d" % i,
                            200, "2"))


def timed_log(path, replay_args):
    """nicreplay's --log with its last columns: (target, latency us,
    intended us, sent us)."""
    out = []
    for line in open(path):
        f = line.split(" ")
        out.append((f[2], int(f[5]), int(f[6]), int(f[7])))
    return out


def test_open_loop_corrects_coordinated_omission():
    """--rate 100 against a server that takes 20 ms a request, one
    connection: the queue grows, so latency from the intended send time
    grows with it (to about 1 s by the 100th request) while latency from
    the actual send stays near 20 ms; --poisson keeps the rate on
    average; --hdr writes a log HdrHistogram's decoders read."""
    srv = SlowServer(0.02)
    try:
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "one.log")
            one_client_log(trace, 100)
            log, js, hdr = (os.path.join(d, x) for x in ("r.log", "r.json",
                                                          "r.hdr"))
            p = subprocess.run([NICREPLAY, "-q", "--rate", "100", "--log", log,
                                "--json", js, "--hdr", hdr, trace,
                                "http://127.0.0.1:%d/" % srv.port],
                               capture_output=True, timeout=60)
            check(p.returncode == 0, p.stderr.decode())
            res = json.load(open(js))
            rows = timed_log(log, None)
            check(len(rows) == 100 and res["requests"] == 100, repr(res))
            # intended times: 10 ms apart from the start
            check(all(abs(r[2] - i * 10000) <= 1 for i, r in enumerate(
                sorted(rows, key=lambda r: r[2]))), "schedule")
            corrected = [r[1] for r in rows]
            uncorrected = [r[1] - (r[3] - r[2]) for r in rows]
            first, last = sum(corrected[:10]) / 10, sum(corrected[-10:]) / 10
            check(last > first + 500000,
                  "corrected latency did not grow: %d -> %d us"
                  % (first, last))
            check(max(uncorrected) < 200000,
                  "uncorrected latency grew: max %d us" % max(uncorrected))
            check(res["latency_us"]["p99"] > 5 * res["latency_from_send_us"][
                "p99"] and res["schedule_lag_max_us"] > 500000, repr(res))
            counts = hdr_counts(hdr)
            check(sum(c for _, c in counts) == 100, "hdr: %d values"
                  % sum(c for _, c in counts))
            p50 = hdr_quantile(counts, 0.5)
            check(abs(p50 - res["latency_us"]["p50"])
                  <= 0.05 * res["latency_us"]["p50"],
                  "hdr p50 %d, nicreplay %d" % (p50, res["latency_us"]["p50"]))

            # Poisson arrivals at the same mean rate, a fast server
            srv.delay = 0
            p = subprocess.run([NICREPLAY, "-q", "--rate", "200", "--poisson",
                                "-c", "4", "--log", log, "--json", js, trace,
                                "http://127.0.0.1:%d/" % srv.port],
                               capture_output=True, timeout=60)
            check(p.returncode == 0, p.stderr.decode())
            rows = sorted(timed_log(log, None), key=lambda r: r[2])
            gaps = [b[2] - a[2] for a, b in zip(rows, rows[1:])]
            mean = sum(gaps) / len(gaps)
            check(2500 < mean < 7500 and len(set(gaps)) > 50,
                  "poisson gaps: mean %d us, %d distinct" % (mean,
                                                             len(set(gaps))))
    finally:
        srv.close()


def hdr_counts(path):
    """Decode an HdrHistogram log (V2 compressed encoding) here, from the
    format's description: [(value, count)] over all intervals."""
    import base64
    import struct
    import zlib
    out = []
    for line in open(path):
        if line.startswith("#") or line.startswith('"'):
            continue
        b = base64.b64decode(line.strip().split(",")[3])
        cookie, n = struct.unpack(">ii", b[:8])
        check(cookie == 0x1c849314, "compressed cookie %x" % cookie)
        raw = zlib.decompress(b[8:8 + n])
        (cookie, plen, _, digits, lowest, highest,
         ratio) = struct.unpack(">iiiiqqd", raw[:40])
        check(cookie == 0x1c849313 and lowest == 1 and ratio == 1.0,
              "header %x" % cookie)
        sub = 1
        while sub < 2 * 10 ** digits:
            sub *= 2
        half_mag = sub.bit_length() - 2
        payload, i, index = raw[40:40 + plen], 0, 0
        while i < len(payload):
            v, shift = 0, 0
            for k in range(9):
                c = payload[i]
                i += 1
                if k == 8:
                    v |= c << shift
                    break
                v |= (c & 0x7f) << shift
                shift += 7
                if not c & 0x80:
                    break
            v = (v >> 1) ^ -(v & 1)
            if v < 0:
                index += -v
                continue
            if v > 0:
                bucket = (index >> half_mag) - 1
                subi = (index & ((1 << half_mag) - 1)) + (1 << half_mag)
                if bucket < 0:
                    bucket, subi = 0, subi - (1 << half_mag)
                out.append((subi << bucket, v))
            index += 1
    return out


def hdr_quantile(counts, q):
    total = sum(c for _, c in counts)
    seen = 0
    for v, c in sorted(counts):
        seen += c
        if seen >= q * total:
            return v
    return 0


def test_speed_keeps_the_logs_gaps():
    """--speed 10 on a log whose sessions start 2 s apart sends them
    200 ms apart (within 50 ms), and a session's pipeline group (requests
    less than 5 s apart) goes out together."""
    srv = SlowServer(0)
    try:
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "timed.log")
            with open(trace, "w") as f:
                for i in range(5):
                    f.write(LINE % ("10.2.0.%d" % i, 0, 2 * i, "GET",
                                    "/s%d" % i, 200, "2"))
                    f.write(LINE % ("10.2.0.%d" % i, 0, 2 * i + 1, "GET",
                                    "/s%db" % i, 200, "2"))
            log = os.path.join(d, "r.log")
            p = subprocess.run([NICREPLAY, "-q", "--speed", "10", "-c", "8",
                                "--log", log, trace,
                                "http://127.0.0.1:%d/" % srv.port],
                               capture_output=True, timeout=60)
            check(p.returncode == 0, p.stderr.decode())
            rows = {r[0]: r for r in timed_log(log, None)}
            check(len(rows) == 10, repr(rows))
            for i in range(5):
                a, b = rows["/s%d" % i], rows["/s%db" % i]
                check(a[2] == i * 200000 and b[3] == a[3],
                      "session %d: intended %d, sent %d and %d"
                      % (i, a[2], a[3], b[3]))
                check(0 <= a[3] - a[2] < 50000,
                      "session %d sent %d us late" % (i, a[3] - a[2]))
    finally:
        srv.close()


def test_by_url_and_by_size():
    """--by-url and --by-size agree with the per-request --log: the top
    URLs by requests and bytes, their counts, and every size class's
    requests and bytes (SPECweb99's classes and powers of two)."""
    from collections import Counter
    with tempfile.TemporaryDirectory() as d:
        root = os.path.join(d, "root")
        rc, _, err = run("docroot", "--root", root, NASA10K)
        check(rc == 0, err)
        with Server(root=root) as s:
            url = "http://127.0.0.1:%d/" % s.port
            res, log = replay(NASA10K, url, "-c", "8", "--docroot", root,
                              "--by-url", "5", "--by-size")
            reqs, nbytes = Counter(), Counter()
            for _, _, t, _, b in log:
                reqs[t] += 1
                nbytes[t] += b
            top = res["by_url"]["by_requests"]
            check(len(top) == 5 and [u["requests"] for u in top]
                  == sorted(reqs.values(), reverse=True)[:5], repr(top))
            for u in top + res["by_url"]["by_bytes"]:
                check(reqs[u["target"]] == u["requests"]
                      and nbytes[u["target"]] == u["bytes"]
                      and u["latency_us"]["p50"] <= u["latency_us"]["max"],
                      repr(u))
            check(res["by_url"]["by_bytes"][0]["bytes"] == max(nbytes.values()),
                  "by bytes")
            limits = [1024, 10240, 102400, 1048576]
            want = Counter()
            for _, _, _, _, b in log:
                want[sum(1 for x in limits if b >= x)] += 1
            got = {c["min_bytes"]: c["requests"] for c in res["by_size"]}
            check(sorted(got.values()) == sorted(want.values())
                  and sum(c["bytes"] for c in res["by_size"])
                  == res["content_bytes"], "%r vs %r" % (got, want))
            res, log = replay(NASA10K, url, "-c", "8", "--docroot", root,
                              "--by-size=pow2")
            want = Counter(b.bit_length() for _, _, _, _, b in log)
            got = {int(c["class"][3:]): c["requests"] for c in res["by_size"]}
            check(got == dict(want), "pow2: %r vs %r" % (got, dict(want)))


def test_synthetic_trace_replays_whole():
    """A synthetic trace, materialised and replayed against nicd with
    --verify: every request is a 2xx at its logged size, bytes exact."""
    with tempfile.TemporaryDirectory() as d:
        log, root = os.path.join(d, "synth.log"), os.path.join(d, "root")
        rc, _, err = run("synth", "--requests", "3000", "--files", "400",
                         "--data-set", "8m", "--clients", "40", "--out", log)
        check(rc == 0, err)
        rc, out, err = run("docroot", "--json", "-", "--root", root, log)
        check(rc == 0, err)
        got = json.loads(out)
        check(got["files"] == 400 and got["share_2xx"] == 1.0
              and got["bytes"] == 8 << 20, repr(got))
        with Server(root=root) as s:
            res, lines = replay(log, "http://127.0.0.1:%d/" % s.port,
                                "--as-logged", "--verify", "--docroot", root)
        f = res["fidelity"]
        check(f["log_2xx"] == 3000 == f["answered_2xx"] == f["logged_size"],
              repr(f))
        check(res["mismatches"] == 0 and res["failed"] == 0, repr(res))
        check(len(lines) == 3000, "%d requests replayed" % len(lines))
