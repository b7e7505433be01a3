/*
 * Shared by the per-policy tests: run a sequence of one-letter blocks
 * through a directory of cap slots, return the hits and write the letters
 * of the evicted blocks, in eviction order, to victims.
 */

#ifndef SEQ_H
#define SEQ_H

#include "sendfile_nic/nic/directory.h"

static int
run_seq(const snic_policy_t *p, uint32_t cap, const char *seq, char *victims)
{
    snic_dir_t     *d = snic_dir_create(cap, p);
    snic_block_id_t id = {1, 2, 0};
    char            held[64] = {0};
    uint32_t        slot;
    int             evicted, hits;

    for (; *seq != '\0'; seq++) {
        id.block = (uint64_t) *seq;
        if (snic_dir_lookup(d, &id, 1) != SNIC_SLOT_NONE) {
            continue;
        }
        slot = snic_dir_insert(d, &id, 1, &evicted);
        if (evicted) {
            *victims++ = held[slot];
        }
        held[slot] = *seq;
    }
    *victims = '\0';
    hits = (int) snic_dir_stats(d)->hits;
    snic_dir_destroy(d);
    return hits;
}

#endif /* SEQ_H */
