"""The trace tools fail loudly (issue 29): a run that did not do what was
asked exits non-zero with one line saying why, never prints a share of
nothing as 100 %, and its partial outputs say that it failed."""

import gzip
import json
import os
import socket
import subprocess
import tempfile

from nicd import NICD, Server, check, wait_until
from test_nictrace import NASA10K

BIN = os.path.dirname(NICD)


def tool(name, *args, timeout=60):
    p = subprocess.run([os.path.join(BIN, name)] + list(args),
                       capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def one_line_why(err, what):
    """stderr's last line is "TOOL: failed: ..." and names what."""
    lines = [x for x in err.splitlines() if x.strip()]
    return bool(lines) and ": failed: " in lines[-1] and what in lines[-1]


class Refusing:
    """A port bound and not listening: every connect is refused (no fixed
    port, and nobody else can take it meanwhile)."""

    def __enter__(self):
        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:%d/" % self.s.getsockname()[1]
        return self

    def __exit__(self, *exc):
        self.s.close()


def test_nicreplay_with_nothing_listening_fails():
    with Refusing() as r, tempfile.TemporaryDirectory() as d:
        js, log = os.path.join(d, "r.json"), os.path.join(d, "r.log")
        rc, out, err = tool("nicreplay", "-q", "--json", js, "--log", log,
                            "--requests", "200", NASA10K, r.url)
        check(rc == 1 and one_line_why(err, "no request was answered"),
              "rc %d: %s" % (rc, err))
        check("100.00 %" not in out, "a share of nothing: %s" % out)
        res = json.load(open(js))
        check(res["run_failed"] and "no request" in res["run_failed"],
              "json: %r" % res.get("run_failed"))
        check(open(log).read().rstrip().splitlines()[-1]
              .startswith("# run failed:"), "the log does not say so")


def test_nicreplay_when_the_server_dies_mid_run_fails():
    with tempfile.TemporaryDirectory() as d:
        root = os.path.join(d, "www")
        rc, _, err = tool("nictrace", "docroot", NASA10K, "--root", root)
        check(rc == 0, err)
        s = Server(root=root, threads=1).start()
        url = "http://127.0.0.1:%d/" % s.port
        p = subprocess.Popen([os.path.join(BIN, "nicreplay"), "-q", "-c", "2",
                              "--loop", "--duration", "6", NASA10K, url],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_until(lambda: os.path.getsize(s.access_log) > 0,
                       "the replay to reach the server")
        finally:
            s.stop()
            s.cleanup()
        out, err = p.communicate(timeout=60)
        err = err.decode()
        check(p.returncode == 1 and one_line_why(err, "could not connect"),
              "rc %d: %s" % (p.returncode, err))


def test_traces_with_nothing_that_parses_fail_every_tool():
    with tempfile.TemporaryDirectory() as d:
        noise = os.path.join(d, "noise.log")
        with open(noise, "wb") as f:
            f.write(os.urandom(4096).replace(b"\n", b" ") + b"\n")
        empty = os.path.join(d, "empty.log")
        open(empty, "w").close()
        js = os.path.join(d, "bad.json")
        with open(js, "w") as f:
            f.write('{"time": "x"}\n{"nothing": 1}\n')
        for trace, fmt in ((noise, "clf"), (empty, "clf"), (js, "json")):
            for name, args in (("nictrace", ["stats", trace]),
                               ("nictrace", ["sessions", trace]),
                               ("nictrace", ["convert", trace, "--out",
                                             os.path.join(d, "o.nic")]),
                               ("nicsim", [trace])):
                rc, out, err = tool(name, *args, "--format", fmt)
                check(rc == 1 and one_line_why(err, "no record"),
                      "%s %s %s: rc %d: %s" % (name, args[0], fmt, rc, err))
        with Refusing() as r:
            rc, out, err = tool("nicreplay", "-q", "--format", "clf", noise,
                                r.url)
            check(rc == 1 and one_line_why(err, "no record"),
                  "nicreplay: rc %d: %s" % (rc, err))


def test_docroot_of_another_trace_is_refused():
    with tempfile.TemporaryDirectory() as d:
        root = os.path.join(d, "www")
        other = os.path.join(d, "other.log")
        with gzip.open(NASA10K, "rt", encoding="latin-1") as f:
            lines = f.readlines()[:50]
        with open(other, "w") as f:
            f.writelines(lines)
        rc, _, err = tool("nictrace", "docroot", NASA10K, "--root", root)
        check(rc == 0, err)
        manifest = open(os.path.join(root, ".nictrace-manifest")).read()
        rc, _, err = tool("nictrace", "docroot", other, "--root", root)
        check(rc == 1 and one_line_why(err, "docroot of another trace"),
              "rc %d: %s" % (rc, err))
        check(open(os.path.join(root, ".nictrace-manifest")).read()
              == manifest, "the manifest was replaced")
        # the same trace again, named another way, is fine
        rc, _, err = tool("nictrace", "docroot",
                          os.path.relpath(NASA10K), "--root", root)
        check(rc == 0, err)


def test_nicload_refuses_a_file_set_too_small_and_no_server():
    with tempfile.TemporaryDirectory() as d:
        root = os.path.join(d, "specweb")
        rc, _, err = tool("nicload", "fileset", "--connections", "5",
                          "--root", root)
        check(rc == 0, err)
        with Server(root=root, threads=1) as s:
            url = "http://127.0.0.1:%d/" % s.port
            rc, out, err = tool("nicload", url, "--connections", "50",
                                "--duration", "2", "--warmup", "0", "-q")
            check(rc == 1 and one_line_why(err, "smaller than 50 connections"),
                  "rc %d: %s %s" % (rc, out, err))
        with Refusing() as r:
            rc, out, err = tool("nicload", r.url, "--connections", "5",
                                "--duration", "1", "--warmup", "0", "-q")
            check(rc == 1 and one_line_why(err, "nothing answers"),
                  "rc %d: %s" % (rc, err))
