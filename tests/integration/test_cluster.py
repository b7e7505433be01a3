"""nicreplay-cluster on a local Dask cluster against nicd on loopback
(issue 31): the merged result of a sharded replay equals one process's
replay; the shards begin within 10 ms of each other; a worker killed in
the middle fails the run naming the shard, or with --retry gives the
exact totals; bad input is one line and a non-zero exit.
nictrace-cluster and nicsim-cluster: stats over several traces equals
stats over their concatenation, per-NIC simulation equals --split, and
the same failures.  Without the venv (python3-venv, or PyPI out of
reach) every case says skipped."""

import contextlib
import gzip
import json
import os
import re
import subprocess
import tempfile

from nicd import NICD, Server, Skip, check, wait_until

BIN = os.path.dirname(NICD)
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
NASA = os.path.join(TOP, "..", "shared", "traces", "nasa",
                    "NASA_access_log_Jul95.first1000")
NASA10K = os.path.join(TOP, "..", "shared", "traces", "nasa",
                       "NASA_access_log_Jul95.first10k.clf.gz")
# what must be equal, merged or not (timing aside)
EXACT = ("requests", "requests_sent", "failed", "content_bytes",
         "header_bytes", "responses_by_status", "errors", "mismatches",
         "verified_bytes", "sessions", "connections")


def venv():
    p = subprocess.run(["sh", os.path.join(TOP, "scripts", "venv.sh"),
                        "dask"], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise Skip("no Dask venv: " + p.stderr.strip())
    return os.path.dirname(os.path.dirname(p.stdout.strip()))


def cluster(*args, env=None, timeout=180, prog="nicreplay-cluster"):
    e = dict(os.environ, NICACHE_DASK_VENV=venv())
    e.update(env or {})
    p = subprocess.run([os.path.join(BIN, prog)] + list(args),
                       capture_output=True, text=True, timeout=timeout, env=e)
    return p.returncode, p.stdout, p.stderr


def docroot(d):
    root = os.path.join(d, "www")
    subprocess.run([os.path.join(BIN, "nictrace"), "docroot", NASA,
                    "--root", root], check=True, capture_output=True)
    return root


def single(url, root, d):
    js = os.path.join(d, "single.json")
    subprocess.run([os.path.join(BIN, "nicreplay"), "-q", "-c", "8",
                    "--verify", "--docroot", root, "--by-url", "10",
                    "--by-size", "--json", js, NASA, url],
                   check=True, capture_output=True, timeout=120)
    return json.load(open(js))


def check_exact(js, want, what):
    """the merged result in js counts what one process counted"""
    got = json.load(open(js))
    diff = [k for k in EXACT if got.get(k) != want.get(k)]
    check(not diff, "%s: %r differ:\n%r\n%r" % (
        what, diff, {k: got.get(k) for k in diff},
        {k: want.get(k) for k in diff}))
    return got


def per_url(js):
    """{target: (requests, bytes)} over every answered URL, and the
    ranking by requests and bytes (targets: ties go by target)"""
    bu = js["by_url"]
    return ({u[0]: tuple(u[1:3]) for u in bu["every_url"]},
            [u["target"] for u in bu["by_requests"]],
            [u["target"] for u in bu["by_bytes"]])


def by_size(js):
    return [(c["class"], c["requests"], c["bytes"],
             sum(n for _, n in c["latency_histogram_us"]))
            for c in js["by_size"]]


@contextlib.contextmanager
def served():
    """the NASA sample's docroot served by nicd: (dir, root, url, what one
    nicreplay process counts replaying the sample against it)"""
    venv()
    with tempfile.TemporaryDirectory() as d:
        root = docroot(d)
        with Server(root=root, threads=2, access_log=False) as s:
            url = "http://127.0.0.1:%d/" % s.port
            yield d, root, url, single(url, root, d)


def test_sharded_replay_equals_one_process():
    with served() as (d, root, url, want):
        for workers in ("2", "3"):
            js = os.path.join(d, "merged.json")
            hdr = os.path.join(d, "merged.hdr")
            rc, out, err = cluster("--local", workers, "-c", "4",
                                   "--verify", "--docroot", root,
                                   "--by-url", "10", "--by-size",
                                   "--json", js, "--hdr", hdr, NASA, url)
            check(rc == 0, err)
            got = check_exact(js, want, "%s workers" % workers)
            check(sum(c for _, c in got["latency_histogram_us"])
                  == got["requests"], "histograms merge to the count")
            # per URL and per size class: the same counts, the same
            # ranking, every class's histogram holding its requests
            check(per_url(got) == per_url(want), "per-URL counts differ")
            check(by_size(got) == by_size(want)
                  and all(c[1] == c[3] for c in by_size(got)),
                  "%r\n%r" % (by_size(got), by_size(want)))
            check("top 10 URLs by requests:" in out, out)
            # the HdrHistogram logs: one, every shard's intervals tagged
            lines = open(hdr).read().splitlines()
            tags = {ln.split(",")[0] for ln in lines
                    if ln.startswith("Tag=")}
            check(lines[0].startswith("#[Histogram log format")
                  and tags == {"Tag=run-%d" % i for i in range(int(workers))},
                  "\n".join(lines[:8]))
            m = re.search(r"shards: (\d+) on \d+ hosts?; they began "
                          r"([0-9.]+) ms apart", out)
            check(m and m.group(1) == workers
                  and float(m.group(2)) < 10, out)


def test_a_worker_lost_in_the_middle():
    with served() as (d, root, url, want):
        kill = {"NICREPLAY_CLUSTER_KILL_SHARD": "1"}
        rc, out, err = cluster("--local", "2", "-c", "4", NASA, url,
                               env=kill)
        check(rc == 1 and re.search(r"shard 1/2 on tcp://\S+: its worker "
                                    r"died", err), err)
        js = os.path.join(d, "merged.json")
        rc, out, err = cluster("--local", "2", "-c", "4", "--retry",
                               "--verify", "--docroot", root, "--json",
                               js, NASA, url, env=kill)
        check(rc == 0 and "running it again" in err, err)
        check_exact(js, want, "after a retry")


def test_bad_input_is_one_line():
    venv()
    rc, out, err = cluster("--scheduler", "tcp://127.0.0.1:1", NASA,
                           "http://127.0.0.1:9/")
    check(rc == 1 and "cannot reach the scheduler" in err
          and err.count("\n") == 1, err)
    rc, out, err = cluster("--local", "1", "--nicreplay", "/nonexistent",
                           NASA, "http://127.0.0.1:9/")
    check(rc == 1 and "/nonexistent" in err and err.count("\n") == 1, err)
    rc, out, err = cluster("--local", "1", "/no/such/trace",
                           "http://127.0.0.1:9/")
    check(rc == 1 and "shard 0/1" in err and "/no/such/trace" in err, err)
    rc, out, err = cluster("--local", "1", "--log", "x.log", NASA,
                           "http://127.0.0.1:9/")
    check(rc == 2 and "--log" in err, err)
    rc, out, err = cluster(NASA, "http://127.0.0.1:9/")
    check(rc == 2 and "--scheduler" in err, err)


def day_files(d):
    """the NASA 10k sample cut into three "days" (one of them gzip'd),
    and the whole as one file"""
    lines = gzip.open(NASA10K, "rt", encoding="latin-1").read().splitlines()
    whole = os.path.join(d, "whole.log")
    open(whole, "w", encoding="latin-1").write("\n".join(lines) + "\n")
    days = []
    for i, (a, b) in enumerate(((0, 2500), (2500, 6000),
                                (6000, len(lines)))):
        days.append(os.path.join(d, "day%d.log" % i))
        text = "\n".join(lines[a:b]) + "\n"
        if i == 1:
            days[-1] += ".gz"
            gzip.open(days[-1], "wt", encoding="latin-1").write(text)
        else:
            open(days[-1], "w", encoding="latin-1").write(text)
    return whole, days


def tool(name, *args):
    p = subprocess.run([os.path.join(BIN, name)] + list(args),
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, p.stderr)
    return p.stdout


def test_trace_stats_and_convert_on_the_cluster():
    venv()
    keys = ("duration_s", "first_time", "last_time", "total_response_bytes",
            "avg_response_bytes", "data_set_bytes", "requests",
            "distinct_files", "parse_errors", "late_records")
    with tempfile.TemporaryDirectory() as d:
        whole, days = day_files(d)
        want = json.loads(tool("nictrace", "stats", "--json", "-", whole))
        rc, out, err = cluster("--local", "3", "-q", "stats", "--json", "-",
                               *days, prog="nictrace-cluster")
        check(rc == 0, err)
        got = json.loads(out)
        check(all(got[k] == want[k] for k in keys)
              and sorted(got["traces"]) == sorted(days),
              "%r\n%r" % (got, want))
        # a worker lost: the trace named; with --retry, the same figures
        kill = {"NICACHE_CLUSTER_KILL_PART": "1"}
        rc, out, err = cluster("--local", "2", "-q", "stats", *days,
                               env=kill, prog="nictrace-cluster")
        check(rc == 1 and re.search(r"day1\.log\.gz on tcp://\S+: its "
                                    r"worker died", err), err)
        rc, out, err = cluster("--local", "2", "-q", "--retry", "stats",
                               "--json", "-", *days, env=kill,
                               prog="nictrace-cluster")
        check(rc == 0 and "running it again" in err
              and all(json.loads(out)[k] == want[k] for k in keys), err)
        # convert: a trace a worker, the compact files read as the logs
        out_dir = os.path.join(d, "nic")
        os.mkdir(out_dir)
        rc, out, err = cluster("--local", "2", "-q", "convert", *days,
                               "--out-dir", out_dir, prog="nictrace-cluster")
        check(rc == 0 and out.count("records") == 3, out + err)
        nics = sorted(os.path.join(out_dir, f) for f in os.listdir(out_dir))
        conv = json.loads(tool("nictrace", "stats", "--json", "-", *nics))
        check(all(conv[k] == want[k] for k in keys if k != "late_records"),
              "%r\n%r" % (conv, want))


def test_per_nic_simulation_on_the_cluster():
    venv()
    for opts in (["--sizes", "256k,1m,4m", "--policy", "lru,s3fifo,opt"],
                 ["--mrc", "--points", "6", "--warmup", "500"],
                 ["--mrc", "--sample", "0.5", "--points", "6"]):
        want = tool("nicsim", NASA10K, "--split", "3", "--json", "-", *opts)
        rc, out, err = cluster("--local", "3", "-q", NASA10K, "--split",
                               "3", "--json", "-", *opts, prog="nicsim-cluster")
        check(rc == 0 and out == want, "%r: %s\n%s\n%s" % (opts, err, out,
                                                         want))
    # without --split: the sizes of a list cut among the workers
    want = tool("nicsim", NASA10K, "--sizes", "1m,2m,4m,8m", "--policy",
                "lru,fifo")
    rc, out, err = cluster("--local", "2", "-q", NASA10K, "--sizes",
                           "1m,2m,4m,8m", "--policy", "lru,fifo",
                           prog="nicsim-cluster")
    check(rc == 0 and out == want, err + out + want)


def left_running():
    """PIDs of Dask worker processes or tools of the bad-input cases"""
    return subprocess.run(["pgrep", "-f", "spawn_main|/no/such|/nonexistent"],
                          capture_output=True, text=True).stdout.split()


def test_trace_tools_bad_input_is_one_line():
    venv()
    for prog, args, why in (
            ("nicsim-cluster", ["--scheduler", "tcp://127.0.0.1:1", NASA],
             "cannot reach the scheduler"),
            ("nictrace-cluster", ["--local", "1", "--nictrace",
                                  "/nonexistent", "stats", NASA],
             "/nonexistent"),
            ("nictrace-cluster", ["--local", "1", "stats", "/no/such"],
             "/no/such on tcp://"),
            ("nicsim-cluster", ["--local", "1", "/no/such"],
             "/no/such"),
            ("nicsim-cluster", ["--local", "1", NASA, "--plot", "x.png"],
             "--plot"),
            ("nictrace-cluster", ["--local", "1", "convert", NASA],
             "--out-dir")):
        rc, out, err = cluster(*args, prog=prog)
        check(rc in (1, 2) and why in err and err.count("\n") == 1,
              "%s %r: %d %r" % (prog, args, rc, err))
        # nothing left running: no worker process, no tool
        wait_until(lambda: not left_running(), "%s %r left %r running"
                   % (prog, args, left_running()))
