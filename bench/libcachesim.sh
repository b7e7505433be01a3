#!/bin/sh
# nicsim against libCacheSim (its C core, through the PyPI package
# libcachesim, in a venv this script makes) on the same block stream: the
# NASA Jul95 10k sample expanded into 4 KiB blocks and replayed PASSES
# times (800: 51.76 M block accesses, runs of a second or more, so that
# process start and file reading weigh little), one 16 MiB cache, every
# policy both have.  nicsim writes the stream it simulates as libCacheSim's
# oracleGeneral trace (nicsim --oracle-out), so both see the same
# accesses.  Timed: nicsim's whole process (reading its compact trace
# PASSES times), libCacheSim's process_trace() (the trace already
# mapped); both pinned to CPU 1, RUNS alternating rounds, medians, and
# each tool's spread ((max - min) / median) printed beside them; the
# speed ratio is also taken round by round (each round runs both tools
# one after the other, so a slow spell of the machine weighs on both),
# and its lowest and highest are printed.
# Last, nicsim --mrc (ten sizes in one pass) against libCacheSim's LRU at
# the ten sizes one after the other.
# With EXPLAIN=1 it then runs bench/libcachesim_explain.py on the same
# trace: for S3-FIFO, ARC and OPT, whose hit ratios differ, libCacheSim
# request by request against the reference model with libCacheSim's
# choices (a few minutes more at PASSES=160, the figures of
# docs/benchmarks.md; it reads the same accesses, so give PASSES=160 with
# EXPLAIN=1).
# Usage: sh bench/libcachesim.sh  (env: RUNS=5 PASSES=800 LCS=0.3.5
#                                  EXPLAIN=0)
# Writes build/bench/libcachesim.json (and libcachesim_explain.json).
set -eu

RUNS=${RUNS:-5}
PASSES=${PASSES:-800}
LCS=${LCS:-0.3.5}
EXPLAIN=${EXPLAIN:-0}
B=build
OUT=$B/bench
mkdir -p "$OUT"
venv=$B/venv-libcachesim
if ! "$venv/bin/python" -c "import libcachesim" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "libcachesim==$LCS"
fi
work=$(mktemp -d /tmp/nicsim-lcs-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

$B/nictrace convert ../shared/traces/nasa/NASA_access_log_Jul95.first10k.clf.gz \
    --out "$work/nasa.nic" > /dev/null
$B/nicsim --sizes 16m --policy lru --repeat "$PASSES" \
    --oracle-out "$work/nasa.oracle" "$work/nasa.nic" > /dev/null 2>&1

"$venv/bin/python" - "$work" "$RUNS" "$PASSES" "$OUT/libcachesim.json" <<'PY'
import json, os, statistics, subprocess, sys, time
import libcachesim as lcs

work, runs, passes, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.sched_setaffinity(0, {1})
SIZE = 16 * 1024 * 1024
POLICIES = [("lru", "LRU"), ("fifo", "FIFO"), ("clock", "Clock"),
            ("sieve", "Sieve"), ("s3fifo", "S3FIFO"), ("arc", "ARC"),
            ("lfu", "LFU"), ("opt", "Belady")]


def nicsim(policy):
    t = time.monotonic()
    p = subprocess.run(["build/nicsim", "--sizes", "16m", "--policy", policy,
                        "--repeat", passes, "--json", "-", work + "/nasa.nic"],
                       capture_output=True, check=True)
    el = time.monotonic() - t
    r = json.loads(p.stdout)[0]
    n = r["block_hits"] + r["block_misses"]
    return el, r["block_hits"] / n, n


def libcachesim(cls):
    reader = lcs.TraceReader(trace=work + "/nasa.oracle",
                             trace_type=lcs.TraceType.ORACLE_GENERAL_TRACE)
    cache = getattr(lcs, cls)(cache_size=SIZE)
    t = time.monotonic()
    miss, _ = cache.process_trace(reader)
    return time.monotonic() - t, 1 - miss


def spread(xs):
    """(max - min) / median, in per cent"""
    return 100.0 * (max(xs) - min(xs)) / statistics.median(xs)


rows = []
print("nicsim against libCacheSim %s: NASA 10k x %s passes in 4 KiB blocks, "
      "16 MiB, CPU 1; medians of %d" % (lcs.__version__ if hasattr(lcs, "__version__") else "", passes, runs))
print("%-7s %10s %7s %10s %7s %8s %13s %10s %10s" % (
    "policy", "nicsim s", "spread", "lcs s", "spread", "speed",
    "round by round", "nicsim hit", "lcs hit"))
for ours, theirs in POLICIES:
    a, b = [], []
    for _ in range(runs):
        el, hit_a, n = nicsim(ours)
        a.append(el)
        el, hit_b = libcachesim(theirs)
        b.append(el)
    ma, mb = statistics.median(a), statistics.median(b)
    pr = [y / x for x, y in zip(a, b)]
    print("%-7s %10.2f %6.1f%% %10.2f %6.1f%% %7.2fx %6.2f-%.2fx %10.4f %10.4f"
          % (ours, ma, spread(a), mb, spread(b), mb / ma, min(pr), max(pr),
             hit_a, hit_b))
    rows.append({"policy": ours, "libcachesim": theirs, "accesses": n,
                 "nicsim_s": a, "libcachesim_s": b,
                 "speed_ratio": mb / ma, "nicsim_spread_pct": spread(a),
                 "libcachesim_spread_pct": spread(b),
                 "round_ratios": pr,
                 "nicsim_hit_ratio": hit_a,
                 "libcachesim_hit_ratio": hit_b})
# the miss-ratio curve: nicsim --mrc, one pass for ten sizes, against
# libCacheSim's LRU run at each size one after the other (as one draws a
# curve with it); the hit ratios differ below the largest file only by
# nicsim's rule that a file larger than the cache bypasses it
SIZES = "64k,128k,256k,512k,1m,2m,4m,8m,16m,32m"


def nicsim_mrc():
    t = time.monotonic()
    p = subprocess.run(["build/nicsim", "--mrc", "--sizes", SIZES,
                        "--repeat", passes, "--json", "-", work + "/nasa.nic"],
                       capture_output=True, check=True)
    return time.monotonic() - t, json.loads(p.stdout)


def lcs_sizes():
    total, hits = 0.0, []
    for s in SIZES.split(","):
        n = int(s[:-1]) << (10 if s[-1] == "k" else 20)
        reader = lcs.TraceReader(trace=work + "/nasa.oracle",
                                 trace_type=lcs.TraceType.ORACLE_GENERAL_TRACE)
        cache = lcs.LRU(cache_size=n)
        t = time.monotonic()
        miss, _ = cache.process_trace(reader)
        total += time.monotonic() - t
        hits.append(1 - miss)
    return total, hits


a, b = [], []
for _ in range(runs):
    el, curve = nicsim_mrc()
    a.append(el)
    el, lhits = lcs_sizes()
    b.append(el)
ma, mb = statistics.median(a), statistics.median(b)
pr = [y / x for x, y in zip(a, b)]
print("mrc     %10.2f %6.1f%% %10.2f %6.1f%% %7.2fx %6.2f-%.2fx  (nicsim "
      "--mrc, 10 sizes in one pass; libCacheSim LRU at each size)"
      % (ma, spread(a), mb, spread(b), mb / ma, min(pr), max(pr)))
for r, h in zip(curve, lhits):
    n = r["block_hits"] + r["block_misses"]
    print("  %9s  nicsim hit %.4f  libCacheSim hit %.4f"
          % (r["cache_bytes"], r["block_hits"] / n if n else 0, h))
rows.append({"policy": "lru --mrc", "sizes": SIZES, "nicsim_s": a,
             "libcachesim_s": b, "speed_ratio": mb / ma,
             "nicsim_spread_pct": spread(a),
             "libcachesim_spread_pct": spread(b), "round_ratios": pr,
             "nicsim_hit_ratios": [r["block_hits"] / max(1, r["block_hits"]
                                                         + r["block_misses"])
                                   for r in curve],
             "libcachesim_hit_ratios": lhits})
json.dump(rows, open(out, "w"), indent=1)
print("speed = nicsim speed / libCacheSim speed (above 1: nicsim faster); "
      "results: " + out)
PY

if [ "$EXPLAIN" = 1 ]; then
    "$venv/bin/python" bench/libcachesim_explain.py "$work" "$PASSES" \
        "$OUT/libcachesim_explain.json"
fi
