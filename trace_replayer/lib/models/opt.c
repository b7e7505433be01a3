/*
 * Belady's OPT: each block numbered densely with one hash pass, next uses
 * computed backwards over those numbers, then the residents in a max-heap
 * by next use, indexed by block so a hit updates its entry in place (the
 * heap never holds more than the cache's slots).  O(n log slots) time,
 * O(n) memory.
 */

#include <stdlib.h>
#include <string.h>

#include "lib/heap.h"
#include "lib/models/opt.h"

#define NEVER UINT64_MAX

typedef struct {
    uint64_t key;
    uint64_t val;
    uint8_t  taken; /* the slot holds key */
    uint8_t  used;  /* per map: seen before / resident */
} kv_t;

typedef struct {
    kv_t  *t;
    size_t cap; /* a power of two, at least twice n */
    size_t n;
} map_t;

static uint64_t
mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static int
map_init(map_t *m)
{
    m->cap = 1024;
    m->n = 0;
    m->t = calloc(m->cap, sizeof(kv_t));
    return m->t == NULL ? -1 : 0;
}

static size_t
slot_of(const map_t *m, uint64_t key)
{
    size_t i;

    for (i = mix(key) & (m->cap - 1); m->t[i].taken && m->t[i].key != key;
         i = (i + 1) & (m->cap - 1)) {
    }
    return i;
}

/*
 * The entry of key, created (val NEVER, used 0) if absent; NULL when out
 * of memory.  Only a creation can move entries.
 */
static kv_t *
map_get(map_t *m, uint64_t key)
{
    size_t i = slot_of(m, key), k;
    kv_t  *old;

    if (m->t[i].taken) {
        return &m->t[i];
    }
    if ((m->n + 1) * 2 > m->cap) {
        old = m->t;
        m->t = calloc(m->cap * 2, sizeof(kv_t));
        if (m->t == NULL) {
            m->t = old;
            return NULL;
        }
        m->cap *= 2;
        for (k = 0; k < m->cap / 2; k++) {
            if (old[k].taken) {
                m->t[slot_of(m, old[k].key)] = old[k];
            }
        }
        free(old);
        i = slot_of(m, key);
    }
    m->t[i].taken = 1;
    m->t[i].key = key;
    m->t[i].val = NEVER;
    m->t[i].used = 0;
    m->n++;
    return &m->t[i];
}

/* Each access's block as a dense number (0, 1, ... in order of first
 * use) in ids[], and the count in *nids; 0, or -1 when out of memory.
 * The one hash pass: everything after indexes arrays. */
static int
dense_ids(const opt_access_t *acc, size_t n, uint32_t *ids, size_t *nids)
{
    map_t  m = {NULL, 0, 0};
    kv_t  *e;
    size_t i;

    if (map_init(&m) != 0) {
        return -1;
    }
    *nids = 0;
    for (i = 0; i < n; i++) {
        if ((e = map_get(&m, acc[i].key)) == NULL) {
            free(m.t);
            return -1;
        }
        if (!e->used) {
            if (*nids == INT32_MAX) {
                free(m.t);
                return -1; /* more blocks than a position can name */
            }
            e->used = 1;
            e->val = (*nids)++;
        }
        ids[i] = (uint32_t) e->val;
    }
    free(m.t);
    return 0;
}

/* next[i]: the index of the next access to ids[i]'s block, or NEVER; 0,
 * or -1 when out of memory */
static int
next_uses(const uint32_t *ids, size_t n, size_t nids, uint64_t *next)
{
    uint64_t *last = malloc(sizeof(uint64_t) * (nids ? nids : 1));
    size_t    i;

    if (last == NULL) {
        return -1;
    }
    for (i = 0; i < nids; i++) {
        last[i] = NEVER;
    }
    for (i = n; i-- > 0;) {
        next[i] = last[ids[i]];
        last[ids[i]] = i;
    }
    free(last);
    return 0;
}

/* The next uses of acc[0..n), in *next (malloc'ed), with the dense ids in
 * *ids when ids is not NULL; 0 or -1 (out of memory). */
static int
index_accesses(const opt_access_t *acc, size_t n, uint64_t **next,
               uint32_t **ids, size_t *nids)
{
    uint32_t *id = malloc(sizeof(uint32_t) * (n ? n : 1));
    size_t    count = 0;

    *next = malloc(sizeof(uint64_t) * (n ? n : 1));
    if (id == NULL || *next == NULL || dense_ids(acc, n, id, &count) != 0
        || next_uses(id, n, count, *next) != 0) {
        free(id);
        free(*next);
        *next = NULL;
        return -1;
    }
    if (ids != NULL) {
        *ids = id;
        *nids = count;
    } else {
        free(id);
    }
    return 0;
}

/* The residents in a max-heap by next use; pos[id] (the heap's ctx) is
 * a block's place in it, or -1 when it is not resident.  Bounded by the
 * slots, so the heap stays in the first-level cache. */
typedef struct {
    uint64_t next;
    uint32_t id;
} resident_t;

#define RESIDENT_LATER(a, b) ((a)->next > (b)->next)
#define RESIDENT_MOVED(h, e, i)                                                \
    (((int32_t *) (h)->ctx)[(e)->id] = (int32_t) (i))
TRACE_HEAP_DEFINE(resident_heap, resident_t, RESIDENT_LATER, RESIDENT_MOVED)

int
trace_opt_write_oracle(const opt_access_t *acc, size_t n, uint32_t block,
                       FILE *f)
{
    uint64_t     *next;
    unsigned char rec[24];
    uint32_t      zero = 0;
    int64_t       nv;
    size_t        i;

    if (index_accesses(acc, n, &next, NULL, NULL) != 0) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        /* little-endian, as libCacheSim reads it on this machine */
        nv = next[i] == NEVER ? -1 : (int64_t) next[i];
        memcpy(rec, &zero, 4);
        memcpy(rec + 4, &acc[i].key, 8);
        memcpy(rec + 12, &block, 4);
        memcpy(rec + 16, &nv, 8);
        if (fwrite(rec, sizeof(rec), 1, f) != 1) {
            free(next);
            return -1;
        }
    }
    free(next);
    return 0;
}

int
trace_opt(const opt_access_t *acc, size_t n, uint32_t nslots,
          uint64_t cache_bytes, uint64_t *hits, uint64_t *cached)
{
    uint64_t       *next = NULL;
    uint32_t       *ids = NULL, id;
    size_t          i, nids = 0;
    resident_heap_t r = {NULL, 0, 0, NULL};
    int32_t        *pos;
    int             rc = -1;

    *hits = *cached = 0;
    if (nslots == 0) {
        /* a cache of no block serves nothing (and has nothing to evict) */
        return 0;
    }
    if (index_accesses(acc, n, &next, &ids, &nids) != 0) {
        return -1;
    }
    pos = malloc(sizeof(int32_t) * (nids ? nids : 1));
    r.ctx = pos;
    if (pos == NULL
        || trace_grow(&r.a, &r.cap, nslots, sizeof(resident_t), nslots) != 0) {
        goto done;
    }
    for (i = 0; i < nids; i++) {
        pos[i] = -1;
    }

    for (i = 0; i < n; i++) {
        if (acc[i].fsize > cache_bytes) {
            continue; /* bypasses the cache, as with every policy */
        }
        id = ids[i];
        if (pos[id] >= 0) {
            /* a hit: its next use was this access, now it is later */
            (*hits)++;
            *cached += acc[i].used;
            resident_heap_up(&r, (size_t) pos[id], (resident_t){next[i], id});
            continue;
        }
        if (r.n < nslots) {
            r.n++;
            resident_heap_up(&r, r.n - 1, (resident_t){next[i], id});
            continue;
        }
        if (r.a[0].next <= next[i]) {
            continue; /* the newcomer is needed last: declined */
        }
        /* the resident needed last makes room */
        pos[r.a[0].id] = -1;
        resident_heap_down(&r, 0, (resident_t){next[i], id});
    }
    rc = 0;

done:
    resident_heap_free(&r);
    free(pos);
    free(ids);
    free(next);
    return rc;
}
