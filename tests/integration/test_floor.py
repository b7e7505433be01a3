"""The floor responders of bench/floor/ (issue 44), which bench/peers.sh
loads beside the servers: they must answer what the servers answer, or
the floor they measure is not one.  Each file's bytes exact, one request
at a time and sixteen pipelined in one write (a body larger than the
socket's buffer among them, so sends go in parts), a 404 for a path not
there, requests split across reads, and a bad option refused with one
line.  floor_uring says skipped where it was not built or io_uring is
refused here."""

import os
import shutil
import socket
import subprocess
import tempfile

from nicd import NICD, Conn, Skip, build, check, free_port, pattern, \
    sha256, wait_until

BIN = os.path.join(os.path.dirname(NICD), "bench")


class Floor:
    def __init__(self, name):
        self.path = os.path.join(BIN, name)
        if not os.access(self.path, os.X_OK):
            if name == "floor_uring":
                raise Skip("%s not built (no liburing)" % self.path)
            raise AssertionError("%s not built" % self.path)
        self.dir = tempfile.mkdtemp(prefix="floor-it-")
        self.files = {"/1k.bin": pattern(1024, 1),
                      "/16k.bin": pattern(16384, 2),
                      "/empty": b"",
                      "/big.bin": pattern(5 << 20, 3)}
        for p, data in self.files.items():
            with open(self.dir + p, "wb") as f:
                f.write(data)
        self.port = free_port()
        self.proc = subprocess.Popen(
            [self.path, "--port", str(self.port), "--root", self.dir],
            stderr=subprocess.PIPE)

        def up():
            if self.proc.poll() is not None:
                return True
            try:
                Conn(self.port, timeout=1).close()
                return True
            except OSError:
                return False
        wait_until(up, "%s listening" % name)
        if self.proc.poll() is not None:
            err = self.proc.stderr.read().decode().strip()
            shutil.rmtree(self.dir)
            if name == "floor_uring" and "io_uring" in err:
                raise Skip(err)
            raise AssertionError("%s exited: %s" % (name, err))

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.proc.terminate()
        self.proc.wait()
        self.proc.stderr.close()
        shutil.rmtree(self.dir)


def serves_every_file(name):
    with Floor(name) as fl:
        c = Conn(fl.port)
        for p, data in fl.files.items():
            r = c.request(p)
            check(r.status == 200 and sha256(r.body) == sha256(data),
                  "%s %s: %d, %d bytes" % (name, p, r.status, len(r.body)))
        r = c.request("/not-there")
        check(r.status == 404 and r.body == b"", "404: %d" % r.status)
        # sixteen in one write, the large one among them
        order = ["/1k.bin", "/big.bin", "/empty", "/16k.bin"] * 4
        c.send(b"".join(build(p) for p in order))
        for p in order:
            r = c.read_response()
            check(r.status == 200 and r.body == fl.files[p],
                  "%s pipelined %s" % (name, p))
        # a request in three pieces, each read before the next is sent:
        # a whole request on another connection, answered, comes after
        # the piece in the one thread's order of events (no delay)
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        req = build("/16k.bin")
        for piece in (req[:5], req[5:20], req[20:]):
            c.send(piece)
            other = Conn(fl.port)
            check(other.request("/1k.bin").status == 200, "meanwhile")
            other.close()
        check(c.read_response().body == fl.files["/16k.bin"], "in pieces")
        check(c.request("/1k.bin").status == 200, "after the pieces")
        c.close()
        check(fl.proc.poll() is None, "%s still running" % name)


def test_epoll_floor_serves_every_file():
    serves_every_file("floor_epoll")


def test_uring_floor_serves_every_file():
    serves_every_file("floor_uring")


def test_floor_refuses_a_bad_option_in_one_line():
    path = os.path.join(BIN, "floor_epoll")
    for args in (["--port", "x", "--root", "/"], ["--root", "/"],
                 ["--port", "1", "--root", "/nonexistent"]):
        p = subprocess.run([path] + args, capture_output=True, text=True,
                           timeout=30)
        check(p.returncode == 2 and len(p.stderr.splitlines()) == 1
              and p.stderr.startswith(("floor_epoll: ", "usage: ")),
              "%r: rc %d, %r" % (args, p.returncode, p.stderr))
