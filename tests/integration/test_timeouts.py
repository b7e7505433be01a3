"""client_header_timeout (408 to a client trickling its head, others
served meanwhile) and send_timeout (a client that never reads)."""

import socket
import time

from nicd import Server, check, get, pattern, raw


def test_slow_header_gets_408():
    with Server(conf="client_header_timeout 2s;") as s:
        s.put("a.txt", b"aaa")
        slow = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        head = b"GET /a.txt HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"z" * 100
        t0 = time.monotonic()
        got = b""
        served_meanwhile = 0
        for i, byte in enumerate(head):
            # one byte per second is the behaviour under test, not a wait
            # for the server: the pacing is the client's
            try:
                slow.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                break
            r = get(s.port, "/a.txt")
            served_meanwhile += r.status == 200
            slow.settimeout(1.0)
            try:
                chunk = slow.recv(4096)
            except socket.timeout:
                continue
            got += chunk
            if not chunk or b"\r\n\r\n" in got:
                break
        dt = time.monotonic() - t0
        check(got.startswith(b"HTTP/1.1 408 "), "got %r" % got[:60])
        check(1.5 <= dt < 6, "408 after %.1fs with a 2s timeout" % dt)
        check(served_meanwhile >= 1, "others not served meanwhile")
        check(get(s.port, "/a.txt").status == 200, "serving after")
        s.wait_log(r"client timed out while reading the request head")


def test_idle_new_connection_closed_quietly():
    with Server(conf="client_header_timeout 1s;") as s:
        c = s.connect(timeout=10)
        t0 = time.monotonic()
        data = c.sock.recv(100)
        check(data == b"", "a connection that sent nothing got %r" % data)
        check(time.monotonic() - t0 < 5, "not closed in time")


def test_send_timeout():
    with Server(conf="send_timeout 1s;") as s:
        s.put("big.bin", pattern(32 << 20))
        c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        # never read: the server's writes stop, and after 1 s it gives up
        s.wait_log(r"client timed out while the response was sent")
        check(get(s.port, "/missing").status == 404, "serving after")
        c.close()


def test_client_body_timeout():
    """A body read for its handler (a proxied location reads it whole
    first) that stops coming for client_body_timeout gets 408 and the
    connection closes, as nginx's; the server serves on.  A body nicd
    skips (a static location's) that stops is closed without a second
    answer after the first."""
    conf = ("client_body_timeout 1s;\n"
            "location /p { proxy_pass http://127.0.0.1:9; }\n")
    with Server(conf=conf) as s:
        got = raw(s.port, b"POST /p HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Length: 10\r\n\r\nabc")
        check(got.startswith(b"HTTP/1.1 408 "), "no 408: %r" % got[:80])
        s.wait_log(r"client timed out, client: 127\.0\.0\.1")
        got = raw(s.port, b"POST /missing HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Length: 10\r\n\r\nabc")
        check(got.count(b"HTTP/1.1 ") == 1 and got[9:12] in (b"404", b"405"),
              "skipped body: %r" % got[:80])
        s.wait_log(r"client timed out while a request body was skipped")
        check(get(s.port, "/missing").status == 404, "serving after")
