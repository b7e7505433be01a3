/*
 * Unit tests of src/server/http/phases.c: the request path through a
 * loopback connection (tests/unit/loopback.h), a configuration and a
 * docroot of its own: rewrite last and break, return, try_files,
 * error_page, the internal redirect cap, variables and captures,
 * pipelined requests answered in order, and the log phase's handlers.
 */

#include "server/http/phases.c"
#include "server/http/filter.h"
#include "harness.h"
#include "loopback.h"

static char          root[64];
static nicd_cycle_t  cycle;
static nicd_worker_t worker;
static nicd_buf_t    out;

/* a file of the docroot */
static void
put(const char *name, const char *text)
{
    loopback_put(root, name, text, strlen(text));
}

static int
setup(void)
{
    char text[4096], err[512];

    strcpy(root, "/tmp/nicd-phases-XXXXXX");
    if (mkdtemp(root) == NULL) {
        return -1;
    }
    log_error_open("/dev/null", LOG_ERR); /* the cap's line, expected */
    put("a.txt", "file a\n");
    put("404.html", "custom not found\n");
    snprintf(
        text, sizeof(text),
        "error_log /dev/null; access_log off; listen 127.0.0.1:1;"
        " root %s;"
        " error_page 404 /404.html;"
        " location /r/ { rewrite ^/r/(.*)$ /t/$1 last; }"
        " location /t/ { return 200 \"t=$uri\"; }"
        " location /b/ { rewrite ^/b/(.*)$ /$1 break; return 200 \"no\"; }"
        " location = /go { return 301 /elsewhere; }"
        " location = /teapot { return 418; }"
        " location /tf/ { try_files $uri /a.txt =404; }"
        " location /tf2/ { try_files /nope =410; }"
        " location /loop/ { rewrite ^ /loop/ last; }"
        " location /c/ { if ($uri ~ ^/c/(\\w+)/(\\d+)$) {"
        " return 200 \"$2-$1 $arg_q $cookie_k\"; } }"
        " location /s/ { set $v \"$request_method:$args\"; return 200 $v; }"
        " location /sh/ { add_header X-Echo \"t=$sent_http_content_type\";"
        " add_header X-Len $sent_http_content_length; return 200 \"four\"; }",
        root);
    if (loopback_cycle(&cycle, &worker, text, "sendfile", err, sizeof(err))
        != 0) {
        fprintf(stderr, "test_phases: %s\n", err);
        return -1;
    }
    return 0;
}

/* GET path (with more header lines, "" for none), answered and closed */
static const char *
get(const char *path, const char *more)
{
    char req[1024];

    snprintf(req, sizeof(req),
             "GET %s HTTP/1.1\r\nHost: t\r\n%sConnection: close\r\n\r\n", path,
             more);
    return loopback_request(&worker, 0, req, &out) == 0 ? out.data : "";
}

static int
starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int
body_is(const char *resp, const char *body)
{
    const char *b = strstr(resp, "\r\n\r\n");

    return b != NULL && strcmp(b + 4, body) == 0;
}

static void
test_rewrite_last_and_break(void)
{
    const char *r = get("/r/x", "");

    /* last: a location again for the new URI */
    CHECK(starts(r, "HTTP/1.1 200 "));
    CHECK(body_is(r, "t=/t/x"));
    /* break: the rewrite module stops (its return does not run) and the
     * new URI is served where it is: /a.txt */
    r = get("/b/a.txt", "");
    CHECK(starts(r, "HTTP/1.1 200 "));
    CHECK(body_is(r, "file a\n"));
}

static void
test_return(void)
{
    const char *r = get("/go", "");

    CHECK(starts(r, "HTTP/1.1 301 "));
    /* made absolute with the Host (the port of a socket pair is none) */
    CHECK(strstr(r, "\r\nLocation: http://t") != NULL
          && strstr(r, "/elsewhere\r\n") != NULL);
    CHECK(starts(get("/teapot", ""), "HTTP/1.1 418 "));
}

static void
test_try_files(void)
{
    const char *r = get("/tf/missing", "");

    CHECK(starts(r, "HTTP/1.1 200 "));
    CHECK(body_is(r, "file a\n"));
    CHECK(starts(get("/tf2/x", ""), "HTTP/1.1 410 "));
}

static void
test_error_page(void)
{
    const char *r = get("/nothing-here", "");

    /* the location's page for 404, with the 404 kept */
    CHECK(starts(r, "HTTP/1.1 404 "));
    CHECK(body_is(r, "custom not found\n"));
}

static void
test_redirect_cap(void)
{
    /* past internal_redirects (10) of them: 500, no error_page */
    CHECK(starts(get("/loop/", ""), "HTTP/1.1 500 "));
}

static void
test_variables_and_captures(void)
{
    const char *r = get("/c/abc/42?q=7", "Cookie: j=1; k=v\r\n");

    CHECK(starts(r, "HTTP/1.1 200 "));
    CHECK(body_is(r, "42-abc 7 v"));
    r = get("/s/?x=1", "");
    CHECK(body_is(r, "GET:x=1"));
    /* $sent_http_: the fields the response has sent before the filter */
    r = get("/sh/", "");
    CHECK(strstr(r, "\r\nX-Echo: t=text/plain\r\n") != NULL);
    CHECK(strstr(r, "\r\nX-Len: 4\r\n") != NULL);
}

static void
test_pipelined_in_order(void)
{
    const char *req = "GET /t/1 HTTP/1.1\r\nHost: t\r\n\r\n"
                      "GET /go HTTP/1.1\r\nHost: t\r\n\r\n"
                      "GET /t/2 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                      "\r\n";
    const char *a, *b, *c;

    CHECK_INT(loopback_request(&worker, 0, req, &out), 0);
    a = strstr(out.data, "t=/t/1");
    b = strstr(out.data, "HTTP/1.1 301 ");
    c = strstr(out.data, "t=/t/2");
    CHECK(a != NULL && b != NULL && c != NULL && a < b && b < c);
}

/* the location of c's top level called name (NULL: none) */
static const nicd_loc_conf_t *
loc_named(const nicd_conf_t *c, const char *name)
{
    int i;

    for (i = 0; i < c->http->nlocs; i++) {
        if (strcmp(c->http->locs[i]->name, name) == 0) {
            return c->http->locs[i];
        }
    }
    return NULL;
}

static void
test_filters_where_used(void)
{
    const nicd_loc_conf_t *sh = loc_named(cycle.conf, "/sh/");
    const nicd_loc_conf_t *t = loc_named(cycle.conf, "/t/");
    uint32_t               a, b;

    CHECK(sh != NULL && t != NULL);
    if (sh == NULL || t == NULL) {
        return;
    }
    /* add_header's location runs the headers filter, the other only the
     * bottom of the header chain (and each level's sets are made) */
    a = nicd_filter_conf(sh)->used[NICD_FILTER_HEADER];
    b = nicd_filter_conf(t)->used[NICD_FILTER_HEADER];
    CHECK_INT(b, 1);
    CHECK(a > 1 && (a & 1));
    CHECK_INT(nicd_filter_below(a, NICD_FILTER_TOP), 31 - __builtin_clz(a));
    CHECK_INT(nicd_filter_below(b, NICD_FILTER_TOP), 0);
    /* and the responses say so */
    CHECK(strstr(get("/sh/", ""), "\r\nX-Echo: ") != NULL);
    CHECK(strstr(get("/t/", ""), "X-Echo") == NULL);
}

/* a log handler of the test's: what the log phase asked it */
static int  log_selects, log_records;
static char log_uri[64];

static uint32_t
fake_select(nicd_conn_t *c, const nicd_loc_conf_t **lc)
{
    log_selects++;
    *lc = c->r->loc;
    return strncmp(c->r->uri, "/t/", 3) == 0 ? 2 : 0; /* its log 1 */
}

static void
fake_records(const nicd_loc_conf_t *lc, uint32_t mask,
             const nicd_log_view_t *v, nicd_buf_t *b)
{
    (void) b;
    log_records++;
    CHECK(lc != NULL && mask == 2);
    snprintf(log_uri, sizeof(log_uri), "%.*s", (int) v->uri.len, v->uri.p);
}

static void
fake_write(nicd_worker_t *w, const nicd_loc_conf_t *lc, uint32_t mask,
           const nicd_log_view_t *v)
{
    (void) w, (void) lc, (void) mask, (void) v;
}

static const nicd_log_handler_t fake_log = {fake_select, fake_records,
                                             fake_write};

static void
test_log_phase_handlers(void)
{
    int n = 0;

    /* the test's handler joins the log module's: both are asked for every
     * request (the loopback worker has no log files: it says it has one,
     * which no level of this configuration writes to), and only a
     * handler whose logs take the request renders it */
    CHECK(nicd_log_handler_add(cycle.conf, &fake_log) == NULL);
    worker.nlogs = 1;
    CHECK(starts(get("/t/x", ""), "HTTP/1.1 200"));
    CHECK_INT(log_selects, 1);
    CHECK_INT(log_records, 1);
    CHECK_STR(log_uri, "/t/x");
    CHECK(starts(get("/a.txt", ""), "HTTP/1.1 200"));
    CHECK_INT(log_selects, 2);
    CHECK_INT(log_records, 1);
    worker.nlogs = 0;
    /* a configuration holds NICD_LOG_HANDLERS at most: then a message */
    while (nicd_log_handler_add(cycle.conf, &fake_log) == NULL) {
        n++;
    }
    CHECK_INT(n, NICD_LOG_HANDLERS - 2);
}

int
main(void)
{
    char cmd[128];

    if (setup() != 0) {
        fprintf(stderr, "test_phases: set-up failed\n");
        return 1;
    }
    RUN(test_rewrite_last_and_break);
    RUN(test_return);
    RUN(test_try_files);
    RUN(test_error_page);
    RUN(test_redirect_cap);
    RUN(test_variables_and_captures);
    RUN(test_pipelined_in_order);
    RUN(test_filters_where_used);
    RUN(test_log_phase_handlers);
    nicd_buf_free(&out);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0) {
        fprintf(stderr, "test_phases: could not remove %s\n", root);
    }
    return harness_report("test_phases");
}
