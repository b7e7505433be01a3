/* Unit tests of src/util/hash.c: FNV-1a 64 test vectors */

#include "util/hash.c"
#include "harness.h"

static void
test_vectors(void)
{
    CHECK(nicache_fnv1a64("", 0) == 0xcbf29ce484222325ULL);
    CHECK(nicache_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cULL);
    CHECK(nicache_fnv1a64("foobar", 6) == 0x85944171f73967e8ULL);
}

int
main(void)
{
    RUN(test_vectors);
    return harness_report("test_hash");
}
