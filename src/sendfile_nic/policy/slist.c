/*
 * The slot list and the plain queue that the queue-based policies share
 * (policy.h).  Apart from the policy table, so that a policy depends on
 * these helpers and the table on the policies, never the other way.
 */

#include <stdlib.h>
#include <string.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/policy/policy.h"

int
snic_slist_init(snic_slist_t *l, uint32_t nslots)
{
    l->prev = snic_malloc(sizeof(uint32_t) * nslots);
    l->next = snic_malloc(sizeof(uint32_t) * nslots);
    l->head = l->tail = SNIC_SLOT_NONE;
    l->count = 0;
    if (l->prev == NULL || l->next == NULL) {
        snic_slist_free(l);
        return -1;
    }
    return 0;
}

void
snic_slist_free(snic_slist_t *l)
{
    snic_free(l->prev);
    snic_free(l->next);
    l->prev = l->next = NULL;
}

void
snic_slist_push_head(snic_slist_t *l, uint32_t slot)
{
    l->prev[slot] = SNIC_SLOT_NONE;
    l->next[slot] = l->head;
    if (l->head != SNIC_SLOT_NONE) {
        l->prev[l->head] = slot;
    } else {
        l->tail = slot;
    }
    l->head = slot;
    l->count++;
}

void
snic_slist_unlink(snic_slist_t *l, uint32_t slot)
{
    uint32_t p = l->prev[slot], n = l->next[slot];

    if (p != SNIC_SLOT_NONE) {
        l->next[p] = n;
    } else {
        l->head = n;
    }
    if (n != SNIC_SLOT_NONE) {
        l->prev[n] = p;
    } else {
        l->tail = p;
    }
    l->count--;
}

void *
snic_queue_create(uint32_t nslots)
{
    snic_slist_t *l = snic_malloc(sizeof(*l));

    if (l == NULL || snic_slist_init(l, nslots) != 0) {
        snic_free(l);
        return NULL;
    }
    return l;
}

void
snic_queue_destroy(void *state)
{
    snic_slist_free(state);
    snic_free(state);
}

void
snic_queue_insert(void *state, uint32_t slot, uint64_t key)
{
    (void) key;
    snic_slist_push_head(state, slot);
}

void
snic_queue_remove(void *state, uint32_t slot)
{
    snic_slist_unlink(state, slot);
}

uint32_t
snic_queue_evict(void *state, uint64_t incoming_key, const uint32_t *pins)
{
    snic_slist_t *l = state;
    uint32_t      victim = snic_slist_last_unpinned(l, pins);

    (void) incoming_key;
    if (victim != SNIC_SLOT_NONE) {
        snic_slist_unlink(l, victim);
    }
    return victim;
}
