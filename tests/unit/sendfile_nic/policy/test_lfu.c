/* Unit tests of src/sendfile_nic/policy/lfu.c, checked by hand */

#include "sendfile_nic/policy/lfu.c"
#include "harness.h"
#include "sendfile_nic/policy/seq.h"

static void
test_by_hand(void)
{
    char v[32];

    /* cap 3: A used 3 times, B twice, C once.  D evicts C (least used);
     * E evicts D (used once, like nothing else but itself); B, used
     * twice, outlives both; then F evicts E. */
    CHECK_INT(run_seq(&snic_policy_lfu, 3, "AAABBCDEF", v), 3);
    CHECK_STR(v, "CDE");
    /* equal counts: the least recently used goes (A, then B) */
    CHECK_INT(run_seq(&snic_policy_lfu, 2, "ABCD", v), 0);
    CHECK_STR(v, "AB");
}

/* buckets go back to the pool: a long run uses no more than it has */
static void
test_buckets_recycled(void)
{
    lfu_t   *l = snic_policy_lfu.create(4);
    uint32_t i, v;

    for (i = 0; i < 4; i++) {
        snic_policy_lfu.insert(l, i, i);
    }
    for (i = 0; i < 1000; i++) {
        snic_policy_lfu.hit(l, i % 4);
        if (i % 7 == 0) {
            v = snic_policy_lfu.evict(l, 0, NULL);
            snic_policy_lfu.insert(l, v, 0);
        }
    }
    CHECK(l->nbfree >= 1); /* never ran out (5 in the pool, 4 slots) */
    snic_policy_lfu.destroy(l);
}

int
main(void)
{
    RUN(test_by_hand);
    RUN(test_buckets_recycled);
    return harness_report("test_lfu");
}
