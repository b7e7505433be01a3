"""nicsim on the NASA sample: golden numbers for LRU at several sizes,
one and two caches, recomputed here by an independent simulation of the
semantics nicsim states (its own LRU over blocks, its own connection
grouping)."""

import json
import os
import re
import subprocess
import tempfile
from collections import OrderedDict

from nicd import NICD, check
from test_nictrace import NASA, clf_records, object_key

NICSIM = os.path.join(os.path.dirname(NICD), "nicsim")
SIZES = (65536, 262144, 1048576, 4194304, 16777216)
CONTENT = 19924389  # bytes of every 200/206 of the sample

# cached content bytes for LRU, 4 KiB blocks: {caches: {size: bytes}}
GOLDEN = {
    1: {65536: 475897, 262144: 1722511, 1048576: 4110468,
        4194304: 8148570, 16777216: 9228839},
    2: {65536: 364928, 262144: 1764520, 1048576: 3574210,
        4194304: 6061745, 16777216: 6277931},
}


def connections(recs, clients, gap=15):
    """The connection of each request, numbered as they open: a client's
    request less than gap seconds after its previous one joins it."""
    last, conn_of, nconn = {}, {}, 0
    for (t, _, _, _), c in zip(recs, clients):
        if not (c in last and t - last[c] < gap):
            conn_of[c], nconn = nconn, nconn + 1
        last[c] = t
        yield conn_of[c]


def file_sizes(recs):
    files = {}
    for _, url, st, b in recs:
        if st in (200, 206) and b:
            p = object_key(url)
            files[p] = max(files.get(p, 0), b)
    return files


def simulate(recs, clients, cache_bytes, split, block=4096, gap=15):
    files = file_sizes(recs)
    caches = [OrderedDict() for _ in range(split)]
    slots = cache_bytes // block
    content = cached = 0
    for (t, url, st, b), conn in zip(recs, connections(recs, clients, gap)):
        if st not in (200, 206) or not b:
            continue
        p = object_key(url)
        content += b
        if files[p] > cache_bytes:
            continue
        lru = caches[conn % split]
        for i in range((b + block - 1) // block):
            if (p, i) in lru:
                lru.move_to_end((p, i))
                cached += min(block, b - i * block)
            else:
                if len(lru) == slots:
                    lru.popitem(last=False)
                lru[(p, i)] = True
    return cached, content


def nicsim(*args):
    p = subprocess.run([NICSIM] + list(args), capture_output=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    check(p.returncode == 0, p.stderr.decode())
    return p.stdout.decode()


def test_golden_lru():
    lines = open(NASA, encoding="latin-1").read().splitlines()
    recs = clf_records(lines)
    clients = [line.split(" ", 1)[0] for line in lines]
    for split in (1, 2):
        got = json.loads(nicsim("--json", "-", "--split", str(split), "--sizes",
                                ",".join(str(s) for s in SIZES), NASA))
        check(len(got) == len(SIZES), repr(got))
        for row, size in zip(got, SIZES):
            want = GOLDEN[split][size]
            check(simulate(recs, clients, size, split) == (want, CONTENT),
                  "the independent simulation moved: %d caches of %d"
                  % (split, size))
            check(row["policy"] == "lru" and row["cache_bytes"] == size
                  and row["caches"] == split, repr(row))
            check(row["cached_bytes"] == want
                  and row["content_bytes"] == CONTENT,
                  "%d caches of %d: %r, want %d" % (split, size, row, want))
            check(abs(row["share"] - want / CONTENT) < 1e-6, repr(row))


def test_every_policy_and_csv():
    got = json.loads(nicsim("--json", "-", "--policy",
                            "lru,fifo,clock,sieve,s3fifo,arc,lfu",
                            "--sizes", "256k,16m", NASA))
    check(len(got) == 14, repr(got))
    for row in got:
        check(0 < row["share"] < 1, repr(row))
        if row["cache_bytes"] == 16777216:
            # the whole data set fits: only first touches miss, whatever
            # the policy
            check(row["cached_bytes"] == GOLDEN[1][16777216], repr(row))
    csv = nicsim("--csv", "--sizes", "64k", NASA).splitlines()
    check(csv[0].startswith("policy,cache_bytes,caches,block,share"), csv[0])
    check(csv[0].endswith(",requests,miss_ratio,byte_miss_ratio,"
                          "block_miss_ratio"), csv[0])
    check(csv[1].startswith("lru,65536,1,4096,"), csv[1])


def test_miss_ratios_as_libcachesim_names_them():
    """miss_ratio (of requests), byte_miss_ratio (1 - share) and the block
    stream's; LRU's fall as the cache grows (its inclusion property);
    --warmup leaves the first requests out of the counts."""
    rows = json.loads(nicsim("--json", "-", "--sizes", "64k,1m,16m,64m", NASA))
    for row in rows:
        check(abs(row["byte_miss_ratio"] - (1 - row["share"])) < 1e-6
              and 0 <= row["miss_ratio"] <= 1
              and abs(row["block_miss_ratio"]
                      - row["block_misses"] / (row["block_hits"]
                                               + row["block_misses"])) < 1e-6,
              repr(row))
    for a, b in zip(rows, rows[1:]):
        check(b["miss_ratio"] <= a["miss_ratio"]
              and b["byte_miss_ratio"] <= a["byte_miss_ratio"], repr((a, b)))
    # a cache holding the whole data set still misses first touches
    big = rows[-1]
    check(big["miss_ratio"] > 0 and big["block_misses"] > 0, repr(big))
    warm = json.loads(nicsim("--json", "-", "--sizes", "1m", "--warmup", "200",
                             NASA))[0]
    cold = json.loads(nicsim("--json", "-", "--sizes", "1m", NASA))[0]
    check(0 < warm["requests"] < cold["requests"]
          and warm["content_bytes"] < cold["content_bytes"], repr((warm, cold)))
    timed = json.loads(nicsim("--json", "-", "--sizes", "1m", "--warmup", "10m",
                              NASA))[0]
    check(0 < timed["requests"] < cold["requests"], repr(timed))
    opt = json.loads(nicsim("--json", "-", "--sizes", "1m", "--policy", "opt",
                            NASA))[0]
    check(opt["miss_ratio"] is None and opt["byte_miss_ratio"] > 0, repr(opt))


def test_usage_errors():
    for args, msg in ((["--policy", "belady", NASA], "unknown policy"),
                      (["--sizes", "12q", NASA], "bad size"),
                      (["--block", "3000", NASA], "a power of two"),
                      (["--sizes", "1k", NASA], "smaller than one block"),
                      (["--warmup", "1x", NASA], "--warmup"),
                      (["--warmup", "10", "--policy", "opt", NASA],
                       "--warmup with opt"),
                      (["-"], "give a file"),
                      (["/nonexistent"], "cannot open")):
        p = subprocess.run([NICSIM] + args, capture_output=True, timeout=20,
                           stdin=subprocess.DEVNULL)
        check(p.returncode != 0 and msg in p.stderr.decode(),
              "%r: %r" % (args, p.stderr))


def block_accesses(recs, clients, block=4096, gap=15, split=1):
    """The block accesses of each cache: (key, bytes used, file size)."""
    files = file_sizes(recs)
    seqs = [[] for _ in range(split)]
    for (t, url, st, b), conn in zip(recs, connections(recs, clients, gap)):
        if st not in (200, 206) or not b:
            continue
        p = object_key(url)
        for i in range((b + block - 1) // block):
            seqs[conn % split].append(((p, i), min(block, b - i * block),
                                       files[p]))
    return seqs


def belady(seq, cache_bytes, block=4096):
    """Hits and bytes of the optimal cache that may decline a block."""
    seq = [a for a in seq if a[2] <= cache_bytes]
    nxt, seen = [0] * len(seq), {}
    for i in range(len(seq) - 1, -1, -1):
        nxt[i] = seen.get(seq[i][0], float("inf"))
        seen[seq[i][0]] = i
    resident, hits, cached = {}, 0, 0      # key -> its next use
    for i, (key, used, _) in enumerate(seq):
        if key in resident:
            hits += 1
            cached += used
            resident[key] = nxt[i]
            continue
        if len(resident) == cache_bytes // block:
            far = max(resident, key=resident.get)
            if resident[far] <= nxt[i]:
                continue                   # the newcomer is needed last
            del resident[far]
        resident[key] = nxt[i]
    return hits, cached


def test_opt_upper_bound():
    lines = open(NASA, encoding="latin-1").read().splitlines()
    recs = clf_records(lines)
    clients = [line.split(" ", 1)[0] for line in lines]
    for split, sizes in ((1, (65536, 1048576)), (2, (262144,))):
        seqs = block_accesses(recs, clients, split=split)
        got = json.loads(nicsim("--json", "-", "--split", str(split), "--policy",
                                "lru,fifo,clock,sieve,s3fifo,arc,lfu,opt",
                                "--sizes", ",".join(map(str, sizes)), NASA))
        for size in sizes:
            rows = [r for r in got if r["cache_bytes"] == size]
            opt = [r for r in rows if r["policy"] == "opt"][0]
            want = [belady(q, size) for q in seqs]
            check(opt["block_hits"] == sum(h for h, _ in want)
                  and opt["cached_bytes"] == sum(c for _, c in want),
                  "opt at %d x %d: %r, want %r" % (split, size, opt, want))
            for r in rows:
                check(r["block_hits"] <= opt["block_hits"],
                      "%s beats OPT: %r" % (r["policy"], r))


def test_oracle_out_is_the_simulated_stream():
    """--oracle-out writes libCacheSim's oracleGeneral records: one per
    block access nicsim counted (16 MiB: no file of the sample bypasses
    the cache), 4096 bytes each, and each record's next
    access is the next record of the same block (-1 after the last)."""
    import struct
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "o.bin")
        p = subprocess.run([NICSIM, "--sizes", "16m", "--policy", "lru",
                            "--json", "-", "--oracle-out", path, NASA],
                           capture_output=True, timeout=60)
        check(p.returncode == 0, p.stderr)
        r = json.loads(p.stdout)[0]
        data = open(path, "rb").read()
    n = len(data) // 24
    check(len(data) % 24 == 0 and n == r["block_hits"] + r["block_misses"],
          "%d records, %d accesses" % (n, r["block_hits"] + r["block_misses"]))
    recs = [struct.unpack_from("<IQIq", data, i * 24) for i in range(n)]
    last = {}
    for i in range(n - 1, -1, -1):
        t, key, size, nxt = recs[i]
        check(t == 0 and size == 4096 and nxt == last.get(key, -1),
              "record %d: %r (next of its block: %r)"
              % (i, recs[i], last.get(key, -1)))
        last[key] = i


def test_libcachesim_layouts_and_an_independent_lru():
    """libCacheSim's oracleGeneral and CSV layouts read as the same
    requests; on them nicsim's miss_ratio, byte_miss_ratio and block
    counts equal an LRU over 4 KiB blocks written here (a request misses
    when one of its blocks does; objects larger than the cache bypass)."""
    import collections
    import random
    import struct
    rnd = random.Random(7)
    sizes = {o: rnd.choice([100, 4096, 5000, 20000, 70000, 300000])
             for o in range(60)}
    reqs = [(t, o, sizes[o]) for t, o in
            enumerate(rnd.choices(range(60), weights=[1 / (k + 1)
                                                      for k in range(60)],
                                  k=3000))]
    with tempfile.TemporaryDirectory() as d:
        oracle, csv = os.path.join(d, "t.oracle"), os.path.join(d, "t.csv")
        with open(oracle, "wb") as f:
            for t, o, sz in reqs:
                f.write(struct.pack("<IQIq", t, o, sz, -1))
        with open(csv, "w") as f:
            f.write("time,obj_id,obj_size\n")
            f.writelines("%d,%d,%d\n" % r for r in reqs)
        for cache in (65536, 262144, 1048576):
            got = [json.loads(nicsim("--json", "-", "--format", fmt, "--sizes",
                                     str(cache), path))[0]
                   for fmt, path in (("oracle", oracle), ("lcs-csv", csv))]
            check(got[0] == got[1], "layouts differ: %r" % got)
            lru = collections.OrderedDict()
            slots = cache // 4096
            hits = misses = req_miss = cached = content = 0
            for _, o, sz in reqs:
                content += sz
                if sz > cache:
                    req_miss += 1
                    continue
                missed = False
                for b in range((sz + 4095) // 4096):
                    used = min(4096, sz - b * 4096)
                    if (o, b) in lru:
                        lru.move_to_end((o, b))
                        hits += 1
                        cached += used
                    else:
                        lru[(o, b)] = True
                        if len(lru) > slots:
                            lru.popitem(last=False)
                        misses += 1
                        missed = True
                req_miss += missed
            row = got[0]
            check(row["block_hits"] == hits and row["block_misses"] == misses
                  and row["cached_bytes"] == cached
                  and row["requests"] == len(reqs)
                  and abs(row["miss_ratio"] - req_miss / len(reqs)) < 1e-6
                  and abs(row["byte_miss_ratio"] - (1 - cached / content))
                  < 1e-6,
                  "cache %d: nicsim %r, here %r" % (
                      cache, row, (hits, misses, cached, req_miss)))


def test_mrc_equals_the_simulation_at_every_size():
    """--mrc (one pass, stack distances) gives the per-size simulation's
    numbers to the last hit, on both samples, with the bypass rule
    exercised (sizes below the largest files), --split and --warmup."""
    from test_nictrace import NASA10K
    for trace in (NASA, NASA10K):
        for extra in ([], ["--split", "3"], ["--warmup", "500"],
                      ["--block", "1k", "--sizes", "4k:2m", "--points", "25"],
                      ["--sizes", "16k:256k:16k"]):
            sim = nicsim("--json", "-", trace, *extra)
            mrc = nicsim("--json", "-", "--mrc", trace, *extra)
            check(sim == mrc, "%s %s: --mrc differs:\n%s\n%s"
                  % (os.path.basename(trace), extra, sim, mrc))
            rows = json.loads(mrc)
            check(len(rows) >= 9 and rows[0]["block_hits"]
                  < rows[-1]["block_hits"], repr(rows[:2]))


def test_mrc_sampled_is_close_and_smaller():
    """--mrc --sample 0.5 on the 10k sample (9,771 blocks): the byte miss
    ratio's
    mean absolute error against the exact curve under 0.03 at the sizes
    whose cache holds 32 or more sampled blocks (measured 0.015 to 0.019
    over five hash seeds; SHARDS' error falls with the number of blocks);
    the smaller sizes are named as coarse on stderr; about half the
    blocks followed."""
    from test_nictrace import NASA10K
    exact = json.loads(nicsim("--json", "-", "--mrc", NASA10K))
    p = subprocess.run([NICSIM, "--json", "-", "--mrc", "--sample", "0.5",
                        NASA10K],
                       capture_output=True, timeout=120)
    check(p.returncode == 0, p.stderr.decode())
    est = json.loads(p.stdout)
    fine = [(e, s) for e, s in zip(exact, est)
            if e["cache_bytes"] // 4096 * 0.5 >= 32]
    mae = sum(abs(e["byte_miss_ratio"] - s["byte_miss_ratio"])
              for e, s in fine) / len(fine)
    check(len(est) == len(exact) and len(fine) == 7 and mae < 0.03,
          "mean absolute error %.4f:\n%r\n%r" % (mae, est, exact))
    err = p.stderr.decode()
    check(re.findall(r"at (\S+) the cache holds under 32 sampled", err)
          == ["64k", "128k"], err)
    check(all(e["block_hits"] + e["block_misses"]
              == s["block_hits"] + s["block_misses"]
              for e, s in zip(exact, est)), "the accesses are counted whole")
    blocks = lambda err: int(re.search(r"curve of cache 0 .*?(\d+) blocks "
                                       r"followed", err).group(1))
    pe = subprocess.run([NICSIM, "--mrc", NASA10K], capture_output=True)
    check(blocks(p.stderr.decode()) < 0.6 * blocks(pe.stderr.decode()),
          p.stderr.decode() + pe.stderr.decode())


def test_mrc_fixed_size():
    """--mrc --sample-size N (SHARDS' fixed size): a bound above the
    trace's blocks gives the exact curve; a bound of 3,000 of its 9,771
    blocks follows exactly 3,000, says the rate it fell to, and stays
    within 0.05 where the cache holds 32 or more sampled blocks."""
    from test_nictrace import NASA10K
    exact = nicsim("--json", "-", "--mrc", NASA10K)
    check(nicsim("--json", "-", "--mrc", "--sample-size", "1m", NASA10K) == exact,
          "a bound above the blocks is not the exact curve")
    p = subprocess.run([NICSIM, "--json", "-", "--mrc", "--sample-size", "3000",
                        NASA10K], capture_output=True, timeout=120)
    check(p.returncode == 0, p.stderr.decode())
    err = p.stderr.decode()
    m = re.search(r"sampled curve of cache 0 \(rate ([0-9.e-]+)\): "
                  r"(\d+) blocks followed", err)
    check(m and int(m.group(2)) == 3000 and 0.2 < float(m.group(1)) < 0.4,
          err)
    rate = float(m.group(1))
    fine = [(e, s) for e, s in zip(json.loads(exact), json.loads(p.stdout))
            if e["cache_bytes"] // 4096 * rate >= 32]
    worst = max(abs(e["byte_miss_ratio"] - s["byte_miss_ratio"])
                for e, s in fine)
    check(len(fine) >= 4 and worst < 0.05, "worst %.4f" % worst)


def test_miniature_simulation_of_every_policy():
    """--sample without --mrc: each policy in a cache of R times the
    blocks, on the blocks SHARDS follows.  LRU's miniature then gives the
    SHARDS curve's numbers exactly (the same blocks, K x R whole), and
    every policy's byte miss ratio is within 0.05 of its full simulation
    where the cache holds 32 or more sampled blocks (measured: at most
    0.035, FIFO at 256 KiB)."""
    from test_nictrace import NASA10K
    sizes = ["--sizes", "256k,1m,4m,16m"]
    pols = ["--policy", "lru,fifo,clock,sieve,s3fifo,arc,lfu"]
    full = json.loads(nicsim("--json", "-", NASA10K, *sizes, *pols))
    mini = json.loads(nicsim("--json", "-", "--sample", "0.5", NASA10K, *sizes,
                             *pols))
    shards = json.loads(nicsim("--json", "-", "--mrc", "--sample", "0.5",
                               NASA10K, *sizes))
    check(len(full) == len(mini) == 28, repr(mini))
    worst = max(abs(f["byte_miss_ratio"] - m["byte_miss_ratio"])
                for f, m in zip(full, mini))
    check(worst < 0.05, "worst byte miss ratio error %.4f" % worst)
    lru = [m for m in mini if m["policy"] == "lru"]
    check([(m["block_hits"], m["cached_bytes"]) for m in lru]
          == [(c["block_hits"], c["cached_bytes"]) for c in shards],
          "LRU in miniature %r, the SHARDS curve %r" % (lru, shards))
    check(all(f["block_hits"] + f["block_misses"]
              == m["block_hits"] + m["block_misses"]
              for f, m in zip(full, mini)), "the accesses are counted whole")
    p = subprocess.run([NICSIM, NASA10K, "--sample", "0.5", "--policy",
                        "opt"], capture_output=True, timeout=60)
    check(p.returncode == 2 and b"need every access" in p.stderr, p.stderr)


READ_BACK = r"""
import csv, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("nicsim_plot", sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
fig = plot.draw(list(csv.DictReader(sys.stdin)), "nasa")
fig.canvas.draw()
r = fig.canvas.get_renderer()
texts = fig.legends[0].get_texts()
boxes = [t.get_window_extent(r) for t in texts]
panels = [ax.get_window_extent(r) for ax in fig.axes]
print(json.dumps({
    "legend": [t.get_text() for t in texts],
    "lines": [[[l.get_label(), l.get_color(), l.get_marker()]
               for l in ax.get_lines()] for ax in fig.axes],
    "overlaps": [t.get_text() for i, (t, a) in enumerate(zip(texts, boxes))
                 if any(a.overlaps(b) for b in boxes[i + 1:] + panels)]}))
"""


def test_plot_legend_names_every_curve_in_one_style():
    """nicsim --plot's figure read back (with Debian's python3 and
    matplotlib, as nicsim-plot runs): every policy drawn (OPT, which has
    no request miss ratio, included) is in the legend once, each curve
    has one colour and marker in both panels, no two curves share a
    style, and the legend's texts overlap neither each other nor the
    panels."""
    import subprocess as sp
    if sp.run(["/usr/bin/python3", "-c", "import matplotlib"],
              capture_output=True).returncode != 0:
        from nicd import Skip
        raise Skip("python3-matplotlib is not installed")
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "..", "trace_replayer", "nicsim",
                          "plot.py")
    text = nicsim("--csv", "--policy", "lru,opt,s3fifo,sieve", "--sizes",
                  "64k,256k,1m,4m", "--split", "2", NASA)
    p = sp.run(["/usr/bin/python3", "-c", READ_BACK, script], input=text,
               capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, p.stderr)
    got = json.loads(p.stdout)
    want = ["opt, 2 caches", "lru, 2 caches", "s3fifo, 2 caches",
            "sieve, 2 caches"]
    check(got["legend"] == want, "legend %r" % got["legend"])
    styles = {}
    for lines in got["lines"]:
        for label, colour, marker in lines:
            check(styles.setdefault(label, (colour, marker))
                  == (colour, marker), "%s drawn in two styles" % label)
    check(len(set(styles.values())) == len(styles) == 4, repr(styles))
    check([l[0] for l in got["lines"][1]] == want[1:], "right panel")
    check(got["overlaps"] == [], "overlapping: %r" % got["overlaps"])


def test_mrc_plot_and_refusals():
    with tempfile.TemporaryDirectory() as d:
        png = os.path.join(d, "mrc.png")
        try:
            import subprocess as sp
            sp.run(["/usr/bin/python3", "-c", "import matplotlib"],
                   check=True, capture_output=True)
        except (OSError, sp.CalledProcessError):
            from nicd import Skip
            raise Skip("python3-matplotlib is not installed")
        nicsim("--mrc", "--points", "12", "--plot", png, NASA)
        check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
              and os.path.getsize(png) > 10000, "no PNG drawn")
    for args, says in ((["--mrc", "--policy", "sieve"], "LRU's curve"),
                       (["--sample", "0"], "a rate above 0"),
                       (["--sample", "1.5"], "a rate above 0"),
                       (["--sizes", "1m:64k", "--points", "3"], "FROM:TO"),
                       (["--sizes", "64k:1m"], "--points N"),
                       (["--points", "1"], "--points takes"),
                       (["--mrc", "--oracle-out", "/dev/null"], "not with"),
                       (["--sample-size", "1000"], "with --mrc"),
                       (["--mrc", "--sample-size", "0"], "above 0"),
                       (["--mrc", "--sample", "0.5", "--sample-size", "9"],
                        "one or the other")):
        p = subprocess.run([NICSIM, NASA] + args, capture_output=True,
                           timeout=60)
        err = p.stderr.decode()
        check(p.returncode == 2 and says in err and err.count("\n") == 1,
              "%s: rc %d, %r" % (args, p.returncode, err))


def test_per_nic_runs_merge_to_the_split():
    """--nic K simulates cache K of --split N alone; nicsim merge of the N
    results is the --split N result, byte for byte (every policy, OPT,
    the one-pass curve with a warm-up); sizes cut among runs join; a
    cache missing or given twice, or a --nic out of range, is refused."""
    nasa10k = NASA.replace("first1000", "first10k.clf.gz")
    with tempfile.TemporaryDirectory() as d:
        for opts in (["--sizes", "256k,1m,4m", "--policy", "lru,s3fifo,opt"],
                     ["--mrc", "--points", "8", "--warmup", "1000"]):
            parts = []
            for k in range(3):
                parts.append(os.path.join(d, "%d.json" % k))
                with open(parts[-1], "w") as f:
                    f.write(nicsim(nasa10k, "--split", "3", "--nic", str(k),
                                   "--json", "-", *opts))
            whole = nicsim(nasa10k, "--split", "3", "--json", "-", *opts)
            rows = json.loads(whole)
            check(len(rows) > 0 and rows[0]["missed_requests"] > 0,
                  whole[:300])
            check(nicsim("merge", "--json", "-", *parts) == whole,
                  "%r: merged != --split 3" % opts)
            one = json.loads(open(parts[0]).read())
            check(all(r["nic"] == 0 for r in one)
                  and one[0]["content_bytes"] < rows[0]["content_bytes"],
                  repr(one[:1]))
        # a sweep cut in two joins into the sweep
        a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
        open(a, "w").write(nicsim(NASA, "--sizes", "1m,4m", "--json", "-"))
        open(b, "w").write(nicsim(NASA, "--sizes", "2m", "--json", "-"))
        check(nicsim("merge", a, b) == nicsim(NASA, "--sizes", "1m,2m,4m"),
              "joined sizes differ")
        for args, why in ((["merge", parts[0], parts[1]], "has no row"),
                          (["merge", parts[0], parts[0], parts[1], parts[2]],
                           "given twice"),
                          (["merge", a] + parts, "--split"),
                          ([NASA, "--split", "2", "--nic", "2"],
                           "--nic 2: there are --split 2")):
            p = subprocess.run([NICSIM] + args, capture_output=True,
                               timeout=60)
            err = p.stderr.decode()
            check(p.returncode in (1, 2) and why in err
                  and err.count("\n") == 1, "%r: %d %r"
                  % (args, p.returncode, err))
