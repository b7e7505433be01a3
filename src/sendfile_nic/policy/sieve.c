/*
 * SIEVE (Zhang et al., NSDI 2024): a FIFO queue with a visited bit and a
 * hand that moves from the tail toward the head.  Eviction clears the bit
 * of visited blocks it passes and evicts the first unvisited one; the hand
 * stays where it stopped, so survivors keep their place (no moves on a
 * hit, unlike LRU).
 */

#include <stdlib.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/policy/policy.h"

typedef struct {
    snic_slist_t q;
    uint8_t     *visited;
    uint32_t     hand; /* SNIC_SLOT_NONE: start at the tail */
} sieve_t;

static void *
sieve_create(uint32_t nslots)
{
    sieve_t *s = snic_malloc(sizeof(*s));

    if (s == NULL) {
        return NULL;
    }
    s->visited = snic_calloc(nslots, 1);
    if (s->visited == NULL || snic_slist_init(&s->q, nslots) != 0) {
        snic_free(s->visited);
        snic_free(s);
        return NULL;
    }
    s->hand = SNIC_SLOT_NONE;
    return s;
}

static void
sieve_destroy(void *state)
{
    sieve_t *s = state;

    snic_slist_free(&s->q);
    snic_free(s->visited);
    snic_free(s);
}

static void
sieve_hit(void *state, uint32_t slot)
{
    ((sieve_t *) state)->visited[slot] = 1;
}

static void
sieve_insert(void *state, uint32_t slot, uint64_t key)
{
    sieve_t *s = state;

    (void) key;
    s->visited[slot] = 0;
    snic_slist_push_head(&s->q, slot);
}

static void
sieve_remove(void *state, uint32_t slot)
{
    sieve_t *s = state;

    if (s->hand == slot) {
        s->hand = s->q.prev[slot];
    }
    snic_slist_unlink(&s->q, slot);
}

static uint32_t
sieve_evict(void *state, uint64_t incoming_key, const uint32_t *pins)
{
    sieve_t *s = state;
    uint32_t o = s->hand != SNIC_SLOT_NONE ? s->hand : s->q.tail, n;

    (void) incoming_key;
    /* the hand passes a pinned block and leaves its bit; two rounds clear
     * every other bit, so a third finding nothing means all are pinned */
    for (n = 0; n <= 2 * s->q.count; n++) {
        if (pins == NULL || pins[o] == 0) {
            if (!s->visited[o]) {
                s->hand = s->q.prev[o];
                snic_slist_unlink(&s->q, o);
                return o;
            }
            s->visited[o] = 0;
        }
        o = s->q.prev[o];
        if (o == SNIC_SLOT_NONE) {
            o = s->q.tail;
        }
    }
    return SNIC_SLOT_NONE;
}

const snic_policy_t snic_policy_sieve = {
    "sieve",      "SIEVE: FIFO with a visited bit and a lazy hand",
    sieve_create, sieve_destroy,
    sieve_hit,    sieve_insert,
    sieve_remove, sieve_evict,
};
