"""The command line: -t, -V, -g, --root/--listen/--threads/--backend, and
start-up errors that name what is wrong."""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile

from nicd import NICD, Server, check, get, wait_until


def run(*args):
    p = subprocess.run([NICD] + list(args), capture_output=True, text=True,
                       timeout=20)
    return p.returncode, p.stdout + p.stderr


def test_version_lists_backends():
    rc, out = run("-V")
    check(rc == 0, out)
    check(re.search(r"nicd version: nicd/\d+\.\d+\.\d+", out), out)
    check(re.search(r"^  sendfile .*\(default\)$", out, re.M), out)
    check(re.search(r"^  copy ", out, re.M), out)
    check("openat2" in out, "features missing: " + out)


def test_config_test():
    d = tempfile.mkdtemp()
    good = os.path.join(d, "good.conf")
    with open(good, "w") as f:
        f.write("root %s;\nlisten 127.0.0.1:0;\n" % d)
    rc, out = run("-t", "-c", good)
    check(rc == 0 and "test is successful" in out, out)

    bad = os.path.join(d, "bad.conf")
    with open(bad, "w") as f:
        f.write("root %s;\n\nkeepalive_timeout forever;\n" % d)
    rc, out = run("-t", "-c", bad)
    check(rc == 1, out)
    check('invalid time "forever" in "keepalive_timeout" directive in %s:3'
          % bad in out, out)
    check("test failed" in out, out)

    rc, out = run("-t", "-c", good, "-g", "send_backend nosuch;")
    check(rc == 1 and 'unknown send backend "nosuch"' in out
          and "command line:1" in out, out)
    rc, out = run("-t", "-c", good, "--backend", "warp")
    check(rc == 1 and 'unknown send backend "warp"' in out, out)
    rc, out = run("-t", "-c", good, "--root", "/nonexistent/dir")
    check(rc == 1 and 'root "/nonexistent/dir" cannot be opened' in out, out)
    # a root written in the configuration is nginx's: opened when it is
    # there (test_static: served once made)
    rc, out = run("-t", "-c", good, "-g", "root /nonexistent/dir;")
    check(rc == 0 and 'root "/nonexistent/dir" cannot be opened' in out
          and "not found until it can be" in out, out)
    rc, out = run("-c", os.path.join(d, "missing.conf"))
    check(rc == 1 and "missing.conf" in out and "No such file" in out, out)
    rc, out = run("--no-such-flag")
    check(rc == 2 and "usage:" in out, out)
    # a file read to its end whatever its size says: a pipe's is 0
    for text, want in (("root %s;\nlisten 127.0.0.1:0;\n" % d, 0),
                       ("keepalive_timeout forever;\n", 1)):
        p = subprocess.run([NICD, "-t", "-c", "/dev/stdin"],
                           input=text.encode(), capture_output=True,
                           timeout=30)
        check(p.returncode == want, p.stderr)
    check(b'"forever"' in p.stderr, p.stderr)
    shutil.rmtree(d)


def test_errors_found_after_reading_name_file_and_line():
    """Errors found once the whole file is read (a send backend refusing
    its setting, a TLS listener without a certificate) still name the
    file and line of the directive, as nginx's do (issue 34, item 5)."""
    with tempfile.TemporaryDirectory() as d:
        conf = os.path.join(d, "a.conf")
        with open(conf, "w") as f:
            f.write("send_backend nic;\nnic_policy bogus;\n"
                    "http { server { listen 127.0.0.1:0; root %s; } }\n" % d)
        rc, out = run("-t", "-c", conf)
        check(rc == 1 and 'invalid value "bogus" of "nic_policy"' in out
              and "in %s:2" % conf in out, out)
        with open(conf, "w") as f:
            f.write("http {\n server {\n  listen 127.0.0.1:0 ssl;\n"
                    "  root %s;\n }\n}\n" % d)
        rc, out = run("-t", "-c", conf)
        check(rc == 1 and 'no "ssl_certificate" is defined for the "listen '
              '127.0.0.1:0 ssl" directive in %s:3' % conf in out, out)


def test_flags_without_config():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "hi.txt"), "wb") as f:
        f.write(b"hi")
    log = os.path.join(d, "err.log")
    p = subprocess.Popen([NICD, "--root", d, "--listen", "127.0.0.1:0",
                          "--threads", "1", "--backend", "copy", "-g",
                          "error_log %s info;" % log],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def port():
            if not os.path.exists(log):
                return None
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/",
                          open(log).read())
            return m and int(m.group(1))
        pt = wait_until(port, "listening line")
        check("with 1 worker threads, send backend copy" in open(log).read(),
              open(log).read())
        r = get(pt, "/hi.txt")
        check(r.status == 200 and r.body == b"hi", repr(r))
    finally:
        p.terminate()
        check(p.wait(20) == 0, "exit code")
        shutil.rmtree(d)


def test_flags_override_file():
    with Server(threads=2, args=["--threads", "1", "--backend", "copy"]) as s:
        s.wait_log(r"with 1 worker threads, send backend copy")
        s.put("a", b"a")
        check(get(s.port, "/a").status == 200, "serving")


def test_nginx_command_line_prefix_error_log_signals():
    """What Test::Nginx and a unit file do: -p (relative paths in the
    prefix), -e, -g, -s reload and quit through the pid file, -T."""
    d = tempfile.mkdtemp()
    os.makedirs(os.path.join(d, "www"))
    with open(os.path.join(d, "www", "x.txt"), "w") as f:
        f.write("prefix\n")
    with open(os.path.join(d, "extra.conf"), "w") as f:
        f.write("worker_threads 1;\n")
    with open(os.path.join(d, "nginx.conf"), "w") as f:
        f.write("load_module /usr/lib/nginx/modules/ngx_stream_module.so;\n"
                "env TZ; env NICD_TEST_ENV=1;\n"
                "include extra.conf;\n"
                "http { client_body_temp_path %s/cb 1 2; "
                "proxy_temp_path pt;\n"
                "server { listen 127.0.0.1:0; root www; } }\n" % d)
    proc = subprocess.Popen(
        [os.path.abspath(NICD), "-p", d + "/", "-c", "nginx.conf", "-e", "error.log",
         "-g", "pid nicd.pid;"], stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, cwd="/")
    try:
        log = os.path.join(d, "error.log")
        m = wait_until(lambda: os.path.exists(log) and re.search(
            r"listening on http://127\.0\.0\.1:(\d+)/", open(log).read()),
            "nicd listening, said in -e's log")
        check(os.path.exists(os.path.join(d, "nicd.pid")), "no pid file")
        check("load_module" in open(log).read(), "no notice of load_module")
        r = get(int(m.group(1)), "/x.txt")
        check(r.status == 200 and r.body == b"prefix\n", (r.status, r.body))
        rc, out = run("-p", d, "-c", "nginx.conf", "-g", "pid nicd.pid;",
                      "-s", "reload")
        check(rc == 0, out)
        wait_until(lambda: "configuration reloaded" in open(log).read(),
                   "the reload in the log")
        rc, out = run("-p", d, "-c", "nginx.conf", "-T", "-q")
        check(rc == 0 and "# configuration file nginx.conf:" in out
              and "# configuration file extra.conf:" in out
              and "test is successful" not in out, out)
        rc, out = run("-p", d, "-c", "nginx.conf", "-g", "pid nicd.pid;",
                      "-s", "quit")
        check(rc == 0, out)
        check(proc.wait(20) == 0, "nicd did not stop on -s quit")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    rc, out = run("-p", d, "-c", "nginx.conf", "-s", "reload")
    check(rc == 1 and "no pid file" in out, out)
    rc, out = run("-s", "restart")
    check(rc == 2 and 'invalid option: "-s restart"' in out, out)
    shutil.rmtree(d)


def test_daemon_waits_for_the_start_and_says_why_it_failed():
    """daemon on: the command returns once the server listens; a start
    that fails (the port taken) fails the command, on the terminal."""
    d = tempfile.mkdtemp()
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    conf = os.path.join(d, "d.conf")
    with open(conf, "w") as f:
        f.write("daemon on; pid %s/d.pid; error_log %s/e.log;\n"
                "http { server { listen 127.0.0.1:%d; root %s; } }\n"
                % (d, d, taken.getsockname()[1], d))
    rc, out = run("-c", conf)
    check(rc == 1 and "nicd: [emerg] bind() to 127.0.0.1:%d failed"
          % taken.getsockname()[1] in out, out)
    check("bind()" in open(os.path.join(d, "e.log")).read(),
          "the failure not in the error log")
    port = taken.getsockname()[1]
    taken.close()
    rc, out = run("-c", conf)
    check(rc == 0, out)
    pid = int(open(os.path.join(d, "d.pid")).read())
    try:
        check(os.getsid(pid) == pid,
              "the daemon is not a session leader of its own")
        r = get(port, "/d.conf")
        check(r.status == 200, r.status)
    finally:
        os.kill(pid, signal.SIGTERM)
    wait_until(lambda: not os.path.exists(os.path.join(d, "d.pid")),
               "the daemon gone (its pid file removed)")
    shutil.rmtree(d)


def test_test_without_c_says_what_it_tested():
    rc, out = run("-t", "-q")
    check(rc == 0 and "syntax is ok" not in out, out)
    rc, out = run("-t")
    check(rc == 0 and ("/etc/nicd/nicd.conf" in out), out)
