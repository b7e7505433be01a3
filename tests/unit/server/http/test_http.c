/* Unit tests of src/server/http/http.c: the pieces that need no connection */

#include "server/http/http.c"
#include "harness.h"

static void
test_status_table(void)
{
    CHECK(closes_connection(400) && closes_connection(408)
          && closes_connection(414) && closes_connection(431)
          && closes_connection(505));
    CHECK(!closes_connection(404) && !closes_connection(304)
          && !closes_connection(416) && !closes_connection(405));
}

int
main(void)
{
    RUN(test_status_table);
    return harness_report("test_http");
}
