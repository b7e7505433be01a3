"""Where nicsim's hit ratios differ from libCacheSim's, show why, request
by request.  Run by bench/libcachesim.sh with EXPLAIN=1, in its venv:

    python bench/libcachesim_explain.py WORK PASSES OUT.json

WORK holds nasa.nic (nicsim's compact trace) and nasa.oracle (the same
block accesses as libCacheSim's oracleGeneral trace).  For S3-FIFO, ARC
and OPT, the three policies whose hit ratios differ, it runs:

- nicsim itself, for its hit count;
- the independent reference model (tests/unit/sendfile_nic/policy/
  reference.py) as nicsim's policy is written, which must give nicsim's
  count exactly;
- libCacheSim, one get() a request, recording each request's hit or miss;
- the same reference model with only the choices that libCacheSim makes
  differently switched on, which must agree with libCacheSim on every
  request.

So each difference is explained by the named choices and by nothing
else.  The choices (read in libCacheSim's sources, confirmed against
the PyPI package libcachesim 0.3.5 by that agreement):
S3-FIFO sizes its queues in bytes from ratios and takes a missed key out
of the ghost queue before it evicts; ARC counts its target p in bytes
and moves it by the ghost lists' ratio unrounded; Belady admits every
missed object, where nicsim's OPT declines one needed no sooner than
every resident.
"""

import json
import os
import struct
import subprocess
import sys
import time

import libcachesim as lcs

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests",
                                "unit", "sendfile_nic", "policy"))
import reference  # noqa: E402

CACHE = 16 * 1024 * 1024
BLOCK = 4096
INT64_MAX = (1 << 63) - 1


def nicsim_hits(work, passes, policy):
    p = subprocess.run(["build/nicsim", "--sizes", "16m", "--policy",
                        policy, "--repeat", passes, "--json", "-",
                        work + "/nasa.nic"], capture_output=True, check=True)
    return json.loads(p.stdout)[0]["block_hits"]


def lcs_outcomes(cls, ids, nxt):
    """libCacheSim's hit (1) or miss (0) for each request, in order."""
    cache = getattr(lcs, cls)(cache_size=CACHE)
    out = bytearray(len(ids))
    r = lcs.Request()
    r.obj_size = BLOCK
    for i, o in enumerate(ids):
        r.obj_id = o
        r.next_access_vtime = INT64_MAX if nxt[i] < 0 else nxt[i]
        out[i] = cache.get(r)
    return out


def disagreements(a, b):
    return sum(x != y for x, y in zip(a, b))


def main():
    work, passes, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
    os.sched_setaffinity(0, {1})
    # oracleGeneral: time, object id, size, index of the next access
    with open(work + "/nasa.oracle", "rb") as f:
        rec = list(struct.iter_unpack("<IQIq", f.read()))
    if {r[2] for r in rec} != {BLOCK}:
        sys.exit("libcachesim_explain: the trace is not all %d-byte blocks"
                 % BLOCK)
    ids = [r[1] for r in rec]
    nxt = [r[3] for r in rec]
    del rec
    cap = CACHE // BLOCK

    # libCacheSim's S3FIFO: S is "full" at (int)(0.1 C) bytes and G holds
    # (int)(0.9 C) bytes, in blocks
    s_bytes = int(CACHE * 0.10)
    lcs_scap = -(-s_bytes // BLOCK)
    lcs_gcap = int(CACHE * 0.90) // BLOCK
    nxt_idx = [None if n < 0 else n for n in nxt]

    cases = [
        ("s3fifo", "S3FIFO",
         lambda o: reference.s3fifo(ids, cap, out=o),
         lambda o: reference.s3fifo(ids, cap, scap=lcs_scap, gcap=lcs_gcap,
                                    ghost_first=True, out=o),
         "S and G sized in bytes (S full at %d blocks, G %d blocks, against "
         "%d and %d); a missed key leaves G before the eviction"
         % (lcs_scap, lcs_gcap, max(1, cap // 10), cap - max(1, cap // 10))),
        ("arc", "ARC",
         lambda o: reference.arc(ids, cap, out=o),
         lambda o: reference.arc(ids, cap, unit=BLOCK, real_steps=True,
                                 out=o),
         "p counted in bytes, moved by the ghost lists' ratio unrounded"),
        ("opt", "Belady",
         lambda o: reference.opt(ids, nxt_idx, cap, out=o),
         lambda o: reference.opt(ids, nxt_idx, cap, admit_all=True, out=o),
         "every missed block admitted (the resident needed last leaves)"),
    ]
    rows = []
    print("nicsim and libCacheSim %s, request by request (%d requests, "
          "16 MiB, 4 KiB blocks):" % (lcs.__version__ if hasattr(
              lcs, "__version__") else "", len(ids)))
    for policy, cls, as_nicsim, as_lcs, choices in cases:
        t = time.monotonic()
        theirs = lcs_outcomes(cls, ids, nxt)
        mine = bytearray()
        ref_nicsim = as_nicsim(mine)
        ref_lcs_out = bytearray()
        ref_lcs = as_lcs(ref_lcs_out)
        row = {"policy": policy, "requests": len(ids),
               "nicsim_hits": nicsim_hits(work, passes, policy),
               "reference_as_nicsim_hits": ref_nicsim,
               "libcachesim_hits": sum(theirs),
               "reference_as_libcachesim_hits": ref_lcs,
               "requests_where_reference_as_libcachesim_disagrees":
                   disagreements(ref_lcs_out, theirs),
               "requests_where_reference_as_nicsim_and_libcachesim_disagree":
                   disagreements(mine, theirs),
               "libcachesim_choices": choices}
        rows.append(row)
        print("  %-7s nicsim %d (reference %d), libCacheSim %d (reference "
              "with its choices %d, %d requests disagree); the reference as "
              "nicsim and libCacheSim disagree on %d requests; %.0f s"
              % (policy, row["nicsim_hits"], ref_nicsim, row[
                  "libcachesim_hits"], ref_lcs, row[
                  "requests_where_reference_as_libcachesim_disagrees"],
                 row["requests_where_reference_as_nicsim_and_libcachesim_disagree"],
                 time.monotonic() - t))
        print("          libCacheSim's choices: %s" % choices)
    json.dump(rows, open(out_path, "w"), indent=1)
    bad = [r["policy"] for r in rows
           if r["nicsim_hits"] != r["reference_as_nicsim_hits"]
           or r["requests_where_reference_as_libcachesim_disagrees"]]
    if bad:
        print("libcachesim_explain: not explained: %s" % ", ".join(bad))
        sys.exit(1)
    print("every difference explained; results: %s" % out_path)


main()
