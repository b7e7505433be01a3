/*
 * The trace library's one growable array: any array of fixed-size items
 * that grows by doubling.  An array is a pointer and its capacity in
 * items; trace_grow() makes room, the caller keeps its own count.
 */

#ifndef TRACE_GROW_H
#define TRACE_GROW_H

#include <stddef.h>

/*
 * Makes the array *items (items is the address of its pointer) hold at
 * least need items of size bytes: its capacity *cap doubles, from first
 * when it is 0, until it does; what it held is kept.  Returns 0, or -1
 * when out of memory or when the bytes would not fit a size_t (the array
 * and *cap then stay as they were).
 */
int trace_grow_to(void *items, size_t *cap, size_t need, size_t size,
                  size_t first);

/* trace_grow_to() when the array is full, nothing otherwise: the common
 * case stays inline in the loops that append */
static inline int
trace_grow(void *items, size_t *cap, size_t need, size_t size, size_t first)
{
    return need <= *cap ? 0 : trace_grow_to(items, cap, need, size, first);
}

/* trace_grow_to() whose new items are all bytes zero (counters, NULL
 * pointers, "not seen" marks), the old ones kept */
int trace_grow_zeroed_to(void *items, size_t *cap, size_t need, size_t size,
                         size_t first);

static inline int
trace_grow_zeroed(void *items, size_t *cap, size_t need, size_t size,
                  size_t first)
{
    return need <= *cap ? 0
                        : trace_grow_zeroed_to(items, cap, need, size, first);
}

#endif
