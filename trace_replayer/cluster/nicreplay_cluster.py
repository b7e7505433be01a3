#!/usr/bin/python3
"""nicreplay-cluster: nicreplay over a Dask cluster.

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

Dask runs on a laptop (--local N: N worker processes), on machines
("dask scheduler", then "dask worker ADDR" on each), or on Kubernetes
and HPC schedulers through Dask's own deployment projects; nicreplay
must be at the same path on every worker (--nicreplay PATH, default the
one beside this program).  docs/cluster.md says more.

Exit status: 0 when every shard did what was asked; 1 when a shard or the
cluster failed (one line says why); 2 for a bad command line.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
REFUSED = ("--log", "--shard", "--start-at")


def ensure_dask():
    """distributed, from the project's venv when the system has none"""
    try:
        import distributed  # noqa: F401
        return
    except ImportError:
        pass
    for venv in (os.environ.get("NICACHE_DASK_VENV"),
                 os.path.join(HERE, "venv-dask"),
                 os.path.join(HERE, "..", "share", "nicache", "venv-dask")):
        py = venv and os.path.join(venv, "bin", "python")
        # a venv's python is a link to the system's: tell them apart by
        # the prefix it runs with
        if py and os.path.exists(py) and os.path.realpath(sys.prefix) != \
                os.path.realpath(venv):
            os.execv(py, [py, os.path.realpath(__file__)] + sys.argv[1:])
    fail("Dask distributed is not installed (sh scripts/venv.sh dask "
         "makes build/venv-dask)")


def fail(why, code=1):
    sys.stderr.write("nicreplay-cluster: failed: %s\n" % why)
    sys.exit(code)


def run_shard(nicreplay, args, shard, shards, start_at, attempt=0,
              hdr=False):
    """On a worker: one nicreplay shard; its JSON text (and --hdr log's),
    exit status and last line of stderr.  The child dies with the worker
    (PDEATHSIG)."""
    import ctypes

    def die_with_parent():
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)

    out = tempfile.NamedTemporaryFile(prefix="nicreplay-shard-",
                                      suffix=".json", delete=False)
    out.close()
    cmd = [nicreplay, "-q", "--shard", "%d/%d" % (shard, shards),
           "--start-at", "%.6f" % start_at, "--json", out.name]
    if hdr:
        cmd += ["--hdr", out.name + ".hdr"]
    cmd += args
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE,
                             preexec_fn=die_with_parent)
    except OSError as e:
        os.unlink(out.name)
        return {"rc": -1, "why": "%s: %s" % (nicreplay, e.strerror),
                "json": None, "host": os.uname().nodename}
    if os.environ.get("NICREPLAY_CLUSTER_KILL_SHARD") == str(shard) and \
            attempt == 0:
        # the tests' way to lose a worker in the middle of a replay
        time.sleep(max(0.0, start_at - time.time()) + 0.05)
        os.kill(os.getpid(), signal.SIGKILL)
    _, err = p.communicate()
    with open(out.name) as f:
        text = f.read()
    os.unlink(out.name)
    log = None
    if hdr and os.path.exists(out.name + ".hdr"):
        with open(out.name + ".hdr") as f:
            log = f.read()
        os.unlink(out.name + ".hdr")
    lines = err.decode(errors="replace").strip().splitlines()
    return {"rc": p.returncode, "why": lines[-1] if lines else "",
            "json": text or None, "hdr": log, "host": os.uname().nodename}


def placement(workers, shards):
    """worker addresses for shards 0..n-1: one per host first"""
    by_host = {}
    for addr, info in sorted(workers.items()):
        by_host.setdefault(info.get("host", addr), []).append(addr)
    order = []
    while any(by_host.values()):
        for host in sorted(by_host):
            if by_host[host]:
                order.append(by_host[host].pop(0))
    return [order[i % len(order)] for i in range(shards)]


def main():
    ap = argparse.ArgumentParser(prog="nicreplay-cluster", add_help=False)
    ap.add_argument("--scheduler")
    ap.add_argument("--local", type=int)
    ap.add_argument("--shards", type=int)
    ap.add_argument("--retry", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--hdr")
    ap.add_argument("--nicreplay", default=os.path.join(HERE, "nicreplay"))
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("-h", "--help", action="store_true")
    ap.add_argument("--version", action="store_true")
    o, rest = ap.parse_known_args()
    if o.help:
        sys.stdout.write(__doc__.split("\n", 1)[1].lstrip("\n"))
        return 0
    if o.version:
        p = subprocess.run([o.nicreplay, "--version"], capture_output=True,
                           text=True)
        sys.stdout.write("nicreplay-cluster: " + p.stdout)
        return 0
    if (o.scheduler is None) == (o.local is None):
        fail("one of --scheduler ADDR and --local N", 2)
    if o.local is not None and not 1 <= o.local <= 256:
        fail("--local takes 1 to 256 workers", 2)
    bad = [a for a in rest if a.split("=")[0] in REFUSED]
    if bad:
        fail("%s: not with nicreplay-cluster (see --help)" % bad[0], 2)
    if len([a for a in rest if not a.startswith("-")]) < 2:
        fail("give TRACE and URL (nicreplay-cluster --help)", 2)
    ensure_dask()
    import dask
    from distributed import Client, LocalCluster

    cluster = None
    dask.config.set({"distributed.scheduler.allowed-failures": 0,
                     "distributed.logging.distributed": "error"})
    try:
        if o.local is not None:
            cluster = LocalCluster(n_workers=o.local, threads_per_worker=1,
                                   processes=True, dashboard_address=None,
                                   silence_logs=50)
            client = Client(cluster)
        else:
            client = Client(o.scheduler, timeout="10s")
    except (OSError, TimeoutError) as e:
        fail("cannot reach the scheduler %s (%s)" % (o.scheduler, e))
    try:
        return replay(client, o, rest)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def replay(client, o, rest):
    from distributed import wait

    workers = client.scheduler_info()["workers"]
    if not workers:
        fail("the cluster has no workers")
    n = o.shards or len(workers)
    where = placement(workers, n)
    start_at = time.time() + 1.0 + 0.02 * n
    hdr = o.hdr is not None
    futures = {client.submit(run_shard, o.nicreplay, rest, i, n, start_at,
                             0, hdr, workers=[where[i]],
                             allow_other_workers=False, pure=False, key="shard-%d-of-%d" % (i, n)): i
               for i in range(n)}
    results, tries = {}, {}
    while futures:
        done, _ = wait(list(futures), return_when="FIRST_COMPLETED")
        for f in done:
            i = futures.pop(f)
            try:
                r = f.result()
            except Exception as e:  # the worker died under it
                tries[i] = tries.get(i, 0) + 1
                if not o.retry or tries[i] > 1:
                    fail("shard %d/%d on %s: its worker died (%s)"
                         % (i, n, where[i], type(e).__name__))
                sys.stderr.write("nicreplay-cluster: shard %d/%d on %s: its "
                                 "worker died; running it again (its timing "
                                 "no longer lines up with the others)\n"
                                 % (i, n, where[i]))
                alive = list(client.scheduler_info()["workers"])
                if not alive:
                    fail("no worker left for shard %d/%d" % (i, n))
                g = client.submit(run_shard, o.nicreplay, rest, i, n,
                                  time.time() + 0.5, 1, hdr, workers=alive,
                                  pure=False,
                                  key="shard-%d-of-%d-again" % (i, n))
                futures[g] = i
                continue
            if r["json"] is None:
                fail("shard %d/%d on %s: %s" % (i, n, where[i], r["why"]))
            results[i] = r
            if not o.quiet:
                sys.stderr.write("nicreplay-cluster: %d of %d shards done\n"
                                 % (len(results), n))
    return merge(o, n, results)


def merge(o, n, results):
    import json

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
        nicreplay = o.nicreplay
        cmd = [nicreplay, "merge"] + paths
        if o.json:
            cmd += ["--json", o.json]
        if o.hdr:
            cmd += ["--hdr", o.hdr]
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(p.stdout)
        if p.returncode != 0:
            fail("nicreplay merge: %s" % p.stderr.strip())
        spread = (max(starts) - min(starts)) * 1000 if starts else 0
        print("  shards: %d on %d hosts; they began %.2f ms apart"
              % (n, len(set(r["host"] for r in results.values())), spread))
        if failed:
            fail(failed[0])
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
