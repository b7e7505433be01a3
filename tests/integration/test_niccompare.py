"""niccompare end to end on the NASA sample: tables, JSON, PNG plots and a
report; the live share close to nicsim's; no mismatch; and every server it
started gone afterwards, also when a step fails.  Bad input: a trace that
does not parse, a size that is not a size, a testbed that does not exist,
a port in use: one clear line, no server left."""

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile

from nicd import NICD, check
from test_nictrace import NASA

BIN = os.path.dirname(NICD)
NICCOMPARE = os.path.join(BIN, "niccompare")
KEYS = ("testbed", "nics", "cache_bytes", "policy", "requests_per_s",
        "content_mbps", "throughput_gain", "request_rate_gain", "bus_bytes",
        "bus_utilisation", "host_utilisation", "limited_by", "live_share",
        "sim_share", "mismatches")


def nicd_running(workdir):
    """PIDs of nicd processes started with a config under workdir."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if any(workdir.encode() in a for a in cmd) and \
                os.path.basename(cmd[0]) == b"nicd":
            pids.append(int(pid))
    return pids


def niccompare(workdir, *args, binary=NICCOMPARE, timeout=300):
    p = subprocess.run([binary, "--workdir", workdir] + list(args),
                       capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def test_end_to_end():
    with tempfile.TemporaryDirectory() as d:
        wd = os.path.join(d, "work")
        js, plots = os.path.join(d, "r.json"), os.path.join(d, "plots")
        report = os.path.join(d, "report.md")
        rc, out, err = niccompare(wd, NASA, "--sizes", "0,256k,1m",
                                  "--nics", "2", "--testbed", "amd33",
                                  "-c", "8", "--json", js, "--plots", plots,
                                  "--report", report, "-q", "--keep")
        check(rc == 0, "exit %d: %s" % (rc, err))
        check(os.path.isdir(os.path.join(wd, "docroot"))
              and "work directory is kept: " + wd in err, err)
        for title in ("Figure 7a", "Figures 7b and 7c", "Figure 3",
                      "Figure 4"):
            check(title in out, "%s missing from:\n%s" % (title, out))
        runs = json.load(open(js))
        check(len(runs) == 3, "%d configurations" % len(runs))
        for r in runs:
            for k in KEYS:
                check(k in r, "key %s missing: %r" % (k, r))
            check(r["mismatches"] == 0 and r["errors"] == 0,
                  "mismatches or errors: %r" % r)
            check(r["limited_by"] in ("bus", "host", "none"), r["limited_by"])
            check(abs(r["live_share"] - r["sim_share"]) < 0.03,
                  "live %.4f, nicsim %.4f" % (r["live_share"],
                                              r["sim_share"]))
        base = [r for r in runs if r["cache_bytes"] == 0][0]
        check(base["throughput_gain"] == 0 and base["live_share"] == 0,
              "the baseline: %r" % base)
        big = [r for r in runs if r["cache_bytes"] == 1 << 20][0]
        check(big["live_share"] > 0.1 and big["bus_bytes"]["content"]
              < base["bus_bytes"]["content"], "1m caches saved nothing")
        for name in ("fig7a", "fig7b", "fig7c", "fig3", "fig4"):
            png = os.path.join(plots, name + ".png")
            check(os.path.exists(png) and os.path.getsize(png) > 1000,
                  "%s missing or empty" % png)
            check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
                  "%s is not a PNG" % png)
        text = open(report).read()
        check("Figure 3" in text and "fig7a.png" in text, "report: " + text)
        # the answer first: the largest cache's gain and what limits it
        first = text.split("\n")[2]
        check(re.match(r"\*\*1m per NIC on amd33: [-+][0-9.]+ % .*throughput, "
                       r"\w+-limited\*\*\.$", first)
              or re.match(r"\*\*1m per NIC on amd33: no modelled resource "
                          r"limits", first), "answer line: %r" % first)
        # links relative to the report, the command line, version, date
        links = re.findall(r"!\[[^]]*\]\(([^)]+)\)", text)
        check(len(links) == 5 and all(
            not l.startswith("/") and os.path.exists(
                os.path.join(os.path.dirname(report), l)) for l in links),
              repr(links))
        check(re.search(r"Made on \d{4}-\d\d-\d\d by niccompare \d", text)
              and "--report " + report in text, text[:600])
        # every figure readable: no two text elements overlap
        p = subprocess.run([os.path.join(os.path.dirname(NICCOMPARE),
                                         "niccompare-plot"), js, plots,
                            "--trace", "NASA", "--check"],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, p.stderr)
        check(nicd_running(wd) == [], "nicd left running")
        # a second run reuses the docroot
        rc, _, err = niccompare(wd, NASA, "--sizes", "0", "-c", "4")
        check(rc == 0 and "reusing the docroot" in err, err)


def test_failed_step_stops_the_server():
    """nicreplay fails while nicd runs: one line, and nicd is gone."""
    with tempfile.TemporaryDirectory() as d:
        bindir = os.path.join(d, "bin")
        os.mkdir(bindir)
        for tool in ("niccompare", "nicd", "nictrace", "nicsim"):
            os.symlink(os.path.abspath(os.path.join(BIN, tool)),
                       os.path.join(bindir, tool))
        fake = os.path.join(bindir, "nicreplay")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'nicreplay: made to fail' >&2\n"
                    "exit 3\n")
        os.chmod(fake, 0o755)
        wd = os.path.join(d, "work")
        rc, out, err = niccompare(wd, NASA, "--sizes", "0,64k", "-q",
                                  binary=os.path.join(bindir, "niccompare"))
        check(rc == 1 and "nicreplay failed (exit 3)" in err,
              "exit %d: %s" % (rc, err))
        check(nicd_running(wd) == [], "nicd left running after a failure")


def test_bad_input():
    with tempfile.TemporaryDirectory() as d:
        wd = os.path.join(d, "work")
        bad = os.path.join(d, "bad.log")
        with open(bad, "w") as f:
            f.write("this is not an access log\nnor is this\n")
        cases = [
            ((bad, "--sizes", "0,64k"), "not a format I know"),
            ((NASA, "--sizes", "0,12q"), '"12q" is not a size'),
            ((NASA, "--testbed", "amd33,pentium"), 'no testbed "pentium"'),
            ((NASA, "--policy", "mru"), 'no policy "mru"'),
            ((os.path.join(d, "missing.log"),), "No such file"),
        ]
        for args, want in cases:
            rc, out, err = niccompare(wd, *args, "-q")
            lines = err.strip().splitlines()
            check(rc != 0 and len(lines) == 1 and want in lines[0]
                  and lines[0].startswith("niccompare: "),
                  "%r: exit %d, stderr %r" % (args, rc, err))
            check(nicd_running(wd) == [], "%r: nicd left running" % (args,))
        # a port in use
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        try:
            rc, out, err = niccompare(wd, NASA, "--sizes", "0", "--nics", "1",
                                      "--port", str(port), "-q")
        finally:
            s.close()
        lines = err.strip().splitlines()
        check(rc == 1 and len(lines) == 1 and "nicd did not start" in err
              and "in use" in err, "port in use: exit %d, %r" % (rc, err))
        check(nicd_running(wd) == [], "port in use: nicd left running")
        shutil.rmtree(wd, ignore_errors=True)


def test_work_directory_made_and_removed():
    """Without --workdir, a new directory under $TMPDIR, removed at the end;
    --workdir with missing parents is made, and removed at the end unless
    --keep; one that was there is left (issue 34, item 4)."""
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([NICCOMPARE, NASA, "--sizes", "0", "-c", "2",
                            "-q"], capture_output=True, timeout=300,
                           env=dict(os.environ, TMPDIR=tmp))
        check(p.returncode == 0, p.stderr.decode())
        check(os.listdir(tmp) == [], "left in $TMPDIR: %r" % os.listdir(tmp))
        deep = os.path.join(tmp, "a", "b", "work")
        rc, _, err = niccompare(deep, NASA, "--sizes", "0", "-c", "2", "-q")
        check(rc == 0 and not os.path.exists(deep)
              and os.path.isdir(os.path.join(tmp, "a", "b")), err)
        rc, _, err = niccompare(deep, NASA, "--sizes", "0", "-c", "2", "-q",
                                "--keep")
        check(rc == 0 and os.path.isdir(os.path.join(deep, "docroot")), err)
        rc, _, err = niccompare(deep, NASA, "--sizes", "0", "-c", "2")
        check(rc == 0 and "reusing the docroot" in err
              and os.path.isdir(os.path.join(deep, "docroot")),
              "a directory that was there is left: " + err)
        # a failure removes what it made too
        fail = os.path.join(tmp, "fails")
        rc, _, err = niccompare(fail, NASA, "--sizes", "0", "--policy",
                                "nosuch", "-q")
        check(rc != 0 and not os.path.exists(fail), err)



def test_sizes_without_zero_get_the_uncached_run():
    """--sizes 64k (no 0): the uncached run every gain is measured
    against is added, said in one line, and the result has both."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        rc, out, err = niccompare(os.path.join(d, "w"), NASA, "--sizes",
                                  "64k", "-c", "2", "-q", "--json", js)
        check(rc == 0 and "--sizes has no 0: the uncached run (size 0) is "
              "added" in err, err)
        res = json.load(open(js))
        check(sorted(r["cache_bytes"] for r in res) == [0, 65536], repr(res))


def test_runs_in_rounds_with_intervals():
    """--runs 3: every configuration three times in round robin; medians
    with their order-statistic interval (75 % with three), gains paired by
    round, "measurable" exactly when a gain's interval leaves out 0, in
    the table and the JSON; --until-ci adds rounds up to --max-runs
    (issue 30, item 1)."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        rc, out, err = niccompare(os.path.join(d, "w"), NASA, "--sizes",
                                  "0,1m", "-c", "4", "--runs", "3",
                                  "--json", js, "-q")
        check(rc == 0, err)
        check("Medians of 3 rounds" in out and "75.0 %" in out, out)
        runs = json.load(open(js))
        for r in runs:
            check(r["runs"] == 3 and abs(r["ci_coverage"] - 0.75) < 1e-9,
                  repr(r))
            for k in ("content_mbps", "requests_per_s"):
                check(r[k + "_ci_low"] <= r[k] <= r[k + "_ci_high"], repr(r))
        gained = runs[1]
        check(gained["throughput_gain_ci_low"] <= gained["throughput_gain"]
              <= gained["throughput_gain_ci_high"], repr(gained))
        holds_zero = (gained["throughput_gain_ci_low"] <= 0
                      <= gained["throughput_gain_ci_high"])
        check(gained["measurable_throughput_gain"] == (not holds_zero),
              repr(gained))
        marked = re.findall(r"\] no change", out)
        rate_zero = (gained["request_rate_gain_ci_low"] <= 0
                     <= gained["request_rate_gain_ci_high"])
        check(len(marked) == holds_zero + rate_zero, out)
        rc, out, err = niccompare(os.path.join(d, "w"), NASA, "--sizes",
                                  "0,1m", "-c", "4", "--runs", "2",
                                  "--until-ci", "0.000001", "--max-runs",
                                  "4", "--json", js, "-q")
        check(rc == 0 and json.load(open(js))[0]["runs"] == 4, err)
        rc, _, err = niccompare(os.path.join(d, "w"), NASA, "--runs", "5",
                                "--max-runs", "3")
        check(rc == 2 and "--max-runs is below --runs" in err, err)


def test_todays_servers_not_bound_and_memory():
    """Today's testbeds (issue 30, item 3): where no modelled resource
    limits, the gain is 0 in the JSON and the table shows the measured
    difference as what it is, the emulation's cost ("(emulation)"), and
    the ceiling columns are filled; the interconnect and DRAM bytes per served
    byte fall with the cache; the Netflix-like software-TLS server is
    memory-bound at about 240 Gb/s of line, by the model's ceiling."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        rc, out, err = niccompare(os.path.join(d, "w"), NASA, "--sizes",
                                  "0,1m", "-c", "4", "--runs", "1",
                                  "--testbed", "pcie5-400g,rome-400g-tls",
                                  "--json", js, "-q")
        check(rc == 0, err)
        check("pcie5-400g: not bus-, host- or memory-bound: the cache does "
              "not change throughput here" in out, out)
        check(re.search(r"pcie5-400g +1m +[0-9.]+ +[-+][0-9.]+ \(emulation\)",
                        out) and "What the cache changes" in out, out)
        check(re.search(r"pcie5-400g +1m( +[0-9.]+){4} +[0-9.]+ Gb/s +\w+ "
                        r"+[-+][0-9.]+ +[0-9.]+ GB/s", out), out)
        runs = {(r["testbed"], r["cache_bytes"]): r
                for r in json.load(open(js))}
        for tb in ("pcie5-400g", "rome-400g-tls"):
            base, cached = runs[(tb, 0)], runs[(tb, 1 << 20)]
            check(not cached["bound"] and cached["throughput_gain"] == 0
                  and "measured_throughput_gain" in cached, repr(cached))
            check(cached["dram_bytes_per_served_byte"]
                  < base["dram_bytes_per_served_byte"]
                  and cached["pcie_bytes_per_served_byte"]
                  < base["pcie_bytes_per_served_byte"]
                  and cached["dram_bytes_saved_per_served_byte"] > 0
                  and cached["pcie_bytes_saved_per_served_byte"] > 0,
                  repr(cached))
            # the DRAM bytes are the counters' passes: 1 (plain) or 4
            # (storage, DMA, TLS read and write) a host byte, and more
            want = 1 if tb == "pcie5-400g" else 4
            check(want <= base["dram_bytes_per_served_byte"] < want + 0.1,
                  repr(base))
        tls = runs[("rome-400g-tls", 0)]
        check(tls["modelled_ceiling_by"] == "memory"
              and 230 < tls["modelled_ceiling_gbps"] < 241, repr(tls))
        check(runs[("pcie5-400g", 0)]["modelled_ceiling_by"] != "memory",
              repr(runs[("pcie5-400g", 0)]))


def test_over_http2():
    """--http2 (issue 30, item 4): nicd's NIC listeners speak h2c and
    nicreplay replays over HTTP/2; every body verified, the live share
    still nicsim's, the server's counters read over HTTP/1.1."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        rc, out, err = niccompare(os.path.join(d, "w"), NASA, "--sizes",
                                  "0,1m", "-c", "4", "--runs", "1",
                                  "--http2", "--json", js, "-q", "--keep")
        check(rc == 0, err)
        conf = open(os.path.join(d, "w", "nicd.conf")).read()
        runs = json.load(open(js))
        for r in runs:
            check(r["mismatches"] == 0 and r["errors"] == 0
                  and r["failed"] == 0 and r["requests"] > 0, repr(r))
            check(abs(r["live_share"] - r["sim_share"]) < 0.03, repr(r))
        check(" http2;" in conf, conf)
