/* Unit tests of src/sendfile_nic/policy/sieve.c, checked by hand */

#include "sendfile_nic/policy/sieve.c"
#include "harness.h"
#include "sendfile_nic/policy/seq.h"

static void
test_by_hand(void)
{
    char v[32];

    /* queue head..tail C B A; B, A visited.  D: from the tail, A and B
     * lose their bits, C is evicted (the hand was at the head: back to
     * the tail next time).  E: A, unvisited now, goes; the hand rests on
     * B.  F: B goes. */
    CHECK_INT(run_seq(&snic_policy_sieve, 3, "ABCBADEF", v), 2);
    CHECK_STR(v, "CAB");
}

/* invalidating the slot the hand rests on moves the hand, not past it */
static void
test_remove_under_hand(void)
{
    void    *s = snic_policy_sieve.create(3);
    uint32_t victim;

    snic_policy_sieve.insert(s, 0, 10); /* queue: 0 */
    snic_policy_sieve.insert(s, 1, 11); /* 1 0 */
    snic_policy_sieve.insert(s, 2, 12); /* 2 1 0 */
    snic_policy_sieve.hit(s, 0);
    victim = snic_policy_sieve.evict(s, 13, NULL); /* clears 0, evicts 1 */
    CHECK_INT(victim, 1);
    CHECK_INT(((sieve_t *) s)->hand, 2);
    snic_policy_sieve.remove(s, 2); /* the hand's slot is invalidated */
    CHECK(((sieve_t *) s)->hand == SNIC_SLOT_NONE);
    snic_policy_sieve.insert(s, 1, 14); /* 1 0 */
    victim = snic_policy_sieve.evict(s, 15, NULL);
    CHECK_INT(victim, 0);
    snic_policy_sieve.destroy(s);
}

int
main(void)
{
    RUN(test_by_hand);
    RUN(test_remove_under_hand);
    return harness_report("test_sieve");
}
