"""nicd against Debian's nginx on the configurations of real static sites.

Each site below is one nginx.conf, written once per server with only the
port and the temporary directory told apart; both load it, both serve
the same docroot, and every request of the site's list goes to both.
Compared: status, Location (the port written as PORT), Content-Type,
Content-Length, Content-Encoding, Content-Range, Accept-Ranges, Vary,
Cache-Control,
the presence of Expires (its value moves with the clock), ETag,
Last-Modified, the X-* headers add_header writes, and the body.

Intended differences, each with its reason (DIFFERENCES below): the
bodies of the built-in error pages and redirects name the server ("nicd"
where nginx says "nginx"), so those bodies are not compared (custom
error_page bodies are); and the Server header.

The test ends with a line per site and a total of requests that agree.
"""

import base64
import gzip
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from nicd import (DEADLINE, NICD, Skip, TestFailure, check, free_port, raw,
                  recv_until, wait_until)

NGINX = "/usr/sbin/nginx"
MIME = "/etc/nginx/mime.types"

COMPARED = ("Location", "Content-Type", "Content-Length", "Content-Encoding",
            "Content-Range", "Vary", "Cache-Control", "ETag",
            "Last-Modified", "Allow", "WWW-Authenticate", "Accept-Ranges")

DIFFERENCES = {
    "server-page": "the built-in error and redirect pages say \"nicd\" "
                   "where nginx's say \"nginx/1.22.1\": their status and "
                   "headers are compared, not their bodies or lengths",
    "405-allow": "a 405 carries Allow: GET, HEAD (RFC 9110, 15.5.6: MUST); "
                 "nginx sends none",
    "gzip-bytes": "a body gzip compresses on the fly is compared "
                  "decompressed, without its length: nicd's zlib stream and "
                  "nginx's (a window shrunk for short bodies, chunked) "
                  "differ in bytes, not in what they hold",
    "head-range": "a HEAD with Range gets the 200 a GET without it would "
                  "(RFC 9110, 14.2: range handling is defined for GET "
                  "only); nginx answers it 206: not asked here",
    "recoded-framing": "a body recoded to or from UTF-8 goes out with its "
                       "length, nginx's chunked (compared as listings "
                       "are)",
    "listing-framing": "nginx streams an autoindex listing chunked; nicd "
                       "sends its Content-Length (compared with the length "
                       "of nginx's de-chunked body)",
}

LONG = "a text long enough to be worth compressing " * 4

MAIN = """daemon off; master_process off; worker_processes 1;
pid %(d)s/server.pid;
error_log %(d)s/error.log info;
events { worker_connections 256; }
http {
    include %(mime)s;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
%(body)s
}
"""

# the sites: (name, http-level body, requests); %(port)d, %(root)s and
# %(port2)d stand for the server's own values
SITES = []


def site(name, body, requests):
    SITES.append((name, body, requests))


site("docs", """
    server {
        listen 127.0.0.1:%(port)d;
        server_name docs.example;
        root %(root)s/docs;
        index index.html;
        location / {
            try_files $uri $uri.html $uri/ =404;
        }
        error_page 404 /404.html;
        location = /404.html { internal; }
    }
""", ["/", "/guide", "/guide.html", "/guide/", "/api/", "/api", "/missing",
      "/404.html", "/api/index.html", "/guide.html?x=1", "/%67uide",
      ("/guide", {"Range": "bytes=0-9"}), "/../etc/passwd", "/api/v1"])

site("spa", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/spa;
        location / {
            try_files $uri /index.html;
        }
        location /assets/ {
            expires 1y;
            add_header X-Asset yes;
        }
    }
""", ["/", "/app/route", "/app/route?q=1", "/assets/app.js", "/favicon.ico",
      "/assets/missing.js", "/index.html",
      ("/app/deep/link", {"If-None-Match": "*"})])

site("vhosts", """
    server {
        listen 127.0.0.1:%(port)d;
        server_name a.example www.a.example;
        root %(root)s/a;
    }
    server {
        listen 127.0.0.1:%(port)d default_server;
        server_name b.example;
        root %(root)s/b;
    }
    server {
        listen 127.0.0.1:%(port)d;
        server_name *.c.example;
        root %(root)s/c;
    }
    server {
        listen 127.0.0.1:%(port)d;
        server_name ~^(?<sub>[a-z]+)\\.d\\.example$;
        root %(root)s/a;
        add_header X-Regex-Host yes;
    }
""", [("/", {"Host": "a.example"}), ("/", {"Host": "www.a.example"}),
      ("/", {"Host": "b.example"}), ("/", {"Host": "x.c.example"}),
      ("/", {"Host": "unknown.example"}), ("/", {"Host": "A.EXAMPLE"}),
      ("/", {"Host": "a.example:8080"}), ("/", {"Host": "q.d.example"}),
      ("/who.txt", {"Host": "a.example"}), ("/who.txt", {"Host": "c.example"}),
      ("/who.txt", {"Host": "y.c.example"})])

site("https-redirect", """
    server {
        listen 127.0.0.1:%(port)d;
        server_name secure.example;
        return 301 https://$host$request_uri;
    }
""", ["/", "/page?x=1&y=2", ("/a/b", {"Host": "secure.example"}),
      ("/", {"Host": "other.example:99"})])

site("redirects", """
    server {
        listen 127.0.0.1:%(port)d;
        server_name red.example;
        root %(root)s/www;
        error_page 400 /moved;
        location /app/ {
            proxy_pass http://127.0.0.1:%(port)d/;
        }
        location "/two words/" {
            proxy_pass http://127.0.0.1:%(port)d/;
        }
        location = /moved {
            return 301 /index.html;
        }
        location /named/ {
            server_name_in_redirect on;
            port_in_redirect off;
            return 302 /index.html;
        }
        location /plain/ {
            absolute_redirect off;
            return 302 /index.html;
        }
        location /text/ {
            return 302 text;
        }
    }
""", ["/app", "/app?a=b", "/two%20words", "/two%20words?x", "/moved",
      ("/moved", {"Host": "other.example"}), ("/x", {"Host": "."}),
      ("/named/", {"Host": "other.example"}), "/plain/", "/text/",
      ("/app", {"Host": "red.example:8080"})])

HEADER_NAMES = [("/", {"X_Foo": "a"}), ("/", {"X.Foo": "b", "X-Foo": "c"}),
                ("/", {"X-Foo": "d"}), ("/", {"X@Bar": "e", "X_Foo": "f"})]

site("header-names", """
    server {
        listen 127.0.0.1:%(port)d;
        location / { return 200 "[$http_x_foo]"; }
    }
""", HEADER_NAMES)

site("header-names-underscores", """
    underscores_in_headers on;
    server {
        listen 127.0.0.1:%(port)d;
        location / { return 200 "[$http_x_foo]"; }
    }
""", HEADER_NAMES)

site("header-names-kept", """
    server {
        listen 127.0.0.1:%(port)d;
        ignore_invalid_headers off;
        location / { return 200 "[$http_x_foo]"; }
    }
""", HEADER_NAMES)

site("limit-except", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location / {
            limit_except GET { deny all; }
        }
        location /open/ {
            limit_except GET POST { allow 127.0.0.1; deny all; }
        }
        location /closed/ {
            limit_except PUT { allow 10.0.0.1; deny all; }
        }
        location /px/ {
            proxy_pass http://127.0.0.1:%(port)d/;
            limit_except GET { allow 127.0.0.1; deny all; }
        }
    }
""", ["/a.txt", ("/a.txt", {}, "HEAD"), ("/a.txt", {}, "POST"),
      ("/a.txt", {}, "DELETE"), ("/open/", {}, "POST"),
      ("/open/", {}, "PUT"), ("/closed/", {}, "GET"),
      ("/px/a.txt", {}, "POST"), "/px/a.txt"])

site("downloads", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /downloads/ {
            alias %(root)s/files/;
            autoindex on;
        }
        location /dl {
            alias %(root)s/files;
        }
        location ~ ^/get/(.+\\.bin)$ {
            alias %(root)s/files/$1;
        }
        location /json/ {
            alias %(root)s/files/;
            autoindex on;
            autoindex_format json;
        }
        location /xml/ {
            alias %(root)s/files/;
            autoindex on;
            autoindex_format xml;
        }
        location /approx/ {
            alias %(root)s/files/;
            autoindex on;
            autoindex_exact_size off;
        }
        location /jsonp/ {
            alias %(root)s/files/;
            autoindex on;
            autoindex_format jsonp;
        }
    }
""", ["/json/", "/xml/", "/approx/", "/jsonp/?callback=show.list_1",
      "/jsonp/?Callback=x", "/jsonp/?callback=", "/jsonp/sub/",
      "/jsonp/?a=1&callback=bad(name)", "/jsonp/?callback=" + "c" * 129, "/json/sub/", "/downloads/", "/downloads/a.bin", "/downloads/sub/", "/downloads/sub",
      "/downloads/nope", "/dl/a.bin", "/dl/", "/get/a.bin", "/get/none.bin",
      ("/downloads/a.bin", {"Range": "bytes=100-199"}),
      ("/downloads/a.bin", {"Range": "bytes=-10"})])

site("precompressed", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        gzip_static on;
        gzip_vary on;
        location ~* \\.(js|css)$ {
            expires max;
            add_header X-Static compressed;
        }
    }
""", ["/app.js", ("/app.js", {"Accept-Encoding": "gzip, br"}),
      # nginx serves a precompressed file whole, and offers no ranges
      ("/app.js", {"Accept-Encoding": "gzip", "Range": "bytes=0-9"}),
      ("/app.js", {"Range": "bytes=0-9"}),
      ("/app.js", {"Accept-Encoding": "br"}),
      ("/style.css", {"Accept-Encoding": "gzip"}), "/style.css",
      ("/app.js", {"Accept-Encoding": "gzip;q=0"}),
      ("/index.html", {"Accept-Encoding": "gzip"})])

site("error-pages", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        error_page 404 /errors/404.html;
        error_page 403 =404 /errors/404.html;
        error_page 500 502 503 504 /errors/50x.html;
        location /errors/ { internal; }
        location /private/ { return 403; }
        location /broken { return 500; }
        location /gone { return 410; }
        location /teapot { error_page 418 = /errors/teapot.txt; return 418; }
    }
""", ["/missing", "/private/x", "/broken", "/gone", "/errors/404.html",
      "/teapot", "/index.html", ("/missing", {"Range": "bytes=0-3"})])

# an error_page's status (nginx's err_status) goes with whatever its page
# answers, but a special response (an error, a redirect); the Location of
# a redirect it took over goes with the page's answer (rewrite.t 11, 17)
site("error-page-status", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location = /r204 { return 204; }
        location = /r204t { return 204 "unsent"; }
        location = /r200t { return 200 "text"; }
        location = /r302t { return 302 "text"; }
        location /e405r204 { error_page 405 /r204; return 405; }
        location /e405r200t { error_page 405 /r200t; return 405; }
        location /e302r200t { error_page 302 /r200t; return 302 "text"; }
        location /e301file { error_page 301 /index.html; return 301 /else; }
        location /e404eq { error_page 404 = /r204; return 404; }
        location /e404to201 { error_page 404 =201 /r200t; return 404; }
        location /e404gone { error_page 404 /nope.html; return 404; }
        location /e404redir { error_page 404 /r302t; return 404; }
        location /e500file { error_page 500 /index.html; return 500; }
    }
""", ["/r204", "/r204t", "/r200t", "/r302t", "/e405r204", "/e405r200t",
      "/e302r200t", "/e301file", "/e404eq", "/e404to201", "/e404gone",
      "/e404redir", "/e500file", ("/e500file", {}, "HEAD")])

site("assets-regex", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location / { }
        location ^~ /static/ { add_header X-Where static; }
        location ~* \\.(png|jpg|gif)$ {
            expires 30d;
            add_header X-Where image;
            add_header X-Also always always;
        }
        location ~ \\.txt$ { add_header X-Where text; }
        location = /exact.txt { add_header X-Where exact; }
    }
""", ["/img/logo.png", "/img/LOGO.PNG", "/static/logo.png", "/exact.txt",
      "/a.txt", "/img/none.png", "/index.html", "/static/"])

site("rewrites", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        rewrite ^/old/(.*)$ /new/$1 permanent;
        rewrite ^/moved$ /index.html redirect;
        location /blog/ {
            rewrite ^/blog/(\\d+)$ /posts/$1.txt last;
            rewrite ^/blog/b/(.*)$ /posts/$1 break;
        }
        location /posts/ { add_header X-Post yes; }
        location = /where {
            return 200 "$scheme $host $request_uri $uri $args $is_args\\n";
        }
        location /loop { rewrite ^ /loop last; }
        location /to-google { return 302 http://example.com/$args; }
    }
""", ["/old/a/b", "/old/x?y=1", "/moved", "/moved?keep=1", "/blog/42",
      "/blog/b/42.txt", "/blog/x", "/where?a=b", "/where", "/loop",
      "/to-google?q", ("/blog/42", {"Range": "bytes=0-1"})])

site("index-and-slashes", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        index index.htm index.html;
        charset utf-8;
        location /nolist/ { autoindex off; }
    }
""", ["/", "/sub", "/sub/", "/sub?x=1", "/a.txt", "/a.txt/", "/nolist/",
      "/%73ub/", "//a.txt", "/sub/./../a.txt", "/img/"])

site("charsets", """
    include /etc/nginx/koi-utf;
    include /etc/nginx/koi-win;
    include /etc/nginx/win-utf;
    charset_map x-test windows-1251 { 58 59; 2E 21; }
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/cs;
        charset utf-8;
        source_charset koi8-r;
        location /win/ {
            charset windows-1251;
            location /win/x/ {
                charset x-test;
                source_charset windows-1251;
                alias %(root)s/cs/koi/;
            }
        }
        location /utf/ {
            charset koi8-r;
            source_charset utf-8;
            location = /utf/var.html {
                set $cs windows-1251;
                charset $cs;
                try_files /utf/a.html =404;
            }
            location = /utf/none.html {
                set $cs x-unknown;
                charset $cs;
                try_files /utf/a.html =404;
            }
        }
        location /koi/json/ {
            charset_types application/json;
            alias %(root)s/cs/koi/;
        }
        location /same/ { charset koi8-r; alias %(root)s/cs/koi/; }
        location /off/ { charset off; alias %(root)s/cs/koi/; }
        location = /text { return 200 "\xf0\xd2\xc9\xd7\xc5\xd4\n"; }
        location = /moved { return 301 /koi/a.html; }
        location = /missing { return 404; }
    }
""", ["/koi/a.html", "/koi/a.txt", "/koi/a.json", "/koi/json/a.json",
      ("/koi/a.html", {"Range": "bytes=0-9"}), "/win/a.html",
      ("/win/a.html", {"Range": "bytes=5-20,-7"}),
      ("/win/x/a.html", {}), "/utf/a.html", "/utf/var.html",
      "/utf/none.html", "/same/a.html", "/off/a.html", "/text", "/moved",
      "/missing", "/koi/", "/utf/a.gz.txt"])

site("real-ip", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        set_real_ip_from 127.0.0.1;
        set_real_ip_from 10.0.0.0/8;
        set_real_ip_from 2001:db8::/32;
        real_ip_header X-Forwarded-For;
        real_ip_recursive on;
        add_header X-Addr "$remote_addr|$realip_remote_addr";
        location / { return 200 "$remote_addr\\n"; }
        location /deny/ {
            deny 192.0.2.0/24;
            allow all;
            return 200 "let in: $remote_addr\\n";
        }
        location /norec/ {
            real_ip_recursive off;
            return 200 "$remote_addr\\n";
        }
        location /xri/ {
            real_ip_header X-Real-IP;
            alias %(root)s/www/;
            add_header X-Port "[$remote_port]";
        }
        location /none/ {
            set_real_ip_from 192.0.2.99;
            return 200 "$remote_addr\\n";
        }
    }
""", ["/", ("/", {"X-Forwarded-For": "192.0.2.1"}),
      ("/", {"X-Forwarded-For": "198.51.100.7, 10.1.2.3, 127.0.0.1"}),
      ("/", {"X-Forwarded-For": "10.1.2.3, 10.4.5.6"}),
      ("/", {"X-Forwarded-For": "not-an-address"}),
      ("/", {"X-Forwarded-For": "2001:db8::5, 2001:db9::1"}),
      ("/deny/", {"X-Forwarded-For": "192.0.2.1"}),
      ("/deny/", {"X-Forwarded-For": "198.51.100.7"}),
      ("/norec/", {"X-Forwarded-For": "198.51.100.7, 10.1.2.3"}),
      ("/xri/a.txt", {"X-Real-IP": "203.0.113.9:8080"}),
      ("/xri/a.txt", {"X-Real-IP": "[2001:db8::7]:443"}),
      ("/xri/a.txt", {"X-Real-IP": "203.0.113.9"}),
      ("/none/", {"X-Forwarded-For": "203.0.113.9"})])

site("index-variables", """
    map $uri $idx { /sub/ b.txt; /none/ /a.txt; default index.html; }
    map $uri $idx_volatile { volatile; /v/ /v/next; /v/next seen; }
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        index $idx;
        location /v/ { index $idx_volatile; }
        location = /v/next { return 200 "$idx_volatile $uri\\n"; }
        location /abs/ { index missing.html /a.txt; }
    }
""", ["/", "/sub/", "/none/", "/v/", "/abs/", "/nowhere/"])

site("named-location", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location / {
            try_files $uri $uri/ @fallback;
        }
        location @fallback {
            add_header X-Fallback yes;
            return 200 "fallback for $uri\\n";
        }
    }
""", ["/a.txt", "/nothing/here", "/sub/", "/sub"])

site("default-type-and-types", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /raw/ { default_type text/plain; }
        location /bin/ { default_type application/x-custom; }
    }
""", ["/noext", "/raw/data", "/a.txt", "/img/logo.png"])

site("head-and-conditionals", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        etag on;
        location /noetag/ { etag off; }
        if_modified_since before;
    }
""", [("/a.txt", {}, "HEAD"), ("/a.txt", {"If-None-Match": "*"}),
      ("/a.txt", {"If-Modified-Since": "Thu, 01 Jan 2099 00:00:00 GMT"}),
      ("/a.txt", {"If-Match": "\"nope\""}), "/noetag/x.txt",
      ("/a.txt", {}, "POST"), ("/a.txt", {"Range": "bytes=5-"}),
      ("/a.txt", {"Range": "bytes=0-0,2-3"}),
      ("/a.txt", {"Range": "bytes=0-,0-"})])

site("return-codes", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location = /health { return 200 "ok\\n"; }
        location = /empty { return 204; }
        location = /teapot { return 418; }
        location = /go { return https://example.org/; }
        location = /see { return 303 /a.txt; }
        location = /perm { return 308 /a.txt; }
        location = /text { default_type text/plain; return 404 "gone\\n"; }
        location = /ok { charset utf-8; return 200; }
        location = /accepted { default_type text/plain; return 202; }
    }
""", ["/ok", "/accepted", "/health", ("/health", {}, "HEAD"), "/empty", "/teapot", "/go", "/see",
      "/perm", "/text"])

site("nested-and-limits", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /app/ {
            add_header X-App outer;
            location /app/admin/ {
                add_header X-App inner;
                return 403;
            }
            location ~ \\.txt$ {
                add_header X-App text;
            }
        }
        location /sub/ {
            limit_rate 1m;
            max_ranges 1;
        }
    }
""", ["/app/x", "/app/admin/y", "/app/a.txt", "/sub/b.txt",
      ("/sub/b.txt", {"Range": "bytes=0-1,4-5"}),
      ("/sub/b.txt", {"Range": "bytes=2-3"})])


site("if-and-break", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        if ($host = old.example) {
            return 301 https://new.example$request_uri;
        }
        location / {
            if (!-e $request_filename) {
                rewrite ^/(.*)$ /index.html break;
            }
        }
        location /m/ {
            if ($request_method !~ ^(GET|HEAD)$) { return 405; }
        }
        location /ua/ {
            if ($http_user_agent ~* (bot|crawler)) { return 403; }
        }
        location /cap/ {
            if ($uri ~ ^/cap/(\\w+)$) { return 200 "got $1\\n"; }
        }
        location /flag/ { if ($args) { return 204; } }
        location /arg/ { return 200 "x=$arg_x y=$arg_y\\n"; }
        location /old/ { rewrite ^/old/(.*)$ /new/$1; }
        location /new/ { add_header X-New yes; }
        location /stop/ { rewrite ^/stop/(.*)$ /a.txt; break; return 404; }
        location /dir/ {
            if (-d $request_filename) { return 200 "a directory\\n"; }
            if (-f $request_filename) { return 200 "a file\\n"; }
        }
    }
""", [("/", {"Host": "old.example"}), ("/x?y=1", {"Host": "old.example"}),
      "/missing-page", "/a.txt", ("/m/x", {}, "POST"), "/m/x",
      ("/ua/x", {"User-Agent": "GoogleBot/2"}), ("/ua/x", {"User-Agent": "me"}),
      "/cap/abc", "/cap/a-b", "/flag/?x", "/flag/", "/old/a/b", "/stop/q",
      "/arg/?x=1&y=two&x=3", "/arg/?xx=1", "/arg/",
      "/dir/", "/dir/file"])

site("maps-and-set", """
    map $http_user_agent $client {
        default        other;
        curl/8.0       exact-curl;
        ~*bot          robot;
        ~^Mozilla/(\\d+) mozilla-$1;
        \\default      literal-default;
    }
    map $uri $legacy {
        /old-a.html    /a.txt;
        ~^/blog/(\\d+)/(.*)$ /posts/$2-$1;
    }
    map $host$uri $hu { default no; a.example/hu/ yes; }
    map $arg_v $mapped_from_set { 1 one; default none; }
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        set $section main;
        location /ua/ { return 200 "client=$client\\n"; }
        location /hu/ { return 200 "hu=$hu\\n"; }
        location /legacy/ {
            if ($legacy) { return 301 $legacy; }
            return 404;
        }
        location / {
            if ($legacy) { rewrite ^ $legacy last; }
        }
        location /blog/ {
            if ($legacy) { return 302 $legacy; }
        }
        location /set/ {
            set $who "$arg_name-$section";
            set $section inner;
            add_header X-Section $section;
            return 200 "who=$who section=$section\\n";
        }
        location /status/ { return 200 "status=$status\\n"; }
        location /chain/ {
            set $v $arg_v;
            return 200 "mapped=$mapped_from_set v=$v\\n";
        }
    }
""", [("/ua/", {"User-Agent": "curl/8.0"}), ("/ua/", {"User-Agent": "CURL/8.0"}),
      ("/ua/", {"User-Agent": "GoogleBot/2.1"}),
      ("/ua/", {"User-Agent": "Mozilla/5.0 (X11)"}),
      ("/ua/", {"User-Agent": "default"}), ("/ua/", {"User-Agent": "wget"}),
      "/ua/", ("/hu/", {"Host": "a.example"}), ("/hu/", {"Host": "b.example"}),
      "/old-a.html", "/OLD-A.HTML", "/legacy/x", "/blog/2019/hello",
      "/blog/x/hello", "/set/?name=ann", "/set/", "/status/",
      "/chain/?v=1", "/chain/?v=2", "/a.txt"])

# geo by network (longest prefix, delete, include), by ranges (a later
# one winning, delete), behind trusted proxies (X-Forwarded-For, and
# recursive); map with hostnames (exact, wildcards, regex) and include
site("geo-and-map-hostnames", """
    geo $arg_ip $net {
        default none;
        10.0.0.0/8 ten;
        10.1.0.0/16 ten-one;
        delete 10.1.0.0/16;
        10.1.2.0/24 back;
        192.0.2.1 one-host;
        2001:db8::/32 v6doc;
        include %(root)s/maps/geo.inc;
    }
    geo $arg_ip $range {
        ranges;
        default out;
        10.0.0.0-10.0.0.255 a;
        10.0.0.100-10.0.0.199 b;
        delete 10.0.0.150-10.0.0.160;
        10.0.1.0-10.0.1.10 c;
        10.0.2.0-10.0.2.255 d;
        delete 10.0.2.0-10.0.2.255;
    }
    geo $client_net {
        default far;
        proxy 127.0.0.1;
        198.51.100.0/24 forwarded;
        127.0.0.1 local;
    }
    geo $client_rec {
        default far;
        proxy 127.0.0.1;
        proxy 203.0.113.0/24;
        proxy_recursive;
        198.51.100.0/24 forwarded;
        203.0.113.0/24 proxy-net;
    }
    map $http_x_host $hmap {
        hostnames;
        default none;
        example.com exact;
        *.example.com wild-leading;
        .example.org dot-both;
        www.example.* wild-trailing;
        include %(root)s/maps/hosts.inc;
    }
    server {
        listen 127.0.0.1:%(port)d;
        location /geo/ {
            return 200 "$net $range $client_net $client_rec\n";
        }
        location /host/ { return 200 "h=$hmap\n"; }
    }
""", ["/geo/?ip=10.2.3.4", "/geo/?ip=10.1.5.5", "/geo/?ip=10.1.2.3",
      "/geo/?ip=192.0.2.1", "/geo/?ip=2001:db8::5", "/geo/?ip=172.20.1.1",
      "/geo/?ip=8.8.8.8", "/geo/?ip=bogus", "/geo/?ip=10.0.0.50",
      "/geo/?ip=10.0.0.120", "/geo/?ip=10.0.0.155", "/geo/?ip=10.0.0.170",
      "/geo/?ip=10.0.0.210", "/geo/?ip=10.0.1.5", "/geo/?ip=10.0.1.11", "/geo/?ip=10.0.2.7",
      "/geo/?ip=::ffff:10.1.2.3", "/geo/",
      ("/geo/", {"X-Forwarded-For": "198.51.100.7"}),
      ("/geo/", {"X-Forwarded-For": "198.51.100.7, 203.0.113.5"}),
      ("/geo/", {"X-Forwarded-For": "junk"}),
      ("/host/", {"X-Host": "example.com"}),
      ("/host/", {"X-Host": "EXAMPLE.com."}),
      ("/host/", {"X-Host": "a.example.com"}),
      ("/host/", {"X-Host": "a.b.example.com"}),
      ("/host/", {"X-Host": "example.org"}),
      ("/host/", {"X-Host": "x.example.org"}),
      ("/host/", {"X-Host": "www.example.net"}),
      ("/host/", {"X-Host": "some.test"}),
      ("/host/", {"X-Host": "re42.test"}),
      ("/host/", {"X-Host": "other.test"}), "/host/"])

# the variable registry: families ($http_, $arg_, $cookie_), names in any
# case, ${name}, a map's value kept for the rest of the request (and one
# "volatile" evaluated again), "set" before and after its use, $uri once
# try_files found a file
site("variables", """
    map $uri $first_uri { default $uri; }
    map $uri $every_uri { volatile; default $uri; }
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /v/ {
            return 200 "c=$cookie_session a=$arg_A A=$ARG_a h=$http_x_custom t=$content_type u=${uri}x U=$URI late=$late\n";
        }
        location /cache/ {
            set $seen "$first_uri|$every_uri";
            rewrite ^ /after last;
        }
        location = /after {
            return 200 "first=$first_uri every=$every_uri seen=$seen\n";
        }
        location /tf/ {
            try_files $uri /a.txt =404;
            add_header X-Uri $uri always;
        }
        location /setlater/ {
            set $late "now";
            return 200 "late=$late\n";
        }
        location /sent/ {
            alias %(root)s/www/;
            add_header X-Sent "t=$sent_http_content_type l=$sent_http_content_length";
        }
    }
""", [("/v/?a=1&b=2", {"Cookie": "x=1; session=abc; y=2",
                       "X-Custom": "hi", "Content-Type": "text/x"}),
      ("/v/?A=up", {"Cookie": "session=", "Cookie2": "no"}),
      "/v/", ("/v/?aa=1&a=2", {"Cookie": "session=s1, other=o"}),
      "/cache/x", "/cache/y?z=1", "/after", "/tf/missing", "/tf/",
      "/setlater/", "/sent/a.txt"])

# a new user's single-page site: "$uri/index.html" of "/" is
# "//index.html", and "/$uri" doubles every slash; both are files beneath
# the root for nginx (issue 41)
site("try-files-slashes", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location / { try_files $uri $uri/index.html @fallback; }
        location /double/ { try_files /$uri =404; }
        location @fallback { return 200 "fallback $uri\\n"; }
    }
""", ["/", "/index.html", "/a.txt", "/nothing", "/img/", "/double/x",
      "/double/", "//a.txt"])

# the connection's and the request's variables (issue 41): nginx's
# values for the same bytes
site("connection-variables", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /cv {
            return 200 "$server_protocol|$https|$http2|$request_length|$connection_requests|$server_addr|$binary_remote_addr|$ssl_protocol|$ssl_server_name\n";
        }
        location /cvh {
            add_header X-Len $request_length;
            add_header X-Conn $connection_requests;
        }
        # return's text takes the type of the URI's extension (nginx)
        location /gone/ { return 410 "gone\n"; }
        # an unquoted ${name} and a "}" inside a word are the word's
        location /brace/ { add_header X-B x}y; return 200 a${uri}b; }
    }
""", ["/cv", ("/cv?long=" + "x" * 100, {"X-Pad": "y" * 50}),
      ("/cvh/", {"Accept": "*/*"}), "/gone/page.html", "/gone/data.json",
      "/gone/noext", "/gone/x.tar.gz", "/brace/q"])

# request rate limits (issue 41): a rate slow enough that no state
# drains during the run, so both count the same requests the same way
site("limit-req", """
    limit_req_zone $binary_remote_addr zone=perip:1m rate=1r/m;
    limit_req_zone $arg_user zone=peruser:1m rate=1r/m;
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        add_header X-Limit $limit_req_status always;
        location /burst/ {
            alias %(root)s/www/;
            limit_req zone=perip burst=2 nodelay;
        }
        location /status/ {
            alias %(root)s/www/;
            limit_req zone=peruser;
            limit_req_status 429;
            error_page 429 /busy.txt;
        }
        location = /busy.txt { return 200 "slow down\n"; }
        location /dry/ {
            alias %(root)s/www/;
            limit_req zone=peruser burst=1 nodelay;
            limit_req_dry_run on;
        }
        location /free/ { alias %(root)s/www/; }
    }
""", ["/burst/a.txt", "/burst/a.txt", "/burst/a.txt", "/burst/a.txt",
      "/free/a.txt",
      "/status/a.txt?user=u1", "/status/a.txt?user=u1",
      "/status/a.txt?user=u2", "/status/a.txt", "/status/a.txt",
      "/dry/a.txt?user=d", "/dry/a.txt?user=d", "/dry/a.txt?user=d",
      "/dry/a.txt?user=d"])

# merge_slashes off (issue 41): empty segments stay in $uri and in
# location matching, ".." takes the segment before it
site("merge-slashes-off", """
    merge_slashes off;
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location / { add_header X-URI "x $uri x"; return 204; }
        location /a//b { return 200 "doubled\\n"; }
    }
""", ["/foo//../bar", "/foo///../bar", "/a//b", "/a/b", "//x", "/x//",
      "/a//./b"])

# precompressed files only (issue 41): gzip_static always sends the .gz
# whether or not the plain file exists, and gunzip decompresses it for a
# client that does not take gzip, error pages included
site("precompressed-only", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /pre/ {
            gzip_static always;
            gunzip on;
            gzip_vary on;
            error_page 404 /pre/only.txt;
        }
        location /pre-on/ {
            alias %(root)s/www/pre/;
            gzip_static on;
        }
    }
""", ["/pre/only.txt", ("/pre/only.txt", {"Accept-Encoding": "gzip"}),
      ("/pre/only.txt", {}, "HEAD"), "/pre/two.txt", "/pre/missing",
      ("/pre/missing", {"Accept-Encoding": "gzip"}), "/pre-on/only.txt",
      ("/pre-on/only.txt", {"Accept-Encoding": "gzip"})])

GZ = {"Accept-Encoding": "gzip"}

site("gzip-on-the-fly", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        gzip on;
        gzip_types text/css application/javascript text/plain;
        gzip_min_length 100;
        gzip_comp_level 6;
        gzip_vary on;
        gzip_proxied any;
        location = /long { return 200 "%(long)s"; }
        location /plain/ { gzip off; }
    }
""", [("/app.js", GZ), "/app.js", ("/app.js", {"Accept-Encoding": "br"}),
      ("/a.txt", GZ), ("/index.html", GZ), ("/style.css", GZ),
      ("/missing", GZ), ("/img/logo.png", GZ), ("/app.js", GZ, "HEAD"),
      ("/app.js", {"Accept-Encoding": "gzip", "Range": "bytes=0-9"}),
      ("/long", GZ), ("/plain/big.txt", GZ), ("/big.txt", GZ),
      ("/app.js", {"Accept-Encoding": "gzip", "If-None-Match": "*"})])

# the body filters on a proxied body, which comes in pieces (issue 42):
# gzip's (a weak ETag, no Accept-Ranges, no length) and charset's
# (override_charset; from UTF-8, a character cut between two reads)
site("proxied-filters", """
    include /etc/nginx/koi-utf;
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /gz/ {
            gzip on;
            gzip_types text/plain application/javascript;
            gzip_min_length 100;
            gzip_vary on;
            proxy_pass http://127.0.0.1:%(port)d/;
        }
        location /gz/long {
            gzip on;
            proxy_pass http://127.0.0.1:%(port)d/long;
        }
        location = /long {
            default_type text/html;
            return 200 "%(long)s";
        }
        location /to-utf/ {
            charset utf-8;
            override_charset on;
            proxy_pass http://127.0.0.1:%(port)d/koi/;
        }
        location /to-koi/ {
            charset koi8-r;
            override_charset on;
            proxy_pass http://127.0.0.1:%(port)d/utf/;
        }
        location /to-koi-gz/ {
            charset koi8-r;
            override_charset on;
            gzip on;
            proxy_pass http://127.0.0.1:%(port)d/utf/;
        }
        location /koi/ { charset koi8-r; alias %(root)s/cs/koi/; }
        location /utf/ { charset utf-8; alias %(root)s/cs/utf/; }
    }
""", [("/gz/app.js", GZ), "/gz/app.js", ("/gz/big.txt", GZ),
      ("/gz/a.txt", GZ), ("/gz/img/logo.png", GZ), ("/gz/app.js", GZ, "HEAD"),
      ("/gz/missing", GZ), ("/gz/long", GZ), "/to-utf/a.html",
      "/to-utf/a.txt", "/to-koi/a.html", "/to-koi/big.html",
      ("/to-koi-gz/big.html", GZ), ("/to-utf/a.html", {}, "HEAD")])

# sub_filter (issue 42): files, return's text, error pages and proxied
# bodies, where a string is cut between two reads of the upstream
site("sub-filter", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        sub_filter '<H1>' '<h1 class="x">';
        sub_filter www $host;
        location /many/ {
            alias %(root)s/www/;
            sub_filter_once off;
            sub_filter_types text/plain;
            sub_filter 'compresses well' 'squeezes';
            sub_filter $arg_from '[$arg_to]';
        }
        location /lm/ {
            alias %(root)s/www/;
            sub_filter_last_modified on;
            sub_filter_types *;
            sub_filter hello bye;
        }
        location /px/ {
            sub_filter_once off;
            sub_filter_types text/plain;
            sub_filter 'compresses well' 'squeezes';
            sub_filter_last_modified on;
            proxy_pass http://127.0.0.1:%(port)d/plain/;
        }
        location /pxgz/ {
            sub_filter_once off;
            sub_filter_types text/plain;
            sub_filter 'text' 'TEXT';
            gzip on;
            gzip_types text/plain;
            proxy_pass http://127.0.0.1:%(port)d/plain/;
        }
        location /plain/ { sub_filter_types none/none; }
        location /subgz/ {
            alias %(root)s/www/;
            sub_filter_types text/plain;
            sub_filter 'text' 'TEXT';
            gzip on;
            gzip_types text/plain;
        }
        location = /ret {
            default_type text/html;
            return 200 "www, WWW and www";
        }
        location = /gone { return 404; }
        location /keep/ { alias %(root)s/www/; sub_filter_types text/css; }
    }
""", ["/", "/index.html", ("/", {"Host": "example.org"}),
      ("/index.html", {}, "HEAD"), ("/index.html", {"Range": "bytes=0-3"}),
      "/many/big.txt", "/many/a.txt?from=o&to=0", "/many/a.txt",
      "/lm/a.txt", "/lm/img/logo.png", ("/lm/a.txt", {}, "HEAD"),
      "/px/big.txt", ("/px/big.txt", {}, "HEAD"), ("/pxgz/big.txt", GZ),
      "/ret", "/gone", "/keep/style.css", "/sub/b.txt",
      ("/subgz/big.txt", GZ)])

# addition (issue 42): text added before and after a file's body and a
# proxied one's, from locations answered at once and from a proxied one
# (which the response waits for); only a 200 of addition_types, not a
# HEAD's body, no ranges, a weak ETag
site("addition", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        add_before_body /before;
        add_after_body /after;
        location = /before { default_type text/plain; return 200 "[b]"; }
        location /after {
            default_type text/plain;
            return 200 "[a $uri $request_uri]";
        }
        location /q/ { alias %(root)s/www/; add_after_body /after?x=1; }
        location /txt/ {
            alias %(root)s/www/;
            addition_types text/plain;
            add_before_body /up/a.txt;
        }
        location /up/ { proxy_pass http://127.0.0.1:%(port2)d/; }
        location /px/ { proxy_pass http://127.0.0.1:%(port2)d/; }
        location /pxpx/ {
            add_after_body /up/a.txt;
            proxy_pass http://127.0.0.1:%(port2)d/;
        }
        location /pxgz/ {
            gzip on;
            addition_types text/plain;
            proxy_pass http://127.0.0.1:%(port2)d/;
        }
        location /gone/ {
            alias %(root)s/www/;
            add_after_body /404;
        }
        location = /404 { return 404 "gone"; }
    }
    server {
        listen 127.0.0.1:%(port2)d;
        root %(root)s/www;
        location /none/ { return 204; }
    }
""", ["/", "/index.html", ("/index.html", {}, "HEAD"),
      ("/index.html", {"Range": "bytes=0-3"}), "/a.txt", "/missing",
      "/txt/a.txt", "/txt/index.html", "/px/index.html", "/px/a.txt",
      ("/px/index.html", {}, "HEAD"), "/px/none/", "/px/missing",
      "/pxpx/index.html", ("/pxgz/big.txt", GZ), "/gone/index.html",
      "/q/index.html?y=2"])

# what decides whether a response may go compressed, besides gzip's own
# (gzip_ok.c): gzip_proxied for a request with Via (by its Authorization
# and the response's Expires, Cache-Control, Last-Modified, ETag),
# gzip_http_version, gzip_disable; for files, gzip_static and proxied
# bodies alike
VIA = {"Accept-Encoding": "gzip", "Via": "1.1 cdn"}
MSIE6 = "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)"

site("gzip-conditions", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        gzip on;
        gzip_types text/plain application/javascript;
        gzip_min_length 10;
        location /any/ { alias %(root)s/www/; gzip_proxied any; }
        location /auth/ { alias %(root)s/www/; gzip_proxied auth; }
        location /exp/ {
            alias %(root)s/www/;
            gzip_proxied expired;
            expires -1;
        }
        location /later/ {
            alias %(root)s/www/;
            gzip_proxied expired no_etag;
            expires 1h;
        }
        location /nocache/ {
            alias %(root)s/www/;
            gzip_proxied no-cache;
            expires epoch;
        }
        location /nolm/ { alias %(root)s/www/; gzip_proxied no_last_modified; }
        location /noetag/ {
            alias %(root)s/www/;
            gzip_proxied no_etag;
            etag off;
        }
        location /v10/ { alias %(root)s/www/; gzip_http_version 1.0; }
        location /dis/ { alias %(root)s/www/; gzip_disable msie6 "^curl/[0-9]"; }
        location /st/ {
            alias %(root)s/www/;
            gzip off;
            gzip_static on;
            gzip_proxied no_last_modified;
        }
        location /px/ {
            gzip_proxied expired;
            proxy_pass http://127.0.0.1:%(port)d/plainexp/;
        }
        location /pxkeep/ {
            gzip_proxied no_etag;
            proxy_pass http://127.0.0.1:%(port)d/plain/;
        }
        location /plainexp/ { alias %(root)s/www/; gzip off; expires -1; }
        location /plain/ { gzip off; }
    }
""", [("/big.txt", GZ), ("/big.txt", VIA), ("/any/big.txt", VIA),
      ("/auth/big.txt", VIA),
      ("/auth/big.txt", dict(VIA, Authorization="Basic eDp5")),
      ("/exp/big.txt", VIA), ("/later/big.txt", VIA),
      ("/nocache/big.txt", VIA), ("/nolm/big.txt", VIA),
      ("/noetag/big.txt", VIA), ("/big.txt", dict(GZ, **{":version": "1.0"})),
      ("/v10/big.txt", dict(GZ, **{":version": "1.0"})),
      ("/dis/big.txt", dict(GZ, **{"User-Agent": MSIE6})),
      ("/dis/big.txt", dict(GZ, **{"User-Agent": MSIE6[:-1] + "; SV1)"})),
      ("/dis/big.txt", dict(GZ, **{"User-Agent": "Mozilla/4.0 (MSIE 7.0)"})),
      ("/dis/big.txt", dict(GZ, **{"User-Agent": "CURL/8.1"})),
      ("/dis/big.txt", dict(GZ, **{"User-Agent": "wget curl/8"})),
      ("/st/app.js", VIA), ("/st/app.js", GZ), ("/px/big.txt", VIA),
      ("/pxkeep/big.txt", VIA), ("/pxkeep/big.txt", GZ)])


def basic(user, pw):
    return {"Authorization": "Basic "
            + base64.b64encode(("%s:%s" % (user, pw)).encode()).decode()}


site("validators-replaced", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location = /a.txt {
            add_header Last-Modified "Mon, 28 Sep 1970 06:00:00 GMT";
            add_header ETag '"mine"';
        }
        location = /exact.txt {
            add_header Last-Modified "";
            add_header X-Empty "";
        }
        location /sub/ {
            add_header Last-Modified "Tue, 01 Jan 2002 00:00:00 GMT";
            add_header Last-Modified "Wed, 02 Jan 2002 00:00:00 GMT";
        }
    }
""", ["/a.txt", "/exact.txt", "/sub/b.txt", "/missing.txt",
      ("/a.txt", {"Range": "bytes=0-3",
                  "If-Range": "Mon, 28 Sep 1970 06:00:00 GMT"}),
      ("/a.txt", {"Range": "bytes=0-3", "If-Range": '"mine"'}),
      ("/a.txt", {"Range": "bytes=0-3",
                  "If-Range": "Tue, 14 Nov 2023 22:13:20 GMT"}),
      ("/exact.txt", {"Range": "bytes=0-1",
                      "If-Range": "Tue, 14 Nov 2023 22:13:20 GMT"}),
      ("/sub/b.txt", {"Range": "bytes=0-1",
                      "If-Range": "Wed, 02 Jan 2002 00:00:00 GMT"}),
      ("/sub/b.txt", {"Range": "bytes=0-1",
                      "If-Range": "Tue, 01 Jan 2002 00:00:00 GMT"})])

site("ssi", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/ssi;
        ssi on;
        location /quiet/ {
            ssi_silent_errors on;
        }
        location /kept/ {
            ssi_last_modified on;
        }
        location /off/ {
            ssi off;
        }
        location /txt/ {
            ssi_types text/plain;
        }
        location = /ret {
            return 200 "args=$args uri=$uri";
        }
        location = /gone {
            return 404;
        }
    }
""", ["/index.html", "/vars.html?a=1&b=two", "/cond.html?x=yes",
      "/cond.html?x=no", "/cond.html", "/stub.html", "/bad.html",
      "/quiet/bad.html", "/kept/a.html", "/off/a.html", "/txt/a.txt",
      "/rel/page.html", "/nested.html", "/self.html",
      ("/index.html", {}, "HEAD"),
      ("/index.html", {"Range": "bytes=0-3"}),
      ("/vars.html", {"Accept-Encoding": "gzip"})])

site("rewrite-args", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /add { rewrite ^ http://example.com/?c=d redirect; }
        location /no { rewrite ^ http://example.com/?c=d? redirect; }
        location /keep { rewrite ^ http://example.com/k permanent; }
        location /capture {
            rewrite ^(.*) $1?c=$1;
            return 200 "uri:$uri args:$args";
        }
        location /last/ { rewrite ^/last/(.*)$ /show.php?q=$1 last; }
        location /cleared/ { rewrite ^ /show.php? last; }
        location /then/ {
            rewrite ^ /show.php?step=1;
            rewrite ^ /show.php?step=2&$args last;
        }
        location ~ \.php$ {
            return 200 "uri:$uri args:$args is:$is_args q:$arg_q";
        }
        location /tf/ { try_files /nope /show.php; }
        location /tf2/ { try_files /nope /show.php?$args&x=1; }
        location /ep/ { error_page 404 /show.php?e=1; return 404; }
        location /epv/ { error_page 404 /show.php?from=$uri; return 404; }
        location /epr/ { error_page 404 http://example.com/?u=$uri; return 404; }
        location /idx/ { index show.php; }
    }
""", ["/add?a=b", "/no?a=b", "/keep?a=b", "/capture/%25?a=b",
      "/capture/x", "/last/abc?z=1", "/last/a%20b", "/cleared/?a=b",
      "/then/?a=b", "/tf/x?k=v", "/tf2/x?k=v", "/ep/?a=1", "/idx/?i=1",
      "/epv/x?a=1", "/epr/y"])

site("alias-regex-and-nested", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location ~ /re-alias.txt {
            alias %(root)s/www/sub;
            try_files $uri =404;
        }
        location /nested-alias/ {
            alias %(root)s/www/;
            location ~ txt$ { try_files $uri =404; }
        }
        location /nested-alias2/ {
            alias %(root)s/www/sub/;
            location ~ \.txt$ { }
        }
    }
""", ["/re-alias.txt", "/nested-alias/a.txt", "/nested-alias/missing.txt",
      "/nested-alias2/b.txt", "/nested-alias2/", "/nested-alias2/x.txt"])

site("basic-auth-and-access", """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /private/ {
            auth_basic "Members only";
            auth_basic_user_file %(root)s/htpasswd;
            location /private/open/ { auth_basic off; }
        }
        location /nofile/ {
            auth_basic "x";
            auth_basic_user_file %(root)s/no-such-file;
        }
        location /lan/ { allow 10.0.0.0/8; deny all; }
        location /local/ { deny 10.1.2.3; allow 127.0.0.0/8; deny all; }
        location /v6/ { allow ::1; deny all; }
        location /byarg/ {
            auth_basic "by arg";
            auth_basic_user_file %(root)s/$arg_f;
            alias %(root)s/www/private/;
        }
    }
""", ["/private/a.txt", ("/private/a.txt", basic("apr", "secret1")),
      ("/private/a.txt", basic("apr", "wrong")),
      ("/private/a.txt", basic("md5", "secret2")),
      ("/private/a.txt", basic("sha512", "secret3")),
      ("/private/a.txt", basic("sha", "secret4")),
      ("/private/a.txt", basic("ssha", "secret5")),
      ("/private/a.txt", basic("plain", "secret6")),
      ("/private/a.txt", basic("bcrypt", "secret7")),
      ("/private/a.txt", basic("bcrypt", "secret8")),
      ("/private/a.txt", basic("des", "secret8")),
      ("/private/a.txt", basic("nobody", "x")),
      ("/private/a.txt", {"Authorization": "Basic !!!"}),
      ("/private/a.txt", {"Authorization": "Bearer abc"}),
      ("/private/a.txt", basic("apr", "secret1:more")),
      "/private/open/b.txt", "/nofile/x", "/lan/x", "/local/x", "/v6/x",
      ("/byarg/a.txt?f=htpasswd", basic("apr", "secret1")),
      ("/byarg/a.txt?f=htpasswd", basic("apr", "wrong")),
      ("/byarg/a.txt?f=none", basic("apr", "secret1")),
      ("/nofile/x", basic("apr", "secret1"))])


def htpasswd():
    """One user per hash format Debian's nginx reads."""
    import crypt  # deprecated in 3.11, gone in 3.13: only for test data
    sha = hashlib.sha1(b"secret4").digest()
    ssha = hashlib.sha1(b"secret5" + b"salt").digest() + b"salt"
    lines = [
        "apr:" + subprocess.check_output(
            ["openssl", "passwd", "-apr1", "-salt", "abcdefgh", "secret1"],
            text=True).strip(),
        "md5:" + subprocess.check_output(
            ["openssl", "passwd", "-1", "-salt", "xy", "secret2"],
            text=True).strip(),
        "sha512:" + subprocess.check_output(
            ["openssl", "passwd", "-6", "-salt", "saltsalt", "secret3"],
            text=True).strip(),
        "sha:{SHA}" + base64.b64encode(sha).decode(),
        "ssha:{SSHA}" + base64.b64encode(ssha).decode(),
        "plain:{PLAIN}secret6",
        "# a comment",
        "bcrypt:" + crypt.crypt("secret7", crypt.mksalt(crypt.METHOD_BLOWFISH)),
        "des:" + (crypt.crypt("secret8", "ab") or "*"),
    ]
    return "\n".join(lines) + "\n"


def make_docroot(top):
    def put(rel, data):
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    put("docs/index.html", "<h1>docs</h1>\n")
    put("maps/geo.inc", "172.16.0.0/12 private;\n")
    put("maps/hosts.inc", "some.test from-include;\n~^re\\d+\\.test$ regex;\n")
    put("docs/guide.html", "<p>the guide, a page long enough</p>\n")
    put("docs/404.html", "<p>custom not found</p>\n")
    put("docs/api/index.html", "<p>api</p>\n")
    put("spa/index.html", "<div id=app></div>\n")
    put("spa/assets/app.js", "console.log('app');\n")
    put("a/index.html", "site a\n")
    put("a/who.txt", "a\n")
    put("b/index.html", "site b\n")
    put("c/index.html", "site c\n")
    put("c/who.txt", "c\n")
    put("files/a.bin", bytes(range(256)) * 4)
    put("files/sub/b.bin", b"b" * 100)
    put("files/big.bin", b"z" * 123456)
    put("files/a-name-longer-than-fifty-characters-to-see-it-cut.bin", "x")
    put("files/caf\u00e9.txt", "utf-8 name\n")
    put("files/it's <x> & \"y\".txt", "marks\n")
    put("www/index.html", "<h1>www</h1>\n")
    put("www/a.txt", "hello, world\n")
    put("www/exact.txt", "exact\n")
    put("www/noext", "no extension\n")
    put("www/raw/data", "raw\n")
    put("www/noetag/x.txt", "x\n")
    put("www/sub/index.html", "<p>sub</p>\n")
    put("www/sub/b.txt", "0123456789\n")
    put("www/nolist/file", "f\n")
    put("www/app/a.txt", "app text\n")
    put("www/app/x", "app x\n")
    put("www/img/logo.png", b"\x89PNG\r\n\x1a\nfake")
    put("www/img/LOGO.PNG", b"\x89PNG\r\n\x1a\nFAKE")
    put("www/static/logo.png", b"\x89PNG static")
    put("www/new/a/b", "new a/b\n")
    put("www/posts/42.txt", "post 42\n")
    put("www/errors/404.html", "<p>our 404</p>\n")
    put("www/errors/50x.html", "<p>our 50x</p>\n")
    put("www/errors/teapot.txt", "short and stout\n")
    js = "function f() { return 1; }\n" * 40
    put("www/app.js", js)
    put("www/app.js.gz", gzip.compress(js.encode(), mtime=0))
    # precompressed only: no plain file beside the .gz (one of two
    # members), served by gzip_static always and gunzip
    text = "".join("line %03d of a precompressed text\n" % i
                   for i in range(60))
    put("www/pre/only.txt.gz", gzip.compress(text.encode(), mtime=0))
    put("www/pre/two.txt.gz", gzip.compress(b"first member\n", mtime=0)
        + gzip.compress(b"second member\n", mtime=0))
    put("www/style.css", "body { color: red; }\n" * 20)
    put("www/big.txt", "some text that compresses well\n" * 4000)
    put("www/plain/big.txt", "some text that compresses well\n" * 4000)
    put("www/dir/file", "f\n")
    put("www/idx/show.php", "never read\n")
    put("www/sub/re-alias.txt", "found by try_files below the alias\n")
    put("www/private/a.txt", "members\n")
    put("www/private/open/b.txt", "open\n")
    put("www/lan/x", "lan\n")
    put("www/local/x", "local\n")
    put("www/v6/x", "v6\n")
    # ssi: includes of files, returns and missing ones, set, echo with
    # encodings, if/elif/else, blocks as stubs, config, errors
    put("ssi/part.html", "<b>part</b>")
    put("ssi/index.html", 'a <!--# include virtual="/part.html" --> b '
        '<!--# include virtual="/ret?x=1" --> c\n')
    put("ssi/vars.html", '<!--# set var="v" value="<$arg_b & $uri>" -->'
        '[<!--# echo var="v" -->] [<!--# echo var="v" encoding="none" -->]'
        ' [<!--# echo var="v" encoding="url" -->] [<!--# echo var="nope" -->]'
        ' [<!--# echo var="nope" default="d-$arg_a" -->]'
        ' [<!--# echo var="arg_a" -->] [<!--# echo var="args" -->]'
        '<!--# include virtual="/ret?$args" set="r" -->{<!--# echo var="r" -->}'
        '<!--# config errmsg="[oops]" --><!--# echo -->\n')
    put("ssi/cond.html", '<!--# if expr="$arg_x = yes" -->YES'
        '<!--# elif expr="$arg_x = /^n(o)/" -->NO:$1<!--# echo var="1" -->'
        '<!--# elif expr="$arg_x" -->OTHER<!--# else -->NONE<!--# endif -->'
        ' <!--# if expr="$arg_x != yes" -->not-yes<!--# endif -->\n')
    put("ssi/stub.html", '<!--# block name="one" -->STUB<!--# endblock -->'
        '[<!--# include virtual="/gone" stub="one" -->]'
        '[<!--# include virtual="/part.html" stub="one" -->]\n')
    put("ssi/bad.html", 'x <!--# nosuch a="b" --> y <!--# echo var= --> z '
        '<!--# include --> w <!--# include virtual="/../x" -->\n')
    put("ssi/quiet/bad.html", 'x <!--# nosuch --> y\n')
    put("ssi/kept/a.html", 'kept <!--# echo var="uri" -->\n')
    put("ssi/off/a.html", 'off <!--# echo var="uri" -->\n')
    put("ssi/txt/a.txt", 'text <!--# echo var="uri" -->\n')
    put("ssi/rel/page.html", '<!--# include file="piece.html" -->'
        '<!--# include virtual="../part.html" -->\n')
    put("ssi/rel/piece.html", 'piece <!--# echo var="uri" -->')
    put("ssi/nested.html", '1 <!--# include virtual="/index.html" --> 2\n')
    put("ssi/self.html", 's<!--# include virtual="/self.html" -->')
    put("htpasswd", htpasswd())
    # charsets: Russian text in KOI8-R, windows-1251 and UTF-8 (with a
    # character no 8-bit map has, one beyond the BMP, and a byte that is
    # no UTF-8), a KOI8-R byte Debian's koi-win leaves out
    ru = "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440"
    koi = (ru + " -- X.\n").encode("koi8_r") + b"\xbf end\n"
    put("cs/koi/a.html", koi * 3)
    put("cs/koi/a.txt", koi)
    put("cs/koi/a.json", koi)
    put("cs/win/a.html", koi * 20)
    put("cs/utf/a.html", (ru + " \u20ac \u4e2d \U0001f600 ").encode()
        + b"\xff\xc3 end\n")
    put("cs/utf/a.gz.txt", "x\n")
    # long enough that the reads of a proxy cut a character somewhere
    put("cs/utf/big.html", ("x" + "\u20ac\u4e2d" * 30000 + "\n").encode())
    # the same times on every file, so ETag and Last-Modified agree
    for dirpath, dirs, files in os.walk(top):
        for name in files + dirs:
            os.utime(os.path.join(dirpath, name), (1700000000, 1700000000))
    os.chmod(top, 0o755)


class Peer:
    """nginx or nicd on one site's configuration, in its own directory."""

    def __init__(self, kind, body, top, main=MAIN):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix="nicd-diff-%s-" % kind)
        self.port = free_port()
        port2 = free_port()  # (a second server of the site's)
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(main % {"d": self.dir, "mime": MIME,
                            "body": body % {"port": self.port,
                                            "port2": port2,
                                            "root": top, "long": LONG,
                                            "dir": self.dir}})
        if kind == "nginx":
            cmd = [NGINX, "-p", self.dir, "-c", self.conf]
        else:
            cmd = [NICD, "-c", self.conf]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)

        def up():
            if self.proc.poll() is not None:
                raise TestFailure("%s exited: %s\n%s" % (
                    kind, self.proc.stderr.read().decode(), self.log()))
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return True
            except OSError:
                return False
        wait_until(up, "%s to listen" % kind)

    def log(self):
        try:
            return open(os.path.join(self.dir, "error.log")).read()
        except OSError:
            return ""

    def stop(self):
        self.proc.send_signal(signal.SIGTERM if self.kind == "nicd"
                              else signal.SIGQUIT)
        try:
            self.proc.wait(DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read().decode()
        check("AddressSanitizer" not in err and "runtime error:" not in err,
              "sanitizer report from %s:\n%s" % (self.kind, err[-3000:]))
        shutil.rmtree(self.dir, ignore_errors=True)


def unix_accepts(sock_path):
    """Whether a connection to the UNIX-domain socket sock_path is taken."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sock_path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def unix_get(path, sock_path):
    """GET path over the UNIX-domain socket sock_path: (status, body)."""
    data = raw(sock_path, ("GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n"
                           % path).encode())
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


UNIX_SITE = """
    log_format ph '$request_uri $status $proxy_host';
    server {
        listen 127.0.0.1:%(port)d;
        listen unix:%(dir)s/s.sock;
        root %(root)s/www;
        access_log %(dir)s/ph.log ph;
        location /ph80/ { proxy_pass http://127.0.0.1:80/; }
        location /ph6/ { proxy_pass http://[::1]:%(port)d/v; }
        location = /v {
            return 200 "$remote_addr|$remote_port|$binary_remote_addr|$server_port|$server_addr";
        }
        location /allow-unix/ { allow unix:; deny all; }
        location /deny-unix/ { deny unix:; }
        location /deny-net/ { deny 127.0.0.0/8; deny ::/0; }
        location /via/ {
            proxy_pass http://unix:%(dir)s/s.sock:/;
            proxy_set_header X-Seen "$proxy_host|$proxy_port";
        }
        location = /seen { return 200 "$http_host|$http_x_seen"; }
    }
"""


def test_unix_socket_listen_agrees_with_nginx():
    """listen unix:PATH beside a TCP address: over the socket and over TCP
    the same answers as nginx's ($remote_addr "unix:", no ports, allow and
    deny unix:), the socket file readable and writable by all, gone when
    the server stops (proxy/access.t of nginx's suite goes further)."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    top = tempfile.mkdtemp(prefix="nicd-diff-root-")
    make_docroot(top)
    for d in ("allow-unix", "deny-unix", "deny-net"):
        os.makedirs(os.path.join(top, "www", d))
        with open(os.path.join(top, "www", d, "f.txt"), "w") as f:
            f.write(d)
    seen = {}
    try:
        for kind in ("nginx", "nicd"):
            peer = Peer(kind, UNIX_SITE, top)
            sock = os.path.join(peer.dir, "s.sock")
            try:
                # the TCP port answering does not say the socket beside it
                # is bound yet: its listeners are made one by one
                wait_until(lambda: unix_accepts(sock),
                           "%s to listen on %s" % (kind, sock))
                got = [oct(os.stat(sock).st_mode & 0o777)]
                status, body = unix_get("/v", sock)
                got.append((status, body.decode().replace(peer.dir, "DIR")))
                # proxied to the socket: Host "localhost", no port (nginx's)
                for path in ("/via/v", "/via/seen"):
                    st, _, b = fetch(peer.port, path, {}, "GET")
                    got.append((path, st, b.decode().replace(peer.dir,
                                                             "DIR")))
                for path in ("/ph80/", "/ph6/"):  # (502s: nothing there)
                    fetch(peer.port, path, {}, "GET")
                # $proxy_host and $proxy_port as the access log sees them
                with open(os.path.join(peer.dir, "ph.log")) as f:
                    got.append(re.sub(r"\b%d\b" % peer.port, "PORT",
                                      f.read()))
                for d in ("allow-unix", "deny-unix", "deny-net"):
                    got.append((d, unix_get("/%s/f.txt" % d, sock)[0],
                                fetch(peer.port, "/%s/f.txt" % d, {},
                                      "GET")[0]))
            finally:
                peer.stop()
            got.append(os.path.exists(sock))
            seen[kind] = got
    finally:
        shutil.rmtree(top, ignore_errors=True)
    check(seen["nicd"] == seen["nginx"],
          "over a UNIX-domain socket, nicd %r, nginx %r"
          % (seen["nicd"], seen["nginx"]))
    check(seen["nicd"][1] == (200, "unix:||unix:||unix:DIR/s.sock")
          and seen["nicd"][2] == ("/via/v", 200,
                                  "unix:||unix:||unix:DIR/s.sock")
          and seen["nicd"][3] == ("/via/seen", 200, "localhost|localhost|"),
          "the variables over the socket, and proxied to it: %r"
          % (seen["nicd"][1:4],))


def fetch(port, path, headers, method):
    """(status, {name: [values]}, body) of one request on its own
    connection, read to the close (headers' ":version" names the HTTP
    version of its request line, 1.1 without it)."""
    h = {"Host": "localhost", "Connection": "close"}
    h.update(headers)
    version = h.pop(":version", "1.1")
    req = "%s %s HTTP/%s\r\n" % (method, path, version)
    req += "".join("%s: %s\r\n" % kv for kv in h.items()) + "\r\n"
    data = raw(port, req.encode("latin-1"))
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    fields = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        fields.setdefault(k.strip().lower(), []).append(v.strip())
    if fields.get("transfer-encoding") == ["chunked"]:
        out = b""
        while True:
            size, _, body = body.partition(b"\r\n")
            n = int(size.split(b";")[0], 16)
            if n == 0:
                break
            out += body[:n]
            body = body[n + 2:]
        body = out
    return status, fields, body


def view(port, status, fields, body, custom_bodies):
    """What is compared of a response."""
    out = {"status": status}
    for name in COMPARED:
        v = fields.get(name.lower())
        if v is not None:
            out[name] = [re.sub(r":%d\b" % port, ":PORT", x) for x in v]
    out["Expires"] = "expires" in fields
    for k, v in fields.items():
        if k.startswith("x-"):
            out[k] = v
    gzipped = fields.get("content-encoding") == ["gzip"]
    if gzipped:
        # gzip-bytes: zlib's bytes are nicd's, nginx shrinks its window
        # for short bodies: what they decompress to is compared
        body = gzip.decompress(body) if body else body
        out.pop("Content-Length", None)
    builtin = status >= 300 and b"<center>" in body
    if builtin and not custom_bodies:
        out["body"] = "(a built-in page)"
        out.pop("Content-Length", None)
    else:
        out["body"] = body
    if fields.get("transfer-encoding") == ["chunked"] and not gzipped \
            and out["body"] is body:
        out["Content-Length"] = [str(len(body))]  # listing-framing
    if status == 405:
        out.pop("Allow", None)  # 405-allow
    return out


def normalise(items):
    out = []
    for it in items:
        if isinstance(it, str):
            it = (it, {}, "GET")
        elif len(it) == 2:
            it = (it[0], it[1], "GET")
        out.append(it)
    return out


def test_static_sites_agree_with_nginx():
    """The sites above, request by request: nicd answers as nginx does
    (NICD_DIFF_SITES=name,name runs only those, while working on them)."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    only = [n for n in os.environ.get("NICD_DIFF_SITES", "").split(",") if n]
    sites = [s for s in SITES if not only or s[0] in only]
    check(sites, "NICD_DIFF_SITES names no site: %s" % ",".join(only))
    top = tempfile.mkdtemp(prefix="nicd-diff-root-")
    make_docroot(top)
    agree = total = 0
    report = []
    failures = []
    try:
        for name, body, requests in sites:
            peers = []
            try:
                peers.append(Peer("nginx", body, top))
                peers.append(Peer("nicd", body, top))
            except TestFailure as e:
                failures.append("%s: %s" % (name, e))
                total += len(requests)
                report.append("%-24s did not start" % name)
                for p in peers:
                    p.stop()
                continue
            try:
                ok = 0
                for path, headers, method in normalise(requests):
                    got = []
                    for p in peers:
                        st, fields, data = fetch(p.port, path, headers,
                                                 method)
                        got.append(view(p.port, st, fields, data, False))
                    total += 1
                    if got[0] == got[1]:
                        ok += 1
                    else:
                        diff = {k: (got[0].get(k), got[1].get(k))
                                for k in set(got[0]) | set(got[1])
                                if got[0].get(k) != got[1].get(k)}
                        failures.append("%s %s %s %r: nginx vs nicd %r"
                                        % (name, method, path, headers, diff))
                agree += ok
                report.append("%-24s %d of %d agree" % (name, ok,
                                                       len(requests)))
            finally:
                for p in peers:
                    p.stop()
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("    nginx differential, %d sites:" % len(sites))
    for line in report:
        print("      " + line)
    print("    %d of %d requests agree" % (agree, total))
    check(not failures, "%d requests differ:\n  %s"
          % (len(failures), "\n  ".join(failures)))


def test_configs_nginx_accepts_nicd_accepts():
    """nginx -t and nicd -t agree on every site's file."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    top = tempfile.mkdtemp(prefix="nicd-diff-root-")
    make_docroot(top)
    try:
        for name, body, _ in SITES:
            d = tempfile.mkdtemp(prefix="nicd-diff-t-")
            conf = os.path.join(d, "nginx.conf")
            with open(conf, "w") as f:
                f.write(MAIN % {"d": d, "mime": MIME,
                                "body": body % {"port": free_port(),
                                                "port2": free_port(),
                                                "root": top, "long": LONG}})
            n = subprocess.run([NGINX, "-t", "-p", d, "-c", conf],
                               capture_output=True, timeout=DEADLINE)
            m = subprocess.run([NICD, "-t", "-c", conf], capture_output=True,
                               timeout=DEADLINE)
            check(n.returncode == 0, "nginx -t %s: %s" % (name, n.stderr))
            check(m.returncode == 0, "nicd -t %s: %s" % (name, m.stderr))
            shutil.rmtree(d, ignore_errors=True)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_unknown_directive_named_with_file_and_line():
    d = tempfile.mkdtemp(prefix="nicd-diff-u-")
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write("events { }\nhttp {\n  server {\n    listen 127.0.0.1:%d;\n"
                "    image_filter test;\n  }\n}\n" % free_port())
    m = subprocess.run([NICD, "-t", "-c", conf], capture_output=True,
                       timeout=DEADLINE)
    shutil.rmtree(d, ignore_errors=True)
    err = m.stderr.decode()
    check(m.returncode == 1 and 'unknown directive "image_filter" in %s:5'
          % conf in err, err)


def t_both(text):
    """text written as nginx.conf in a directory of its own and tested by
    nginx -t and nicd -t: (its path, nginx's run, nicd's run)"""
    d = tempfile.mkdtemp(prefix="nicd-diff-t-")
    conf = os.path.join(d, "nginx.conf")
    try:
        with open(conf, "w") as f:
            f.write(text)
        n = subprocess.run([NGINX, "-t", "-p", d, "-c", conf],
                           capture_output=True, timeout=DEADLINE)
        m = subprocess.run([NICD, "-t", "-c", conf], capture_output=True,
                           timeout=DEADLINE)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return conf, n, m


def test_unix_socket_paths_refused_as_nginx():
    """listen unix: without a path, or with one longer than the kernel's
    sun_path holds, fails -t in nginx and in nicd, nicd naming the file,
    the line and why; a path that fits is accepted by both."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    for path, why in (("", "no path"), ("/tmp/" + "a" * 120, "too long")):
        conf, n, m = t_both("events {}\nhttp {\n server { listen unix:%s; }"
                            "\n}\n" % path)
        err = m.stderr.decode()
        check(n.returncode != 0 and m.returncode != 0,
              "unix:%s: nginx -t %d, nicd -t %d" % (path[:20], n.returncode,
                                                   m.returncode))
        check(why in err and "%s:3" % conf in err,
              "nicd -t on unix:%s says %r" % (path[:20], err))
    conf, n, m = t_both("events {}\nhttp {\n server { listen unix:/tmp/"
                        "nicd-t-only.sock; }\n}\n")
    check(n.returncode == 0 and m.returncode == 0,
          "a fitting path: nginx -t %d %r, nicd -t %d %r"
          % (n.returncode, n.stderr, m.returncode, m.stderr))


def test_event_methods_as_nginx():
    """events { use METHOD; }: epoll loads in both (poll, select and
    io_uring in nicd only: Debian's nginx is built without the first two
    and has no third), another system's method and a second "use" fail -t
    in both, nicd saying what nginx says, in which file and line."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    for m in ("epoll", "poll", "select", "io_uring"):
        conf, n, d = t_both("events { use %s; }\nhttp { }\n" % m)
        check((n.returncode == 0) == (m == "epoll") and d.returncode == 0,
              "use %s: nginx -t %d %r, nicd -t %d %r"
              % (m, n.returncode, n.stderr, d.returncode, d.stderr))
    for text, said in (("events { use kqueue; }", 'invalid event type "kqueue"'),
                       ("events { use epoll; use poll; }",
                        '"use" directive is duplicate')):
        conf, n, d = t_both(text + "\nhttp { }\n")
        check(n.returncode != 0 and d.returncode != 0
              and said in n.stderr.decode() and said in d.stderr.decode()
              and "%s:1" % conf in d.stderr.decode(),
              "%s: nginx -t %d %r, nicd -t %d %r"
              % (text, n.returncode, n.stderr, d.returncode, d.stderr))


def test_unresolvable_upstream_named_as_nginx():
    """proxy_pass to a host with no address fails -t in both; nicd says
    which host, in which file and line (its message was lost once)."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    conf, n, m = t_both("events {}\nhttp {\n server { location / { "
                        "proxy_pass http://no-such-host.invalid:8081/; } }"
                        "\n}\n")
    err = m.stderr.decode()
    check(n.returncode != 0 and m.returncode != 0,
          "nginx -t %d, nicd -t %d" % (n.returncode, m.returncode))
    check('host not found in upstream "no-such-host.invalid"' in err
          and "%s:3" % conf in err, "nicd -t says %r" % err)


def test_unknown_variable_fails_t_as_nginx():
    """A template naming no variable fails the configuration at -t, in nginx
    and in nicd (naming it and where the template is), wherever the
    template stands; a "set" later in the file makes the name known."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    bad = ["return 200 $nope;", "add_header X-A $nope_too;",
           "try_files $uri $nope /x;", "if ($nope) { return 404; }",
           "set $a $nope;", "rewrite ^ /$nope;"]
    for line in bad + ["return 200 $later;\n    set $later x;"]:
        conf, n, m = t_both("events { }\nhttp {\n  server {\n    listen "
                               "127.0.0.1:%d;\n    location / {\n    %s\n"
                               "    }\n  }\n}\n" % (free_port(), line))
        err = m.stderr.decode()
        if line in bad:
            name = re.search(r"\$(nope\w*)", line).group(1)
            check(n.returncode != 0 and b"unknown" in n.stderr,
                  "nginx -t took %r: %s" % (line, n.stderr))
            check(m.returncode == 1 and 'unknown "%s" variable in %s:6'
                  % (name, conf) in err, "nicd -t on %r: %s" % (line, err))
        else:
            check(n.returncode == 0, "nginx -t %r: %s" % (line, n.stderr))
            check(m.returncode == 0, "nicd -t %r: %s" % (line, err))


def test_charset_maps_refused_as_nginx():
    """charset_map and charset settings nginx refuses, nicd refuses with
    the same words; Debian's koi-utf, koi-win and win-utf both take."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    bad = ["charset_map a-1 A-1 { }",
           "charset_map a-1 b-1 { }\n  charset_map b-1 a-1 { }",
           "charset_map a-1 b-1 { 5G 41; }",
           "charset_map a-1 b-1 { 41; }",
           "charset_map a-1 b-1 { 41 4142; }",
           "charset_map a-1 utf-8 { 41 F09F9880; }",
           "charset_map a-1 utf-8 { 141 41; }",
           "charset_map a-1 b-1 { }\n  charset c-1; source_charset a-1;",
           "charset a-1; charset b-1;",
           "charset_types;"]
    good = ["include /etc/nginx/koi-utf;\n  include /etc/nginx/koi-win;\n"
            "  include /etc/nginx/win-utf;\n  charset utf-8;\n"
            "  source_charset windows-1251;\n  charset_types *;",
            "charset_map a-1 b-1 { 41 42; }\n  charset A-1;\n"
            "  source_charset b-1; override_charset on;",
            "charset $host;"]
    if not os.path.exists("/etc/nginx/koi-utf"):
        good = good[1:]
    for line in bad + good:
        _, n, m = t_both("events { }\nhttp {\n  %s\n  server {\n    "
                            "listen 127.0.0.1:%d;\n  }\n}\n"
                            % (line, free_port()))
        err = m.stderr.decode()
        if line in bad:
            said = re.search(r"\[emerg\] [0-9#]+: (.*?)(?: in /| at \d|$)",
                             n.stderr.decode(), re.M)
            check(n.returncode != 0 and said is not None,
                  "nginx -t took %r: %s" % (line, n.stderr))
            check(m.returncode == 1 and said.group(1) in err,
                  "nicd -t on %r: %s (nginx: %s)" % (line, err,
                                                     said.group(1)))
        else:
            check(n.returncode == 0, "nginx -t %r: %s" % (line, n.stderr))
            check(m.returncode == 0, "nicd -t %r: %s" % (line, err))
    # utf-8 first: nginx 1.22 reads it as an 8-bit map; later nginx
    # refuses it, as nicd does
    m = subprocess.run([NICD, "-t", "-c", "/dev/stdin"], capture_output=True,
                       input=b"charset_map utf-8 koi8-r { }\n",
                       timeout=DEADLINE)
    check(m.returncode == 1 and b"should be given in the second column"
          in m.stderr, m.stderr)


LOG_SITE = """
    log_format main '$remote_addr - $remote_user [$time_local] "$request" '
                    '$status $body_bytes_sent "$http_referer" '
                    '"$http_user_agent" "$http_x_forwarded_for"';
    log_format js escape=json '{"uri":"$uri","args":"$args","st":$status,'
                              '"ua":"$http_user_agent","m":"$request_method",'
                              '"host":"$host","proto":"$server_protocol"}';
    access_log %(d)s/main.log main;
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        location /rw/ { rewrite ^/rw/(.*)$ /a.txt?from=$1 break; }
    }
"""


def log_peers(body, top):
    """nginx and nicd on body with access logs on, each writing its logs
    in a directory of its own (p.logdir, for "%(d)s" in body)."""
    peers = []
    try:
        for kind in ("nginx", "nicd"):
            d = tempfile.mkdtemp(prefix="nicd-diff-log-")
            p = Peer(kind, body.replace("%(d)s", d), top,
                     MAIN.replace("    access_log off;\n", ""))
            p.logdir = d
            peers.append(p)
    except TestFailure:
        for p in peers:
            p.stop()
        raise
    return peers


def test_log_format_lines_agree_with_nginx():
    """log_format and access_log NAME: nginx's packaged "main" format and
    an escape=json one, the same lines from both servers (the time told
    apart; only 200s, whose bodies are the same size: the built-in pages'
    differ, server-page)."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    top = tempfile.mkdtemp(prefix="nicd-diff-root-")
    make_docroot(top)
    lines = {}
    try:
        for fmt in ("main", "js"):
            body = LOG_SITE.replace("main.log main", "main.log %s" % fmt)
            peers = log_peers(body, top)
            for p in peers:
                for path, headers in (
                        ("/a.txt", {"User-Agent": 'x "quoted" \\ ua'}),
                        ("/a.txt?q=1&r=2", {"Referer": "http://r/"}),
                        ("/sub/", {"X-Forwarded-For": "10.0.0.1"}),
                        ("/a.txt", {"Authorization": "Basic dXNlcjpwdw=="}),
                        ("/%61.txt", {"Host": "named.example"}),
                        ("/rw/x?q=1", {})):
                    fetch(p.port, path, headers, "GET")
            for p in peers:
                log = os.path.join(p.logdir, "main.log")
                p.stop()
                text = open(log).read()
                text = re.sub(r"\[\d\d/\w\w\w/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\]",
                              "[TIME]", text)
                lines.setdefault(fmt, []).append(text)
                shutil.rmtree(p.logdir, ignore_errors=True)
            check(lines[fmt][0] == lines[fmt][1] and lines[fmt][0],
                  "%s lines differ:\nnginx:\n%s\nnicd:\n%s"
                  % (fmt, lines[fmt][0], lines[fmt][1]))
    finally:
        shutil.rmtree(top, ignore_errors=True)


LOGS_SITE = """
    log_format t '$host $request_method $request_uri $status';
    map $status $loggable { ~^[23] 1; default 0; }
    map $arg_quiet $noisy { 1 0; default 1; }
    access_log %(d)s/http.log t;
    server {
        listen 127.0.0.1:%(port)d;
        server_name a.example;
        root %(root)s/www;
        access_log %(d)s/a.log t;
        access_log %(d)s/a-ok.log t if=$loggable;
        location /quiet/ { access_log off; return 200 "q\\n"; }
        location /both/ {
            access_log %(d)s/a.log t;
            access_log %(d)s/both.log t if=$noisy;
            return 200 "b\\n";
        }
        location /by/ {
            open_log_file_cache max=2 min_uses=2;
            access_log %(d)s/by-$arg_to.log t;
            return 200 "v\\n";
        }
    }
    server {
        listen 127.0.0.1:%(port)d;
        server_name b.example;
        root %(root)s/www;
    }
"""


def test_access_logs_per_server_and_if_agree_with_nginx():
    """access_log per server and location (several at a level, off, taken
    from the enclosing level), if= on a map of $status and paths with
    variables: the same lines in the same files from nginx and nicd."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    top = tempfile.mkdtemp(prefix="nicd-diff-root-")
    make_docroot(top)
    files = ("http.log", "a.log", "a-ok.log", "both.log", "by-x.log",
             "by-y.log", "by-.log")
    got = {}
    try:
        peers = log_peers(LOGS_SITE, top)
        for p in peers:
            for path, host in (("/a.txt", "a.example"),
                               ("/missing", "a.example"),
                               ("/quiet/", "a.example"),
                               ("/both/", "a.example"),
                               ("/both/?quiet=1", "a.example"),
                               ("/a.txt", "b.example"),
                               ("/missing", "b.example"),
                               ("/sub", "a.example"),
                               ("/by/?to=x", "a.example"),
                               ("/by/?to=y", "a.example"),
                               ("/by/?to=x", "a.example"),
                               ("/by/", "a.example")):
                fetch(p.port, path, {"Host": host}, "GET")
        for p in peers:
            p.stop()
            got[p.kind] = {}
            for f in files:
                try:
                    got[p.kind][f] = open(os.path.join(p.logdir, f)).read()
                except OSError:
                    got[p.kind][f] = None
            shutil.rmtree(p.logdir, ignore_errors=True)
        for f in files:
            check(got["nginx"][f] == got["nicd"][f],
                  "%s differs:\nnginx:\n%s\nnicd:\n%s"
                  % (f, got["nginx"][f], got["nicd"][f]))
        check(got["nicd"]["a.log"] and got["nicd"]["both.log"],
              "nothing logged: %r" % got["nicd"])
    finally:
        shutil.rmtree(top, ignore_errors=True)


FRAMING = [
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
    b"Content-Length: 1\r\n\r\nx",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 1\r\n\r\nx",
    b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity, chunked"
    b"\r\n\r\n0\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked"
    b"\r\n\r\n0\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"0\r\n\r\n",
    # methods: upper-case letters, "_" and "-" (nginx's), else a 400
    b"get / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"FOO / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"M-SEARCH_X / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GE.T / HTTP/1.1\r\nHost: x\r\n\r\n",
    # TRACE: 405 before any location; a fragment: left out
    b"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /#frag HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /nothing#frag HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET http://x?a#frag HTTP/1.1\r\nHost: x\r\n\r\n",
]


def status_of(port, data):
    s = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    s.sendall(data)
    got = recv_until(s, lambda b: b"\r\n" in b)
    s.close()
    return int(got.split()[1]) if got else None


def test_framing_agrees_with_nginx():
    """Request framing as strict as nginx's (issue 32): duplicate and
    listed Content-Length, Transfer-Encoding lists, both at once."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    top = tempfile.mkdtemp(prefix="nicd-diff-root-")
    make_docroot(top)
    body = "server { listen 127.0.0.1:%(port)d; root %(root)s/www; }"
    peers = []
    try:
        for kind in ("nginx", "nicd"):
            peers.append(Peer(kind, body, top))  # stopped even if one fails
        for data in FRAMING:
            got = [status_of(p.port, data) for p in peers]
            check(got[0] == got[1], "%r: nginx %s, nicd %s"
                  % (data, got[0], got[1]))
    finally:
        for p in peers:
            p.stop()
        shutil.rmtree(top, ignore_errors=True)


TRAILER_SITE = """
    server {
        listen 127.0.0.1:%(port)d;
        root %(root)s/www;
        add_trailer X-Var $host;
        add_trailer X-Always yes always;
        add_trailer X-Empty '';
        add_trailer X-Sent $sent_http_accept_ranges;
        add_trailer X-Again $sent_trailer_x_var:$sent_trailer_X_Always;
        location /own { add_trailer X-Own yes; }
        location /plain { chunked_transfer_encoding off; }
        location /v {
            return 200 "[$http_x_forwarded_for][$http_cookie][$http_foo]";
        }
    }
"""

TRAILER_REQUESTS = [
    b"GET /a.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /missing HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /own HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /plain/ HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /a.txt HTTP/1.0\r\nHost: t\r\n\r\n",
    b"HEAD /a.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /a.txt HTTP/1.1\r\nHost: t\r\nRange: bytes=0-1\r\n"
    b"Connection: close\r\n\r\n",
    b"GET /v HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: a\r\n"
    b"X-Forwarded-For: b\r\nCookie: c=1\r\nCookie: d=2\r\n"
    b"Connection: close\r\n\r\n",
    b"GET /v HTTP/1.1\r\nHost: t\r\nIf-Match: a\r\nIf-Match: b\r\n"
    b"Connection: close\r\n\r\n",
    b"GET /v HTTP/1.1\r\nHost: t\r\nExpect: a\r\nExpect: b\r\n"
    b"Connection: close\r\n\r\n",
    b"GET /v HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: foo\r\n"
    b"Transfer-Encoding: bar\r\nConnection: close\r\n\r\n",
]


def framing_and_trailers(data):
    """(status, framing, body, trailer fields) of a raw response: the
    framing field names, the body de-chunked, the trailers sorted"""
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    fields = [ln.split(b":")[0].lower() for ln in lines[1:]]
    framing = sorted(f for f in fields
                     if f in (b"content-length", b"transfer-encoding"))
    body, trailers = rest, []
    if b"transfer-encoding" in fields:
        body = b""
        while True:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            body += rest[:n]
            rest = rest[n + 2:]
        trailers = sorted(t for t in rest.split(b"\r\n") if t)
    body = re.sub(rb"(nginx|nicd)/[0-9.]+", b"SERVER", body)
    return lines[0].split()[1], framing, body, trailers


def test_trailers_and_joined_fields_agree_with_nginx():
    """add_trailer: the same trailer sections as nginx (values taken at
    the body's end, $sent_trailer_NAME, always, empty values left out),
    the same framing (chunked where trailers follow; not for HTTP/1.0,
    HEAD or chunked_transfer_encoding off); $http_ of repeated fields
    joined; a repeated field nginx takes once is a 400."""
    if not os.path.exists(NGINX):
        raise Skip("nginx is not installed (scripts/deps.sh test)")
    top = tempfile.mkdtemp(prefix="nicd-diff-root-")
    make_docroot(top)
    peers = []
    try:
        for kind in ("nginx", "nicd"):
            peers.append(Peer(kind, TRAILER_SITE, top))
        for data in TRAILER_REQUESTS:
            got = [framing_and_trailers(raw(p.port, data)) for p in peers]
            check(got[0] == got[1], "%r: nginx %r, nicd %r"
                  % (data, got[0], got[1]))
    finally:
        for p in peers:
            p.stop()
        shutil.rmtree(top, ignore_errors=True)

