/* HTTP/1.x response reader: see hresp.h. */

#include <string.h>
#include <strings.h>

#include "lib/http/hresp.h"

void
hresp_init(hresp_t *r, int head_request)
{
    memset(r, 0, sizeof(*r));
    r->head_request = head_request;
}

static const char *
find_eol(const char *p, const char *end)
{
    return memchr(p, '\n', (size_t) (end - p));
}

/* does the comma-separated list v[0..n) hold token tok? */
static int
has_token(const char *v, size_t n, const char *tok)
{
    size_t tl = strlen(tok), i = 0, s;

    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) {
            i++;
        }
        s = i;
        while (i < n && v[i] != ',') {
            i++;
        }
        while (i > s && (v[i - 1] == ' ' || v[i - 1] == '\t')) {
            i--;
        }
        if (i - s == tl && strncasecmp(v + s, tok, tl) == 0) {
            return 1;
        }
        while (i < n && v[i] != ',') {
            i++;
        }
    }
    return 0;
}

/* digits only, no overflow */
static int
parse_u64(const char *v, size_t n, uint64_t *out)
{
    uint64_t x = 0;
    size_t   i;

    if (n == 0) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9' || x > (UINT64_MAX - 9) / 10) {
            return -1;
        }
        x = x * 10 + (uint64_t) (v[i] - '0');
    }
    *out = x;
    return 0;
}

/* Parse a whole head p[0..n) (through its empty line). */
static int
parse_head(hresp_t *r, const char *p, size_t n)
{
    const char *end = p + n, *eol, *colon, *v, *ve;
    uint64_t    length = 0;
    int         have_length = 0, chunked = 0, keep_alive = 0, close = 0;

    /* HTTP/1.x SP 3DIGIT [SP reason] */
    if (n < 13 || (p[12] != ' ' && p[12] != '\r' && p[12] != '\n')
        || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9'
        || p[8] != ' ' || p[9] < '1' || p[9] > '5' || p[10] < '0' || p[10] > '9'
        || p[11] < '0' || p[11] > '9') {
        return -1;
    }
    r->minor = p[7] - '0';
    r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
    eol = find_eol(p, end);
    for (p = eol + 1; p < end; p = eol + 1) {
        eol = find_eol(p, end);
        ve = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        if (ve == p) {
            break; /* the empty line */
        }
        colon = memchr(p, ':', (size_t) (ve - p));
        if (colon == NULL || colon == p) {
            return -1;
        }
        for (v = colon + 1; v < ve && (*v == ' ' || *v == '\t'); v++) {
        }
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) {
            ve--;
        }
#define IS(name)                                                               \
    ((size_t) (colon - p) == sizeof(name) - 1                                  \
     && strncasecmp(p, name, sizeof(name) - 1) == 0)
        if (IS("Content-Length")) {
            uint64_t l;

            if (parse_u64(v, (size_t) (ve - v), &l) != 0
                || (have_length && l != length)) {
                return -1;
            }
            length = l;
            have_length = 1;
        } else if (IS("Transfer-Encoding")) {
            chunked = has_token(v, (size_t) (ve - v), "chunked");
            if (!chunked) {
                return -1; /* a coding we cannot undo */
            }
        } else if (IS("Connection")) {
            close |= has_token(v, (size_t) (ve - v), "close");
            keep_alive |= has_token(v, (size_t) (ve - v), "keep-alive");
        } else if (IS("Set-Cookie") && r->cookie[0] == '\0') {
            size_t cl = (size_t) (ve - v) < sizeof(r->cookie) - 1
                            ? (size_t) (ve - v)
                            : sizeof(r->cookie) - 1;

            memcpy(r->cookie, v, cl);
            r->cookie[cl] = '\0';
        } else if (IS("Content-Range")) {
            /* bytes first-last/complete: the body starts at first */
            const char *d;

            if ((size_t) (ve - v) > 6 && strncasecmp(v, "bytes ", 6) == 0
                && (d = memchr(v + 6, '-', (size_t) (ve - v - 6))) != NULL
                && parse_u64(v + 6, (size_t) (d - v - 6), &r->offset) != 0) {
                return -1;
            }
        }
#undef IS
    }
    r->close = close || (r->minor == 0 && !keep_alive);
    r->length = have_length ? length : UINT64_MAX;

    if (r->head_request || r->status < 200 || r->status == 204
        || r->status == 304) {
        r->state = HRESP_DONE;
    } else if (chunked) {
        r->state = HRESP_CHUNK_SIZE;
    } else if (have_length) {
        r->remaining = length;
        r->state = length > 0 ? HRESP_BODY_LENGTH : HRESP_DONE;
    } else {
        r->state = HRESP_BODY_EOF;
        r->close = 1;
    }
    return 0;
}

static size_t
deliver(hresp_t *r, const char *p, size_t n, hresp_body_pt body, void *arg)
{
    if (body != NULL && n > 0) {
        body(arg, r->offset, p, n);
    }
    r->offset += n;
    r->body += n;
    return n;
}

ssize_t
hresp_feed(hresp_t *r, const char *p, size_t n, hresp_body_pt body, void *arg)
{
    const char *start = p, *end = p + n, *eol;
    size_t      k;

    while (p < end && r->state != HRESP_DONE) {
        switch (r->state) {
        case HRESP_HEAD: {
            /* find the empty line ending the head */
            const char *q = p, *e = NULL;

            while ((eol = find_eol(q, end)) != NULL) {
                if (eol == q || (eol == q + 1 && *q == '\r')) {
                    e = eol + 1;
                    break;
                }
                q = eol + 1;
            }
            if (e == NULL) {
                if ((size_t) (end - p) >= HRESP_MAX_HEAD) {
                    return -1;
                }
                return p - start;
            }
            if (parse_head(r, p, (size_t) (e - p)) != 0) {
                return -1;
            }
            r->head_bytes += (uint64_t) (e - p);
            p = e;
            if (r->status >= 100 && r->status < 200 && r->status != 101) {
                /* interim: the real response follows */
                int      head = r->head_request;
                uint64_t hb = r->head_bytes;

                hresp_init(r, head);
                r->head_bytes = hb;
            } else if (r->status == 101) {
                return -1; /* we never asked to switch protocols */
            }
            break;
        }
        case HRESP_BODY_LENGTH:
            k = (size_t) (end - p) < r->remaining ? (size_t) (end - p)
                                                  : (size_t) r->remaining;
            p += deliver(r, p, k, body, arg);
            r->remaining -= k;
            if (r->remaining == 0) {
                r->state = HRESP_DONE;
            }
            break;
        case HRESP_BODY_EOF:
            p += deliver(r, p, (size_t) (end - p), body, arg);
            break;
        case HRESP_CHUNK_SIZE:
        case HRESP_TRAILER: {
            const char *q;
            uint64_t    size = 0;
            int         digits = 0;

            eol = find_eol(p, end);
            if (eol == NULL) {
                if (end - p > 4096) {
                    return -1;
                }
                return p - start;
            }
            if (r->state == HRESP_TRAILER) {
                if (eol == p || (eol == p + 1 && *p == '\r')) {
                    r->state = HRESP_DONE;
                }
                p = eol + 1;
                break;
            }
            for (q = p; q < eol; q++) {
                int c = *q, d;

                if (c >= '0' && c <= '9') {
                    d = c - '0';
                } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
                    d = (c | 0x20) - 'a' + 10;
                } else {
                    break; /* extensions or the CR */
                }
                if (size > (UINT64_MAX >> 4)) {
                    return -1;
                }
                size = size * 16 + (uint64_t) d;
                digits++;
            }
            if (digits == 0
                || (q < eol && *q != ';' && *q != '\r' && *q != ' '
                    && *q != '\t')) {
                return -1;
            }
            p = eol + 1;
            r->remaining = size;
            r->state = size == 0 ? HRESP_TRAILER : HRESP_CHUNK_DATA;
            break;
        }
        case HRESP_CHUNK_DATA:
            k = (size_t) (end - p) < r->remaining ? (size_t) (end - p)
                                                  : (size_t) r->remaining;
            p += deliver(r, p, k, body, arg);
            r->remaining -= k;
            if (r->remaining == 0) {
                r->state = HRESP_CHUNK_CRLF;
            }
            break;
        case HRESP_CHUNK_CRLF:
            if (*p == '\r') {
                if (end - p < 2) {
                    return p - start;
                }
                p++;
            }
            if (*p != '\n') {
                return -1;
            }
            p++;
            r->state = HRESP_CHUNK_SIZE;
            break;
        }
    }
    return p - start;
}

int
hresp_eof(hresp_t *r)
{
    if (r->state == HRESP_BODY_EOF) {
        r->state = HRESP_DONE;
        return 1;
    }
    return r->state == HRESP_DONE;
}
