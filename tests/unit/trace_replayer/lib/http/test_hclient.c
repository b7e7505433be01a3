/* Unit tests of trace_replayer/lib/http/hclient.c: --max-errors */

#include <string.h>

#include "lib/http/hclient.c"
#include "harness.h"

/* a count is judged at once; a share once 100 were tried, or at the end */
static void
test_max_errors(void)
{
    hclient_limit_t l;
    char            buf[256];

    CHECK(hclient_limit_parse("0", &l) == 0 && !l.percent && l.value == 0);
    CHECK(hclient_limit_exceeded(&l, 0, 5, 0) == 0);
    CHECK(hclient_limit_exceeded(&l, 1, 1, 0) == 1);
    CHECK(hclient_limit_parse("3", &l) == 0);
    CHECK(hclient_limit_exceeded(&l, 3, 10, 0) == 0);
    CHECK(hclient_limit_exceeded(&l, 4, 10, 0) == 1);
    CHECK(hclient_limit_parse("5%", &l) == 0 && l.percent && l.value == 5);
    CHECK(hclient_limit_exceeded(&l, 50, 99, 0) == 0); /* too few yet */
    CHECK(hclient_limit_exceeded(&l, 50, 99, 1) == 1); /* the end */
    CHECK(hclient_limit_exceeded(&l, 5, 100, 0) == 0);
    CHECK(hclient_limit_exceeded(&l, 6, 100, 0) == 1);
    CHECK(hclient_limit_parse("101%", &l) == -1);
    CHECK(hclient_limit_parse("-1", &l) == -1);
    CHECK(hclient_limit_parse("x", &l) == -1);
    hclient_limit_parse("0", &l);
    CHECK_STR(hclient_limit_why(&l, 1, 1, 1, "connect: Connection refused 1",
                                buf, sizeof(buf)),
              "1 of 1 connections could not connect, past --max-errors 0: "
              "the run stopped there (connect: Connection refused 1)");
}

int
main(void)
{
    RUN(test_max_errors);
    return harness_report("test_hclient");
}
