"""Path safety: nothing outside the root is ever read."""

import contextlib
import os
import shutil
import tempfile

from nicd import Server, check, get, raw

SECRET = b"TOP-SECRET-OUTSIDE-THE-ROOT"

ATTEMPTS = [
    "/../secret.txt",
    "/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E/secret.txt",
    "/.%2e/secret.txt",
    "/%2e./secret.txt",
    "/sub/../../secret.txt",
    "/sub/%2e%2e/%2e%2e/secret.txt",
    "/sub/..%2f..%2fsecret.txt",
    "/..%2fsecret.txt",
    "/%2e%2e%2fsecret.txt",
    "/..%5csecret.txt",
    "/./../secret.txt",
    "//../secret.txt",
    "/sub/./../../secret.txt",
    "/%252e%252e/secret.txt",
    "/%c0%ae%c0%ae/secret.txt",
    "/sub/%00/../../secret.txt",
    "/secret.txt%00.html",
    "/..;/secret.txt",
    "/link_out_abs",
    "/link_out_rel",
    "/link_dir_out/secret.txt",
    "/sub/link_up/secret.txt",
    "http://localhost/../secret.txt",
    "../secret.txt",
    "/....//secret.txt",
    "/sub/..../secret.txt",
]


@contextlib.contextmanager
def tree():
    """A root with symlinks in and out, and a secret beside it; removed
    afterwards."""
    top = tempfile.mkdtemp(prefix="nicd-trav-")
    root = os.path.join(top, "root")
    os.makedirs(os.path.join(root, "sub"))
    with open(os.path.join(top, "secret.txt"), "wb") as f:
        f.write(SECRET)
    with open(os.path.join(root, "sub", "ok.txt"), "wb") as f:
        f.write(b"fine")
    os.symlink(os.path.join(top, "secret.txt"),
               os.path.join(root, "link_out_abs"))
    os.symlink("../secret.txt", os.path.join(root, "link_out_rel"))
    os.symlink(top, os.path.join(root, "link_dir_out"))
    os.symlink("..", os.path.join(root, "sub", "link_up"))
    os.symlink("sub/ok.txt", os.path.join(root, "link_in"))
    try:
        yield root
    finally:
        shutil.rmtree(top)


def attempt(port, target):
    data = raw(port, b"GET " + target.encode() +
               b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    status = int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else 0
    return status, data


def test_traversal_attempts():
    check(len(ATTEMPTS) >= 20, "at least 20 attempts")
    with tree() as root, Server(root=root,
                                conf="disable_symlinks outside;") as s:
        for t in ATTEMPTS:
            status, data = attempt(s.port, t)
            check(SECRET not in data, "%s read the secret!" % t)
            check(status in (400, 403, 404), "%s: status %d" % (t, status))
        # a symlink that stays inside the root is fine
        r = get(s.port, "/link_in")
        check(r.status == 200 and r.body == b"fine", repr(r))
        r = get(s.port, "/sub/link_up/sub/ok.txt")
        check(r.status == 200, "symlink to .. inside the root: %d" % r.status)
        s.wait_log(r"resolves outside the root")


def test_disable_symlinks_modes():
    with tree() as root:
        with Server(root=root) as s:
            r = get(s.port, "/link_out_abs")
            check(r.status == 200 and r.body == SECRET,
                  "the default is nginx's off: every symlink followed")
        # per location, as nginx: on refuses a symlink anywhere in the
        # name, from= leaves the root's part unchecked
        conf = """
            location /sub/ { disable_symlinks on; }
            location /link_in { disable_symlinks on; }
            location /via/ {
                alias %s/sub/link_up/sub/;
                disable_symlinks on from=%s/sub/link_up;
            }
            location /via2/ {
                alias %s/sub/link_up/sub/;
                disable_symlinks on;
            }
            location /owner/ {
                alias %s/;
                disable_symlinks if_not_owner;
            }
        """ % (root, root, root, root)
        with Server(root=root, conf=conf) as s:
            check(get(s.port, "/link_in").status == 403, "on: the link")
            check(get(s.port, "/sub/ok.txt").status == 200, "on: a file")
            check(get(s.port, "/link_out_abs").status == 200,
                  "off elsewhere")
            check(get(s.port, "/via2/ok.txt").status in (403, 404),
                  "on: a symlink in the root's own name")
            r = get(s.port, "/via/ok.txt")
            check(r.status == 200 and r.body == b"fine",
                  "from=: the part named is followed as it is: %d"
                  % r.status)
            # the same owner (the test's) for link and file: followed
            r = get(s.port, "/owner/link_in")
            check(r.status == 200 and r.body == b"fine",
                  "if_not_owner, same owner: %d" % r.status)
            if os.geteuid() == 0:
                os.lchown(os.path.join(root, "link_in"), 65534, 65534)
                check(get(s.port, "/owner/link_in").status == 403,
                      "if_not_owner, another owner")
        with Server(root=root, conf="disable_symlinks on;") as s:
            check(get(s.port, "/link_in").status == 403, "on: no symlinks")
            check(get(s.port, "/sub/ok.txt").status == 200,
                  "on: plain files")
        with Server(root=root, conf="disable_symlinks off;") as s:
            r = get(s.port, "/link_out_abs")
            check(r.status == 200 and r.body == SECRET,
                  "off: symlinks are followed anywhere, as configured")
            # ".." is still never accepted from the request itself
            status, data = attempt(s.port, "/../secret.txt")
            check(status == 400 and SECRET not in data,
                  "off: .. in the path")


def test_root_made_after_start():
    """A root written in the configuration that is not there at start:
    as nginx, its files are 404 (a notice says why) until it is made."""
    with Server() as s:
        late = os.path.join(s.dir, "late")
        s.reload("location /late/ { alias %s/; }" % late)
        s.wait_log(r'alias "%s/" cannot be opened' % late)
        check(get(s.port, "/late/a.txt").status == 404, "not there yet")
        os.makedirs(late)
        with open(os.path.join(late, "a.txt"), "wb") as f:
            f.write(b"late")
        r = get(s.port, "/late/a.txt")
        check(r.status == 200 and r.body == b"late", repr(r))
