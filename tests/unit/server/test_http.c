/* Unit tests of src/server/http.c: the pieces that need no connection */

#include "../../../src/server/http.c"
#include "harness.h"

static void
test_etag_match(void)
{
    const char *e = "\"5f-1a\"";
    size_t      el = strlen(e);

#define M(list, weak) etag_match(list, strlen(list), e, el, weak)
    CHECK(M("\"5f-1a\"", 0));
    CHECK(M("\"x\", \"5f-1a\"", 0));
    CHECK(M("*", 0));
    CHECK(M("W/\"5f-1a\"", 1));  /* weak comparison ignores W/ */
    CHECK(!M("W/\"5f-1a\"", 0)); /* strong comparison does not */
    CHECK(!M("\"5f-1b\"", 1));
    CHECK(!M("5f-1a", 1));       /* unquoted is not the same tag */
    CHECK(!M("", 1));
    CHECK(!M("\"5f-1a", 1));     /* unterminated */
#undef M
}

static void
test_status_table(void)
{
    CHECK_STR(reason(200), "OK");
    CHECK_STR(reason(416), "Requested Range Not Satisfiable");
    CHECK_STR(reason(431), "Request Header Fields Too Large");
    CHECK_STR(reason(999), "Unknown");
    CHECK(closes_connection(400) && closes_connection(408)
          && closes_connection(414) && closes_connection(431)
          && closes_connection(505));
    CHECK(!closes_connection(404) && !closes_connection(304)
          && !closes_connection(416) && !closes_connection(405));
}

int
main(void)
{
    RUN(test_etag_match);
    RUN(test_status_table);
    return harness_report("test_http");
}
