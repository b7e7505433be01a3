/* Unit tests of trace_replayer/lib/heap.h and grow.c (linked) */

#include <stdint.h>

#include "lib/grow.h"
#include "lib/heap.h"
#include "lib/rng.h"
#include "harness.h"

typedef struct {
    uint32_t key, seq;
} item_t;

#define ITEM_LESS(a, b) ((a)->key < (b)->key)
TRACE_HEAP_DEFINE(item_heap, item_t, ITEM_LESS, TRACE_HEAP_UNINDEXED)

/* an indexed max-heap: ctx is where each id sits */
#define ID_LATER(a, b)    ((a)->key > (b)->key)
#define ID_MOVED(h, e, i) (((size_t *) (h)->ctx)[(e)->seq] = (i))
TRACE_HEAP_DEFINE(id_heap, item_t, ID_LATER, ID_MOVED)

static void
test_grow(void)
{
    uint32_t *a = NULL;
    size_t    cap = 0, i;

    CHECK_INT(trace_grow(&a, &cap, 1, sizeof(*a), 8), 0);
    CHECK_INT(cap, 8);
    for (i = 0; i < 8; i++) {
        a[i] = (uint32_t) i;
    }
    CHECK_INT(trace_grow(&a, &cap, 8, sizeof(*a), 8), 0); /* room enough */
    CHECK_INT(cap, 8);
    CHECK_INT(trace_grow(&a, &cap, 100, sizeof(*a), 8), 0);
    CHECK_INT(cap, 128); /* doubled until it held 100 */
    for (i = 0; i < 8; i++) {
        CHECK_INT(a[i], i); /* kept */
    }
    /* more than a size_t can count: refused, the array as it was */
    CHECK_INT(trace_grow(&a, &cap, SIZE_MAX / 2, sizeof(*a), 8), -1);
    CHECK_INT(cap, 128);
    CHECK_INT(a[7], 7);
    free(a);

    /* zeroed: the new items are zero, the old kept */
    a = NULL;
    cap = 0;
    CHECK_INT(trace_grow_zeroed(&a, &cap, 3, sizeof(*a), 4), 0);
    CHECK_INT(cap, 4);
    for (i = 0; i < 4; i++) {
        CHECK_INT(a[i], 0);
        a[i] = 9;
    }
    CHECK_INT(trace_grow_zeroed(&a, &cap, 5, sizeof(*a), 4), 0);
    CHECK_INT(cap, 8);
    for (i = 0; i < 8; i++) {
        CHECK_INT(a[i], i < 4 ? 9 : 0);
    }
    free(a);
}

/* pops come out least first, however the keys came in */
static void
test_order(void)
{
    item_heap_t h = {NULL, 0, 0, NULL};
    uint64_t    rng = 42;
    item_t      x, prev = {0, 0};
    uint32_t    i, n = 5000;

    for (i = 0; i < n; i++) {
        x.key = (uint32_t) (trace_rng_next(&rng) % 1000);
        x.seq = i;
        CHECK_INT(item_heap_push(&h, x), 0);
    }
    CHECK_INT(h.n, n);
    for (i = 0; i < n; i++) {
        x = item_heap_pop(&h);
        CHECK(x.key >= prev.key);
        prev = x;
    }
    CHECK_INT(h.n, 0);
    item_heap_free(&h);
    CHECK(h.a == NULL && h.cap == 0);
}

static int
id_heap_consistent(const id_heap_t *h, const size_t *pos)
{
    size_t i;

    for (i = 0; i < h->n; i++) {
        if (pos[h->a[i].seq] != i
            || (i > 0 && h->a[(i - 1) / 2].key < h->a[i].key)) {
            return 0;
        }
    }
    return 1;
}

/* an indexed heap keeps every place through pushes, raises and
 * replacements of the top, as OPT uses it */
static void
test_indexed(void)
{
    static size_t pos[64];
    id_heap_t     h = {NULL, 0, 0, pos};
    uint64_t      rng = 7;
    uint32_t      i, id;
    item_t        top;

    for (i = 0; i < 64; i++) {
        CHECK_INT(id_heap_push(&h, (item_t){(uint32_t) (i * 37 % 64), i}), 0);
    }
    CHECK(id_heap_consistent(&h, pos));
    for (i = 0; i < 1000; i++) {
        id = (uint32_t) (trace_rng_next(&rng) % 64);
        if (i % 2) {
            /* its key raised: it moves towards the root */
            id_heap_up(&h, pos[id], (item_t){h.a[pos[id]].key + 5, id});
        } else {
            /* the top replaced by one needed sooner */
            top = h.a[0];
            id_heap_down(&h, 0, (item_t){top.key / 2, top.seq});
        }
        CHECK(id_heap_consistent(&h, pos));
    }
    top = id_heap_pop(&h);
    CHECK_INT(h.n, 63);
    CHECK(id_heap_consistent(&h, pos));
    CHECK(top.key >= h.a[0].key);
    id_heap_free(&h);
}

int
main(void)
{
    RUN(test_grow);
    RUN(test_order);
    RUN(test_indexed);
    return harness_report("heap");
}
