/*
 * Replacement policies of the NIC data cache, shared by the nic backend's
 * directory and by the trace-driven simulator, so that the simulator
 * predicts what the server does.  No I/O and no allocation after
 * create(): every structure is sized for the cache's slot count.
 *
 * A policy sees cache slots (0 .. nslots-1, one per block of NIC memory)
 * and the keys of the blocks they hold.  The directory calls:
 *   hit(slot)            a resident block was used again;
 *   insert(slot, key)    a free slot now holds the block key;
 *   remove(slot)         a slot was freed outside replacement (invalidated);
 *   evict(key)           the cache is full and key must come in: choose a
 *                        resident slot, forget it, return it (the directory
 *                        then calls insert() on it).
 * All operations are mandatory.
 */

#ifndef SNIC_POLICY_H
#define SNIC_POLICY_H

#include <stdint.h>

#define SNIC_SLOT_NONE UINT32_MAX

typedef struct snic_policy_s {
    const char *name;
    const char *description;

    /* State for nslots slots (nslots > 0), or NULL when out of memory. */
    void *(*create)(uint32_t nslots);
    void (*destroy)(void *state);

    void (*hit)(void *state, uint32_t slot);
    void (*insert)(void *state, uint32_t slot, uint64_t key);
    void (*remove)(void *state, uint32_t slot);
    uint32_t (*evict)(void *state, uint64_t incoming_key);
} snic_policy_t;

/* The compiled policies, NULL-terminated; the first is the default. */
extern const snic_policy_t *const snic_policies[];

/* The policy called name, or NULL. */
const snic_policy_t *snic_policy_find(const char *name);

/*
 * A doubly-linked list threaded through per-slot arrays, for the
 * queue-based policies.  head is the newest end.
 */
typedef struct {
    uint32_t *prev; /* toward the head */
    uint32_t *next; /* toward the tail */
    uint32_t  head;
    uint32_t  tail;
    uint32_t  count;
} snic_slist_t;

/* Allocate the links of an empty list of nslots slots; 0 or -1. */
int  snic_slist_init(snic_slist_t *l, uint32_t nslots);
void snic_slist_free(snic_slist_t *l);
void snic_slist_push_head(snic_slist_t *l, uint32_t slot);
void snic_slist_unlink(snic_slist_t *l, uint32_t slot);

/*
 * A plain queue of resident slots, newest at the head, eviction at the
 * tail: the state and the operations LRU and FIFO have in common (they
 * differ only in hit()).
 */
void    *snic_queue_create(uint32_t nslots);
void     snic_queue_destroy(void *state);
void     snic_queue_insert(void *state, uint32_t slot, uint64_t key);
void     snic_queue_remove(void *state, uint32_t slot);
uint32_t snic_queue_evict(void *state, uint64_t incoming_key);

#endif /* SNIC_POLICY_H */
