"""Signals as nginx: SIGHUP reload under load loses no request, SIGUSR1
reopens logs, SIGQUIT finishes in-flight responses, SIGTERM stops."""

import os
import signal
import socket
import threading

from nicd import (Closed, Conn, Server, build, check, get, pattern,
                  sha256, wait_until)


def client_loop(port, stop, results, body_hash):
    """Requests back to back over keep-alive connections; a connection the
    server closes (Connection: close) is replaced.  Every request must get
    a 200 with the right body."""
    c = None
    while not stop.is_set():
        try:
            if c is None:
                c = Conn(port, timeout=10)
            c.send(build("/f.bin"))
            r = c.read_response()
            ok = r.status == 200 and sha256(r.body) == body_hash
            results["ok" if ok else "bad"] += 1
            if r.header("Connection") == "close":
                c.close()
                c = None
                results["reconnects"] += 1
        except (Closed, ConnectionError, socket.timeout) as e:
            # a request lost: the server closed or reset a connection
            # that it had not announced as closing
            results["lost"] += 1
            results["errors"].append(repr(e))
            if c:
                c.close()
            c = None
    if c:
        c.close()


def test_reload_under_load_loses_nothing():
    data = pattern(20000)
    with Server(threads=2) as s:
        s.put("f.bin", data)
        stop = threading.Event()
        results = {"ok": 0, "bad": 0, "lost": 0, "reconnects": 0,
                   "errors": []}
        threads = [threading.Thread(target=client_loop,
                                    args=(s.port, stop, results,
                                          sha256(data)))
                   for _ in range(8)]
        for t in threads:
            t.start()
        wait_until(lambda: results["ok"] > 200, "load to start")
        for i in range(5):
            # alternate a setting a client can see
            s.reload("server_tokens %s;" % ("off" if i % 2 == 0 else "on"))
            n = results["ok"]
            wait_until(lambda: results["ok"] > n + 100,
                       "requests after reload %d" % i)
        r = get(s.port, "/f.bin")
        check(r.header("Server") == "nicd", "the new configuration is live: "
              "%r" % r.header("Server"))
        stop.set()
        for t in threads:
            t.join()
        check(results["lost"] == 0 and results["bad"] == 0,
              "lost %d, bad %d of %d: %s" % (results["lost"], results["bad"],
                                             results["ok"],
                                             results["errors"][:3]))
        check(results["reconnects"] > 0, "old workers never retired")
        s.wait_log(r"generation \d+ retired")


def test_reload_with_a_bad_config_keeps_serving():
    with Server() as s:
        s.put("a", b"a")
        with open(s.conf_path, "a") as f:
            f.write("bogus_directive on;\n")
        s.proc.send_signal(signal.SIGHUP)
        s.wait_log(r"unknown directive \"bogus_directive\" in .*nicd\.conf:"
                   r"\d+; the running configuration stays")
        check(get(s.port, "/a").status == 200, "still serving")


def test_usr1_reopens_logs():
    with Server() as s:
        s.put("a", b"a")
        check(get(s.port, "/a", headers={"User-Agent": "first"}).status
              == 200, "first")
        wait_until(lambda: os.path.exists(s.access_log)
                   and b"first" in open(s.access_log, "rb").read(),
                   "first line in the access log")
        os.rename(s.access_log, s.access_log + ".1")
        os.rename(s.error_log, s.error_log + ".1")
        s.proc.send_signal(signal.SIGUSR1)
        wait_until(lambda: os.path.exists(s.error_log), "new error log")
        s.wait_log(r"logs reopened")
        check(get(s.port, "/a", headers={"User-Agent": "second"}).status
              == 200, "second")
        wait_until(lambda: os.path.exists(s.access_log)
                   and b"second" in open(s.access_log, "rb").read(),
                   "second line in the new access log")
        check(b"second" not in open(s.access_log + ".1", "rb").read(),
              "written to the old file")


def test_quit_finishes_in_flight():
    # larger than what socket buffers hold while the client reads nothing
    data = pattern(32 << 20, seed=5)
    s = Server()
    s.start()
    try:
        s.put("big.bin", data)
        s.put("a", b"a")
        idle = s.connect()
        check(idle.request("/a").status == 200, "idle connection")
        silent = s.connect()    # accepted, never sends a byte
        c = s.connect()
        c.send(build("/big.bin"))
        first = c.sock.recv(4096)   # the response has started
        check(first.startswith(b"HTTP/1.1 200"), "started: %r" % first[:20])
        s.proc.send_signal(signal.SIGQUIT)
        s.wait_log(r"gracefully shutting down")
        check(idle.wait_closed(), "idle connection closed at once")
        check(silent.wait_closed(), "silent connection closed at once")
        c.buf = first
        r = c.read_response()
        check(sha256(r.body) == sha256(data), "in-flight body cut short")
        check(s.proc.wait(20) == 0, "exit code")
        check(c.wait_closed(), "closed after the response")
    finally:
        s.stop()
        s.cleanup()


def test_term_stops():
    s = Server()
    s.start()
    c = s.connect()
    rc = s.stop(signal.SIGTERM)
    check(rc == 0, "exit code %s" % rc)
    check(c.wait_closed(), "connection left open")
    s.wait_log(r"exiting \(signal 15\)")
    s.cleanup()


def test_reloads_retire_idle_connections():
    """Reloads while clients hold idle keep-alive connections leave one
    generation's threads, not one per reload until keepalive_timeout (issue
    32): an old worker closes its idle connections and exits.  A request
    sent on such a connection just after the reload is still answered."""
    with Server(threads=2, conf="keepalive_timeout 300s;") as s:
        s.put("a.txt", b"aaa")
        tasks = lambda: len(os.listdir("/proc/%d/task" % s.proc.pid))
        base = tasks()
        idle = [s.connect() for _ in range(8)]
        for c in idle:
            check(c.request("/a.txt").status == 200, "first request")
        busy = s.connect()
        check(busy.request("/a.txt").status == 200, "busy's first")
        s.reload()
        # the one just used (within the grace) answers once more, and says
        # it closes
        r = busy.request("/a.txt")
        check(r.status == 200 and r.header("Connection") == "close",
              "after the reload: %d %r" % (r.status, r.header("Connection")))
        for _ in range(9):
            s.reload()
        wait_until(lambda: tasks() == base,
                   "threads back to one generation's %d (now %d)"
                   % (base, tasks()))
        for c in idle:
            c.sock.settimeout(10)
            check(c.sock.recv(100) == b"", "an idle connection left open")
            c.close()
        check(get(s.port, "/a.txt").status == 200, "serving after")
        s.wait_log(r"generation \d+ retired", count=10)
