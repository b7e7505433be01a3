/*
 * Dispatch of a request to its handler, and the error pages: the part of
 * answering that is the same whatever the protocol (handler.h).
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "server/http/filter.h"
#include "server/http/handler.h"
#include "server/http/http2.h"
#include "server/http/variables.h"
#include "server/http/path.h"

const char *
nicd_status_reason(int status)
{
    switch (status) {
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Moved Temporarily";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Not Allowed";
    case 408: return "Request Time-out";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Request Entity Too Large";
    case 414: return "Request-URI Too Large";
    case 416: return "Requested Range Not Satisfiable";
    case 406: return "Not Acceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 504: return "Gateway Time-out";
    case 503: return "Service Temporarily Unavailable";
    case 505: return "HTTP Version Not Supported";
    }
    return "Unknown";
}

void
nicd_resp_header_u64(nicd_conn_t *c, const char *name, size_t nlen, uint64_t v)
{
    char buf[24];

    nicd_resp_header(c, name, nlen, buf, nicd_u64_to_str(buf, v));
}

void
nicd_resp_start(nicd_conn_t *c, int status)
{
    status = nicd_resp_status(c, status);
    c->r->status = status;
    /* trailers: the protocol frames the body so that they can follow
     * (HTTP/1.1 chunked), or clears the flag */
    c->r->trailers =
        c->r->in != NULL && c->r->in->method != NICD_M_HEAD && status >= 200
        && status != 204 && status != 304
        && nicd_trailer_filter_next(c, NICD_FILTER_TOP, status, NULL);
    nicd_proto(c)->start(c, status);
    if (c->r->err_location != NULL) {
        NICD_RESP_HEADER(c, "Location", c->r->err_location,
                         strlen(c->r->err_location));
    }
}

void
nicd_resp_finish(nicd_conn_t *c, int status)
{
    nicd_stats_t *st = c->w->stats;
    int           k;

    status = nicd_resp_status(c, status);
    k = status >= 100 && status < 600 ? status / 100 : 0;
    NICD_STAT_ADD(st->responses[k], 1);
    if (c->r->srv != NULL && st->srv != NULL && k > 0) {
        NICD_STAT_ADD(st->srv[c->r->srv->index * NICD_SRV_STATS + k], 1);
    }
    nicd_proto(c)->finish(c, status);
}

int
nicd_req_set_args(nicd_conn_t *c, const char *p, size_t len)
{
    char *copy = malloc(len + 1);

    if (copy == NULL) {
        return -1;
    }
    if (len > 0) {
        memcpy(copy, p, len); /* (none: p may be an empty buffer's NULL) */
    }
    copy[len] = '\0';
    free((char *) c->r->args.p);
    c->r->args.p = copy;
    c->r->args.len = len;
    c->r->args_set = 1;
    return 0;
}

int
nicd_resp_carry(nicd_conn_t *c, const char *name, size_t nlen,
                const char *value, size_t vlen)
{
    nicd_buf_t *b = c->r->carry;

    if (b == NULL && (b = c->r->carry = calloc(1, sizeof(*b))) == NULL) {
        return -1;
    }
    nicd_buf_add(b, name, nlen);
    nicd_buf_add(b, "", 1);
    nicd_buf_add(b, value, vlen);
    nicd_buf_add(b, "", 1);
    return nicd_buf_failed(b) ? -1 : 0;
}

void
nicd_resp_end_headers(nicd_conn_t *c)
{
    const nicd_buf_t *b = c->r->carry;
    size_t            off, nl, vl;

    if (c->r->vary_ae) {
        NICD_RESP_HEADER(c, "Vary", "Accept-Encoding", 15);
    }
    for (off = 0; b != NULL && off < b->len; off += nl + vl + 2) {
        nl = strlen(b->data + off);
        vl = strlen(b->data + off + nl + 1);
        nicd_resp_header(c, b->data + off, nl, b->data + off + nl + 1, vl);
    }
    nicd_header_filter_next(c, NICD_FILTER_TOP);
}

int
nicd_backend_report(nicd_conn_t *c, int fmt, nicd_buf_t *b)
{
    const snic_instance_t *in = &c->w->cycle->backend;
    size_t                 need, n;

    if (in->ops->report == NULL) {
        return 0;
    }
    need = in->ops->report(in->state, fmt, NULL, 0);
    if (nicd_buf_reserve(b, need + 1) != 0) {
        b->len = (size_t) -1;
        return 1;
    }
    n = in->ops->report(in->state, fmt, b->data + b->len, need + 1);
    b->len += n > need ? need : n; /* grew in between: cut, still well
                                      formed enough */
    return 1;
}

int
nicd_accepts_gzip(const nicd_str_t *v)
{
    size_t i, k;

    for (i = 0; v->p != NULL && i + 4 <= v->len; i++) {
        if (strncasecmp(v->p + i, "gzip", 4) != 0
            || (i > 0 && v->p[i - 1] != ' ' && v->p[i - 1] != ',')
            || (i + 4 < v->len && v->p[i + 4] != ',' && v->p[i + 4] != ';'
                && v->p[i + 4] != ' ')) {
            continue;
        }
        for (k = i + 4; k < v->len && v->p[k] == ' '; k++) {
        }
        if (k + 4 <= v->len && strncmp(v->p + k, ";q=0", 4) == 0) {
            for (k += 4; k < v->len && (v->p[k] == '0' || v->p[k] == '.');
                 k++) {
            }
            if (k == v->len || v->p[k] == ',' || v->p[k] == ' ') {
                return 0; /* q=0, q=0.0, ...: refused */
            }
        }
        return 1;
    }
    return 0;
}

size_t
nicd_content_type_value(nicd_conn_t *c, const char *t, size_t len, char *out,
                        size_t cap)
{
    char   name[64];
    size_t tl;
    int    n;

    /* not on 301 and 302, as nginx: old browsers took it for the next
     * page's */
    if (nicd_resp_charset(c, t, len, name, sizeof(name), NULL) > 0
        && c->r->status != 301 && c->r->status != 302) {
        /* a charset the type named already gives way (override_charset) */
        for (tl = 0; tl < len && t[tl] != ';'; tl++) {
        }
        while (tl > 0 && t[tl - 1] == ' ') {
            tl--;
        }
        n = snprintf(out, cap, "%.*s; charset=%s", (int) tl, t, name);
        if (n > 0 && (size_t) n < cap) {
            return (size_t) n;
        }
    }
    return 0; /* the type as it is */
}

void
nicd_resp_content_type(nicd_conn_t *c, const char *t, size_t len)
{
    char   buf[256];
    size_t n;

    n = nicd_content_type_value(c, t, len, buf, sizeof(buf));
    if (n == 0) {
        NICD_RESP_HEADER(c, "Content-Type", t, len); /* no copy */
    } else {
        NICD_RESP_HEADER(c, "Content-Type", buf, n);
    }
}

int
nicd_file_read(nicd_conn_t *c, nicd_file_t *f, nicd_buf_t *out,
               const char *what)
{
    return nicd_file_read_part(c, f, 0, (size_t) f->file.size, out, what);
}

int
nicd_file_read_part(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t size,
                    nicd_buf_t *out, const char *what)
{
    size_t  got = 0;
    ssize_t n;

    if (nicd_buf_reserve(out, size) != 0) {
        return -1;
    }
    while (got < size) {
        n = pread(f->file.fd, out->data + out->len + got, size - got,
                  off + (off_t) got);
        if (n <= 0) {
            if (n == -1 && errno == EINTR) {
                continue;
            }
            log_error(LOG_ERR, n == 0 ? 0 : errno,
                      "pread() for %s failed%s, client: %s", what,
                      n == 0 ? " (the file shrank)" : "", nicd_client(c));
            return -1;
        }
        got += (size_t) n;
    }
    out->len += size;
    return 0;
}

int
nicd_open_status(nicd_conn_t *c, int err, const char *path)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
    case ENAMETOOLONG: return 404;
    case EACCES:
    case EPERM: return 403;
    case EXDEV:
    case ELOOP:
        log_error(LOG_ERR, err,
                  "\"%s\" resolves outside the root or "
                  "through a refused symlink, client: %s",
                  path, nicd_client(c));
        return 403;
    case EMFILE:
    case ENFILE:
        log_error(LOG_CRIT, err,
                  "open() \"%s\" failed: out of file "
                  "descriptors, client: %s",
                  path, nicd_client(c));
        return 503;
    }
    log_error(LOG_ERR, err, "open() \"%s\" failed, client: %s", path,
              nicd_client(c));
    return 500;
}

int
nicd_file_recode(nicd_conn_t *c, nicd_file_t *f, const char *type,
                 nicd_buf_t *mem, const nicd_recode_t **rc)
{
    nicd_buf_t raw = {0};
    char       name[64];
    int        k;

    nicd_resp_charset(c, type, strlen(type), name, sizeof(name), rc);
    if (*rc == NULL) {
        return 0;
    }
    k = nicd_file_read(c, f, &raw, "charset") == 0
                && (*rc)->run(*rc, raw.data, raw.len, mem) == 0
            ? 1
            : -1;
    nicd_buf_free(&raw);
    return k;
}

int
nicd_query_arg(const nicd_str_t *query, const char *name, size_t len,
               nicd_str_t *value)
{
    const char *q = query->p, *end = q + query->len, *e, *amp;

    while (q != NULL && q < end) {
        amp = memchr(q, '&', (size_t) (end - q));
        e = amp != NULL ? amp : end;
        if ((size_t) (e - q) > len && strncasecmp(q, name, len) == 0
            && q[len] == '=') {
            value->p = q + len + 1;
            value->len = (size_t) (e - q) - len - 1;
            return 1;
        }
        q = amp != NULL ? amp + 1 : NULL;
    }
    return 0;
}

int
nicd_req_cleanup(nicd_req_t *req, void (*fn)(void *), void *data)
{
    nicd_cleanup_t *cl = malloc(sizeof(*cl)), **end;

    if (cl == NULL) {
        return -1;
    }
    cl->fn = fn;
    cl->data = data;
    cl->next = NULL;
    for (end = &req->cleanup; *end != NULL; end = &(*end)->next) {
    }
    *end = cl;
    return 0;
}

int
nicd_sent_headers(const nicd_buf_t *sent, const char *name, size_t len,
                  nicd_buf_t *out)
{
    nicd_str_t value;
    nicd_buf_t rest;
    int        n = 0;

    if (sent == NULL) {
        return 0;
    }
    rest = *sent;
    while (nicd_sent_header(&rest, name, len, &value)) {
        if (n++ > 0) {
            NICD_BUF_LIT(out, ", ");
        }
        nicd_buf_add(out, value.p, value.len);
        /* the fields after this one */
        rest.len -= (size_t) (value.p + value.len + 1 - rest.data);
        rest.data = (char *) value.p + value.len + 1;
    }
    return n;
}

void
nicd_req_keep_header(nicd_req_t *req, const char *name, size_t nlen,
                     const char *value, size_t vlen)
{
    if (req == NULL) {
        return; /* no request at hand: nothing will read the field */
    }
    if (req->sent == NULL
        && (req->sent = calloc(1, sizeof(nicd_buf_t))) == NULL) {
        return; /* the variable will be empty */
    }
    nicd_buf_add(req->sent, name, nlen);
    nicd_buf_add(req->sent, "", 1);
    nicd_buf_add(req->sent, value, vlen);
    nicd_buf_add(req->sent, "", 1);
}

void
nicd_req_sent_free(nicd_req_t *req)
{
    nicd_buf_free(req->sent);
    free(req->sent);
    req->sent = NULL;
}

int
nicd_header_is(const char *name, size_t nlen, const char *s, size_t slen)
{
    size_t i;

    if (nlen != slen) {
        return 0;
    }
    for (i = 0; i < slen; i++) {
        char a = name[i] == '-' ? '_' : name[i], b = s[i] == '-' ? '_' : s[i];

        if (tolower((unsigned char) a) != tolower((unsigned char) b)) {
            return 0;
        }
    }
    return 1;
}

int
nicd_sent_header(const nicd_buf_t *sent, const char *name, size_t len,
                 nicd_str_t *value)
{
    const char *p, *end, *v;
    size_t      n;

    if (sent == NULL || nicd_buf_failed(sent)) {
        return 0;
    }
    for (p = sent->data, end = p + sent->len; p < end; p = v + strlen(v) + 1) {
        n = strlen(p);
        v = p + n + 1;
        if (nicd_header_is(p, n, name, len)) {
            value->p = v;
            value->len = strlen(v);
            return 1;
        }
    }
    return 0;
}
