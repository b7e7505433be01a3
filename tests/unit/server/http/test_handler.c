/* Unit tests of src/server/http/handler.c: the pieces that need no connection */

#include "server/http/handler.c"
#include "harness.h"

static void
test_status_reasons(void)
{
    CHECK_STR(nicd_status_reason(200), "OK");
    CHECK_STR(nicd_status_reason(416), "Requested Range Not Satisfiable");
    CHECK_STR(nicd_status_reason(431), "Request Header Fields Too Large");
    CHECK_STR(nicd_status_reason(999), "Unknown");
}

static int
ok(const char *v)
{
    nicd_str_t s;

    s.p = v;
    s.len = strlen(v);
    return nicd_accepts_gzip(&s);
}

static void
test_accepted(void)
{
    CHECK(ok("gzip"));
    CHECK(ok("GZIP"));
    CHECK(ok("br, gzip;q=0.5"));
    CHECK(ok("gzip , deflate"));
    CHECK(!ok("gzip;q=0"));
    CHECK(!ok("gzip;q=0.000, br"));
    CHECK(!ok("x-gzip"));
    CHECK(!ok("gzipped"));
    CHECK(!ok("br"));
    CHECK(!ok(""));
}

int
main(void)
{
    RUN(test_status_reasons);
    RUN(test_accepted);
    return harness_report("test_handler");
}
