/* Unit tests of src/util/size.c */

#include "util/size.c"
#include "harness.h"

static void
test_parse(void)
{
    uint64_t v = 7;

    CHECK_INT(nicache_parse_size("0", &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(nicache_parse_size("1000", &v), 0);
    CHECK_INT(v, 1000);
    CHECK_INT(nicache_parse_size("4k", &v), 0);
    CHECK_INT(v, 4096);
    CHECK_INT(nicache_parse_size("16M", &v), 0);
    CHECK_INT(v, 16 << 20);
    CHECK_INT(nicache_parse_size("1g", &v), 0);
    CHECK_INT(v, 1 << 30);
    CHECK_INT(nicache_parse_size("1024g", &v), 0);
    CHECK_INT(v, 1ull << 40);
    v = 7;
    CHECK_INT(nicache_parse_size("1025g", &v), -1);
    CHECK_INT(nicache_parse_size("", &v), -1);
    CHECK_INT(nicache_parse_size("-1", &v), -1);
    CHECK_INT(nicache_parse_size(" 1", &v), -1);
    CHECK_INT(nicache_parse_size("12q", &v), -1);
    CHECK_INT(nicache_parse_size("4kb", &v), -1);
    CHECK_INT(nicache_parse_size("k", &v), -1);
    CHECK_INT(v, 7); /* untouched on failure */
}

static void
test_str(void)
{
    char b[32];

    nicache_size_str(16 << 20, b, sizeof(b));
    CHECK_STR(b, "16m");
    nicache_size_str(4096, b, sizeof(b));
    CHECK_STR(b, "4k");
    nicache_size_str(1000, b, sizeof(b));
    CHECK_STR(b, "1000");
    nicache_size_str(0, b, sizeof(b));
    CHECK_STR(b, "0");
}

int
main(void)
{
    RUN(test_parse);
    RUN(test_str);
    return harness_report("test_size");
}
