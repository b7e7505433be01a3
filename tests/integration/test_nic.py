"""The nic send backend: real bytes from emulated NIC memory, byte-exact
under ranges, rewrites, renames and eviction churn; fallbacks counted;
counters consistent across threads and NICs, exported as JSON and
Prometheus text, and reset on request."""

import json
import os
import random
import socket
import subprocess
import tempfile
import threading

from nicd import (NICD, Server, check, get, pattern, sha256, Conn, build,
                  open_paths)

REPORTS = ("location = /nic-status { nic_status; }\n"
           "location = /metrics { nic_metrics; }\n")


def status(s, reset=False):
    r = get(s.port, "/nic-status" + ("?reset" if reset else ""))
    check(r.status == 200, "status: %d" % r.status)
    return json.loads(r.body)


def nic_server(conf="", threads=2, **kw):
    return Server(backend="nic", threads=threads, conf=REPORTS + conf, **kw)


def test_bytes_exact_and_served_from_the_cache():
    sizes = [0, 1, 4095, 4096, 4097, 10000, 65536, 65537, 300000]
    with nic_server("nic_cache_size 4m;") as s:
        files = s.put_patterns(sizes)
        for rnd in range(3):
            for path, data in files.items():
                r = get(s.port, path)
                check(r.status == 200 and sha256(r.body) == sha256(data),
                      "%s round %d: wrong bytes" % (path, rnd))
        # ranges: inside a block, across blocks, the partial last block,
        # suffix, and several at once
        data = files["/f8"]
        for rng, want in (("bytes=5-10", data[5:11]),
                          ("bytes=4000-9000", data[4000:9001]),
                          ("bytes=299990-", data[299990:]),
                          ("bytes=-5000", data[-5000:])):
            r = get(s.port, "/f8", headers={"Range": rng})
            check(r.status == 206 and r.body == want, "range %s" % rng)
        r = get(s.port, "/f8", headers={"Range": "bytes=0-1,8190-8200"})
        check(r.status == 206 and data[8190:8201] in r.body
              and data[0:2] in r.body, "multipart")
        st = status(s)["total"]
        check(st["hits"] > 0 and st["cached_bytes"] > 0 and st["inserts"] > 0,
              repr(st))
        body_total = 3 * sum(sizes) + 6 + 5001 + 10 + 5000 + 2 + 11
        check(st["cached_bytes"] + st["host_bytes"] == body_total,
              "%d + %d != %d" % (st["cached_bytes"], st["host_bytes"],
                                 body_total))


def test_nic_memory_in_a_file():
    """nic_memory_path DIR: the NIC memory is an unnamed file in DIR
    (O_TMPFILE, nothing to see in DIR) and serves the same bytes, a
    rewrite in place included; a directory that is not there is named
    by nicd -t."""
    with tempfile.TemporaryDirectory() as mem:
        conf = "nic_cache_size 1m; nic_memory_path %s;" % mem
        with nic_server(conf + " open_file_cache_valid 0;", threads=1) as s:
            files = s.put_patterns([1, 4096, 70000, 300000])
            for rnd in range(2):
                for path, data in files.items():
                    r = get(s.port, path)
                    check(r.status == 200 and r.body == data,
                          "%s round %d: wrong bytes" % (path, rnd))
            new = pattern(70000, seed=9)
            p = os.path.join(s.root, "f2")
            with open(p, "r+b") as f:
                f.write(new)
            os.utime(p, ns=(1, os.stat(p).st_mtime_ns + 1))
            check(get(s.port, "/f2").body == new, "rewritten in place")
            st = status(s)["total"]
            check(st["hits"] > 0 and st["cached_bytes"] > 0
                  and st["invalidations"] > 0, repr(st))
            check(os.listdir(mem) == [], "named files in %s: %r"
                  % (mem, os.listdir(mem)))
            held = [p for p in open_paths(s.proc.pid)
                    if p.startswith(mem + "/")]
            check(len(held) == 1, "NIC memory files open: %r" % held)
        p = subprocess.run([NICD, "-t", "--backend", "nic", "--root", mem,
                            "-g", "nic_memory_path /nonexistent-nicache;"],
                           capture_output=True, text=True, timeout=60)
        out = p.stdout + p.stderr
        check(p.returncode != 0 and "/nonexistent-nicache" in out,
              "nicd -t: %d %r" % (p.returncode, out))


def test_rewrite_and_rename_invalidate():
    with nic_server("open_file_cache_valid 0;", threads=1) as s:
        old = pattern(20000, seed=1)
        s.put("a", old)
        for _ in range(2):
            check(get(s.port, "/a").body == old, "old content")
        before = status(s)["total"]["invalidations"]
        new = pattern(20000, seed=2)  # same size, rewritten in place
        with open(os.path.join(s.root, "a"), "r+b") as f:
            f.write(new)
        os.utime(os.path.join(s.root, "a"),
                 ns=(1, os.stat(os.path.join(s.root, "a")).st_mtime_ns + 1))
        check(get(s.port, "/a").body == new, "rewritten in place")
        mid = status(s)["total"]["invalidations"]
        check(mid > before, "no invalidation after a rewrite: %d" % mid)
        third = pattern(20000, seed=3)
        tmp = os.path.join(s.root, ".tmp")
        with open(tmp, "wb") as f:
            f.write(third)
        os.rename(tmp, os.path.join(s.root, "a"))
        check(get(s.port, "/a").body == third, "replaced by rename")
        check(get(s.port, "/a").body == third, "replaced by rename, again")


def slow_get(port, path, out, i):
    """A client that reads its response 1 KiB at a time."""
    c = socket.create_connection(("127.0.0.1", port), timeout=20)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.sendall(build(path))
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += c.recv(1024)
    head, body = buf.split(b"\r\n\r\n", 1)
    n = int([h.split(b":")[1] for h in head.split(b"\r\n")
             if h.lower().startswith(b"content-length:")][0])
    while len(body) < n:
        d = c.recv(1024)
        if not d:
            break
        body += d
    c.close()
    out[i] = body


def test_eviction_churn_under_slow_clients():
    """A 64 KiB cache, 200 files of mixed sizes, 64 slow clients at once:
    blocks are evicted and reused while sends from them are still queued;
    every body is checked."""
    rng = random.Random(7)
    with nic_server("nic_cache_size 64k;", threads=2) as s:
        files = {}
        for i in range(200):
            n = rng.choice([100, 3000, 4096, 9000, 20000, 50000])
            data = pattern(n, seed=100 + i)
            s.put("c%d" % i, data)
            files["/c%d" % i] = data
        paths = list(files)
        for rnd in range(3):
            pick = [rng.choice(paths) for _ in range(64)]
            out = [None] * 64
            ts = [threading.Thread(target=slow_get, args=(s.port, p, out, i))
                  for i, p in enumerate(pick)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(30)
            for p, body in zip(pick, out):
                check(body is not None and sha256(body) == sha256(files[p]),
                      "%s: wrong bytes under churn" % p)
        st = status(s)["total"]
        check(st["evictions"] > 0 and st["hits"] > 0, repr(st))


POLICIES = ["lru", "fifo", "clock", "sieve", "s3fifo", "arc", "lfu"]


def policy_churn(get_body, put, policies_conf):
    """Files as large as the cache (64 KiB, 16 blocks) and smaller ones,
    200 requests in a random order, under every policy: the blocks of a
    response are placed one by one, and a later block of the same
    response may need a slot while the earlier ones are not sent yet; a
    policy that picks one of those (CLOCK, SIEVE, S3-FIFO, ARC, LFU may)
    must not have it replaced.  Returns {policy: wrong bodies}."""
    wrong = {}
    for pol in POLICIES:
        with policies_conf(pol) as srv:
            files = {}
            for i, n in enumerate([65536, 65536 - 100, 40000, 30000, 4096,
                                   8192, 65536]):
                data = pattern(n, seed=i + 1)
                files[put(srv, "f%d" % i, data)] = data
            rng = random.Random(3)
            paths = sorted(files)
            bad = 0
            for _ in range(200):
                path = rng.choice(paths)
                status_code, body = get_body(srv, path)
                bad += status_code != 200 or body != files[path]
            wrong[pol] = bad
    return wrong


def test_every_policy_with_a_cache_a_file_fills():
    def conf(pol):
        return nic_server("nic_cache_size 64k; nic_policy %s;" % pol,
                          threads=1)

    def put(s, name, data):
        s.put(name, data)
        return "/" + name

    def get_body(s, path):
        r = get(s.port, path)
        return r.status, r.body
    wrong = policy_churn(get_body, put, conf)
    check(not any(wrong.values()), "wrong bodies by policy: %r" % wrong)


def test_file_larger_than_the_cache():
    with nic_server("nic_cache_size 64k;", threads=1) as s:
        data = pattern(1 << 20, seed=9)
        s.put("big", data)
        for _ in range(2):
            r = get(s.port, "/big")
            check(r.status == 200 and sha256(r.body) == sha256(data), "big")
        st = status(s)["total"]
        check(st["fallbacks"]["file_too_large"] == 2 * 256
              and st["cached_bytes"] == 0 and st["inserts"] == 0, repr(st))


def test_resumed_sends_count_each_block_once():
    """A send places and counts a run of blocks before the socket takes
    it; with notsent_lowat=4k and a client that reads slowly the socket
    keeps taking part of a run, and the resumed send must not count those
    blocks again.  Two responses of a 2 MiB file (cached on the first)
    and a range starting inside a block: every block counted once, hits
    and saved bytes exact, and the bytes right."""
    size = 2 << 20
    data = pattern(size, seed=21)
    with nic_server("nic_cache_size 8m;", threads=1,
                    listen="notsent_lowat=4k") as s:
        s.put("two", data)
        status(s, reset=True)
        c = s.connect()
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        c.send(build("/two") + build("/two") +
               build("/two", headers={"Range": "bytes=6000-1000000"}))
        bodies = [c.read_response().body for _ in range(3)]
        c.close()
        check(bodies[0] == data and bodies[1] == data
              and bodies[2] == data[6000:1000001], "wrong bytes")
        st = status(s)["total"]
        blocks = size // 4096
        range_blocks = 1000000 // 4096 - 6000 // 4096 + 1
        check(st["misses"] == blocks and st["inserts"] == blocks
              and st["hits"] == blocks + range_blocks
              and st["saved_bytes"] == size + (1000000 - 6000 + 1)
              and st["cached_bytes"] == 2 * size + (1000000 - 6000 + 1),
              repr(st))


def test_threads_and_two_nics_consistent():
    """Two worker threads, two NICs: each NIC gets connections; the total
    is the sum of the NICs; the bytes add up to what clients received;
    the Prometheus text says the same as the JSON; ?reset zeroes."""
    with nic_server("nic_count 2; nic_cache_size 1m;", threads=2) as s:
        files = {"/x%d" % i: pattern(30000 + i * 1000, seed=i)
                 for i in range(20)}
        for p, d in files.items():
            s.put(p[1:], d)
        got = 0
        lock = threading.Lock()

        def client(k):
            nonlocal got
            c = Conn(s.port)
            n = 0
            for p in sorted(files)[k % 5::2]:
                c.send(build(p))
                r = c.read_response()
                check(r.body == files[p], "%s: wrong bytes" % p)
                n += len(r.body)
            c.close()
            with lock:
                got += n
        ts = [threading.Thread(target=client, args=(k,)) for k in range(16)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(30)
        st = status(s)
        check(len(st["nics"]) == 2 and all(n["connections"] > 0
                                           for n in st["nics"]), repr(st))
        for key in ("hits", "misses", "inserts", "cached_bytes",
                    "host_bytes", "connections"):
            check(st["total"][key] == sum(n[key] for n in st["nics"]),
                  "%s: total %d" % (key, st["total"][key]))
        for cat, v in st["total"]["bus_bytes"].items():
            check(v == sum(n["bus_bytes"][cat] for n in st["nics"]), cat)
        check(st["total"]["cached_bytes"] + st["total"]["host_bytes"] == got,
              "%d bytes sent, %d received" % (
                  st["total"]["cached_bytes"] + st["total"]["host_bytes"],
                  got))
        r = get(s.port, "/metrics")
        check(r.status == 200 and r.header("Content-Type").startswith(
            "text/plain"), repr(r))
        prom = {}
        for line in r.body.decode().splitlines():
            if line and not line.startswith("#"):
                k, v = line.rsplit(" ", 1)
                prom[k] = float(v)
        st = status(s, reset=True)  # read, then zero
        check(prom['nicd_nic_hits_total{nic="total"}'] == st["total"]["hits"],
              "prometheus and json disagree")
        after = status(s)["total"]
        check(after["hits"] == 0 and after["cached_bytes"] == 0
              and after["inserts"] == 0, repr(after))


def test_report_needs_the_backend():
    """A report location under another backend: 404 and a log line."""
    with Server(backend="sendfile", conf=REPORTS) as s:
        check(get(s.port, "/nic-status").status == 404, "status")
        s.wait_log(r'"nic_status" needs "send_backend nic"')


def test_saved_counters_on_a_replay_with_known_hits():
    """A replayed log whose hits are known: one client asks for a
    13,288-byte file (4 blocks) three times, the third as a logged partial
    transfer of 5,000 bytes (replayed --as-logged: a Range over 2 blocks),
    a 1,000-byte file once, and the first file again as a 304.  With one
    NIC the first transfer of each file misses and crosses the bus as
    inserts (14,288 bytes), the later ones hit: 18,288 of the 32,576
    content bytes are saved."""
    nicreplay = os.path.join(os.path.dirname(NICD), "nicreplay")
    nictrace = os.path.join(os.path.dirname(NICD), "nictrace")
    log = ("c - - [01/Jul/1995:00:00:01 -0400] \"GET /a HTTP/1.0\" 200 13288\n"
           "c - - [01/Jul/1995:00:00:02 -0400] \"GET /b HTTP/1.0\" 200 1000\n"
           "c - - [01/Jul/1995:00:00:03 -0400] \"GET /a HTTP/1.0\" 200 13288\n"
           "c - - [01/Jul/1995:00:00:04 -0400] \"GET /a HTTP/1.0\" 200 5000\n"
           "c - - [01/Jul/1995:00:00:05 -0400] \"GET /a HTTP/1.0\" 304 -\n")
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "t.log")
        with open(trace, "w") as f:
            f.write(log)
        root = os.path.join(d, "www")
        p = subprocess.run([nictrace, "docroot", trace, "--root", root],
                           capture_output=True, timeout=60)
        check(p.returncode == 0, p.stderr.decode())
        with nic_server("nic_cache_size 1m;", threads=1, root=root) as s:
            status(s, reset=True)
            p = subprocess.run([nicreplay, "-q", "--as-logged", "--verify",
                                trace, "http://127.0.0.1:%d/" % s.port],
                               capture_output=True, timeout=60)
            check(p.returncode == 0, p.stderr.decode())
            st = status(s)["total"]
    content = 13288 + 1000 + 13288 + 5000
    check(st["content_bytes"] == content, "content %r" % st)
    check(st["saved_bytes"] == 13288 + 5000, "saved %r" % st)
    check(st["crossed_bytes"] == 13288 + 1000, "crossed %r" % st)
    check(st["insert_bytes"] == 13288 + 1000 and st["host_bytes"] == 0,
          "inserts %r" % st)
    check(abs(st["saved_share"] - (13288 + 5000) / content) < 1e-5,
          "share %r" % st)
    # five responses: four bodies and the 304 (and the status request
    # before the reset is not counted)
    check(st["responses"] >= 5 and st["hits"] == 4 + 2 and st["misses"] == 5,
          "responses, hits, misses: %r" % st)


def test_memory_model_counts_and_paces():
    """The memory system (issue 30, item 3): DRAM bytes are the model's
    passes over what was sent (host content, inserts, headers), software
    TLS adds two passes a host byte, and a run whose modelled DRAM is the
    narrowest resource is paced by it: limited_by says "memory", and the
    wall-clock time is at least the modelled one."""
    data = os.urandom(3 << 20)
    for tls, fill, passes in (("off", "0", 1), ("software", "1", 4)):
        with nic_server("nic_testbed pcie5-400g;\n"
                        "nic_cache_size 0;\n"
                        "nic_tls %s;\nnic_storage_fill %s;\n" % (tls, fill),
                        threads=1) as s:
            s.put("big", data)
            status(s, reset=True)
            r = get(s.port, "/big")
            check(r.status == 200 and r.body == data, "wrong bytes")
            st = status(s)
            t = st["total"]
            want = t["host_bytes"] * passes + 2 * t["header_bytes"]
            check(abs(t["dram_bytes"] - want) <= 2,
                  "%s: %d DRAM bytes, want %d: %r" % (tls, t["dram_bytes"],
                                                      want, t))
            check(st["memory"]["tls_passes"] == (2 if tls == "software"
                                                 else 0), repr(st["memory"]))
    # 20 MB/s of DRAM, paced: 3 MiB (4 passes) takes at least 0.6 s
    with nic_server("nic_testbed pcie5-400g;\nnic_cache_size 0;\n"
                    "nic_memory_bandwidth 20m;\nnic_tls software;\n"
                    "nic_storage_fill 1;\nnic_bus_limit on;\n",
                    threads=1) as s:
        s.put("big", data)
        status(s, reset=True)
        r = get(s.port, "/big")
        check(r.status == 200 and r.body == data, "wrong bytes, paced")
        st = status(s)
        check(st["limited_by"] == "memory" and st["paced_ns"]["memory"] > 0,
              repr({k: st[k] for k in ("limited_by", "paced_ns")}))
        check(st["seconds"] >= 0.55 * st["total"]["mem_busy_ns"] / 1e9,
              "%.3f s for %d ns of memory" % (st["seconds"],
                                             st["total"]["mem_busy_ns"]))
        check(st["total"]["mem_busy_ns"] > 0.5e9, repr(st["total"]))
    # a bad value is refused at start
    p = subprocess.run([NICD, "-t", "-g", "send_backend nic; nic_tls maybe;"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode != 0 and "nic_tls" in p.stderr, p.stderr)
