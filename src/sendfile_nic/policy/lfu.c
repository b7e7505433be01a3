/*
 * LFU: evict the block used least often while cached, the least recently
 * used among equals.  Counts start at 1 on insertion and are forgotten on
 * eviction (in-cache LFU).
 *
 * O(1) per operation: slots sit in frequency buckets, kept in a list in
 * increasing frequency; within a bucket the most recent arrival is at the
 * head.  Every slot is in exactly one bucket, so all buckets thread their
 * lists through one pair of link arrays.
 */

#include <stdlib.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/policy/policy.h"

typedef struct {
    uint32_t     freq;
    uint32_t     prev, next; /* neighbouring buckets, by frequency */
    snic_slist_t slots;
} bucket_t;

typedef struct {
    snic_slist_t links;  /* owns the link arrays every bucket shares */
    uint32_t    *freq;   /* per slot */
    uint32_t    *bucket; /* per slot: its bucket */
    bucket_t    *b;      /* pool of nslots + 1 buckets */
    uint32_t    *bfree;
    uint32_t     nbfree;
    uint32_t     min; /* the bucket of the lowest frequency */
} lfu_t;

static void
lfu_destroy(void *state)
{
    lfu_t *l = state;

    snic_slist_free(&l->links);
    snic_free(l->freq);
    snic_free(l->bucket);
    snic_free(l->b);
    snic_free(l->bfree);
    snic_free(l);
}

static void *
lfu_create(uint32_t nslots)
{
    lfu_t   *l = snic_calloc(1, sizeof(*l));
    uint32_t i;

    if (l == NULL) {
        return NULL;
    }
    l->freq = snic_calloc(nslots, sizeof(uint32_t));
    l->bucket = snic_calloc(nslots, sizeof(uint32_t));
    l->b = snic_calloc(nslots + 1, sizeof(bucket_t));
    l->bfree = snic_malloc(sizeof(uint32_t) * (nslots + 1));
    if (snic_slist_init(&l->links, nslots) != 0 || l->freq == NULL
        || l->bucket == NULL || l->b == NULL || l->bfree == NULL) {
        lfu_destroy(l);
        return NULL;
    }
    for (i = 0; i <= nslots; i++) {
        l->bfree[i] = nslots - i;
    }
    l->nbfree = nslots + 1;
    l->min = SNIC_SLOT_NONE;
    return l;
}

/* A new empty bucket of frequency f after bucket prev (NONE: first). */
static uint32_t
bucket_new(lfu_t *l, uint32_t f, uint32_t prev)
{
    uint32_t  n = l->bfree[--l->nbfree];
    bucket_t *b = &l->b[n];

    b->freq = f;
    b->slots.prev = l->links.prev;
    b->slots.next = l->links.next;
    b->slots.head = b->slots.tail = SNIC_SLOT_NONE;
    b->slots.count = 0;
    b->prev = prev;
    b->next = prev == SNIC_SLOT_NONE ? l->min : l->b[prev].next;
    if (b->next != SNIC_SLOT_NONE) {
        l->b[b->next].prev = n;
    }
    if (prev == SNIC_SLOT_NONE) {
        l->min = n;
    } else {
        l->b[prev].next = n;
    }
    return n;
}

/* Take slot out of its bucket; an emptied bucket goes back to the pool. */
static void
leave(lfu_t *l, uint32_t slot)
{
    uint32_t  n = l->bucket[slot];
    bucket_t *b = &l->b[n];

    snic_slist_unlink(&b->slots, slot);
    if (b->slots.count > 0) {
        return;
    }
    if (b->prev != SNIC_SLOT_NONE) {
        l->b[b->prev].next = b->next;
    } else {
        l->min = b->next;
    }
    if (b->next != SNIC_SLOT_NONE) {
        l->b[b->next].prev = b->prev;
    }
    l->bfree[l->nbfree++] = n;
}

static void
lfu_hit(void *state, uint32_t slot)
{
    lfu_t   *l = state;
    uint32_t n = l->bucket[slot], next = l->b[n].next, f = ++l->freq[slot];

    if (next == SNIC_SLOT_NONE || l->b[next].freq != f) {
        next = bucket_new(l, f, n); /* before leave(): n stays a bucket */
    }
    leave(l, slot);
    snic_slist_push_head(&l->b[next].slots, slot);
    l->bucket[slot] = next;
}

static void
lfu_insert(void *state, uint32_t slot, uint64_t key)
{
    lfu_t   *l = state;
    uint32_t n = l->min;

    (void) key;
    if (n == SNIC_SLOT_NONE || l->b[n].freq != 1) {
        n = bucket_new(l, 1, SNIC_SLOT_NONE);
    }
    l->freq[slot] = 1;
    snic_slist_push_head(&l->b[n].slots, slot);
    l->bucket[slot] = n;
}

static void
lfu_remove(void *state, uint32_t slot)
{
    leave(state, slot);
}

static uint32_t
lfu_evict(void *state, uint64_t incoming_key, const uint32_t *pins)
{
    lfu_t   *l = state;
    uint32_t n, victim = SNIC_SLOT_NONE;

    (void) incoming_key;
    /* the least recent of the lowest frequency that is not pinned */
    for (n = l->min; n != SNIC_SLOT_NONE && victim == SNIC_SLOT_NONE;
         n = l->b[n].next) {
        victim = snic_slist_last_unpinned(&l->b[n].slots, pins);
    }
    if (victim != SNIC_SLOT_NONE) {
        leave(l, victim);
    }
    return victim;
}

const snic_policy_t snic_policy_lfu = {
    "lfu",      "least frequently used while cached, LRU among equals",
    lfu_create, lfu_destroy,
    lfu_hit,    lfu_insert,
    lfu_remove, lfu_evict,
};
