/* Unit tests of src/sendfile_nic/nic/directory.c */

#include "sendfile_nic/nic/directory.c"
#include "harness.h"

static void
test_hit_miss_and_identity(void)
{
    snic_dir_t     *d = snic_dir_create(4, snic_policy_find("lru"));
    snic_block_id_t a = {1, 100, 0}, b = {1, 101, 0}, c = {2, 100, 0};
    uint32_t        sa, sb, sc;
    int             ev;

    CHECK_INT(snic_dir_lookup(d, &a, 5), SNIC_SLOT_NONE);
    sa = snic_dir_insert(d, &a, 5, &ev);
    CHECK_INT(sa, 0); /* slot 0 first */
    CHECK_INT(ev, 0);
    CHECK_INT(snic_dir_lookup(d, &a, 5), sa);
    /* same block number, other inode; same inode, other device */
    CHECK_INT(snic_dir_lookup(d, &b, 5), SNIC_SLOT_NONE);
    CHECK_INT(snic_dir_lookup(d, &c, 5), SNIC_SLOT_NONE);
    sb = snic_dir_insert(d, &b, 5, &ev);
    sc = snic_dir_insert(d, &c, 5, &ev);
    CHECK(sa != sb && sb != sc && sa != sc);
    CHECK_INT(snic_dir_lookup(d, &b, 5), sb);
    CHECK_INT(snic_dir_lookup(d, &c, 5), sc);
    CHECK_INT(snic_dir_stats(d)->hits, 3);
    CHECK_INT(snic_dir_stats(d)->misses, 3);
    CHECK_INT(snic_dir_used(d), 3);
    snic_dir_destroy(d);
}

/* a lookup under a new revision frees the stale block: lazy invalidation */
static void
test_revision_mismatch_invalidates(void)
{
    snic_dir_t     *d = snic_dir_create(2, snic_policy_find("lru"));
    snic_block_id_t a = {1, 1, 7}, b = {1, 1, 8};
    uint32_t        s;
    int             ev;

    snic_dir_insert(d, &a, 1, &ev);
    snic_dir_insert(d, &b, 1, &ev);
    CHECK_INT(snic_dir_used(d), 2);
    CHECK_INT(snic_dir_lookup(d, &a, 2), SNIC_SLOT_NONE);
    CHECK_INT(snic_dir_stats(d)->invalidations, 1);
    CHECK_INT(snic_dir_used(d), 1);
    /* the freed slot is reused without evicting b */
    s = snic_dir_insert(d, &a, 2, &ev);
    CHECK_INT(ev, 0);
    CHECK_INT(snic_dir_stats(d)->evictions, 0);
    CHECK_INT(snic_dir_lookup(d, &a, 2), s);
    CHECK(snic_dir_lookup(d, &b, 1) != SNIC_SLOT_NONE);
    /* the old revision is gone for good */
    CHECK_INT(snic_dir_lookup(d, &a, 1), SNIC_SLOT_NONE);
    CHECK_INT(snic_dir_stats(d)->invalidations, 2);
    snic_dir_destroy(d);
}

static void
test_eviction_when_full(void)
{
    snic_dir_t     *d = snic_dir_create(2, snic_policy_find("lru"));
    snic_block_id_t id = {1, 1, 0};
    uint32_t        s0, s2;
    int             ev;

    id.block = 0;
    s0 = snic_dir_insert(d, &id, 1, &ev);
    id.block = 1;
    snic_dir_insert(d, &id, 1, &ev);
    id.block = 2;
    s2 = snic_dir_insert(d, &id, 1, &ev);
    CHECK_INT(ev, 1);
    CHECK_INT(s2, s0); /* block 0 was least recent */
    id.block = 0;
    CHECK_INT(snic_dir_lookup(d, &id, 1), SNIC_SLOT_NONE);
    CHECK_INT(snic_dir_stats(d)->evictions, 1);
    snic_dir_destroy(d);
}

/* many blocks of many files: chains longer than one still resolve */
static void
test_many_blocks(void)
{
    enum { CAP = 1000 };
    snic_dir_t     *d = snic_dir_create(CAP, snic_policy_find("fifo"));
    snic_block_id_t id;
    uint32_t        slot[CAP];
    int             i, ev, bad = 0;

    for (i = 0; i < CAP; i++) {
        id.dev = 1;
        id.ino = (uint64_t) (i % 37);
        id.block = (uint64_t) (i / 37);
        slot[i] = snic_dir_insert(d, &id, 9, &ev);
        bad += ev;
    }
    for (i = 0; i < CAP; i++) {
        id.dev = 1;
        id.ino = (uint64_t) (i % 37);
        id.block = (uint64_t) (i / 37);
        bad += snic_dir_lookup(d, &id, 9) != slot[i];
    }
    CHECK_INT(bad, 0);
    CHECK_INT(snic_dir_used(d), CAP);
    snic_dir_destroy(d);
}

/* pinned slots are passed over by replacement, under every policy */
static void
test_pinned_slots_are_not_replaced(void)
{
    const snic_policy_t *const *p;

    for (p = snic_policies; *p != NULL; p++) {
        snic_dir_t     *d = snic_dir_create(2, *p);
        snic_block_id_t a = {1, 1, 0}, b = {1, 1, 1}, c = {1, 1, 2};
        snic_block_id_t e = {1, 1, 3};
        uint32_t        sa, sb, sc;
        int             ev;

        CHECK_INT(snic_dir_pins_init(d), 0);
        sa = snic_dir_insert(d, &a, 1, &ev);
        sb = snic_dir_insert(d, &b, 1, &ev);
        snic_dir_pin(d, sa);
        sc = snic_dir_insert(d, &c, 1, &ev);
        CHECK_INT(sc, sb); /* b went, a stayed */
        CHECK_INT(ev, 1);
        CHECK_INT(snic_dir_lookup(d, &a, 1), sa);
        snic_dir_pin(d, sc);
        CHECK_INT(snic_dir_insert(d, &e, 1, &ev), SNIC_SLOT_NONE);
        snic_dir_unpin(d, sa);
        CHECK_INT(snic_dir_insert(d, &e, 1, &ev), sa); /* free again */
        CHECK_INT(snic_dir_lookup(d, &c, 1), sc);
        snic_dir_destroy(d);
    }
}

/*
 * A pinned block the policy would have replaced keeps its place: with
 * ten blocks inserted in order, block 0 is every queue's next victim
 * (LRU, FIFO, LFU among equals, ARC's T1, S3-FIFO's small queue).  Pinned,
 * it is passed over (block 1 goes); unpinned, it goes next.  A policy
 * that took it out and put it back as new would now take block 2.
 */
static void
test_a_pinned_victim_keeps_its_place(void)
{
    static const char *const names[] = {"lru", "fifo", "lfu", "arc",
                                        "s3fifo"};
    size_t                   i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snic_dir_t     *d = snic_dir_create(10, snic_policy_find(names[i]));
        snic_block_id_t id = {1, 1, 0};
        uint32_t        s0 = SNIC_SLOT_NONE;
        uint64_t        b;
        int             ev;

        CHECK_INT(snic_dir_pins_init(d), 0);
        for (b = 0; b < 10; b++) {
            id.block = b;
            if (b == 0) {
                s0 = snic_dir_insert(d, &id, 1, &ev);
            } else {
                snic_dir_insert(d, &id, 1, &ev);
            }
        }
        snic_dir_pin(d, s0);
        id.block = 10;
        CHECK(snic_dir_insert(d, &id, 1, &ev) != s0);
        id.block = 1; /* a miss changes nothing */
        CHECK_INT(snic_dir_lookup(d, &id, 1), SNIC_SLOT_NONE);
        snic_dir_unpin(d, s0);
        id.block = 11;
        CHECK_INT(snic_dir_insert(d, &id, 1, &ev), s0);
        id.block = 2;
        if (snic_dir_lookup(d, &id, 1) == SNIC_SLOT_NONE) {
            fprintf(stderr, "%s: block 0 lost its place\n", names[i]);
        }
        CHECK(snic_dir_lookup(d, &id, 1) != SNIC_SLOT_NONE);
        snic_dir_destroy(d);
    }
}

/*
 * CLOCK and SIEVE: the hand passes a pinned block and leaves its bit.  Of
 * two blocks, a (used again, its bit set) is pinned while two more come
 * in; unpinned, its bit still spares it once more, so the next block in
 * takes the other slot.
 */
static void
test_the_hand_passes_a_pinned_block(void)
{
    static const char *const names[] = {"clock", "sieve"};
    size_t                   i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snic_dir_t     *d = snic_dir_create(2, snic_policy_find(names[i]));
        snic_block_id_t a = {1, 1, 0}, id = {1, 1, 1};
        uint32_t        sa;
        int             ev;

        CHECK_INT(snic_dir_pins_init(d), 0);
        sa = snic_dir_insert(d, &a, 1, &ev);
        snic_dir_insert(d, &id, 1, &ev);
        CHECK_INT(snic_dir_lookup(d, &a, 1), sa); /* its bit */
        snic_dir_pin(d, sa);
        for (id.block = 2; id.block < 4; id.block++) {
            CHECK(snic_dir_insert(d, &id, 1, &ev) != sa);
        }
        snic_dir_unpin(d, sa);
        CHECK(snic_dir_insert(d, &id, 1, &ev) != sa);
        if (snic_dir_lookup(d, &a, 1) != sa) {
            fprintf(stderr, "%s: a lost its bit\n", names[i]);
        }
        CHECK_INT(snic_dir_lookup(d, &a, 1), sa);
        snic_dir_destroy(d);
    }
}

/*
 * Random lookups, inserts, pins and removals on a small directory, under
 * every policy, many of them with most slots pinned (as a send pins the
 * blocks of a run until it has gone): replacement must never hand out a
 * pinned slot, and every block the directory finds must be the one put
 * in that slot.  Held-aside victims go back into the policy, which must
 * stay consistent (a policy that trusts its lists to hold the whole
 * cache would read past them here).
 */
static void
test_random_pins_under_every_policy(void)
{
    enum { SLOTS = 8, KEYS = 24, STEPS = 200000 };
    const snic_policy_t *const *p;

    for (p = snic_policies; *p != NULL; p++) {
        snic_dir_t     *d = snic_dir_create(SLOTS, *p);
        uint32_t        pins[SLOTS] = {0}, slot;
        uint64_t        x = 88172645463325252ull, owner[SLOTS];
        snic_block_id_t id = {1, 1, 0};
        int             i, ev, bad = 0, k;

        CHECK_INT(snic_dir_pins_init(d), 0);
        for (i = 0; i < SLOTS; i++) {
            owner[i] = UINT64_MAX;
        }
        for (i = 0; i < STEPS; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            id.block = x % KEYS;
            k = (int) ((x >> 32) % 16);
            slot = snic_dir_lookup(d, &id, 1);
            if (slot != SNIC_SLOT_NONE) {
                bad += owner[slot] != id.block;
            } else {
                slot = snic_dir_insert(d, &id, 1, &ev);
                if (slot != SNIC_SLOT_NONE) {
                    bad += slot >= SLOTS || pins[slot] > 0;
                    owner[slot % SLOTS] = id.block;
                }
            }
            if (slot != SNIC_SLOT_NONE && slot < SLOTS && k < 7) {
                snic_dir_pin(d, slot);
                pins[slot]++;
            }
            if (k >= 12) { /* unpin one, or all now and then */
                uint32_t u = (uint32_t) (x >> 40) % SLOTS, j;

                for (j = 0; j < SLOTS; j++) {
                    while ((k == 15 || j == u) && pins[j] > 0) {
                        snic_dir_unpin(d, j);
                        pins[j]--;
                    }
                }
            }
            if (k == 11 && slot != SNIC_SLOT_NONE && slot < SLOTS
                && pins[slot] == 0) {
                snic_dir_remove(d, slot);
                owner[slot] = UINT64_MAX;
            }
        }
        if (bad != 0) {
            fprintf(stderr, "policy %s: %d wrong slots\n", (*p)->name, bad);
        }
        CHECK_INT(bad, 0);
        snic_dir_destroy(d);
    }
}

int
main(void)
{
    RUN(test_hit_miss_and_identity);
    RUN(test_revision_mismatch_invalidates);
    RUN(test_pinned_slots_are_not_replaced);
    RUN(test_a_pinned_victim_keeps_its_place);
    RUN(test_the_hand_passes_a_pinned_block);
    RUN(test_random_pins_under_every_policy);
    RUN(test_eviction_when_full);
    RUN(test_many_blocks);
    return harness_report("test_directory");
}
