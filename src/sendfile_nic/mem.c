/*
 * Where the nic backend's long-lived structures come from: the C heap, or
 * an allocator the embedding program sets (the nginx module: a shared
 * memory zone, so that every worker process sees one emulated NIC).
 * Everything the backend keeps is allocated once, at init, so an arena
 * that never frees is enough.
 */

#include <stdlib.h>
#include <string.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_nic.h"
#include "sendfile_nic/snic_backend.h"

static snic_allocator_t        heap; /* all NULL: the C heap */
static const snic_allocator_t *cur = &heap;

void
snic_set_allocator(const snic_allocator_t *a)
{
    cur = a != NULL ? a : &heap;
}

int
snic_allocator_shared(void)
{
    return cur->shared;
}

void *
snic_calloc(size_t n, size_t size)
{
    void *p;

    if (cur->alloc == NULL) {
        return calloc(n, size);
    }
    if (size != 0 && n > (size_t) -1 / size) {
        return NULL;
    }
    p = cur->alloc(cur->ctx, n * size);
    if (p != NULL) {
        memset(p, 0, n * size);
    }
    return p;
}

void *
snic_malloc(size_t size)
{
    return cur->alloc == NULL ? malloc(size) : cur->alloc(cur->ctx, size);
}

void
snic_free(void *p)
{
    if (cur->alloc == NULL) {
        free(p);
    } else if (cur->free != NULL && p != NULL) {
        cur->free(cur->ctx, p);
    }
}
