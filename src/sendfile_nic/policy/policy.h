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
 *   evict(key, pins)     the cache is full and key must come in: choose a
 *                        resident slot that is not pinned (pins[slot] > 0:
 *                        a sender still reads it; pins NULL: none is),
 *                        forget it, return it (the directory then calls
 *                        insert() on it); SNIC_SLOT_NONE, and nothing
 *                        changed, when every resident slot is pinned.
 * All operations are mandatory.  A pinned slot is passed over where the
 * policy would have taken it, and keeps its place and its state (its
 * recency, frequency, reference bit, queue), as a page the kernel cannot
 * reclaim yet stays where it is on its list.
 */

#ifndef SNIC_POLICY_H
#define SNIC_POLICY_H

#include <stddef.h>
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
    uint32_t (*evict)(void *state, uint64_t incoming_key, const uint32_t *pins);
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

/* The slot nearest l's tail that is not pinned, or SNIC_SLOT_NONE. */
static inline uint32_t
snic_slist_last_unpinned(const snic_slist_t *l, const uint32_t *pins)
{
    uint32_t s = l->tail;

    while (pins != NULL && s != SNIC_SLOT_NONE && pins[s] > 0) {
        s = l->prev[s];
    }
    return s;
}

/*
 * A plain queue of resident slots, newest at the head, eviction at the
 * tail: the state and the operations LRU and FIFO have in common (they
 * differ only in hit()).
 */
void    *snic_queue_create(uint32_t nslots);
void     snic_queue_destroy(void *state);
void     snic_queue_insert(void *state, uint32_t slot, uint64_t key);
void     snic_queue_remove(void *state, uint32_t slot);
uint32_t snic_queue_evict(void *state, uint64_t incoming_key,
                          const uint32_t *pins);

#endif /* SNIC_POLICY_H */
