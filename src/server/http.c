/*
 * The static file handler and HTTP responses.
 *
 * RFC 9110 points applied here: conditionals in the order of 13.2.2
 * (If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since,
 * If-Range); weak comparison for If-None-Match, strong for If-Match and
 * If-Range; a 304 carries the validators and no body; a 416 carries
 * "Content-Range: bytes * /size"; every response carries Date; HEAD gets
 * the headers GET would get.  nginx's choices where the RFCs leave one:
 * ETag "hex(mtime)-hex(size)", If-Modified-Since compared exactly
 * (if_modified_since exact), a directory without a slash is redirected
 * with 301, a directory without an index is 403.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nicd.h"
#include "path.h"
#include "range.h"

typedef struct {
    time_t sec;
    char   http[NICD_HTTP_DATE_LEN + 1];
    char   log[NICD_LOG_DATE_LEN + 1];
} date_cache_t;

static _Thread_local date_cache_t dates;
static _Thread_local uint64_t     boundary_seq;

static void
refresh_dates(void)
{
    time_t t = time(NULL);

    if (t != dates.sec) {
        dates.sec = t;
        nicd_http_date(dates.http, t);
        nicd_log_date(dates.log, t);
    }
}

static const char *
reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Not Allowed";
    case 408: return "Request Time-out";
    case 412: return "Precondition Failed";
    case 413: return "Request Entity Too Large";
    case 414: return "Request-URI Too Large";
    case 416: return "Requested Range Not Satisfiable";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Temporarily Unavailable";
    case 505: return "HTTP Version Not Supported";
    }
    return "Unknown";
}

/* Statuses after which the connection is closed, as nginx does. */
static int
closes_connection(int status)
{
    return status == 400 || status == 408 || status == 413 || status == 414
           || status == 431 || status == 500 || status == 501 || status == 505;
}

int
nicd_http_keepalive_allowed(nicd_conn_t *c)
{
    const nicd_conf_t *cf = c->w->cycle->conf;

    return c->w->state == NICD_RUNNING && cf->keepalive_timeout > 0
           && c->nrequests < cf->keepalive_requests;
}

#define REQ_BASE(c) ((c)->in + (c)->in_start)

static nicd_span_t
header_value(nicd_conn_t *c, int idx)
{
    nicd_span_t none = {0, 0};

    return idx < 0 ? none : c->req.headers[idx].value;
}

/* nginx's escaping of log variables: '"', '\\' and non-printables. */
static void
log_escaped(nicd_buf_t *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i;
    char              e[4] = {'\\', 'x', 0, 0};

    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char) s[i];

        if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\') {
            e[2] = hex[ch >> 4];
            e[3] = hex[ch & 15];
            nicd_buf_add(b, e, 4);
        } else {
            nicd_buf_add(b, s + i, 1);
        }
    }
}

static void
log_quoted_header(nicd_conn_t *c, nicd_buf_t *b, int idx)
{
    nicd_span_t v = header_value(c, idx);

    NICD_BUF_LIT(b, "\"");
    if (idx < 0) {
        NICD_BUF_LIT(b, "-");
    } else {
        log_escaped(b, REQ_BASE(c) + v.off, v.len);
    }
    NICD_BUF_LIT(b, "\"");
}

/*
 * Start the access log record of the response being built:
 *   $remote_addr - - [$time_local] "$request" | " "$http_referer"
 *   "$http_user_agent"\n
 * with status and body bytes put at the split when the response is sent.
 */
static void
log_record(nicd_conn_t *c, uint32_t *off, uint32_t *split, uint32_t *len)
{
    nicd_buf_t *b = &c->logb;

    *off = (uint32_t) b->len;
    nicd_buf_adds(b, c->addr);
    NICD_BUF_LIT(b, " - - [");
    nicd_buf_add(b, dates.log, NICD_LOG_DATE_LEN);
    NICD_BUF_LIT(b, "] \"");
    if (c->req.line.len > 0) {
        log_escaped(b, REQ_BASE(c) + c->req.line.off, c->req.line.len);
    } else {
        NICD_BUF_LIT(b, "-");
    }
    NICD_BUF_LIT(b, "\" ");
    *split = (uint32_t) b->len;
    NICD_BUF_LIT(b, " ");
    if (c->req.line.len > 0) {
        log_quoted_header(c, b, c->req.h_referer);
        NICD_BUF_LIT(b, " ");
        log_quoted_header(c, b, c->req.h_user_agent);
    } else {
        NICD_BUF_LIT(b, "\"-\" \"-\"");
    }
    NICD_BUF_LIT(b, "\n");
    *len = (uint32_t) (b->len - *off);
}

/* "HTTP/1.1 200 OK", Server and Date */
static void
begin_headers(nicd_conn_t *c, int status)
{
    nicd_buf_t *b = &c->out;

    refresh_dates();
    NICD_BUF_LIT(b, "HTTP/1.1 ");
    nicd_buf_add_u64(b, (uint64_t) status);
    NICD_BUF_LIT(b, " ");
    nicd_buf_adds(b, reason(status));
    NICD_BUF_LIT(b, "\r\n");
    nicd_buf_add(b, c->w->cycle->server_line, c->w->cycle->server_line_len);
    NICD_BUF_LIT(b, "Date: ");
    nicd_buf_add(b, dates.http, NICD_HTTP_DATE_LEN);
    NICD_BUF_LIT(b, "\r\n");
}

static void
header_u64(nicd_buf_t *b, const char *name, size_t nlen, uint64_t v)
{
    nicd_buf_add(b, name, nlen);
    nicd_buf_add_u64(b, v);
    NICD_BUF_LIT(b, "\r\n");
}

/* Connection header (only where it says something) and the empty line. */
static void
end_headers(nicd_conn_t *c)
{
    nicd_buf_t *b = &c->out;

    if (!c->keepalive) {
        NICD_BUF_LIT(b, "Connection: close\r\n");
    } else if (c->req.version == 10) {
        NICD_BUF_LIT(b, "Connection: keep-alive\r\n");
    }
    NICD_BUF_LIT(b, "\r\n");
}

static void
finish_response(nicd_conn_t *c, int status)
{
    uint32_t off = 0, split = 0, len = 0;

    if (c->w->log.file != NULL) {
        log_record(c, &off, &split, &len);
    }
    nicd_conn_out_end(c, status, off, split, len);
}

static void
error_page(nicd_conn_t *c, int status, const char *location,
           size_t location_len)
{
    nicd_buf_t *b = &c->out;
    size_t      start, body_start;
    char        page[512];
    int         n;

    if (closes_connection(status)) {
        c->keepalive = 0;
        c->closing = 1;
        c->linger_close = 1;
    }

    n = snprintf(page, sizeof(page),
                 "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n"
                 "<center><h1>%d %s</h1></center>\r\n<hr><center>nicd</center>"
                 "\r\n</body>\r\n</html>\r\n",
                 status, reason(status), status, reason(status));

    start = b->len;
    begin_headers(c, status);
    NICD_BUF_LIT(b, "Content-Type: text/html\r\n");
    header_u64(b, "Content-Length: ", 16, (uint64_t) n);
    if (status == 405) {
        NICD_BUF_LIT(b, "Allow: GET, HEAD\r\n");
    } else if (status == 503) {
        NICD_BUF_LIT(b, "Retry-After: 1\r\n");
    } else if (location != NULL) {
        NICD_BUF_LIT(b, "Location: ");
        nicd_buf_add(b, location, location_len);
        NICD_BUF_LIT(b, "\r\n");
    }
    end_headers(c);
    nicd_conn_out_mem(c, start, b->len - start, 0);

    if (c->req.method != NICD_M_HEAD) {
        body_start = b->len;
        nicd_buf_add(b, page, (size_t) n);
        nicd_conn_out_mem(c, body_start, (size_t) n, 1);
    }
    finish_response(c, status);
}

/*
 * A location's report: the send backend's counters, Prometheus text or
 * JSON, never cached.  "?reset" sets them to zero after reading them.
 */
static void
serve_report(nicd_conn_t *c, const nicd_location_t *loc)
{
    const snic_instance_t *in = &c->w->cycle->backend;
    const nicd_http_req_t *r = &c->req;
    nicd_buf_t            *b = &c->out;
    size_t                 start, body_start, n, need;
    char                  *text;
    const char            *q = REQ_BASE(c) + r->query.off;

    n = strlen(in->ops->name);
    if (in->ops->report == NULL || strncmp(loc->handler, in->ops->name, n) != 0
        || loc->handler[n] != '_') {
        log_error(LOG_ERR, 0,
                  "\"%s\" needs \"send_backend %.*s\" (the backend is %s), "
                  "client: %s",
                  loc->handler, (int) strcspn(loc->handler, "_"), loc->handler,
                  in->ops->name, c->addr);
        error_page(c, 404, NULL, 0);
        return;
    }
    need = in->ops->report(in->state, loc->format, NULL, 0);
    text = malloc(need + 1);
    if (text == NULL) {
        error_page(c, 500, NULL, 0);
        return;
    }
    n = in->ops->report(in->state, loc->format, text, need + 1);
    if (n > need) {
        n = need; /* grew in between: cut, still well formed enough */
    }
    if (r->query.len == 5 && memcmp(q, "reset", 5) == 0
        && in->ops->reset != NULL) {
        in->ops->reset(in->state);
        log_error(LOG_NOTICE, 0, "%s counters reset, client: %s", in->ops->name,
                  c->addr);
    }
    start = b->len;
    begin_headers(c, 200);
    if (loc->format == SNIC_REPORT_JSON) {
        NICD_BUF_LIT(b, "Content-Type: application/json\r\n");
    } else {
        NICD_BUF_LIT(b, "Content-Type: text/plain; version=0.0.4\r\n");
    }
    NICD_BUF_LIT(b, "Cache-Control: no-store\r\n");
    header_u64(b, "Content-Length: ", 16, (uint64_t) n);
    end_headers(c);
    nicd_conn_out_mem(c, start, b->len - start, 0);
    if (r->method != NICD_M_HEAD) {
        body_start = b->len;
        nicd_buf_add(b, text, n);
        nicd_conn_out_mem(c, body_start, n, 1);
    }
    free(text);
    finish_response(c, 200);
}

void
nicd_http_error(nicd_conn_t *c, int status)
{
    c->keepalive = 0;
    error_page(c, status, NULL, 0);
}

/* errno of a failed open to a status */
static int
open_status(nicd_conn_t *c, int err, const char *path)
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
                  path, c->addr);
        return 403;
    case EMFILE:
    case ENFILE:
        log_error(LOG_CRIT, err,
                  "open() \"%s\" failed: out of file "
                  "descriptors, client: %s",
                  path, c->addr);
        return 503;
    }
    log_error(LOG_ERR, err, "open() \"%s\" failed, client: %s", path, c->addr);
    return 500;
}

/*
 * Does the entity-tag list v match etag?  weak: W/ prefixes are ignored
 * on both sides (RFC 9110, 8.8.3.2).  "*" matches any.
 */
static int
etag_match(const char *v, size_t len, const char *etag, size_t elen, int weak)
{
    size_t i = 0, s;
    int    is_weak;

    while (i < len) {
        while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) {
            i++;
        }
        if (i == len) {
            break;
        }
        if (v[i] == '*') {
            return 1;
        }
        is_weak = 0;
        if (i + 1 < len && v[i] == 'W' && v[i + 1] == '/') {
            is_weak = 1;
            i += 2;
        }
        s = i;
        if (i < len && v[i] == '"') {
            i++;
            while (i < len && v[i] != '"') {
                i++;
            }
            if (i < len) {
                i++;
            }
        } else {
            while (i < len && v[i] != ',') {
                i++;
            }
        }
        if (i - s == elen && memcmp(v + s, etag, elen) == 0
            && (weak || !is_weak)) {
            return 1;
        }
    }
    return 0;
}

static time_t
header_date(nicd_conn_t *c, int idx)
{
    nicd_span_t v = header_value(c, idx);

    return idx < 0 ? -1 : nicd_http_date_parse(REQ_BASE(c) + v.off, v.len);
}

/*
 * Preconditions (RFC 9110, 13.2.2).  Returns 0 to go on, or 304 / 412.
 */
static int
preconditions(nicd_conn_t *c, nicd_file_t *f)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    nicd_http_req_t   *r = &c->req;
    nicd_span_t        v;
    time_t             t;

    if (r->h_if_match >= 0) {
        v = header_value(c, r->h_if_match);
        if (!etag_match(REQ_BASE(c) + v.off, v.len, f->etag, f->etag_len, 0)) {
            return 412;
        }
    } else if (r->h_if_unmodified_since >= 0) {
        t = header_date(c, r->h_if_unmodified_since);
        if (t != -1 && f->mtime > t) {
            return 412;
        }
    }

    if (r->h_if_none_match >= 0) {
        v = header_value(c, r->h_if_none_match);
        if (cf->etag
            && etag_match(REQ_BASE(c) + v.off, v.len, f->etag, f->etag_len,
                          1)) {
            return 304;
        }
    } else if (r->h_if_modified_since >= 0
               && cf->if_modified_since != NICD_IMS_OFF) {
        t = header_date(c, r->h_if_modified_since);
        if (t != -1
            && (cf->if_modified_since == NICD_IMS_EXACT ? f->mtime == t
                                                        : f->mtime <= t)) {
            return 304;
        }
    }
    return 0;
}

/* If-Range: does the validator still match?  (strong comparison) */
static int
if_range_ok(nicd_conn_t *c, nicd_file_t *f)
{
    nicd_span_t v = header_value(c, c->req.h_if_range);
    const char *p = REQ_BASE(c) + v.off;
    time_t      t;

    if (c->req.h_if_range < 0) {
        return 1;
    }
    if (v.len > 0 && (p[0] == '"' || (v.len > 2 && p[0] == 'W'))) {
        return v.len == f->etag_len && memcmp(p, f->etag, v.len) == 0;
    }
    /* a date is only a strong validator when the file has not changed
     * within the second it names (RFC 9110, 8.8.2.2 and 13.1.5) */
    t = nicd_http_date_parse(p, v.len);
    refresh_dates();
    return t != -1 && t == f->mtime && dates.sec > f->mtime;
}

static void
validators(nicd_conn_t *c, nicd_file_t *f)
{
    nicd_buf_t *b = &c->out;

    NICD_BUF_LIT(b, "Last-Modified: ");
    nicd_buf_add(b, f->last_modified, NICD_HTTP_DATE_LEN);
    NICD_BUF_LIT(b, "\r\n");
    if (c->w->cycle->conf->etag) {
        NICD_BUF_LIT(b, "ETag: ");
        nicd_buf_add(b, f->etag, f->etag_len);
        NICD_BUF_LIT(b, "\r\n");
    }
}

static void
send_not_modified(nicd_conn_t *c, nicd_file_t *f)
{
    size_t start = c->out.len;

    begin_headers(c, 304);
    validators(c, f);
    end_headers(c);
    nicd_conn_out_mem(c, start, c->out.len - start, 0);
    finish_response(c, 304);
}

static void
send_multipart(nicd_conn_t *c, nicd_file_t *f, nicd_range_t *rg, int n,
               int head)
{
    nicd_buf_t *b = &c->out;
    char        boundary[24];
    char        part[256];
    size_t      start, blen, plen, tlen;
    uint64_t    total = 0;
    int         i, k;

    blen = (size_t) snprintf(boundary, sizeof(boundary), "%020llu",
                             (unsigned long long) ++boundary_seq);

    /* every part header differs only in its range: size them first */
    for (i = 0; i < n; i++) {
        k = snprintf(part, sizeof(part),
                     "\r\n--%s\r\nContent-Type: %s\r\nContent-Range: bytes "
                     "%lld-%lld/%lld\r\n\r\n",
                     boundary, f->mime, (long long) rg[i].start,
                     (long long) rg[i].end, (long long) f->file.size);
        total += (uint64_t) k + (uint64_t) (rg[i].end - rg[i].start + 1);
    }
    tlen = 4 + blen + 4; /* "\r\n--" boundary "--\r\n" */
    total += tlen;

    start = b->len;
    begin_headers(c, 206);
    NICD_BUF_LIT(b, "Content-Type: multipart/byteranges; boundary=");
    nicd_buf_add(b, boundary, blen);
    NICD_BUF_LIT(b, "\r\n");
    header_u64(b, "Content-Length: ", 16, total);
    validators(c, f);
    end_headers(c);
    nicd_conn_out_mem(c, start, b->len - start, 0);

    if (!head) {
        for (i = 0; i < n; i++) {
            start = b->len;
            plen = (size_t) snprintf(
                part, sizeof(part),
                "\r\n--%s\r\nContent-Type: %s\r\nContent-Range: bytes "
                "%lld-%lld/%lld\r\n\r\n",
                boundary, f->mime, (long long) rg[i].start,
                (long long) rg[i].end, (long long) f->file.size);
            nicd_buf_add(b, part, plen);
            nicd_conn_out_mem(c, start, plen, 1);
            nicd_conn_out_file(c, f, rg[i].start,
                               (size_t) (rg[i].end - rg[i].start + 1));
        }
        start = b->len;
        NICD_BUF_LIT(b, "\r\n--");
        nicd_buf_add(b, boundary, blen);
        NICD_BUF_LIT(b, "--\r\n");
        nicd_conn_out_mem(c, start, tlen, 1);
    }
    finish_response(c, 206);
}

static void
serve_file(nicd_conn_t *c, nicd_file_t *f)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    nicd_buf_t        *b = &c->out;
    nicd_range_t      *rg;
    nicd_span_t        v;
    size_t             start;
    int                status, n = 0, rc = NICD_RANGE_IGNORE;
    int                head = c->req.method == NICD_M_HEAD;

    status = preconditions(c, f);
    if (status == 304) {
        send_not_modified(c, f);
        return;
    }
    if (status == 412) {
        error_page(c, 412, NULL, 0);
        return;
    }

    /* GET is the only method with range semantics: a HEAD gets what a
     * plain GET would (RFC 9110, 14.2: MUST ignore) */
    if (c->req.h_range >= 0 && c->req.method == NICD_M_GET && cf->max_ranges > 0
        && if_range_ok(c, f)) {
        v = header_value(c, c->req.h_range);
        c->w->scratch.len = 0;
        if (nicd_buf_reserve(&c->w->scratch,
                             sizeof(nicd_range_t) * (size_t) cf->max_ranges)
            != 0) {
            error_page(c, 500, NULL, 0);
            return;
        }
        rg = (nicd_range_t *) (void *) c->w->scratch.data;
        rc = nicd_range_parse(REQ_BASE(c) + v.off, v.len, f->file.size,
                              cf->max_ranges, rg, &n);
        if (rc == NICD_RANGE_UNSATISFIABLE) {
            start = b->len;
            begin_headers(c, 416);
            NICD_BUF_LIT(b, "Content-Type: text/html\r\n");
            header_u64(b, "Content-Range: bytes */", 23,
                       (uint64_t) f->file.size);
            NICD_BUF_LIT(b, "Content-Length: 0\r\n");
            end_headers(c);
            nicd_conn_out_mem(c, start, b->len - start, 0);
            finish_response(c, 416);
            return;
        }
        if (rc == NICD_RANGE_OK && n > 1) {
            send_multipart(c, f, rg, n, head);
            return;
        }
    }

    start = b->len;
    if (rc == NICD_RANGE_OK) {
        nicd_range_t r = ((nicd_range_t *) (void *) c->w->scratch.data)[0];

        begin_headers(c, 206);
        NICD_BUF_LIT(b, "Content-Type: ");
        nicd_buf_adds(b, f->mime);
        NICD_BUF_LIT(b, "\r\n");
        header_u64(b, "Content-Length: ", 16, (uint64_t) (r.end - r.start + 1));
        NICD_BUF_LIT(b, "Content-Range: bytes ");
        nicd_buf_add_u64(b, (uint64_t) r.start);
        NICD_BUF_LIT(b, "-");
        nicd_buf_add_u64(b, (uint64_t) r.end);
        NICD_BUF_LIT(b, "/");
        nicd_buf_add_u64(b, (uint64_t) f->file.size);
        NICD_BUF_LIT(b, "\r\n");
        validators(c, f);
        end_headers(c);
        nicd_conn_out_mem(c, start, b->len - start, 0);
        if (!head) {
            nicd_conn_out_file(c, f, r.start, (size_t) (r.end - r.start + 1));
        }
        finish_response(c, 206);
        return;
    }

    begin_headers(c, 200);
    NICD_BUF_LIT(b, "Content-Type: ");
    nicd_buf_adds(b, f->mime);
    NICD_BUF_LIT(b, "\r\n");
    header_u64(b, "Content-Length: ", 16, (uint64_t) f->file.size);
    validators(c, f);
    NICD_BUF_LIT(b, "Accept-Ranges: bytes\r\n");
    end_headers(c);
    nicd_conn_out_mem(c, start, b->len - start, 0);
    if (!head && f->file.size > 0) {
        nicd_conn_out_file(c, f, 0, (size_t) f->file.size);
    }
    finish_response(c, 200);
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* autoindex: an HTML listing, names sorted, hidden files left out */
static void
serve_listing(nicd_conn_t *c, nicd_file_t *dir, const char *path)
{
    nicd_buf_t    *b = &c->out;
    DIR           *d;
    struct dirent *de;
    struct stat    st;
    char         **names = NULL, **nn;
    size_t         n = 0, cap = 0, i, start, body, len;
    char          *esc, *html;
    char           date[32];
    int            fd;

    fd = dup(dir->file.fd);
    d = fd == -1 ? NULL : fdopendir(fd);
    if (d == NULL) {
        if (fd != -1) {
            close(fd);
        }
        error_page(c, open_status(c, errno, path), NULL, 0);
        return;
    }
    rewinddir(d);
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            nn = realloc(names, cap * sizeof(char *));
            if (nn == NULL) {
                break;
            }
            names = nn;
        }
        names[n] = strdup(de->d_name);
        if (names[n] != NULL) {
            n++;
        }
    }
    if (n > 0) {
        qsort(names, n, sizeof(char *), name_cmp);
    }

    /* body first, into the buffer after room for the headers */
    body = b->len;
    len = strlen(path);
    html = malloc(6 * len + 1 + 6 * 256 + 1);
    esc = malloc(3 * 256 + 1);
    if (html != NULL && esc != NULL) {
        nicd_html_escape(path, len, html);
        nicd_buf_addf(b,
                      "<html>\r\n<head><title>Index of %s</title></head>\r\n"
                      "<body>\r\n<h1>Index of %s</h1><hr><pre><a href=\"../\">"
                      "../</a>\r\n",
                      html, html);
        for (i = 0; i < n; i++) {
            int isdir = 0;

            if (fstatat(dirfd(d), names[i], &st, 0) == 0) {
                isdir = S_ISDIR(st.st_mode);
            } else {
                memset(&st, 0, sizeof(st));
            }
            len = strlen(names[i]);
            if (len > 255) {
                continue;
            }
            nicd_path_escape(names[i], len, esc);
            nicd_html_escape(names[i], len, html);
            nicd_http_date(date, st.st_mtim.tv_sec);
            if (isdir) {
                nicd_buf_addf(b, "<a href=\"%s/\">%s/</a> %*s %s %19s\r\n", esc,
                              html, (int) (len < 50 ? 50 - len : 0), "", date,
                              "-");
            } else {
                nicd_buf_addf(b, "<a href=\"%s\">%s</a> %*s %s %19lld\r\n", esc,
                              html, (int) (len < 51 ? 51 - len : 0), "", date,
                              (long long) st.st_size);
            }
        }
        NICD_BUF_LIT(b, "</pre><hr></body>\r\n</html>\r\n");
    }
    free(html);
    free(esc);
    for (i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    closedir(d);

    if (nicd_buf_failed(b)) {
        return; /* the connection is closed by the caller's flush */
    }

    /* headers go after the body in the buffer; queue them first */
    len = b->len - body;
    start = b->len;
    begin_headers(c, 200);
    NICD_BUF_LIT(b, "Content-Type: text/html\r\n");
    header_u64(b, "Content-Length: ", 16, (uint64_t) len);
    end_headers(c);
    nicd_conn_out_mem(c, start, b->len - start, 0);
    if (c->req.method != NICD_M_HEAD) {
        nicd_conn_out_mem(c, body, len, 1);
    }
    finish_response(c, 200);
}

static void
serve_directory(nicd_conn_t *c, nicd_file_t *dir, const char *path, size_t len)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    nicd_file_t       *f;
    nicd_span_t        raw;
    nicd_buf_t        *loc = &c->w->scratch;
    int                i, err;
    size_t             ilen;

    if (path[len - 1] != '/') {
        /* "/dir" -> "/dir/", keeping the query, as nginx does */
        raw = c->req.path;
        loc->len = 0;
        nicd_buf_add(loc, REQ_BASE(c) + raw.off, raw.len);
        NICD_BUF_LIT(loc, "/");
        if (c->req.query.len > 0) {
            NICD_BUF_LIT(loc, "?");
            nicd_buf_add(loc, REQ_BASE(c) + c->req.query.off, c->req.query.len);
        }
        if (nicd_buf_failed(loc)) {
            error_page(c, 500, NULL, 0);
            return;
        }
        error_page(c, 301, loc->data, loc->len);
        return;
    }

    for (i = 0; i < cf->nindex; i++) {
        ilen = strlen(cf->index[i]);
        loc->len = 0;
        nicd_buf_add(loc, path, len);
        nicd_buf_add(loc, cf->index[i], ilen);
        nicd_buf_add(loc, "", 1);
        if (nicd_buf_failed(loc)) {
            error_page(c, 500, NULL, 0);
            return;
        }
        err = nicd_ofc_open(&c->w->ofc, loc->data, loc->len - 1,
                            nicd_worker_now_ms(c->w), &f);
        if (err == ENOENT || err == ENOTDIR) {
            continue;
        }
        if (err != 0) {
            error_page(c, open_status(c, err, loc->data), NULL, 0);
            return;
        }
        if (f->is_dir) {
            nicd_ofc_release(&c->w->ofc, f);
            continue;
        }
        serve_file(c, f);
        nicd_ofc_release(&c->w->ofc, f);
        return;
    }

    if (cf->autoindex) {
        serve_listing(c, dir, path);
        return;
    }
    log_error(LOG_ERR, 0,
              "directory index of \"%s%s\" is forbidden, "
              "client: %s",
              cf->root, path, c->addr);
    error_page(c, 403, NULL, 0);
}

void
nicd_http_handle(nicd_conn_t *c)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    nicd_http_req_t   *r = &c->req;
    nicd_file_t       *f;
    char              *path;
    size_t             len;
    int                err, status;

    c->keepalive = r->keepalive && nicd_http_keepalive_allowed(c);

    if (r->has_body) {
        if (r->content_length > cf->client_max_body_size) {
            log_error(LOG_ERR, 0,
                      "client intended to send too large body: "
                      "%llu bytes, client: %s",
                      (unsigned long long) r->content_length, c->addr);
            nicd_http_error(c, 413);
            return;
        }
        if (r->expect_continue) {
            /* the client waits for a 100 we never send and may not send
             * the body at all after our answer: its framing is unknown,
             * so close (RFC 9110, 10.1.1 lets the server say so) */
            c->keepalive = 0;
        } else if (r->chunked) {
            /* skipped chunk by chunk after the head (conn.c) */
            c->in_chunked = 1;
            memset(&c->chunked, 0, sizeof(c->chunked));
        } else {
            c->discard = r->content_length;
        }
    }

    if (r->method != NICD_M_GET && r->method != NICD_M_HEAD) {
        error_page(c, 405, NULL, 0);
        return;
    }

    if (nicd_buf_reserve(&c->w->path, r->path.len + 2) != 0) {
        error_page(c, 500, NULL, 0);
        return;
    }
    path = c->w->path.data;
    status =
        nicd_path_normalize(REQ_BASE(c) + r->path.off, r->path.len, path, &len);
    if (status != 0) {
        log_error(LOG_INFO, 0, "client sent invalid path, client: %s", c->addr);
        error_page(c, status, NULL, 0);
        return;
    }

    if (cf->nlocations > 0) {
        const nicd_location_t *loc = nicd_conf_location(cf, path, len);

        if (loc != NULL) {
            serve_report(c, loc);
            return;
        }
    }

    err = nicd_ofc_open(&c->w->ofc, path, len, nicd_worker_now_ms(c->w), &f);
    if (err != 0) {
        status = open_status(c, err, path);
        if (status == 404) {
            log_error(LOG_INFO, 0, "\"%s%s\" not found, client: %s", cf->root,
                      path, c->addr);
        }
        error_page(c, status, NULL, 0);
        return;
    }

    if (f->is_dir) {
        serve_directory(c, f, path, len);
    } else if (path[len - 1] == '/') {
        error_page(c, 404, NULL, 0); /* "/file.html/" names no file */
    } else {
        serve_file(c, f);
    }
    nicd_ofc_release(&c->w->ofc, f);
}
