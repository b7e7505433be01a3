"""nictrace stats on the real samples, against the same statistics
computed here independently (regular expressions and struct, not the C
parsers)."""

import gzip
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

from nicd import NICD, check

NICTRACE = os.path.join(os.path.dirname(NICD), "nictrace")
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "..", "shared", "traces")
NASA = os.path.join(SHARED, "nasa", "NASA_access_log_Jul95.first1000")
NASA10K = os.path.join(SHARED, "nasa", "NASA_access_log_Jul95.first10k.clf.gz")
WC98 = os.path.join(SHARED, "worldcup98", "test_log.gz")
WC98MAP = os.path.join(SHARED, "worldcup98", "object_mappings.sort.gz")

CLF = re.compile(r'^(\S+) \S+ \S+ \[(\d\d)/(\w{3})/(\d{4}):(\d\d):(\d\d):(\d\d) '
                 r'([+-])(\d\d)(\d\d)\] "(.*)" (\d{3}) (\d+|-)$')
MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec"


def expected(records):
    """records: (time, url, status, bytes or None)"""
    times = [r[0] for r in records]
    total = sum(r[3] or 0 for r in records)
    files = {}
    for _, url, status, b in records:
        if status in (200, 206) and b:
            key = object_key(url)
            files[key] = max(files.get(key, 0), b)
    return {"requests": len(records), "duration_s": max(times) - min(times),
            "total_response_bytes": total,
            "avg_response_bytes": round(total / len(records), 1),
            "distinct_files": len(files),
            "data_set_bytes": sum(files.values())}


def clf_records(lines):
    import calendar
    out = []
    for line in lines:
        m = CLF.match(line)
        d, mon, y, hh, mm, ss = (int(m.group(2)), MONTHS.index(m.group(3))
                                 // 3 + 1, int(m.group(4)), int(m.group(5)),
                                 int(m.group(6)), int(m.group(7)))
        off = (int(m.group(9)) * 3600 + int(m.group(10)) * 60) * \
            (1 if m.group(8) == "+" else -1)
        t = calendar.timegm((y, mon, d, hh, mm, ss)) - off
        url = m.group(11).split(" ")[1]
        b = None if m.group(13) == "-" else int(m.group(13))
        out.append((t, url, int(m.group(12)), b))
    return out


def run(*args, stdin=subprocess.DEVNULL):
    p = subprocess.run([NICTRACE] + list(args), capture_output=True,
                       timeout=60, stdin=stdin)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def stats(*args, stdin=subprocess.DEVNULL):
    rc, out, err = run("stats", "--json", "-", *args, stdin=stdin)
    check(rc == 0, "nictrace failed: %s" % err)
    return json.loads(out)


def compare(got, want, what):
    for k, v in want.items():
        check(got[k] == v, "%s: %s is %r, want %r" % (what, k, got[k], v))


def test_nasa_samples():
    lines = open(NASA, encoding="latin-1").read().splitlines()
    got = stats(NASA)
    compare(got, expected(clf_records(lines)), "NASA 1000")
    check(got["format"] == "clf" and got["parse_errors"] == 0, repr(got))
    lines = gzip.open(NASA10K, "rt", encoding="latin-1").read().splitlines()
    compare(stats(NASA10K), expected(clf_records(lines)), "NASA 10k")
    with open(NASA, "rb") as f:
        compare(stats("--format", "clf", "-", stdin=f),
                expected(clf_records(open(NASA, encoding="latin-1")
                                     .read().splitlines())), "stdin")


def test_worldcup_sample():
    names = {}
    for line in gzip.open(WC98MAP, "rb"):
        m = re.match(rb"^\s*(\d+) (.*?)\r?\n?$", line)
        names[int(m.group(1))] = m.group(2).decode("latin-1")
    codes = [100, 101, 200, 201, 202, 203, 204, 205, 206, 300, 301, 302,
             303, 304, 305] + list(range(400, 416)) + list(range(500, 506))
    data = gzip.open(WC98).read()
    recs = []
    for i in range(0, len(data), 20):
        t, _, obj, size, _, st, _, _ = struct.unpack(">IIIIBBBB",
                                                     data[i:i + 20])
        idx = st & 0x3f
        recs.append((t, names[obj], codes[idx] if idx < 37 else 0,
                     None if size == 0xffffffff else size))
    got = stats("--mapping", WC98MAP, WC98)
    compare(got, expected(recs), "WorldCup98")
    check(got["format"] == "wc98", repr(got))


def test_broken_lines_reported():
    good = '1.2.3.4 - - [01/Jul/1995:00:00:01 -0400] "GET /a HTTP/1.0" 200 5\n'
    text = good + "not a log line\n" + good + \
        '1.2.3.4 - - [01/Jul/1995:00:00:01 -0400] "GET /a HTTP/1.0" 2x 5\n'
    fd, path = tempfile.mkstemp()
    os.write(fd, text.encode())
    os.close(fd)
    try:
        got = stats(path)
        check(got["requests"] == 2 and got["parse_errors"] == 2, repr(got))
        check(got["first_errors"] == [
            {"trace": path, "line": 2, "error": "fields"},
            {"trace": path, "line": 4, "error": "status"}],
              repr(got["first_errors"]))
        rc, out, _ = run("stats", path)
        check(rc == 0 and "line 2: fields" in out and "line 4: status" in out,
              out)
    finally:
        os.unlink(path)


def test_usage_errors():
    rc, _, err = run("stats", "/nonexistent")
    check(rc == 1 and "/nonexistent: cannot open" in err, err)
    rc, _, err = run("bogus", NASA)
    check(rc == 2 and 'unknown command "bogus"' in err, err)
    rc, _, err = run("stats", "-")
    check(rc == 1 and "give --format" in err, err)


def splitmix64(x):
    m = (1 << 64) - 1
    z = (x + 0x9e3779b97f4a7c15) & m
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & m
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & m
    return z ^ (z >> 31)


def file_name(url_path):
    """The file a URL path names, as docs/traces.md says: decoded, "//"
    merged, "." and ".." resolved, index.html after a trailing "/"."""
    import urllib.parse
    segs = []
    parts = urllib.parse.unquote(url_path, encoding="latin-1").split("/")[1:]
    for i, seg in enumerate(parts):
        if seg == "..":
            segs.pop()
        elif seg not in ("", "."):
            segs.append(seg)
    name = "/" + "/".join(segs)
    if parts[-1] in ("", ".", "..") and name != "/":
        name += "/"
    return name + ("index.html" if name.endswith("/") else "")


def object_key(url):
    """docs/traces.md's object of a target: the file name its path names,
    then "?" and the query when it has one."""
    path, _, query = url.partition("?")
    return file_name(path) + ("?" + query if query else "")


def read_manifest(root):
    """{key: (kind, size, URL to send or None)} from the docroot's
    manifest, parsed here independently of the C reader.  The file a URL
    names is unquote(URL)."""
    import urllib.parse
    out = {}
    lines = open(os.path.join(root, ".nictrace-manifest"), "rb").read()
    for line in lines.decode("latin-1").splitlines():
        if line.startswith("#"):
            continue
        kind, size, url, key = line.split("\t")
        key = urllib.parse.unquote(key, encoding="latin-1")
        url = None if url == "-" else urllib.parse.unquote(url,
                                                           encoding="latin-1")
        out[key] = (kind, int(size), url)
    return out


def content(name, size):
    """docs/traces.md's definition, written here independently: name is
    the file's name from the docroot (file_name())."""
    h = 14695981039346656037
    for c in name.encode("latin-1"):
        h = ((h ^ c) * 1099511628211) & ((1 << 64) - 1)
    words = (size + 7) // 8
    out = b"".join(splitmix64((h + i) & ((1 << 64) - 1)).to_bytes(8, "little")
                   for i in range(words))
    return out[:size]


def test_logs_as_they_come():
    """--log-format with separators of any length and ${time LAYOUT}: the
    World Cup CSV (DD/Mon/YYYY,HH:MM:SS, the comma inside the time) and a
    |&|-separated log with 12-hour times; when nothing parses, the first
    line and the field that failed are named."""
    with tempfile.TemporaryDirectory() as d:
        csv = os.path.join(d, "wc.csv")
        with open(csv, "w") as f:
            f.write("1.2.3.4,30/Apr/1998,21:30:17,GET,/english/index.html,"
                    "200,1234\n1.2.3.5,30/Apr/1998,21:30:18,GET,/a.gif,"
                    "200,100\n1.2.3.4,01/May/1998,00:00:00,GET,/a.gif,304,0\n")
        rc, out, err = run("stats", csv, "--json", "-", "--log-format",
                           "$remote_addr,${time %d/%b/%Y,%H:%M:%S},"
                           "$request_method,$request_uri,$status,"
                           "$body_bytes_sent")
        s = json.loads(out)
        check(rc == 0 and s["requests"] == 3 and s["parse_errors"] == 0
              and s["first_time"] == 893971817
              and s["last_time"] == 893971817 + 8983
              and s["distinct_files"] == 2 and s["data_set_bytes"] == 1334,
              "%r %s" % (s, err))
        amp = os.path.join(d, "amp.log")
        with open(amp, "w") as f:
            f.write("2015-02-15 05:11AM|&|GET|&|/index.html|&|200|&|5000\n"
                    "2015-02-15 05:12PM|&|GET|&|/b.html|&|200|&|300\n")
        layout = ("${time %Y-%m-%d %I:%M%p}|&|$request_method|&|$request_uri"
                  "|&|$status|&|$body_bytes_sent")
        rc, out, err = run("stats", amp, "--json", "-", "--log-format",
                           layout)
        s = json.loads(out)
        check(rc == 0 and s["requests"] == 2 and s["first_time"] == 1423977060
              and s["duration_s"] == 12 * 3600 + 60, "%r %s" % (s, err))
        # the wrong layout: the first line, and what in it failed
        rc, out, err = run("stats", amp, "--log-format",
                           layout.replace("%I:%M%p", "%H:%M:%S"))
        check(rc == 1 and err.endswith(
            'no record of %s parsed (2 lines did not; line 1, its date: '
            '"2015-02-15 05:11AM|&|GET|&|/index.html|&|200|&|5000"; the wrong '
            '--format or --log-format?)\n' % amp), err)
        rc, _, err = run("stats", amp, "--log-format", "${time %Y|$uri")
        check(rc == 1 and "${time LAYOUT} wants a layout and a }" in err, err)


def test_unsorted_log_fails_unless_allowed():
    """A log in reverse: 872 of its 1,000 records come later than the
    window allows.  nictrace stats prints its figures and fails, nicsim
    and nicreplay fail naming the share; --allow-late runs them."""
    with tempfile.TemporaryDirectory() as d:
        rev = os.path.join(d, "rev.log")
        with open(rev, "w") as f:
            f.writelines(reversed(open(NASA, encoding="latin-1").readlines()))
        why = ("872 of 1000 records of %s (87.2 %%) came later than the "
               "reorder window allows" % rev)
        rc, out, err = run("stats", rev)
        check(rc == 1 and "late records           872" in out and why in err,
              out + err)
        rc, out, err = run("stats", rev, "--allow-late")
        check(rc == 0, err)
        nicsim = os.path.join(os.path.dirname(NICD), "nicsim")
        p = subprocess.run([nicsim, rev, "--sizes", "1m"], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 1 and why in p.stderr, p.stderr)
        p = subprocess.run([nicsim, rev, "--sizes", "1m", "--allow-late"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, p.stderr)


def test_sort_puts_any_order_in_time_order():
    """--sort: the reversed NASA sample, with a line that does not parse,
    sorted in runs of 97 records (11 temporary files, merged): the same
    statistics, sessions and simulation as the log sorted by time here
    (ties in the log's order), its bad line still counted, no record
    late, nothing left in $TMPDIR."""
    import datetime
    lines = open(NASA, encoding="latin-1").readlines()
    rev = list(reversed(lines))
    rev.insert(500, "this line is not a request\n")

    def when(line):
        try:
            stamp = line.split("[", 1)[1].split("]", 1)[0]
            return datetime.datetime.strptime(stamp, "%d/%b/%Y:%H:%M:%S %z")
        except (IndexError, ValueError):
            return datetime.datetime.max.replace(
                tzinfo=datetime.timezone.utc)
    with tempfile.TemporaryDirectory() as d, \
            tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(d, "rev.log"), os.path.join(d, "sorted.log")
        open(a, "w", encoding="latin-1").writelines(rev)
        open(b, "w", encoding="latin-1").writelines(sorted(rev, key=when))
        env = dict(os.environ, TMPDIR=tmp)
        nicsim = os.path.join(os.path.dirname(NICD), "nicsim")
        for cmd in (["stats"], ["sessions"]):
            got = subprocess.run(
                [os.path.join(os.path.dirname(NICD), "nictrace")] + cmd
                + [a, "--sort", "--reorder-max", "97", "--json", "-"],
                capture_output=True, text=True, env=env, timeout=60)
            rc, want, err = run(*(cmd + [b, "--json", "-"]))
            check(got.returncode == 0 and rc == 0, got.stderr + err)
            g, w = json.loads(got.stdout), json.loads(want)
            for k in ("trace", "traces", "format", "first_errors"):
                g.pop(k, None)
                w.pop(k, None)
            check(g == w, "%s: %r != %r" % (cmd[0], g, w))
            if cmd == ["stats"]:
                check(g["parse_errors"] == 1 and g["late_records"] == 0
                      and g["requests"] == 1000, repr(g))
        sims = [subprocess.run([nicsim, x, "--sizes", "256k,1m", "--json",
                                "-"] + extra, capture_output=True, text=True,
                               env=env, timeout=60).stdout
                for x, extra in ((a, ["--sort", "--reorder-max", "97"]),
                                 (b, []))]
        check(sims[0] == sims[1] and sims[0].startswith("["), repr(sims))
        check(os.listdir(tmp) == [], "left in $TMPDIR: %r" % os.listdir(tmp))


def test_docroot_served_by_nicd():
    """nictrace docroot of the NASA sample, served by nicd: every object
    of the trace (path and query) asked for at the URL the manifest gives:
    a 2xx or 304 in the log gets its own file's exact bytes (200, of its
    largest 2xx), a 3xx a 301, anything else 404."""
    from nicd import Server, get
    import urllib.parse
    lines = open(NASA, encoding="latin-1").read().splitlines()
    recs = clf_records(lines)
    sizes, logged = {}, {}
    for _, url, status, b in recs:
        k = object_key(url)
        logged.setdefault(k, set()).add(status)
        if 200 <= status < 300:
            sizes[k] = max(sizes.get(k, 0), b or 0)
    with tempfile.TemporaryDirectory() as root:
        rc, out, err = run("docroot", "--json", "-", "--root", root, NASA)
        check(rc == 0, err)
        got = json.loads(out)
        files = {k for k, st in logged.items() if st & {200, 206, 304}}
        check(got["files"] == len(files)
              and got["bytes"] == sum(sizes.get(k, 0) for k in files)
              and got["share_2xx"] == 1.0
              and got["log_2xx"] == sum(1 for r in recs if r[2] == 200),
              repr(got))
        manifest = read_manifest(root)
        check(set(manifest) == set(logged), "manifest keys")
        with Server(root=root) as s:
            for url in sorted({u for _, u, _, _ in recs}):
                k = object_key(url)
                kind, size, send = manifest[k]
                r = get(s.port, send or url)
                if k in files:
                    name = (urllib.parse.unquote(send, encoding="latin-1")
                            if send else file_name(url.split("?", 1)[0]))
                    check(kind == "F" and r.status == 200
                          and r.body == content(name, sizes.get(k, 0)),
                          "%s: %s %d, %d bytes" % (url, kind, r.status,
                                                   len(r.body)))
                elif logged[k] & set(range(300, 400)):
                    check(kind == "R" and r.status == 301,
                          "%s: %s %d" % (url, kind, r.status))
                else:
                    check(kind == "M" and r.status == 404,
                          "%s: %s %d" % (url, kind, r.status))


def test_docroot_unsafe_and_conflicts():
    """Names that cannot be files get names of their own (the manifest
    says which), inside the root: a file that is also a directory, "..",
    an encoded "/"; the rest keep theirs, decoded."""
    from nicd import Server, get
    import urllib.parse
    t = ('1.2.3.4 - - [01/Jul/1995:00:00:01 -0400] "GET %s HTTP/1.0" 200 %d\n')
    cases = (("/a", 10), ("/a/b", 20), ("/../etc/x", 5), ("/%2e%2e/y", 5),
             ("/c%2Fd", 5), ("/ok/", 7), ("/sp%20ace", 3))
    text = "".join(t % (u, n) for u, n in cases)
    fd, path = tempfile.mkstemp()
    os.write(fd, text.encode())
    os.close(fd)
    try:
        with tempfile.TemporaryDirectory() as root:
            rc, out, err = run("docroot", "--json", "-", "--root", root, path)
            check(rc == 0, err)
            got = json.loads(out)
            check(got["files"] == 7 and got["renamed"] == 4
                  and got["share_2xx"] == 1.0, repr(got))
            check(os.path.getsize(os.path.join(root, "a", "b")) == 20, "/a/b")
            check(open(os.path.join(root, "ok", "index.html"), "rb").read()
                  == content("/ok/index.html", 7), "/ok/ -> index.html")
            check(open(os.path.join(root, "sp ace"), "rb").read()
                  == content("/sp ace", 3), "/sp%20ace -> /sp ace")
            check(not os.path.exists(os.path.join(os.path.dirname(root),
                                                  "etc")), "escaped")
            m = read_manifest(root)
            with Server(root=root) as s:
                for url, n in cases:
                    key = ("\x01" + url if "\x01" + url in m
                           else object_key(url))
                    kind, size, send = m[key]
                    check(kind == "F" and size == n, "%s: %r" % (url, m[key]))
                    r = get(s.port, send or url)
                    name = (urllib.parse.unquote(send, encoding="latin-1")
                            if send else object_key(url))
                    check(r.status == 200 and r.body == content(name, n),
                          "%s via %s: %d" % (url, send, r.status))
    finally:
        os.unlink(path)


def group(times_clients, conn_gap=15, pipe_gap=5):
    """Requests per connection and per pipeline group, computed here
    independently: a client's request less than conn_gap after its
    previous one joins its connection, less than pipe_gap its group."""
    last, conn_of, group_of = {}, {}, {}
    conns, groups = [], []
    for t, c in times_clients:
        if c in last and t - last[c] < conn_gap:
            conns[conn_of[c]] += 1
            if t - last[c] < pipe_gap:
                groups[group_of[c]] += 1
            else:
                group_of[c] = len(groups)
                groups.append(1)
        else:
            conn_of[c] = len(conns)
            conns.append(1)
            group_of[c] = len(groups)
            groups.append(1)
        last[c] = t
    return conns, groups


def test_sessions_known_trace():
    t = '%s - - [01/Jul/1995:00:%02d:%02d -0400] "GET /x HTTP/1.0" 200 1\n'
    # (client, seconds): A 0, 10, 24; B 1, 16; A 40, 40, 42, 46; C 40
    seq = (("a", 0), ("b", 1), ("a", 10), ("a", 24), ("b", 16), ("a", 40),
           ("c", 40), ("a", 40), ("a", 42), ("a", 46))
    text = "".join(t % (c, s // 60, s % 60) for c, s in seq)
    fd, path = tempfile.mkstemp()
    os.write(fd, text.encode())
    os.close(fd)
    try:
        rc, out, err = run("sessions", "--json", "-", path)
        check(rc == 0, err)
        got = json.loads(out)
        check(got["requests"] == 10 and got["connections"] == 5
              and got["max_requests_per_connection"] == 4
              and got["pipeline_groups"] == 7
              and got["max_pipeline_depth"] == 4
              and got["depth_histogram"]["1"] == 6
              and got["depth_histogram"]["3-4"] == 1, repr(got))
        rc, out, err = run("sessions", "--json", "-", "--conn-gap", "100",
                           "--pipeline-gap", "100", path)
        got = json.loads(out)
        check(got["connections"] == 3 and got["pipeline_groups"] == 3,
              repr(got))
    finally:
        os.unlink(path)


def test_sessions_nasa():
    lines = gzip.open(NASA10K, "rt", encoding="latin-1").read().splitlines()
    recs = clf_records(lines)
    conns, groups = group([(r[0], line.split(" ", 1)[0])
                           for r, line in zip(recs, lines)])
    rc, out, err = run("sessions", "--json", "-", NASA10K)
    check(rc == 0, err)
    got = json.loads(out)
    check(got["connections"] == len(conns)
          and got["max_requests_per_connection"] == max(conns)
          and got["pipeline_groups"] == len(groups)
          and got["max_pipeline_depth"] == max(groups), repr(got))


def test_convert_round_trip():
    """Converted to the compact format, every sample gives the same
    statistics, grouping and simulation as the original."""
    nicsim = os.path.join(os.path.dirname(NICD), "nicsim")
    for trace, extra in ((NASA, []), (NASA10K, []),
                         (WC98, ["--mapping", WC98MAP])):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.nic")
            rc, text, err = run("convert", "--json", "-", "--out", out, *extra,
                                trace)
            check(rc == 0, err)
            check(json.loads(text)["records"] == 1000 or trace == NASA10K,
                  text)
            a, b = stats(*extra, trace), stats(out)
            check(b["format"] == "nic", repr(b))
            for k in ("requests", "duration_s", "total_response_bytes",
                      "data_set_bytes", "distinct_files"):
                check(a[k] == b[k], "%s %s: %r != %r" % (trace, k, a[k], b[k]))
            for cmd in (["sessions", "--json", "-"],):
                _, sa, _ = run(*cmd, *extra, trace)
                _, sb, _ = run(*cmd, out)
                ja, jb = json.loads(sa), json.loads(sb)
                del ja["trace"], jb["trace"]
                check(ja == jb, "sessions differ: %r %r" % (ja, jb))
            sims = [subprocess.run([nicsim, "--json", "-", "--sizes", "256k",
                                    "--policy", "lru,opt", *x, t],
                                   capture_output=True, timeout=60,
                                   stdin=subprocess.DEVNULL).stdout
                    for x, t in ((extra, trace), ([], out))]
            check(sims[0] == sims[1] and sims[0], "nicsim differs")


def test_convert_truncated_is_an_error():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.nic")
        check(run("convert", "--out", out, NASA)[0] == 0, "convert")
        data = open(out, "rb").read()
        open(out, "wb").write(data[:len(data) // 2])
        rc, _, err = run("stats", out)
        check(rc == 1 and "read error" in err, "truncated: %d %s" % (rc, err))
        open(out, "wb").write(b"NICTRACE\x01\x00\x05")  # id 5 undefined
        rc, _, err = run("stats", out)
        check(rc == 1, "undefined URL id accepted")


def synth(*args):
    """nictrace synth --json to a file: (rc, summary or stderr, path)."""
    d = tempfile.mkdtemp()
    path = os.path.join(d, "synth.log.gz")
    rc, out, err = run("synth", "--json", "-", "--out", path, *args)
    return rc, (json.loads(out) if rc == 0 else err), path


def near(got, want, share, what):
    check(abs(got - want) <= want * share,
          "%s: %r, want %r within %d %%" % (what, got, want, share * 100))


def test_synth_meets_its_targets():
    """Requests and files exactly, data set and average response size
    within 5 % (they are fitted, so much closer), the duration to the
    second, computed here from the lines and by nictrace stats."""
    rc, summary, path = synth("--requests", "30000", "--files", "1500",
                              "--data-set", "30000000", "--avg-size", "9000",
                              "--clients", "400", "--duration", "1800",
                              "--zipf", "0.9", "--seed", "5")
    check(rc == 0, summary)
    try:
        lines = gzip.open(path, "rt").read().splitlines()
        recs = clf_records(lines)
        want = expected(recs)
        got = stats(path)
        compare(got, want, "synth")
        check(got["requests"] == 30000 and got["distinct_files"] == 1500,
              repr(got))
        near(got["data_set_bytes"], 30000000, 0.05, "data set")
        near(got["avg_response_bytes"], 9000, 0.05, "average size")
        check(got["duration_s"] in (1799, 1800), repr(got))
        check(len({line.split(" ", 1)[0] for line in lines}) == 400,
              "clients")
        check(all(r[2] == 200 for r in recs), "a status other than 200")
        check(summary["requests"] == 30000
              and summary["data_set_bytes"] == got["data_set_bytes"]
              and summary["total_response_bytes"]
              == got["total_response_bytes"], repr(summary))
        # the same seed gives the same trace, byte for byte
        rc, _, again = synth("--requests", "30000", "--files", "1500",
                             "--data-set", "30000000", "--avg-size", "9000",
                             "--clients", "400", "--duration", "1800",
                             "--zipf", "0.9", "--seed", "5")
        check(rc == 0 and gzip.open(again, "rt").read().splitlines() == lines,
              "not repeatable")
        os.unlink(again)
    finally:
        os.unlink(path)


def test_synth_like_the_papers_traces():
    """--like nasa at full size (1.7 M requests) and --like worldcup cut
    to 500,000 requests: Table 1's files exactly, data set and average
    size within 5 %."""
    for args, table in ((["--like", "nasa"], (1685904, 4690, 271e6, 56983)),
                        (["--like", "worldcup", "--requests", "500000"],
                         (500000, 5163, 93e6, 6847))):
        rc, summary, path = synth(*args)
        check(rc == 0, summary)
        try:
            got = stats(path)
            check(got["requests"] == table[0]
                  and got["distinct_files"] == table[1], repr(got))
            near(got["data_set_bytes"], table[2], 0.05, args[1])
            near(got["avg_response_bytes"], table[3], 0.05, args[1])
        finally:
            os.unlink(path)


def test_synth_refuses_bad_options():
    for args, rc_want, msg in (
            (["--like", "ibm"], 2, 'unknown preset "ibm"'),
            (["--requests", "5", "--files", "10"], 1, "at least once"),
            (["--sizes", "normal:1,2"], 2, "unknown size distribution"),
            (["--sizes", "lognormal:8"], 2, "MU,SIGMA"),
            (["--zipf", "abc"], 2, '--zipf: "abc" is not a valid value'),
            (["--data-set", "10"], 1, "cannot hold"),
            (["--sizes", "fixed:1000", "--avg-size", "5000"], 1,
             "out of reach"),
            (["--start", "1995-13-01"], 2, "--start")):
        rc, _, err = run("synth", "--out", "/dev/null", *args)
        check(rc == rc_want and msg in err, "%r: %d %s" % (args, rc, err))
    rc, _, err = run("synth", "extra")
    check(rc == 2 and "\"synth\" wants other arguments" in err, err)


def test_truncated_gzip_log_is_an_error():
    """A gzip log cut short is an error naming where it stopped, in every
    tool that reads it, not "1 parse error" and exit 0 (issue 32)."""
    with tempfile.TemporaryDirectory() as d:
        whole = open(NASA10K, "rb").read()
        cut = os.path.join(d, "cut.log.gz")
        with open(cut, "wb") as f:
            f.write(whole[:len(whole) // 2])
        rc, _, err = run("stats", cut)
        check(rc == 1 and "unexpected end of file" in err
              and re.search(r"after line \d+", err),
              "stats: %d %s" % (rc, err))
        p = subprocess.run([os.path.join(os.path.dirname(NICD), "nicsim"),
                            cut], capture_output=True, text=True,
                           timeout=60)
        check(p.returncode != 0 and "unexpected end of file" in p.stderr,
              "nicsim: %d %s" % (p.returncode, p.stderr[-300:]))
        # the whole stream still reads to its end
        check(run("stats", NASA10K)[0] == 0, "whole")
        # --allow-truncated: the records before the cut, one warning line
        rc, out, err = run("stats", cut, "--json", "-", "--allow-truncated")
        got = json.loads(out) if rc == 0 else {}
        check(rc == 0 and 0 < got.get("requests", 0) < 10000
              and "warning" in err and cut in err
              and "--allow-truncated" in err,
              "allow: %d %s %s" % (rc, out[:200], err))
        p = subprocess.run([os.path.join(os.path.dirname(NICD), "nicsim"),
                            cut, "--allow-truncated"], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 0 and "warning" in p.stderr,
              "nicsim allow: %d %s" % (p.returncode, p.stderr[-300:]))


def test_reorder_window_is_bounded_in_records():
    """A burst of one timestamp cannot make the reader hold every record
    (issue 32): with --reorder-max the peak memory stays near the log-order
    read's, while an unbounded hold grows with the burst."""
    n = 300000
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "burst.log")
        with open(log, "w") as f:
            line = ('10.0.0.1 - - [01/Jul/1995:00:00:01 -0400] "GET /%s '
                    'HTTP/1.0" 200 100\n')
            f.write("".join(line % ("x/" * 20 + str(i)) for i in range(n)))

        def peak(*args):
            tool = os.path.join(os.path.dirname(NICD), "nictrace")
            code = ("import resource,subprocess,sys;"
                    "p=subprocess.run(sys.argv[1:],capture_output=True);"
                    "print(p.returncode,resource.getrusage("
                    "resource.RUSAGE_CHILDREN).ru_maxrss)")
            p = subprocess.run([sys.executable, "-c", code, tool, "stats",
                                log, "--json", "-", *args], capture_output=True,
                               text=True, timeout=60)
            rc, kb = p.stdout.split()
            check(rc == "0", "stats %r: %s" % (args, p.stderr))
            return int(kb)

        base = peak("--reorder-window", "0")
        capped = peak("--reorder-max", "1000")
        held = peak("--reorder-max", str(n * 2))
        # (relative: under ASan every figure carries its allocator's
        # redzones and quarantine)
        check(held > base + 20 * 1024
              and capped - base < (held - base) / 3,
              "peak KiB: log order %d, capped %d, unbounded %d"
              % (base, capped, held))
        rc, out, err = run("stats", log, "--reorder-max", "0")
        check(rc == 2 and "--reorder-max" in err, "%d %s" % (rc, err))


def test_several_traces_and_merge_are_the_concatenation():
    """stats over several files equals stats over their concatenation, and
    so does nictrace merge of each file's --json --with-files result
    (every figure; late records are counted within each file, and the
    trace is split where no record is late)."""
    lines = gzip.open(NASA10K, "rt", encoding="latin-1").read().splitlines()
    keys = ("duration_s", "first_time", "last_time", "total_response_bytes",
            "avg_response_bytes", "data_set_bytes", "requests",
            "distinct_files", "parse_errors", "late_records", "format")
    with tempfile.TemporaryDirectory() as d:
        whole = os.path.join(d, "whole.log")
        open(whole, "w", encoding="latin-1").write("\n".join(lines) + "\n")
        parts = []
        for i, (a, b) in enumerate(((0, 3000), (3000, 7100),
                                    (7100, len(lines)))):
            p = os.path.join(d, "day%d.log" % i)
            text = "\n".join(lines[a:b]) + "\n"
            if i == 1:
                p += ".gz"
                gzip.open(p, "wt", encoding="latin-1").write(text)
            else:
                open(p, "w", encoding="latin-1").write(text)
            parts.append(p)
        want = stats(whole)
        several = stats(*parts)
        check(all(several[k] == want[k] for k in keys)
              and several["traces"] == parts,
              "%r\n%r" % (several, want))
        results = []
        for p in parts:
            rc, out, err = run("stats", "--json", "-", "--with-files", p)
            check(rc == 0 and '"files": [' in out, err)
            results.append(os.path.join(d, os.path.basename(p) + ".json"))
            open(results[-1], "w").write(out)
        rc, out, err = run("merge", "--json", "-", *results)
        check(rc == 0, err)
        merged = json.loads(out)
        check(all(merged[k] == want[k] for k in keys)
              and merged["traces"] == parts, "%r\n%r" % (merged, want))
        # the text form says the same
        rc, text, err = run("merge", *results)
        check(rc == 0 and "distinct files         %s" % format(
            want["distinct_files"], ",") in text, text)
        # results without the files' table, and --with-files without JSON
        plain = os.path.join(d, "plain.json")
        open(plain, "w").write(run("stats", "--json", "-", parts[0])[1])
        for args, code, why in ((["merge", plain], 1, "--with-files"),
                                (["merge", os.path.join(d, "none.json")], 1,
                                 "none.json"),
                                (["stats", "--with-files", parts[0]], 2,
                                 "--with-files goes with --json"),
                                (["stats", parts[0], os.path.join(d, "x")], 1,
                                 "x")):
            rc, out, err = run(*args)
            check(rc == code and why in err and err.count("\n") == 1,
                  "%r: %d %r" % (args, rc, err))
