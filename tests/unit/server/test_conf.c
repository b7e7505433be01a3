/* Unit tests of src/server/conf.c */

#include <stdlib.h>
#include <unistd.h>

#include "../../../src/server/conf.c"
#include "harness.h"

static char err[1024];

static nicd_conf_t *
load(const char *text)
{
    nicd_conf_t *c = nicd_conf_new();

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
    CHECK_INT(c->nindex, 1);
    CHECK_STR(c->index[0], "index.html");
    CHECK_INT(c->keepalive_timeout, 75000);
    CHECK_INT(c->open_file_cache_max, 0);
    CHECK(c->access_log == NULL);
    CHECK_STR(nicd_conf_mime(c, "/a/b.HTML", 9), "text/html");
    CHECK_STR(nicd_conf_mime(c, "/a.b/c", 6), "text/plain");
    nicd_conf_free(c);
}

static void
test_nginx_shape(void)
{
    nicd_conf_t *c = load(
        "worker_processes 2;\n"
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
    CHECK_STR(nicd_conf_mime(c, "x.txt", 5), "application/octet-stream");
    CHECK_INT(c->open_file_cache_max, 10);
    CHECK_INT(c->open_file_cache_valid, 0);
    CHECK_INT(c->open_file_cache_inactive, 5000);
    CHECK_STR(c->access_log, "/tmp/x.log");
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
    CHECK_STR(c->root, "/srv/my www");
    CHECK_INT(c->nindex, 2);
    CHECK_STR(c->index[1], "index.html");
    CHECK_INT(c->keepalive_timeout, 5000);
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
        {"location / { root /a; }",
         "a location holds exactly one handler: a report (such as "
         "\"nic_metrics;\" or \"nic_status;\") or "
         "\"lua_content_handler FILE;\"; files are served from the root in "
         "test.conf:1"},
        {"location /x/ { lua_content_handler /nonexistent.lua; }",
         "lua_content_handler: cannot open /nonexistent.lua: No such file or "
         "directory in test.conf:1"},
        {"location ~ \\.php$ { nic_status; }",
         "\"location\" takes [=] PATH (regular expressions and other "
         "modifiers are not supported) in test.conf:1"},
        {"location = x { nic_status; }",
         "a location's path must start with \"/\" in test.conf:1"},
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

    c = nicd_conf_new();
    CHECK_INT(nicd_conf_parse_file(c, path, err, sizeof(err)), 0);
    CHECK_STR(nicd_conf_mime(c, "a.inc", 5), "text/x-inc");
    a[0] = "/other";
    CHECK_INT(nicd_conf_set(c, "root", a, 1, err, sizeof(err)), 0);
    CHECK_STR(c->root, "/other");
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

int
main(void)
{
    RUN(test_defaults);
    RUN(test_nginx_shape);
    RUN(test_errors_name_file_line_directive);
    RUN(test_include_and_set);
    RUN(test_listen_parse);
    return harness_report("test_conf");
}
