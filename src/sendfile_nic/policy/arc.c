/*
 * ARC (Megiddo and Modha, FAST 2003): resident lists T1 (seen once
 * recently) and T2 (seen at least twice), ghost lists B1 and B2 of keys
 * evicted from them, and a target p for T1 that ghost hits move: a hit in
 * B1 says T1 was too small, a hit in B2 that T2 was.
 *
 * The paper's algorithm handles a miss in one step (adapt p, REPLACE,
 * insert); here the directory calls evict(key) when the cache is full,
 * then insert(slot, key).  evict() does the whole step of the paper for
 * the incoming key and marks it prepared, so insert() only places the
 * block.  When a free slot exists (the cache is not full after
 * invalidations, which the paper does not have), insert() adapts p on a
 * ghost hit and trims the ghost lists to the paper's bounds
 * (|T1| + |B1| <= c, all four <= 2c) without evicting anything.
 * Integer division for the adaptation steps, as the paper writes them,
 * and p counted in blocks, as the paper counts pages (libCacheSim counts
 * p in bytes and moves it by the ghost lists' ratio unrounded, so with
 * 4 KiB blocks its p moves about 4,096 times slower: docs/benchmarks.md).
 */

#include <stdlib.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/policy/policy.h"

enum { IN_NONE = 0, IN_T1, IN_T2, IN_B1, IN_B2 };

typedef struct {
    uint32_t     c;
    uint32_t     p;
    snic_slist_t t1, t2; /* over slots, MRU at the head */
    uint8_t     *where;  /* IN_T1 / IN_T2 per slot */
    uint64_t    *key;    /* per slot */

    /* ghosts: a pool of 2c nodes, B1 and B2 threaded through it, a hash
     * by key chained through it, and a stack of free nodes */
    snic_slist_t b1, b2;
    uint64_t    *gkey;
    uint8_t     *gwhere; /* IN_B1 / IN_B2 / IN_NONE per node */
    uint32_t    *ghnext;
    uint32_t    *gbucket;
    uint32_t     gmask;
    uint32_t    *gfree;
    uint32_t     ngfree;

    int      prepared;
    uint64_t prepared_key;
} arc_t;

static void
arc_destroy(void *state)
{
    arc_t *a = state;

    snic_slist_free(&a->t1);
    snic_slist_free(&a->t2);
    snic_slist_free(&a->b1);
    snic_slist_free(&a->b2);
    snic_free(a->where);
    snic_free(a->key);
    snic_free(a->gkey);
    snic_free(a->gwhere);
    snic_free(a->ghnext);
    snic_free(a->gbucket);
    snic_free(a->gfree);
    snic_free(a);
}

static void *
arc_create(uint32_t nslots)
{
    arc_t   *a = snic_calloc(1, sizeof(*a));
    uint32_t nodes = 2 * nslots + 1, size = 16, i;

    if (a == NULL) {
        return NULL;
    }
    while (size < nodes && size < (1u << 31)) {
        size <<= 1;
    }
    a->c = nslots;
    a->gmask = size - 1;
    a->where = snic_calloc(nslots, 1);
    a->key = snic_calloc(nslots, sizeof(uint64_t));
    a->gkey = snic_calloc(nodes, sizeof(uint64_t));
    a->gwhere = snic_calloc(nodes, 1);
    a->ghnext = snic_calloc(nodes, sizeof(uint32_t));
    a->gbucket = snic_malloc(sizeof(uint32_t) * size);
    a->gfree = snic_malloc(sizeof(uint32_t) * nodes);
    if (snic_slist_init(&a->t1, nslots) != 0
        || snic_slist_init(&a->t2, nslots) != 0
        || snic_slist_init(&a->b1, nodes) != 0
        || snic_slist_init(&a->b2, nodes) != 0 || a->where == NULL
        || a->key == NULL || a->gkey == NULL || a->gwhere == NULL
        || a->ghnext == NULL || a->gbucket == NULL || a->gfree == NULL) {
        arc_destroy(a);
        return NULL;
    }
    for (i = 0; i < size; i++) {
        a->gbucket[i] = SNIC_SLOT_NONE;
    }
    for (i = 0; i < nodes; i++) {
        a->gfree[i] = i;
    }
    a->ngfree = nodes;
    return a;
}

static uint32_t
ghost_find(arc_t *a, uint64_t key)
{
    uint32_t n;

    for (n = a->gbucket[key & a->gmask]; n != SNIC_SLOT_NONE;
         n = a->ghnext[n]) {
        if (a->gkey[n] == key) {
            return n;
        }
    }
    return SNIC_SLOT_NONE;
}

static void
ghost_remove(arc_t *a, uint32_t n)
{
    uint32_t *pp = &a->gbucket[a->gkey[n] & a->gmask];

    while (*pp != n) {
        pp = &a->ghnext[*pp];
    }
    *pp = a->ghnext[n];
    snic_slist_unlink(a->gwhere[n] == IN_B1 ? &a->b1 : &a->b2, n);
    a->gwhere[n] = IN_NONE;
    a->gfree[a->ngfree++] = n;
}

static void
ghost_add(arc_t *a, int list, uint64_t key)
{
    uint32_t n = a->gfree[--a->ngfree];

    a->gkey[n] = key;
    a->gwhere[n] = (uint8_t) list;
    a->ghnext[n] = a->gbucket[key & a->gmask];
    a->gbucket[key & a->gmask] = n;
    snic_slist_push_head(list == IN_B1 ? &a->b1 : &a->b2, n);
}

/*
 * the paper's REPLACE: one resident block goes to its ghost list, the
 * least recent of T1 or of T2 as p says.  Pinned blocks are passed over;
 * when the list p names has none but pinned ones (or is empty, as it can
 * be after invalidations), the other gives one (arc_evict() has made sure
 * one of them can).
 */
static uint32_t
replace(arc_t *a, int in_b2, const uint32_t *pins)
{
    uint32_t v1 = snic_slist_last_unpinned(&a->t1, pins);
    uint32_t v2 = snic_slist_last_unpinned(&a->t2, pins), v;

    if (v1 != SNIC_SLOT_NONE
        && ((in_b2 && a->t1.count == a->p) || a->t1.count > a->p
            || v2 == SNIC_SLOT_NONE)) {
        v = v1;
        snic_slist_unlink(&a->t1, v);
        ghost_add(a, IN_B1, a->key[v]);
    } else {
        v = v2;
        snic_slist_unlink(&a->t2, v);
        ghost_add(a, IN_B2, a->key[v]);
    }
    a->where[v] = IN_NONE;
    return v;
}

static void
adapt(arc_t *a, int in_b1)
{
    uint32_t d;

    if (in_b1) {
        d = a->b2.count / a->b1.count;
        a->p += d > 1 ? d : 1;
        if (a->p > a->c) {
            a->p = a->c;
        }
    } else {
        d = a->b1.count / a->b2.count;
        d = d > 1 ? d : 1;
        a->p = a->p > d ? a->p - d : 0;
    }
}

static uint32_t
total(arc_t *a)
{
    return a->t1.count + a->t2.count + a->b1.count + a->b2.count;
}

static void
arc_hit(void *state, uint32_t slot)
{
    arc_t *a = state;

    snic_slist_unlink(a->where[slot] == IN_T1 ? &a->t1 : &a->t2, slot);
    snic_slist_push_head(&a->t2, slot);
    a->where[slot] = IN_T2;
}

/*
 * the cache is full: the paper's step for a miss on key, up to insertion;
 * nothing at all when every resident block is pinned
 */
static uint32_t
arc_evict(void *state, uint64_t key, const uint32_t *pins)
{
    arc_t   *a = state;
    uint32_t g, v;

    if (snic_slist_last_unpinned(&a->t1, pins) == SNIC_SLOT_NONE
        && snic_slist_last_unpinned(&a->t2, pins) == SNIC_SLOT_NONE) {
        return SNIC_SLOT_NONE;
    }
    g = ghost_find(a, key);
    a->prepared = 1;
    a->prepared_key = key;

    if (g != SNIC_SLOT_NONE) {
        adapt(a, a->gwhere[g] == IN_B1);
        return replace(a, a->gwhere[g] == IN_B2, pins);
    }
    if (a->t1.count + a->b1.count == a->c) {
        if (a->t1.count < a->c) {
            ghost_remove(a, a->b1.tail);
            return replace(a, 0, pins);
        }
        /* T1 is the whole cache: no ghost */
        v = snic_slist_last_unpinned(&a->t1, pins);
        snic_slist_unlink(&a->t1, v);
        a->where[v] = IN_NONE;
        return v;
    }
    if (total(a) == 2 * a->c) {
        ghost_remove(a, a->b2.tail);
    }
    return replace(a, 0, pins);
}

static void
arc_insert(void *state, uint32_t slot, uint64_t key)
{
    arc_t   *a = state;
    uint32_t g = ghost_find(a, key);

    if (!a->prepared || a->prepared_key != key) {
        /* a free slot: adapt, trim the ghosts, evict nothing */
        if (g != SNIC_SLOT_NONE) {
            adapt(a, a->gwhere[g] == IN_B1);
        } else if (a->t1.count + a->b1.count >= a->c && a->b1.count > 0) {
            ghost_remove(a, a->b1.tail);
        } else if (total(a) >= 2 * a->c && a->b2.count > 0) {
            ghost_remove(a, a->b2.tail);
        }
    } else {
        a->prepared = 0;
    }

    a->key[slot] = key;
    if (g != SNIC_SLOT_NONE) {
        ghost_remove(a, g);
        snic_slist_push_head(&a->t2, slot);
        a->where[slot] = IN_T2;
    } else {
        snic_slist_push_head(&a->t1, slot);
        a->where[slot] = IN_T1;
    }
}

static void
arc_remove(void *state, uint32_t slot)
{
    arc_t *a = state;

    snic_slist_unlink(a->where[slot] == IN_T1 ? &a->t1 : &a->t2, slot);
    a->where[slot] = IN_NONE;
}

const snic_policy_t snic_policy_arc = {
    "arc",
    "ARC: adaptive between recency (T1) and frequency (T2) with ghosts",
    arc_create,
    arc_destroy,
    arc_hit,
    arc_insert,
    arc_remove,
    arc_evict,
};
