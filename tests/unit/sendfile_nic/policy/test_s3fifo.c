/* Unit tests of src/sendfile_nic/policy/s3fifo.c, checked by hand */

#include "sendfile_nic/policy/s3fifo.c"
#include "harness.h"
#include "sendfile_nic/policy/seq.h"

static void
test_by_hand(void)
{
    char v[32];

    /* 10 slots: S holds 1 by share, G 9 keys.  A fills S; B..J find S
     * at its share before any eviction and enter M (B the oldest).  K: S's
     * tail A (unused) is evicted into G; K is used twice.  L: K (used
     * more than once) moves to M, S is empty, so M's tail B (unused) is
     * evicted.  A: S's tail L is evicted into G, and A, found in G, enters
     * M.  N: S is under its share, M's tail C is evicted. */
    CHECK_INT(run_seq(&snic_policy_s3fifo, 10, "ABCDEFGHIJKKKLAN", v), 2);
    CHECK_STR(v, "ABLC");
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

/* an eviction that starts in S goes on in S until a block leaves it for
 * good, even once S is under its share (the paper's EVICTS loop) */
static void
test_small_drains_until_one_leaves(void)
{
    void    *q = snic_policy_s3fifo.create(30); /* S's share 3 */
    uint32_t i;

    for (i = 0; i < 30; i++) { /* 0..2 in S, then M (before eviction) */
        snic_policy_s3fifo.insert(q, i, 100 + i);
    }
    CHECK_INT(((s3fifo_t *) q)->s.count, 3);
    for (i = 0; i < 2; i++) {
        snic_policy_s3fifo.hit(q, 0);
        snic_policy_s3fifo.hit(q, 1);
    }
    /* 0 and 1 go to M, S is under its share, and 2 still goes */
    CHECK_INT(snic_policy_s3fifo.evict(q, 999, NULL), 2);
    CHECK_INT(((s3fifo_t *) q)->m.count, 29);
    snic_policy_s3fifo.destroy(q);
}

int
main(void)
{
    RUN(test_by_hand);
    RUN(test_main_second_chance);
    RUN(test_small_drains_until_one_leaves);
    return harness_report("test_s3fifo");
}
