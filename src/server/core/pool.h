/*
 * Blocks lent by a worker: a connection borrows its buffers for the time a
 * request or a flush needs them and gives them back when it goes idle, so
 * an idle keep-alive connection holds no buffer (as nginx frees its
 * header buffer between requests).  A pool keeps a bounded number of
 * spare blocks for the next borrower and gives the rest back to the
 * allocator; large blocks come from mmap(2), so what is given back leaves
 * the process at once.  One pool belongs to one worker thread: no locks.
 */

#ifndef NICD_POOL_H
#define NICD_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t   size;   /* bytes of a block */
    unsigned keep;   /* spare blocks kept at most */
    unsigned nspare; /* spare blocks now */
    int      mapped; /* blocks from mmap(2), else malloc(3) */
    void    *spare;  /* spare blocks, linked through their first bytes */
    uint64_t lent;   /* blocks out now */
} nicd_pool_t;

/* size: at least a pointer's; mapped: a multiple of the page size. */
void nicd_pool_init(nicd_pool_t *p, size_t size, unsigned keep, int mapped);
/* A block of p->size bytes (contents undefined), or NULL. */
void *nicd_pool_get(nicd_pool_t *p);
/* Give back a block that nicd_pool_get() returned (NULL: nothing). */
void nicd_pool_put(nicd_pool_t *p, void *b);
/* Give every spare block back to the system. */
void nicd_pool_drain(nicd_pool_t *p);

#endif /* NICD_POOL_H */
