"""open_file_cache: valid=0 re-stats every request (rewrites and renames
show at once); a validity period keeps serving what was opened."""

import os

from nicd import Server, check, get


def test_valid_zero_sees_every_change():
    with Server(conf="open_file_cache max=100 valid=0;") as s:
        path = s.put("f.txt", b"version one")
        c = s.connect()
        check(c.request("/f.txt").body == b"version one", "first")
        with open(path, "r+b") as f:          # rewritten in place
            f.write(b"VERSION ONE")
        check(c.request("/f.txt").body == b"VERSION ONE", "in place")
        with open(path, "wb") as f:           # a new size
            f.write(b"v2, longer than before")
        check(c.request("/f.txt").body == b"v2, longer than before", "size")
        tmp = s.put("f.tmp", b"replaced by rename")
        os.rename(tmp, path)
        check(c.request("/f.txt").body == b"replaced by rename", "rename")
        os.unlink(path)
        check(c.request("/f.txt").status == 404, "deleted")
        c.close()


def test_cached_descriptor_is_reused():
    """Within valid=, a deleted file is still served from the descriptor the
    cache holds (as nginx does): proof that the cache is used at all."""
    with Server(threads=1, conf="open_file_cache max=100 valid=60s;") as s:
        path = s.put("f.txt", b"cached")
        check(get(s.port, "/f.txt").body == b"cached", "first")
        os.unlink(path)
        r = get(s.port, "/f.txt")
        check(r.status == 200 and r.body == b"cached",
              "not served from the cache: %r" % r)
    with Server(threads=1, conf="open_file_cache off;") as s:
        path = s.put("f.txt", b"uncached")
        check(get(s.port, "/f.txt").body == b"uncached", "first")
        os.unlink(path)
        check(get(s.port, "/f.txt").status == 404, "off: re-opened")
