/*
 * WorldCup98 binary records and object mappings.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/grow.h"
#include "lib/formats/format.h"
#include "lib/formats/trace.h"

/* the status codes, in the order of the 1998 tools' table */
static const uint16_t wc98_status[] = {
    100, 101, 200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303,
    304, 305, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410,
    411, 412, 413, 414, 415, 500, 501, 502, 503, 504, 505,
};

static uint32_t
be32(const unsigned char *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8
           | (uint32_t) p[3];
}

void
trace_wc98_decode(const unsigned char *rec, trace_req_t *r, uint32_t *object)
{
    uint32_t size = be32(rec + 12);
    unsigned code = rec[17] & 0x3f;

    r->time = (int64_t) be32(rec);
    r->client = be32(rec + 4);
    *object = be32(rec + 8);
    r->bytes_known = size != 0xffffffffu;
    r->bytes = r->bytes_known ? size : 0;
    switch (rec[16]) {
    case 0: r->method = TRACE_GET; break;
    case 1: r->method = TRACE_HEAD; break;
    case 2: r->method = TRACE_POST; break;
    default: r->method = TRACE_OTHER;
    }
    r->status = code < sizeof(wc98_status) / sizeof(wc98_status[0])
                    ? wc98_status[code]
                    : 0;
    r->has_protocol = (rec[17] >> 6) != 0; /* 0 is HTTP/0.9 */
    r->url = NULL;
    r->url_len = 0;
}

struct trace_wc98_map_s {
    char     *text; /* every path, NUL-terminated, back to back */
    size_t    text_len, text_size;
    uint32_t *off; /* by id: offset into text, UINT32_MAX: none */
    uint32_t *len;
    uint32_t  nids; /* ids 0 .. nids-1 have a slot */
    size_t    count;
};

static int
grow_ids(trace_wc98_map_t *m, uint32_t id)
{
    uint32_t  n = m->nids ? m->nids : 1024, i;
    uint32_t *off, *len;

    while (n <= id) {
        n *= 2;
    }
    off = realloc(m->off, sizeof(uint32_t) * n);
    if (off == NULL) {
        return -1;
    }
    m->off = off;
    len = realloc(m->len, sizeof(uint32_t) * n);
    if (len == NULL) {
        return -1;
    }
    m->len = len;
    for (i = m->nids; i < n; i++) {
        m->off[i] = UINT32_MAX;
    }
    m->nids = n;
    return 0;
}

trace_wc98_map_t *
trace_wc98_map_load(const char *path, char *err, size_t errlen)
{
    trace_wc98_map_t *m = calloc(1, sizeof(*m));
    gzFile            f = gzopen(path, "rb");
    char              line[8192], *p, *e;
    unsigned long     id;
    size_t            n, lineno = 0;

    if (m == NULL || f == NULL) {
        snprintf(err, errlen, "%s: cannot open", path);
        goto err;
    }
    while (gzgets(f, line, sizeof(line)) != NULL) {
        lineno++;
        n = strlen(line);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
            line[--n] = '\0';
        }
        p = line;
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        id = strtoul(p, &e, 10);
        if (e == p || *e != ' ' || e[1] == '\0' || id >= UINT32_MAX / 2) {
            snprintf(err, errlen, "%s:%zu: not \"id path\"", path, lineno);
            goto err;
        }
        p = e + 1;
        n = strlen(p);
        if (id >= m->nids && grow_ids(m, (uint32_t) id) != 0) {
            snprintf(err, errlen, "out of memory");
            goto err;
        }
        /* offsets are 32 bits: the text stays under 4 GiB */
        if (trace_grow(&m->text, &m->text_size, m->text_len + n + 1, 1, 1 << 20)
                != 0
            || m->text_size > UINT32_MAX) {
            snprintf(err, errlen, "out of memory");
            goto err;
        }
        if (m->off[id] == UINT32_MAX) {
            m->count++;
        }
        memcpy(m->text + m->text_len, p, n + 1);
        m->off[id] = (uint32_t) m->text_len;
        m->len[id] = (uint32_t) n;
        m->text_len += n + 1;
    }
    gzclose(f);
    return m;

err:
    if (f != NULL) {
        gzclose(f);
    }
    trace_wc98_map_free(m);
    return NULL;
}

void
trace_wc98_map_free(trace_wc98_map_t *m)
{
    if (m == NULL) {
        return;
    }
    free(m->text);
    free(m->off);
    free(m->len);
    free(m);
}

size_t
trace_wc98_map_count(const trace_wc98_map_t *m)
{
    return m->count;
}

const char *
trace_wc98_map_url(const trace_wc98_map_t *m, uint32_t id, size_t *len)
{
    if (id >= m->nids || m->off[id] == UINT32_MAX) {
        return NULL;
    }
    *len = m->len[id];
    return m->text + m->off[id];
}

/* ---- the format as the reader reads it (format.h) ---- */

typedef struct {
    trace_wc98_map_t *map;     /* --mapping, or NULL */
    char              url[32]; /* "/object/ID" without a mapping */
} wc98_state_t;

static void *
wc98_open(trace_input_t *in, const trace_format_args_t *a, char *err,
          size_t errlen)
{
    wc98_state_t *s = calloc(1, sizeof(*s));

    (void) in;
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (a->mapping != NULL
        && (s->map = trace_wc98_map_load(a->mapping, err, errlen)) == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

static void
wc98_close(void *state)
{
    wc98_state_t *s = state;

    if (s != NULL) {
        trace_wc98_map_free(s->map);
        free(s);
    }
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

static int
wc98_next(void *state, trace_input_t *in, trace_req_t *r, int *bad)
{
    wc98_state_t *s = state;
    unsigned char rec[TRACE_WC98_RECORD];
    int           rc = trace_input_record(in, rec, sizeof(rec), bad);
    uint32_t      obj;
    const char   *u = NULL;
    size_t        len = 0;

    if (rc != 1) {
        return rc;
    }
    trace_wc98_decode(rec, r, &obj);
    if (s->map != NULL) {
        u = trace_wc98_map_url(s->map, obj, &len);
    }
    if (u == NULL) {
        len = (size_t) snprintf(s->url, sizeof(s->url), "/object/%u", obj);
        u = s->url;
    }
    r->url = u;
    r->url_len = len;
    return 1;
}

const trace_format_t trace_format_wc98 = {
    "wc98", wc98_probe, wc98_open, wc98_next, wc98_close, 0, 0};
