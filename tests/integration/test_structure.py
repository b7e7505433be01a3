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
# where an #include "x.h" is found: the one include root of the sources
# (-Isrc: "server/http/phases.h"); config.h is build/'s
SEARCH = ["src"]


def includes(tops):
    """(path, included name) for every quoted include of the C files
    below the folders tops"""
    for top in tops:
        for d, _, files in os.walk(os.path.join(TOP, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(d, f), TOP)
                text = open(os.path.join(TOP, path)).read()
                for inc in INCLUDE.findall(text):
                    yield path, inc


def test_one_include_root():
    """every quoted include of the sources is a path from src/ (or
    build/'s config.h, or the trace tools' own from trace_replayer/), and
    none climbs with "../" (issue 40, item 7)"""
    bad = []
    for path, inc in includes(("src", "trace_replayer", "tests", "modules")):
        roots = ["src", "build"]
        if not path.startswith("src/"):
            roots += ["trace_replayer", "tests/unit"]
        if "../" in inc or inc == "config.h":
            ok = "../" not in inc
        else:
            ok = any(os.path.exists(os.path.join(TOP, r, inc))
                     for r in roots)
        if not ok:
            bad.append("%s: #include \"%s\"" % (path, inc))
    check(not bad, "includes not from the one root:\n  " + "\n  ".join(bad))


def test_trace_tools_reach_the_model_through_one_header():
    """the trace tools, their library and its tests include nothing of
    src/sendfile_nic/ but snic_model.h, the cache model's public header
    (issue 43, item 6)"""
    bad = ["%s: #include \"%s\"" % (path, inc)
           for path, inc in includes(("trace_replayer",
                                      "tests/unit/trace_replayer"))
           if inc.startswith("sendfile_nic/")
           and inc != "sendfile_nic/snic_model.h"]
    check(not bad, "the model reached around snic_model.h:\n  "
          + "\n  ".join(bad))


def test_server_headers_include_down():
    up = []
    for path, inc in includes(("src", "trace_replayer")):
        # the trace tools' own include root beside the sources'
        bases = SEARCH + (["trace_replayer"]
                          if path.startswith("trace_replayer/") else [])
        for base in bases:
            cand = os.path.normpath(os.path.join(base, inc))
            if os.path.exists(os.path.join(TOP, cand)):
                break
        else:
            continue  # config.h, generated
        if layer(cand) > layer(path):
            up.append("%s includes %s" % (path, cand))
    check(not up, "headers taken from a higher layer:\n  " + "\n  ".join(up))


MODULES = "src/server/modules/"
# the list of modules and their worker hooks: it names every module, as
# nginx's generated ngx_modules.c does
MODULE_LIST = "src/server/modules/modules.c"


def test_no_module_calls_another():
    """A module reaches another only through the phases, the filters and
    the variables the http layer keeps (issue 40): no symbol of one
    module's file is used by another's."""
    g = graph()
    mods = [f for f in g if f.startswith(MODULES) and f != MODULE_LIST]
    check(len(mods) >= 10, "module objects found: %d" % len(mods))
    calls = []
    for a in mods:
        for b, syms in sorted(g[a].items()):
            if b.startswith(MODULES) and b != MODULE_LIST:
                calls.append("%s uses %s (%s)" % (a, b, ", ".join(
                    sorted(syms)[:3])))
    check(not calls, "modules calling each other:\n  " + "\n  ".join(calls))


def struct_fields(header, struct):
    """the member names of `struct NAME {...}` in header, in order"""
    text = open(os.path.join(TOP, header)).read()
    m = re.search(r"struct %s \{(.*?)\n\};" % re.escape(struct), text, re.S)
    check(m is not None, "struct %s not found in %s" % (struct, header))
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    names = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        # "type *a, *b", "unsigned x : 1", "void (*f)(...)", "char addr[N]"
        fn = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
        if fn:
            names.append(fn.group(1))
            continue
        decl = re.sub(r"\[[^]]*\]|:\s*\d+", "", decl)
        head, _, rest = decl.partition(",")
        names.append(re.findall(r"(\w+)\s*$", head)[0])
        names += [re.findall(r"(\w+)\s*$", p)[0] for p in rest.split(",")
                  if p.strip()]
    return names


# What the shared structs may hold: the core's own settings and a
# connection's own state.  The lists only shrink (issue 40): a module's
# setting goes in its own struct (create_loc_conf), the state of a request
# in the request, never here.
LOC_CONF_FIELDS = """
kind name name_len re parent srv locs nlocs where internal mconf
root alias root_fd root_vars root_default root_cv
etag if_modified_since max_ranges default_type limit_rate
handler handler_name handler_body
gzip_vary
""".split()

CONN_FIELDS = """
w sc tp tp_data ops proto h2 resp_head rev wev tev pev timer idle_ms
in in_size in_start in_end in_max discard collect held req r
out items nitems ihead items_size logb body_sent rate_sent rate_t0
nrequests keepalive closing eof writing reading lingering linger_close
in_chunked handshaking tp_want_write addr prev next
number start_ms stub_state keepalive_ms head_sent
""".split()
# number, start_ms: the connection's serial and accept time, its own state
# as in nginx's ngx_connection_t ($connection, $connection_time; issue 41);
# stub_state: which of stub_status' counts it is in (nicd_conn_state);
# keepalive_ms: the idle time its last request's location allows, as
# nginx's ngx_http_set_keepalive reads clcf->keepalive_timeout;
# head_sent: as body_sent, what its send queue has sent of the response
# at hand that is not body ($bytes_sent, nginx's c->sent)


def test_shared_structs_do_not_grow():
    """A module's field added to the shared location settings, or request
    state added to the connection, fails here."""
    for header, struct, allowed in (
            ("src/server/conf/conf.h", "nicd_loc_conf_s", LOC_CONF_FIELDS),
            ("src/server/core/nicd.h", "nicd_conn_s", CONN_FIELDS)):
        have = struct_fields(header, struct)
        check(len(have) > 20, "%s: fields read: %s" % (struct, have))
        new = [f for f in have if f not in allowed]
        check(not new, "%s (%s) gained %s: a module's settings go in its "
              "own struct (create_loc_conf), a request's state in the "
              "request" % (struct, header, ", ".join(new)))


# Files over 1,000 lines and functions over 150 (issue 40's bound), each
# with its size when the bound was set: they may shrink, never grow, and
# no other file or function may join them.  The HTTP/1 parser's one
# function is the exception the issue names.
BIG_FILES = {}
BIG_FUNCTIONS = {("src/server/http/http_parser.c", "nicd_http_parse"): 183}


def function_sizes(path):
    """(name, lines) of each function of a C file in the tree's style: the
    name's line before a "{" in column 0, the body to the "}" there"""
    lines = open(os.path.join(TOP, path)).read().split("\n")
    out, start = [], None
    for i, line in enumerate(lines):
        if line == "{":
            start, name = i, lines[i - 1].split("(")[0].strip()
        elif line == "}" and start is not None:
            out.append((name, i - start + 1))
            start = None
    return out


def test_files_and_functions_only_shrink():
    grown = []
    for path in sources():
        if not path.startswith("src/"):
            continue
        n = sum(1 for _ in open(os.path.join(TOP, path)))
        if n > BIG_FILES.get(path, 1000):
            grown.append("%s: %d lines" % (path, n))
        for name, size in function_sizes(path):
            if size > BIG_FUNCTIONS.get((path, name), 150):
                grown.append("%s: %s() %d lines" % (path, name, size))
    for path, n in BIG_FILES.items():
        check(os.path.exists(os.path.join(TOP, path)), "%s is gone: take it "
              "off BIG_FILES" % path)
    check(not grown, "over the bound (1,000 lines a file, 150 a function) "
          "or grown past the size listed:\n  " + "\n  ".join(grown))
