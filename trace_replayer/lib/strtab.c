/*
 * Interned strings: slots of (hash, id) in an open-addressing table; per
 * id, the offset and length of its bytes in the arena.
 */

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "lib/grow.h"
#include "lib/strtab.h"

typedef struct {
    uint64_t hash;
    uint32_t id; /* UINT32_MAX: empty */
} slot_t;

struct trace_strtab_s {
    slot_t   *slots;
    size_t    cap; /* a power of two, at least twice count */
    uint32_t  count;
    size_t   *off;
    uint32_t *len;
    size_t    ids_cap;
    char     *arena;
    size_t    arena_len, arena_size;
};

static slot_t *
empty_slots(size_t cap)
{
    slot_t *s = malloc(cap * sizeof(slot_t));
    size_t  i;

    for (i = 0; s != NULL && i < cap; i++) {
        s[i].id = UINT32_MAX;
    }
    return s;
}

trace_strtab_t *
trace_strtab_new(void)
{
    trace_strtab_t *t = calloc(1, sizeof(*t));

    if (t == NULL) {
        return NULL;
    }
    t->cap = 1024;
    t->slots = empty_slots(t->cap);
    /* never NULL, so that even an empty first string has an address */
    t->arena_size = 65536;
    t->arena = malloc(t->arena_size);
    if (t->slots == NULL || t->arena == NULL) {
        free(t->slots);
        free(t->arena);
        free(t);
        return NULL;
    }
    return t;
}

void
trace_strtab_free(trace_strtab_t *t)
{
    if (t == NULL) {
        return;
    }
    free(t->slots);
    free(t->off);
    free(t->len);
    free(t->arena);
    free(t);
}

/* The slot of s, or the empty slot it would take. */
static size_t
probe(const trace_strtab_t *t, const char *s, size_t n, uint64_t h)
{
    size_t i;

    for (i = h & (t->cap - 1); t->slots[i].id != UINT32_MAX;
         i = (i + 1) & (t->cap - 1)) {
        uint32_t id = t->slots[i].id;

        if (t->slots[i].hash == h && t->len[id] == n
            && memcmp(t->arena + t->off[id], s, n) == 0) {
            break;
        }
    }
    return i;
}

static int
grow(trace_strtab_t *t)
{
    slot_t *old = t->slots;
    size_t  oldcap = t->cap, i, j;

    t->slots = empty_slots(oldcap * 2);
    if (t->slots == NULL) {
        t->slots = old;
        return -1;
    }
    t->cap = oldcap * 2;
    for (i = 0; i < oldcap; i++) {
        if (old[i].id == UINT32_MAX) {
            continue;
        }
        for (j = old[i].hash & (t->cap - 1); t->slots[j].id != UINT32_MAX;
             j = (j + 1) & (t->cap - 1)) {
        }
        t->slots[j] = old[i];
    }
    free(old);
    return 0;
}

int
trace_strtab_intern(trace_strtab_t *t, const char *s, size_t len, uint32_t *id,
                    int *added)
{
    uint64_t h = nicache_fnv1a64(s, len);
    size_t   i = probe(t, s, len, h);

    *added = 0;
    if (t->slots[i].id != UINT32_MAX) {
        *id = t->slots[i].id;
        return 0;
    }
    if (t->count == t->ids_cap) {
        /* two arrays of one capacity: the second grows as the first did */
        size_t cap = t->ids_cap;

        if (trace_grow(&t->off, &cap, t->count + 1, sizeof(size_t), 1024) != 0
            || trace_grow(&t->len, &t->ids_cap, t->count + 1, sizeof(uint32_t),
                          1024)
                   != 0) {
            return -1;
        }
    }
    if (trace_grow(&t->arena, &t->arena_size, t->arena_len + len, 1, 65536)
        != 0) {
        return -1;
    }
    memcpy(t->arena + t->arena_len, s, len);
    t->off[t->count] = t->arena_len;
    t->len[t->count] = (uint32_t) len;
    t->arena_len += len;
    t->slots[i].hash = h;
    t->slots[i].id = t->count;
    *id = t->count++;
    *added = 1;
    if ((size_t) t->count * 2 > t->cap) {
        return grow(t);
    }
    return 0;
}

int
trace_strtab_find(const trace_strtab_t *t, const char *s, size_t len,
                  uint32_t *id)
{
    size_t i = probe(t, s, len, nicache_fnv1a64(s, len));

    if (t->slots[i].id == UINT32_MAX) {
        return -1;
    }
    *id = t->slots[i].id;
    return 0;
}

uint32_t
trace_strtab_count(const trace_strtab_t *t)
{
    return t->count;
}

const char *
trace_strtab_get(const trace_strtab_t *t, uint32_t id, size_t *len)
{
    *len = t->len[id];
    return t->arena + t->off[id];
}
