/*
 * Connection grouping: an open-addressing hash from client key to the
 * time of its last request and its current connection; memory grows with
 * the distinct clients, not with the trace.
 */

#include <stdlib.h>

#include "sessions.h"

typedef struct {
    uint64_t client;
    int64_t  last;
    uint64_t session;
    uint8_t  used;
} slot_t;

struct trace_sessions_s {
    slot_t  *slots;
    size_t   cap;
    size_t   count;
    int64_t  gap;
    uint64_t next;
};

trace_sessions_t *
trace_sessions_new(int64_t conn_gap)
{
    trace_sessions_t *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        return NULL;
    }
    s->cap = 1024;
    s->gap = conn_gap;
    s->slots = calloc(s->cap, sizeof(slot_t));
    if (s->slots == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

void
trace_sessions_free(trace_sessions_t *s)
{
    if (s != NULL) {
        free(s->slots);
        free(s);
    }
}

static uint64_t
mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static size_t
probe(const trace_sessions_t *s, uint64_t client)
{
    size_t i;

    for (i = mix(client) & (s->cap - 1);
         s->slots[i].used && s->slots[i].client != client;
         i = (i + 1) & (s->cap - 1)) {
    }
    return i;
}

static int
grow(trace_sessions_t *s)
{
    slot_t *old = s->slots;
    size_t  oldcap = s->cap, i;

    s->slots = calloc(oldcap * 2, sizeof(slot_t));
    if (s->slots == NULL) {
        s->slots = old;
        return -1;
    }
    s->cap = oldcap * 2;
    for (i = 0; i < oldcap; i++) {
        if (old[i].used) {
            s->slots[probe(s, old[i].client)] = old[i];
        }
    }
    free(old);
    return 0;
}

uint64_t
trace_session(trace_sessions_t *s, const trace_req_t *r, int *opened)
{
    slot_t *e = &s->slots[probe(s, r->client)];

    if (e->used && r->time - e->last < s->gap) {
        e->last = r->time;
        *opened = 0;
        return e->session;
    }
    if (!e->used) {
        if ((s->count + 1) * 2 > s->cap) {
            if (grow(s) != 0) {
                return UINT64_MAX;
            }
            e = &s->slots[probe(s, r->client)];
        }
        e->used = 1;
        e->client = r->client;
        s->count++;
    }
    e->last = r->time;
    e->session = s->next++;
    *opened = 1;
    return e->session;
}
