/*
 * The trace library's one binary heap, written once for every element
 * type (records held for time order, sessions by their next request,
 * blocks by hash or by next use, connections by their next send).
 *
 * TRACE_HEAP_DEFINE(name, type, less, moved) defines
 *
 *   name_t                     { type *a; size_t n, cap; void *ctx; }
 *   int  name_push(h, x)       adds x: 0, or -1 when out of memory
 *   type name_pop(h)           takes a[0], the least (h->n > 0)
 *   void name_up(h, i, x)      puts x at i, where the element was, and
 *                              moves it towards the root (x is less)
 *   void name_down(h, i, x)    puts x at i and moves it towards the
 *                              leaves (x is not less): name_down(h, 0, x)
 *                              replaces the least
 *   void name_free(h)
 *
 * less(pa, pb) is 1 when *pa goes before *pb (a min-heap by it; a
 * max-heap is a less that compares the other way).  moved(h, pa, i) is
 * called each time an element lands at a[i], so an indexed heap can keep
 * every element's place (TRACE_HEAP_UNINDEXED when none is kept).  The
 * functions are static inline: each heap compiles with its comparison in
 * place, as a hand-written one does.  Elements equal by less leave in an
 * order that depends only on the calls made, the same on every machine.
 */

#ifndef TRACE_HEAP_H
#define TRACE_HEAP_H

#include <stdlib.h>

#include "lib/grow.h"

#define TRACE_HEAP_UNINDEXED(h, pa, i) ((void) 0)

#define TRACE_HEAP_DEFINE(name, type, less, moved)                             \
    typedef struct {                                                           \
        type  *a;                                                              \
        size_t n, cap;                                                         \
        void  *ctx; /* for less and moved */                                   \
    } name##_t;                                                                \
                                                                               \
    static inline void name##_put(name##_t *h, size_t i, type x)               \
    {                                                                          \
        h->a[i] = x;                                                           \
        moved(h, &h->a[i], i);                                                 \
    }                                                                          \
                                                                               \
    static inline void name##_up(name##_t *h, size_t i, type x)                \
    {                                                                          \
        while (i > 0 && less(&x, &h->a[(i - 1) / 2])) {                        \
            name##_put(h, i, h->a[(i - 1) / 2]);                               \
            i = (i - 1) / 2;                                                   \
        }                                                                      \
        name##_put(h, i, x);                                                   \
    }                                                                          \
                                                                               \
    static inline void name##_down(name##_t *h, size_t i, type x)              \
    {                                                                          \
        size_t c;                                                              \
                                                                               \
        while ((c = 2 * i + 1) < h->n) {                                       \
            if (c + 1 < h->n && less(&h->a[c + 1], &h->a[c])) {                \
                c++;                                                           \
            }                                                                  \
            if (!less(&h->a[c], &x)) {                                         \
                break;                                                         \
            }                                                                  \
            name##_put(h, i, h->a[c]);                                         \
            i = c;                                                             \
        }                                                                      \
        name##_put(h, i, x);                                                   \
    }                                                                          \
                                                                               \
    static inline int name##_push(name##_t *h, type x)                         \
    {                                                                          \
        if (trace_grow(&h->a, &h->cap, h->n + 1, sizeof(type), 64) != 0) {     \
            return -1;                                                         \
        }                                                                      \
        h->n++;                                                                \
        name##_up(h, h->n - 1, x);                                             \
        return 0;                                                              \
    }                                                                          \
                                                                               \
    static inline type name##_pop(name##_t *h)                                 \
    {                                                                          \
        type top = h->a[0];                                                    \
                                                                               \
        if (--h->n > 0) {                                                      \
            name##_down(h, 0, h->a[h->n]);                                     \
        }                                                                      \
        return top;                                                            \
    }                                                                          \
                                                                               \
    static inline void name##_free(name##_t *h)                                \
    {                                                                          \
        free(h->a);                                                            \
        h->a = NULL;                                                           \
        h->n = h->cap = 0;                                                     \
    }

#endif
