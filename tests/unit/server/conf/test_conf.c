/* Unit tests of src/server/conf/conf.c */

#include <stdlib.h>
#include <unistd.h>

#include "server/conf/conf.c"
#include "harness.h"
#include "server/http/keepalive.h"
#include "server/http/listen.h"
#include "server/http/lookup.h"
#include "server/modules/modules.h"

static char err[1024];

static nicd_conf_t *
load(const char *text)
{
    nicd_conf_t *c = nicd_conf_new(nicd_modules);

    err[0] = '\0';
    if (nicd_conf_parse_string(c, text, "test.conf", err, sizeof(err)) != 0
        || nicd_conf_finish(c, err, sizeof(err)) != 0) {
        nicd_conf_free(c);
        return NULL;
    }
    return c;
}

static void
test_defaults(void)
{
    nicd_conf_t *c = load("");

    CHECK(c != NULL);
    if (c == NULL) {
        return;
    }
    CHECK_INT(c->nlistens, 1);
    CHECK_STR(c->listens[0].text, "127.0.0.1:8080");
    CHECK_STR(c->backend, "sendfile");
    CHECK_INT(c->nservers, 1);

    CHECK_STR(c->http->root, "html");
    CHECK_STR(c->http->default_type, "text/plain");
    CHECK_INT(nicd_keepalive_conf(c->http)->timeout, 75000);
    CHECK_INT(nicd_keepalive_conf(c->http)->header, -1);
    CHECK_INT(c->open_file_cache_max, 0);
    CHECK_INT(c->naccess_paths, 0); /* the logs: test_log_format.c */
    CHECK_STR(nicd_conf_mime(c, "/a/b.HTML", 9), "text/html");
    CHECK(nicd_conf_mime(c, "/a.b/c", 6) == NULL);
    nicd_conf_free(c);
}

static void
test_nginx_shape(void)
{
    nicd_conf_t *c =
        load("worker_processes 2;\n"
             "events { worker_connections 100; }\n"
             "http {\n"
             "  types { text/x-foo foo FOO2; image/png png; }\n"
             "  default_type application/octet-stream;\n"
             "  sendfile on; tcp_nopush on;\n"
             "  open_file_cache max=10 valid=0 inactive=5s;\n"
             "  access_log /tmp/x.log combined buffer=32k flush=2s;\n"
             "  # a comment; with { braces }\n"
             "  server {\n"
             "    listen 127.0.0.1:0 reuseport backlog=64 sndbuf=32k nic=1 "
             "notsent_lowat=off;\n"
             "    listen [::1]:8081 notsent_lowat=16k;\n"
             "    listen 127.0.0.1:8082;\n"
             "    server_name example.com;\n"
             "    root \"/srv/my www\";\n"
             "    index index.htm 'index.html';\n"
             "    keepalive_timeout 5s 5;\n"
             "  }\n"
             "}\n");

    CHECK(c != NULL);
    if (c == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(c->worker_threads, 2);
    CHECK_INT(c->worker_connections, 100);
    CHECK_STR(nicd_conf_mime(c, "x.foo", 5), "text/x-foo");
    CHECK_STR(nicd_conf_mime(c, "x.foo2", 6), "text/x-foo");
    CHECK(nicd_conf_mime(c, "x.txt", 5) == NULL);
    CHECK_STR(c->http->default_type, "application/octet-stream");
    CHECK_INT(c->open_file_cache_max, 10);
    CHECK_INT(c->open_file_cache_valid, 0);
    CHECK_INT(c->open_file_cache_inactive, 5000);
    CHECK_INT(c->naccess_paths, 1);
    CHECK_STR(c->access_paths[0], "/tmp/x.log");
    CHECK_INT(c->access_log_buffer, 32768);
    CHECK_INT(c->nlistens, 3);
    CHECK_INT(c->listens[0].backlog, 64);
    CHECK_INT(c->listens[0].nic, 1);
    CHECK_INT(c->listens[0].sndbuf, 32768);
    CHECK_INT(c->listens[1].sndbuf, 0);
    CHECK_INT(c->listens[0].lowat, 0);
    CHECK_INT(c->listens[1].lowat, 16384);
    CHECK_INT(c->listens[2].lowat, NICD_NOTSENT_LOWAT);
    CHECK_INT(c->listens[1].addr.ss_family, AF_INET6);
    CHECK_INT(c->nservers, 1);
    CHECK_STR(c->servers[0]->loc->root, "/srv/my www");

    CHECK_STR(c->servers[0]->loc->default_type, "application/octet-stream");
    /* written at the top level: the implicit server's */
    CHECK_INT(nicd_keepalive_conf(c->servers[0]->loc)->timeout, 5000);
    CHECK_INT(nicd_keepalive_conf(c->servers[0]->loc)->header, 5);
    nicd_conf_free(c);
}

static void
test_errors_name_file_line_directive(void)
{
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"root /a;\nfoo bar;\n", "unknown directive \"foo\" in test.conf:2"},
        {"root;", "invalid number of arguments in \"root\" directive in "
                  "test.conf:1"},
        {"\n\nlisten nowhere;",
         "invalid address \"nowhere\" in \"listen\" directive in test.conf:3"},
        {"listen 8080 sndbuf=0;",
         "invalid \"sndbuf=0\" in \"listen\" directive in test.conf:1"},
        {"listen 8080 notsent_lowat=0;",
         "invalid \"notsent_lowat=0\" in \"listen\" directive in "
         "test.conf:1"},
        {"listen 8080 sndbuf=lots;",
         "invalid size \"lots\" in \"listen\" directive in test.conf:1"},
        {"keepalive_timeout 5x;",
         "invalid time \"5x\" in \"keepalive_timeout\" directive in "
         "test.conf:1"},
        {"sendfile_max_chunk big;",
         "invalid size \"big\" in \"sendfile_max_chunk\" directive in "
         "test.conf:1"},
        {"autoindex maybe;", "invalid value \"maybe\", it must be \"on\" or "
                             "\"off\" in \"autoindex\" directive in "
                             "test.conf:1"},
        {"send_backend warp;", "unknown send backend \"warp\" (nicd -V lists "
                               "them) in \"send_backend\" directive in "
                               "test.conf:1"},
        {"http {\nroot /a;\n", "unexpected end of file, expecting \"}\" in "
                               "test.conf:3"},
        {"root /a }", "unexpected \"}\" in test.conf:1"},
        {"root \"/a;", "unexpected end of file, expecting \" in test.conf:1"},
        {"location /x/ { lua_content_handler /nonexistent.lua; }",
         "cannot open /nonexistent.lua: No such file or directory in "
         "\"lua_content_handler\" directive in test.conf:1"},
        {"location ~ \"(\" { }",
         "pcre2_compile() failed: missing closing parenthesis in \"(\" at "
         "\"\" in test.conf:1"},
        {"location /x/ { nic_status; nic_metrics; }",
         "\"nic_metrics\" is duplicate: the location already has "
         "\"nic_status\" in test.conf:1"},
        {"http { location / { } }",
         "\"location\" directive is not allowed in http in test.conf:1"},
        {"location /a/ {\n listen 80; }",
         "\"listen\" directive is not allowed in location in test.conf:2"},
        {"http { server { alias /x; } }",
         "\"alias\" directive is not allowed in server in test.conf:1"},
        {"location /a/ { location /b/ { } }",
         "location \"/b/\" is outside location \"/a/\" in test.conf:1"},
        {"location @a { location /b { } }",
         "location \"/b\" cannot be inside the named location \"@a\" in "
         "test.conf:1"},
        {"location /a/ { location @b { } }",
         "named location \"@b\" can be on the server level only in "
         "test.conf:1"},
        {"location ^^ /a/ { }",
         "invalid location modifier \"^^\" in test.conf:1"},
        {"listen 80 default_server;\nhttp { server { listen 80 "
         "default_server; } }",
         "a duplicate default server for 80 in \"listen\" directive in "
         "test.conf:2"},
        {"location /a/ { root /x; alias /y; }",
         "\"alias\" directive is duplicate, \"root\" was specified earlier "
         "in \"alias\" directive in test.conf:1"},
        {"rewrite ^/a( /b;",
         "pcre2_compile() failed: missing closing parenthesis in \"^/a(\" at "
         "\"\" in \"rewrite\" directive in test.conf:1"},
        {"return abc;", "invalid return code \"abc\" in \"return\" "
                        "directive in test.conf:1"},
        {"try_files $uri;", "invalid number of arguments in \"try_files\" "
                            "directive in test.conf:1"},
        {"try_files $uri =4x;", "invalid code \"=4x\" in \"try_files\" "
                                "directive in test.conf:1"},
        {"autoindex_format yaml;",
         "invalid value \"yaml\", it must be \"html\", \"xml\", \"json\" or "
         "\"jsonp\" in \"autoindex_format\" directive in test.conf:1"},
        {"server_tokens maybe;",
         "invalid value \"maybe\", it must be \"on\", \"off\" or \"build\" "
         "in \"server_tokens\" directive in test.conf:1"},
        {"max_headers 0;",
         "invalid number \"0\" in \"max_headers\" directive in test.conf:1"},
        {"random_index maybe;",
         "\"random_index\" directive is not allowed in the top level in "
         "test.conf:1"},
        {"location / { log_not_found maybe; }",
         "invalid value \"maybe\", it must be \"on\" or \"off\" in "
         "\"log_not_found\" directive in test.conf:1"},
        {"ssl_verify_client sometimes;",
         "invalid value \"sometimes\", it must be \"off\", \"on\", "
         "\"optional\" or \"optional_no_ca\" in \"ssl_verify_client\" "
         "directive in test.conf:1"},
        {"ssl_password_file /nonexistent/pw;",
         "cannot open \"/nonexistent/pw\": No such file or directory in "
         "\"ssl_password_file\" directive in test.conf:1"},
        {"geo $g { 10.0.0.0/33 x; }",
         "invalid network \"10.0.0.0/33\" in \"geo\" in test.conf:1"},
        {"geo $g { ranges; 10.0.0.9-10.0.0.1 x; }",
         "invalid range \"10.0.0.9-10.0.0.1\" in \"geo\" in test.conf:1"},
        {"geo $g { default; }",
         "invalid number of the geo parameters in \"geo\" in test.conf:1"},
        {"geo g { }",
         "invalid variable name \"g\" in \"geo\" directive in test.conf:1"},
        {"map $a $m { hostnames; *x y; }",
         "invalid hostname or wildcard \"*x\" in \"map\" in test.conf:1"},
        {"map $a $m { include /nonexistent/m.map; }",
         "open() \"/nonexistent/m.map\" failed (No such file or directory) "
         "in test.conf:1"},
        {"disable_symlinks maybe;",
         "invalid parameter \"maybe\" in \"disable_symlinks\" directive in "
         "test.conf:1"},
        {"disable_symlinks from=/a;",
         "\"disable_symlinks\" must have \"off\", \"on\" or "
         "\"if_not_owner\" parameter in test.conf:1"},
        {"disable_symlinks off from=/a;",
         "\"from=\" cannot be used with \"off\" parameter in "
         "\"disable_symlinks\" directive in test.conf:1"},
        {"disable_symlinks on off;",
         "duplicate parameters \"on off\" in \"disable_symlinks\" directive "
         "in test.conf:1"},
        {"disable_symlinks on; disable_symlinks off;",
         "\"disable_symlinks\" directive is duplicate in test.conf:1"},
        {"location / { if ($x) { root /a; } }",
         "\"root\" directive is not allowed in if in test.conf:1"},
        {"location / { if $x { return 404; } }",
         "invalid condition \"$x\" in \"if\" directive in test.conf:1"},
        {"location / { if ($x == y) { return 404; } }",
         "unexpected \"==\" in condition in \"if\" directive in "
         "test.conf:1"},
        {"location / { if (-z $x) { return 404; } }",
         "invalid condition \"-z\" in \"if\" directive in test.conf:1"},
        {"location / { if ($x ~ \"(\") { return 404; } }",
         "pcre2_compile() failed: missing closing parenthesis in \"(\" at "
         "\"\" in \"if\" directive in test.conf:1"},
        {"location / { if ($x); }",
         "directive \"if\" has no opening \"{\" in test.conf:1"},
        {"http { if ($x) { return 404; } }",
         "\"if\" directive is not allowed in http in test.conf:1"},
        {"http { nic_cache_size 1m; server { nic_cache_size 2m; } }",
         "\"nic_cache_size\" directive is not allowed here (a send backend's "
         "settings apply to every server: put it in http {}) in test.conf:1"},
        {"open_file_cache valid=1s;", "\"max\" parameter is required in "
                                      "\"open_file_cache\" directive in "
                                      "test.conf:1"},
        {"include /nonexistent/x.conf;",
         "open() \"/nonexistent/x.conf\" failed (No such file or directory) "
         "in test.conf:1"},
        {"listen 80;\nlisten 80;", "duplicate listen 80 in \"listen\" "
                                   "directive in test.conf:2"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        nicd_conf_t *c = load(cases[i].text);
        CHECK(c == NULL);
        if (strcmp(err, cases[i].msg) != 0) {
            fprintf(stderr, "case %zu: got '%s'\n", i, err);
        }
        CHECK_STR(err, cases[i].msg);
        nicd_conf_free(c);
    }
}

static void
test_include_and_set(void)
{
    char         dir[] = "/tmp/nicd-conf-XXXXXX";
    char         path[256];
    FILE        *f;
    nicd_conf_t *c;
    const char  *a[1];

    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/types.conf", dir);
    f = fopen(path, "w");
    fputs("types {\n  text/x-inc inc;\n}\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/main.conf", dir);
    f = fopen(path, "w");
    fputs("include types.conf;\nroot /srv;\n", f);
    fclose(f);

    c = nicd_conf_new(nicd_modules);
    CHECK_INT(nicd_conf_parse_file(c, path, err, sizeof(err)), 0);
    CHECK_STR(nicd_conf_mime(c, "a.inc", 5), "text/x-inc");
    CHECK_STR(c->http->root, "/srv");
    a[0] = "text/x-other";
    CHECK_INT(nicd_conf_set(c, "default_type", a, 1, err, sizeof(err)), 0);
    CHECK_STR(c->http->default_type, "text/x-other");
    a[0] = "/other";
    CHECK_INT(nicd_conf_set(c, "root", a, 1, err, sizeof(err)), -1);
    CHECK_STR(err, "\"root\" directive is duplicate");
    CHECK_INT(nicd_conf_set(c, "nonsense", a, 1, err, sizeof(err)), -1);
    CHECK_STR(err, "unknown directive \"nonsense\"");
    nicd_conf_free(c);

    unlink(path);
    snprintf(path, sizeof(path), "%s/types.conf", dir);
    unlink(path);
    rmdir(dir);
}

static void
test_listen_parse(void)
{
    nicd_listen_conf_t l;

    CHECK_INT(nicd_listen_parse(&l, "8080"), 0);
    CHECK_INT(l.addr.ss_family, AF_INET);
    CHECK_INT(nicd_listen_parse(&l, "*:80"), 0);
    CHECK_INT(nicd_listen_parse(&l, "localhost:80"), 0);
    CHECK_INT(nicd_listen_parse(&l, "[::]:80"), 0);
    CHECK_INT(l.addr.ss_family, AF_INET6);
    CHECK_INT(nicd_listen_parse(&l, "1.2.3.4:65536"), -1);
    CHECK_INT(nicd_listen_parse(&l, "1.2.3:80"), -1);
    CHECK_INT(nicd_listen_parse(&l, "[::1]80"), -1);
    CHECK_INT(nicd_listen_parse(&l, "host:"), -1);
}

/* which location answers uri, by its name ("" for the server's own) */
static const char *
where(const nicd_conf_t *c, int srv, const char *uri)
{
    static pcre2_match_data *md;
    const nicd_loc_conf_t   *l;

    if (md == NULL) {
        md = pcre2_match_data_create(10, NULL);
    }
    l = nicd_conf_find_location(c->servers[srv], uri, strlen(uri), md, NULL);
    return l->kind == NICD_LOC_SERVER ? "" : l->name;
}

/* nginx's order: "=" exact, longest prefix and its nested locations,
 * "^~" stopping regexes, regexes in file order (nested ones first) */
static void
test_locations(void)
{
    nicd_conf_t *c = load("http { server {\n"
                          "  location / { }\n"
                          "  location = / { }\n"
                          "  location /docs/ { location /docs/api/ { }\n"
                          "                    location ~ \\.md$ { } }\n"
                          "  location ^~ /static/ { }\n"
                          "  location ~* \\.(png|JPG)$ { }\n"
                          "  location ~ \\.png$ { }\n"
                          "  location @fallback { }\n"
                          "} }\n");

    CHECK(c != NULL);
    if (c == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_STR(where(c, 0, "/"), "/");
    CHECK_STR(c->servers[0]->loc->locs[1]->name, "/");
    CHECK_INT(
        nicd_conf_find_location(c->servers[0], "/", 1, NULL, NULL)->kind,
        NICD_LOC_EXACT);
    CHECK_STR(where(c, 0, "/index.html"), "/");
    CHECK_STR(where(c, 0, "/docs/x"), "/docs/");
    CHECK_STR(where(c, 0, "/docs/api/y"), "/docs/api/");
    CHECK_STR(where(c, 0, "/docs/a.md"), "\\.md$");
    CHECK_STR(where(c, 0, "/docs/a.png"), "\\.(png|JPG)$");
    CHECK_STR(where(c, 0, "/static/a.png"), "/static/");
    CHECK_STR(where(c, 0, "/img/A.PNG"), "\\.(png|JPG)$");
    CHECK_STR(where(c, 0, "/img/a.jpg"), "\\.(png|JPG)$");
    CHECK(nicd_conf_named(c->servers[0], "@fallback") != NULL);
    CHECK(nicd_conf_named(c->servers[0], "@other") == NULL);
    nicd_conf_free(c);

    /* no "/" location: the server's own settings */
    c = load("location /a/ { }");
    CHECK(c != NULL);
    if (c != NULL) {
        CHECK_STR(where(c, 0, "/b"), "");
        nicd_conf_free(c);
    }

    /* nginx's automatic redirect: "/app" of a proxied "/app/", over a
     * shorter prefix and the regexes; a static "/st/" has none */
    c = load("location / { }\n"
             "location /app/ { proxy_pass http://127.0.0.1:9; }\n"
             "location /st/ { }\n"
             "location ~ app { }\n");
    CHECK(c != NULL);
    if (c != NULL) {
        int                    redirect = -1;
        const nicd_loc_conf_t *l =
            nicd_conf_find_location(c->servers[0], "/app", 4, NULL, &redirect);

        CHECK_STR(l->name, "/app/");
        CHECK_INT(redirect, 1);
        l = nicd_conf_find_location(c->servers[0], "/st", 3, NULL, &redirect);
        CHECK_STR(l->name, "/");
        CHECK_INT(redirect, 0);
        l = nicd_conf_find_location(c->servers[0], "/app/x", 6, NULL,
                                    &redirect);
        CHECK_STR(l->name, "/app/");
        CHECK_INT(redirect, 0);
        nicd_conf_free(c);
    }
}

/* servers by address, then Host: exact, *.leading, trailing.*, ~regex,
 * else the default_server, else the first */
static void
test_servers(void)
{
    nicd_conf_t *c = load(
        "http {\n"
        "  server { listen 127.0.0.1:1; server_name first; root /1; }\n"
        "  server { listen 127.0.0.1:1 default_server; server_name dflt; }\n"
        "  server { listen 127.0.0.1:1; server_name *.w.test w.test; }\n"
        "  server { listen 127.0.0.1:1; server_name www.t.*; }\n"
        "  server { listen 127.0.0.1:1; server_name ~^re[0-9]+$; }\n"
        "  server { listen 127.0.0.1:2; server_name other; }\n"
        "  root /http;\n"
        "}\n");
    const nicd_server_conf_t *s;

    CHECK(c != NULL);
    if (c == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(c->nlistens, 2);
    CHECK_INT(c->listen_nservers[0], 5);
    CHECK_STR(nicd_conf_find_server(c, 0, NULL, 0, NULL)->names[0], "dflt");
    CHECK_STR(nicd_conf_find_server(c, 0, "nobody", 6, NULL)->names[0], "dflt");
    CHECK_STR(nicd_conf_find_server(c, 0, "FIRST", 5, NULL)->names[0], "first");
    CHECK_STR(nicd_conf_find_server(c, 0, "a.w.test", 8, NULL)->names[0],
              "*.w.test");
    CHECK_STR(nicd_conf_find_server(c, 0, "w.test", 6, NULL)->names[0],
              "*.w.test");
    CHECK_STR(nicd_conf_find_server(c, 0, "www.t.org", 9, NULL)->names[0],
              "www.t.*");
    CHECK_STR(nicd_conf_find_server(c, 0, "re42", 4, NULL)->names[0],
              "~^re[0-9]+$");
    CHECK_STR(nicd_conf_find_server(c, 0, "rex", 3, NULL)->names[0], "dflt");
    s = nicd_conf_find_server(c, 1, "first", 5, NULL);
    CHECK_STR(s->names[0], "other");
    /* each server its own root, inherited from http where unset */
    CHECK_STR(c->servers[0]->loc->root, "/1");
    CHECK_STR(c->servers[1]->loc->root, "/http");
    nicd_conf_free(c);
}

/* include with a glob: every match in name order; none is no error */
static void
test_include_glob(void)
{
    char         dir[] = "/tmp/nicd-glob-XXXXXX";
    char         path[256], text[512];
    FILE        *f;
    nicd_conf_t *c;
    int          i;

    CHECK(mkdtemp(dir) != NULL);
    for (i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%c.conf", dir, 'a' + i);
        f = fopen(path, "w");
        fprintf(f, "server { listen 127.0.0.1:%d; server_name s%d; }\n", 10 + i,
                i);
        fclose(f);
    }
    snprintf(text, sizeof(text),
             "http { include %s/*.conf; include %s/none-*.conf; }", dir, dir);
    c = load(text);
    CHECK(c != NULL);
    if (c != NULL) {
        CHECK_INT(c->nservers, 2);
        CHECK_STR(c->servers[0]->names[0], "s0");
        CHECK_STR(c->servers[1]->names[0], "s1");
        nicd_conf_free(c);
    }
    for (i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%c.conf", dir, 'a' + i);
        unlink(path);
    }
    rmdir(dir);
}

/* a backslash stays before other characters, as nginx reads it */
static void
test_backslash(void)
{
    nicd_conf_t *c = load("location ~ \\.php$ { }\n"
                          "location ~ \"\\.x\\\"y\" { }\n");

    CHECK(c != NULL);
    if (c != NULL) {
        CHECK_STR(c->http->locs[0]->name, "\\.php$");
        CHECK_STR(c->http->locs[1]->name, "\\.x\"y");
        nicd_conf_free(c);
    }
}

int
main(void)
{
    RUN(test_defaults);
    RUN(test_nginx_shape);
    RUN(test_errors_name_file_line_directive);
    RUN(test_include_and_set);
    RUN(test_listen_parse);
    RUN(test_locations);
    RUN(test_servers);
    RUN(test_include_glob);
    RUN(test_backslash);
    return harness_report("test_conf");
}
