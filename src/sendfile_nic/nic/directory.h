/*
 * The NIC cache directory (the host-side "driver" state of the paper,
 * section 4): which file block each slot of NIC memory holds.
 *
 * One entry per slot, annotated with the file id (device, inode), the
 * block number within the file and the file's revision.  Lookup is O(1)
 * through a hash table keyed by (file id, block).  Invalidation is lazy:
 * a lookup that finds the block under another revision frees the slot and
 * counts an invalidation; nothing scans the directory when files change.
 * Replacement is delegated to a policy (policy/).  No I/O, and no
 * allocation after snic_dir_create(): the same code runs in the server
 * and in the simulator.
 */

#ifndef SNIC_DIRECTORY_H
#define SNIC_DIRECTORY_H

#include <stdint.h>

#include "sendfile_nic/policy/policy.h"

typedef struct {
    uint64_t dev;
    uint64_t ino;
    uint64_t block; /* block number: file offset / block size */
} snic_block_id_t;

typedef struct {
    uint64_t lookups;
    uint64_t hits;
    uint64_t misses;
    uint64_t inserts;
    uint64_t evictions;
    uint64_t invalidations;
} snic_dir_stats_t;

typedef struct snic_dir_s snic_dir_t;

/* A directory of nslots slots replaced by policy; NULL if out of memory. */
snic_dir_t *snic_dir_create(uint32_t nslots, const snic_policy_t *policy);
void        snic_dir_destroy(snic_dir_t *d);

/*
 * The slot holding block id at revision, or SNIC_SLOT_NONE (a miss).  A
 * hit tells the policy.  The block held under another revision is freed
 * first (an invalidation) and the lookup is a miss.
 */
uint32_t snic_dir_lookup(snic_dir_t *d, const snic_block_id_t *id,
                         uint64_t revision);

/*
 * Record block id at revision after a miss and return its slot: a free
 * one, or one taken from the block the policy evicts (*evicted = 1; its
 * memory must not be reused while sends may still read it).  The block
 * must not be resident.
 */
uint32_t snic_dir_insert(snic_dir_t *d, const snic_block_id_t *id,
                         uint64_t revision, int *evicted);

/*
 * Forget the block in slot (its contents could not be loaded): the slot
 * is free again and the policy forgets it.  Counted as nothing.
 */
void snic_dir_remove(snic_dir_t *d, uint32_t slot);

/*
 * Pins: a slot whose bytes a sender still has to read from NIC memory
 * (the nginx module hands buffers pointing there to nginx, which sends
 * them later) must not be replaced meanwhile.  The policy passes over
 * pinned slots, which keep their place and state in it (policy.h), and
 * snic_dir_insert() returns SNIC_SLOT_NONE when every slot is pinned.
 * Pins are off (no memory, no cost) until snic_dir_pins_init(); 0 or -1.
 */
int  snic_dir_pins_init(snic_dir_t *d);
void snic_dir_pin(snic_dir_t *d, uint32_t slot);
void snic_dir_unpin(snic_dir_t *d, uint32_t slot);

const snic_dir_stats_t *snic_dir_stats(const snic_dir_t *d);
uint32_t                snic_dir_used(const snic_dir_t *d);

#endif /* SNIC_DIRECTORY_H */
