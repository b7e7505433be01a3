"""The finish a person expects (issue 34): manual pages that man reads
without a warning and that list every option and directive, make help
listing every target, make install giving a configuration that passes
nicd -t, bash completion of options and subcommands, and the README's
and docs' shell blocks marked runnable running as written."""

import glob
import os
import re
import shutil
import subprocess
import tempfile

from nicd import NICD, Skip, check
from test_help import PROGRAMS, options

BUILD = os.path.dirname(NICD)
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
SECTION = {"nicd": "8"}


def page(name):
    """a manual page of this build, rendered as text (warnings kept)"""
    path = os.path.join(BUILD, "man", name)
    check(os.path.exists(path), "no manual page " + path)
    p = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", path],
                       capture_output=True, timeout=30,
                       env=dict(os.environ, MANWIDTH="80"))
    text = re.sub(r".\x08", "", p.stdout.decode())
    return text, p.stderr.decode()


def source(name):
    """a manual page's roff as words: escapes and font changes gone, so an
    option the renderer would break across lines is still whole"""
    text = open(os.path.join(BUILD, "man", name)).read()
    return re.sub(r"\\f[A-Z]|\\&", "", text).replace("\\-", "-")


def test_manual_pages_list_every_option():
    for prog, src in PROGRAMS.items():
        name = "%s.%s" % (prog, SECTION.get(prog, "1"))
        text, warnings = page(name)
        check(warnings == "", "%s: man --warnings says %s" % (name, warnings))
        text = source(name)
        gone = sorted(o for o in options(src) if "--" + o not in text)
        check(not gone, "%s lacks options %r" % (name, gone))
        check("EXIT STATUS" in text and "EXAMPLES" in text, name)


DIRECTIVE = re.compile(r'^\s*\{"([a-z_0-9]+)",\s*(?:CTX_|MHS\b|MH\b)', re.M)


def test_nicd_conf_page_names_every_directive():
    """nicd.conf(5) comes from docs/config.md: every directive of the
    tables nicd reads, and the send backends', is in it."""
    names = set()
    for src in glob.glob(os.path.join(TOP, "src/server/**/*.c"),
                         recursive=True):
        names |= set(DIRECTIVE.findall(open(src).read()))
    nic = open(os.path.join(TOP, "src/sendfile_nic/backend_nic.c")).read()
    names |= set(re.findall(r'"(nic_[a-z_]+)"',
                            nic[nic.index("nic_directives[]"):]
                            .split("NULL")[0]))
    uring = open(os.path.join(TOP, "src/sendfile_nic/backend_uring.c")).read()
    names |= set(re.findall(r'"(uring_[a-z_]+)"',
                            uring[uring.index("uring_directives[]"):]
                            .split("NULL")[0]))
    check(len(names) > 100, "directives found: %d" % len(names))
    _, warnings = page("nicd.conf.5")
    check(warnings == "", "nicd.conf.5: " + warnings)
    # in the roff, where the renderer's hyphenation cannot split a name
    text = source("nicd.conf.5").replace("\\_", "_")
    gone = sorted(n for n in names if not re.search(r"\b%s\b" % n, text))
    check(not gone, "directives nicd.conf(5) does not describe: %r" % gone)


def test_make_help_lists_every_target():
    make = open(os.path.join(TOP, "Makefile")).read()
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)", make, re.M).group(1)
    targets = phony.replace("\\\n", " ").split()
    p = subprocess.run(["make", "-s", "--no-print-directory", "help"],
                       cwd=TOP, capture_output=True, text=True, timeout=30)
    listed = set(re.findall(r"^\s*make ([a-z0-9-]+)", p.stdout, re.M))
    listed.add("all")  # "make" alone
    gone = sorted(t for t in targets if t not in listed)
    check(p.returncode == 0 and not gone, "make help lacks %r" % gone)


def plain_build():
    if os.path.basename(BUILD) != "build":
        raise Skip("checked with the plain build (make with BUILD=%s would "
                   "rebuild it with other flags)" % os.path.basename(BUILD))


def test_make_install_runs_as_installed():
    """make install PREFIX=DIR: the programs, manual pages, completion,
    configuration and a sample docroot; the installed nicd passes -t on
    the installed configuration with no warning; DESTDIR stages the same
    tree."""
    plain_build()
    with tempfile.TemporaryDirectory() as d:
        prefix = os.path.join(d, "usr")
        p = subprocess.run(["make", "-s", "--no-print-directory", "install",
                            "PREFIX=" + prefix], cwd=TOP, capture_output=True,
                           text=True, timeout=300)
        check(p.returncode == 0, p.stdout + p.stderr)
        for f in ("sbin/nicd", "bin/nicsim", "bin/nicsim-plot",
                  "bin/niccompare-plot", "etc/nicd/nicd.conf",
                  "etc/nicd/mime.types", "etc/nicd/specweb99.lua",
                  "share/nicd/html/index.html", "share/man/man8/nicd.8",
                  "share/man/man5/nicd.conf.5", "share/man/man1/nicsim.1",
                  "share/bash-completion/completions/nictrace"):
            check(os.path.exists(os.path.join(prefix, f)), "not installed: " + f)
        conf = os.path.join(prefix, "etc/nicd/nicd.conf")
        t = subprocess.run([os.path.join(prefix, "sbin/nicd"), "-t", "-c",
                            conf], capture_output=True, text=True, timeout=30,
                           cwd=d)
        check(t.returncode == 0 and "test is successful" in t.stderr
              and "[warn]" not in t.stderr, t.stderr)
        stage = os.path.join(d, "stage")
        p = subprocess.run(["make", "-s", "--no-print-directory", "install",
                            "DESTDIR=" + stage, "PREFIX=/usr/local"], cwd=TOP,
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == 0 and os.path.exists(
            os.path.join(stage, "usr/local/share/man/man1/nicreplay.1")),
              p.stdout + p.stderr)
        check("root /usr/local/share/nicd/html;" in open(os.path.join(
            stage, "usr/local/etc/nicd/nicd.conf")).read(), "installed root")


def complete(*words):
    script = os.path.join(TOP, "scripts/nicache.bash-completion")
    line = ("source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _nicache; "
            "printf '%%s\\n' \"${COMPREPLY[@]}\"" %
            (script, " ".join("'%s'" % w for w in words), len(words) - 1))
    p = subprocess.run(["bash", "-c", line], capture_output=True, text=True,
                       timeout=30, env=dict(os.environ, PATH=BUILD + ":"
                                            + os.environ["PATH"]))
    check(p.returncode == 0, p.stderr)
    return sorted(p.stdout.split())


def test_bash_completion():
    check(complete("nicsim", "--sam") == ["--sample", "--sample-size"],
          repr(complete("nicsim", "--sam")))
    check(complete("nictrace", "s") == ["sessions", "stats", "synth"],
          repr(complete("nictrace", "s")))
    check(complete("nicsim", "--policy", "s") == ["s3fifo", "sieve"],
          repr(complete("nicsim", "--policy", "s")))
    check("--keep" in complete("niccompare", "--k"), "niccompare --keep")


RUNNABLE = re.compile(r"^```sh runnable\n(.*?)^```", re.M | re.S)


def test_runnable_blocks_run_as_written():
    """Every fenced block marked "sh runnable" in README.md and docs/*.md
    runs from the top of a checkout (after make) and exits 0."""
    plain_build()
    blocks = []
    for doc in ["README.md"] + sorted(glob.glob(os.path.join(TOP, "docs",
                                                             "*.md"))):
        text = open(os.path.join(TOP, doc)).read()
        blocks += [(os.path.relpath(doc, TOP), b)
                   for b in RUNNABLE.findall(text)]
    check(len(blocks) >= 3, "runnable blocks found: %d" % len(blocks))
    tmp = tempfile.mkdtemp()
    try:
        for doc, block in blocks:
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block],
                               cwd=TOP, capture_output=True, text=True,
                               timeout=300, env=dict(os.environ, TMPDIR=tmp))
            check(p.returncode == 0, "%s:\n%s\nexit %d: %s" % (
                doc, block, p.returncode, p.stderr[-2000:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def table(doc, after):
    """the rows of the first Markdown table after the line starting with
    after, as lists of cells"""
    lines = open(os.path.join(TOP, doc)).read().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith(after))
    while not lines[i].startswith("|"):
        i += 1
    rows = []
    for l in lines[i + 2:]:
        if not l.startswith("|"):
            break
        rows.append([c.strip() for c in l.strip("|").split("|")])
    return rows


def number(cell):
    return float(cell.replace(",", "").replace(" s", ""))


def test_doc_figures_are_what_the_tools_print():
    """The figure tables of docs/traces.md are the tools' output on the
    bundled samples: Table 1 of each sample (nictrace stats) and the LRU
    golden shares (nicsim), so a change that moves them fails here until
    the docs say what the tools print (issue 34, item 5)."""
    from test_nictrace import NASA, WC98, WC98MAP
    rows = table("docs/traces.md", "On the bundled samples")
    check(len(rows) == 2, repr(rows))
    for row, args in zip(rows, ([NASA], [WC98, "--mapping", WC98MAP])):
        p = subprocess.run([os.path.join(BUILD, "nictrace"), "stats",
                            "--json", "-"] + args, capture_output=True, text=True,
                           timeout=60)
        s = __import__("json").loads(p.stdout)
        want = [s["requests"], s["duration_s"], s["total_response_bytes"],
                s["distinct_files"], s["data_set_bytes"]]
        check([number(c) for c in row[1:]] == want,
              "%s: the docs say %r, nictrace stats %r" % (row[0], row[1:],
                                                         want))
    rows = table("docs/traces.md", "Golden numbers on the NASA sample")
    sizes = {"64 KiB": 65536, "256 KiB": 262144, "1 MiB": 1048576,
             "4 MiB": 4194304, "16 MiB": 16777216}
    for split in (1, 2):
        p = subprocess.run([os.path.join(BUILD, "nicsim"), NASA, "--json", "-",
                            "--split", str(split), "--sizes",
                            ",".join(str(sizes[r[0]]) for r in rows)],
                           capture_output=True, text=True, timeout=60)
        got = ["%.4f" % r["share"] for r in __import__("json").loads(p.stdout)]
        check([r[split] for r in rows] == got,
              "%d cache(s): the docs say %r, nicsim %r"
              % (split, [r[split] for r in rows], got))
