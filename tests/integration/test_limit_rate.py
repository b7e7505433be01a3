"""limit_rate as nginx's: a response's body goes at most RATE bytes a second
after one second's worth, per location; other locations are not slowed,
and the bytes are the file's.  Only a lower bound on the time is checked
(a limit cannot make a response faster)."""

import time

from nicd import Server, check, get, pattern, sha256


def timed_get(s, path, data, what):
    """GET path, checked to be data; the seconds it took"""
    t0 = time.monotonic()
    r = get(s.port, path)
    took = time.monotonic() - t0
    check(r.status == 200 and sha256(r.body) == sha256(data),
          "%s: %d, %d bytes" % (what, r.status, len(r.body)))
    return took


def test_limit_rate_paces_a_location():
    data = pattern(160 * 1024)
    with Server(threads=1, conf="""
        location /slow/ { limit_rate 64k; }
        location /off/ { limit_rate 0; }
    """) as s:
        s.put("slow/f.bin", data)
        s.put("off/f.bin", data)
        slow = timed_get(s, "/slow/f.bin", data, "slow")
        # 64 KiB at once, then 64 KiB a second: 160 KiB takes 1.5 s
        check(slow >= 1.3, "160 KiB at 64k/s took only %.2f s" % slow)
        timed_get(s, "/off/f.bin", data, "off")
        # a range of the limited file, and the connection's next request
        r = get(s.port, "/slow/f.bin", {"Range": "bytes=0-1023"})
        check(r.status == 206 and r.body == data[:1024], "range")


def test_set_limit_rate_paces_a_location():
    # "set $limit_rate" (nginx's variable) paces as the directive does;
    # only a configuration naming it reads it per request
    data = pattern(160 * 1024)
    with Server(threads=1, conf="""
        location /set/ { set $limit_rate 64k; }
        location /plain/ { }
    """) as s:
        s.put("set/f.bin", data)
        s.put("plain/f.bin", data)
        slow = timed_get(s, "/set/f.bin", data, "set")
        check(slow >= 1.3, "160 KiB at a set 64k/s took only %.2f s" % slow)
        timed_get(s, "/plain/f.bin", data, "plain")
