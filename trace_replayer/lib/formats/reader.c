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

#include "lib/heap.h"
#include "lib/formats/format.h"
#include "lib/formats/reader.h"
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

struct trace_reader_s {
    const trace_format_t *fmt;
    void                 *state; /* the format's (its open and close) */
    trace_input_t         in;
    int64_t               file_size; /* -1: not a regular file */
    uint64_t              nbad;
    trace_bad_t           bad[TRACE_ERRORS_KEPT];

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

/* named only (no bytes tell them apart): --format */
static const trace_format_t *const named_formats[] = {
    &trace_format_oracle, &trace_format_lcs_csv, NULL};

/* auto-detection asks them in this order */
static const trace_format_t *const formats[] = {
    &trace_format_nic, &trace_format_wc98, &trace_format_json,
    &trace_format_clf, NULL};

trace_reader_t *
trace_open(const char *path, const char *format, const char *mapping, char *err,
           size_t errlen)
{
    trace_reader_t              *t = calloc(1, sizeof(*t));
    const trace_format_t *const *f;
    trace_format_args_t          args = {path, format, mapping};
    unsigned char                head[400];
    int                          n;

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
        t->in.f = gzdopen(dup(STDIN_FILENO), "rb");
    } else {
        struct stat st;

        t->in.f = gzopen(path, "rb");
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            t->file_size = (int64_t) st.st_size;
        }
    }
    if (t->in.f == NULL) {
        snprintf(err, errlen, "%s: cannot open", path);
        goto err;
    }
    gzbuffer(t->in.f, 256 * 1024);

    if (strcmp(format, "auto") == 0) {
        /* peek, then start again (gzrewind cannot rewind a pipe, so
         * standard input needs --format) */
        n = gzread(t->in.f, head, sizeof(head));
        if (n <= 0 || gzrewind(t->in.f) != 0) {
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
        static const trace_format_t *const tpl[] = {&trace_format_log_format,
                                                    NULL};

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
                        && *f == &trace_format_oracle)) {
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
    if (t->fmt->open != NULL
        && (t->state = t->fmt->open(&t->in, &args, err, errlen)) == NULL) {
        goto err;
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
    if ((t->fmt->ordered || t->window_us == 0) && t->held.n == 0) {
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
        rc = t->fmt->next(t->state, &t->in, r, &bad);
        if (rc != -2) {
            t->records += rc == 1;
            break;
        }
        if (t->nbad < TRACE_ERRORS_KEPT) {
            trace_bad_t *b = &t->bad[t->nbad];
            size_t       i;

            b->line = t->in.lineno;
            b->err = bad;
            b->text[0] = '\0';
            for (i = 0;
                 t->fmt->text && t->in.line != NULL && i + 1 < sizeof(b->text)
                 && t->in.line[i] != '\0' && t->in.line[i] != '\n';
                 i++) {
                unsigned char c = (unsigned char) t->in.line[i];

                b->text[i] = c >= 0x20 && c < 0x7f ? (char) c : '?';
                b->text[i + 1] = '\0';
            }
        }
        t->nbad++;
    }
    if (rc == -1) {
        int         zerr;
        const char *msg = gzerror(t->in.f, &zerr);

        if (t->allow_truncated && zerr != Z_ERRNO && zerr != Z_OK
            && zerr != Z_MEM_ERROR) {
            fprintf(stderr,
                    "warning: %s: %s after line %llu; read as far as it "
                    "goes (--allow-truncated)\n",
                    t->path, msg, (unsigned long long) t->in.lineno);
            return 0;
        }
        snprintf(err, errlen, "read error after line %llu: %s",
                 (unsigned long long) t->in.lineno,
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

    if (t->file_size <= 0 || (off = gzoffset(t->in.f)) < 0) {
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
    if (t->fmt != NULL && t->fmt->close != NULL) {
        t->fmt->close(t->state);
    }
    if (t->in.f != NULL) {
        gzclose(t->in.f);
    }
    while (t->held.n > 0) {
        free((char *) t->held.a[--t->held.n].r.url);
    }
    held_heap_free(&t->held);
    free(t->out_url);
    free(t->in.line);
    free(t->path);
    free(t);
}

void
trace_print_version(const char *prog)
{
    printf("%s (nicache) %s\nfeatures: gzip (zlib %s)\n", prog, NICACHE_VERSION,
           zlibVersion());
}
