/*
 * Connection grouping: an open-addressing hash from client key to the
 * time of its last request and its current connection.  Times never go
 * back (the readers hand records out in time order), so a client idle for
 * conn_gap can only open a new connection: when the table fills, such
 * clients are closed and dropped before it grows.  Memory follows the
 * clients active within conn_gap of each other, not the trace's length
 * or its distinct clients.
 */

#include <stdlib.h>

#include "lib/models/sessions.h"

typedef struct {
    uint64_t client;
    int64_t  last;
    uint64_t session;
    uint64_t nreq;  /* requests in its current connection */
    uint64_t depth; /* requests in its current pipeline group */
    uint8_t  used;
} slot_t;

struct trace_sessions_s {
    slot_t                *slots;
    size_t                 cap;
    size_t                 count;
    int64_t                gap, pipe_gap;
    uint64_t               next;
    trace_sessions_stats_t done; /* of closed connections and groups */
};

trace_sessions_t *
trace_sessions_new(int64_t conn_gap, int64_t pipeline_gap)
{
    trace_sessions_t *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        return NULL;
    }
    s->cap = 1024;
    s->gap = conn_gap;
    s->pipe_gap = pipeline_gap;
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

static void close_connection(trace_sessions_stats_t *st, const slot_t *e);

/*
 * Make room for one more client at time now: close the connections idle
 * for the gap, then rehash what is left into a table of the same size,
 * or twice the size when it would still be over a quarter full.
 */
static int
make_room(trace_sessions_t *s, int64_t now)
{
    slot_t *old = s->slots;
    size_t  oldcap = s->cap, i, live = 0;

    for (i = 0; i < oldcap; i++) {
        live += old[i].used && now - old[i].last < s->gap;
    }
    s->cap = (live + 1) * 4 > oldcap ? oldcap * 2 : oldcap;
    s->slots = calloc(s->cap, sizeof(slot_t));
    if (s->slots == NULL) {
        s->slots = old;
        s->cap = oldcap;
        return -1;
    }
    for (i = 0; i < oldcap; i++) {
        if (!old[i].used) {
            continue;
        }
        if (now - old[i].last < s->gap) {
            s->slots[probe(s, old[i].client)] = old[i];
        } else {
            close_connection(&s->done, &old[i]);
        }
    }
    s->count = live;
    free(old);
    return 0;
}

static int
depth_bucket(uint64_t d)
{
    int b = 0;

    while (b < 6 && d > (1ull << b)) {
        b++;
    }
    return b;
}

/* Account a pipeline group that has ended (or is counted as it stands). */
static void
close_group(trace_sessions_stats_t *st, uint64_t depth)
{
    st->groups++;
    st->depth_hist[depth_bucket(depth)]++;
    if (depth > st->max_depth) {
        st->max_depth = depth;
    }
}

static void
close_connection(trace_sessions_stats_t *st, const slot_t *e)
{
    close_group(st, e->depth);
    if (e->nreq > st->max_per_connection) {
        st->max_per_connection = e->nreq;
    }
}

uint64_t
trace_session(trace_sessions_t *s, const trace_req_t *r, int *opened,
              int *grouped)
{
    slot_t *e = &s->slots[probe(s, r->client)];

    s->done.requests++;
    if (e->used && r->time - e->last < s->gap) {
        if (r->time - e->last < s->pipe_gap) {
            e->depth++;
            *grouped = 1;
        } else {
            close_group(&s->done, e->depth);
            e->depth = 1;
            *grouped = 0;
        }
        e->last = r->time;
        e->nreq++;
        *opened = 0;
        return e->session;
    }
    if (!e->used) {
        if ((s->count + 1) * 2 > s->cap) {
            if (make_room(s, r->time) != 0) {
                return UINT64_MAX;
            }
            e = &s->slots[probe(s, r->client)];
        }
        e->used = 1;
        e->client = r->client;
        s->count++;
    } else {
        close_connection(&s->done, e);
    }
    e->last = r->time;
    e->session = s->next++;
    e->nreq = 1;
    e->depth = 1;
    s->done.connections++;
    *opened = 1;
    *grouped = 0;
    return e->session;
}

void
trace_sessions_stats(const trace_sessions_t *s, trace_sessions_stats_t *st)
{
    size_t i;

    *st = s->done;
    for (i = 0; i < s->cap; i++) {
        if (s->slots[i].used) {
            close_connection(st, &s->slots[i]);
        }
    }
}
