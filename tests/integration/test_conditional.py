"""Conditional requests (RFC 9110, 13): 304 and 412."""

import os
import time

from nicd import Server, check, get


def test_not_modified():
    with Server() as s:
        s.put("a.txt", b"hello")
        r = get(s.port, "/a.txt")
        etag, lm = r.header("ETag"), r.header("Last-Modified")

        for hdrs in ({"If-None-Match": etag},
                     {"If-None-Match": '"zzz", ' + etag},
                     {"If-None-Match": "W/" + etag},
                     {"If-None-Match": "*"},
                     {"If-Modified-Since": lm}):
            r = get(s.port, "/a.txt", headers=hdrs)
            check(r.status == 304, "%r: %r" % (hdrs, r))
            check(r.body == b"" and r.header("ETag") == etag
                  and r.header("Last-Modified") == lm, repr(r))
            check(r.header("Content-Length") is None, "304 with a length")
            h = get(s.port, "/a.txt", headers=hdrs, method="HEAD")
            check(h.status == 304, "HEAD %r: %d" % (hdrs, h.status))

        # If-None-Match wins over If-Modified-Since (RFC 9110 13.1.3)
        r = get(s.port, "/a.txt", headers={"If-None-Match": '"other"',
                                           "If-Modified-Since": lm})
        check(r.status == 200, "INM mismatch must ignore IMS: %d" % r.status)
        # if_modified_since exact (nginx's default): another date is 200
        later = time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                              time.gmtime(time.time() + 3600))
        check(get(s.port, "/a.txt",
                  headers={"If-Modified-Since": later}).status == 200,
              "exact mode")
        check(get(s.port, "/a.txt",
                  headers={"If-Modified-Since": "garbage"}).status == 200,
              "invalid date is ignored")


def test_if_modified_since_before():
    with Server(conf="if_modified_since before;") as s:
        s.put("a.txt", b"hello")
        later = time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                              time.gmtime(time.time() + 3600))
        check(get(s.port, "/a.txt",
                  headers={"If-Modified-Since": later}).status == 304,
              "before mode: a later date is 304")


def test_precondition_failed():
    with Server() as s:
        path = s.put("a.txt", b"hello")
        etag = get(s.port, "/a.txt").header("ETag")
        check(get(s.port, "/a.txt", headers={"If-Match": etag}).status == 200,
              "If-Match same")
        check(get(s.port, "/a.txt", headers={"If-Match": "*"}).status == 200,
              "If-Match *")
        r = get(s.port, "/a.txt", headers={"If-Match": '"nope"'})
        check(r.status == 412, "If-Match other: %d" % r.status)
        check(get(s.port, "/a.txt",
                  headers={"If-Match": "W/" + etag}).status == 412,
              "If-Match uses strong comparison")
        os.utime(path, (1000000000, 1000000000))
        r = get(s.port, "/a.txt", headers={
            "If-Unmodified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"})
        check(r.status == 412, "If-Unmodified-Since earlier: %d" % r.status)
