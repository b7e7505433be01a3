/*
 * The replayer's feed: see feed.h.  Sessions live in a chained hash by
 * client while they can still grow, and in a FIFO queue until a user
 * takes them; requests are small nodes recycled through a free list, so
 * a long replay does not go back to malloc for every request.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/models/content.h"
#include "lib/models/feed.h"
#include "lib/models/files.h"
#include "lib/models/objects.h"
#include "lib/models/sessions.h"
#include "lib/strtab.h"

struct feed_sess_s {
    feed_sess_t *next;  /* queue of sessions not yet taken */
    feed_sess_t *hnext; /* hash chain */
    uint64_t     id, client;
    int64_t      last; /* trace time of its latest request */
    feed_req_t  *head, *tail;
    int          group_break; /* the next kept request starts a group */
    unsigned     open : 1;    /* more requests may come */
    unsigned     in_hash : 1;
    unsigned     skip : 1; /* another shard's: never taken */
};

typedef struct {
    char    *target;
    size_t   len;
    uint64_t seed;
} url_t;

struct feed_s {
    feed_opts_t       o;
    trace_reader_t   *reader;
    trace_sessions_t *grouping;
    trace_strtab_t   *urls;
    trace_map_t      *map; /* the docroot's manifest, if given */
    url_t            *url;
    size_t            nurl_cap;
    feed_sess_t     **bucket;
    size_t            nbucket, nhashed;
    feed_sess_t      *qhead, *qtail;
    feed_req_t       *free_reqs;
    int64_t           now;     /* the latest trace time read */
    uint64_t          id_base; /* sessions of the passes before */
    int64_t           first_us, last_us, pass_us; /* trace times; the
                                                     offset of this pass */
    int               eof, failed;
    feed_stats_t      st;
    char              err[512];
};

/* A request node carries one more bit than feed.h shows: whether it
 * starts a pipeline group.  It rides in the method byte's high bit. */
#define GROUP_START 0x80

static feed_req_t *
req_alloc(feed_t *f)
{
    feed_req_t *q = f->free_reqs;

    if (q != NULL) {
        f->free_reqs = q->next;
        return q;
    }
    return malloc(sizeof(feed_req_t));
}

void
feed_free_reqs(feed_t *f, feed_req_t *list)
{
    feed_req_t *n;

    for (; list != NULL; list = n) {
        n = list->next;
        list->next = f->free_reqs;
        f->free_reqs = list;
    }
}

static size_t
slot_of(uint64_t client, size_t nbucket)
{
    client ^= client >> 33;
    client *= 0xff51afd7ed558ccdULL;
    client ^= client >> 33;
    return (size_t) client & (nbucket - 1);
}

static size_t
hslot(const feed_t *f, uint64_t client)
{
    return slot_of(client, f->nbucket);
}

static feed_sess_t *
hfind(const feed_t *f, uint64_t client)
{
    feed_sess_t *s;

    for (s = f->bucket[hslot(f, client)]; s != NULL; s = s->hnext) {
        if (s->client == client) {
            return s;
        }
    }
    return NULL;
}

static void
sess_free(feed_t *f, feed_sess_t *s)
{
    feed_free_reqs(f, s->head);
    free(s);
}

/* The session stops growing: out of the hash (and freed if nobody will
 * ever take it). */
static void
hunlink(feed_t *f, feed_sess_t *s)
{
    feed_sess_t **pp = &f->bucket[hslot(f, s->client)];

    while (*pp != s) {
        pp = &(*pp)->hnext;
    }
    *pp = s->hnext;
    s->in_hash = 0;
    s->open = 0;
    f->nhashed--;
    if (s->skip) {
        sess_free(f, s);
    }
}

static int
hinsert(feed_t *f, feed_sess_t *s)
{
    if ((f->nhashed + 1) > f->nbucket) {
        size_t        n = f->nbucket * 2, i;
        feed_sess_t **b = calloc(n, sizeof(*b)), *e, *next;

        if (b == NULL) {
            return -1;
        }
        for (i = 0; i < f->nbucket; i++) {
            for (e = f->bucket[i]; e != NULL; e = next) {
                next = e->hnext;
                e->hnext = b[slot_of(e->client, n)];
                b[slot_of(e->client, n)] = e;
            }
        }
        free(f->bucket);
        f->bucket = b;
        f->nbucket = n;
    }
    s->hnext = f->bucket[hslot(f, s->client)];
    f->bucket[hslot(f, s->client)] = s;
    s->in_hash = 1;
    f->nhashed++;
    return 0;
}

/* percent-encode what a request-target cannot carry; with a manifest,
 * the URL it gives for the target's object.  -1: out of memory, -2: the
 * manifest has no such object (f->err says) */
static int
url_define(feed_t *f, uint32_t id, const char *u, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i, o = 0, k;
    char             *t, *name;
    trace_obj_t       obj;

    if (trace_grow(&f->url, &f->nurl_cap, (size_t) id + 1, sizeof(url_t), 1024)
        != 0) {
        return -1;
    }
    if (f->map != NULL) {
        if (trace_map_find(f->map, u, n, &obj) != 0) {
            snprintf(f->err, sizeof(f->err),
                     "line %llu: the manifest has no object for \"%.*s\" (was "
                     "the docroot made from this trace, with the same "
                     "--format?)",
                     (unsigned long long) f->st.records,
                     (int) (n > 200 ? 200 : n), u);
            return -2;
        }
        if (obj.url != NULL) {
            u = obj.url; /* already a request target */
            n = strlen(u);
        }
    }
    t = malloc(n * 3 + 2);
    if (t == NULL) {
        return -1;
    }
    if (n == 0 || (u[0] != '/' && u[0] != '*' && n < 7)) {
        t[o++] = '/';
    }
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char) u[i];

        if (c <= 0x20 || c >= 0x7f || strchr("\"<>\\^`{|}#", c) != NULL) {
            t[o++] = '%';
            t[o++] = hex[c >> 4];
            t[o++] = hex[c & 15];
        } else {
            t[o++] = (char) c;
        }
    }
    t[o] = '\0';
    f->url[id].target = t;
    f->url[id].len = o;
    /* the bytes the docroot holds for the file the server will find */
    name = malloc(n + 12);
    if (name == NULL) {
        return -1;
    }
    k = trace_file_name(u, trace_path_len(u, n), name, 1);
    f->url[id].seed =
        k > 0 ? trace_content_seed(name, k) : trace_content_seed(u, n);
    free(name);
    return 0;
}

static int
reopen(feed_t *f)
{
    if (f->grouping != NULL) {
        trace_sessions_stats_t st;

        trace_sessions_stats(f->grouping, &st);
        f->id_base += st.connections; /* numbers go on across passes */
        /* and so does the clock: the next pass starts a second after */
        f->pass_us = f->last_us - f->first_us + 1000000 + f->pass_us;
    }
    trace_close(f->reader);
    trace_sessions_free(f->grouping);
    f->reader = NULL;
    f->now = INT64_MIN; /* a new pass starts the clock again */
    f->grouping = trace_sessions_new(f->o.conn_gap, f->o.pipeline_gap);
    if (f->grouping == NULL) {
        snprintf(f->err, sizeof(f->err), "out of memory");
        return -1;
    }
    f->reader = trace_src_open(&f->o.src, f->err, sizeof(f->err));
    return f->reader == NULL ? -1 : 0;
}

feed_t *
feed_open(const feed_opts_t *o, char *err, size_t errlen)
{
    feed_t *f = calloc(1, sizeof(*f));

    if (f == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->o = *o;
    if (f->o.shards == 0) {
        f->o.shards = 1;
    }
    f->nbucket = 1024;
    f->bucket = calloc(f->nbucket, sizeof(*f->bucket));
    f->urls = trace_strtab_new();
    if (o->manifest != NULL) {
        f->map = trace_map_read(o->manifest, err, errlen);
        if (f->map == NULL) {
            feed_close(f);
            return NULL;
        }
    }
    if (f->bucket == NULL || f->urls == NULL || reopen(f) != 0) {
        snprintf(err, errlen, "%s", f->err[0] ? f->err : "out of memory");
        feed_close(f);
        return NULL;
    }
    if (f->o.loop && strcmp(o->src.path, "-") == 0) {
        snprintf(err, errlen, "--loop needs a file, not standard input");
        feed_close(f);
        return NULL;
    }
    return f;
}

void
feed_close(feed_t *f)
{
    feed_sess_t *s, *n;
    feed_req_t  *q;
    size_t       i;

    if (f == NULL) {
        return;
    }
    for (i = 0; i < f->nbucket && f->bucket != NULL; i++) {
        for (s = f->bucket[i]; s != NULL; s = n) {
            n = s->hnext;
            s->in_hash = 0;
            if (s->skip) {
                sess_free(f, s);
            }
        }
    }
    for (s = f->qhead; s != NULL; s = n) {
        n = s->next;
        sess_free(f, s);
    }
    while ((q = f->free_reqs) != NULL) {
        f->free_reqs = q->next;
        free(q);
    }
    for (i = 0; i < trace_strtab_count(f->urls) && f->url != NULL; i++) {
        free(f->url[i].target);
    }
    free(f->url);
    trace_map_free(f->map);
    free(f->bucket);
    trace_strtab_free(f->urls);
    trace_sessions_free(f->grouping);
    trace_close(f->reader);
    free(f);
}

/* Every session still open ends (the trace did). */
static void
end_all(feed_t *f)
{
    size_t       i;
    feed_sess_t *s, *n;

    for (i = 0; i < f->nbucket; i++) {
        for (s = f->bucket[i]; s != NULL; s = n) {
            n = s->hnext;
            hunlink(f, s);
        }
    }
}

/* Read one record and file it.  1, 0 at the end, -1 on error. */
static int
read_one(feed_t *f)
{
    trace_req_t  r;
    feed_sess_t *s;
    feed_req_t  *q;
    uint32_t     id;
    uint64_t     sid;
    int          rc, opened, grouped, added, keep;

    if (f->eof || f->failed) {
        return f->failed ? -1 : 0;
    }
    rc = trace_next(f->reader, &r, f->err, sizeof(f->err));
    if (rc == 0 && f->o.loop && f->st.records > 0) {
        f->st.passes++;
        end_all(f);
        if (reopen(f) != 0) {
            f->failed = 1;
            return -1;
        }
        rc = trace_next(f->reader, &r, f->err, sizeof(f->err));
    }
    if (rc <= 0) {
        if (rc == 0) {
            f->st.passes++;
            f->eof = 1;
        } else {
            f->failed = 1;
        }
        end_all(f);
        return rc;
    }
    if (f->st.records == 0) {
        f->first_us = f->last_us = r.time * 1000000 + (int64_t) r.usec;
    }
    if (f->st.passes == 0 && r.time * 1000000 + (int64_t) r.usec > f->last_us) {
        f->last_us = r.time * 1000000 + (int64_t) r.usec;
    }
    f->st.records++;
    if (r.time > f->now) {
        f->now = r.time;
    }
    sid = trace_session(f->grouping, &r, &opened, &grouped);
    if (sid == UINT64_MAX) {
        goto oom;
    }
    s = hfind(f, r.client);
    if (s != NULL && (opened || !s->open)) {
        hunlink(f, s);
        s = NULL;
    }
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        if (s == NULL) {
            goto oom;
        }
        s->id = f->id_base
                + sid; /* the grouping's number: the same on every shard */
        s->client = r.client;
        s->open = 1;
        s->group_break = 1;
        s->skip = s->id % f->o.shards != f->o.shard;
        if (hinsert(f, s) != 0) {
            free(s);
            goto oom;
        }
        if (!s->skip) {
            f->st.sessions++;
            if (f->qtail != NULL) {
                f->qtail->next = s;
            } else {
                f->qhead = s;
            }
            f->qtail = s;
        }
        grouped = 0;
    }
    s->last = r.time;
    if (!grouped || f->o.no_pipeline) {
        s->group_break = 1;
    }

    keep = 1;
    if (r.method != TRACE_GET && r.method != TRACE_HEAD) {
        f->st.other_methods++;
        keep = 0;
    } else if (s->skip) {
        f->st.other_shards++;
        keep = 0;
    } else if (f->o.only_ok && (r.status >= 400 || r.status < 100)) {
        f->st.not_ok++;
        keep = 0;
    }
    if (!keep) {
        return 1;
    }
    if (trace_strtab_intern(f->urls, r.url, r.url_len, &id, &added) != 0) {
        goto oom;
    }
    if (added && (rc = url_define(f, id, r.url, r.url_len)) != 0) {
        if (rc == -2) {
            f->failed = 1;
            end_all(f);
            return -1;
        }
        goto oom;
    }
    if ((q = req_alloc(f)) == NULL) {
        goto oom;
    }
    q->next = NULL;
    q->url = id;
    q->method = (uint8_t) (r.method | (s->group_break ? GROUP_START : 0));
    q->status = (uint16_t) (r.status > 0 && r.status < 1000 ? r.status : 0);
    q->bytes = r.bytes;
    q->time_us = r.time * 1000000 + (int64_t) r.usec + f->pass_us;
    s->group_break = 0;
    if (s->tail != NULL) {
        s->tail->next = q;
    } else {
        s->head = q;
    }
    s->tail = q;
    f->st.kept++;
    return 1;

oom:
    snprintf(f->err, sizeof(f->err), "out of memory");
    f->failed = 1;
    end_all(f);
    return -1;
}

feed_sess_t *
feed_take(feed_t *f)
{
    feed_sess_t *s;

    while (f->qhead == NULL) {
        if (read_one(f) <= 0) {
            return NULL;
        }
    }
    s = f->qhead;
    f->qhead = s->next;
    if (f->qhead == NULL) {
        f->qtail = NULL;
    }
    s->next = NULL;
    return s;
}

uint64_t
feed_session_id(const feed_sess_t *s)
{
    return s->id;
}

/* Has the time of the trace gone by far enough that nothing more joins
 * the group (or the session) s is in? */
static int
settled(const feed_t *f, const feed_sess_t *s, int64_t gap)
{
    return f->now != INT64_MIN && f->now - s->last >= gap;
}

size_t
feed_group(feed_t *f, feed_sess_t *s, feed_req_t **out, size_t max)
{
    feed_req_t *q, *last;
    size_t      n;

    *out = NULL;
    /* wait for a first request, or the end of the session */
    while (s->head == NULL && s->open) {
        if (settled(f, s, f->o.conn_gap)) {
            hunlink(f, s);
            break;
        }
        if (read_one(f) < 0) {
            return 0;
        }
    }
    if (s->head == NULL) {
        return 0;
    }
    /* then for the group to be complete: a later request that starts a
     * new group, the trace a pipeline gap on, or the session over */
    for (;;) {
        n = 1;
        for (q = s->head;
             q->next != NULL && !(q->next->method & GROUP_START) && n < max;
             q = q->next) {
            n++;
        }
        if (q->next != NULL || !s->open || n == max || f->o.no_pipeline
            || settled(f, s, f->o.pipeline_gap)) {
            break;
        }
        if (settled(f, s, f->o.conn_gap)) {
            hunlink(f, s);
            break;
        }
        if (read_one(f) < 0) {
            break;
        }
    }
    last = q;
    *out = s->head;
    s->head = last->next;
    if (s->head == NULL) {
        s->tail = NULL;
    } else {
        s->head->method |= GROUP_START; /* the rest of a cut group */
    }
    last->next = NULL;
    for (q = *out; q != NULL; q = q->next) {
        q->method &= (uint8_t) ~GROUP_START;
    }
    return n;
}

void
feed_release(feed_t *f, feed_sess_t *s)
{
    if (s->in_hash) {
        hunlink(f, s); /* not another shard's, so not freed there */
    }
    sess_free(f, s);
}

const char *
feed_target(const feed_t *f, uint32_t url, size_t *len)
{
    *len = f->url[url].len;
    return f->url[url].target;
}

uint64_t
feed_seed(const feed_t *f, uint32_t url)
{
    return f->url[url].seed;
}

int64_t
feed_first_time_us(const feed_t *f)
{
    return f->first_us;
}

double
feed_progress(const feed_t *f)
{
    return f->eof ? 1.0 : trace_progress(f->reader);
}

const feed_stats_t *
feed_stats(const feed_t *f)
{
    return &f->st;
}

const char *
feed_error(const feed_t *f)
{
    return f->failed ? f->err : NULL;
}

trace_reader_t *
feed_reader(const feed_t *f)
{
    return f->reader;
}
