/*
 * --sort (sort.h): runs sorted in memory, merged from compact files.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/formats/sort.h"
#include "lib/strtab.h"
#include "lib/formats/trace.h"

#define MAX_RUNS 1024

typedef struct {
    trace_req_t r;
    int64_t     key; /* microseconds */
    size_t      url_off;
    uint64_t    seq;
} rec_t;

/* a compact file being written: its URLs and its encoder */
typedef struct {
    FILE           *f;
    trace_strtab_t *urls;
    trace_nic_enc_t enc;
    unsigned char  *buf;
    size_t          cap;
} out_t;

static int
by_time(const void *a, const void *b)
{
    const rec_t *x = a, *y = b;

    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* a new temporary file's path into path, open in *o; 0 or -1 (err) */
static int
out_open(out_t *o, char *path, size_t len, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    int         fd;

    memset(o, 0, sizeof(*o));
    snprintf(path, len, "%s/nicache-sort-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    fd = mkstemp(path);
    if (fd < 0 || (o->f = fdopen(fd, "wb")) == NULL
        || (o->urls = trace_strtab_new()) == NULL
        || fwrite(trace_nic_magic, TRACE_NIC_MAGIC_LEN, 1, o->f) != 1) {
        snprintf(err, errlen, "--sort: %s: %s", path,
                 errno ? strerror(errno) : "out of memory");
        if (o->f != NULL) {
            fclose(o->f);
        } else if (fd >= 0) {
            close(fd);
        }
        trace_strtab_free(o->urls);
        if (fd >= 0) {
            unlink(path);
        }
        return -1;
    }
    return 0;
}

static int
out_put(out_t *o, const trace_req_t *r)
{
    uint32_t id;
    int      added;
    size_t   n;

    if (trace_strtab_intern(o->urls, r->url, r->url_len, &id, &added) != 0) {
        return -1;
    }
    if (TRACE_NIC_MAX_RECORD(r->url_len) > o->cap) {
        free(o->buf);
        o->cap = TRACE_NIC_MAX_RECORD(r->url_len) * 2;
        if ((o->buf = malloc(o->cap)) == NULL) {
            return -1;
        }
    }
    n = trace_nic_encode(&o->enc, r, id, added, o->buf);
    return fwrite(o->buf, n, 1, o->f) == 1 ? 0 : -1;
}

/* closed: 0, or -1 when writing failed */
static int
out_close(out_t *o)
{
    int rc = ferror(o->f) ? -1 : 0;

    rc = fclose(o->f) != 0 ? -1 : rc;
    trace_strtab_free(o->urls);
    free(o->buf);
    return rc;
}

static void
remove_all(char (*paths)[4096], int n)
{
    int i;

    for (i = 0; i < n; i++) {
        unlink(paths[i]);
    }
}

/* one run: up to max records of t read, sorted and written; 1 written,
 * 0 at the end, -1 failed (err) */
static int
one_run(trace_reader_t *t, size_t max, rec_t *recs, char **arena, size_t *acap,
        uint64_t *seq, char *path, size_t plen, char *err, size_t errlen)
{
    trace_req_t r;
    size_t      n = 0, used = 0, i;
    out_t       o;
    int         rc = 1;

    while (n < max && (rc = trace_next(t, &r, err, errlen)) == 1) {
        if (trace_grow(arena, acap, used + r.url_len, 1, 4096) != 0) {
            snprintf(err, errlen, "--sort: out of memory");
            return -1;
        }
        memcpy(*arena + used, r.url, r.url_len);
        recs[n].r = r;
        recs[n].url_off = used;
        recs[n].key = r.time * 1000000 + (int64_t) r.usec;
        recs[n].seq = (*seq)++;
        used += r.url_len;
        n++;
    }
    if (rc < 0) {
        return -1;
    }
    if (n == 0) {
        return 0;
    }
    qsort(recs, n, sizeof(*recs), by_time);
    if (out_open(&o, path, plen, err, errlen) != 0) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        recs[i].r.url = *arena + recs[i].url_off;
        if (out_put(&o, &recs[i].r) != 0) {
            break;
        }
    }
    if (out_close(&o) != 0 || i < n) {
        snprintf(err, errlen, "--sort: %s: %s", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 1;
}

/* the runs merged into out (each one's head kept; the least goes) */
static int
merge_runs(char (*paths)[4096], int n, char *out, size_t len, char *err,
           size_t errlen)
{
    trace_reader_t *in[MAX_RUNS];
    trace_req_t     head[MAX_RUNS];
    int             live[MAX_RUNS], i, best, rc = 0;
    out_t           o;

    memset(&o, 0, sizeof(o));
    for (i = 0; i < n; i++) {
        in[i] = trace_open(paths[i], "nic", NULL, err, errlen);
        if (in[i] == NULL) {
            while (i-- > 0) {
                trace_close(in[i]);
            }
            return -1;
        }
        unlink(paths[i]); /* gone when closed */
        live[i] = trace_next(in[i], &head[i], err, errlen);
        rc = live[i] < 0 ? -1 : rc;
    }
    if (rc == 0 && out_open(&o, out, len, err, errlen) != 0) {
        rc = -1;
    }
    while (rc == 0) {
        for (best = -1, i = 0; i < n; i++) {
            if (live[i] == 1
                && (best < 0
                    || head[i].time * 1000000 + (int64_t) head[i].usec
                           < head[best].time * 1000000
                                 + (int64_t) head[best].usec)) {
                best = i; /* ties: the earlier run, the log's order */
            }
        }
        if (best < 0) {
            break;
        }
        if (out_put(&o, &head[best]) != 0) {
            snprintf(err, errlen, "--sort: %s: %s", out, strerror(errno));
            rc = -1;
            break;
        }
        live[best] = trace_next(in[best], &head[best], err, errlen);
        rc = live[best] < 0 ? -1 : 0;
    }
    for (i = 0; i < n; i++) {
        trace_close(in[i]);
    }
    if (rc == 0 && out_close(&o) != 0) {
        snprintf(err, errlen, "--sort: %s: %s", out, strerror(errno));
        rc = -1;
    } else if (rc != 0 && o.f != NULL) {
        out_close(&o);
    }
    if (rc != 0) {
        unlink(out);
    }
    return rc;
}

int
trace_sort(const trace_src_t *s, char *out, size_t len, trace_reader_t **raw,
           char *err, size_t errlen)
{
    char(*paths)[4096];
    size_t   max = s->held_max > 0 ? s->held_max : TRACE_HELD_DEFAULT;
    rec_t   *recs = malloc(max * sizeof(rec_t));
    char    *arena = NULL;
    size_t   acap = 0;
    uint64_t seq = 0;
    int      n = 0, rc = 0;

    paths = calloc(MAX_RUNS, sizeof(*paths));
    *raw = trace_open(s->path, s->format, s->mapping, err, errlen);
    if (recs == NULL || paths == NULL || *raw == NULL) {
        if (*raw != NULL || recs == NULL || paths == NULL) {
            snprintf(err, errlen, "--sort: out of memory");
        }
        free(recs);
        free(paths);
        return -1;
    }
    trace_set_raw(*raw);
    trace_allow_truncated(*raw, s->allow_truncated);
    while (rc == 0) {
        if (n == MAX_RUNS) {
            snprintf(err, errlen,
                     "--sort: more than %d runs of --reorder-max %zu "
                     "records: raise --reorder-max",
                     MAX_RUNS, max);
            rc = -1;
            break;
        }
        rc = one_run(*raw, max, recs, &arena, &acap, &seq, paths[n],
                     sizeof(paths[n]), err, errlen);
        if (rc == 1) {
            n++;
            rc = 0;
        } else if (rc == 0) {
            break;
        }
    }
    free(recs);
    free(arena);
    if (rc == 0) {
        rc = merge_runs(paths, n, out, len, err, errlen);
    } else {
        remove_all(paths, n);
    }
    free(paths);
    if (rc != 0) {
        trace_close(*raw);
        *raw = NULL;
    }
    return rc;
}
