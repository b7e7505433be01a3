"""The Dask side of nicreplay-cluster, nictrace-cluster and
nicsim-cluster (nicreplay_cluster.py, nictrace_cluster.py,
nicsim_cluster.py): connecting, placing parts on workers, running a C
tool in each, waiting, failing loudly, and handing the parts' outputs
to the tool's own merge.  Dask only places and starts the C tools; the
C tools merge what they gave, so a cluster's result is the one a single
process would print.  docs/cluster.md says more."""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
# the program run (nicreplay-cluster, ...): the C tools are beside it
BIN = os.path.dirname(os.path.realpath(sys.argv[0]))
PROG = os.path.basename(sys.argv[0]).replace(".py", "").replace("_", "-")

COMMON = """
Dask runs on a laptop (--local N: N worker processes), on machines
("dask scheduler", then "dask worker ADDR" on each), or on Kubernetes
and HPC schedulers through Dask's own deployment projects; the tools and
the traces must be at the same paths on every worker.  docs/cluster.md
says more.

Exit status: 0 when every part did what was asked; 1 when a part or the
cluster failed (one line says why); 2 for a bad command line.
"""


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
            os.execv(py, [py, os.path.realpath(sys.argv[0])] + sys.argv[1:])
    fail("Dask distributed is not installed (sh scripts/venv.sh dask "
         "makes build/venv-dask)")


def fail(why, code=1):
    sys.stderr.write("%s: failed: %s\n" % (PROG, why))
    sys.exit(code)


def json_target(path):
    """--json FILE|-: the path the local merge writes to ("-": standard
    output), its file made now so that a bad path fails before the run"""
    if path is None or path == "-":
        return path
    try:
        open(path, "w").close()
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    return os.path.abspath(path)


def write_out(path, text):
    """text to --json's FILE, or to standard output for "-" """
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))


def die_with_parent():
    import ctypes
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def run_tool(cmd, files=(), kill_env=None):
    """On a worker: cmd, its exit status, standard output, the last line
    of its standard error, and the text of each of files it wrote (then
    removed).  The child dies with the worker (PDEATHSIG)."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             preexec_fn=die_with_parent)
    except OSError as e:
        return {"rc": -1, "why": "%s: %s" % (cmd[0], e.strerror),
                "out": "", "files": {}, "host": os.uname().nodename}
    if kill_env is not None:
        # the tests' way to lose a worker in the middle of a run
        time.sleep(kill_env)
        os.kill(os.getpid(), signal.SIGKILL)
    out, err = p.communicate()
    texts = {}
    for f in files:
        if os.path.exists(f):
            with open(f) as fh:
                texts[f] = fh.read()
            os.unlink(f)
    lines = err.decode(errors="replace").strip().splitlines()
    return {"rc": p.returncode, "why": lines[-1] if lines else "",
            "out": out.decode(errors="replace"), "files": texts,
            "host": os.uname().nodename}


def kill_delay(part, attempt, start_at=None):
    """NICACHE_CLUSTER_KILL_PART=K (or the older NICREPLAY_CLUSTER_KILL_SHARD):
    the worker of part K dies on its first attempt, after its start"""
    k = os.environ.get("NICACHE_CLUSTER_KILL_PART",
                       os.environ.get("NICREPLAY_CLUSTER_KILL_SHARD"))
    if k != str(part) or attempt != 0:
        return None
    return max(0.0, (start_at or time.time()) - time.time()) + 0.05


def run_part(cmd, part, attempt=0):
    """On a worker: one part of a trace tool's work (its output on stdout)"""
    return run_tool(cmd, (), kill_delay(part, attempt))


def placement(workers, n):
    """worker addresses for parts 0..n-1: one per host first"""
    by_host = {}
    for addr, info in sorted(workers.items()):
        by_host.setdefault(info.get("host", addr), []).append(addr)
    order = []
    while any(by_host.values()):
        for host in sorted(by_host):
            if by_host[host]:
                order.append(by_host[host].pop(0))
    return [order[i % len(order)] for i in range(n)]


def connect(o):
    """(client, local cluster or None), or one line and exit 1"""
    ensure_dask()
    import cloudpickle
    import dask
    from distributed import Client, LocalCluster

    # this module's functions go to the workers whole: a worker needs
    # Python and Dask, not this file
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    dask.config.set({"distributed.scheduler.allowed-failures": 0,
                     "distributed.logging.distributed": "error"})
    try:
        if o.local is not None:
            cluster = LocalCluster(n_workers=o.local, threads_per_worker=1,
                                   processes=True, dashboard_address=None,
                                   silence_logs=50)
            return Client(cluster), cluster
        return Client(o.scheduler, timeout="10s"), None
    except (OSError, TimeoutError) as e:
        fail("cannot reach the scheduler %s (%s)" % (o.scheduler, e))


def gather(client, o, names, submit, what, ok=lambda r: r["rc"] == 0):
    """Run parts 0..n-1 (submit(i, attempt, workers) gives a future) and
    wait for them all: {i: result}.  A part whose worker died fails the
    run naming it, or with --retry runs once more on a live worker; a
    part that gave no result (not ok) fails it at once, naming it."""
    from distributed import wait

    workers = client.scheduler_info()["workers"]
    if not workers:
        fail("the cluster has no workers")
    where = placement(workers, len(names))
    futures = {submit(i, 0, [where[i]]): i for i in range(len(names))}
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
                    fail("%s on %s: its worker died (%s)"
                         % (names[i], where[i], type(e).__name__))
                alive = list(client.scheduler_info()["workers"])
                if not alive:
                    fail("no worker left for %s" % names[i])
                sys.stderr.write("%s: %s on %s: its worker died; running it "
                                 "again%s\n" % (PROG, names[i], where[i],
                                                what))
                futures[submit(i, 1, alive)] = i
                continue
            r["where"] = where[i]
            if not ok(r):
                fail("%s on %s: %s" % (names[i], where[i],
                                       r["why"] or "exit status %d" % r["rc"]))
            results[i] = r
            if not o.quiet:
                sys.stderr.write("%s: %d of %d parts done\n"
                                 % (PROG, len(results), len(names)))
    return results


def merge_with(tool, args, texts, suffix):
    """tool merge over texts (written to files): its output, or fail"""
    tmp = tempfile.mkdtemp(prefix=PROG + "-")
    try:
        paths = []
        for k, text in enumerate(texts):
            paths.append(os.path.join(tmp, "part-%d%s" % (k, suffix)))
            with open(paths[-1], "w") as f:
                f.write(text)
        p = subprocess.run([tool, "merge"] + paths + args,
                           capture_output=True, text=True)
        if p.returncode != 0:
            fail("%s merge: %s" % (os.path.basename(tool),
                                   p.stderr.strip()))
        return p.stdout
    finally:
        shutil.rmtree(tmp, ignore_errors=True)



def main(tool, usage, work, parser=None, check=None):
    """A cluster tool's main: the common options (and parser's, added to
    it), --help and --version, check(o, rest) of the rest of the command
    line (it fails with status 2 itself), then work(client, o, rest) on a
    cluster."""
    ap = argparse.ArgumentParser(prog=PROG, add_help=False,
                                 allow_abbrev=False)
    ap.add_argument("--scheduler")
    ap.add_argument("--local", type=int)
    ap.add_argument("--retry", action="store_true")
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("-h", "--help", action="store_true")
    ap.add_argument("--version", action="store_true")
    ap.add_argument("--" + tool, default=os.path.join(BIN, tool))
    if parser is not None:
        parser(ap)
    o, rest = ap.parse_known_args()
    if o.help:
        sys.stdout.write(usage + COMMON)
        return 0
    if o.version:
        p = subprocess.run([getattr(o, tool), "--version"],
                           capture_output=True, text=True)
        sys.stdout.write("%s: %s" % (PROG, p.stdout))
        return 0
    if (o.scheduler is None) == (o.local is None):
        fail("one of --scheduler ADDR and --local N", 2)
    if o.local is not None and not 1 <= o.local <= 256:
        fail("--local takes 1 to 256 workers", 2)
    if check is not None:
        check(o, rest)  # before any cluster starts
    client, cluster = connect(o)
    try:
        return work(client, o, rest)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
