/* Unit tests of trace_replayer/lib/models/opt.c, checked by hand */

#include "lib/models/opt.c"
#include "harness.h"

/* an access as the tests write them down */
typedef struct {
    uint64_t key;
    uint32_t used;
    uint64_t fsize;
} opt_access_t;

/* acc[0..n) recorded and replayed: trace_opt()'s result, its hits,
 * cached bytes and accesses that did not bypass */
static int
replay(const opt_access_t *acc, size_t n, uint32_t slots,
       uint64_t cache_bytes, uint64_t *hits, uint64_t *cached,
       uint64_t *accesses)
{
    trace_opt_seq_t *q = trace_opt_seq_new();
    uint64_t         dummy;
    size_t           i;
    int              rc;

    CHECK(q != NULL);
    for (i = 0; i < n; i++) {
        CHECK_INT(trace_opt_seq_add(q, acc[i].key, acc[i].used, acc[i].fsize),
                  0);
    }
    CHECK_INT(trace_opt_seq_count(q), n);
    rc = trace_opt(q, slots, cache_bytes, hits, cached,
                   accesses != NULL ? accesses : &dummy);
    trace_opt_seq_free(q);
    return rc;
}

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
    CHECK_INT(replay(a, n, slots, 1000, &hits, cached, NULL), 0);
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
    uint64_t     hits, cached, accesses;

    CHECK_INT(replay(a, 3, 4, 1000, &hits, &cached, &accesses), 0);
    CHECK_INT(hits, 0);
    CHECK_INT(accesses, 1); /* the large file's two bypassed */
    CHECK_INT(replay(a, 0, 4, 1000, &hits, &cached, &accesses), 0);
    CHECK_INT(hits, 0);
    CHECK_INT(accesses, 0);
    /* a cache smaller than one block: nothing to hold, nothing to evict */
    CHECK_INT(replay(a, 3, 0, 1000, &hits, &cached, &accesses), 0);
    CHECK_INT(hits, 0);
    CHECK_INT(accesses, 1);
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
    CHECK_INT(replay(a, 20000, 5000, 1 << 30, &hits, &cached, NULL), 0);
    CHECK_INT(hits, 15000);
}

/* the next use of acc[i]'s block after i, scanning: n when none */
static size_t
scan_next(const opt_access_t *a, size_t n, size_t i)
{
    size_t j;

    for (j = i + 1; j < n && a[j].key != a[i].key; j++) {
    }
    return j;
}

/* Belady by brute force over the residents' next uses, the same rule
 * (a newcomer needed no earlier than every resident is declined) */
static uint64_t
brute(const opt_access_t *a, size_t n, uint32_t slots)
{
    uint64_t res[16], hits = 0;
    size_t   nres = 0, i, r, far, far_next, nx;

    for (i = 0; i < n; i++) {
        for (r = 0; r < nres && res[r] != a[i].key; r++) {
        }
        if (r < nres) {
            hits++;
            continue;
        }
        if (nres < slots) {
            res[nres++] = a[i].key;
            continue;
        }
        far = 0;
        far_next = 0;
        for (r = 0; r < nres; r++) {
            size_t j;

            for (j = i; j < n && a[j].key != res[r]; j++) {
            }
            if (j >= far_next) {
                far_next = j;
                far = r;
            }
        }
        nx = scan_next(a, n, i);
        if (far_next > nx) {
            res[far] = a[i].key;
        }
    }
    return hits;
}

/* random streams: the same hits as the brute force, for 1 to 8 slots */
static void
test_against_brute_force(void)
{
    static opt_access_t a[600];
    uint64_t            hits, cached, x = 88172645463325252ULL;
    size_t              i;
    uint32_t            slots;
    int                 round;

    for (round = 0; round < 40; round++) {
        for (i = 0; i < 600; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* a few hot blocks and a tail */
            a[i].key = x % 4 == 0 ? x % 40 : x % 7;
            a[i].used = 1;
            a[i].fsize = 1;
        }
        for (slots = 1; slots <= 8; slots++) {
            CHECK_INT(replay(a, 600, slots, 1000, &hits, &cached, NULL), 0);
            CHECK_INT(hits, brute(a, 600, slots));
        }
    }
}

int
main(void)
{
    RUN(test_by_hand);
    RUN(test_bypass);
    RUN(test_many_blocks);
    RUN(test_against_brute_force);
    return harness_report("test_opt");
}
