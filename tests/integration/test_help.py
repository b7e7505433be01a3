"""Every program answers --help with every long option its parser takes
(read from its source's option tables, so the two cannot drift apart),
and --version with its version (issue 34, item 1)."""

import os
import re
import subprocess

from nicd import NICD, check

BIN = os.path.dirname(NICD)
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
PROGRAMS = {
    "nicd": "src/server/nicd",
    "nictrace": "trace_replayer/nictrace",
    "nicsim": "trace_replayer/nicsim",
    "nicreplay": "trace_replayer/nicreplay",
    "niccompare": "trace_replayer/niccompare",
    "nicload": "trace_replayer/nicload",
    "nicreplay-cluster": ("trace_replayer/cluster/nicreplay_cluster.py",
                          "trace_replayer/cluster/nicache_cluster.py"),
    "nictrace-cluster": ("trace_replayer/cluster/nictrace_cluster.py",
                         "trace_replayer/cluster/nicache_cluster.py"),
    "nicsim-cluster": ("trace_replayer/cluster/nicsim_cluster.py",
                       "trace_replayer/cluster/nicache_cluster.py"),
}
OPTION = re.compile(r'"([a-z0-9][a-z0-9-]*)",\s*(?:no|required|optional)_argument'
                    r'|add_argument\((?:"-[a-z]", )?"--([a-z0-9-]+)"')


def options(src):
    """the long options of a program's source: a file, every C file of
    its folder, or the files of a tuple"""
    if isinstance(src, tuple):
        names = [os.path.join(TOP, f) for f in src]
    else:
        path = os.path.join(TOP, src)
        names = ([os.path.join(path, f) for f in sorted(os.listdir(path))
                  if f.endswith((".c", ".py"))] if os.path.isdir(path)
                 else [path])
    text = "".join(open(n).read() for n in names)
    found = set(a or b for a, b in OPTION.findall(text))
    if "TRACE_SRC_LONGOPTS" in text:
        found |= set(a or b for a, b in OPTION.findall(
            open(os.path.join(TOP, "trace_replayer/lib/formats/reader.h")).read()))
    return found


def test_help_lists_every_option():
    missing = {}
    for prog, src in PROGRAMS.items():
        opts = options(src)
        check(len(opts) > 3, "%s: no option table found in %s" % (prog, src))
        p = subprocess.run([os.path.join(BIN, prog), "--help"],
                           capture_output=True, text=True, timeout=20)
        check(p.returncode == 0, "%s --help: rc %d" % (prog, p.returncode))
        gone = sorted(o for o in opts if "--" + o not in p.stdout)
        if gone:
            missing[prog] = gone
    check(not missing, "options the help does not list: %r" % missing)


def test_version():
    for prog in PROGRAMS:
        p = subprocess.run([os.path.join(BIN, prog), "--version"],
                           capture_output=True, text=True, timeout=20)
        check(p.returncode == 0 and re.search(r"\b\d+\.\d+\.\d+\b", p.stdout),
              "%s --version: rc %d %r" % (prog, p.returncode, p.stdout))
