"""nginx's own test suite (../shared/nginx-tests, Test::Nginx) on nicd and
on Debian's nginx, file by file and test by test (issue 41).

Test::Nginx starts the binary it is given as it starts nginx (-p DIR/ -c
nginx.conf -e error.log -g ...); only its -V answer, from which the suite
decides what to skip, is nginx's for both servers (a shim), so both skip
the same tests.  Both run as an ordinary user, as the suite's README asks,
side by side (each file picks its own free ports).

What counts: the tests Debian's nginx passes.  Each that nicd fails must
be named in nginx_suite.txt, either as an intended difference (with its
reason, also in docs/config.md) or as not yet done (issue 41's work
list); a failure named in neither fails this test, and so does a test
of the work list that now passes (the list only shrinks).  An intended
difference may pass where its case does not arise in a run (a timing).  It prints
"nginx-tests: nicd N of M tests nginx passes".
"""

import os
import pwd
import re
import shutil
import subprocess
import tempfile
import threading

from nicd import NICD, Skip, check

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
SUITE = os.environ.get("NGINX_TESTS",
                       os.path.join(TOP, "..", "shared", "nginx-tests"))
NGINX = "/usr/sbin/nginx"
MODULES = "/usr/lib/nginx/modules"
LIST = os.path.join(HERE, "nginx_suite.txt")
FILE_TIMEOUT = 300  # seconds for one file on one server

TAP = re.compile(r"^(not )?ok (\d+)\b(.*)$")


def parse_tap(out):
    """{number: "pass" | "fail" | "skip"} of one file's TAP output"""
    res = {}
    for line in out.splitlines():
        m = TAP.match(line)
        if not m:
            continue
        n, rest = int(m.group(2)), m.group(3)
        if re.search(r"#\s*skip", rest, re.I):
            res[n] = "skip"
        elif m.group(1) and re.search(r"#\s*todo", rest, re.I):
            res[n] = "skip"  # nginx's own "not yet": counted by neither
        else:
            res[n] = "fail" if m.group(1) else "pass"
    return res


def read_list():
    """{(file, n or None): ("intended" | "todo", reason)} from LIST:
    "= FILE[:N[,N-M]] reason" an intended difference, "- FILE[:...]" not
    yet done; N None stands for the whole file"""
    out = {}
    for raw in open(LIST):
        line = raw.split("#", 1)[0].rstrip() if raw.startswith(("-", "=")) \
            else ""
        if not line:
            continue
        kind = "intended" if line[0] == "=" else "todo"
        parts = line[1:].split(None, 1)
        where, reason = parts[0], (parts[1] if len(parts) > 1 else "")
        check(kind == "todo" or reason,
              "nginx_suite.txt: %s has no reason" % where)
        if ":" not in where:
            out[(where, None)] = (kind, reason)
            continue
        name, nums = where.split(":", 1)
        for part in nums.split(","):
            lo, _, hi = part.partition("-")
            for n in range(int(lo), int(hi or lo) + 1):
                out[(name, n)] = (kind, reason)
    return out


def runner(work):
    """the user the suite runs as, and a prefix to run a command as it"""
    if os.getuid() != 0:
        return []
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        raise Skip("running as root and there is no user nobody")
    shutil.chown(work, "nobody")
    return ["runuser", "-u", "nobody", "--"]


# what a file said on its standard error (Test::More's "Failed test"
# lines), by server and file: shown with a failure nginx_suite.txt does
# not name, so that a failure seen once (in CI) says what it was
DIAG = {"nginx": {}, "nicd": {}}


def run_folder(folder, binary, work, as_user, results, diag):
    """each .t file of folder with binary, into results[file] (and its
    standard error's end into diag[file])"""
    lib = os.path.join(SUITE, "h2/lib" if folder == "h2" else "lib")
    home = tempfile.mkdtemp(dir=work)
    os.chmod(home, 0o777)
    env = dict(os.environ, HOME=home, TMPDIR=home,
               TEST_NGINX_BINARY=binary, TEST_NGINX_MODULES=MODULES)
    env.pop("TEST_NGINX_LEAVE", None)
    d = os.path.join(SUITE, folder)
    for f in sorted(os.listdir(d)):
        if not f.endswith(".t"):
            continue
        try:
            p = subprocess.run(as_user + ["perl", "-I", lib, f], cwd=d,
                               env=env, capture_output=True, timeout=FILE_TIMEOUT,
                               encoding="utf-8", errors="replace")
            results[folder + "/" + f] = parse_tap(p.stdout)
            diag[folder + "/" + f] = p.stderr[-3000:]
        except subprocess.TimeoutExpired:
            results[folder + "/" + f] = {}
            diag[folder + "/" + f] = "(timed out after %d s)" % FILE_TIMEOUT


def needs_proxy(name):
    text = open(os.path.join(SUITE, name)).read()
    return re.search(r"\b(proxy_pass|upstream)\b", text) is not None


def ranges(nums):
    """[1, 2, 3, 7] as 1-3,7"""
    out, nums = [], sorted(nums)
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def write_draft(path, got):
    """NGINX_SUITE_DRAFT=FILE: what nicd fails today, as "-" lines (a
    maintainer's starting point for nginx_suite.txt; never read back)"""
    with open(path, "w") as f:
        for name in sorted(got["nginx"]):
            ref, ours = got["nginx"][name], got["nicd"].get(name, {})
            want = [n for n, s in ref.items() if s == "pass"]
            lost = [n for n in want if ours.get(n) != "pass"]
            base = os.path.basename(name)
            if lost and len(lost) == len(want):
                f.write("- %s\n" % base)
            elif lost:
                f.write("- %s:%s\n" % (base, ranges(lost)))


def test_nginx_suite():
    if not os.path.isdir(os.path.join(SUITE, "t")):
        raise Skip("nginx's test suite is not at %s" % SUITE)
    for tool in ("perl", NGINX):
        if shutil.which(tool) is None:
            raise Skip("%s is not installed" % tool)
    for mod in ("Test::More", "IO::Socket::SSL"):
        if subprocess.run(["perl", "-M" + mod, "-e", "1"],
                          capture_output=True).returncode != 0:
            raise Skip("perl's %s is not installed" % mod)
    want = sorted(os.listdir(MODULES)) if os.path.isdir(MODULES) else []
    if "ngx_http_perl_module.so" not in want:
        raise Skip("Debian's nginx modules (scripts/deps.sh test) are "
                   "not installed: nginx would not start the suite's files")

    work = tempfile.mkdtemp(prefix="nicd-nginx-tests-")
    try:
        os.chmod(work, 0o755)
        as_user = runner(work)
        # the binary where the user can reach it, and the -V shim
        nicd = os.path.join(work, "nicd")
        shutil.copy(NICD, nicd)
        shim = os.path.join(work, "nicd-shim")
        with open(shim, "w") as f:
            f.write('#!/bin/sh\n# nginx\'s -V, so that both skip alike\n'
                    'if [ "$1" = -V ]; then exec %s -V; fi\n'
                    'exec %s "$@"\n' % (NGINX, nicd))
        os.chmod(shim, 0o755)
        os.chmod(nicd, 0o755)

        got = {"nginx": {}, "nicd": {}}
        threads, errors = [], []
        for server, binary in (("nginx", NGINX), ("nicd", shim)):
            def both(server=server, binary=binary):
                try:
                    for folder in ("t", "h2", "proxy"):
                        if os.path.isdir(os.path.join(SUITE, folder)):
                            run_folder(folder, binary, work, as_user,
                                       got[server], DIAG[server])
                except Exception as e:  # said by the test, not the thread
                    errors.append("%s: %r" % (server, e))
            t = threading.Thread(target=both)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        check(not errors, "the suite could not run: %s" % errors)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    listed = read_list()
    total = passed = total_np = passed_np = 0
    unlisted, stale, per_file = [], [], []
    for name in sorted(got["nginx"]):
        ref, ours = got["nginx"][name], got["nicd"].get(name, {})
        base = os.path.basename(name)
        want_pass = [n for n, s in ref.items() if s == "pass"]
        ok = [n for n in want_pass if ours.get(n) == "pass"]
        total += len(want_pass)
        passed += len(ok)
        if not needs_proxy(name):
            total_np += len(want_pass)
            passed_np += len(ok)
        per_file.append("%s %d/%d" % (name, len(ok), len(want_pass)))
        for n in want_pass:
            entry = listed.get((base, n)) or listed.get((base, None))
            if ours.get(n) != "pass" and entry is None:
                unlisted.append("%s:%d" % (name, n))
            elif ours.get(n) == "pass" and listed.get((base, n), ("",))[0] \
                    == "todo":
                stale.append("%s:%d" % (name, n))
        whole = listed.get((base, None))
        if whole is not None and whole[0] == "todo" and want_pass \
                and len(ok) == len(want_pass):
            stale.append(name)
    for (base, n), (kind, _) in listed.items():
        if not any(os.path.basename(k) == base for k in got["nginx"]):
            stale.append("%s (no such file ran)" % base)
    if os.environ.get("NGINX_SUITE_DRAFT"):
        write_draft(os.environ["NGINX_SUITE_DRAFT"], got)
    print("nginx-tests per file (nicd/nginx passes): " + ", ".join(per_file))
    print("nginx-tests: nicd %d of %d tests nginx passes; %d of %d in the "
          "files that need no proxy" % (passed, total, passed_np, total_np))
    check(total > 0, "nginx passed nothing: the suite did not run")
    for name in sorted(set(u.rsplit(":", 1)[0] for u in unlisted)):
        print("nginx-tests: %s on nicd, its standard error's end:\n%s"
              % (name, DIAG["nicd"].get(name, "(none kept)")))
    check(not unlisted, "nicd fails tests nginx passes that nginx_suite.txt "
          "does not name: %s" % " ".join(unlisted))
    check(not stale, "nginx_suite.txt names tests nicd now passes (take "
          "them off): %s" % " ".join(sorted(set(stale))))
