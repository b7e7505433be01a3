/*
 * HTTP/1.1, the protocol: a parsed request head (http_parser.c) becomes
 * a nicd_request_t for the handlers (handler.h), their responses a
 * status line, header lines and body items on the connection's queue
 * (conn.c), with the framing HTTP/1.1 needs: keep-alive or close, request
 * bodies skipped, the access log record; the head's own lines are
 * http1_head.c's.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/http/filter.h"
#include "server/http/handler.h"
#include "server/core/transport.h"
#include "server/http/http.h"
#include "server/http/http1.h"
#include "server/http/keepalive.h"
#include "server/http/phases.h"
#include "server/http/rate.h"
#include "server/http/upstream.h"
#include "server/http/variables.h"

static int
closes_connection(int status)
{
    return status == 400 || status == 408 || status == 413 || status == 414
           || status == 431 || status == 500 || status == 501 || status == 505;
}

/* the request at hand is done with: what it asked to run when its
 * response has gone waits for the queue (nicd_conn_out_cleanup) */
static void
h1_req_end(nicd_conn_t *c, nicd_req_t *req)
{
    nicd_conn_out_cleanup(c, req->cleanup);
    req->cleanup = NULL;
    nicd_req_end(req);
}

_Static_assert(NICD_HTTP_MAX_HEADERS <= NICD_MAX_HEADERS,
               "the worker's header arrays hold every field the parser does");

static void
finish_response(nicd_conn_t *c, int status)
{
    uint32_t off = 0, len = 0;

    if (c->r->chunked) {
        size_t start = c->out.len;

        NICD_BUF_LIT(&c->out, "0\r\n"); /* the last chunk, the trailers */
        if (c->r->trailers) {
            (void) nicd_trailer_filter_next(c, NICD_FILTER_TOP, c->r->status,
                                            &c->out);
        }
        NICD_BUF_LIT(&c->out, "\r\n");
        nicd_conn_out_mem(c, start, c->out.len - start, 0);
    }
    if (c->w->nlogs > 0) {
        nicd_h1_log_record(c, &off, &len);
    }
    nicd_conn_out_end(c, status, off, len);
}

/* ---- the protocol's response operations (handler.h) ---- */

static void
h1_start(nicd_conn_t *c, int status)
{
    if (c->r->trailers) {
        /* only a chunked body can end with trailers */
        c->r->trailers = c->r->in->protocol != NULL
                         && strcmp(c->r->in->protocol, "HTTP/1.1") == 0
                         && nicd_chunked_ok(c);
        c->r->chunked = c->r->trailers;
    }
    if (closes_connection(status)) {
        /* the request's framing can no longer be trusted */
        c->keepalive = 0;
        c->closing = 1;
        c->linger_close = 1;
    }
    c->resp_head = c->out.len;
    nicd_h1_begin_head(c, status);
}

static void
h1_header(nicd_conn_t *c, const char *name, size_t nlen, const char *value,
          size_t vlen)
{
    nicd_buf_t *b = &c->out;

    if (c->r != NULL && c->r->chunked && nlen == 14
        && strncasecmp(name, "Content-Length", 14) == 0) {
        return; /* (the body goes chunked) */
    }
    nicd_buf_add(b, name, nlen);
    NICD_BUF_LIT(b, ": ");
    nicd_buf_add(b, value, vlen);
    NICD_BUF_LIT(b, "\r\n");
}

static void
h1_end_headers(nicd_conn_t *c)
{
    if (c->r->chunked) {
        /* a body of unknown length: chunked for HTTP/1.1, the
         * connection's end for HTTP/1.0 (or chunked_transfer_encoding
         * off) */
        if ((c->r->in != NULL && c->r->in->protocol != NULL
             && strcmp(c->r->in->protocol, "HTTP/1.0") == 0)
            || !nicd_chunked_ok(c)) {
            c->r->chunked = 0;
            c->keepalive = 0;
        } else {
            NICD_RESP_HEADER(c, "Transfer-Encoding", "chunked", 7);
        }
    }
    nicd_h1_end_head(c);
    nicd_conn_out_mem(c, c->resp_head, c->out.len - c->resp_head, 0);
}

static void
h1_body_mem(nicd_conn_t *c, const char *p, size_t len)
{
    size_t   start = c->out.len;
    uint32_t rate, after;

    nicd_rate_of(c, &rate, &after);
    if (c->r->chunked) {
        char line[20];

        if (len == 0) {
            return; /* (an empty chunk would end the body) */
        }
        int n = snprintf(line, sizeof(line), "%zx\r\n", len);

        nicd_buf_add(&c->out, line, (size_t) n);
        nicd_conn_out_mem(c, start, (size_t) n, 0);
        start = c->out.len;
        nicd_buf_add(&c->out, p, len);
        nicd_conn_out_body(c, start, len, rate, after);
        start = c->out.len;
        NICD_BUF_LIT(&c->out, "\r\n");
        nicd_conn_out_mem(c, start, 2, 0);
        return;
    }
    nicd_buf_add(&c->out, p, len);
    nicd_conn_out_body(c, start, len, rate, after);
}

static void
h1_body_file(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len)
{
    uint32_t rate, after;

    nicd_rate_of(c, &rate, &after);
    if (c->r->chunked && len > 0) {
        /* a file's range as one chunk (a body ending with trailers) */
        size_t start = c->out.len;

        nicd_buf_addf(&c->out, "%zx\r\n", len);
        nicd_conn_out_mem(c, start, c->out.len - start, 0);
        nicd_conn_out_file(c, f, off, len, rate, after);
        start = c->out.len;
        NICD_BUF_LIT(&c->out, "\r\n");
        nicd_conn_out_mem(c, start, 2, 0);
        return;
    }
    nicd_conn_out_file(c, f, off, len, rate, after);
}

/* nginx's 444: the connection closes without an answer, once what is
 * queued before (pipelined answers) went out */
static void
h1_close(nicd_conn_t *c)
{
    c->keepalive = 0;
    c->closing = 1;
}

static nicd_req_t *h1_suspend(nicd_conn_t *c);
static void        h1_resume(nicd_conn_t *c, nicd_req_t *req);
static int         h1_flush(nicd_conn_t *c);
static void        tunnel_pending(nicd_conn_t *c);
static void        h1_done(nicd_conn_t *c);

static const nicd_protocol_t nicd_http1 = {
    "http/1.1",  h1_start,     h1_header,       h1_end_headers,
    h1_body_mem, h1_body_file, finish_response, h1_close,
    h1_suspend,  h1_resume,    h1_flush,        h1_done,
};

/* the same, keeping each field for $sent_http_ (conf->keep_sent) */
static void
h1_header_kept(nicd_conn_t *c, const char *name, size_t nlen, const char *value,
               size_t vlen)
{
    nicd_req_keep_header(c->r, name, nlen, value, vlen);
    h1_header(c, name, nlen, value, vlen);
}

static const nicd_protocol_t nicd_http1_kept = {
    "http/1.1",  h1_start,     h1_header_kept,  h1_end_headers,
    h1_body_mem, h1_body_file, finish_response, h1_close,
    h1_suspend,  h1_resume,    h1_flush,        h1_done,
};

/* ---- requests ---- */

/* a request held until its body is read (Lua locations, conn.c) */
struct nicd_held_s {
    nicd_request_t r;
    nicd_req_t     req; /* the request at hand while it is answered */
    nicd_str_t     hname[NICD_HTTP_MAX_HEADERS];
    nicd_str_t     hvalue[NICD_HTTP_MAX_HEADERS];
    int            loc;
    char          *body;
    size_t         body_len;
    nicd_ev_t      ev;        /* a delayed request's timer ... */
    int            delayed;   /* ... when it is one */
    int            suspended; /* answered later (nicd_req_suspend) */
    int            chunked;   /* its body comes in chunks (ch) ... */
    size_t         body_cap;  /* ... into body, grown */
    nicd_chunked_t ch;
    char          *uri;    /* its $uri, kept (suspended) */
    char           head[]; /* a copy of the request's head */
};
/* what the client sent and is not yet read, to an upgraded request's
 * tunnel (held, suspended), which takes what it can */
static void
tunnel_pending(nicd_conn_t *c)
{
    nicd_req_t *q = c->held != NULL ? &c->held->req : NULL;

    if (q != NULL && c->held->suspended && q->tunnel != NULL
        && c->in_end > c->in_start) {
        c->in_start += (uint32_t) q->tunnel(q->wake_data, c->in + c->in_start,
                                            c->in_end - c->in_start);
    }
}

static void
nicd_http_error(nicd_conn_t *c, int status)
{
    nicd_req_t none; /* no request block: an answer all the same */
    int        own = c->r == NULL;
    int        head = c->req != NULL && H1_REQ(c)->method == NICD_M_HEAD;

    c->keepalive = 0;
    c->closing = c->linger_close = 1; /* its framing is not to be trusted */
    if (c->tp == &nicd_transport_http_on_https) {
        status = 497; /* clear text to a TLS port, whatever else is wrong */
    }
    if (!own) {
        nicd_respond_error(c, status, head, NULL, 0);
        return;
    }
    nicd_req_begin(c, c->req != NULL ? H1_R(c) : &none);
    c->r->unparsed = 1; /* (a head that did not parse) */
    nicd_handle_unparsed(c, head,
                         c->req == NULL             ? NULL
                         : H1_REQ(c)->version == 11 ? "HTTP/1.1"
                         : H1_REQ(c)->version == 10 ? "HTTP/1.0"
                                                    : NULL,
                         status);
    h1_req_end(c, c->r);
    c->r = NULL;
}

/* "100 Continue" queued (an HTTP/1.1 request that expects it, for a
 * handler that reads its body) */
static void
send_continue(nicd_conn_t *c)
{
    static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
    size_t            start = c->out.len;

    nicd_buf_add(&c->out, cont, sizeof(cont) - 1);
    nicd_conn_out_mem(c, start, sizeof(cont) - 1, 0);
}

/* the request whose head the parser holds, kept apart from the
 * connection's buffer (its head copied, its view made): NULL when out of
 * memory */
static nicd_held_t *
held_new(nicd_conn_t *c)
{
    nicd_http_req_t *r = H1_REQ(c);
    nicd_held_t     *h = malloc(sizeof(*h) + r->head_len);

    if (h == NULL) {
        return NULL;
    }
    memcpy(h->head, REQ_BASE(c), r->head_len);
    nicd_h1_fill_request(c, h->head, &h->r, h->hname, h->hvalue);
    h->body = NULL;
    h->body_len = 0;
    h->loc = 0;
    h->delayed = 0;
    h->suspended = 0;
    h->uri = NULL;
    h->chunked = 0;
    h->body_cap = 0;
    memset(&h->req, 0, sizeof(h->req));
    return h;
}

/* A request with a body for a Lua location: keep a copy of its head and
 * read the body (nicd_http_collect(), as the bytes come) before answering.
 * 0, or -1 when it was answered at once (an error). */
static int
hold(nicd_conn_t *c, int loc)
{
    nicd_http_req_t *r = H1_REQ(c);
    nicd_held_t     *h;

    h = held_new(c);
    if (h != NULL && r->chunked) {
        /* a body of unknown length, read whole as it comes */
        h->chunked = 1;
        memset(&h->ch, 0, sizeof(h->ch));
    } else if (h != NULL && (h->body = malloc(r->content_length)) == NULL) {
        free(h);
        h = NULL;
    }
    if (h == NULL) {
        log_error(LOG_CRIT, 0,
                  "malloc() failed for a %llu-byte body, "
                  "client: %s",
                  (unsigned long long) r->content_length, nicd_client(c));
        nicd_http_error(c, 500);
        return -1;
    }
    h->loc = loc;
    c->held = h;
    c->collect = r->chunked ? UINT64_MAX : r->content_length;
    if (r->expect_continue && r->version == 11) {
        send_continue(c); /* the client waits for it to send the body */
    }
    return 0;
}

static void hold_for_delay(nicd_conn_t *c, nicd_held_t *h, uint32_t ms);

/* a held request's body cannot be had: answered status, closed after */
static void
body_failed(nicd_conn_t *c, nicd_held_t *h, int status, const char *why)
{
    log_error(LOG_INFO, 0, "%s, client: %s", why, nicd_client(c));
    c->held = NULL;
    c->collect = 0;
    free(h->body);
    free(h);
    nicd_http_error(c, status);
    c->closing = 1;
    c->linger_close = 1;
}

/* the chunks in c->in into h's body: 0, or -1 (answered) */
static int
collect_chunks(nicd_conn_t *c, nicd_held_t *h)
{
    const char *d;
    size_t      used, dlen;
    int         rc;

    while (c->in_start < c->in_end) {
        rc = nicd_http_chunked_read(&h->ch, c->in + c->in_start,
                                    c->in_end - c->in_start, &used, &d, &dlen);
        if (rc != NICD_HTTP_AGAIN && rc != NICD_HTTP_DONE) {
            body_failed(c, h, 400, "client sent invalid chunked body");
            return -1;
        }
        if (h->body_len + dlen > c->w->cycle->conf->client_max_body_size) {
            body_failed(c, h, 413,
                        "client intended to send too large "
                        "chunked body");
            return -1;
        }
        if (h->body_len + dlen > h->body_cap) {
            size_t cap = (h->body_len + dlen) * 2;
            char  *b = realloc(h->body, cap);

            if (b == NULL) {
                body_failed(c, h, 500, "realloc() failed for a body");
                return -1;
            }
            h->body = b;
            h->body_cap = cap;
        }
        if (dlen > 0) {
            memcpy(h->body + h->body_len, d, dlen);
            h->body_len += dlen;
        }
        c->in_start += (uint32_t) used;
        if (rc == NICD_HTTP_DONE) {
            c->collect = 0;
            break;
        }
        if (used == 0) {
            break;
        }
    }
    return 0;
}

static void
nicd_http_collect(nicd_conn_t *c)
{
    nicd_held_t *h = c->held;
    uint64_t     n = c->in_end - c->in_start;

    if (h->chunked) {
        if (collect_chunks(c, h) != 0) {
            return;
        }
    } else {
        if (n > c->collect) {
            n = c->collect;
        }
        memcpy(h->body + h->body_len, c->in + c->in_start, n);
        h->body_len += n;
        c->in_start += (uint32_t) n;
        c->collect -= n;
    }
    if (c->collect > 0) {
        return;
    }
    h->r.body.p = h->body != NULL ? h->body : "";
    h->r.body.len = h->body_len;
    h->r.length += h->body_len; /* (a chunked one's, as it came) */
    c->held = NULL;
    nicd_req_begin(c, &h->req);
    nicd_handle(c, &h->r); /* its location is chosen anew, the body in */
    if (h->suspended) {
        c->r = NULL; /* (c->held is h again) */
        return;
    }
    if (h->req.delay_ms > 0) {
        /* a limit asked it to wait: it is kept, its body with it */
        uint32_t ms = h->req.delay_ms;

        nicd_req_end(&h->req);
        c->r = NULL;
        hold_for_delay(c, h, ms);
        return;
    }
    h1_req_end(c, &h->req);
    c->r = NULL;
    free(h->body);
    free(h);
}

static void h1_run(nicd_conn_t *c);

/* a delayed request's time has come: answered again from the start */
static void
delay_done(int fd, short ev, void *arg)
{
    nicd_conn_t *c = arg;
    nicd_held_t *h = c->held;

    (void) fd;
    (void) ev;
    c->held = NULL;
    /* the server may have begun to stop meanwhile: then this is the last
     * (end_headers asks the location's settings again) */
    c->keepalive = c->keepalive && c->w->state == NICD_RUNNING;
    nicd_req_begin(c, &h->req);
    h->req.resumed = 1;
    nicd_handle(c, &h->r);
    if (h->suspended) {
        c->r = NULL;
        h1_run(c);
        return;
    }
    h1_req_end(c, &h->req);
    c->r = NULL;
    free(h->body); /* (a Lua request's, read before its wait) */
    free(h);
    if (!c->keepalive) {
        c->closing = 1;
    }
    h1_run(c); /* the answer out, then what came meanwhile */
}

/* h (its request kept) waits ms, then delay_done() answers it again */
static void
hold_for_delay(nicd_conn_t *c, nicd_held_t *h, uint32_t ms)
{
    struct timeval tv = nicd_tv_ms(ms);

    h->delayed = 1;
    c->held = h;
    nicd_ev_set(&h->ev, c->w->loop, -1, 0, delay_done, c);
    nicd_ev_add(&h->ev, &tv);
}

/* a phase handler asked the request at hand to wait (c->r->delay_ms): its
 * head kept, nothing more parsed (the answers go in order) until its time;
 * 0, or -1 when answered at once (out of memory: 500) */
static int
postpone(nicd_conn_t *c)
{
    nicd_held_t *h = held_new(c);

    if (h == NULL) {
        log_error(LOG_CRIT, 0, "malloc() failed, client: %s", nicd_client(c));
        nicd_http_error(c, 500);
        return -1;
    }
    hold_for_delay(c, h, c->r->delay_ms);
    return 0;
}

/* ---- a request answered later (handler.h: nicd_req_suspend) ---- */

static nicd_req_t *
h1_suspend(nicd_conn_t *c)
{
    nicd_held_t *h;

    if (c->r != H1_R(c)) {
        /* held already (for its body, or a delay), and answered now */
        h = (nicd_held_t *) ((char *) c->r - offsetof(nicd_held_t, req));
    } else {
        if ((h = held_new(c)) == NULL) {
            return NULL;
        }
        h->req = *c->r;
        h->req.in = &h->r;
        memset(c->r, 0, sizeof(*c->r)); /* moved: nothing to end there */
    }
    if (h->req.uri != NULL && h->req.uri != h->uri) {
        /* $uri may be in the worker's buffers, which go on to others */
        char *u = strndup(h->req.uri, h->req.uri_len);

        if (u == NULL) {
            if (c->r == H1_R(c)) {
                *c->r = h->req;
                free(h);
            }
            return NULL;
        }
        free(h->uri);
        h->uri = u;
        h->req.uri = u;
    }
    h->suspended = 1;
    c->held = h;
    return &h->req;
}

static void
h1_resume(nicd_conn_t *c, nicd_req_t *req)
{
    (void) req; /* (c->held's) */
    (void) c;
}

static int
h1_flush(nicd_conn_t *c)
{
    c->r = NULL;
    tunnel_pending(c); /* (sent with the upgrade's request, before its 101) */
    return nicd_conn_send(c, 1);
}

static void
h1_done(nicd_conn_t *c)
{
    nicd_held_t *h = c->held;

    c->held = NULL;
    h1_req_end(c, &h->req);
    c->r = NULL;
    free(h->body);
    free(h->uri);
    free(h);
    if (!c->keepalive) {
        c->closing = 1;
    }
    h1_run(c); /* the answer out, then what came meanwhile */
}

static void
nicd_http_held_free(nicd_conn_t *c)
{
    if (c->held != NULL) {
        if (c->held->delayed) {
            nicd_ev_del(&c->held->ev);
        }
        if (c->held->suspended) {
            /* the client went before its answer: logged as 499, as
             * nginx's, and its handler forgets it */
            uint32_t off = 0, len = 0;

            c->r = &c->held->req;
            c->r->status = c->r->upgrade ? 101 : 499; /* (a tunnel's end) */
            nicd_vars_restore(c->w, c->r->vars);      /* (others' meanwhile) */
            if (c->r->upstream != NULL) {
                nicd_upstream_req_end(c->w, c->r->upstream);
            }
            if (c->w->nlogs > 0) {
                nicd_h1_log_record(c, &off, &len);
                nicd_conn_log_abandoned(c, c->r->status, off, len);
            }
            c->r = NULL;
            nicd_req_end(&c->held->req);
            free(c->held->uri);
        }
        free(c->held->body);
        free(c->held);
        c->held = NULL;
    }
    c->collect = 0;
}

static void
h1_handle(nicd_conn_t *c)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    nicd_http_req_t   *r = H1_REQ(c);
    nicd_request_t     q;

    /* the location's settings have their say when the head is made */
    c->keepalive = r->keepalive && c->w->state == NICD_RUNNING;

    if (r->has_body) {
        if (r->content_length > cf->client_max_body_size) {
            log_error(LOG_ERR, 0,
                      "client intended to send too large body: "
                      "%llu bytes, client: %s",
                      (unsigned long long) r->content_length, nicd_client(c));
            nicd_http_error(c, 413);
            return;
        }
        nicd_h1_fill_request(c, REQ_BASE(c), &q, c->w->hname, c->w->hvalue);
        if (nicd_body_location(c, &q)) {
            (void) hold(c, 1);
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
            memset(H1_CHUNKED(c), 0, sizeof(nicd_chunked_t));
        } else {
            c->discard = r->content_length;
        }
    }

    if (!r->has_body) {
        nicd_h1_fill_request(c, REQ_BASE(c), &q, c->w->hname, c->w->hvalue);
        if (r->expect_continue && r->version == 11
            && nicd_body_location(c, &q)) {
            send_continue(c); /* (an empty body: read at once, nginx's) */
        }
    }
    nicd_handle(c, &q);
}

static void
nicd_http_handle(nicd_conn_t *c)
{
    nicd_req_begin(c, H1_R(c)); /* the request at hand while answered */
    h1_handle(c);
    if (c->r->delay_ms > 0) {
        (void) postpone(c);
    }
    h1_req_end(c, H1_R(c));
    c->r = NULL;
}

/* ---- the connection's protocol (nicd_conn_ops_t) ---- */

/* Skip request body bytes that nobody reads. */
static void
discard_body(nicd_conn_t *c)
{
    uint64_t n = c->in_end - c->in_start;

    if (n > c->discard) {
        n = c->discard;
    }
    c->in_start += (uint32_t) n;
    c->discard -= n;
}

/* Skip a chunked request body.  Returns NICD_HTTP_DONE when it has ended,
 * else NICD_HTTP_AGAIN (wait for more) or 400 (the connection is closing). */
static int
skip_chunked(nicd_conn_t *c)
{
    size_t used;
    int    rc;

    rc = nicd_http_chunked_skip(H1_CHUNKED(c), c->in + c->in_start,
                                c->in_end - c->in_start, &used);
    c->in_start += (uint32_t) used;
    if (rc == NICD_HTTP_DONE) {
        c->in_chunked = 0;
        return rc;
    }
    if (rc != NICD_HTTP_AGAIN) {
        log_error(LOG_INFO, 0,
                  "client sent invalid chunked body, "
                  "closing, client: %s",
                  nicd_client(c));
    } else if (H1_CHUNKED(c)->total > c->w->cycle->conf->client_max_body_size) {
        log_error(LOG_INFO, 0,
                  "client sent too large chunked body, "
                  "closing, client: %s",
                  nicd_client(c));
        rc = 413;
    } else {
        return rc;
    }
    c->in_chunked = 0;
    c->closing = 1;
    c->linger_close = 1;
    return rc;
}

/* The connection's loop (nicd_conn_ops_t.run): parse and answer what is
 * in the buffer, send, and decide what the connection waits for next. */
static void
h1_run(nicd_conn_t *c)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    int                rc, blocked;

    for (;;) {
        blocked = 0;
        while (!c->closing) {
            if (c->collect > 0) {
                nicd_http_collect(c);
                if (c->collect > 0 || c->held != NULL) {
                    break; /* (held: answered later) */
                }
                if (!c->keepalive) {
                    c->closing = 1;
                    break;
                }
            }
            if (c->discard > 0) {
                discard_body(c);
                if (c->discard > 0) {
                    break;
                }
            }
            if (c->in_chunked && skip_chunked(c) != NICD_HTTP_DONE) {
                break;
            }
            if (c->held != NULL || c->in_start == c->in_end) {
                break; /* (a delayed request is answered first) */
            }
            if (nicd_queue_full(c)) {
                blocked = 1; /* answer what is queued before parsing more */
                break;
            }

            rc = nicd_conn_borrow(c);
            if (rc < 0) {
                log_error(LOG_CRIT, errno, "out of memory, client: %s",
                          nicd_client(c));
                nicd_conn_close(c);
                return;
            }
            if (rc == 1) { /* a parser fresh from the pool */
                nicd_http_req_init(
                    H1_REQ(c), (uint32_t) cf->large_header_buffer_size,
                    (uint32_t) cf->large_header_buffer_size, c->in_max);
            }
            rc = nicd_http_parse(H1_REQ(c), c->in + c->in_start,
                                 c->in_end - c->in_start);
            if (rc == NICD_HTTP_AGAIN) {
                if (c->in_end > c->in_start) {
                    nicd_conn_state(c, NICD_CONN_READING);
                }
                break;
            }
            nicd_conn_state(c, NICD_CONN_WRITING);
            c->nrequests++;
            NICD_STAT_ADD(c->w->stats->requests, 1);
            c->timer = T_NONE; /* the header timeout ends with the head */
            if (rc != NICD_HTTP_DONE) {
                log_error(LOG_INFO, 0,
                          "client sent invalid request, "
                          "answering %d, client: %s",
                          rc, nicd_client(c));
                nicd_http_error(c, rc);
                break;
            }
            nicd_http_handle(c);
            if (!c->keepalive && c->collect == 0 && c->held == NULL) {
                c->closing = 1; /* (a held request closes when answered) */
            }
            c->in_start += H1_REQ(c)->head_len;
            nicd_http_req_reset(H1_REQ(c));
        }

        rc = nicd_conn_send(c, 0);
        if (rc == 0 && c->eof && c->sc.wait_ns > 0) {
            /* the client went while its paced answer was going */
            log_error(LOG_INFO, 0,
                      "client prematurely closed connection while sending "
                      "response to client, client: %s",
                      nicd_client(c));
            nicd_conn_close(c);
            return;
        }
        if (rc <= 0) {
            return;
        }
        if (!blocked) {
            break;
        }
    }

    if (c->closing) {
        if (c->linger_close || c->in_start < c->in_end || c->discard > 0
            || c->collect > 0 || cf->lingering_close == NICD_LINGER_ALWAYS) {
            nicd_conn_linger(c);
        } else {
            nicd_conn_close(c);
        }
        return;
    }

    if (c->held != NULL && c->collect == 0) {
        /* a delayed request: its timer, and the client's close or what it
         * sends meanwhile (kept; an upgraded one's tunnel takes it) */
        tunnel_pending(c);
        if (c->eof) {
            nicd_conn_close(c);
            return;
        }
        nicd_conn_wait_read(c, T_NONE);
        if (c->held->suspended && c->held->req.wake != NULL) {
            /* what it queued has gone: it may make more */
            c->held->req.wake(c->held->req.wake_data);
        }
        return;
    }
    if (c->in_start == c->in_end) {
        c->in_start = c->in_end = 0;
        if (c->eof || c->w->state == NICD_STOPPING) {
            nicd_conn_close(c);
            return;
        }
        if (c->discard > 0 || c->collect > 0 || c->in_chunked) {
            nicd_conn_wait_read(c, T_BODY);
            return;
        }
        nicd_conn_keepalive(c);
        return;
    }

    /* a partial request: keep its bytes at the start of the buffer */
    if (c->eof) {
        nicd_conn_close(c);
        return;
    }
    if (c->in_start > 0) {
        memmove(c->in, c->in + c->in_start, c->in_end - c->in_start);
        c->in_end -= c->in_start;
        c->in_start = 0;
    }
    nicd_conn_wait_read(c, T_HEADER);
}

/* client_header_timeout with part of a head in, client_body_timeout with
 * a body being read for its handler: 408, then close */
static int
h1_header_timeout(nicd_conn_t *c)
{
    if (c->timer == T_BODY) {
        if (c->held == NULL || c->collect == 0) {
            log_error(LOG_INFO, 0,
                      "client timed out while a request body was skipped, "
                      "client: %s",
                      nicd_client(c));
            return 0; /* (answered already: closed) */
        }
        body_failed(c, c->held, 408, "client timed out");
        return 1;
    }
    if (c->in_end > c->in_start && c->nitems == c->ihead) {
        log_error(LOG_INFO, 0,
                  "client timed out while reading the "
                  "request head, answering 408, client: %s",
                  nicd_client(c));
        nicd_http_error(c, 408);
        c->in_start = c->in_end; /* the partial head is abandoned */
        return 1;
    }
    return 0;
}

static int
h1_waiting(const nicd_conn_t *c)
{
    if (c->nitems != c->ihead || c->discard > 0 || c->collect > 0
        || c->in_chunked || c->held != NULL) {
        return NICD_WAITS_NOT;
    }
    return c->in_start == c->in_end ? NICD_WAITS_REQUEST : NICD_WAITS_HEAD;
}

static int
h1_conn_start(nicd_conn_t *c)
{
    c->proto = c->w->cycle->conf->keep_sent ? &nicd_http1_kept : &nicd_http1;
    c->keepalive_ms =
        (uint32_t) nicd_keepalive_conf(c->w->cycle->conf->http)->timeout;
    return 0;
}

const nicd_conn_ops_t nicd_http1_conn = {
    "http/1.1", h1_conn_start,       h1_run,           NULL, h1_header_timeout,
    h1_waiting, nicd_http_held_free, sizeof(h1_req_t),
};
