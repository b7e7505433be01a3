/*
 * HTTP/2: a stream's request, kept as the session reports its fields,
 * and the view of it the handlers take (handler.h's nicd_request_t).
 */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "server/http/http2_stream.h"
#include "server/core/transport.h"
#include "server/http/head.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

/* keep a header value in the stream's request buffer */
static void
keep(h2_stream_t *st, const uint8_t *v, size_t len, size_t *off, size_t *l)
{
    *off = st->rq.len;
    *l = len;
    nicd_buf_add(&st->rq, v, len);
}

/* the regular request header fields kept by name, their lengths known */
#define NAME(s) s, sizeof(s) - 1
static const struct {
    const char *name;
    size_t      len;
} hdr_names[NICD_NHDR] = {
    {NAME("range")},
    {NAME("if-range")},
    {NAME("if-match")},
    {NAME("if-none-match")},
    {NAME("if-modified-since")},
    {NAME("if-unmodified-since")},
    {NAME("host")},
    {NAME("accept-encoding")},
    {NAME("authorization")},
};
#undef NAME

/*
 * A field past the limits of the default server of the address (its
 * large_client_header_buffers, as nginx's HTTP/2 reads them before a
 * server is chosen): a field longer than one buffer, or the fields
 * together (names and values) longer than all of them.
 */
static int
too_large(nicd_conn_t *c, h2_stream_t *st, size_t nlen, size_t vlen)
{
    size_t field, all;

    nicd_head_h2_limits(c, &field, &all);
    st->field_bytes += nlen + vlen;
    if (nlen > field || vlen > field) {
        log_error(LOG_INFO, 0, "client sent too large header field, client: %s",
                  nicd_client(c));
        return 1;
    }
    if (st->field_bytes > all) {
        log_error(LOG_INFO, 0, "client sent too large header, client: %s",
                  nicd_client(c));
        return 1;
    }
    return 0;
}

/*
 * A field the protocol finds invalid, judged as nginx judges it.  A name
 * with a control byte, a space, DEL or a colon, or a value with NUL, CR
 * or LF: the request is answered 400 (a name with an upper-case letter
 * never comes here: the session resets its stream, RFC 9113, 8.2.1).  Anything
 * else (a value with other control bytes, a name with bytes other than
 * a token's) is taken as any field, the name then to
 * ignore_invalid_headers; 1 when so, 0 when judged here.
 */
static int
invalid_taken(h2_stream_t *st, const uint8_t *name, size_t nlen,
              const uint8_t *value, size_t vlen)
{
    size_t i;

    for (i = nlen > 0 && name[0] == ':'; i < nlen; i++) {
        if (name[i] <= ' ' || name[i] == 0x7f || name[i] == ':'
            || (name[i] >= 'A' && name[i] <= 'Z')) {
            st->bad = "client sent invalid header name";
            return 0;
        }
    }
    if (memchr(value, '\0', vlen) != NULL || memchr(value, '\r', vlen) != NULL
        || memchr(value, '\n', vlen) != NULL) {
        st->bad = "client sent header with invalid value";
        return 0;
    }
    return 1;
}

/* a :path of visible characters, as nginx takes one */
static int
path_valid(const uint8_t *v, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (v[i] <= ' ' || v[i] == 0x7f) {
            return 0;
        }
    }
    return 1;
}

/* the Cookie fields of a stream joined in one, "; " between (RFC 9113,
 * 8.2.3: before the request goes on as HTTP/1.1), as nginx's */
static void
join_cookie(h2_stream_t *st, const uint8_t *v, size_t len)
{
    int    k = st->cookie - 1;
    size_t off = st->all_voff[k], old = st->all_vlen[k];

    if (nicd_buf_reserve(&st->rq, old + 2 + len) != 0) {
        return; /* (out of memory: the later pairs are left out) */
    }
    /* the earlier pairs copied from the buffer itself, room made first */
    st->all_voff[k] = st->rq.len;
    nicd_buf_add(&st->rq, st->rq.data + off, old);
    nicd_buf_add(&st->rq, "; ", 2);
    nicd_buf_add(&st->rq, v, len);
    st->all_vlen[k] = old + 2 + len;
}

int
nicd_h2_on_header(void *ud, void *stream, const uint8_t *name, size_t nlen,
                  const uint8_t *value, size_t vlen, int valid)
{
    nicd_conn_t *c = ud;
    h2_stream_t *st = stream;
    const char  *q;
    int          i;

    if (!valid && !invalid_taken(st, name, nlen, value, vlen)) {
        return 0;
    }
    if (!valid && nlen > 0 && name[0] == ':') {
        return NICD_H2_PROTOCOL_ERROR; /* (a reset) */
    }
    if (too_large(c, st, nlen, vlen)) {
        /* nginx's connection error: GOAWAY ENHANCE_YOUR_CALM */
        return -NICD_H2_ENHANCE_YOUR_CALM;
    }
    st->header_bytes += nlen + vlen + 32;
    if (c->w->cycle->conf->http2_max_header_size > 0
        && st->header_bytes > c->w->cycle->conf->http2_max_header_size) {
        log_error(LOG_INFO, 0,
                  "client sent too large HTTP/2 header block, client: %s",
                  nicd_client(c));
        return NICD_H2_INTERNAL_ERROR; /* RST_STREAM */
    }
    if (nlen == 6 && memcmp(name, "cookie", 6) == 0 && st->cookie > 0) {
        join_cookie(st, value, vlen);
        return 0;
    }
    if (nlen > 0 && name[0] == ':') {
        /* the session has checked the pseudo-header fields */
        if (nlen == 7 && memcmp(name, ":method", 7) == 0) {
            st->method = nicd_http_method((const char *) value, vlen);
            if (!nicd_http_method_valid((const char *) value, vlen)) {
                st->bad = "client sent invalid method";
            }
        } else if (nlen == 5 && memcmp(name, ":path", 5) == 0) {
            if (!path_valid(value, vlen)) {
                st->bad = "client sent invalid :path header";
            }
            q = memchr(value, '#', vlen); /* left out, as over HTTP/1.1 */
            vlen = q != NULL ? (size_t) (q - (const char *) value) : vlen;
            q = memchr(value, '?', vlen);
            keep(st, value,
                 q != NULL ? (size_t) (q - (const char *) value) : vlen,
                 &st->path_off, &st->path_len);
            if (q != NULL) {
                keep(st, (const uint8_t *) q + 1,
                     vlen - (size_t) (q - (const char *) value) - 1,
                     &st->query_off, &st->query_len);
            }
            st->has_path = 1;
        } else if (nlen == 10 && memcmp(name, ":authority", 10) == 0) {
            if (vlen == 0) {
                st->bad = "client sent empty :authority header";
            }
            keep(st, value, vlen, &st->hdr_off[NICD_HDR_HOST],
                 &st->hdr_len[NICD_HDR_HOST]);
            st->has_hdr[NICD_HDR_HOST] = 1;
            st->has_auth = 1;
        }
        return 0;
    }
    if (nlen == 4 && memcmp(name, "host", 4) == 0 && st->has_auth) {
        /* both: they must agree (nginx's 400, RFC 9113, 8.3.1) */
        if (st->hdr_len[NICD_HDR_HOST] != vlen
            || memcmp(st->rq.data + st->hdr_off[NICD_HDR_HOST], value, vlen)
                   != 0) {
            st->bad = "client sent :authority and host headers that differ";
        }
    }
    if (st->nall < NICD_MAX_HEADERS) {
        keep(st, name, nlen, &st->all_noff[st->nall], &st->all_nlen[st->nall]);
        keep(st, value, vlen, &st->all_voff[st->nall], &st->all_vlen[st->nall]);
        st->nall++;
        if (nlen == 6 && memcmp(name, "cookie", 6) == 0) {
            st->cookie = st->nall;
        }
        st->odd_names |= nicd_http_name_odd((const char *) name, nlen, 0);
    }
    if (nlen == 7 && memcmp(name, "referer", 7) == 0) {
        keep(st, value, vlen, &st->ref_off, &st->ref_len);
        st->has_ref = 1;
    } else if (nlen == 10 && memcmp(name, "user-agent", 10) == 0) {
        keep(st, value, vlen, &st->ua_off, &st->ua_len);
        st->has_ua = 1;
    } else {
        for (i = 0; i < NICD_NHDR; i++) {
            if (hdr_names[i].len == nlen
                && memcmp(name, hdr_names[i].name, nlen) == 0) {
                keep(st, value, vlen, &st->hdr_off[i], &st->hdr_len[i]);
                st->has_hdr[i] = 1;
                break;
            }
        }
    }
    return 0;
}

void
nicd_h2_on_begin_frame(void *ud, uint8_t type, uint8_t flags, int32_t id,
                       uint32_t len)
{
    nicd_conn_t *c = ud;
    h2_stream_t *st;

    (void) flags;
    if (type == NICD_H2_PUSH_PROMISE) {
        /* a client may not push (RFC 9113, 8.4): ended at its frame's
         * head, as nginx ends it, not when (if ever) its payload comes */
        log_error(LOG_INFO, 0, "client sent PUSH_PROMISE frame, client: %s",
                  nicd_client(c));
        return;
    }
    if ((type == NICD_H2_CONTINUATION || type == NICD_H2_DATA) && id > 0
        && (st = stream_of(c, id)) != NULL) {
        st->length += len;
    }
    /* a request's frame under way: its stream is reset if the rest does
     * not come in time (h2_frame_timeout) */
    c->h2->partial = (type == NICD_H2_HEADERS || type == NICD_H2_CONTINUATION
                      || type == NICD_H2_DATA)
                             && len > 0
                         ? id
                         : 0;
    c->h2->partial_data = type == NICD_H2_DATA;
}

/*
 * client_header_timeout or client_body_timeout with a request's frame
 * begun and not ended: its stream is reset (PROTOCOL_ERROR), the
 * connection serves on, as nginx's (2); a connection whose first request
 * never came is closed (0).
 */
int
nicd_h2_frame_timeout(nicd_conn_t *c)
{
    int32_t id = c->h2 != NULL ? c->h2->partial : 0;

    if (id == 0
        || (stream_of(c, id) == NULL && id <= nicd_h2s_last_id(c->h2->s))) {
        return 0; /* (a stream not open, nor opening) */
    }
    log_error(LOG_INFO, 0,
              "client timed out while reading the request %s, client: %s",
              c->h2->partial_data ? "body" : "header", nicd_client(c));
    c->h2->partial = 0;
    c->timer = T_NONE; /* (the next wait sets its own) */
    nicd_h2s_reset(c->h2->s, id, NICD_H2_PROTOCOL_ERROR);
    return 2;
}

/* the view of the request a stream carries (its header fields in the
 * worker's arrays, until the next view) */
void
nicd_h2_stream_view(nicd_conn_t *c, const h2_stream_t *st, nicd_request_t *r)
{
    int i;

    memset(r, 0, sizeof(*r));
    for (i = 0; i < st->nall; i++) {
        c->w->hname[i].p = st->rq.data + st->all_noff[i];
        c->w->hname[i].len = st->all_nlen[i];
        c->w->hvalue[i].p = st->rq.data + st->all_voff[i];
        c->w->hvalue[i].len = st->all_vlen[i];
    }
    r->hname = c->w->hname;
    r->hvalue = c->w->hvalue;
    r->nheaders = st->nall;
    if (st->reqbody.len > 0) {
        r->body.p = st->reqbody.data;
        r->body.len = st->reqbody.len;
    }
    r->method = st->method;
    r->protocol = "HTTP/2.0";
    r->length = st->length;
    r->start_ms = st->start_ms;
    r->path.p = st->rq.data + st->path_off;
    r->path.len = st->path_len;
    r->query.p = st->rq.data + st->query_off;
    r->query.len = st->query_len;
    for (i = 0; i < NICD_NHDR; i++) {
        if (st->has_hdr[i]) {
            r->hdr[i].p = st->rq.data + st->hdr_off[i];
            r->hdr[i].len = st->hdr_len[i];
        }
    }
    if (st->odd_names) {
        r->nheaders =
            nicd_head_filter(c, r, c->w->hname, c->w->hvalue, st->nall);
    }
}

/* ---- a stream answered later (handler.h: nicd_req_suspend) ---- */

nicd_req_t *
nicd_h2_suspend(nicd_conn_t *c)
{
    h2_stream_t *st = c->h2->cur;

    if (st->req.uri != NULL && st->uri == NULL) {
        /* $uri may be in the worker's buffers, which go on to others */
        if ((st->uri = strndup(st->req.uri, st->req.uri_len)) == NULL) {
            return NULL;
        }
    }
    if (st->req.uri != NULL) {
        st->req.uri = st->uri;
    }
    nicd_h2_stream_view(c, st, &st->view);
    st->req.in = &st->view;
    st->suspended = 1;
    st->conn = c;
    c->h2->delayed++; /* the connection waits without a timeout */
    return &st->req;
}

void
nicd_h2_resume(nicd_conn_t *c, nicd_req_t *req)
{
    c->h2->cur = (h2_stream_t *) ((char *) req - offsetof(h2_stream_t, req));
}

/* the response goes once it is finished (h2_finish submits it whole) */
int
nicd_h2_flush(nicd_conn_t *c)
{
    c->h2->cur = NULL;
    c->r = NULL;
    return 1;
}

/* the access log line of a stream, in the configuration's log_format:
 * everything is known by the time it closes */
void
nicd_h2_log_stream(nicd_conn_t *c, h2_stream_t *st)
{
    nicd_log_view_t v;
    nicd_request_t  r;
    nicd_req_t     *was = c->r;

    if (!st->log_chosen || !st->log.any || !st->answered) {
        return;
    }
    nicd_h2_stream_view(c, st, &r);
    memset(&v, 0, sizeof(v));
    v.method =
        st->method == NICD_M_UNKNOWN ? "-" : nicd_http_method_name(st->method);
    v.path = r.path;
    v.query = r.query;
    if (st->uri != NULL) {
        v.uri.p = st->uri;
        v.uri.len = strlen(st->uri);
    }
    v.protocol = "HTTP/2.0";
    v.hname = r.hname;
    v.hvalue = r.hvalue;
    v.nheaders = r.nheaders;
    v.server_name = "";
    v.tls = c->tp == &nicd_transport_tls;
    v.late_known = 1;
    v.status = st->status;
    v.body_bytes = st->sent;
    v.bytes = st->sent; /* (its frames' heads not counted) */
    v.sent = st->req.sent;
    /* the stream's request at hand again, for the registry's variables:
     * its view, and $uri as it was answered */
    st->req.in = &r;
    st->req.uri = st->uri;
    st->req.uri_len = v.uri.len;
    c->r = &st->req;
    v.addr = nicd_client(c); /* (realip's, when it set one) */
    if (c->w->vseq != st->vseq) {
        /* another stream's values are kept (a suspended one's own saved) */
        nicd_vars_restore(c->w, st->req.vars);
    }
    v.c = c;
    nicd_log_phase_write(c, &st->log, &v);
    c->r = was;
}
