#!/usr/bin/python3
"""nictrace-cluster: nictrace stats and convert over a Dask cluster (nicache_cluster.py does the Dask side)."""

import os
import sys

# nicache_cluster.py: beside this program (the build), or in
# ../share/nicache (installed)
sys.path[:0] = [os.path.dirname(os.path.realpath(__file__)),
                os.path.join(os.path.dirname(os.path.realpath(__file__)),
                             "..", "share", "nicache")]
import nicache_cluster as nc  # noqa: E402

USAGE = """\
Usage: nictrace-cluster (--scheduler ADDR | --local N) [--retry]
                        [--nictrace PATH] [-q | --quiet]
                        stats TRACE... [--json FILE|-] [TRACE OPTIONS]
       nictrace-cluster (--scheduler ADDR | --local N) [--retry]
                        convert TRACE... --out-dir DIR [TRACE OPTIONS]
       nictrace-cluster --help | --version

  --scheduler ADDR  a running Dask scheduler (tcp://HOST:8786)
  --local N         a cluster of N worker processes on this machine
  --retry           run a trace whose worker died once more elsewhere
  --nictrace PATH   nictrace on the workers (default: beside this one)
  -q, --quiet       no progress lines
  -h, --help        this text
  --version         nictrace's version

stats reads each TRACE on a worker (nictrace stats --json - --with-files)
and merges them with "nictrace merge": the figures of one nictrace stats
over all the traces (requests, bytes and errors summed, the time bounds,
the files' tables joined, so distinct files and the data set size are
exact).  convert writes each TRACE's compact form as DIR/NAME.nic (DIR
as the workers see it: a shared file system), a trace a worker.
"""


def check(o, rest):
    """the command line into o.cmd, o.parts (a command each), o.names"""
    import argparse

    if not rest or rest[0] not in ("stats", "convert"):
        nc.fail("give stats or convert, then the traces (%s --help)"
                % nc.PROG, 2)
    o.cmd = rest[0]
    ap = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    ap.add_argument("--json")
    ap.add_argument("--out-dir")
    t, opts = ap.parse_known_args(rest[1:])
    # the traces: what is neither an option nor an option's value
    with_value = {"--format", "--log-format", "--mapping",
                  "--reorder-window", "--reorder-max"}
    traces, flags, skip = [], [], False
    for a in opts:
        if skip:
            flags.append(a)
            skip = False
        elif a.startswith("-"):
            flags.append(a)
            skip = a in with_value
        else:
            traces.append(a)
    if not traces:
        nc.fail("give the traces (%s --help)" % nc.PROG, 2)
    if o.cmd == "convert" and not t.out_dir:
        nc.fail("convert needs --out-dir DIR", 2)
    base = [os.path.basename(x) for x in traces]
    if o.cmd == "convert" and len(set(base)) != len(base):
        nc.fail("two traces are named %s: their outputs would collide"
                % [x for x in base if base.count(x) > 1][0], 2)
    o.json_out, o.names, o.parts = nc.json_target(t.json), traces, []
    for x, name in zip(traces, base):
        if o.cmd == "stats":
            o.parts.append([o.nictrace, "stats", x, "--json", "-",
                            "--with-files"] + flags)
        else:
            out = os.path.join(os.path.abspath(t.out_dir),
                               name.rsplit(".gz", 1)[0] + ".nic")
            o.parts.append([o.nictrace, "convert", x, "--out", out]
                           + (["--json", "-"] if t.json else []) + flags)


def trace_work(client, o, rest):
    def submit(i, attempt, workers):
        return client.submit(nc.run_part, o.parts[i], i, attempt,
                             workers=workers, allow_other_workers=False,
                             pure=False,
                             key="%s-%d-%d" % (o.cmd, i, attempt))

    results = nc.gather(client, o, o.names, submit, "")
    outs = [results[i]["out"] for i in range(len(o.parts))]
    if o.cmd == "stats":
        sys.stdout.write(nc.merge_with(o.nictrace,
                                       ["--json", o.json_out] if o.json_out
                                       else [], outs, ".json"))
    elif o.json_out:
        nc.write_out(o.json_out, "".join(outs))
    else:
        sys.stdout.write("".join(outs))
    return 0


if __name__ == "__main__":
    sys.exit(nc.main("nictrace", USAGE, trace_work, check=check))
