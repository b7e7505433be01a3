/*
 * An open-addressing hash of paths to sizes; the paths are copied into
 * one growing arena, so memory grows with the distinct files, not with
 * the trace.
 */

#include <stdlib.h>
#include <string.h>

#include "files.h"

typedef struct {
    uint64_t hash;
    uint64_t size;
    size_t   off; /* in the arena */
    uint32_t len;
    uint32_t id;
    uint8_t  used;
} slot_t;

struct trace_files_s {
    slot_t  *slots;
    size_t   cap; /* a power of two */
    size_t   count;
    uint64_t bytes;
    char    *arena;
    size_t   arena_len, arena_size;
};

static uint64_t
hash_path(const char *p, size_t n)
{
    uint64_t h = 14695981039346656037ULL;
    size_t   i;

    for (i = 0; i < n; i++) {
        h ^= (unsigned char) p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

trace_files_t *
trace_files_new(void)
{
    trace_files_t *f = calloc(1, sizeof(*f));

    if (f == NULL) {
        return NULL;
    }
    f->cap = 1024;
    f->slots = calloc(f->cap, sizeof(slot_t));
    if (f->slots == NULL) {
        free(f);
        return NULL;
    }
    return f;
}

void
trace_files_free(trace_files_t *f)
{
    if (f == NULL) {
        return;
    }
    free(f->slots);
    free(f->arena);
    free(f);
}

size_t
trace_path_len(const char *url, size_t len)
{
    const char *q = memchr(url, '?', len);

    return q == NULL ? len : (size_t) (q - url);
}

static int
grow(trace_files_t *f)
{
    slot_t *old = f->slots, *s;
    size_t  oldcap = f->cap, i, j;

    f->slots = calloc(oldcap * 2, sizeof(slot_t));
    if (f->slots == NULL) {
        f->slots = old;
        return -1;
    }
    f->cap = oldcap * 2;
    for (i = 0; i < oldcap; i++) {
        if (!old[i].used) {
            continue;
        }
        for (j = old[i].hash & (f->cap - 1); f->slots[j].used;
             j = (j + 1) & (f->cap - 1)) {
        }
        s = &f->slots[j];
        *s = old[i];
    }
    free(old);
    return 0;
}

/* The slot of path p (n bytes, hash h), or the empty slot it would take. */
static size_t
probe(const trace_files_t *f, const char *p, size_t n, uint64_t h)
{
    size_t        i;
    const slot_t *s;

    for (i = h & (f->cap - 1); f->slots[i].used; i = (i + 1) & (f->cap - 1)) {
        s = &f->slots[i];
        if (s->hash == h && s->len == n
            && memcmp(f->arena + s->off, p, n) == 0) {
            break;
        }
    }
    return i;
}

int
trace_files_add(trace_files_t *f, const trace_req_t *r)
{
    size_t   n, i;
    uint64_t h;
    slot_t  *s;

    if ((r->status != 200 && r->status != 206) || r->bytes == 0
        || r->url == NULL) {
        return 0;
    }
    n = trace_path_len(r->url, r->url_len);
    h = hash_path(r->url, n);
    i = probe(f, r->url, n, h);
    s = &f->slots[i];
    if (s->used) {
        if (r->bytes > s->size) {
            f->bytes += r->bytes - s->size;
            s->size = r->bytes;
        }
        return 0;
    }

    if (f->arena_len + n > f->arena_size) {
        size_t size = f->arena_size ? f->arena_size * 2 : 65536;
        char  *a;

        while (f->arena_len + n > size) {
            size *= 2;
        }
        a = realloc(f->arena, size);
        if (a == NULL) {
            return -1;
        }
        f->arena = a;
        f->arena_size = size;
    }
    memcpy(f->arena + f->arena_len, r->url, n);
    s->used = 1;
    s->hash = h;
    s->len = (uint32_t) n;
    s->off = f->arena_len;
    s->size = r->bytes;
    s->id = (uint32_t) f->count;
    f->arena_len += n;
    f->count++;
    f->bytes += r->bytes;
    if (f->count * 2 > f->cap) {
        return grow(f);
    }
    return 0;
}

int
trace_files_find(const trace_files_t *f, const char *url, size_t len,
                 uint64_t *size, uint32_t *id)
{
    size_t        n = trace_path_len(url, len);
    const slot_t *s = &f->slots[probe(f, url, n, hash_path(url, n))];

    if (!s->used) {
        return -1;
    }
    *size = s->size;
    *id = s->id;
    return 0;
}

uint64_t
trace_files_count(const trace_files_t *f)
{
    return f->count;
}

uint64_t
trace_files_bytes(const trace_files_t *f)
{
    return f->bytes;
}

void
trace_files_each(const trace_files_t *f,
                 void (*fn)(const char *path, size_t len, uint64_t size,
                            void *arg),
                 void *arg)
{
    size_t i;

    for (i = 0; i < f->cap; i++) {
        if (f->slots[i].used) {
            fn(f->arena + f->slots[i].off, f->slots[i].len, f->slots[i].size,
               arg);
        }
    }
}
