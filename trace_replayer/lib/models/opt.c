/*
 * Belady's OPT: each block numbered densely as it is recorded (one hash
 * lookup an access), next uses computed backwards over those numbers,
 * then the residents in a max-heap by next use, indexed by block so a hit
 * updates its entry in place (the heap never holds more than the cache's
 * slots).  O(n log slots) time; 12 bytes an access, the rest follows the
 * blocks.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/heap.h"
#include "lib/models/opt.h"

#define NEVER UINT32_MAX /* no next use; also the most accesses + 1 */

/* key -> dense number, open addressing */
typedef struct {
    uint64_t key;
    uint32_t id;
    uint32_t taken;
} kv_t;

typedef struct {
    uint32_t id;   /* the block's dense number */
    uint32_t used; /* bytes of the transfer in this block */
} access_t;

typedef struct {
    uint64_t key;
    uint64_t fsize; /* its file's size at its first access */
} block_t;

struct trace_opt_seq_s {
    kv_t     *map;
    size_t    map_cap; /* a power of two, at least twice nblocks */
    block_t  *block;   /* by dense number */
    size_t    nblocks, block_cap;
    access_t *acc;
    size_t    n, cap;
    uint32_t *next; /* by access, once asked for; NULL until then */
};

static uint64_t
mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static size_t
slot_of(const kv_t *map, size_t cap, uint64_t key)
{
    size_t i;

    for (i = mix(key) & (cap - 1); map[i].taken && map[i].key != key;
         i = (i + 1) & (cap - 1)) {
    }
    return i;
}

trace_opt_seq_t *
trace_opt_seq_new(void)
{
    trace_opt_seq_t *q = calloc(1, sizeof(*q));

    if (q != NULL) {
        q->map_cap = 1024;
        q->map = calloc(q->map_cap, sizeof(kv_t));
        if (q->map == NULL) {
            free(q);
            return NULL;
        }
    }
    return q;
}

void
trace_opt_seq_free(trace_opt_seq_t *q)
{
    if (q != NULL) {
        free(q->map);
        free(q->block);
        free(q->acc);
        free(q->next);
        free(q);
    }
}

size_t
trace_opt_seq_count(const trace_opt_seq_t *q)
{
    return q->n;
}

/* the map twice as large: 0 or -1 */
static int
map_grow(trace_opt_seq_t *q)
{
    size_t cap = q->map_cap * 2, k;
    kv_t  *map = calloc(cap, sizeof(kv_t));

    if (map == NULL) {
        return -1;
    }
    for (k = 0; k < q->map_cap; k++) {
        if (q->map[k].taken) {
            map[slot_of(map, cap, q->map[k].key)] = q->map[k];
        }
    }
    free(q->map);
    q->map = map;
    q->map_cap = cap;
    return 0;
}

int
trace_opt_seq_add(trace_opt_seq_t *q, uint64_t key, uint32_t used,
                  uint64_t fsize)
{
    size_t i = slot_of(q->map, q->map_cap, key);

    if (q->n >= NEVER - 1) {
        errno = EOVERFLOW; /* an access index must fit 32 bits */
        return -1;
    }
    if (!q->map[i].taken) {
        if (q->nblocks == INT32_MAX) {
            errno = EOVERFLOW; /* more blocks than a position can name */
            return -1;
        }
        if (((q->nblocks + 1) * 2 > q->map_cap && map_grow(q) != 0)
            || trace_grow(&q->block, &q->block_cap, q->nblocks + 1,
                          sizeof(block_t), 1024)
                   != 0) {
            errno = ENOMEM;
            return -1;
        }
        i = slot_of(q->map, q->map_cap, key);
        q->map[i].taken = 1;
        q->map[i].key = key;
        q->map[i].id = (uint32_t) q->nblocks;
        q->block[q->nblocks].key = key;
        q->block[q->nblocks].fsize = fsize;
        q->nblocks++;
    }
    if (trace_grow(&q->acc, &q->cap, q->n + 1, sizeof(access_t), 4096) != 0) {
        errno = ENOMEM;
        return -1;
    }
    q->acc[q->n].id = q->map[i].id;
    q->acc[q->n].used = used;
    q->n++;
    if (q->next != NULL) {
        free(q->next); /* a longer sequence: its next uses are new */
        q->next = NULL;
    }
    return 0;
}

/* q->next: the index of each access's block's next access, or NEVER; 0,
 * or -1 when out of memory */
static int
next_uses(trace_opt_seq_t *q)
{
    uint32_t *last;
    size_t    i;

    if (q->next != NULL) {
        return 0;
    }
    last = malloc(sizeof(uint32_t) * (q->nblocks ? q->nblocks : 1));
    q->next = malloc(sizeof(uint32_t) * (q->n ? q->n : 1));
    if (last == NULL || q->next == NULL) {
        free(last);
        free(q->next);
        q->next = NULL;
        return -1;
    }
    for (i = 0; i < q->nblocks; i++) {
        last[i] = NEVER;
    }
    for (i = q->n; i-- > 0;) {
        q->next[i] = last[q->acc[i].id];
        last[q->acc[i].id] = (uint32_t) i;
    }
    free(last);
    return 0;
}

/* The residents in a max-heap by next use; pos[id] (the heap's ctx) is
 * a block's place in it, or -1 when it is not resident.  Bounded by the
 * slots, so the heap stays in the first-level cache. */
typedef struct {
    uint32_t next;
    uint32_t id;
} resident_t;

#define RESIDENT_LATER(a, b) ((a)->next > (b)->next)
#define RESIDENT_MOVED(h, e, i)                                                \
    (((int32_t *) (h)->ctx)[(e)->id] = (int32_t) (i))
TRACE_HEAP_DEFINE(resident_heap, resident_t, RESIDENT_LATER, RESIDENT_MOVED)

int
trace_opt_write_oracle(trace_opt_seq_t *q, uint32_t block, FILE *f)
{
    unsigned char rec[24];
    uint32_t      zero = 0;
    uint64_t      key;
    int64_t       nv;
    size_t        i;

    if (next_uses(q) != 0) {
        errno = ENOMEM;
        return -1;
    }
    for (i = 0; i < q->n; i++) {
        /* little-endian, as libCacheSim reads it on this machine */
        nv = q->next[i] == NEVER ? -1 : (int64_t) q->next[i];
        key = q->block[q->acc[i].id].key;
        memcpy(rec, &zero, 4);
        memcpy(rec + 4, &key, 8);
        memcpy(rec + 12, &block, 4);
        memcpy(rec + 16, &nv, 8);
        if (fwrite(rec, sizeof(rec), 1, f) != 1) {
            return -1;
        }
    }
    return 0;
}

int
trace_opt(trace_opt_seq_t *q, uint32_t nslots, uint64_t cache_bytes,
          uint64_t *hits, uint64_t *cached, uint64_t *accesses)
{
    resident_heap_t r = {NULL, 0, 0, NULL};
    int32_t        *pos = NULL;
    uint32_t        id, nx;
    size_t          i;
    int             rc = -1;

    *hits = *cached = *accesses = 0;
    if (nslots == 0) {
        /* a cache of no block serves nothing (and has nothing to evict) */
        for (i = 0; i < q->n; i++) {
            *accesses += q->block[q->acc[i].id].fsize <= cache_bytes;
        }
        return 0;
    }
    if (next_uses(q) != 0) {
        return -1;
    }
    pos = malloc(sizeof(int32_t) * (q->nblocks ? q->nblocks : 1));
    r.ctx = pos;
    if (pos == NULL
        || trace_grow(&r.a, &r.cap, nslots, sizeof(resident_t), nslots) != 0) {
        goto done;
    }
    for (i = 0; i < q->nblocks; i++) {
        /* a block of a file larger than the cache is never resident */
        pos[i] = q->block[i].fsize > cache_bytes ? -2 : -1;
    }

    for (i = 0; i < q->n; i++) {
        id = q->acc[i].id;
        nx = q->next[i];
        if (pos[id] == -2) {
            continue; /* bypasses the cache, as with every policy */
        }
        (*accesses)++;
        if (pos[id] >= 0) {
            /* a hit: its next use was this access, now it is later */
            (*hits)++;
            *cached += q->acc[i].used;
            resident_heap_up(&r, (size_t) pos[id], (resident_t){nx, id});
            continue;
        }
        if (r.n < nslots) {
            r.n++;
            resident_heap_up(&r, r.n - 1, (resident_t){nx, id});
            continue;
        }
        if (r.a[0].next <= nx) {
            continue; /* the newcomer is needed last: declined */
        }
        /* the resident needed last makes room */
        pos[r.a[0].id] = -1;
        resident_heap_down(&r, 0, (resident_t){nx, id});
    }
    rc = 0;

done:
    resident_heap_free(&r);
    free(pos);
    return rc;
}
