/*
 * Unit tests of src/server/http/subrequest.c through a loopback
 * connection (tests/unit/loopback.h), with SSI's include as the caller:
 * a file, a return with arguments, rewrites in the subrequest's
 * location, set= kept in memory, nesting and its cap, $request_id
 * shared with the parent, and a HEAD that makes none.
 */

#include "server/http/subrequest.c"
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

    strcpy(root, "/tmp/nicd-subreq-XXXXXX");
    if (mkdtemp(root) == NULL) {
        return -1;
    }
    log_error_open("/dev/null", LOG_ERR); /* the cap's line, expected */
    put("part.txt", "PART");
    put("a.html", "a[<!--# include virtual=\"/part.txt\" -->]"
                  "[<!--# include virtual=\"/ret?k=v\" -->]"
                  "[<!--# include virtual=\"/rw/x\" -->]");
    put("set.html", "<!--# include virtual=\"/ret?q=1\" set=\"s\" -->"
                    "{<!--# echo var=\"s\" encoding=\"none\" -->}");
    put("nest.html", "n(<!--# include virtual=\"/a.html\" -->)");
    put("self.html", "s<!--# include virtual=\"/self.html\" -->");
    put("id.html", "<!--# include virtual=\"/id\" -->");
    snprintf(text, sizeof(text),
             "error_log /dev/null; access_log off; listen 127.0.0.1:1;"
             " root %s; ssi on;"
             " location = /ret { return 200 \"ret:$args:$request_method\"; }"
             " location /rw/ { rewrite ^/rw/(.*)$ /t/$1 last; }"
             " location /t/ { return 200 \"t=$uri\"; }"
             " location = /id { return 200 $request_id; }"
             " location = /id.html { add_header X-Id $request_id; }",
             root);
    if (loopback_cycle(&cycle, &worker, text, "sendfile", err, sizeof(err))
        != 0) {
        fprintf(stderr, "test_subrequest: %s\n", err);
        return -1;
    }
    return 0;
}

/* the body of method path, de-chunked, or "" */
static const char *
body(const char *method, const char *path)
{
    static char b[8192];
    char        req[512];
    const char *p, *end;
    size_t      n = 0;
    long        k;

    snprintf(req, sizeof(req),
             "%s %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", method,
             path);
    b[0] = '\0';
    if (loopback_request(&worker, 0, req, &out) != 0
        || (p = strstr(out.data, "\r\n\r\n")) == NULL) {
        return b;
    }
    if (strstr(out.data, "Transfer-Encoding: chunked") == NULL) {
        snprintf(b, sizeof(b), "%s", p + 4);
        return b;
    }
    for (p += 4, end = out.data + out.len; p < end; p += k + 4) {
        k = strtol(p, NULL, 16);
        p = strstr(p, "\r\n");
        if (k <= 0 || p == NULL || n + (size_t) k >= sizeof(b)) {
            break;
        }
        memcpy(b + n, p + 2, (size_t) k);
        n += (size_t) k;
    }
    b[n] = '\0';
    return b;
}

static void
test_files_returns_and_rewrites(void)
{
    CHECK_STR(body("GET", "/a.html"), "a[PART][ret:k=v:GET][t=/t/x]");
    CHECK(strstr(out.data, "HTTP/1.1 200 ") == out.data);
    CHECK(strstr(out.data, "Content-Length") == NULL);
    /* what the parent asked with HEAD: the head alone, no subrequest */
    CHECK_STR(body("HEAD", "/a.html"), "");
}

static void
test_set_in_memory(void)
{
    CHECK_STR(body("GET", "/set.html"), "{ret:q=1:GET}");
}

static void
test_nesting_and_its_cap(void)
{
    const char *s;
    int         n = 0;

    CHECK_STR(body("GET", "/nest.html"), "n(a[PART][ret:k=v:GET][t=/t/x])");
    /* nginx's bound: 51 below the request, then the include fails */
    for (s = body("GET", "/self.html"); *s == 's'; s++) {
        n++;
    }
    CHECK_INT(n, 52);
    CHECK(strstr(s, "[an error occurred while processing the directive]")
          == s);
}

static void
test_request_id_is_the_parents(void)
{
    const char *id = body("GET", "/id.html"), *h;

    CHECK_INT((int) strlen(id), 32);
    h = strstr(out.data, "\r\nX-Id: ");
    CHECK(h != NULL && strncmp(h + 8, id, 32) == 0);
}

int
main(void)
{
    char cmd[128];

    if (setup() != 0) {
        fprintf(stderr, "test_subrequest: set-up failed\n");
        return 1;
    }
    RUN(test_files_returns_and_rewrites);
    RUN(test_set_in_memory);
    RUN(test_nesting_and_its_cap);
    RUN(test_request_id_is_the_parents);
    nicd_buf_free(&out);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0) {
        fprintf(stderr, "test_subrequest: could not remove %s\n", root);
    }
    return harness_report("test_subrequest");
}
