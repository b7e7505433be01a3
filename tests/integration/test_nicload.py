"""nicload: the SPECweb99 file set against the formulas, pacing against a
fast server, conformance and the capacity search against a server whose
total rate the test sets, and Debian's nginx on the file set."""

import asyncio
import json
import os
import re
import socket
import subprocess
import tempfile
import threading

from nicd import NICD, DEADLINE, Server, check
from test_nictrace import content

NICLOAD = os.path.join(os.path.dirname(NICD), "nicload")
BASES = (1024, 10240, 102400, 1024000)


def nicload(*args, timeout=120):
    p = subprocess.run([NICLOAD] + list(args), capture_output=True,
                       timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def dirs(n):
    return int(25 + ((400000.0 / 122000.0) * n) / 5.0)


def make_fileset(root, n):
    rc, out, err = nicload("fileset", "--connections", str(n), "--root", root)
    check(rc == 0, err)
    return out


def load(url, *args):
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        rc, out, err = nicload(url, "-q", "--json", js, *args)
        check(rc == 0, "nicload exit %d: %s %s" % (rc, out, err))
        return json.load(open(js)), out


def test_fileset_follows_the_formulas():
    """Directories, names and sizes for several N; bytes as the docroot
    generator's; the same N again is fine, another N is refused."""
    for n in (1, 7, 40):
        with tempfile.TemporaryDirectory() as root:
            out = make_fileset(root, n)
            fs = os.path.join(root, "file_set")
            got = sorted(e for e in os.listdir(fs) if e.startswith("dir"))
            check(got == ["dir%05d" % d for d in range(dirs(n))],
                  "%d: %d directories" % (n, len(got)))
            total = 0
            for d in (0, dirs(n) - 1):
                for k in range(4):
                    for f in range(9):
                        path = os.path.join(fs, "dir%05d" % d,
                                            "class%d_%d" % (k, f))
                        size = BASES[k] * (f + 1) // 10
                        check(os.path.getsize(path) == size, path)
                        total += size
            check(total == 2 * 5119484, "a directory is %d bytes" % total)
            name = "/file_set/dir00000/class1_3"
            check(open(fs + "/dir00000/class1_3", "rb").read()
                  == content(name, 4096), "bytes of " + name)
            check("%d directories, %d files, %d bytes"
                  % (dirs(n), dirs(n) * 36, dirs(n) * 5119484) in out, out)
            rc, _, err = nicload("fileset", "--connections", str(n),
                                 "--root", root)
            check(rc == 0, "the same file set again: " + err)
            rc, _, err = nicload("fileset", "--connections", str(n + 200),
                                 "--root", root)
            check(rc == 1 and "holds a file set of %d directories" % dirs(n)
                  in err, err)
    with tempfile.TemporaryDirectory() as root:
        os.mkdir(os.path.join(root, "file_set"))
        rc, _, err = nicload("fileset", "--connections", "1", "--root", root)
        check(rc == 1 and "not a file set nicload made" in err, err)


def test_one_connection_is_paced():
    """Against nicd, which keeps up easily, one connection receives
    400 kbit/s within 2 %, every byte right."""
    with tempfile.TemporaryDirectory() as root:
        make_fileset(root, 1)
        with Server(root=root) as s:
            res, out = load("http://127.0.0.1:%d/" % s.port,
                            "--connections", "1", "--duration", "4",
                            "--warmup", "1", "--verify")
    # the summary's lines, as people read them
    check(re.search(r"^  mix: at most [0-9.]+ points from the target",
                    out, re.M), out)
    rate = res["conn_rate_bps"]["median"]
    check(abs(rate - 400000) <= 8000, "one connection: %.0f bit/s" % rate)
    check(res["conforming"] == 1 and res["requests"] > 5
          and res["mismatches"] == 0 and res["verified_bytes"] > 0
          and sum(res["errors"].values()) == 0, repr(res))


class RateServer:
    """Serves a file set with every response sharing one output rate
    (bits/s): chunks of 4 KiB are given out in turn, so n busy
    connections get rate / n each."""

    def __init__(self, root, rate):
        self.root, self.rate = root, rate
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        check(self.ready.wait(DEADLINE), "rate server did not start")
        return self

    def __exit__(self, *a):
        async def stop():
            tasks = [t for t in asyncio.all_tasks()
                     if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.loop.stop()
        asyncio.run_coroutine_threadsafe(stop(), self.loop)
        self.thread.join(DEADLINE)

    def run(self):
        asyncio.set_event_loop(self.loop)
        self.next_t = 0.0
        srv = self.loop.run_until_complete(
            asyncio.start_server(self.client, "127.0.0.1", 0))
        self.port = srv.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    async def client(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ")[1].decode()
                with open(self.root + path, "rb") as f:
                    body = f.read()
                data = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" \
                    % len(body) + body
                for i in range(0, len(data), 4096):
                    chunk = data[i:i + 4096]
                    now = self.loop.time()
                    t = max(now, self.next_t)
                    self.next_t = t + len(chunk) * 8 / self.rate
                    await asyncio.sleep(t - now)
                    writer.write(chunk)
                    await writer.drain()
                if b"connection: close" in head.lower():
                    break
        except (asyncio.IncompleteReadError, ConnectionError,
                asyncio.CancelledError):
            pass
        writer.close()


def test_capacity_search_finds_the_known_capacity():
    """A server of 780 kbit/s in all: 2 connections get 390 kbit/s each
    (conforming: 320), 3 get 260.  The margins are wide (20 %) because a
    busy connection's share of a short run varies by several per cent.
    The search between 1 and 8 starts at 8 (too many) and finds 2; every
    step of 2 or fewer conformed, every step of 3 or more did not."""
    with tempfile.TemporaryDirectory() as root:
        make_fileset(root, 8)
        with RateServer(root, 780000) as s:
            url = "http://127.0.0.1:%d/" % s.port
            args = ("--duration", "5", "--warmup", "1",
                    "--fileset-connections", "8")
            res, out = load(url, "--search", "--min", "1", "--max", "8",
                            *args)
    steps = [r["connections"] for r in res["steps"]]
    check(res["capacity"] == 2,
          "capacity %d (steps %r): %s" % (res["capacity"], steps, out))
    check(steps[0] == 8 and "capacity: 2 " in out, out)
    for r in res["steps"]:
        n = r["connections"]
        check(n > 2 or r["conforming"] == n, "%d: %r" % (n, r))
        check(n < 3 or r["conforming"] < n, "%d: %r" % (n, r))


def test_against_nginx():
    """The static mix against Debian's nginx serving the file set."""
    from test_nicreplay import nginx
    with tempfile.TemporaryDirectory() as root:
        make_fileset(root, 3)
        os.chmod(root, 0o755)
        with nginx(root) as port:
            res, _ = load("http://127.0.0.1:%d/" % port, "--connections", "3",
                          "--duration", "3", "--warmup", "1", "--verify")
    check(res["conforming"] == 3 and res["mismatches"] == 0
          and res["requests"] > 0 and sum(res["errors"].values()) == 0,
          repr(res))


def test_errors_by_cause():
    """Every file gone but the one nicload checks before it starts: the
    run goes on, and its 404s are counted by cause in the summary and
    the JSON."""
    with tempfile.TemporaryDirectory() as root:
        make_fileset(root, 1)
        fs = os.path.join(root, "file_set")
        dirs_ = sorted(d for d in os.listdir(fs) if d.startswith("dir"))
        last = dirs_[-1]
        for d in dirs_:
            for f in os.listdir(os.path.join(fs, d)):
                if (d, f) != (last, "class0_0"):
                    os.unlink(os.path.join(fs, d, f))
        with Server(root=root) as s, tempfile.TemporaryDirectory() as d:
            js = os.path.join(d, "r.json")
            rc, out, err = nicload("http://127.0.0.1:%d/" % s.port, "-q",
                                   "--json", js, "--connections", "1",
                                   "--duration", "1", "--warmup", "0")
            res = json.load(open(js))
    n = res["errors"]["status"]
    check(rc == 0 and n > 0 and res["error_causes"][0]
          == {"what": "status", "reason": "answered 404", "count": n},
          "%d %r %s" % (rc, res, err))
    check(re.search(r"^  causes: status: answered 404 %d$" % n, out, re.M),
          out)


def test_tls_target():
    """https://: the paced load over TLS with every byte verified, the
    sessions resumed; the check before the start names a certificate it
    does not trust."""
    from test_nicreplay import make_cert
    with tempfile.TemporaryDirectory() as root, \
            tempfile.TemporaryDirectory() as d:
        make_fileset(root, 2)
        cert, key = make_cert(d)
        with Server("listen 127.0.0.2:0 ssl;\nssl_certificate %s;\n"
                    "ssl_certificate_key %s;\n" % (cert, key),
                    root=root) as s:
            port = int(s.wait_log(r"listening on https://127\.0\.0\.2:"
                                  r"(\d+)/").group(1))
            url = "https://127.0.0.2:%d/" % port
            res, out = load(url, "--connections", "2", "--duration", "2",
                            "--warmup", "0", "--verify", "--cacert", cert)
            rc, _, err = nicload(url, "--connections", "2", "--duration",
                                 "1", "--warmup", "0")
    t = res["tls"]
    check(res["requests"] > 5 and res["mismatches"] == 0
          and res["verified_bytes"] > 0 and sum(res["errors"].values()) == 0
          and t["handshakes"] >= 2 and t["failed"] == 0
          and t["version"] == "TLSv1.3", repr(res))
    check("  tls: " in out, out)
    check(rc == 1 and "(self-signed certificate)" in err, err)


def test_bad_options():
    for args, msg in ((["http://127.0.0.1:1/", "--connections", "1", "--mix",
                        "half"], "\"static\" or \"full\""),
                      (["http://127.0.0.1:1/"], "give --connections"),
                      (["ftp://x/", "--connections", "1"], "only http://"),
                      (["http://127.0.0.1:1/", "--connections", "0"],
                       "--connections: \"0\" is not a valid value"),
                      (["fileset", "--connections", "2"], "--root")):
        rc, _, err = nicload(*args)
        check(rc == 2 and msg in err, "%r: %d %s" % (args, rc, err))
    # a server that is not there: a port bound here and never listened
    # on refuses every connection, and nobody else can take it meanwhile
    # (it fails at once, naming why: test_fail_loudly.py has the rest)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        rc, _, err = nicload("http://127.0.0.1:%d/" % held.getsockname()[1],
                             "--connections", "2", "--duration", "1",
                             "--warmup", "0")
    check(rc == 1 and "failed: nothing answers" in err, "%d %s" % (rc, err))
