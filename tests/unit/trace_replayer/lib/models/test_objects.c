/* Unit tests of trace_replayer/lib/models/objects.c */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/models/objects.c"
#include "harness.h"

static void
add(trace_map_t *m, int method, const char *url, int status, uint64_t bytes)
{
    trace_req_t r;

    memset(&r, 0, sizeof(r));
    r.method = method;
    r.url = url;
    r.url_len = strlen(url);
    r.status = status;
    r.bytes = bytes;
    r.bytes_known = 1;
    CHECK_INT(trace_map_add(m, &r), 0);
}

static void
want(trace_map_t *m, const char *url, int kind, const char *name,
     const char *send)
{
    trace_obj_t o;

    CHECK_INT(trace_map_find(m, url, strlen(url), &o), 0);
    CHECK_INT(o.kind, kind);
    if (name == NULL) {
        CHECK(o.name == NULL);
    } else if (name[0] == '*') { /* a reserved name */
        CHECK(o.name != NULL && strncmp(o.name, name + 1, 7) == 0);
    } else {
        CHECK_STR(o.name, name);
    }
    if (send == NULL) {
        CHECK(o.url == NULL);
    } else if (send[0] == '*') {
        CHECK(o.url != NULL && strncmp(o.url, send + 1, 7) == 0);
    } else {
        CHECK_STR(o.url, send);
    }
}

static void
test_decide(void)
{
    trace_map_t *m = trace_map_new(), *back;
    char         path[] = "/tmp/test_objects.XXXXXX", err[256];
    int          fd = mkstemp(path);
    FILE        *f = fdopen(fd, "w");
    trace_obj_t  o;

    add(m, TRACE_GET, "/blog", 200, 50);
    add(m, TRACE_GET, "/blog", 200, 70); /* the largest */
    add(m, TRACE_GET, "/blog/t", 200, 5);
    add(m, TRACE_GET, "/blog/t?f=rss", 206, 6);
    add(m, TRACE_GET, "/s?a/b%", 200, 1);
    add(m, TRACE_HEAD, "/r.txt", 200, 0);
    add(m, TRACE_GET, "/css", 304, 0);
    add(m, TRACE_GET, "/feed", 301, 0);
    add(m, TRACE_GET, "/blog", 302, 0); /* a file that also redirected */
    add(m, TRACE_GET, "/gone", 404, 0);
    add(m, TRACE_GET, "/blog/t/x", 404, 0); /* through a file */
    add(m, TRACE_GET, "/forbidden", 403, 0);
    add(m, TRACE_POST, "/c", 200, 9);
    CHECK_INT(trace_map_decide(m), 0);

    want(m, "/blog", TRACE_OBJ_FILE, "*/.nic/f", "*/.nic/f");
    want(m, "/blog/t", TRACE_OBJ_FILE, "/blog/t", NULL);
    want(m, "/blog/t?f=rss", TRACE_OBJ_FILE, "/blog/t?f=rss",
         "/blog/t%3Ff=rss");
    want(m, "/s?a/b%", TRACE_OBJ_FILE, "/s?a%2Fb%25", "/s%3Fa%252Fb%2525");
    want(m, "/r.txt", TRACE_OBJ_FILE, "/r.txt", NULL);
    want(m, "/css", TRACE_OBJ_FILE, "/css", NULL);
    want(m, "/feed", TRACE_OBJ_REDIRECT, "/feed", NULL);
    want(m, "/gone", TRACE_OBJ_MISSING, NULL, NULL);
    want(m, "/blog/t/x", TRACE_OBJ_MISSING, NULL, "*/.nic/m");
    want(m, "/forbidden", TRACE_OBJ_MISSING, NULL, NULL);
    CHECK(trace_map_find(m, "/c", 2, &o) != 0); /* POST: not an object */
    CHECK(trace_map_find(m, "/blog/t?f=rss", 13, &o) == 0 && o.size == 6);
    CHECK(trace_map_find(m, "/blog", 5, &o) == 0 && o.size == 70);

    CHECK_INT(trace_map_stats(m)->log_2xx, 6);
    CHECK_INT(trace_map_stats(m)->answerable_2xx, 6);
    CHECK_INT(trace_map_stats(m)->other_3xx_404, 1); /* /blog's 302 */
    CHECK_INT(trace_map_stats(m)->stays_404, 2);
    CHECK_INT(trace_map_stats(m)->other_methods, 1);

    /* the manifest reads back as written */
    CHECK_INT(trace_map_write(m, f, "t\tx"), 0);
    fclose(f);
    back = trace_map_read(path, err, sizeof(err));
    CHECK(back != NULL);
    if (back != NULL) {
        CHECK_INT((long) trace_map_count(back), (long) trace_map_count(m));
        CHECK(trace_map_find(back, "/s?a/b%", 7, &o) == 0);
        CHECK_STR(o.url, "/s%3Fa%252Fb%2525");
        CHECK(trace_map_find(back, "/blog/t", 7, &o) == 0 && o.url == NULL
              && o.kind == TRACE_OBJ_FILE && o.size == 5);
        trace_map_free(back);
    }
    unlink(path);
    trace_map_free(m);

    CHECK(trace_map_read("/nonexistent", err, sizeof(err)) == NULL);
    CHECK(trace_map_read("/etc/hostname", err, sizeof(err)) == NULL);
    CHECK(strstr(err, "not a nictrace manifest") != NULL);
}

int
main(void)
{
    RUN(test_decide);
    return harness_report("test_objects");
}
