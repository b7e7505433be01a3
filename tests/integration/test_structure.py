"""The tree's dependencies point one way (DESIGN.md, issue 28 and 29):
no circle of files among the objects that make the programs, and the
folders in layers that call only downward: the server's, and the trace
library below the programs (trace_replayer/PROGRAM/).

Read from the built objects (nm): a file depends on another when it uses
a symbol the other defines.  Headers are read for the server's layers too,
since a type a header takes is a dependency nm cannot see."""

import collections
import os
import re
import subprocess

from nicd import NICD, check

BUILD = os.path.dirname(NICD)
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))

# lowest first: a file may use its own layer and those before it
LAYERS = ["src/util", "src/sendfile_nic", "trace_replayer/lib",
          "src/server/conf", "src/server/core", "src/server/http",
          "src/server/modules", "src/server", "trace_replayer"]


def sources():
    out = []
    for top in ("src", "trace_replayer"):
        for d, _, files in os.walk(os.path.join(TOP, top)):
            out += [os.path.relpath(os.path.join(d, f), TOP)
                    for f in files if f.endswith(".c")]
    return sorted(out)


def graph():
    """file -> {file it uses: [symbols]}, for every built source"""
    defs, undef = {}, {}
    for src in sources():
        obj = os.path.join(BUILD, "obj",
                           src[4:] if src.startswith("src/") else src)
        obj = obj[:-2] + ".o"
        if not os.path.exists(obj):
            continue
        out = subprocess.run(["nm", obj], capture_output=True, text=True,
                             check=True).stdout
        undef[src] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                undef[src].add(f[1])
            elif len(f) == 3 and f[1] in "TDBRCV":
                defs.setdefault(f[2], src)
    g = {}
    for src, syms in undef.items():
        g[src] = collections.defaultdict(list)
        for s in syms:
            if s in defs and defs[s] != src:
                g[src][defs[s]].append(s)
    return g


def circles(g):
    """strongly connected components of more than one file (Tarjan)"""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def layer(path):
    best = -1
    for i, top in enumerate(LAYERS):
        if path.startswith(top + "/") and (
                best < 0 or len(top) > len(LAYERS[best])):
            best = i
    return best


def test_no_circle_of_files():
    g = graph()
    check(len(g) > 60, "objects found under %s: %d" % (BUILD, len(g)))
    found = circles(g)
    said = []
    for comp in found:
        for a in comp:
            for b, syms in sorted(g[a].items()):
                if b in comp:
                    said.append("%s -> %s (%s)" % (a, b, ", ".join(
                        sorted(syms)[:3])))
    check(not found, "files that call each other:\n  " + "\n  ".join(said))


def test_layers_call_down():
    g = graph()
    up = []
    for a, uses in sorted(g.items()):
        la = layer(a)
        if la < 0:
            continue
        for b, syms in sorted(uses.items()):
            lb = layer(b)
            if lb > la:
                up.append("%s uses %s (%s)" % (a, b, ", ".join(
                    sorted(syms)[:3])))
    check(not up, "calls up the layers %s:\n  %s"
          % (" < ".join(LAYERS), "\n  ".join(up)))


INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)
# where a bare #include "x.h" is found: the file's folder, then -I
SEARCH = ["src/server", "src/server/core", "src/server/http",
          "src/server/conf"]


def test_server_headers_include_down():
    up = []
    for top in LAYERS:
        d = os.path.join(TOP, top)
        for f in sorted(os.listdir(d)):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(top, f)
            text = open(os.path.join(TOP, path)).read()
            for inc in INCLUDE.findall(text):
                for base in [top] + SEARCH:
                    cand = os.path.normpath(os.path.join(base, inc))
                    if os.path.exists(os.path.join(TOP, cand)):
                        break
                else:
                    continue  # config.h, generated
                if layer(cand) > layer(path):
                    up.append("%s includes %s" % (path, cand))
    check(not up, "headers taken from a higher layer:\n  " + "\n  ".join(up))
