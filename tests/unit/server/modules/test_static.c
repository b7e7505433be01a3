/* Unit tests of src/server/modules/static.c: the pieces that need no connection */

#include "../../../../src/server/modules/static.c"
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
    CHECK(!M("5f-1a", 1)); /* unquoted is not the same tag */
    CHECK(!M("", 1));
    CHECK(!M("\"5f-1a", 1)); /* unterminated */
#undef M
}

int
main(void)
{
    RUN(test_etag_match);
    return harness_report("test_static");
}
