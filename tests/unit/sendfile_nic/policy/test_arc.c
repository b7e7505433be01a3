/* Unit tests of src/sendfile_nic/policy/arc.c, checked by hand */

#include "sendfile_nic/policy/arc.c"
#include "harness.h"
#include "sendfile_nic/policy/seq.h"

/*
 * c = 2.  A, B into T1; A hit -> T2.  C: |T1|+|B1| = 1, all four = 2 = c:
 * REPLACE takes T1's LRU (|T1| = 1 > p = 0): B -> B1.  B (in B1): p = 1,
 * REPLACE takes T2's LRU (|T1| = 1 is not > p): A -> B2, B -> T2.
 * A (in B2): p = 0, REPLACE takes T1's LRU C -> B1 (|T1| = 1 > 0).
 */
static void
test_by_hand(void)
{
    char v[32];

    CHECK_INT(run_seq(&snic_policy_arc, 2, "ABACBA", v), 1);
    CHECK_STR(v, "BAC");
}

static void
test_adaptation(void)
{
    arc_t   *a = snic_policy_arc.create(2);
    uint32_t v;

    snic_policy_arc.insert(a, 0, 'A');
    snic_policy_arc.insert(a, 1, 'B');
    snic_policy_arc.hit(a, 0);              /* A -> T2 */
    v = snic_policy_arc.evict(a, 'C', NULL);      /* B -> B1 */
    CHECK_INT(v, 1);
    snic_policy_arc.insert(a, v, 'C');
    CHECK_INT(a->b1.count, 1);
    CHECK_INT(a->p, 0);
    v = snic_policy_arc.evict(a, 'B', NULL);      /* B in B1: p grows */
    CHECK_INT(a->p, 1);
    CHECK_INT(v, 0);                        /* A, T2's LRU, -> B2 */
    snic_policy_arc.insert(a, v, 'B');
    CHECK_INT(a->t2.count, 1);
    CHECK_INT(a->b1.count, 0);
    CHECK_INT(a->b2.count, 1);
    v = snic_policy_arc.evict(a, 'A', NULL);      /* A in B2: p shrinks */
    CHECK_INT(a->p, 0);
    CHECK_INT(v, 1);                        /* C, T1's LRU */
    snic_policy_arc.insert(a, v, 'A');
    CHECK_INT(a->t2.count, 2);
    CHECK_INT(a->t1.count, 0);
    snic_policy_arc.destroy(a);
}

int
main(void)
{
    RUN(test_by_hand);
    RUN(test_adaptation);
    return harness_report("test_arc");
}
