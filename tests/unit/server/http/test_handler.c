/* Unit tests of src/server/http/handler.c: the pieces that need no connection */

#include "../../../../src/server/http/handler.c"
#include "harness.h"

static void
test_status_reasons(void)
{
    CHECK_STR(nicd_status_reason(200), "OK");
    CHECK_STR(nicd_status_reason(416), "Requested Range Not Satisfiable");
    CHECK_STR(nicd_status_reason(431), "Request Header Fields Too Large");
    CHECK_STR(nicd_status_reason(999), "Unknown");
}

int
main(void)
{
    RUN(test_status_reasons);
    return harness_report("test_handler");
}
