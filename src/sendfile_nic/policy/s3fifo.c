/*
 * S3-FIFO (Yang et al., SOSP 2023): a small FIFO S (a tenth of the
 * slots), a main FIFO M, and a ghost FIFO G of keys recently evicted from
 * S (as many as M has slots).  Each block has a 2-bit use counter.
 *
 * As the paper's algorithm, with the change its authors made since in
 * libCacheSim's S3FIFO (the simulator's reference,
 * tests/unit/sendfile_nic/policy/reference.py, is the same):
 * - a block enters M if its key is in G (and leaves G), else S; counter
 *   0.  Until the first eviction, a block that finds S at its share
 *   enters M (the paper's would fill S with the whole cache, which then
 *   drains slowly: NASA sample, 16 MiB, hit ratio 0.784 against 0.796);
 * - to evict: when S holds at least its share (or M is empty), take S's
 *   tail until one is evicted: used more than once, it moves to M's head
 *   with its counter reset; else it is evicted and its key enters G.
 *   Otherwise take M's tail until one is evicted: used, it goes back to
 *   M's head with its counter decremented; else it is evicted;
 * - G holds the last keys to enter it, as many as M has slots: a key
 *   found there leaves it, and makes room.
 */

#include <stdlib.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/policy/policy.h"

typedef struct {
    snic_slist_t s, m;
    uint8_t     *freq;
    uint8_t     *in_main;
    uint64_t    *key;
    uint32_t     small_cap;

    /* the ghost: gcap nodes, those in use in the FIFO g (newest at the
     * head) and in a hash by key chained through them, the rest free */
    snic_slist_t g;
    uint64_t    *gkey;
    uint32_t    *gnext;
    uint32_t    *gbucket;
    uint32_t     gmask;
    uint32_t     gcap;
    uint32_t    *gfree;
    uint32_t     ngfree;

    int evicted; /* since created */
} s3fifo_t;

static void
s3fifo_destroy(void *state)
{
    s3fifo_t *q = state;

    snic_slist_free(&q->s);
    snic_slist_free(&q->m);
    snic_free(q->freq);
    snic_free(q->in_main);
    snic_free(q->key);
    snic_slist_free(&q->g);
    snic_free(q->gkey);
    snic_free(q->gnext);
    snic_free(q->gfree);
    snic_free(q->gbucket);
    snic_free(q);
}

static void *
s3fifo_create(uint32_t nslots)
{
    s3fifo_t *q = snic_calloc(1, sizeof(*q));
    uint32_t  size = 16, i;

    if (q == NULL) {
        return NULL;
    }
    q->small_cap = nslots / 10 > 0 ? nslots / 10 : 1;
    q->gcap = nslots - q->small_cap > 0 ? nslots - q->small_cap : 1;
    while (size < q->gcap && size < (1u << 31)) {
        size <<= 1;
    }
    q->gmask = size - 1;
    q->freq = snic_calloc(nslots, 1);
    q->in_main = snic_calloc(nslots, 1);
    q->key = snic_calloc(nslots, sizeof(uint64_t));
    q->gkey = snic_calloc(q->gcap, sizeof(uint64_t));
    q->gnext = snic_calloc(q->gcap, sizeof(uint32_t));
    q->gfree = snic_malloc(sizeof(uint32_t) * q->gcap);
    q->gbucket = snic_malloc(sizeof(uint32_t) * size);
    if (snic_slist_init(&q->s, nslots) != 0
        || snic_slist_init(&q->m, nslots) != 0
        || snic_slist_init(&q->g, q->gcap) != 0 || q->freq == NULL
        || q->in_main == NULL || q->key == NULL || q->gkey == NULL
        || q->gnext == NULL || q->gfree == NULL || q->gbucket == NULL) {
        s3fifo_destroy(q);
        return NULL;
    }
    for (i = 0; i < size; i++) {
        q->gbucket[i] = SNIC_SLOT_NONE;
    }
    for (i = 0; i < q->gcap; i++) {
        q->gfree[i] = i;
    }
    q->ngfree = q->gcap;
    return q;
}

static uint32_t
ghost_find(s3fifo_t *q, uint64_t key)
{
    uint32_t p;

    for (p = q->gbucket[key & q->gmask]; p != SNIC_SLOT_NONE; p = q->gnext[p]) {
        if (q->gkey[p] == key) {
            return p;
        }
    }
    return SNIC_SLOT_NONE;
}

/* key n leaves the ghost (found there, or the oldest) */
static void
ghost_unlink(s3fifo_t *q, uint32_t n)
{
    uint32_t *pp = &q->gbucket[q->gkey[n] & q->gmask];

    while (*pp != n) {
        pp = &q->gnext[*pp];
    }
    *pp = q->gnext[n];
    snic_slist_unlink(&q->g, n);
    q->gfree[q->ngfree++] = n;
}

static void
ghost_add(s3fifo_t *q, uint64_t key)
{
    uint32_t n;

    if (q->g.count == q->gcap) {
        ghost_unlink(q, q->g.tail); /* the oldest ghost falls out */
    }
    n = q->gfree[--q->ngfree];
    q->gkey[n] = key;
    q->gnext[n] = q->gbucket[key & q->gmask];
    q->gbucket[key & q->gmask] = n;
    snic_slist_push_head(&q->g, n);
}

static void
s3fifo_hit(void *state, uint32_t slot)
{
    s3fifo_t *q = state;

    if (q->freq[slot] < 3) {
        q->freq[slot]++;
    }
}

static void
s3fifo_insert(void *state, uint32_t slot, uint64_t key)
{
    s3fifo_t *q = state;
    uint32_t  g = ghost_find(q, key);

    q->key[slot] = key;
    q->freq[slot] = 0;
    if (g != SNIC_SLOT_NONE) {
        ghost_unlink(q, g);
    }
    if (g != SNIC_SLOT_NONE || (!q->evicted && q->s.count >= q->small_cap)) {
        q->in_main[slot] = 1;
        snic_slist_push_head(&q->m, slot);
    } else {
        q->in_main[slot] = 0;
        snic_slist_push_head(&q->s, slot);
    }
}

static void
s3fifo_remove(void *state, uint32_t slot)
{
    s3fifo_t *q = state;

    snic_slist_unlink(q->in_main[slot] ? &q->m : &q->s, slot);
}

static uint32_t
s3fifo_evict(void *state, uint64_t incoming_key, const uint32_t *pins)
{
    s3fifo_t *q = state;
    uint32_t  t, tm;
    int       from_s = 0;

    (void) incoming_key;
    for (;;) {
        /* each queue's tail, but for the pinned blocks there */
        t = snic_slist_last_unpinned(&q->s, pins);
        tm = snic_slist_last_unpinned(&q->m, pins);
        if (t == SNIC_SLOT_NONE && tm == SNIC_SLOT_NONE) {
            return SNIC_SLOT_NONE; /* all pinned: nothing changed */
        }
        q->evicted = 1;
        /* once from S, from S until one is evicted (or S has none) */
        if (t != SNIC_SLOT_NONE
            && (from_s || q->s.count >= q->small_cap || tm == SNIC_SLOT_NONE)) {
            from_s = 1;
            snic_slist_unlink(&q->s, t);
            if (q->freq[t] > 1) {
                q->freq[t] = 0;
                q->in_main[t] = 1;
                snic_slist_push_head(&q->m, t);
                continue;
            }
            ghost_add(q, q->key[t]);
            return t;
        }
        t = tm;
        snic_slist_unlink(&q->m, t);
        if (q->freq[t] > 0) {
            q->freq[t]--;
            snic_slist_push_head(&q->m, t);
            continue;
        }
        return t;
    }
}

const snic_policy_t snic_policy_s3fifo = {
    "s3fifo",      "S3-FIFO: small and main FIFOs with a ghost queue",
    s3fifo_create, s3fifo_destroy,
    s3fifo_hit,    s3fifo_insert,
    s3fifo_remove, s3fifo_evict,
};
