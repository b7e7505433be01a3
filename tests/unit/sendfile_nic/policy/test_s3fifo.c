/* Unit tests of src/sendfile_nic/policy/s3fifo.c, checked by hand */

#include "../../../../src/sendfile_nic/policy/s3fifo.c"
#include "harness.h"
#include "seq.h"

static void
test_by_hand(void)
{
    char v[32];

    /* 10 slots: S holds 1 by share, G 9 keys.  A..J fill S; B is used
     * twice, C once.  K: S's tail A (unused) is evicted into G.  L: B
     * (used twice) moves to M, C (used once) is evicted into G.  A: a
     * miss; D is evicted, and A, found in G, enters M.  C: E is
     * evicted, C enters M from G. */
    CHECK_INT(run_seq(&snic_policy_s3fifo, 10, "ABCDEFGHIJBBCKLAC", v), 3);
    CHECK_STR(v, "ACDE");
}

/* M's tail gets a second chance per use: with S under its share, used
 * blocks in M go round again and the unused one is evicted */
static void
test_main_second_chance(void)
{
    void    *q = snic_policy_s3fifo.create(10);
    uint32_t i, victim;

    /* nine blocks in M (their keys were in G, which holds nine), slot 0
     * the oldest; S empty, so under its share */
    for (i = 0; i < 9; i++) {
        ghost_add(q, 100 + i);
    }
    for (i = 0; i < 9; i++) {
        snic_policy_s3fifo.insert(q, i, 100 + i);
    }
    CHECK_INT(((s3fifo_t *) q)->m.count, 9);
    CHECK_INT(((s3fifo_t *) q)->s.count, 0);
    snic_policy_s3fifo.hit(q, 0);
    snic_policy_s3fifo.hit(q, 1);
    victim = snic_policy_s3fifo.evict(q, 999, NULL);
    CHECK_INT(victim, 2); /* 0 and 1 were used: spared once */
    victim = snic_policy_s3fifo.evict(q, 999, NULL);
    CHECK_INT(victim, 3);
    snic_policy_s3fifo.destroy(q);
}

int
main(void)
{
    RUN(test_by_hand);
    RUN(test_main_second_chance);
    return harness_report("test_s3fifo");
}
