/*
 * LRU, the paper's policy: evict the block used least recently.  The
 * shared queue with the slot moved to the head on every hit.
 */

#include "sendfile_nic/policy/policy.h"

static void
lru_hit(void *state, uint32_t slot)
{
    snic_slist_unlink(state, slot);
    snic_slist_push_head(state, slot);
}

const snic_policy_t snic_policy_lru = {
    "lru",
    "least recently used (the paper's policy)",
    snic_queue_create,
    snic_queue_destroy,
    lru_hit,
    snic_queue_insert,
    snic_queue_remove,
    snic_queue_evict,
};
