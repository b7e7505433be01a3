/* Unit tests of trace_replayer/opt.c, checked by hand */

#include "../../../trace_replayer/opt.c"
#include "harness.h"

static uint64_t
run(const char *keys, uint32_t slots, uint64_t *cached)
{
    opt_access_t a[32];
    uint64_t     hits;
    size_t       n;

    for (n = 0; keys[n] != '\0'; n++) {
        a[n].key = (uint64_t) keys[n];
        a[n].used = 10;
        a[n].fsize = 100;
    }
    CHECK_INT(trace_opt(a, n, slots, 1000, &hits, cached), 0);
    return hits;
}

static void
test_by_hand(void)
{
    uint64_t cached;

    /* 2 slots: A, B in; C is needed never again, later than both: it is
     * declined; A and B hit (LRU would have evicted A for C) */
    CHECK_INT(run("ABCAB", 2, &cached), 2);
    CHECK_INT(cached, 20);
    /* A, B in; C (used next at 3) replaces B (never used again); C and A
     * hit */
    CHECK_INT(run("ABCCA", 2, &cached), 2);
    /* enough room: only first uses miss */
    CHECK_INT(run("ABCABCABC", 3, &cached), 6);
    /* one slot: A's second use hits; B is next needed after A's next use,
     * so it is declined and A hits again */
    CHECK_INT(run("AABAB", 1, &cached), 2);
}

/* a file larger than the cache bypasses it */
static void
test_bypass(void)
{
    opt_access_t a[3] = {{1, 10, 5000}, {1, 10, 5000}, {2, 10, 100}};
    uint64_t     hits, cached;

    CHECK_INT(trace_opt(a, 3, 4, 1000, &hits, &cached), 0);
    CHECK_INT(hits, 0);
    CHECK_INT(trace_opt(a, 0, 4, 1000, &hits, &cached), 0);
    CHECK_INT(hits, 0);
    /* a cache smaller than one block: nothing to hold, nothing to evict */
    CHECK_INT(trace_opt(a + 2, 1, 0, 1000, &hits, &cached), 0);
    CHECK_INT(hits, 0);
}

/* more distinct blocks than the first map holds: it grows */
static void
test_many_blocks(void)
{
    static opt_access_t a[20000];
    uint64_t            hits, cached;
    size_t              i;

    for (i = 0; i < 20000; i++) {
        a[i].key = i % 5000;
        a[i].used = 1;
        a[i].fsize = 1;
    }
    CHECK_INT(trace_opt(a, 20000, 5000, 1 << 30, &hits, &cached), 0);
    CHECK_INT(hits, 15000);
}

int
main(void)
{
    RUN(test_by_hand);
    RUN(test_bypass);
    RUN(test_many_blocks);
    return harness_report("test_opt");
}
