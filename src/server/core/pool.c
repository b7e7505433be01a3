/*
 * Blocks lent by a worker (pool.h).
 */

#include <stdlib.h>
#include <sys/mman.h>

#include "server/core/pool.h"

void
nicd_pool_init(nicd_pool_t *p, size_t size, unsigned keep, int mapped)
{
    p->size = size < sizeof(void *) ? sizeof(void *) : size;
    p->keep = keep;
    p->nspare = 0;
    p->mapped = mapped;
    p->spare = NULL;
    p->lent = 0;
}

static void
release(nicd_pool_t *p, void *b)
{
    if (p->mapped) {
        munmap(b, p->size);
    } else {
        free(b);
    }
}

void *
nicd_pool_get(nicd_pool_t *p)
{
    void *b = p->spare;

    if (b != NULL) {
        p->spare = *(void **) b;
        p->nspare--;
    } else if (p->mapped) {
        b = mmap(NULL, p->size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED) {
            return NULL;
        }
    } else if ((b = malloc(p->size)) == NULL) {
        return NULL;
    }
    p->lent++;
    return b;
}

void
nicd_pool_put(nicd_pool_t *p, void *b)
{
    if (b == NULL) {
        return;
    }
    p->lent--;
    if (p->nspare >= p->keep) {
        release(p, b);
        return;
    }
    *(void **) b = p->spare;
    p->spare = b;
    p->nspare++;
}

void
nicd_pool_drain(nicd_pool_t *p)
{
    void *b;

    while ((b = p->spare) != NULL) {
        p->spare = *(void **) b;
        release(p, b);
    }
    p->nspare = 0;
}
