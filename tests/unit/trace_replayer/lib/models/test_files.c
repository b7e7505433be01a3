/* Unit tests of trace_replayer/lib/models/files.c: sizes and file names. */

#include "lib/models/files.c"
#include "harness.h"

static void
test_file_name(void)
{
    static const struct {
        const char *url;
        int         dots;
        const char *name; /* NULL: refused */
    } t[] = {
        {"/", 0, "/index.html"},
        {"/a/b.gif", 0, "/a/b.gif"},
        {"//a///b/", 0, "/a/b/index.html"},
        {"/a%20b", 0, "/a b"},
        {"/a%2fb", 0, NULL},
        {"/a%00", 0, NULL},
        {"/a%zz", 0, NULL},
        {"/a%2", 0, NULL},
        {"a", 0, NULL},
        {"/a/./b", 0, NULL},
        {"/a/./b", 1, "/a/b"},
        {"/a/../b", 1, "/b"},
        {"/a/%2e%2e/b", 1, "/b"},
        {"/a/b/..", 1, "/a/index.html"},
        {"/..", 1, NULL},
        {"/a/../../b", 1, NULL},
    };
    char   out[64];
    size_t i, n;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        n = trace_file_name(t[i].url, strlen(t[i].url), out, t[i].dots);
        if (t[i].name == NULL) {
            if (n != 0) {
                fprintf(stderr, "%s: %s\n", t[i].url, out);
            }
            CHECK_INT(n, 0);
        } else {
            CHECK_INT(n, strlen(t[i].name));
            CHECK_STR(n ? out : NULL, t[i].name);
        }
    }
}

static void
test_sizes(void)
{
    trace_files_t *f = trace_files_new();
    trace_req_t    r = {0};
    uint64_t       size;
    uint32_t       id;

    r.url = "/x?1";
    r.url_len = 4;
    r.status = 200;
    r.bytes = 10;
    CHECK_INT(trace_files_add(f, &r), 0);
    r.url = "/x?2";
    r.bytes = 30;
    r.status = 206;
    trace_files_add(f, &r);
    r.bytes = 99;
    r.status = 304; /* no transfer */
    trace_files_add(f, &r);
    /* path and query name an object: two files */
    CHECK_INT(trace_files_find(f, "/x?2", 4, &size, &id), 0);
    CHECK_INT(size, 30);
    CHECK_INT(trace_files_find(f, "/x?1", 4, &size, &id), 0);
    CHECK_INT(size, 10);
    CHECK_INT(trace_files_count(f), 2);
    CHECK_INT(trace_files_find(f, "/x", 2, &size, &id), -1);
    /* spellings of one name are one object */
    r.url = "/a/./b%20c";
    r.url_len = 10;
    r.status = 200;
    r.bytes = 5;
    trace_files_add(f, &r);
    CHECK_INT(trace_files_find(f, "/a/b c", 6, &size, &id), 0);
    CHECK_INT(size, 5);
    trace_files_free(f);
}

static void
check_key(const char *url, const char *want, size_t want_len)
{
    char   out[256];
    size_t n = trace_object_key(url, strlen(url), out);

    CHECK_INT((long) n, (long) want_len);
    CHECK(memcmp(out, want, want_len) == 0);
}

static void
test_keys(void)
{
    check_key("/a/b", "/a/b", 4);
    check_key("/a/./b/../c%20d", "/a/c d", 6);
    check_key("/x/", "/x/index.html", 13);
    check_key("/q?b=1/2", "/q?b=1/2", 8);
    check_key("/q?", "/q", 2); /* an empty query is none */
    check_key("/a%2Fb", "\x01/a%2Fb", 7);
    check_key("/../x", "\x01/../x", 6);
    check_key("http://h/x", "\x01http://h/x", 11);
}

int
main(void)
{
    RUN(test_file_name);
    RUN(test_keys);
    RUN(test_sizes);
    return harness_report("files");
}
