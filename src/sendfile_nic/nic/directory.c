/*
 * The cache directory: entries per slot, a chained hash table whose chains
 * are threaded through the entries (no allocation per insert), a stack of
 * free slots, and a replacement policy.
 */

#include <stdlib.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/nic/directory.h"

typedef struct {
    snic_block_id_t id;
    uint64_t        revision;
    uint32_t        hnext;  /* next slot in the hash chain */
    uint32_t        bucket; /* its chain's (key & mask), SNIC_SLOT_NONE
                               when the slot holds nothing: unhash()
                               finds the chain without hashing again */
} entry_t;

struct snic_dir_s {
    uint32_t             nslots;
    entry_t             *e;
    uint32_t            *buckets; /* first slot of each chain */
    uint32_t             mask;
    uint32_t            *free; /* stack of free slots */
    uint32_t             nfree;
    uint32_t            *pins; /* per slot; NULL until the first pin */
    const snic_policy_t *policy;
    void                *pstate;
    snic_dir_stats_t     stats;
};

/*
 * A block's key, for the hash table and the policies, whose ghost lists
 * know a block only by it: a mix of its file and of its block number's
 * group of 16, with the block's place in the group in the low 4 bits.
 * Each step (snic_mix) is a bijection of what it adds, so two blocks
 * share a key only if the 60 mixed bits of their groups collide by
 * chance.  (The key this replaces added the parts before mixing them,
 * and gave one key to many blocks of small inode and block numbers,
 * nicsim's: a ghost hit of S3-FIFO or ARC could be another block's.)
 * The 16 blocks of a group land in the same 64 bytes of buckets (the
 * table has at least 16): a response's consecutive blocks share cache
 * lines.
 */
static inline uint64_t
key_of(const snic_block_id_t *id)
{
    uint64_t h =
        snic_mix(snic_mix(snic_mix(0, id->dev), id->ino), id->block >> 4);

    return h ^ (id->block & 15);
}

static int
same(const snic_block_id_t *a, const snic_block_id_t *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->block == b->block;
}

snic_dir_t *
snic_dir_create(uint32_t nslots, const snic_policy_t *policy)
{
    snic_dir_t *d;
    uint32_t    size = 16, i;

    if (nslots == 0) {
        return NULL;
    }
    d = snic_calloc(1, sizeof(*d));
    if (d == NULL) {
        return NULL;
    }
    /* twice the slots: chains of half a slot on average, so a miss
     * rarely walks one */
    while (size < 2 * (uint64_t) nslots && size < (1u << 31)) {
        size <<= 1;
    }
    d->nslots = nslots;
    d->mask = size - 1;
    d->e = snic_calloc(nslots, sizeof(entry_t));
    d->buckets = snic_malloc(sizeof(uint32_t) * size);
    d->free = snic_malloc(sizeof(uint32_t) * nslots);
    d->policy = policy;
    d->pstate = policy->create(nslots);
    if (d->e == NULL || d->buckets == NULL || d->free == NULL
        || d->pstate == NULL) {
        snic_dir_destroy(d);
        return NULL;
    }
    for (i = 0; i < size; i++) {
        d->buckets[i] = SNIC_SLOT_NONE;
    }
    /* slot 0 is handed out first */
    for (i = 0; i < nslots; i++) {
        d->free[i] = nslots - 1 - i;
        d->e[i].bucket = SNIC_SLOT_NONE;
    }
    d->nfree = nslots;
    return d;
}

void
snic_dir_destroy(snic_dir_t *d)
{
    if (d == NULL) {
        return;
    }
    if (d->pstate != NULL) {
        d->policy->destroy(d->pstate);
    }
    snic_free(d->e);
    snic_free(d->buckets);
    snic_free(d->free);
    snic_free(d->pins);
    snic_free(d);
}

/* Take slot out of its hash chain; it keeps its entry until reused. */
static void
unhash(snic_dir_t *d, uint32_t slot)
{
    uint32_t *pp = &d->buckets[d->e[slot].bucket];

    while (*pp != slot) {
        pp = &d->e[*pp].hnext;
    }
    *pp = d->e[slot].hnext;
    d->e[slot].bucket = SNIC_SLOT_NONE;
}

uint32_t
snic_dir_lookup(snic_dir_t *d, const snic_block_id_t *id, uint64_t revision)
{
    uint32_t slot;

    d->stats.lookups++;
    for (slot = d->buckets[key_of(id) & d->mask]; slot != SNIC_SLOT_NONE;
         slot = d->e[slot].hnext) {
        if (same(&d->e[slot].id, id)) {
            break;
        }
    }
    if (slot != SNIC_SLOT_NONE) {
        if (d->e[slot].revision == revision) {
            d->stats.hits++;
            d->policy->hit(d->pstate, slot);
            return slot;
        }
        /* the file changed since this block was cached */
        d->stats.invalidations++;
        d->policy->remove(d->pstate, slot);
        unhash(d, slot);
        d->free[d->nfree++] = slot;
    }
    d->stats.misses++;
    return SNIC_SLOT_NONE;
}

uint32_t
snic_dir_insert(snic_dir_t *d, const snic_block_id_t *id, uint64_t revision,
                int *evicted)
{
    uint64_t key = key_of(id);
    uint32_t slot, b;

    *evicted = 0;
    if (d->nfree > 0) {
        slot = d->free[--d->nfree];
    } else {
        /* the policy passes over pinned slots */
        slot = d->policy->evict(d->pstate, key, d->pins);
        if (slot == SNIC_SLOT_NONE) {
            return SNIC_SLOT_NONE;
        }
        unhash(d, slot);
        d->stats.evictions++;
        *evicted = 1;
    }

    d->e[slot].id = *id;
    d->e[slot].revision = revision;
    b = (uint32_t) (key & d->mask);
    d->e[slot].bucket = b;
    d->e[slot].hnext = d->buckets[b];
    d->buckets[b] = slot;
    d->policy->insert(d->pstate, slot, key);
    d->stats.inserts++;
    return slot;
}

const snic_dir_stats_t *
snic_dir_stats(const snic_dir_t *d)
{
    return &d->stats;
}

uint32_t
snic_dir_used(const snic_dir_t *d)
{
    return d->nslots - d->nfree;
}

void
snic_dir_remove(snic_dir_t *d, uint32_t slot)
{
    if (slot >= d->nslots || d->e[slot].bucket == SNIC_SLOT_NONE) {
        return;
    }
    d->policy->remove(d->pstate, slot);
    unhash(d, slot);
    d->free[d->nfree++] = slot;
}

int
snic_dir_pins_init(snic_dir_t *d)
{
    if (d->pins == NULL) {
        d->pins = snic_calloc(d->nslots, sizeof(uint32_t));
    }
    return d->pins != NULL ? 0 : -1;
}

void
snic_dir_pin(snic_dir_t *d, uint32_t slot)
{
    if (d->pins != NULL && slot < d->nslots) {
        d->pins[slot]++;
    }
}

void
snic_dir_unpin(snic_dir_t *d, uint32_t slot)
{
    if (d->pins != NULL && slot < d->nslots && d->pins[slot] > 0) {
        d->pins[slot]--;
    }
}
