/* Unit tests of src/util/civil.c (expected values from Python's datetime) */

#include "util/civil.c"
#include "harness.h"

static void
test_days(void)
{
    CHECK_INT(nicache_days_from_civil(1970, 1, 1), 0);
    CHECK_INT(nicache_days_from_civil(1969, 12, 31), -1);
    CHECK_INT(nicache_days_from_civil(2000, 2, 29), 11016);
    CHECK_INT(nicache_days_from_civil(2000, 3, 1), 11017);
    CHECK_INT(nicache_days_from_civil(2024, 2, 29), 19782);
    CHECK_INT(nicache_days_from_civil(1995, 7, 1), 9312);
    CHECK_INT(nicache_days_from_civil(1900, 3, 1), -25508);
    CHECK_INT(nicache_days_from_civil(2100, 12, 31), 47846);
}

int
main(void)
{
    RUN(test_days);
    return harness_report("test_civil");
}
