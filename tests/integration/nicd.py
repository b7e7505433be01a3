"""Helpers for the integration tests: start nicd, talk HTTP/1.1 to it.

Every server listens on 127.0.0.1:0 (the kernel picks a free port) with a
configuration written into its own temporary directory; the helper learns
the port from the "listening on" line of the error log.  Nothing here
sleeps to synchronise: it waits for a log line, a socket event or a
process exit, each with a deadline.
"""

import hashlib
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

NICD = os.environ.get("NICD", "build/nicd")
DEADLINE = float(os.environ.get("NICD_TEST_DEADLINE", "20"))


class Skip(Exception):
    """Raised by a test that cannot run here (a tool is missing): the
    runner counts it as skipped, visibly, never as passed."""


class TestFailure(AssertionError):
    pass


def open_paths(pid):
    """What process pid has open: the targets of /proc/PID/fd (an unnamed
    O_TMPFILE shows as "DIR/#inode (deleted)")."""
    d = "/proc/%d/fd" % pid
    out = []
    for fd in os.listdir(d):
        try:
            out.append(os.readlink(os.path.join(d, fd)))
        except OSError:
            pass  # closed meanwhile
    return out


def uring_why():
    """None when nicd has the uring send backend and io_uring works here,
    else why not (nicd -V says)"""
    p = subprocess.run([NICD, "-V"], capture_output=True, text=True,
                       timeout=30)
    line = [ln for ln in p.stdout.splitlines()
            if ln.strip().startswith("uring ")]
    if not line:
        return "nicd was built without liburing (the uring backend)"
    if "unavailable here: " in line[0]:
        return line[0].split("unavailable here: ", 1)[1]
    return None


# every send backend that works on this machine: the tests that run per
# backend take them all (test_uring.py says skipped where uring cannot)
BACKENDS = ("sendfile", "copy", "nic") + (() if uring_why() else ("uring",))
# the uring backend in tests: zero copy to loopback peers too (by default
# they go by sendfile(2), the kernel copying zero-copy pages to them), and
# from 4 KiB, so the zero-copy path and its notifications are what runs
URING_TEST_CONF = "uring_zc_local on;\nuring_zc_min 4k;"


def check(cond, what):
    if not cond:
        raise TestFailure(what)


def wait_until(pred, what, timeout=DEADLINE, interval=0.01):
    """Poll pred() until it is true; fail with what after timeout."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > end:
            raise TestFailure("timed out waiting for " + what)
        time.sleep(interval)


class Server:
    """A nicd process with a config in a temporary directory.

    root: a directory to serve (default: an empty one in the temp dir).
    conf: directives added to the generated configuration.
    """

    def __init__(self, conf="", root=None, threads=2, backend=None,
                 access_log=True, args=(), env=None, listen=""):
        self.dir = tempfile.mkdtemp(prefix="nicd-it-")
        self.root = root or os.path.join(self.dir, "www")
        os.makedirs(self.root, exist_ok=True)
        self.error_log = os.path.join(self.dir, "error.log")
        self.access_log = os.path.join(self.dir, "access.log")
        self.conf_path = os.path.join(self.dir, "nicd.conf")
        self.threads = threads
        self.backend = backend
        self.access = access_log
        self.extra = conf
        self.listen = listen
        self.args = list(args)
        self.env = dict(os.environ, **env) if env else None
        self.proc = None
        self.port = None
        self.write_conf(conf)

    def write_conf(self, extra):
        lines = [
            "worker_threads %d;" % self.threads,
            "error_log %s info;" % self.error_log,
            "listen 127.0.0.1:0 %s;" % self.listen,
            "root %s;" % self.root,
            "include %s;" % os.path.abspath("conf/mime.types"),
        ]
        if self.access:
            lines.append("access_log %s buffer=4k flush=100ms;"
                         % self.access_log)
        if self.backend:
            lines.append("send_backend %s;" % self.backend)
        if self.backend == "uring":
            lines.append(URING_TEST_CONF)
        lines.append(extra)
        with open(self.conf_path, "w") as f:
            f.write("\n".join(lines) + "\n")

    def log(self):
        try:
            with open(self.error_log, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def wait_log(self, pattern, count=1, timeout=DEADLINE):
        """Wait until pattern (a regex) occurs count times in the error
        log; return the last match."""
        rx = re.compile(pattern)

        def found():
            if self.proc is not None and self.proc.poll() is not None \
                    and self.proc.returncode != 0:
                raise TestFailure("nicd exited with %d:\n%s"
                                  % (self.proc.returncode, self.log()))
            m = list(rx.finditer(self.log()))
            return m[count - 1] if len(m) >= count else None
        return wait_until(found, "error log line /%s/ x%d" % (pattern, count),
                          timeout)

    def start(self):
        self.proc = subprocess.Popen(
            [NICD, "-c", self.conf_path] + self.args, env=self.env,
            stdout=subprocess.DEVNULL, stderr=open(
                os.path.join(self.dir, "stderr"), "w"))
        m = self.wait_log(r"listening on http://127\.0\.0\.1:(\d+)/")
        self.port = int(m.group(1))
        return self

    def reload(self, extra=None):
        """Rewrite the config (when extra is given), SIGHUP, and wait for
        the new generation."""
        n = len(re.findall(r"configuration reloaded", self.log()))
        if extra is not None:
            self.write_conf(extra)
        self.proc.send_signal(signal.SIGHUP)
        self.wait_log(r"configuration reloaded", count=n + 1)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=DEADLINE):
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise TestFailure("nicd did not exit after signal %d" % sig)
        rc = self.proc.returncode
        stderr = open(os.path.join(self.dir, "stderr")).read()
        # sanitizer reports go to stderr: any is a failure
        check("ERROR: AddressSanitizer" not in stderr
              and "runtime error:" not in stderr
              and "LeakSanitizer" not in stderr,
              "sanitizer report from nicd:\n" + stderr[-4000:])
        return rc

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, et, ev, tb):
        try:
            rc = self.stop()
            if et is None:
                check(rc == 0, "nicd exited with %s:\n%s" % (rc, self.log()))
        finally:
            if et is None:
                self.cleanup()
            else:
                print("    (nicd files kept in %s)" % self.dir)

    # files in the docroot

    def put(self, name, data):
        path = os.path.join(self.root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def put_patterns(self, sizes):
        """Files /f0, /f1, ... of the sizes given, each a pattern of its
        own; returns {path: bytes}."""
        files = {}
        for i, n in enumerate(sizes):
            files["/f%d" % i] = pattern(n, seed=i)
            self.put("f%d" % i, files["/f%d" % i])
        return files

    def connect(self, timeout=DEADLINE):
        return Conn(self.port, timeout)


class Response:
    def __init__(self, status, reason, headers, body, raw_head):
        self.status = status
        self.reason = reason
        self.headers = headers          # list of (name, value)
        self.body = body
        self.raw_head = raw_head

    def header(self, name, default=None):
        name = name.lower()
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return default

    def header_all(self, name):
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def __repr__(self):
        return "<Response %d %r, %d body bytes>" % (
            self.status, self.headers, len(self.body))


class Closed(Exception):
    """The server closed the connection before a whole response."""


class Conn:
    """One client connection, with a buffer, for keep-alive and
    pipelining."""

    def __init__(self, port, timeout=DEADLINE):
        self.sock = socket.create_connection(("127.0.0.1", port),
                                             timeout=timeout)
        self.buf = b""

    def send(self, data):
        if isinstance(data, str):
            data = data.encode("latin-1")
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise Closed("connection closed by the server")
        self.buf += chunk

    def read_exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_chunked(self):
        """a chunked body, de-chunked (its trailer fields dropped)"""
        body = b""
        while True:
            n = int(self.read_line().split(b";")[0], 16)
            if n == 0:
                while self.read_line():
                    pass
                return body
            body += self.read_exact(n)
            check(self.read_exact(2) == b"\r\n", "a chunk without CRLF")

    def read_response(self, head=False):
        """One response; head: it answers a HEAD (no body)."""
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        raw, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = raw.decode("latin-1").split("\r\n")
        m = re.match(r"HTTP/1\.1 (\d{3}) (.*)$", lines[0])
        if not m:
            raise TestFailure("bad status line %r" % lines[0])
        status = int(m.group(1))
        headers = []
        for line in lines[1:]:
            k, _, v = line.partition(":")
            check(k and k == k.strip() and _ == ":",
                  "bad header line %r" % line)
            headers.append((k, v.strip()))
        r = Response(status, m.group(2), headers, b"", raw)
        if head or status in (204, 304) or 100 <= status < 200:
            return r
        cl = r.header("Content-Length")
        if (r.header("Transfer-Encoding") or "").lower() == "chunked":
            r.body = self.read_chunked()
        elif cl is not None:
            r.body = self.read_exact(int(cl))
        else:
            while True:
                try:
                    self._fill()
                except Closed:
                    break
            r.body, self.buf = self.buf, b""
        return r

    def request(self, path="/", method="GET", headers=None, version="1.1"):
        self.send(build(path, method, headers, version))
        return self.read_response(head=(method == "HEAD"))

    def wait_closed(self):
        """True when the server closes this connection (EOF or reset)
        before the deadline; data still arriving is read and dropped."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()


def free_port():
    """A port the kernel says is free now (for servers that cannot be
    given port 0, such as nginx)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def build(path="/", method="GET", headers=None, version="1.1"):
    h = {"Host": "localhost"}
    h.update(headers or {})
    lines = ["%s %s HTTP/%s" % (method, path, version)]
    lines += ["%s: %s" % (k, v) for k, v in h.items() if v is not None]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def get(port, path="/", headers=None, method="GET", version="1.1"):
    """One request on a new connection."""
    c = Conn(port)
    try:
        return c.request(path, method, headers, version)
    finally:
        c.close()


def raw(port, data, timeout=DEADLINE, host="127.0.0.1"):
    """Send raw bytes; return everything the server sends until it closes
    (or the timeout).  port: a TCP port of host, or the path of a
    UNIX-domain socket."""
    if isinstance(port, str):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(port)
        except OSError:
            s.close()
            raise
    else:
        s = socket.create_connection((host, port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def recv_until(sock, done):
    """what sock sends until done(bytes so far) is true or it closes"""
    got = b""
    while not done(got):
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def pattern(n, seed=0):
    """n bytes that depend on position and seed (cheap to make, no two
    offsets of a page alike)."""
    block = hashlib.sha256(b"%d" % seed).digest() * 2048 + bytes(range(251))
    out = (block * (n // len(block) + 1))[:n]
    return out


def known_failure(reason):
    """Mark a test that fails for a known reason: it is run and reported,
    not counted as a failure, and flagged if it starts passing."""
    def mark(fn):
        fn.known_failure = reason
        return fn
    return mark
