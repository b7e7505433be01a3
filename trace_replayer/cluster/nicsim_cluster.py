#!/usr/bin/python3
"""nicsim-cluster: nicsim over a Dask cluster (nicache_cluster.py does the Dask side)."""

import os
import sys

# nicache_cluster.py: beside this program (the build), or in
# ../share/nicache (installed)
sys.path[:0] = [os.path.dirname(os.path.realpath(__file__)),
                os.path.join(os.path.dirname(os.path.realpath(__file__)),
                             "..", "share", "nicache")]
import nicache_cluster as nc  # noqa: E402

USAGE = """\
Usage: nicsim-cluster (--scheduler ADDR | --local N) [--retry]
                      [--nicsim PATH] [-q | --quiet]
                      TRACE [NICSIM OPTIONS]
       nicsim-cluster --help | --version

  --scheduler ADDR  a running Dask scheduler (tcp://HOST:8786)
  --local N         a cluster of N worker processes on this machine
  --retry           run a part whose worker died once more elsewhere
  --nicsim PATH     nicsim on the workers (default: beside this one)
  -q, --quiet       no progress lines
  -h, --help        this text
  --version         nicsim's version

Cuts a simulation into independent parts, one a task: with --split N,
one cache a part (nicsim --nic K); and the policies of --policy, and the
sizes of a --sizes list (not with --mrc, whose one pass takes them all),
among the parts.  "nicsim merge" adds the parts up: the table, --json
FILE|- or --csv a single nicsim gives for the same options, counter for counter
(a cache's requests go to it alone, so the caches share nothing).
--plot, --oracle-out and --repeat are refused here.
"""


def check(o, rest):
    """the command line into o.t (what cuts the work) and o.base"""
    import argparse

    refused = [a for a in rest if a.split("=")[0] in
               ("--plot", "--oracle-out", "--repeat", "--nic")]
    if refused:
        nc.fail("%s: not with nicsim-cluster (see --help)" % refused[0], 2)
    ap = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    ap.add_argument("--split", type=int, default=1)
    ap.add_argument("--policy", default="lru")
    ap.add_argument("--sizes")
    ap.add_argument("--json")
    ap.add_argument("--csv", action="store_true")
    ap.add_argument("--mrc", action="store_true")
    try:
        o.t, opts = ap.parse_known_args(rest)
    except SystemExit:
        nc.fail("--split takes a number", 2)
    if not any(not a.startswith("-") for a in opts):
        nc.fail("give the TRACE (%s --help)" % nc.PROG, 2)
    if not 1 <= o.t.split <= 64:
        nc.fail("--split takes 1 to 64", 2)
    if o.t.json == "-" and o.t.csv:
        nc.fail("--json - or --csv: one of them on standard output", 2)
    o.json_out = nc.json_target(o.t.json)
    o.opts = opts
    o.base = [o.nicsim] + opts + ["--split", str(o.t.split), "--json", "-"]
    if o.t.mrc:
        o.base.append("--mrc")


def sim_work(client, o, rest):
    t = o.t
    # the parts: a cache each, times the policies, times a plain list of
    # sizes cut in as many pieces as workers are left over
    workers = max(1, len(client.scheduler_info()["workers"]))
    policies = t.policy.split(",")
    sizes = [t.sizes] if t.sizes else [None]
    if t.sizes and not t.mrc and ":" not in t.sizes \
            and "--points" not in o.opts:
        listed = t.sizes.split(",")
        pieces = max(1, min(len(listed),
                            workers // (t.split * len(policies))))
        sizes = [",".join(listed[k::pieces]) for k in range(pieces)]
    parts, names = [], []
    for nic in range(t.split):
        for pol in policies:
            for sz in sizes:
                cmd = o.base + ["--policy", pol]
                if sz is not None:
                    cmd += ["--sizes", sz]
                if t.split > 1:
                    cmd += ["--nic", str(nic)]
                parts.append(cmd)
                names.append("cache %d/%d, %s%s" % (nic, t.split, pol,
                                                    ", " + sz if sz else ""))

    def submit(i, attempt, workers):
        return client.submit(nc.run_part, parts[i], i, attempt,
                             workers=workers, allow_other_workers=False,
                             pure=False, key="nicsim-%d-%d" % (i, attempt))

    results = nc.gather(client, o, names, submit, "")
    fmt = (["--json", o.json_out] if o.json_out else []) \
        + (["--csv"] if t.csv else [])
    sys.stdout.write(nc.merge_with(o.nicsim, fmt,
                                   [results[i]["out"]
                                    for i in range(len(parts))], ".json"))
    return 0


if __name__ == "__main__":
    sys.exit(nc.main("nicsim", USAGE, sim_work, check=check))
