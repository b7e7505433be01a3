"""Memory per connection (issue 32): an idle keep-alive connection holds no
buffer, and buffers borrowed for pipelined responses go back to the
worker's pools.  Measured as the server's RSS growth over its own baseline
in the same test, with bench/conns.py (the client bench/conns.sh uses for
the figures against nginx)."""

import json
import os
import subprocess
import sys

from nicd import NICD, Server, Skip, check

CONNS = 2000


def test_memory_per_connection():
    if "asan" in NICD:
        # ASan's redzones and its quarantine of freed blocks are what RSS
        # would measure; the plain build's run of this test counts
        raise Skip("RSS under ASan measures ASan's allocator")
    with Server(threads=1, conf="worker_connections 4096;") as s:
        s.put("4k.bin", bytes(range(251)) * 16 + bytes(80))
        here = os.path.dirname(os.path.abspath(__file__))
        tool = os.path.join(here, "..", "..", "bench", "conns.py")
        p = subprocess.run([sys.executable, tool, "memory", str(s.port),
                            str(s.proc.pid), str(CONNS), "15", "0"],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, "conns.py: %s" % p.stderr[-500:])
        m = json.loads(p.stdout)
        check(m["answered_idle"] == CONNS
              and m["answered_pipelined"] == CONNS * 15,
              "answered: %r" % m)
        idle = (m["rss_idle_kib"] - m["rss_start_kib"]) / CONNS
        piped = (m["rss_pipelined_kib"] - m["rss_start_kib"]) / CONNS
        # before: 12.6 KiB a connection idle, 73 KiB after the pipelined
        # requests (a 64 KiB gather buffer and the head buffer owned by
        # each connection); now the connection itself, under 1 KiB
        check(idle < 2.0, "idle: %.2f KiB a connection (%r)" % (idle, m))
        check(piped < 3.0, "after 15 pipelined: %.2f KiB a connection (%r)"
              % (piped, m))
        # still serving, and the log says nothing went wrong
        check("[crit]" not in s.log() and "[alert]" not in s.log(),
              s.log()[-500:])
