/* Unit tests of src/util/urlpath.c: the path rule of nicd and the tools */

#include <string.h>

#include "util/urlpath.c"
#include "harness.h"

static const char *
rule(const char *in, int refuse_dots)
{
    static char out[256];
    size_t      n;

    if (nicache_urlpath(in, strlen(in), out, &n, refuse_dots) != 0) {
        return NULL;
    }
    return strlen(out) == n ? out : "length differs";
}

static void
test_rule(void)
{
    CHECK_STR(rule("/a/b", 0), "/a/b");
    CHECK_STR(rule("/a//b/", 0), "/a/b/");
    CHECK_STR(rule("/a/./b/../c%20d", 0), "/a/c d");
    CHECK_STR(rule("/a/..", 0), "/");
    CHECK_STR(rule("/x/%41", 0), "/x/A");
    CHECK(rule("/..", 0) == NULL);      /* above the root */
    CHECK(rule("/a/../..", 0) == NULL);
    CHECK(rule("a/b", 0) == NULL);      /* no leading slash */
    CHECK(rule("", 0) == NULL);
    CHECK(rule("/a%2Fb", 0) == NULL);   /* an encoded slash */
    CHECK(rule("/a%00b", 0) == NULL);   /* an encoded NUL */
    CHECK(rule("/a%4", 0) == NULL);     /* an escape cut short */
    CHECK(rule("/a%zz", 0) == NULL);
    CHECK(nicache_urlpath("/a\0b", 4, (char[8]){0}, &(size_t){0}, 0) == -1);
    /* refuse_dots: a tool that writes files never goes through one */
    CHECK(rule("/a/./b", 1) == NULL);
    CHECK(rule("/a/b/..", 1) == NULL);
    CHECK_STR(rule("/a/.b/c..", 1), "/a/.b/c..");
}

int
main(void)
{
    RUN(test_rule);
    return harness_report("test_urlpath");
}
