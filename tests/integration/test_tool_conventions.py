"""One convention for every trace tool (issue 43, item 3): --json FILE
with - for standard output, durations with units, a bad option or value
named in one line with the hint to --help, an output path that cannot be
written refused before any work."""

import json
import os
import subprocess
import tempfile

from nicd import NICD, Server, check
from test_nictrace import NASA

BIN = os.path.dirname(NICD)
TOOLS = ("nictrace", "nicsim", "nicreplay", "niccompare", "nicload")


def tool(name, *args, timeout=120):
    p = subprocess.run([os.path.join(BIN, name)] + list(args),
                       capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def test_bad_option_is_one_line():
    """An unknown option, an option without its value, a value given to
    a flag: exit 2 and exactly one line naming it, never a page of
    usage."""
    for name in TOOLS:
        for args, want in (
                (["--no-such-option"], "unknown option --no-such-option"),
                (["--no-such=1"], "unknown option --no-such"),
                (["--json"], "--json wants a value"),
                (["--help=1"], "--help takes no value")):
            rc, out, err = tool(name, *args)
            check(rc == 2 and err == "%s: %s (%s --help lists the options)\n"
                  % (name, want, name),
                  "%s %r: rc %d, %r" % (name, args, rc, err))
    rc, _, err = tool("nicreplay", "x")
    check(rc == 2 and err == "nicreplay: give a TRACE and a URL (nicreplay "
          "--help lists the options)\n", err)
    rc, _, err = tool("nictrace", "frobnicate", NASA)
    check(rc == 2 and err.count("\n") == 1
          and 'unknown command "frobnicate"' in err, err)


def test_durations_take_units():
    """30, 1.5s, 250ms, 1m, 1h 30m wherever a duration is asked for; the
    same value in other units gives the same result; a bad one is named."""
    rc, a, err = tool("nictrace", "sessions", NASA, "--json", "-",
                      "--conn-gap", "60")
    rc2, b, err2 = tool("nictrace", "sessions", NASA, "--json", "-",
                        "--conn-gap", "1m")
    check(rc == 0 and rc2 == 0 and a == b, err + err2)
    rc, c, _ = tool("nictrace", "sessions", NASA, "--json", "-",
                    "--conn-gap", "15s")
    check(json.loads(c) != json.loads(a), "--conn-gap 15s is 1m's")
    rc, a, err = tool("nicsim", NASA, "--json", "-", "--sizes", "1m",
                      "--conn-gap", "90")
    rc2, b, err2 = tool("nicsim", NASA, "--json", "-", "--sizes", "1m",
                        "--conn-gap", "1m30s")
    check(rc == 0 and rc2 == 0 and a == b, err + err2)
    for name, opt, value, args in (
            ("nicreplay", "--duration", "1x", [NASA, "http://127.0.0.1:1/"]),
            ("nicreplay", "--timeout", "-1", [NASA, "http://127.0.0.1:1/"]),
            ("nicload", "--warmup", "5 s x", ["http://127.0.0.1:1/",
                                              "--connections", "1"]),
            ("nicsim", "--conn-gap", "1e3", [NASA]),
            ("nictrace", "--pipeline-gap", "five", ["sessions", NASA]),
            ("niccompare", "--duration", "0", [NASA])):
        rc, _, err = tool(name, opt, value, *args)
        check(rc == 2 and err.startswith('%s: %s: "%s" is not ' % (name, opt,
                                                                     value))
              and err.count("\n") == 1,
              "%s %s %r: %d %r" % (name, opt, value, rc, err))
    # a replay bounded by a duration in milliseconds ends in about that
    with tempfile.TemporaryDirectory() as root, Server(root=root) as s:
        rc, out, err = tool("nicreplay", "-q", "--loop", "--duration",
                            "300ms", "--max-errors", "100%", NASA,
                            "http://127.0.0.1:%d/" % s.port)
    first = out.split("\n")[0]
    secs = float(first.split(" in ")[1].split(" s")[0])
    check(0.25 <= secs < 2, "--duration 300ms ran %s" % first)


def test_json_file_or_stdout_in_every_tool():
    """--json FILE writes the JSON there (nicsim and nicload keep their
    table on standard output, as nicreplay does), --json - to standard
    output; a path that cannot be written fails at once, exit 1, one
    line with the system's reason."""
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "s.json")
        rc, out, err = tool("nictrace", "stats", NASA, "--json", f,
                            "--with-files")
        check(rc == 0 and out == "" and json.load(open(f))["requests"] == 1000,
              err)
        rc, out, _ = tool("nictrace", "stats", NASA, "--json", "-")
        check(json.loads(out)["requests"] == 1000, out)
        rc, out, _ = tool("nictrace", "merge", f, "--json", "-")
        check(rc == 0 and json.loads(out)["requests"] == 1000, out)

        f = os.path.join(d, "n.json")
        rc, out, err = tool("nicsim", NASA, "--sizes", "1m", "--json", f)
        rows = json.load(open(f))
        check(rc == 0 and out.startswith("policy") and rows[0]["cache_bytes"]
              == 1048576, out + err)
        rc, out, _ = tool("nicsim", NASA, "--sizes", "1m", "--json", "-")
        check(json.loads(out) == rows, out)
        f2 = os.path.join(d, "m.json")
        rc, out, err = tool("nicsim", "merge", f, "--json", f2)
        check(rc == 0 and out.startswith("policy")
              and json.load(open(f2)) == rows, out + err)

        # nicreplay and nicload, "-": the JSON alone on standard output
        rc, out, err = tool("nicreplay", NASA, "http://127.0.0.1:1/",
                            "--json", "-")
        res = json.loads(out)
        check(rc == 1 and res["requests"] == 0 and res["error_causes"][0]
              ["reason"] == "Connection refused", out + err)
        root = os.path.join(d, "fs")
        rc, _, err = tool("nicload", "fileset", "--connections", "1",
                          "--root", root)
        check(rc == 0, err)
        with Server(root=root) as s:
            rc, out, err = tool("nicload", "http://127.0.0.1:%d/" % s.port,
                                "-q", "--connections", "1", "--duration",
                                "500ms", "--warmup", "0", "--json", "-")
        res = json.loads(out)
        check(rc == 0 and res["requests"] > 0 and res["duration_s"] == 0.5,
              out + err)

        bad = "/nonexistent/dir/out.json"
        for name, args in (("nictrace", ["stats", NASA]),
                           ("nicsim", [NASA, "--sizes", "1m"]),
                           ("nicsim", ["merge", f]),
                           ("nictrace", ["synth", "--requests", "2000",
                                         "--out", os.devnull]),
                           ("niccompare", [NASA]),
                           ("nicload", ["http://127.0.0.1:1/",
                                        "--connections", "1"])):
            rc, out, err = tool(name, *(args + ["--json", bad]))
            check(rc == 1 and err.endswith(
                "%s: No such file or directory\n" % bad)
                and err.count("\n") == 1,
                "%s %r: %d %r" % (name, args, rc, err))
        rc, _, err = tool("niccompare", NASA, "--report",
                          "/nonexistent/r.md")
        check(rc == 1 and err == "niccompare: /nonexistent/r.md: No such "
              "file or directory\n", err)
