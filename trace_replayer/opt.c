/*
 * Belady's OPT: next uses computed backwards with a hash from block to
 * its latest index, then a max-heap of (next use, block) with lazy
 * deletion: an entry is current only if it matches the block's recorded
 * next use.  O(n log n) time, O(n) memory.
 */

#include <stdlib.h>
#include <string.h>

#include "opt.h"

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

typedef struct {
    uint64_t next;
    uint64_t key;
} heap_e;

static void
heap_push(heap_e *h, size_t *n, heap_e e)
{
    size_t i = (*n)++;

    while (i > 0 && h[(i - 1) / 2].next < e.next) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static heap_e
heap_pop(heap_e *h, size_t *n)
{
    heap_e top = h[0], last = h[--(*n)];
    size_t i = 0, c;

    while ((c = 2 * i + 1) < *n) {
        if (c + 1 < *n && h[c + 1].next > h[c].next) {
            c++;
        }
        if (h[c].next <= last.next) {
            break;
        }
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) {
        h[i] = last;
    }
    return top;
}

/* next[i]: the index of the next access to acc[i]'s block, or NEVER;
 * 0, or -1 when out of memory */
static int
next_uses(const opt_access_t *acc, size_t n, uint64_t *next)
{
    map_t  last = {NULL, 0, 0};
    kv_t  *e;
    size_t i;

    if (map_init(&last) != 0) {
        return -1;
    }
    for (i = n; i-- > 0;) {
        if ((e = map_get(&last, acc[i].key)) == NULL) {
            free(last.t);
            return -1;
        }
        next[i] = e->used ? e->val : NEVER;
        e->val = i;
        e->used = 1;
    }
    free(last.t);
    return 0;
}

int
trace_opt_write_oracle(const opt_access_t *acc, size_t n, uint32_t block,
                       FILE *f)
{
    uint64_t     *next = malloc(sizeof(uint64_t) * (n ? n : 1));
    unsigned char rec[24];
    uint32_t      zero = 0;
    int64_t       nv;
    size_t        i;

    if (next == NULL || next_uses(acc, n, next) != 0) {
        free(next);
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
    uint64_t *next = malloc(sizeof(uint64_t) * (n ? n : 1));
    heap_e   *heap = malloc(sizeof(heap_e) * (n ? n : 1));
    map_t     res = {NULL, 0, 0};
    size_t    i, nh = 0, resident = 0;
    kv_t     *e, *v;
    heap_e    top;
    int       rc = -1;

    *hits = *cached = 0;
    if (nslots == 0) {
        /* a cache of no block serves nothing (and has nothing to evict) */
        free(next);
        free(heap);
        return 0;
    }
    if (next == NULL || heap == NULL || next_uses(acc, n, next) != 0
        || map_init(&res) != 0) {
        goto done;
    }

    for (i = 0; i < n; i++) {
        if (acc[i].fsize > cache_bytes) {
            continue; /* bypasses the cache, as with every policy */
        }
        if ((e = map_get(&res, acc[i].key)) == NULL) {
            goto done;
        }
        if (e->used) { /* resident */
            (*hits)++;
            *cached += acc[i].used;
            e->val = next[i];
            heap_push(heap, &nh, (heap_e){next[i], acc[i].key});
            continue;
        }
        if (resident == nslots) {
            /* the farthest current next use among the residents (their
             * keys exist, so these lookups move nothing) */
            for (;;) {
                top = heap_pop(heap, &nh);
                v = map_get(&res, top.key);
                if (v->used && v->val == top.next) {
                    break;
                }
            }
            if (top.next <= next[i]) {
                heap_push(heap, &nh, top); /* the newcomer is needed last */
                continue;
            }
            v->used = 0;
            resident--;
        }
        e->used = 1;
        e->val = next[i];
        resident++;
        heap_push(heap, &nh, (heap_e){next[i], acc[i].key});
    }
    rc = 0;

done:
    free(res.t);
    free(next);
    free(heap);
    return rc;
}
