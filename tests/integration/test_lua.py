"""The Lua content handler: the request a script sees and the answer it
gives, over HTTP/1.1 and HTTP/2; errors, runaway loops and huge bodies
are a 500 or 413 and a log line, never a crash; a HUP loads the script
again; conf/specweb99.lua answers SPECweb99's dynamic requests; nicload
--mix full runs against nicd alone."""

import gzip
import json
import os
import shutil
import subprocess
import tempfile
import time

from nicd import DEADLINE, NICD, Conn, Server, check, get, raw, wait_until
from test_nictrace import content

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SPECWEB_LUA = os.path.join(ROOT, "conf", "specweb99.lua")
NICLOAD = os.path.join(os.path.dirname(NICD), "nicload")

ECHO = r"""
local n = 0
return function(r)
  n = n + 1
  if r.query == "loop" then while true do end end
  if r.query == "error" then error("asked to fail") end
  if r.query == "bad" then return "not a status" end
  if r.query == "crlf" then return 200, {["X-A"] = "a\r\nX-B: b"}, "" end
  if r.query == "big" then return 200, nil, string.rep("0123456789", 3355443) end
  local names = {}
  for k in pairs(r.headers) do names[#names + 1] = k end
  table.sort(names)
  return 201, {["Content-Type"] = "text/plain", ["X-Calls"] = n,
               ["Content-Length"] = "1"},
    table.concat({r.method, r.target, r.path, r.query,
                  r.headers["x-test"] or "-", table.concat(names, ","),
                  tostring(r.body and #r.body or "nil"),
                  r.body and r.body:sub(1, 10) or ""}, "|")
end
"""


def script(d, text, name="h.lua"):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def lua_server(path, extra=""):
    return Server(conf="lua_time_limit 200ms; client_max_body_size 2m; "
                  "location /l/ { lua_content_handler %s; } %s" % (path, extra))


def test_request_and_answer():
    with tempfile.TemporaryDirectory() as d, lua_server(script(d, ECHO)) as s:
        r = get(s.port, "/l/a%20b?x=1", headers={"X-Test": "yes"})
        fields = r.body.decode().split("|")
        check(r.status == 201 and fields[:5] == ["GET", "/l/a%20b?x=1",
                                                 "/l/a%20b", "x=1", "yes"],
              repr(fields))
        check("host" in fields[5].split(",") and fields[6] == "nil",
              repr(fields))
        hdrs = dict((k.lower(), v) for k, v in r.headers)
        check(hdrs["content-type"] == "text/plain"
              and hdrs["content-length"] == str(len(r.body))
              and hdrs["x-calls"] == "1", repr(r.headers))
        # a body, read whole before the script runs; then keep-alive goes on
        c = Conn(s.port)
        body = b"k=v&" + b"x" * 300000
        c.send(b"POST /l/p HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
               % len(body) + body)
        r = c.read_response()
        check(r.body.decode().split("|")[6:] == [str(len(body)), "k=v&xxxxxx"],
              r.body[:200])
        r = c.request("/l/again", "HEAD")
        check(r.status == 201 and r.body == b"", repr(r.status))
        c.close()
        # a chunked body is read whole too, the script given its length
        data = raw(s.port, b"POST /l/p HTTP/1.1\r\nHost: x\r\n"
                   b"Transfer-Encoding: chunked\r\nConnection: close\r\n"
                   b"\r\n4\r\nk=v&\r\n3\r\nxyz\r\n0\r\n\r\n")
        check(data.split(b"\r\n\r\n", 1)[1].decode().split("|")[6:]
              == ["7", "k=v&xyz"], "chunked: %r" % data[-200:])


def test_errors_are_500_and_the_server_goes_on():
    with tempfile.TemporaryDirectory() as d, lua_server(script(d, ECHO)) as s:
        for q, log in (("error", r"asked to fail"),
                       ("bad", r"must return status"),
                       ("crlf", r"header is not a valid name = value")):
            r = get(s.port, "/l/?" + q)
            check(r.status == 500, "%s: %d" % (q, r.status))
            s.wait_log(log)
        t = time.monotonic()
        r = get(s.port, "/l/?loop")
        took = time.monotonic() - t
        check(r.status == 500 and took < 2.0,
              "runaway loop: %d after %.2f s" % (r.status, took))
        s.wait_log(r"lua_time_limit exceeded")
        r = get(s.port, "/l/?big")
        check(r.status == 200 and len(r.body) == 33554430, "big body")
        r = get(s.port, "/l/after")
        check(r.status == 201 and s.alive(), "served after the errors")
        # over the body limit: 413 before the script
        c = Conn(s.port)
        c.send(b"POST /l/p HTTP/1.1\r\nHost: x\r\nContent-Length: 3000000"
               b"\r\n\r\n")
        check(c.read_response().status == 413, "413")
        c.close()


def test_http2():
    curl = shutil.which("curl")
    check(curl is not None, "curl is not installed (make test installs it)")
    with tempfile.TemporaryDirectory() as d:
        s = Server(conf="listen 127.0.0.3:0 http2; location /l/ { "
                   "lua_content_handler %s; }" % script(d, ECHO))
        with s:
            port = int(s.wait_log(r"listening on http://127\.0\.0\.3:(\d+)/")
                       .group(1))
            p = subprocess.run([curl, "-s", "--http2-prior-knowledge",
                                "-H", "X-Test: h2", "-d", "a=1&b=2",
                                "http://127.0.0.3:%d/l/x?y" % port],
                               capture_output=True, timeout=DEADLINE)
    fields = p.stdout.decode().split("|")
    check(fields[:5] == ["POST", "/l/x?y", "/l/x", "y", "h2"]
          and fields[6:] == ["7", "a=1&b=2"], repr(p.stdout))


def test_bad_script_fails_startup_and_reload_loads_again():
    with tempfile.TemporaryDirectory() as d:
        bad = script(d, "return function(r) return 200,, end", "bad.lua")
        p = subprocess.run([NICD, "-t", "-g", "root %s; location /l/ { "
                            "lua_content_handler %s; }" % (d, bad)],
                           capture_output=True, timeout=DEADLINE)
        check(p.returncode != 0 and b"bad.lua" in p.stderr, p.stderr)
        path = script(d, 'return function(r) return 200, nil, "one" end')
        with lua_server(path) as s:
            check(get(s.port, "/l/").body == b"one", "first script")
            script(d, 'return function(r) return 200, nil, "two" end')
            s.reload()
            wait_until(lambda: get(s.port, "/l/").body == b"two",
                       "the reloaded script")


def make_fileset(d, n):
    root = os.path.join(d, "root")
    p = subprocess.run([NICLOAD, "fileset", "--connections", str(n),
                        "--root", root], capture_output=True, timeout=DEADLINE)
    check(p.returncode == 0, p.stderr)
    return root, os.path.join(d, "post.log")


def specweb_server(root, log):
    return Server(root=root, conf="location /specweb/ { lua_content_handler "
                  "%s; }" % SPECWEB_LUA, env={"NICD_SPECWEB_POSTLOG": log})


TRAILER = b"</pre>\n</body>\n</html>\n"


def test_specweb99_dynamic_requests():
    with tempfile.TemporaryDirectory() as d:
        root, log = make_fileset(d, 1)
        name = "/file_set/dir00003/class1_4"
        want = content(name, 5120)
        with specweb_server(root, log) as s:
            for kind in ("dyn", "cgi"):
                r = get(s.port, "/specweb/%s?%s" % (kind, name))
                check(r.status == 200 and r.body.endswith(want + TRAILER)
                      and b"SCRIPT_NAME = /specweb/" + kind.encode() in r.body
                      and b"QUERY_STRING = " + name.encode() in r.body,
                      "%s: %d %r" % (kind, r.status, r.body[:200]))
            r = get(s.port, "/specweb/ad?" + name,
                    headers={"Cookie": "my_cookie=user_id=7&last_ad=20"})
            cookie = dict((k.lower(), v) for k, v in r.headers)["set-cookie"]
            ad = int(cookie.split("Ad_id=")[1].split("&")[0])
            check(r.status == 200 and r.body.endswith(want + TRAILER)
                  and 20 < ad < 380 and "Ad_weight=" in cookie
                  and "Expired=" in cookie, cookie)
            check(get(s.port, "/specweb/ad?" + name).status == 400,
                  "ad rotation without a cookie")
            check(get(s.port, "/specweb/reset").status == 200, "reset")
            form = "urlroot=/file_set/dir00003/&dir=00003&class=1&num=4" \
                   "&client=9"
            c = Conn(s.port)
            c.send("POST /specweb/post HTTP/1.1\r\nHost: x\r\nContent-Length:"
                   " %d\r\n\r\n%s" % (len(form), form))
            r = c.read_response()
            c.close()
            cookie = dict((k.lower(), v) for k, v in r.headers)["set-cookie"]
            check(r.status == 200 and r.body.endswith(want + TRAILER)
                  and cookie == "my_cookie=user_id=9&last_ad=0", cookie)
            lines = get(s.port, "/specweb/postlog").body.decode().splitlines()
            check(len(lines) == 1 and lines[0].endswith(" 1 4 9 " + name),
                  repr(lines))
            for bad in ("/specweb/dyn?/etc/passwd",
                        "/specweb/dyn?/file_set/../x"):
                check(get(s.port, bad).status == 400, bad)


def test_nicload_full_mix_against_nicd():
    """SPECweb99's full mix against nicd alone: every kind sent, every
    file's bytes checked inside the dynamic pages, nothing fails."""
    with tempfile.TemporaryDirectory() as d:
        root, log = make_fileset(d, 4)
        js = os.path.join(d, "r.json")
        with specweb_server(root, log) as s:
            p = subprocess.run([NICLOAD, "http://127.0.0.1:%d/" % s.port,
                                "-q", "--connections", "4", "--mix", "full",
                                "--rate-per-conn", "20m", "--duration", "3",
                                "--warmup", "0.5", "--verify", "--json", js],
                               capture_output=True, timeout=60)
        check(p.returncode == 0, p.stderr)
        res = json.load(open(js))
        kinds = dict((k["kind"], k["requests"]) for k in res["kinds"])
        check(all(kinds[k] > 0 for k in ("static", "dynamic_get",
                                         "ad_rotation", "post")),
              repr(kinds))
        # mix_spread_points is three standard deviations of the largest
        # class's share, nicload's "OFF TARGET" mark; with about 2,000
        # requests a class's share passed it by chance in one make test
        # run (3.44 against 3.34 points), and 1 run in 10 came within 0.01
        # points of it.  Five standard deviations here; the mix's shares
        # themselves are checked to 0.5 points over 100,000 draws in
        # tests/unit/trace_replayer/lib/models/test_specweb.c
        check(res["mismatches"] == 0 and res["verified_bytes"] > 0
              and sum(res["errors"].values()) == 0
              and res["mix_deviation_points"]
              <= 5 / 3 * res["mix_spread_points"],
              repr(res))
        check(len(open(log).read().splitlines()) >= kinds["post"],
              "the post log")


def test_generated_bodies_go_through_the_nic_backend():
    """With the nic backend a script's answer is sent from host memory, a
    not_file_block fallback: nothing of it is cached or counted as
    content from the NIC."""
    body = 'return function(r) return 200, nil, string.rep("y", 100000) end'
    with tempfile.TemporaryDirectory() as d:
        s = Server(backend="nic", conf="location = /nic-status { nic_status; "
                   "} location /l/ { lua_content_handler %s; }"
                   % script(d, body))
        with s:
            before = json.loads(get(s.port, "/nic-status").body)["total"]
            r = get(s.port, "/l/x")
            after = json.loads(get(s.port, "/nic-status").body)["total"]
    check(r.status == 200 and r.body == b"y" * 100000, "the body")
    check(after["header_bytes"] - before["header_bytes"] >= 100000
          and after["fallbacks"]["not_file_block"]
          > before["fallbacks"]["not_file_block"]
          and after["cached_bytes"] == before["cached_bytes"]
          and after["inserts"] == before["inserts"],
          "before %r after %r" % (before, after))


def test_a_request_with_a_body_waits_for_limit_req():
    """A Lua location's request whose body was read and which limit_req
    then makes wait keeps its body through the wait (issue 41): the
    second POST on the connection is answered after its wait, body
    whole, then the connection goes on."""
    with tempfile.TemporaryDirectory() as d, lua_server(
            script(d, ECHO),
            "limit_req_zone $binary_remote_addr zone=z:1m rate=10r/s; "
            "limit_req zone=z burst=5;") as s:
        c = Conn(s.port)
        body = b"k=v&" + b"y" * 1000
        post = (b"POST /l/p HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                % len(body) + body)
        t0 = time.monotonic()
        c.send(post + post)
        for _ in range(2):
            r = c.read_response()
            check(r.status == 201 and r.body.decode().split("|")[6:]
                  == [str(len(body)), "k=v&yyyyyy"], r.body[:200])
        check(time.monotonic() - t0 >= 0.09, "the second did not wait")
        r = c.request("/l/again", "HEAD")
        check(r.status == 201, repr(r.status))
        c.close()


CHARSETS = r"""
return function(r)
  if r.query == "win" then
    return 200, {["Content-Type"] = "text/plain; charset=windows-1251"},
      "\207\240\232\226\229\242"
  end
  if r.query == "gz" then
    return 200, {["Content-Type"] = "text/html"}, string.rep("text ", 100)
  end
  if r.query == "own" then
    return 200, {["Content-Type"] = "text/html",
                 ["Content-Encoding"] = "identity"}, string.rep("text ", 100)
  end
  return 200, {["Content-Type"] = "text/plain"},
    "\208\159\209\128\208\184\208\178\208\181\209\130"
end
"""


def test_answers_go_through_charset_and_gzip():
    """A handler's answer goes through the body filters as nginx's
    handlers' do: recoded into the location's charset (from the one its
    type names with override_charset), compressed by gzip on the fly
    unless it encoded the body itself."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "maps.conf"), "w") as f:
            # a few letters of Debian's koi-utf and koi-win, written here
            f.write("charset_map koi8-r utf-8 { F0 D09F; D2 D180; C9 D0B8;"
                    " D7 D0B2; C5 D0B5; D4 D182; }\n"
                    "charset_map koi8-r windows-1251 { F0 CF; D2 F0; C9 E8;"
                    " D7 E2; C5 E5; D4 F2; }\n")
        extra = ("include %s/maps.conf; gzip on; gzip_min_length 100; "
                 "charset koi8-r; source_charset utf-8; override_charset on;"
                 % d)
        with lua_server(script(d, CHARSETS), extra) as s:
            r = get(s.port, "/l/x")
            check(r.status == 200 and r.body == b"\xf0\xd2\xc9\xd7\xc5\xd4"
                  and r.header("Content-Type")
                  == "text/plain; charset=koi8-r", repr(r))
            r = get(s.port, "/l/x?win")
            check(r.body == b"\xf0\xd2\xc9\xd7\xc5\xd4"
                  and r.header("Content-Type")
                  == "text/plain; charset=koi8-r", repr(r))
            r = get(s.port, "/l/x?gz", headers={"Accept-Encoding": "gzip"})
            check(r.header("Content-Encoding") == "gzip"
                  and gzip.decompress(r.body) == b"text " * 100, repr(r))
            r = get(s.port, "/l/x?own", headers={"Accept-Encoding": "gzip"})
            check(r.header("Content-Encoding") == "identity"
                  and r.body == b"text " * 100, repr(r))
