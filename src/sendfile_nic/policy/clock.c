/*
 * CLOCK (second chance): a hand sweeps the slots in order; a slot used
 * since the hand last passed gets its reference bit cleared and is
 * spared, the first one not used is evicted.  New blocks start unreferenced
 * (as libCacheSim's Clock), so a block must be hit once to be spared.
 */

#include <stdlib.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/policy/policy.h"

typedef struct {
    uint8_t *ref; /* 0, 1; 2 = free slot */
    uint32_t nslots;
    uint32_t hand;
} clock_state_t;

#define FREE 2

static void *
clock_create(uint32_t nslots)
{
    clock_state_t *c = snic_malloc(sizeof(*c));
    uint32_t       i;

    if (c == NULL) {
        return NULL;
    }
    c->ref = snic_malloc(nslots);
    if (c->ref == NULL) {
        snic_free(c);
        return NULL;
    }
    for (i = 0; i < nslots; i++) {
        c->ref[i] = FREE;
    }
    c->nslots = nslots;
    c->hand = 0;
    return c;
}

static void
clock_destroy(void *state)
{
    clock_state_t *c = state;

    snic_free(c->ref);
    snic_free(c);
}

static void
clock_hit(void *state, uint32_t slot)
{
    ((clock_state_t *) state)->ref[slot] = 1;
}

static void
clock_insert(void *state, uint32_t slot, uint64_t key)
{
    (void) key;
    ((clock_state_t *) state)->ref[slot] = 0;
}

static void
clock_remove(void *state, uint32_t slot)
{
    ((clock_state_t *) state)->ref[slot] = FREE;
}

/* Called with every slot resident, so the sweep ends within two turns. */
static uint32_t
clock_evict(void *state, uint64_t incoming_key, const uint32_t *pins)
{
    clock_state_t *c = state;
    uint32_t       victim, n, hand = c->hand;

    (void) incoming_key;
    /* the hand passes a pinned frame and leaves its bit; two turns clear
     * every other bit, so a third finding nothing means all are pinned */
    for (n = 0; n <= 2 * c->nslots; n++) {
        victim = c->hand;
        c->hand = c->hand + 1 == c->nslots ? 0 : c->hand + 1;
        if (pins != NULL && pins[victim] > 0) {
            continue;
        }
        if (c->ref[victim] == 0) {
            c->ref[victim] = FREE;
            return victim;
        }
        if (c->ref[victim] == 1) {
            c->ref[victim] = 0;
        }
    }
    c->hand = hand;
    return SNIC_SLOT_NONE;
}

const snic_policy_t snic_policy_clock = {
    "clock",      "CLOCK: one reference bit, a sweeping hand",
    clock_create, clock_destroy,
    clock_hit,    clock_insert,
    clock_remove, clock_evict,
};
