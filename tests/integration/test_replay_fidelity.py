"""Replaying logs as they are: lines out of time order (sessions and
shards do not depend on the order), the log formats people configure
(nginx log_format strings, JSON lines)."""

import gzip
import json
import os
import random
import subprocess
import tempfile

from nicd import Server, check
from test_nicreplay import NICREPLAY, replay
from test_nictrace import NASA10K, run

MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def nasa_unsorted(path, seed=7, delay=59):
    """The NASA 10k sample as a log written when requests end: each line
    moves to its request's start time plus up to delay seconds, its own
    (start) time unchanged.  Returns the number of lines earlier than the
    line before."""
    import calendar
    lines = gzip.open(NASA10K, "rt", encoding="latin-1").read().splitlines()
    rnd = random.Random(seed)
    keyed = []
    for i, line in enumerate(lines):
        ts = line.split("[", 1)[1].split("]", 1)[0]
        d, mon, rest = ts.split("/", 2)
        y, hh, mm, ss = rest.split(" ")[0].split(":")
        t = calendar.timegm((int(y), MONTHS.index(mon) + 1, int(d), int(hh),
                             int(mm), int(ss)))
        keyed.append((t + rnd.randint(0, delay), i, t, line))
    keyed.sort()
    with open(path, "w", encoding="latin-1") as f:
        for _, _, _, line in keyed:
            f.write(line + "\n")
    return sum(1 for a, b in zip(keyed, keyed[1:]) if b[2] < a[2])


def test_unsorted_log_shards_partition():
    """On a log whose lines are out of order by up to 59 s, the sessions
    are those of the sorted log, nictrace sessions and nicreplay agree,
    and --shard 0/2 + 1/2 replay every request exactly once."""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "unsorted.log")
        back = nasa_unsorted(log)
        check(back > 3000, "only %d lines out of order" % back)
        rc, out, err = run("sessions", "--json", NASA10K)
        check(rc == 0, err)
        want = json.loads(out)
        rc, out, err = run("sessions", "--json", log)
        check(rc == 0, err)
        got = json.loads(out)
        check(got["connections"] == want["connections"],
              "sessions %d on the unsorted log, %d sorted"
              % (got["connections"], want["connections"]))
        # with the window off, the log's order makes other sessions
        rc, out, err = run("sessions", "--json", "--reorder-window", "0", log)
        check(rc == 0 and json.loads(out)["connections"]
              != want["connections"], "window 0 changed nothing")

        root = os.path.join(d, "root")
        os.mkdir(root)
        rc, _, err = run("docroot", "--root", root, log)
        check(rc == 0, err)
        with Server(root=root) as s:
            url = "http://127.0.0.1:%d/" % s.port
            whole, wlog = replay(log, url, "-c", "16")
            check(whole["sessions"] == want["connections"],
                  "nicreplay %d sessions, nictrace %d"
                  % (whole["sessions"], want["connections"]))
            parts = []
            for i in range(2):
                res, plog = replay(log, url, "-c", "8", "--shard",
                                   "%d/2" % i)
                parts.append((res, plog))
            check(parts[0][0]["sessions"] + parts[1][0]["sessions"]
                  == whole["sessions"], "shard sessions %r"
                  % [p[0]["sessions"] for p in parts])
            key = lambda lg: sorted((s, m, t) for s, m, t, _, _ in lg)
            union = key(parts[0][1] + parts[1][1])
            check(union == key(wlog), "shards: %d requests, whole %d; "
                  "%d differ" % (len(union), len(wlog),
                                 len(set(union) ^ set(key(wlog)))))
            check(len(set(s for s, _, _, _, _ in parts[0][1])
                      & set(s for s, _, _, _, _ in parts[1][1])) == 0,
                  "a session in both shards")
