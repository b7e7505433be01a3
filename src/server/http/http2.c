/*
 * HTTP/2 (RFC 9113) for the handlers: the session (http2_session.h, the
 * framing, HPACK, flow control and stream states) reads the client's
 * frames and calls back here with each stream's request; a stream is
 * answered as an HTTP/1.1 request is (handler.h), its response
 * collected, then handed to the session whole.  Its body goes out in
 * DATA frames whose heads are queued as memory and whose payloads as
 * the body's own pieces: file ranges stay file ranges (sendfile(2), or
 * NIC memory for the nic backend), no extra copy, the same accounting
 * as HTTP/1.1.
 */

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config.h"
#include "server/http/handler.h"
#include "server/http/head.h"
#include "server/http/http2.h"
#include "server/http/http.h"
#include "server/http/keepalive.h"
#include "server/http/lookup.h"
#include "server/http/phases.h"
#include "server/http/tokens.h"
#include "server/http/variables.h"

#include "server/http/http2_conf.h"
#include "server/http/http2_stream.h"

#define STREAM_KEEP     64          /* recycled streams a worker keeps */
#define STREAM_KEEP_BUF (16 * 1024) /* larger buffers are not kept */

/*
 * A client that goes on opening streams past
 * http2_max_concurrent_streams gets each refused (RST_STREAM
 * REFUSED_STREAM, by the session) and, after this many, a GOAWAY
 * (ENHANCE_YOUR_CALM) that ends the connection: without it one client
 * could make the server send millions of resets (nginx and h2o stop
 * such a client too).
 */
#define H2_MAX_REFUSED(c)                                                      \
    (nicd_http2_max_streams((c)->w->cycle->conf, (c)->sc.listener) * 2 + 100)

static void
buf_empty(nicd_buf_t *b)
{
    if (b->size > STREAM_KEEP_BUF) {
        nicd_buf_free(b);
    }
    b->len = 0;
}

/* free a stream and its buffers */
static void
stream_destroy(h2_stream_t *st)
{
    nicd_buf_free(&st->rq);
    nicd_buf_free(&st->reqbody);
    nicd_buf_free(&st->rh);
    nicd_buf_free(&st->body);
    free(st->pieces);
    free(st);
}

/*
 * A stream ends: its files are released and it goes to the worker's
 * recycled streams (its buffers kept, emptied), up to STREAM_KEEP.
 */
static void
stream_free(nicd_conn_t *c, h2_stream_t *st)
{
    nicd_worker_t *w = c->w;
    int            i;

    free(st->uri);
    st->uri = NULL;
    if (st->delay != NULL) {
        nicd_ev_free(st->delay);
        st->delay = NULL;
        c->h2->delayed--;
    }
    if (st->suspended) {
        st->suspended = 0;
        c->h2->delayed--; /* (its handler forgets it: the cleanups) */
    }
    nicd_req_end(&st->req);
    for (i = 0; i < st->npieces; i++) {
        if (st->pieces[i].f != NULL) {
            nicd_ofc_release(&w->ofc, st->pieces[i].f);
        }
    }
    if (st->prev != NULL) {
        st->prev->next = st->next;
    } else {
        c->h2->streams = st->next;
    }
    if (st->next != NULL) {
        st->next->prev = st->prev;
    }
    if (w->h2_nspare < STREAM_KEEP) {
        buf_empty(&st->rq);
        buf_empty(&st->reqbody);
        buf_empty(&st->rh);
        buf_empty(&st->body);
        st->next = w->h2_spare;
        w->h2_spare = st;
        w->h2_nspare++;
        return;
    }
    stream_destroy(st);
}

/* A new stream: a recycled one (cleared) or a new one; NULL: no memory. */
static h2_stream_t *
stream_new(nicd_worker_t *w)
{
    h2_stream_t *st = w->h2_spare;

    if (st == NULL) {
        return calloc(1, sizeof(*st));
    }
    w->h2_spare = st->next;
    w->h2_nspare--;
    memset(&st->id, 0,
           offsetof(h2_stream_t, hdr_off) - offsetof(h2_stream_t, id));
    return st;
}

void
nicd_h2_worker_free(nicd_worker_t *w)
{
    h2_stream_t *st;

    while ((st = w->h2_spare) != NULL) {
        w->h2_spare = st->next;
        stream_destroy(st);
    }
    w->h2_nspare = 0;
}

/* ---- the response operations (handler.h) ---- */

static void
h2_start(nicd_conn_t *c, int status)
{
    h2_stream_t *st = c->h2->cur;

    st->status = status;
    st->nh = 0;
    st->rh.len = 0;
    c->r->trailers = 0; /* (add_trailer's fields: not over HTTP/2 yet) */
}

static void
h2_header(nicd_conn_t *c, const char *name, size_t nlen, const char *value,
          size_t vlen)
{
    h2_stream_t *st = c->h2->cur;
    size_t       i;
    char        *p;

    if (c->w->cycle->conf->keep_sent) { /* for $sent_http_ */
        nicd_req_keep_header(c->r, name, nlen, value, vlen);
    }
    if (st->nh == MAX_RESP_HEADERS) {
        return;
    }
    if (nicd_buf_reserve(&st->rh, nlen + vlen) != 0) {
        return;
    }
    /* field names are lower case in HTTP/2 */
    p = st->rh.data + st->rh.len;
    for (i = 0; i < nlen; i++) {
        p[i] =
            name[i] >= 'A' && name[i] <= 'Z' ? (char) (name[i] + 32) : name[i];
    }
    memcpy(p + nlen, value, vlen);
    st->hn_off[st->nh] = st->rh.len;
    st->hn_len[st->nh] = nlen;
    st->hv_off[st->nh] = st->rh.len + nlen;
    st->hv_len[st->nh] = vlen;
    st->rh.len += nlen + vlen;
    st->nh++;
}

static void
h2_end_headers(nicd_conn_t *c)
{
    (void) c;
}

static piece_t *
new_piece(h2_stream_t *st)
{
    piece_t *p;

    if (st->npieces == st->cap) {
        int n = st->cap ? st->cap * 2 : 4;

        p = realloc(st->pieces, (size_t) n * sizeof(*p));
        if (p == NULL) {
            return NULL;
        }
        st->pieces = p;
        st->cap = n;
    }
    p = &st->pieces[st->npieces++];
    memset(p, 0, sizeof(*p));
    return p;
}

static void
h2_body_mem(nicd_conn_t *c, const char *p, size_t len)
{
    h2_stream_t *st = c->h2->cur;
    piece_t     *pc = new_piece(st);

    if (pc == NULL) {
        c->h2->failed = 1;
        return;
    }
    pc->off = (off_t) st->body.len;
    pc->len = len;
    nicd_buf_add(&st->body, p, len);
    st->remaining += len;
}

static void
h2_body_file(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len)
{
    h2_stream_t *st = c->h2->cur;
    piece_t     *pc = new_piece(st);

    if (pc == NULL) {
        c->h2->failed = 1;
        return;
    }
    pc->f = f;
    f->refs++; /* released when the stream closes */
    pc->off = off;
    pc->len = len;
    st->remaining += len;
}

/* the next DATA frame of st: as large as the windows and the client's
 * SETTINGS_MAX_FRAME_SIZE allow (max), cut to http2_chunk_size */
static size_t
data_length(void *ud, void *stream, size_t max, int *eof)
{
    h2_stream_t *st = stream;
    size_t       n = st->remaining < max ? (size_t) st->remaining : max;

    (void) ud;
    if (n > st->chunk) {
        n = st->chunk; /* http2_chunk_size */
    }
    *eof = n == st->remaining;
    return n;
}

static void
h2_finish(nicd_conn_t *c, int status)
{
    h2_stream_t       *st = c->h2->cur;
    nicd_hpack_field_t f[MAX_RESP_HEADERS + 2];
    size_t             slen, k = 0;
    const char        *server = nicd_server_line(c, &slen) + 8;
    int                i;

    (void) status;
    if (c->w->nlogs > 0 && !st->log_chosen) {
        /* which logs take it is decided now, as HTTP/1.1 does */
        st->log_chosen = 1;
        if (nicd_log_phase_select(c, &st->log) && c->r->uri != NULL
            && st->uri == NULL) {
            st->uri = strndup(c->r->uri, c->r->uri_len); /* for $uri */
        }
    }
#define FIELD(n, nl, v, vl)                                                    \
    f[k].name = (n);                                                           \
    f[k].nlen = (nl);                                                          \
    f[k].value = (v);                                                          \
    f[k].vlen = (vl);                                                          \
    f[k].never_indexed = 0;                                                    \
    k++
    if (!c->r->own_server) {
        /* "Server: nicd/x\r\n": the value without its name and CRLF */
        FIELD("server", 6, server, slen - 10);
    }
    if (!c->r->own_date) {
        FIELD("date", 4, nicd_date_http(), NICD_HTTP_DATE_LEN);
    }
    for (i = 0; i < st->nh && !nicd_buf_failed(&st->rh); i++) {
        FIELD(st->rh.data + st->hn_off[i], st->hn_len[i],
              st->rh.data + st->hv_off[i], st->hv_len[i]);
    }
#undef FIELD
    /* encoded now, in the session's buffer: nothing is kept */
    st->answered = 1;
    st->chunk = nicd_http2_chunk_size(
        c->r->loc != NULL ? c->r->loc : c->w->cycle->conf->http);
    if (c->h2->failed || nicd_buf_failed(&st->rh) || nicd_buf_failed(&st->body)
        || nicd_h2s_respond(c->h2->s, st->id, (unsigned) st->status, f, k,
                            st->npieces > 0)
               != 0) {
        nicd_h2s_reset(c->h2->s, st->id, NICD_H2_INTERNAL_ERROR);
    }
}

/* nginx's 444 over HTTP/2: the stream is reset, the connection serves on */
static void
h2_close(nicd_conn_t *c)
{
    h2_stream_t *st = c->h2->cur;

    st->status = 444;
    st->answered = 1; /* (logged as 444) */
    nicd_h2s_reset(c->h2->s, st->id, NICD_H2_INTERNAL_ERROR);
}

static void nicd_h2_run(nicd_conn_t *c);

/* a suspended stream's answer is finished: its frames out */
static void
nicd_h2_done(nicd_conn_t *c)
{
    h2_stream_t *st = c->h2->cur;

    st->suspended = 0;
    st->vseq = c->w->vseq; /* (its values, for its log line) */
    c->h2->delayed--;
    c->h2->cur = NULL;
    c->r = NULL;
    nicd_h2_run(c); /* its frames out */
}

static const nicd_protocol_t nicd_http2 = {
    "h2",          h2_start,     h2_header, h2_end_headers,  h2_body_mem,
    h2_body_file,  h2_finish,    h2_close,  nicd_h2_suspend, nicd_h2_resume,
    nicd_h2_flush, nicd_h2_done,
};

/* ---- the session's callbacks ---- */

static int
on_send(void *ud, const uint8_t *data, size_t len)
{
    nicd_conn_t *c = ud;
    size_t       start = c->out.len;

    if (nicd_queue_full(c)) {
        return NICD_H2_WOULDBLOCK;
    }
    nicd_buf_add(&c->out, data, len);
    nicd_conn_out_mem(c, start, len, 0);
    return 0;
}

static int
on_send_data(void *ud, void *stream, const uint8_t *head, size_t length)
{
    nicd_conn_t *c = ud;
    h2_stream_t *st = stream;
    size_t       start = c->out.len, n;
    piece_t     *p;

    if (nicd_queue_full(c)) {
        return NICD_H2_WOULDBLOCK;
    }
    nicd_buf_add(&c->out, head, 9);
    nicd_conn_out_mem(c, start, 9, 0);
    st->remaining -= length;
    while (length > 0 && st->cur < st->npieces) {
        p = &st->pieces[st->cur];
        n = p->len - st->cur_off < length ? p->len - st->cur_off : length;
        if (p->f != NULL) {
            nicd_conn_out_file(c, p->f, p->off + (off_t) st->cur_off, n, 0, 0);
        } else {
            start = c->out.len;
            nicd_buf_add(&c->out, st->body.data + p->off + st->cur_off, n);
            nicd_conn_out_mem(c, start, n, 1);
        }
        st->cur_off += n;
        st->sent += n;
        length -= n;
        if (st->cur_off == p->len) {
            st->cur++;
            st->cur_off = 0;
        }
    }
    return 0;
}

/* count the streams refused for the concurrency limit; too many: GOAWAY */
static void
on_refused(void *ud)
{
    nicd_conn_t *c = ud;

    if (++c->h2->refused == H2_MAX_REFUSED(c)) {
        log_error(LOG_INFO, 0,
                  "client opened %d streams past the limit of %d, "
                  "closing the connection, client: %s",
                  c->h2->refused,
                  nicd_http2_max_streams(c->w->cycle->conf, c->sc.listener),
                  nicd_client(c));
        nicd_h2s_goaway(c->h2->s, NICD_H2_ENHANCE_YOUR_CALM);
    }
}

static void *
on_begin_stream(void *ud, int32_t id, uint32_t len)
{
    nicd_conn_t *c = ud;
    h2_stream_t *st = stream_new(c->w);

    if (st == NULL) {
        return NULL;
    }
    st->id = id;
    st->method = NICD_M_UNKNOWN;
    st->length = len;
    st->start_ms = nicd_worker_now_ms(c->w);
    st->next = c->h2->streams;
    if (st->next != NULL) {
        st->next->prev = st;
    }
    c->h2->streams = st;
    c->h2->last = st;
    return st;
}

static void answer(nicd_conn_t *c, h2_stream_t *st);

/* a delayed stream's time has come: answered again from the start */
static void
stream_delay_done(int fd, short ev, void *arg)
{
    h2_stream_t *st = arg;
    nicd_conn_t *c = st->conn;

    (void) fd;
    (void) ev;
    nicd_ev_free(st->delay);
    st->delay = NULL;
    c->h2->delayed--;
    st->resumed = 1;
    answer(c, st);
    nicd_h2_run(c); /* its frames out */
}

/* a phase handler asked st's request to wait ms (limit_req's delay); out
 * of memory: 500 */
static void
delay_stream(nicd_conn_t *c, h2_stream_t *st, uint32_t ms)
{
    struct timeval tv = nicd_tv_ms(ms);

    st->conn = c;
    st->delay = nicd_ev_new(c->w->loop, -1, 0, stream_delay_done, st);
    if (st->delay == NULL) {
        nicd_respond_error(c, 500, 0, NULL, 0);
        return;
    }
    nicd_ev_add(st->delay, &tv);
    c->h2->delayed++;
}

static void
answer(nicd_conn_t *c, h2_stream_t *st)
{
    nicd_request_t r;

    if (nicd_buf_failed(&st->rq) || !st->has_path) {
        nicd_h2s_reset(c->h2->s, st->id, NICD_H2_PROTOCOL_ERROR);
        return;
    }
    if (nicd_buf_failed(&st->reqbody)) {
        nicd_h2s_reset(c->h2->s, st->id, NICD_H2_INTERNAL_ERROR);
        return;
    }
    if (st->bad == NULL && !st->has_hdr[NICD_HDR_HOST]) {
        st->bad = "client sent neither :authority nor host header";
    }
    nicd_h2_stream_view(c, st, &r);
    if (!st->resumed) {
        nicd_conn_state(c, NICD_CONN_WRITING);
        c->nrequests++;
        NICD_STAT_ADD(c->w->stats->requests, 1);
    }
    c->h2->cur = st;
    nicd_req_begin(c, &st->req);
    st->req.resumed = (unsigned) st->resumed;
    if (st->bad != NULL) {
        log_error(LOG_INFO, 0, "%s, client: %s", st->bad, nicd_client(c));
        nicd_handle_error(c, &r, 400);
    } else {
        nicd_handle(c, &r);
    }
    st->vseq = c->w->vseq;
    if (st->req.delay_ms > 0 && !st->answered) {
        delay_stream(c, st, st->req.delay_ms);
    }
    c->r = NULL;
    c->h2->cur = NULL;
}

/* answer the complete requests, oldest first, unless the session ended */
static void
answer_ready(nicd_conn_t *c)
{
    h2_stream_t *st, *next;

    if (!nicd_h2s_want_read(c->h2->s)) {
        return; /* a GOAWAY for an error is on its way: nothing more */
    }
    for (st = c->h2->streams; st != NULL && st->next != NULL; st = st->next) {
    }
    for (; st != NULL; st = next) {
        next = st->prev; /* streams are newest first */
        if (st->ready) {
            st->ready = 0;
            answer(c, st);
        }
    }
}

/* a request's body: kept for the Lua handler, up to client_max_body_size
 * (more resets the stream); nobody else reads one */
static int
on_data(void *ud, void *stream, const uint8_t *data, size_t len)
{
    nicd_conn_t *c = ud;
    h2_stream_t *st = stream;

    if (st->reqbody.len + len > c->w->cycle->conf->client_max_body_size) {
        log_error(LOG_ERR, 0,
                  "client intended to send too large body, client: %s",
                  nicd_client(c));
        st->answered = 1; /* never answered now: logged as 413 */
        st->status = 413;
        return NICD_H2_REFUSED_STREAM;
    }
    nicd_buf_add(&st->reqbody, data, len);
    return 0;
}

static void
on_frame_end(void *ud, void *stream, uint8_t type, uint8_t flags)
{
    nicd_conn_t *c = ud;
    h2_stream_t *st = stream;

    (void) type;
    if (st->id == c->h2->partial) {
        c->h2->partial = 0; /* (its frame has ended) */
    }
    if ((flags & NICD_H2_F_END_STREAM) && !st->answered) {
        /* answered after the input is read: a connection error later in
         * the same input (RFC 9113, 5.1.1) must not be preceded by a
         * response */
        st->ready = 1;
    }
}

/* the keep-alive settings of an HTTP/2 connection: its address's
 * default server's, as nginx's */
static const nicd_keepalive_conf_t *
keepalive_of(nicd_conn_t *c)
{
    return nicd_keepalive_conf(
        nicd_conf_find_server(c->w->cycle->conf, c->sc.listener, NULL, 0, NULL)
            ->loc);
}

/* keepalive_requests streams served, the connection older than
 * keepalive_time, or keepalive_timeout 0: a GOAWAY (once) lets the
 * streams open finish, and the session ends after them (nginx's) */
static void
keepalive_over(nicd_conn_t *c)
{
    const nicd_keepalive_conf_t *k = keepalive_of(c);

    c->keepalive_ms = (uint32_t) k->timeout;
    if (c->h2->going
        || (c->nrequests < k->requests && k->timeout > 0
            && nicd_worker_now_ms(c->w) - c->start_ms <= k->time)) {
        return;
    }
    c->h2->going = 1;
    nicd_h2s_goaway(c->h2->s, NICD_H2_NO_ERROR);
}

static void
on_stream_close(void *ud, void *stream, uint32_t error)
{
    nicd_conn_t *c = ud;
    h2_stream_t *st = stream;

    (void) error;
    if (st->answered) {
        /* a response sent in full: counted where HTTP/1.1's last item
         * is */
        nicd_conn_response_sent(c);
    }
    nicd_h2_log_stream(c, st);
    if (c->h2->last == st) {
        c->h2->last = NULL;
    }
    stream_free(c, st);
    if (c->h2->streams == NULL) {
        nicd_conn_state(c, NICD_CONN_WAITING);
    }
    keepalive_over(c);
}

static const nicd_h2s_callbacks_t h2_callbacks = {
    on_send,         data_length,       on_send_data, nicd_h2_on_begin_frame,
    on_begin_stream, nicd_h2_on_header, on_data,      on_frame_end,
    on_stream_close, on_refused,
};

/* ---- the connection ---- */

static int
nicd_h2_start(nicd_conn_t *c)
{
    const nicd_conf_t  *cf = c->w->cycle->conf;
    nicd_h2s_settings_t set;
    nicd_h2_t          *h2 = calloc(1, sizeof(*h2));
    size_t              field, all;

    if (h2 == NULL) {
        return -1;
    }
    c->keepalive_ms = (uint32_t) keepalive_of(c)->timeout;
    set.max_streams = (uint32_t) nicd_http2_max_streams(cf, c->sc.listener);
    /* frames as large as the protocol allows by default, as nginx takes
     * them (a header block is bounded by large_client_header_buffers all
     * the same, a body by client_max_body_size) */
    set.max_frame = nicd_http2_max_frame(cf, c->sc.listener);
    set.max_header = (uint32_t) cf->http2_max_header_size;
    /* a block is at most a few bytes a field longer than the fields it
     * carries, which are bounded by large_client_header_buffers */
    nicd_head_h2_limits(c, &field, &all);
    set.max_block = all * 2 + 65536;
    h2->s = nicd_h2s_new(&h2_callbacks, c, &set);
    if (h2->s == NULL) {
        free(h2);
        return -1;
    }
    c->h2 = h2;
    c->proto = &nicd_http2;
    if (c->in_size != cf->http2_recv_buffer_size && c->in_end == 0) {
        /* frames are up to 16 KiB: read several at a time (nothing is
         * buffered yet: h2 starts at accept or right after the TLS
         * handshake) */
        char *p = realloc(c->in, cf->http2_recv_buffer_size);

        if (p != NULL) {
            c->in = p;
            c->in_size = c->in_max = (uint32_t) cf->http2_recv_buffer_size;
        }
    }
    return 0;
}

static void
nicd_h2_free(nicd_conn_t *c)
{
    if (c->h2 == NULL) {
        return;
    }
    while (c->h2->streams != NULL) {
        stream_free(c, c->h2->streams);
    }
    nicd_h2s_free(c->h2->s);
    free(c->h2);
    c->h2 = NULL;
}

static void
nicd_h2_run(nicd_conn_t *c)
{
    nicd_h2_t *h2 = c->h2;
    int        rc;

    if (c->in_end > c->in_start) {
        if (nicd_h2s_recv(h2->s, (const uint8_t *) c->in + c->in_start,
                          c->in_end - c->in_start, nicd_worker_now_ms(c->w))
            != 0) {
            log_error(LOG_INFO, 0, "HTTP/2 session failed: %s, client: %s",
                      nicd_h2s_error(h2->s), nicd_client(c));
            nicd_conn_close(c);
            return;
        }
        c->in_start = c->in_end = 0;
        if (!h2->said && nicd_h2s_error(h2->s) != NULL) {
            h2->said = 1; /* (the GOAWAY goes below) */
            log_error(LOG_INFO, 0, "client HTTP/2 error: %s, client: %s",
                      nicd_h2s_error(h2->s), nicd_client(c));
        }
        answer_ready(c);
    }
    for (;;) {
        nicd_h2s_send(h2->s);
        rc = nicd_conn_send(c, 1);
        if (rc < 0) {
            return;
        }
        if (rc == 0) {
            return; /* resumed when the socket (or the pacer) allows */
        }
        if (!nicd_h2s_want_write(h2->s)) {
            break;
        }
    }
    if (c->eof) {
        nicd_conn_close(c);
        return;
    }
    if (!nicd_h2s_want_read(h2->s)
        || (c->w->state == NICD_STOPPING && h2->streams == NULL)) {
        /* the session is over (a GOAWAY either way): close gracefully,
         * reading what the client still sends (a PING after its GOAWAY,
         * say), so that it sees an end, not a reset */
        nicd_conn_linger(c);
        return;
    }
    /* a stream that waits (limit_req) keeps the connection without a
     * timeout, as nginx's delayed requests do: its wait may be longer
     * than send_timeout */
    if (h2->partial != 0 && stream_of(c, h2->partial) == NULL
        && h2->partial <= nicd_h2s_last_id(h2->s)) {
        h2->partial = 0; /* (a frame of a stream closed meanwhile) */
    }
    nicd_conn_wait_read(c, h2->partial != 0
                               ? (h2->partial_data ? T_BODY : T_HEADER)
                           : h2->delayed > 0     ? T_NONE
                           : h2->streams != NULL ? T_SEND
                           : nicd_h2s_last_id(h2->s) == 0
                               ? T_HEADER /* before its first stream */
                               : T_KEEPALIVE);
}

static void
nicd_h2_shutdown(nicd_conn_t *c)
{
    if (c->h2 != NULL) {
        nicd_h2s_goaway(c->h2->s, NICD_H2_NO_ERROR);
    }
}

/* a graceful stop: GOAWAY, then the connection closes once its streams
 * are answered */
static void
h2_conn_shutdown(nicd_conn_t *c)
{
    nicd_h2_shutdown(c);
    nicd_h2_run(c);
}

/* an HTTP/2 connection never waits the way HTTP/1's does: no slot is
 * reused from it, and a graceful stop is its GOAWAY */
static int
h2_waiting(const nicd_conn_t *c)
{
    (void) c;
    return NICD_WAITS_NOT;
}

const nicd_conn_ops_t nicd_http2_conn = {
    "h2",
    nicd_h2_start,
    nicd_h2_run,
    h2_conn_shutdown,
    nicd_h2_frame_timeout,
    h2_waiting,
    nicd_h2_free,
};
