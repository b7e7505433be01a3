#!/usr/bin/python3
"""nicreplay-cluster: nicreplay over a Dask cluster (nicache_cluster.py
does the Dask side)."""

import os
import sys

# nicache_cluster.py: beside this program (the build), or in
# ../share/nicache (installed)
sys.path[:0] = [os.path.dirname(os.path.realpath(__file__)),
                os.path.join(os.path.dirname(os.path.realpath(__file__)),
                             "..", "share", "nicache")]
import nicache_cluster as nc  # noqa: E402

USAGE = """\
Usage: nicreplay-cluster (--scheduler ADDR | --local N) [--shards N]
                         [--retry] [--json FILE] [--hdr FILE]
                         [--nicreplay PATH]
                         [-q | --quiet] [NICREPLAY OPTIONS] TRACE URL [URL...]
       nicreplay-cluster --help | --version

  --scheduler ADDR  a running Dask scheduler (tcp://HOST:8786)
  --local N         a cluster of N worker processes on this machine
  --shards N        shards (default: one per worker)
  --retry           run a shard whose worker died once more elsewhere
  --json FILE       the merged result, as nicreplay --json writes it
  --hdr FILE        the shards' HdrHistogram logs as one (each interval
                    tagged with its shard)
  --nicreplay PATH  nicreplay on the workers (default: beside this one)
  -q, --quiet       no progress lines
  -h, --help        this text
  --version         nicreplay's version

Splits the replay into shards (nicreplay --shard i/N: sessions are never
split), one per Dask worker (one per host first, where the cluster has
several), starts them together (nicreplay --start-at: every shard begins
at the same wall-clock time), gathers each shard's --json, and merges
them exactly with "nicreplay merge": counts summed, latency histograms
merged, not averaged; --by-url and --by-size tables from every URL's and
every class's counters and histograms, ranked after the merge.  It prints
the merged summary and how far apart the shards began.

A shard whose worker dies fails the run, naming the shard and the worker;
with --retry it runs once more elsewhere and only that run counts (a
shard's counts are taken whole from the run that finished, never added
to a partial one).  Any other option goes to every nicreplay as it is;
--log (one line per request, per process) is refused here.
"""


def run_shard(nicreplay, args, shard, shards, start_at, attempt=0,
              hdr=False):
    """On a worker: one nicreplay shard; its JSON text (and --hdr log's)"""
    import tempfile

    tmp = tempfile.NamedTemporaryFile(prefix="nicreplay-shard-",
                                      suffix=".json", delete=False)
    tmp.close()
    cmd = [nicreplay, "-q", "--shard", "%d/%d" % (shard, shards),
           "--start-at", "%.6f" % start_at, "--json", tmp.name]
    files = [tmp.name]
    if hdr:
        cmd += ["--hdr", tmp.name + ".hdr"]
        files.append(tmp.name + ".hdr")
    r = nc.run_tool(cmd + args, files, nc.kill_delay(shard, attempt,
                                                      start_at))
    r["json"] = r["files"].get(tmp.name) or None
    r["hdr"] = r["files"].get(tmp.name + ".hdr")
    if os.path.exists(tmp.name):
        os.unlink(tmp.name)
    return r


def options(ap):
    ap.add_argument("--shards", type=int)
    ap.add_argument("--json")
    ap.add_argument("--hdr")


def check(o, rest):
    bad = [a for a in rest if a.split("=")[0] in
           ("--log", "--shard", "--start-at")]
    if bad:
        nc.fail("%s: not with nicreplay-cluster (see --help)" % bad[0], 2)
    if len([a for a in rest if not a.startswith("-")]) < 2:
        nc.fail("give TRACE and URL (nicreplay-cluster --help)", 2)
    if o.shards is not None and not 1 <= o.shards <= 1024:
        nc.fail("--shards takes 1 to 1024", 2)


def replay(client, o, rest):
    import json
    import shutil
    import subprocess
    import tempfile
    import time

    n = o.shards or len(client.scheduler_info()["workers"]) or 1
    names = ["shard %d/%d" % (i, n) for i in range(n)]
    start_at = time.time() + 1.0 + 0.02 * n
    hdr = o.hdr is not None

    def submit(i, attempt, workers):
        at = start_at if attempt == 0 else time.time() + 0.5
        return client.submit(run_shard, o.nicreplay, rest, i, n, at,
                             attempt, hdr, workers=workers,
                             allow_other_workers=False, pure=False,
                             key="shard-%d-of-%d-%d" % (i, n, attempt))

    results = nc.gather(client, o, names, submit,
                        " (its timing no longer lines up with the others)",
                        lambda r: r["json"] is not None)
    tmp = tempfile.mkdtemp(prefix="nicreplay-cluster-")
    try:
        paths, starts, failed = [], [], []
        for i in range(n):
            path = os.path.join(tmp, "shard-%d.json" % i)
            with open(path, "w") as f:
                f.write(results[i]["json"])
            paths.append(path)
            if results[i].get("hdr"):
                path = os.path.join(tmp, "shard-%d.hdr" % i)
                with open(path, "w") as f:
                    f.write(results[i]["hdr"])
                paths.append(path)
            shard = json.loads(results[i]["json"])
            if shard.get("started_at"):
                starts.append(shard["started_at"])
            if results[i]["rc"] != 0:
                failed.append("shard %d/%d: %s" % (i, n, results[i]["why"]))
        cmd = [o.nicreplay, "merge"] + paths
        if o.json:
            cmd += ["--json", o.json]
        if o.hdr:
            cmd += ["--hdr", o.hdr]
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(p.stdout)
        if p.returncode != 0:
            nc.fail("nicreplay merge: %s" % p.stderr.strip())
        spread = (max(starts) - min(starts)) * 1000 if starts else 0
        print("  shards: %d on %d hosts; they began %.2f ms apart"
              % (n, len(set(r["host"] for r in results.values())), spread))
        if failed:
            nc.fail(failed[0])
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(nc.main("nicreplay", USAGE, replay, options, check))
