/*
 * The project's own compact trace format ("nic"), written by
 * nictrace convert and read faster than text:
 *
 *   "NICTRACE" 0x01                          magic and version
 *   then one record per request:
 *     u8     tag: bit 0 set when the record defines a new URL
 *     [varint len, len bytes]                the new URL (ids count from
 *                                            0 in order of definition)
 *     varint zigzag(time - previous time)    seconds
 *     varint client key
 *     u8     method (TRACE_GET, ...), varint status,
 *     varint bytes + 1 (0: unknown), varint URL id, u8 has_protocol
 *
 * Varints are little-endian base 128 (7 bits a byte, high bit: more).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "lib/formats/format.h"
#include "lib/formats/trace.h"
#include "lib/strtab.h"

const unsigned char trace_nic_magic[TRACE_NIC_MAGIC_LEN] = {
    'N', 'I', 'C', 'T', 'R', 'A', 'C', 'E', 1};

static unsigned char *
put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char) (v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char) v;
    return p;
}

size_t
trace_nic_encode(trace_nic_enc_t *e, const trace_req_t *r, uint32_t url_id,
                 int define, unsigned char *out)
{
    unsigned char *p = out;
    int64_t        d = r->time - e->last_time;

    *p++ = (unsigned char) (define ? 1 : 0);
    if (define) {
        p = put_varint(p, r->url_len);
        memcpy(p, r->url, r->url_len);
        p += r->url_len;
    }
    p = put_varint(p, ((uint64_t) d << 1) ^ (uint64_t) (d >> 63));
    p = put_varint(p, r->client);
    *p++ = (unsigned char) r->method;
    p = put_varint(p, (uint64_t) r->status);
    p = put_varint(p, r->bytes_known ? r->bytes + 1 : 0);
    p = put_varint(p, url_id);
    *p++ = (unsigned char) (r->has_protocol ? 1 : 0);
    e->last_time = r->time;
    return (size_t) (p - out);
}

/* ---- the format as the reader reads it (format.h) ---- */

/* the compact format is decoded from a buffer of its own: a gzgetc() per
 * byte was a sixth of nicsim's time */
#define NIC_BUF        (64 * 1024)
#define NIC_MAX_REC    64 /* tag, five varints of at most 10 bytes, 2 bytes */
#define NIC_TIME_LIMIT (INT64_MAX / 1000000 - 1)

typedef struct {
    trace_strtab_t *urls; /* the URLs defined so far */
    int64_t         time; /* the previous record's */
    unsigned char  *nbuf; /* bytes read ahead, [npos, nend) */
    size_t          npos, nend;
} nic_state_t;

static void
nic_close(void *state)
{
    nic_state_t *s = state;

    if (s != NULL) {
        trace_strtab_free(s->urls);
        free(s->nbuf);
        free(s);
    }
}

/* the state, once the magic is read */
static void *
nic_open(trace_input_t *in, const trace_format_args_t *a, char *err,
         size_t errlen)
{
    nic_state_t  *s = calloc(1, sizeof(*s));
    unsigned char magic[TRACE_NIC_MAGIC_LEN];

    if (s == NULL || (s->urls = trace_strtab_new()) == NULL
        || (s->nbuf = malloc(NIC_BUF)) == NULL
        || gzread(in->f, magic, sizeof(magic)) != (int) sizeof(magic)
        || memcmp(magic, trace_nic_magic, sizeof(magic)) != 0) {
        snprintf(err, errlen, "%s: not a nic trace", a->path);
        nic_close(s);
        return NULL;
    }
    return s;
}

static int
nic_probe(const unsigned char *p, size_t n)
{
    return n >= TRACE_NIC_MAGIC_LEN
           && memcmp(p, trace_nic_magic, TRACE_NIC_MAGIC_LEN) == 0;
}

/* At least want bytes ahead in the buffer, fewer only at the end of the
 * file; the count ahead, or -1 on a read error. */
static ssize_t
nic_ahead(nic_state_t *s, trace_input_t *in, size_t want)
{
    int n;

    if (s->nend - s->npos >= want) {
        return (ssize_t) (s->nend - s->npos);
    }
    memmove(s->nbuf, s->nbuf + s->npos, s->nend - s->npos);
    s->nend -= s->npos;
    s->npos = 0;
    while (s->nend < want) {
        n = gzread(in->f, s->nbuf + s->nend, (unsigned) (NIC_BUF - s->nend));
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            break;
        }
        s->nend += (size_t) n;
    }
    return (ssize_t) s->nend;
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
nic_define(nic_state_t *s, trace_input_t *in)
{
    const unsigned char *p = s->nbuf + s->npos, *end = s->nbuf + s->nend;
    uint64_t             len;
    uint32_t             got;
    int                  added, rc;
    size_t               have;
    char                *u;

    if (get_varint(&p, end, &len) != 0 || len > (1 << 20)) {
        return -1;
    }
    s->npos = (size_t) (p - s->nbuf);
    if (len + NIC_MAX_REC <= NIC_BUF) {
        if (nic_ahead(s, in, len + NIC_MAX_REC) < (ssize_t) len) {
            return -1;
        }
        rc = trace_strtab_intern(s->urls, (char *) s->nbuf + s->npos, len, &got,
                                 &added);
        s->npos += len;
        return rc != 0 || !added ? -1 : 0;
    }
    /* longer than the buffer: what it holds, then the rest from zlib */
    if ((u = malloc(len)) == NULL) {
        return -1;
    }
    have = s->nend - s->npos;
    memcpy(u, s->nbuf + s->npos, have);
    s->npos = s->nend;
    rc = gzread(in->f, u + have, (unsigned) (len - have)) != (int) (len - have)
         || trace_strtab_intern(s->urls, u, len, &got, &added) != 0 || !added;
    free(u);
    return rc ? -1 : 0;
}

/* A record of the compact format; a damaged one ends the trace (-1). */
static int
nic_next(void *state, trace_input_t *in, trace_req_t *r, int *bad)
{
    nic_state_t         *s = state;
    uint64_t             zz, client, status, bytes, id;
    int64_t              d;
    int                  tag, method, proto;
    ssize_t              n;
    const unsigned char *p, *end;
    const char          *url;
    size_t               ulen;

    (void) bad;
    if ((n = nic_ahead(s, in, NIC_MAX_REC)) <= 0) {
        return n < 0 ? -1 : 0;
    }
    in->lineno++;
    tag = s->nbuf[s->npos++];
    if ((tag & 1)
        && (nic_define(s, in) != 0 || nic_ahead(s, in, NIC_MAX_REC) < 0)) {
        return -1;
    }
    p = s->nbuf + s->npos;
    end = s->nbuf + s->nend;
    if (get_varint(&p, end, &zz) != 0 || get_varint(&p, end, &client) != 0
        || p == end || (method = *p++) > TRACE_OTHER
        || get_varint(&p, end, &status) != 0 || status > 999
        || get_varint(&p, end, &bytes) != 0 || get_varint(&p, end, &id) != 0
        || p == end || id >= trace_strtab_count(s->urls)) {
        return -1;
    }
    proto = *p++;
    s->npos = (size_t) (p - s->nbuf);
    d = (int64_t) (zz >> 1) ^ -(int64_t) (zz & 1);
    if ((d > 0 && s->time > INT64_MAX - d)
        || (d < 0 && s->time < INT64_MIN - d)) {
        return -1; /* a time no trace has: the file is damaged */
    }
    s->time += d;
    if (s->time > NIC_TIME_LIMIT || s->time < -NIC_TIME_LIMIT) {
        return -1; /* out of the range time order keeps in microseconds */
    }
    url = trace_strtab_get(s->urls, (uint32_t) id, &ulen);
    r->time = s->time;
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

const trace_format_t trace_format_nic = {
    "nic", nic_probe, nic_open, nic_next, nic_close, 0, 1};
