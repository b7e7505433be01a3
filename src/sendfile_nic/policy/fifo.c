/*
 * FIFO: evict the block cached longest ago; a hit changes nothing.
 */

#include "sendfile_nic/policy/policy.h"

static void
fifo_hit(void *state, uint32_t slot)
{
    (void) state;
    (void) slot;
}

const snic_policy_t snic_policy_fifo = {
    "fifo",   "first in, first out", snic_queue_create, snic_queue_destroy,
    fifo_hit, snic_queue_insert,     snic_queue_remove, snic_queue_evict,
};
