"""Access log: nginx's combined format, escaping, buffering, off."""

import os
import re

from nicd import Server, check, get, raw, wait_until

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


def test_access_log_off():
    with Server(access_log=False, conf="access_log off;") as s:
        s.put("a", b"a")
        check(get(s.port, "/a").status == 200, "served")
    check(not os.path.exists(s.access_log), "log written with access_log off")
