"""The workers' event loop (events { use METHOD; }): the io_uring loop
really is the one running when asked for, serves, times out and reloads;
refused by the kernel it gives way to libevent's with a warn line; the
libevent methods nicd offers all serve.  (make test runs the whole suite
on the io_uring loop too: its ASan run sets NICD_EVENTS.)"""

import os
import socket
import subprocess
import time

from nicd import NICD, Server, Skip, check, get, recv_until, wait_until


def uring_why():
    """Why this nicd cannot run its io_uring loop here, or None."""
    out = subprocess.run([NICD, "-V"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if line.startswith("event loops:"):
            return None if line.endswith("io_uring") else line
    return "nicd -V names no event loops"


def rings(pid):
    """How many io_uring instances the process has open."""
    n = 0
    fds = "/proc/%d/fd" % pid
    for fd in os.listdir(fds):
        try:
            if os.readlink(os.path.join(fds, fd)) == "anon_inode:[io_uring]":
                n += 1
        except OSError:
            pass
    return n


def test_io_uring_loop_runs_serves_and_times_out():
    """use io_uring: one ring a worker (the sendfile backend has none), no
    fallback line; files served over keep-alive and pipelined; a client
    that says nothing is closed at client_header_timeout (the loop's
    timers); a reload's workers run it too."""
    why = uring_why()
    if why is not None:
        raise Skip(why)
    conf = "events { use io_uring; }\nclient_header_timeout 300ms;"
    with Server(conf, threads=2, backend="sendfile") as s:
        s.put("a.txt", b"a" * 5000)
        s.wait_log(r"\[info\].* event loop: io_uring")
        check(rings(s.proc.pid) == 2, "rings open: %d" % rings(s.proc.pid))
        check("not available" not in s.log(), s.log())
        r = get(s.port, "/a.txt")
        check(r.status == 200 and r.body == b"a" * 5000, repr(r.status))
        with socket.create_connection(("127.0.0.1", s.port), 5) as c:
            c.sendall(b"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n" * 3)
            data = recv_until(c, lambda d: d.count(b"a" * 5000) == 3)
            check(data.count(b"HTTP/1.1 200") == 3, data[:200])
        with socket.create_connection(("127.0.0.1", s.port), 5) as c:
            t0 = time.monotonic()
            c.settimeout(5)
            check(c.recv(100) == b"", "an idle client is closed")
            waited = time.monotonic() - t0
            check(0.2 < waited < 3, "closed after %.2fs" % waited)
        s.reload()
        wait_until(lambda: rings(s.proc.pid) == 2, "the new workers' rings")
        r = get(s.port, "/a.txt")
        check(r.status == 200, "after a reload: %r" % r.status)
    s.cleanup()


def test_refused_io_uring_gives_way_to_libevent():
    """When the kernel refuses io_uring (NICACHE_URING_OFF pretends it
    does), use io_uring says so at warn and the workers run libevent's
    loop: no ring, and every request answered."""
    with Server("events { use io_uring; }", threads=2, backend="sendfile",
                env={"NICACHE_URING_OFF": "1"}) as s:
        s.wait_log(r"\[warn\].*the io_uring event loop is not available "
                   r"\(.*\): libevent's is used")
        s.wait_log(r"\[info\].* event loop: epoll")
        s.put("b.txt", b"b")
        r = get(s.port, "/b.txt")
        check(r.status == 200 and r.body == b"b", repr(r.status))
        check(rings(s.proc.pid) == 0, "rings open: %d" % rings(s.proc.pid))
    s.cleanup()
    out = subprocess.run([NICD, "-V"], capture_output=True, text=True,
                         env=dict(os.environ, NICACHE_URING_OFF="1")).stdout
    check("io_uring not here:" in out, "nicd -V: %r" % out)


def test_every_libevent_method_serves():
    """use epoll, poll and select each serve, libevent held to that one
    (the error log names the method the worker runs)."""
    for m in ("epoll", "poll", "select"):
        with Server("events { use %s; }" % m, threads=1) as s:
            s.wait_log(r"\[info\].* event loop: %s\n" % m)
            s.put("c.txt", m.encode())
            r = get(s.port, "/c.txt")
            check(r.status == 200 and r.body == m.encode(),
                  "use %s: %r" % (m, r.status))
        s.cleanup()
