/*
 * Trace readers.  Formats register in a NULL-terminated table of const
 * operations; "auto" asks each one whether the first bytes look like it.
 * zlib's gz* calls read gzip and plain files alike, so every format
 * streams both, and standard input too.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/grow.h"
#include "lib/heap.h"
#include "lib/formats/reader.h"
#include "lib/strtab.h"
#include "util/version.h"

typedef struct held_s {
    trace_req_t r;
    int64_t     key; /* microseconds since the epoch */
    uint64_t    seq;
} held_t;

/* records held for time order: by time, then by the order read */
#define HELD_LESS(a, b)                                                        \
    ((a)->key < (b)->key || ((a)->key == (b)->key && (a)->seq < (b)->seq))
TRACE_HEAP_DEFINE(held_heap, held_t, HELD_LESS, TRACE_HEAP_UNINDEXED)

struct trace_reader_s;

typedef struct {
    const char *name;
    /* do these first bytes look like this format? */
    int (*probe)(const unsigned char *p, size_t n);
    /* 1, 0 at the end, -1 read error, -2 this line or record is bad
     * (*bad set) */
    int (*next)(struct trace_reader_s *t, trace_req_t *r, int *bad);
    int text; /* read a line at a time (a bad one's text can be shown) */
} format_t;

struct trace_reader_s {
    const format_t   *fmt;
    gzFile            f;
    int64_t           file_size; /* -1: not a regular file */
    char             *line;
    size_t            size;
    uint64_t          lineno;
    trace_wc98_map_t *map;
    char              url[32]; /* "/object/ID" without a mapping */
    trace_strtab_t   *urls;    /* nic: the URLs defined so far */
    trace_fields_t   *fields;  /* json and log_format strings */
    int64_t           time;    /* nic: the previous record's time */
    unsigned char    *nbuf;    /* nic: bytes read ahead, [npos, nend) */
    size_t            npos, nend;
    uint64_t          nbad;
    trace_bad_t       bad[TRACE_ERRORS_KEPT];

    held_heap_t held; /* records held for time order */
    int64_t     window_us;
    size_t      held_max;
    int64_t     seen_max, out_last; /* microseconds */
    uint64_t    seq, late;
    char       *out_url; /* the record last handed out owns it */
    int         raw_eof;
    int         allow_truncated;
    int         allow_late;
    int         raw;     /* trace_set_raw: no clamping */
    uint64_t    records; /* parsed, handed out or held */
    char       *path;
};

/* text: a line at a time, of any length */

static int
read_line(struct trace_reader_s *t, size_t *len)
{
    size_t n = 0;

    for (;;) {
        if (trace_grow(&t->line, &t->size, n + 2, 1, 4096) != 0) {
            return -1;
        }
        if (gzgets(t->f, t->line + n, (int) (t->size - n)) == NULL) {
            int zerr;

            /* a gzip stream that stops short ("unexpected end of file")
             * or is damaged: an error, never the end of the trace (the
             * partial line before it is not a record) */
            (void) gzerror(t->f, &zerr);
            if (zerr != Z_OK && zerr != Z_STREAM_END) {
                return -1;
            }
            if (n > 0) {
                break; /* a last line without a newline */
            }
            return gzeof(t->f) ? 0 : -1;
        }
        n += strlen(t->line + n);
        if (n > 0 && t->line[n - 1] == '\n') {
            n--;
            break;
        }
    }
    t->lineno++;
    *len = n;
    return 1;
}

static int
clf_probe(const unsigned char *p, size_t n)
{
    size_t i;

    /* printable text with a "[" and a quote on its first line */
    for (i = 0; i < n && p[i] != '\n'; i++) {
        if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\r') {
            return 0;
        }
    }
    return memchr(p, '[', i) != NULL && memchr(p, '"', i) != NULL;
}

static int
clf_next(struct trace_reader_s *t, trace_req_t *r, int *bad)
{
    size_t len;
    int    rc = read_line(t, &len);

    if (rc != 1) {
        return rc;
    }
    *bad = trace_clf_parse(t->line, len, r);
    return *bad == TRACE_OK ? 1 : -2;
}

static int
json_probe(const unsigned char *p, size_t n)
{
    size_t i = 0;

    while (i < n && (p[i] == ' ' || p[i] == '\t')) {
        i++;
    }
    return i < n && p[i] == '{';
}

/* json and log_format strings: trace_fmt.c */
static int
fields_next(struct trace_reader_s *t, trace_req_t *r, int *bad)
{
    size_t len;
    int    rc = read_line(t, &len);

    if (rc != 1) {
        return rc;
    }
    while (len > 0 && t->line[len - 1] == '\r') {
        len--;
    }
    *bad = trace_fields_parse(t->fields, t->line, len, r);
    return *bad == TRACE_OK ? 1 : -2;
}

static int
wc98_probe(const unsigned char *p, size_t n)
{
    /* whole records whose method, status index and version are in range,
     * and a plausible time (1990 to 2040) */
    size_t i;

    if (n < TRACE_WC98_RECORD) {
        return 0;
    }
    for (i = 0; i + TRACE_WC98_RECORD <= n; i += TRACE_WC98_RECORD) {
        uint32_t tm = (uint32_t) p[i] << 24 | (uint32_t) p[i + 1] << 16
                      | (uint32_t) p[i + 2] << 8 | p[i + 3];

        if (p[i + 16] > 8 || (p[i + 17] & 0x3f) > 37 || tm < 631152000u
            || tm > 2208988800u) {
            return 0;
        }
    }
    return 1;
}

/* One fixed-size binary record into rec: 1, 0 at the end, -1 a read
 * error, -2 a truncated last record (*bad set). */
static int
read_record(struct trace_reader_s *t, unsigned char *rec, int size, int *bad)
{
    int n = gzread(t->f, rec, (unsigned) size);

    if (n == 0) {
        return 0;
    }
    t->lineno++;
    if (n < 0) {
        return -1;
    }
    if (n < size) {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    return 1;
}

static int
wc98_next(struct trace_reader_s *t, trace_req_t *r, int *bad)
{
    unsigned char rec[TRACE_WC98_RECORD];
    int           rc = read_record(t, rec, sizeof(rec), bad);
    uint32_t      obj;
    const char   *u = NULL;
    size_t        len = 0;

    if (rc != 1) {
        return rc;
    }
    trace_wc98_decode(rec, r, &obj);
    if (t->map != NULL) {
        u = trace_wc98_map_url(t->map, obj, &len);
    }
    if (u == NULL) {
        len = (size_t) snprintf(t->url, sizeof(t->url), "/object/%u", obj);
        u = t->url;
    }
    r->url = u;
    r->url_len = len;
    return 1;
}

static int
nic_probe(const unsigned char *p, size_t n)
{
    return n >= TRACE_NIC_MAGIC_LEN
           && memcmp(p, trace_nic_magic, TRACE_NIC_MAGIC_LEN) == 0;
}

/* the compact format is decoded from a buffer of its own: a gzgetc() per
 * byte was a sixth of nicsim's time */
#define NIC_BUF        (64 * 1024)
#define NIC_MAX_REC    64 /* tag, five varints of at most 10 bytes, 2 bytes */
#define NIC_TIME_LIMIT (INT64_MAX / 1000000 - 1)

/* At least want bytes ahead in the buffer, fewer only at the end of the
 * file; the count ahead, or -1 on a read error. */
static ssize_t
nic_ahead(struct trace_reader_s *t, size_t want)
{
    int n;

    if (t->nend - t->npos >= want) {
        return (ssize_t) (t->nend - t->npos);
    }
    memmove(t->nbuf, t->nbuf + t->npos, t->nend - t->npos);
    t->nend -= t->npos;
    t->npos = 0;
    while (t->nend < want) {
        n = gzread(t->f, t->nbuf + t->nend, (unsigned) (NIC_BUF - t->nend));
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            break;
        }
        t->nend += (size_t) n;
    }
    return (ssize_t) t->nend;
}

/* 0 with *v, or -1 past end or on a varint too long */
static int
get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    const unsigned char *q = *p;
    int                  shift = 0;
    unsigned             c;

    *v = 0;
    do {
        if (q == end || shift > 63) {
            return -1;
        }
        c = *q++;
        *v |= (uint64_t) (c & 0x7f) << shift;
        shift += 7;
    } while (c & 0x80);
    *p = q;
    return 0;
}

/* A record's URL definition, at p: interned (it must be new). */
static int
nic_define(struct trace_reader_s *t)
{
    const unsigned char *p = t->nbuf + t->npos, *end = t->nbuf + t->nend;
    uint64_t             len;
    uint32_t             got;
    int                  added, rc;
    size_t               have;
    char                *u;

    if (get_varint(&p, end, &len) != 0 || len > (1 << 20)) {
        return -1;
    }
    t->npos = (size_t) (p - t->nbuf);
    if (len + NIC_MAX_REC <= NIC_BUF) {
        if (nic_ahead(t, len + NIC_MAX_REC) < (ssize_t) len) {
            return -1;
        }
        rc = trace_strtab_intern(t->urls, (char *) t->nbuf + t->npos, len, &got,
                                 &added);
        t->npos += len;
        return rc != 0 || !added ? -1 : 0;
    }
    /* longer than the buffer: what it holds, then the rest from zlib */
    if ((u = malloc(len)) == NULL) {
        return -1;
    }
    have = t->nend - t->npos;
    memcpy(u, t->nbuf + t->npos, have);
    t->npos = t->nend;
    rc = gzread(t->f, u + have, (unsigned) (len - have)) != (int) (len - have)
         || trace_strtab_intern(t->urls, u, len, &got, &added) != 0 || !added;
    free(u);
    return rc ? -1 : 0;
}

/* A record of the compact format; a damaged one ends the trace (-1). */
static int
nic_next(struct trace_reader_s *t, trace_req_t *r, int *bad)
{
    uint64_t             zz, client, status, bytes, id;
    int64_t              d;
    int                  tag, method, proto;
    ssize_t              n;
    const unsigned char *p, *end;
    const char          *url;
    size_t               ulen;

    (void) bad;
    if ((n = nic_ahead(t, NIC_MAX_REC)) <= 0) {
        return n < 0 ? -1 : 0;
    }
    t->lineno++;
    tag = t->nbuf[t->npos++];
    if ((tag & 1) && (nic_define(t) != 0 || nic_ahead(t, NIC_MAX_REC) < 0)) {
        return -1;
    }
    p = t->nbuf + t->npos;
    end = t->nbuf + t->nend;
    if (get_varint(&p, end, &zz) != 0 || get_varint(&p, end, &client) != 0
        || p == end || (method = *p++) > TRACE_OTHER
        || get_varint(&p, end, &status) != 0 || status > 999
        || get_varint(&p, end, &bytes) != 0 || get_varint(&p, end, &id) != 0
        || p == end || id >= trace_strtab_count(t->urls)) {
        return -1;
    }
    proto = *p++;
    t->npos = (size_t) (p - t->nbuf);
    d = (int64_t) (zz >> 1) ^ -(int64_t) (zz & 1);
    if ((d > 0 && t->time > INT64_MAX - d)
        || (d < 0 && t->time < INT64_MIN - d)) {
        return -1; /* a time no trace has: the file is damaged */
    }
    t->time += d;
    if (t->time > NIC_TIME_LIMIT || t->time < -NIC_TIME_LIMIT) {
        return -1; /* out of the range time order keeps in microseconds */
    }
    url = trace_strtab_get(t->urls, (uint32_t) id, &ulen);
    r->time = t->time;
    r->client = client;
    r->method = method;
    r->status = (int) status;
    r->bytes_known = bytes != 0;
    r->bytes = bytes ? bytes - 1 : 0;
    r->url = url;
    r->url_len = ulen;
    r->url_id = (uint32_t) id + 1;
    r->has_protocol = proto;
    return 1;
}

/*
 * libCacheSim's own layouts, so one trace file runs through both tools:
 * each record a GET answered 200 with the object's size, for URL
 * "/object/ID", from no particular client.
 * oracleGeneral: 24 bytes little-endian: u32 time, u64 object id, u32
 * size, i64 the next access (ignored).
 */
#define ORACLE_RECORD 24

static uint64_t
le(const unsigned char *p, int n)
{
    uint64_t v = 0;

    while (n-- > 0) {
        v = v << 8 | p[n];
    }
    return v;
}

static void
lcs_object(struct trace_reader_s *t, trace_req_t *r, int64_t time, uint64_t obj,
           uint64_t size)
{
    r->time = time;
    r->method = TRACE_GET;
    r->status = 200;
    r->bytes = size;
    r->bytes_known = 1;
    r->url_len = (size_t) snprintf(t->url, sizeof(t->url), "/object/%llu",
                                   (unsigned long long) obj);
    r->url = t->url;
}

static int
oracle_next(struct trace_reader_s *t, trace_req_t *r, int *bad)
{
    unsigned char rec[ORACLE_RECORD];
    int           rc = read_record(t, rec, sizeof(rec), bad);

    if (rc != 1) {
        return rc;
    }
    lcs_object(t, r, (int64_t) le(rec, 4), le(rec + 4, 8), le(rec + 12, 4));
    return 1;
}

/* libCacheSim's CSV reader's usual layout: "time,obj_id,obj_size" (a
 * header line that does not start with a digit is skipped) */
static int
lcs_csv_next(struct trace_reader_s *t, trace_req_t *r, int *bad)
{
    size_t             len;
    int                rc;
    char              *p, *end;
    long long          time;
    unsigned long long obj, size;

    for (;;) {
        rc = read_line(t, &len);
        if (rc <= 0) {
            return rc;
        }
        t->line[len] = '\0';
        p = t->line;
        if (len == 0 || (t->lineno == 1 && (*p < '0' || *p > '9'))) {
            continue; /* a header, or an empty line */
        }
        break;
    }
    time = strtoll(p, &end, 10);
    if (end == p || *end != ',') {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    p = end + 1;
    obj = strtoull(p, &end, 10);
    if (end == p || *end != ',') {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    p = end + 1;
    size = strtoull(p, &end, 10);
    if (end == p || (*end != '\0' && *end != ',' && *end != '\r')) {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    lcs_object(t, r, (int64_t) time, obj, size);
    return 1;
}

static const format_t fmt_clf = {"clf", clf_probe, clf_next, 1};
static const format_t fmt_nic = {"nic", nic_probe, nic_next, 0};
static const format_t fmt_wc98 = {"wc98", wc98_probe, wc98_next, 0};
static const format_t fmt_json = {"json", json_probe, fields_next, 1};
static const format_t fmt_template = {"log_format", NULL, fields_next, 1};
static const format_t fmt_oracle = {"oracle", NULL, oracle_next, 0};
static const format_t fmt_lcs_csv = {"lcs-csv", NULL, lcs_csv_next, 1};

/* named only (no bytes tell them apart): --format */
static const format_t *const named_formats[] = {&fmt_oracle, &fmt_lcs_csv,
                                                NULL};

/* auto-detection asks them in this order */
static const format_t *const formats[] = {&fmt_nic, &fmt_wc98, &fmt_json,
                                          &fmt_clf, NULL};

trace_reader_t *
trace_open(const char *path, const char *format, const char *mapping, char *err,
           size_t errlen)
{
    trace_reader_t        *t = calloc(1, sizeof(*t));
    const format_t *const *f;
    unsigned char          head[400];
    int                    n;

    if (t == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (strcmp(format, "combined") == 0 || strcmp(format, "common") == 0) {
        format = "clf"; /* one parser reads both, robustly */
    }
    t->file_size = -1;
    t->window_us = (int64_t) TRACE_WINDOW_DEFAULT * 1000000;
    t->held_max = TRACE_HELD_DEFAULT;
    t->out_last = INT64_MIN;
    t->path = strdup(path);
    if (t->path == NULL) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    if (strcmp(path, "-") == 0) {
        t->f = gzdopen(dup(STDIN_FILENO), "rb");
    } else {
        struct stat st;

        t->f = gzopen(path, "rb");
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            t->file_size = (int64_t) st.st_size;
        }
    }
    if (t->f == NULL) {
        snprintf(err, errlen, "%s: cannot open", path);
        goto err;
    }
    gzbuffer(t->f, 256 * 1024);

    if (strcmp(format, "auto") == 0) {
        /* peek, then start again (gzrewind cannot rewind a pipe, so
         * standard input needs --format) */
        n = gzread(t->f, head, sizeof(head));
        if (n <= 0 || gzrewind(t->f) != 0) {
            snprintf(err, errlen,
                     "%s: cannot detect the format (empty, "
                     "or not seekable: give --format)",
                     path);
            goto err;
        }
        for (f = formats; *f != NULL; f++) {
            if ((*f)->probe(head, (size_t) n)) {
                break;
            }
        }
    } else if (strchr(format, '$') != NULL) {
        static const format_t *const tpl[] = {&fmt_template, NULL};

        t->fields = trace_fields_template(format, err, errlen);
        if (t->fields == NULL) {
            goto err;
        }
        f = tpl;
    } else {
        for (f = formats; *f != NULL; f++) {
            if (strcmp((*f)->name, format) == 0) {
                break;
            }
        }
        if (*f == NULL) {
            for (f = named_formats; *f != NULL; f++) {
                if (strcmp((*f)->name, format) == 0
                    || (strcmp(format, "oracleGeneral") == 0
                        && *f == &fmt_oracle)) {
                    break;
                }
            }
        }
    }
    if (*f == NULL) {
        snprintf(err, errlen,
                 strcmp(format, "auto") == 0
                     ? "%s: not a format I know (combined, common, json, "
                       "wc98, nic, or an nginx log_format string)"
                     : "unknown trace format \"%s\" (combined, common, json, "
                       "wc98, nic, oracle, lcs-csv, or an nginx log_format "
                       "string with $)",
                 strcmp(format, "auto") == 0 ? path : format);
        goto err;
    }
    t->fmt = *f;
    if (t->fmt == &fmt_json && (t->fields = trace_fields_json()) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }

    if (t->fmt == &fmt_nic) {
        unsigned char magic[TRACE_NIC_MAGIC_LEN];

        t->urls = trace_strtab_new();
        t->nbuf = malloc(NIC_BUF);
        if (t->urls == NULL || t->nbuf == NULL
            || gzread(t->f, magic, sizeof(magic)) != (int) sizeof(magic)
            || memcmp(magic, trace_nic_magic, sizeof(magic)) != 0) {
            snprintf(err, errlen, "%s: not a nic trace", path);
            goto err;
        }
    }

    if (mapping != NULL) {
        t->map = trace_wc98_map_load(mapping, err, errlen);
        if (t->map == NULL) {
            goto err;
        }
    }
    return t;

err:
    trace_close(t);
    return NULL;
}

/* r (its URL copied) joins the records held, by key */
static int
hold(trace_reader_t *t, const trace_req_t *r, int64_t key)
{
    held_t h;
    char  *u = malloc(r->url_len ? r->url_len : 1);

    if (u == NULL) {
        return -1;
    }
    memcpy(u, r->url, r->url_len);
    h.r = *r;
    h.r.url = u;
    h.key = key;
    h.seq = t->seq++;
    if (held_heap_push(&t->held, h) != 0) {
        free(u);
        return -1;
    }
    return 0;
}

void
trace_set_window(trace_reader_t *t, double window_s)
{
    t->window_us = window_s <= 0 ? 0 : (int64_t) (window_s * 1e6);
}

void
trace_set_held_max(trace_reader_t *t, uint64_t max_held)
{
    t->held_max = max_held == 0 ? TRACE_HELD_DEFAULT : (size_t) max_held;
}

void
trace_allow_truncated(trace_reader_t *t, int allow)
{
    t->allow_truncated = allow;
}

uint64_t
trace_late_count(const trace_reader_t *t)
{
    return t->late;
}

void
trace_allow_late(trace_reader_t *t, int allow)
{
    t->allow_late = allow;
}

void
trace_set_raw(trace_reader_t *t)
{
    t->window_us = 0;
    t->raw = 1;
}

void
trace_adopt_bad(trace_reader_t *t, const trace_reader_t *from)
{
    t->nbad = from->nbad;
    memcpy(t->bad, from->bad, sizeof(t->bad));
}

static int raw_next(trace_reader_t *t, trace_req_t *r, char *err,
                    size_t errlen);

int
trace_next(trace_reader_t *t, trace_req_t *r, char *err, size_t errlen)
{
    held_t h;
    int    rc;

    free(t->out_url);
    t->out_url = NULL;
    /* the compact format is in time order by construction (convert
     * sorts), and a window of 0 keeps the log's order: records go out as
     * read, a record earlier than the one before clamped, as below, but
     * without holding (and copying) anything */
    if ((t->fmt == &fmt_nic || t->window_us == 0) && t->held.n == 0) {
        int64_t key;

        rc = raw_next(t, r, err, errlen);
        if (rc <= 0) {
            return rc;
        }
        key = r->time * 1000000 + (int64_t) r->usec;
        if (t->seq++ > 0 && key < t->out_last && !t->raw) {
            key = t->out_last;
            r->time = key / 1000000;
            r->usec = (uint32_t) (key % 1000000);
            t->late++;
        }
        t->out_last = key;
        return 1;
    }
    /* read until the earliest held record is a window behind the log,
     * or as many records are held as the reader may hold */
    while (
        !t->raw_eof && t->held.n < t->held_max
        && (t->held.n == 0 || t->held.a[0].key > t->seen_max - t->window_us)) {
        int64_t key;

        rc = raw_next(t, r, err, errlen);
        if (rc < 0) {
            return rc;
        }
        if (rc == 0) {
            t->raw_eof = 1;
            break;
        }
        key = r->time * 1000000 + (int64_t) r->usec;
        if (key < t->out_last) {
            key = t->out_last; /* later than the window: clamped */
            r->time = key / 1000000;
            r->usec = (uint32_t) (key % 1000000);
            t->late++;
        }
        if (t->seq == 0 || key > t->seen_max) {
            t->seen_max = key;
        }
        if (hold(t, r, key) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    if (t->held.n == 0) {
        return 0;
    }
    h = held_heap_pop(&t->held);
    *r = h.r;
    t->out_url = (char *) h.r.url;
    t->out_last = h.key;
    return 1;
}

static int
raw_next(trace_reader_t *t, trace_req_t *r, char *err, size_t errlen)
{
    int rc, bad = 0;

    for (;;) {
        memset(r, 0, sizeof(*r));
        rc = t->fmt->next(t, r, &bad);
        if (rc != -2) {
            t->records += rc == 1;
            break;
        }
        if (t->nbad < TRACE_ERRORS_KEPT) {
            trace_bad_t *b = &t->bad[t->nbad];
            size_t       i;

            b->line = t->lineno;
            b->err = bad;
            b->text[0] = '\0';
            for (i = 0;
                 t->fmt->text && t->line != NULL && i + 1 < sizeof(b->text)
                 && t->line[i] != '\0' && t->line[i] != '\n';
                 i++) {
                unsigned char c = (unsigned char) t->line[i];

                b->text[i] = c >= 0x20 && c < 0x7f ? (char) c : '?';
                b->text[i + 1] = '\0';
            }
        }
        t->nbad++;
    }
    if (rc == -1) {
        int         zerr;
        const char *msg = gzerror(t->f, &zerr);

        if (t->allow_truncated && zerr != Z_ERRNO && zerr != Z_OK
            && zerr != Z_MEM_ERROR) {
            fprintf(stderr,
                    "warning: %s: %s after line %llu; read as far as it "
                    "goes (--allow-truncated)\n",
                    t->path, msg, (unsigned long long) t->lineno);
            return 0;
        }
        snprintf(err, errlen, "read error after line %llu: %s",
                 (unsigned long long) t->lineno,
                 zerr == Z_ERRNO ? "I/O error"
                 : zerr == Z_OK  ? "damaged or truncated record"
                                 : msg);
    }
    return rc;
}

const char *
trace_format(const trace_reader_t *t)
{
    return t->fmt->name;
}

double
trace_progress(const trace_reader_t *t)
{
    z_off_t off;

    if (t->file_size <= 0 || (off = gzoffset(t->f)) < 0) {
        return -1;
    }
    /* the input consumed (compressed bytes for gzip), less zlib's
     * read-ahead, which is at most a buffer */
    return off >= t->file_size ? 1.0 : (double) off / (double) t->file_size;
}

uint64_t
trace_bad_count(const trace_reader_t *t)
{
    return t->nbad;
}

const char *
trace_late_why(uint64_t late, uint64_t records, int allowed, const char *path,
               char *buf, size_t len)
{
    if (allowed || late * 100 <= records) {
        return NULL;
    }
    snprintf(buf, len,
             "%llu of %llu records of %s (%.1f %%) came later than the "
             "reorder window allows and were clamped: the log is out of "
             "order (sort it by time, widen --reorder-window, or "
             "--allow-late)",
             (unsigned long long) late, (unsigned long long) records, path,
             100.0 * (double) late / (double) records);
    return buf;
}

const char *
trace_late_failure(const trace_reader_t *t, const char *path, char *buf,
                   size_t len)
{
    return trace_late_why(t->late, t->records, t->allow_late, path, buf, len);
}

const char *
trace_no_record_why(const trace_reader_t *t, const char *path, char *buf,
                    size_t len)
{
    const trace_bad_t *b = t->nbad > 0 ? &t->bad[0] : NULL;

    if (b == NULL) {
        snprintf(buf, len, "no record of %s parsed (it holds none)", path);
    } else if (b->text[0] != '\0') {
        snprintf(buf, len,
                 "no record of %s parsed (%llu lines did not; line %llu, its "
                 "%s: \"%s\"; the wrong --format or --log-format?)",
                 path, (unsigned long long) t->nbad,
                 (unsigned long long) b->line, trace_err_str(b->err), b->text);
    } else {
        snprintf(buf, len,
                 "no record of %s parsed (%llu records did not; record %llu, "
                 "its %s; the wrong --format?)",
                 path, (unsigned long long) t->nbad,
                 (unsigned long long) b->line, trace_err_str(b->err));
    }
    return buf;
}

const trace_bad_t *
trace_bad_first(const trace_reader_t *t, int *n)
{
    *n = t->nbad < TRACE_ERRORS_KEPT ? (int) t->nbad : TRACE_ERRORS_KEPT;
    return t->bad;
}

void
trace_close(trace_reader_t *t)
{
    if (t == NULL) {
        return;
    }
    if (t->f != NULL) {
        gzclose(t->f);
    }
    trace_wc98_map_free(t->map);
    trace_strtab_free(t->urls);
    trace_fields_free(t->fields);
    while (t->held.n > 0) {
        free((char *) t->held.a[--t->held.n].r.url);
    }
    held_heap_free(&t->held);
    free(t->out_url);
    free(t->line);
    free(t->nbuf);
    free(t->path);
    free(t);
}

void
trace_print_version(const char *prog)
{
    printf("%s (nicache) %s\nfeatures: gzip (zlib %s)\n", prog, NICACHE_VERSION,
           zlibVersion());
}
