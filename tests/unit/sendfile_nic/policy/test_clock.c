/* Unit tests of src/sendfile_nic/policy/clock.c, checked by hand */

#include "sendfile_nic/policy/clock.c"
#include "harness.h"
#include "sendfile_nic/policy/seq.h"

static void
test_by_hand(void)
{
    char v[32];

    /* cap 3, frames A B C; B, A hit (bits set); D: the hand clears A's
     * and B's bits and evicts C; E: A's bit is clear now, A goes (LRU
     * would evict B here) */
    CHECK_INT(run_seq(&snic_policy_clock, 3, "ABCBADE", v), 2);
    CHECK_STR(v, "CA");
}

int
main(void)
{
    RUN(test_by_hand);
    return harness_report("test_clock");
}
