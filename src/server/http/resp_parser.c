/*
 * An upstream's response head (resp_parser.h).
 */

#include <string.h>
#include <strings.h>

#include "server/http/resp_parser.h"

void
nicd_resp_init(nicd_resp_t *p)
{
    memset(p, 0, offsetof(nicd_resp_t, h));
    p->content_length = -1;
    p->error = NULL;
    p->conn_close = p->conn_keepalive = p->conn_upgrade = 0;
    p->chunked = 0;
}

int
nicd_resp_is(const nicd_resp_t *p, const char *buf, int i, const char *name,
             size_t len)
{
    return p->h[i].nlen == len
           && strncasecmp(buf + p->h[i].noff, name, len) == 0;
}

/* a token character of a field name (RFC 9110, 5.6.2) */
static int
tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9')
           || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

/* does the comma-separated list v (len bytes) hold token t (any case)? */
static int
has_token(const char *v, size_t len, const char *t)
{
    size_t tl = strlen(t), i = 0, s, e;

    while (i < len) {
        while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) {
            i++;
        }
        s = i;
        while (i < len && v[i] != ',') {
            i++;
        }
        e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t')) {
            e--;
        }
        if (e - s == tl && strncasecmp(v + s, t, tl) == 0) {
            return 1;
        }
    }
    return 0;
}

/* the framing fields of a head */
static int
framing(nicd_resp_t *p, const char *buf, int i)
{
    const char *v = buf + p->h[i].voff;
    size_t      vl = p->h[i].vlen, k;
    int64_t     n = 0;

    if (nicd_resp_is(p, buf, i, "Content-Length", 14)) {
        if (p->content_length >= 0) {
            p->error =
                "upstream sent duplicate header line: \"Content-Length\"";
            return -1;
        }
        if (vl == 0) {
            goto bad_length;
        }
        for (k = 0; k < vl; k++) {
            if (v[k] < '0' || v[k] > '9' || n > (INT64_MAX - 9) / 10) {
                goto bad_length;
            }
            n = n * 10 + (v[k] - '0');
        }
        p->content_length = n;
    } else if (nicd_resp_is(p, buf, i, "Transfer-Encoding", 17)) {
        if (vl == 7 && strncasecmp(v, "chunked", 7) == 0 && !p->chunked) {
            p->chunked = 1;
        } else {
            p->error = "upstream sent unknown \"Transfer-Encoding\"";
            return -1;
        }
    } else if (nicd_resp_is(p, buf, i, "Connection", 10)) {
        p->conn_close |= has_token(v, vl, "close");
        p->conn_keepalive |= has_token(v, vl, "keep-alive");
        p->conn_upgrade |= has_token(v, vl, "upgrade");
    }
    return 0;

bad_length:
    p->error = "upstream sent invalid \"Content-Length\" header";
    return -1;
}

/* the status line at buf[0..end): 0, or -1 */
static int
status_line(nicd_resp_t *p, const char *buf, size_t end)
{
    if (end < 12 || strncmp(buf, "HTTP/1.", 7) != 0
        || (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ' || buf[9] < '1'
        || buf[9] > '9' || buf[10] < '0' || buf[10] > '9' || buf[11] < '0'
        || buf[11] > '9' || (end > 12 && buf[12] != ' ')) {
        p->error = "upstream sent no valid HTTP/1.0 header";
        return -1;
    }
    p->version = buf[7] == '1' ? 11 : 10;
    p->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    return 0;
}

static int
parse_head(nicd_resp_t *p, const char *buf, size_t head)
{
    size_t i = 0, e, c, vs, ve;

    e = (size_t) ((const char *) memchr(buf, '\n', head) - buf);
    if (status_line(p, buf, e > 0 && buf[e - 1] == '\r' ? e - 1 : e) != 0) {
        return -1;
    }
    for (i = e + 1; i < head;) {
        e = (size_t) ((const char *) memchr(buf + i, '\n', head - i) - buf);
        ve = e > i && buf[e - 1] == '\r' ? e - 1 : e;
        if (ve == i) {
            break; /* the empty line */
        }
        for (c = i; c < ve && tchar((unsigned char) buf[c]); c++) {
        }
        if (c == i || c == ve || buf[c] != ':') {
            p->error = "upstream sent invalid header";
            return -1;
        }
        if (p->nheaders == NICD_RESP_MAX_HEADERS) {
            p->error = "upstream sent too many header lines";
            return -1;
        }
        for (vs = c + 1; vs < ve && (buf[vs] == ' ' || buf[vs] == '\t'); vs++) {
        }
        while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t')) {
            ve--;
        }
        for (size_t k = vs; k < ve; k++) {
            if (buf[k] == '\0' || buf[k] == '\r') {
                p->error = "upstream sent invalid header";
                return -1;
            }
        }
        p->h[p->nheaders].noff = (uint32_t) i;
        p->h[p->nheaders].nlen = (uint32_t) (c - i);
        p->h[p->nheaders].voff = (uint32_t) vs;
        p->h[p->nheaders].vlen = (uint32_t) (ve - vs);
        if (framing(p, buf, p->nheaders) != 0) {
            return -1;
        }
        p->nheaders++;
        i = e + 1;
    }
    if (p->chunked && p->content_length >= 0) {
        p->error = "upstream sent \"Content-Length\" and "
                   "\"Transfer-Encoding\" headers at the same time";
        return -1;
    }
    return 0;
}

int
nicd_resp_parse(nicd_resp_t *p, const char *buf, size_t len, size_t max)
{
    size_t i = p->scanned, lim = len < max ? len : max;

    /* the head ends at an empty line: "\n\n" or "\n\r\n" */
    for (; i < lim; i++) {
        if (buf[i] != '\n' || i == 0) {
            continue;
        }
        if (buf[i - 1] == '\n'
            || (i >= 2 && buf[i - 1] == '\r' && buf[i - 2] == '\n')) {
            p->head_len = (uint32_t) (i + 1);
            if (parse_head(p, buf, i + 1) != 0) {
                return NICD_RESP_INVALID;
            }
            return NICD_RESP_DONE;
        }
    }
    p->scanned = (uint32_t) (i > 2 ? i - 2 : 0);
    if (len >= max) {
        return NICD_RESP_TOO_BIG;
    }
    return NICD_RESP_AGAIN;
}
