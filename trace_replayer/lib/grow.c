/*
 * The trace library's one growable array (grow.h).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

int
trace_grow_to(void *items, size_t *cap, size_t need, size_t size, size_t first)
{
    size_t n = *cap ? *cap : (first ? first : 1);
    void  *p;

    while (n < need) {
        if (n > SIZE_MAX / 2) {
            return -1;
        }
        n *= 2;
    }
    if (size != 0 && n > SIZE_MAX / size) {
        return -1;
    }
    memcpy(&p, items, sizeof(p));
    p = realloc(p, n * size);
    if (p == NULL) {
        return -1;
    }
    memcpy(items, &p, sizeof(p));
    *cap = n;
    return 0;
}

int
trace_grow_zeroed_to(void *items, size_t *cap, size_t need, size_t size,
                     size_t first)
{
    size_t old = *cap;
    char  *p;

    if (trace_grow_to(items, cap, need, size, first) != 0) {
        return -1;
    }
    memcpy(&p, items, sizeof(p));
    memset(p + old * size, 0, (*cap - old) * size);
    return 0;
}
