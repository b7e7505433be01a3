/* Unit tests of src/sendfile_nic/policy/lru.c, checked by hand */

#include "sendfile_nic/policy/lru.c"
#include "harness.h"
#include "sendfile_nic/policy/seq.h"

static void
test_by_hand(void)
{
    char v[32];

    /* cap 3: A B C; A hit (A C B); D evicts B; B evicts C; E evicts A;
     * A evicts D */
    CHECK_INT(run_seq(&snic_policy_lru, 3, "ABCADBEA", v), 1);
    CHECK_STR(v, "BCAD");
    /* B and A hit (A B C); D evicts C, E evicts B */
    CHECK_INT(run_seq(&snic_policy_lru, 3, "ABCBADE", v), 2);
    CHECK_STR(v, "CB");
}

int
main(void)
{
    RUN(test_by_hand);
    return harness_report("test_lru");
}
