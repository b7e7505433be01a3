/*
 * HTTP/2 for hclient (hclient.h: hclient_h2): the same connection, the
 * same callbacks, over h2c with prior knowledge (RFC 9113, section
 * 3.3), framed by libnghttp2.
 *
 * The caller goes on writing HTTP/1.1 requests into the write buffer;
 * each complete one becomes a stream (its request line gives :method and
 * :path, Host gives :authority, the other headers go as they are, but
 * the connection-specific ones HTTP/2 forbids).  A pipelined group thus
 * becomes concurrent streams.  The callbacks still see responses in the
 * order of the requests, as over HTTP/1.1: the first unanswered stream's
 * body goes to body() as it comes, a later stream's waits in memory
 * until the ones before it are done.  The windows are opened as wide as
 * HTTP/2 allows, so flow control never holds a replay back.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#include "lib/grow.h"
#include "lib/http/hclient.h"
#include "util/clock.h"

#define H2_WINDOW  ((1U << 31) - 1)
#define READ_CHUNK (64 * 1024)

typedef struct {
    int32_t  id;
    int      closed;
    uint32_t error;
    hresp_t  resp;
    char    *buf; /* body bytes that came before their turn */
    size_t   blen, bcap;
    uint64_t boff; /* where buf's first byte sits in the file */
} h2_stream_t;

typedef struct {
    nghttp2_session *s;
    h2_stream_t     *st; /* in the order of the requests */
    size_t           n, cap, head;
    int              failed; /* a framing error: the connection is lost */
    /* the server's GOAWAY: streams above last_sid, and those not yet
     * started, will not be answered here (the caller sends them again) */
    int     goaway;
    int32_t last_sid;
} h2_t;

static void
stream_reset(h2_stream_t *st)
{
    free(st->buf);
    memset(st, 0, sizeof(*st));
}

static h2_stream_t *
stream_of(hclient_t *c, int32_t id)
{
    h2_t  *h = c->pstate;
    size_t i;

    for (i = h->head; i < h->n; i++) {
        if (h->st[i].id == id) {
            return &h->st[i];
        }
    }
    return NULL;
}

/* the head stream's buffered body, now that its turn has come */
static void
flush_head(hclient_t *c, h2_stream_t *st)
{
    c->resp = st->resp;
    if (st->blen > 0 && c->ops->body != NULL) {
        c->ops->body(c->ud, st->boff, st->buf, st->blen);
    }
    free(st->buf);
    st->buf = NULL;
    st->blen = st->bcap = 0;
}

/*
 * Hand the callbacks every response that is complete and whose turn it
 * is.  Returns -1 when the connection went (lost or closed by a
 * callback), else 0.
 */
static int
deliver(hclient_t *c)
{
    h2_t        *h = c->pstate;
    h2_stream_t *st;

    while (h->head < h->n) {
        st = &h->st[h->head];
        if (!st->closed) {
            return 0;
        }
        if (st->error != 0 || st->resp.status == 0) {
            hclient_lose(c, st->resp.status == 0 && st->resp.body == 0
                                ? HC_CLOSED
                                : HC_CUT);
            return -1;
        }
        flush_head(c, st);
        c->resp.state = HRESP_DONE;
        stream_reset(st);
        h->head++;
        c->pending--;
        c->answered++;
        c->activity_ns = nicache_now_ns();
        c->ops->done(c->ud, &c->resp);
        if (c->fd < 0 || c->pstate != h) {
            return -1;
        }
        if (c->pending == 0) {
            /* idle() ends the event: the caller may close, reconnect or
             * write new requests in it */
            h->head = h->n = 0;
            c->ops->idle(c->ud, 0);
            return -1;
        }
        /* the next response begins (the caller's start, as over
         * HTTP/1.1), and what it already received is its own */
        hresp_init(&c->resp, c->ops->start(c->ud));
        if (h->head < h->n) {
            flush_head(c, &h->st[h->head]);
        }
    }
    return 0;
}

static ssize_t
on_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags,
        void *ud)
{
    hclient_t *c = ud;
    ssize_t    n;

    (void) s;
    (void) flags;
    do {
        n = hclient_send(c, data, len);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        return errno == EAGAIN ? NGHTTP2_ERR_WOULDBLOCK
                               : NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    c->activity_ns = nicache_now_ns();
    return n;
}

/* "bytes A-B/N": A */
static uint64_t
range_start(const uint8_t *v, size_t n)
{
    uint64_t a = 0;
    size_t   i = 0;

    if (n < 6 || memcmp(v, "bytes ", 6) != 0) {
        return 0;
    }
    for (i = 6; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        a = a * 10 + (uint64_t) (v[i] - '0');
    }
    return a;
}

static int
on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
          size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags,
          void *ud)
{
    h2_stream_t *st = stream_of(ud, f->hd.stream_id);
    hresp_t     *r;

    (void) s;
    (void) flags;
    if (st == NULL || f->hd.type != NGHTTP2_HEADERS) {
        return 0;
    }
    r = &st->resp;
    /* as HTTP/1.1 would carry it: "name: value\r\n" */
    r->head_bytes += nlen + vlen + 4;
    if (nlen == 7 && memcmp(name, ":status", 7) == 0) {
        int k, v = 0;

        for (k = 0; k < (int) vlen && k < 3; k++) {
            v = v * 10 + (value[k] - '0');
        }
        r->status = v;
        r->head_bytes += 9 + 2; /* "HTTP/1.1 " and the line's end */
    } else if (nlen == 14 && memcmp(name, "content-length", 14) == 0) {
        uint64_t v = 0;
        size_t   k;

        for (k = 0; k < vlen && value[k] >= '0' && value[k] <= '9'; k++) {
            v = v * 10 + (uint64_t) (value[k] - '0');
        }
        r->length = v;
    } else if (nlen == 13 && memcmp(name, "content-range", 13) == 0) {
        r->offset = range_start(value, vlen);
    } else if (nlen == 10 && memcmp(name, "set-cookie", 10) == 0
               && r->cookie[0] == '\0') {
        size_t k = vlen < sizeof(r->cookie) - 1 ? vlen : sizeof(r->cookie) - 1;
        char  *semi;

        memcpy(r->cookie, value, k);
        r->cookie[k] = '\0';
        if ((semi = strchr(r->cookie, ';')) != NULL) {
            *semi = '\0';
        }
    }
    return 0;
}

static int
on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
        size_t len, void *ud)
{
    hclient_t   *c = ud;
    h2_t        *h = c->pstate;
    h2_stream_t *st = stream_of(c, id);

    (void) s;
    (void) flags;
    if (st == NULL) {
        return 0;
    }
    if (st == &h->st[h->head]) {
        /* its turn: straight to the caller */
        c->resp = st->resp;
        if (c->ops->body != NULL) {
            c->ops->body(c->ud, st->resp.offset, (const char *) data, len);
        }
    } else {
        if (st->blen == 0) {
            st->boff = st->resp.offset;
        }
        if (trace_grow(&st->buf, &st->bcap, st->blen + len, 1, 4096) != 0) {
            h->failed = 1;
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        memcpy(st->buf + st->blen, data, len);
        st->blen += len;
    }
    st->resp.offset += len;
    st->resp.body += len;
    return 0;
}

static int
on_close(nghttp2_session *s, int32_t id, uint32_t error, void *ud)
{
    h2_stream_t *st = stream_of(ud, id);

    (void) s;
    if (st != NULL) {
        st->closed = 1;
        st->error = error;
    }
    return 0;
}

static int
on_frame(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
    h2_t *h = ((hclient_t *) ud)->pstate;

    (void) s;
    if (frame->hd.type == NGHTTP2_GOAWAY && h != NULL) {
        h->goaway = 1;
        h->last_sid = frame->goaway.last_stream_id;
    }
    return 0;
}

static int
h2_connected(hclient_t *c)
{
    nghttp2_session_callbacks *cb;
    nghttp2_settings_entry     iv[] = {
            {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
            {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_WINDOW},
    };
    h2_t *h = calloc(1, sizeof(*h));

    if (h == NULL || nghttp2_session_callbacks_new(&cb) != 0) {
        free(h);
        return -1;
    }
    nghttp2_session_callbacks_set_send_callback(cb, on_send);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
    if (nghttp2_session_client_new(&h->s, cb, c) != 0) {
        nghttp2_session_callbacks_del(cb);
        free(h);
        return -1;
    }
    nghttp2_session_callbacks_del(cb);
    c->pstate = h;
    if (nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv, 2) != 0
        || nghttp2_session_set_local_window_size(h->s, NGHTTP2_FLAG_NONE, 0,
                                                 H2_WINDOW)
               != 0) {
        return -1;
    }
    return 0;
}

static void
h2_close(hclient_t *c)
{
    h2_t  *h = c->pstate;
    size_t i;

    if (h == NULL) {
        return;
    }
    for (i = 0; i < h->n; i++) {
        free(h->st[i].buf);
    }
    nghttp2_session_del(h->s);
    free(h->st);
    free(h);
    c->pstate = NULL;
}

/* headers HTTP/2 forbids (RFC 9113, 8.2.2), or carries otherwise */
static int
dropped(const char *n, size_t len)
{
    static const char *const names[] = {"connection",
                                        "keep-alive",
                                        "proxy-connection",
                                        "transfer-encoding",
                                        "upgrade",
                                        "host",
                                        "te",
                                        NULL};
    int                      i;

    for (i = 0; names[i] != NULL; i++) {
        if (strlen(names[i]) == len && strncasecmp(n, names[i], len) == 0) {
            return 1;
        }
    }
    return 0;
}

/*
 * One HTTP/1.1 request at p (n bytes, "\r\n\r\n" at its end) as a
 * stream: 0, or -1 when it does not parse or the session refuses it.
 */
static int
submit(hclient_t *c, char *p, size_t n)
{
    h2_t        *h = c->pstate;
    nghttp2_nv   nv[40];
    char        *sp1, *sp2, *line, *end = p + n, *colon, *eol, *lc;
    size_t       k = 4, i;
    int32_t      id;
    h2_stream_t *st;

    sp1 = memchr(p, ' ', (size_t) (end - p));
    sp2 = sp1 != NULL ? memchr(sp1 + 1, ' ', (size_t) (end - sp1 - 1)) : NULL;
    eol = memchr(p, '\r', (size_t) (end - p));
    if (sp1 == NULL || sp2 == NULL || eol == NULL || sp2 > eol) {
        return -1;
    }
#define NV(i, N, NL, V, VL)                                                    \
    (nv[i].name = (uint8_t *) (N), nv[i].namelen = (NL),                       \
     nv[i].value = (uint8_t *) (V), nv[i].valuelen = (VL),                     \
     nv[i].flags = NGHTTP2_NV_FLAG_NONE)
    NV(0, ":method", 7, p, (size_t) (sp1 - p));
    NV(1, ":path", 5, sp1 + 1, (size_t) (sp2 - sp1 - 1));
    if (c->tls != NULL) {
        NV(2, ":scheme", 7, "https", 5);
    } else {
        NV(2, ":scheme", 7, "http", 4);
    }
    NV(3, ":authority", 10, "", 0);
    for (line = eol + 2; line < end && *line != '\r'; line = eol + 2) {
        eol = memchr(line, '\r', (size_t) (end - line));
        colon = memchr(line, ':', (size_t) (eol - line));
        if (eol == NULL || colon == NULL) {
            return -1;
        }
        for (lc = line; lc < colon; lc++) {
            *lc = (char) (*lc >= 'A' && *lc <= 'Z' ? *lc + 32 : *lc);
        }
        i = (size_t) (colon - line);
        for (colon++; colon < eol && *colon == ' '; colon++) {
        }
        if (i == 4 && memcmp(line, "host", 4) == 0) {
            NV(3, ":authority", 10, colon, (size_t) (eol - colon));
        } else if (!dropped(line, i) && k < sizeof(nv) / sizeof(nv[0])) {
            NV(k, line, i, colon, (size_t) (eol - colon));
            k++;
        }
    }
#undef NV
    if (trace_grow(&h->st, &h->cap, h->n + 1, sizeof(h2_stream_t), 16) != 0) {
        return -1;
    }
    id = nghttp2_submit_request(h->s, NULL, nv, k, NULL, NULL);
    if (id < 0) {
        return -1;
    }
    st = &h->st[h->n++];
    memset(st, 0, sizeof(*st));
    st->id = id;
    hresp_init(&st->resp, 0);
    return 0;
}

static int
h2_flush(hclient_t *c)
{
    h2_t *h = c->pstate;
    char *p, *eoh;

    if (c->fd < 0 || c->connecting || h == NULL) {
        return 0;
    }
    /* every complete request written so far, a stream each (none after
     * a GOAWAY: they wait for the close, then go on a new connection) */
    while (c->woff < c->wlen && !h->goaway) {
        p = c->wbuf + c->woff;
        eoh = memmem(p, c->wlen - c->woff, "\r\n\r\n", 4);
        if (eoh == NULL) {
            break;
        }
        if (submit(c, p, (size_t) (eoh + 4 - p)) != 0) {
            return -1;
        }
        c->woff += (size_t) (eoh + 4 - p);
    }
    if (h->goaway && c->woff < c->wlen) {
        /* requests that will not go on this connection: end it, and the
         * read side reports the close (they are sent again on a new
         * one); losing it here would re-enter the caller */
        shutdown(c->fd, SHUT_RDWR);
        return 0;
    }
    return nghttp2_session_send(h->s) == 0 ? 0 : -1;
}

static void
h2_readable(hclient_t *c, int hup)
{
    h2_t   *h;
    char    buf[READ_CHUNK];
    ssize_t n, used;

    for (;;) {
        h = c->pstate;
        n = hclient_recv(c, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            return;
        }
        if (n <= 0 || h == NULL) {
            /* closed or reset */
            c->err = n < 0 ? errno : 0;
            if (c->pending == 0) {
                hclient_close(c);
                c->ops->idle(c->ud, 1);
            } else {
                const h2_stream_t *st =
                    h != NULL && h->head < h->n ? &h->st[h->head] : NULL;

                hclient_lose(
                    c, st == NULL || (st->resp.status == 0 && st->blen == 0)
                           ? HC_CLOSED
                           : HC_CUT);
            }
            return;
        }
        c->activity_ns = nicache_now_ns();
        used =
            nghttp2_session_mem_recv(h->s, (const uint8_t *) buf, (size_t) n);
        if (used < 0 || h->failed) {
            hclient_lose(c, h->failed ? HC_NOMEM : HC_PARSE);
            return;
        }
        if (deliver(c) != 0) {
            /* the event is over: lost, idle, or the caller moved on; new
             * requests an idle() wrote go out with them */
            if (c->fd >= 0 && c->pstate == h && c->pending > 0) {
                (void) h2_flush(c);
            }
            return;
        }
        if (c->pending == 0 && h->n > h->head) {
            hclient_lose(c, HC_PARSE);
            return;
        }
        if (h->goaway && c->pending > 0
            && (h->head == h->n || h->st[h->head].id > h->last_sid)) {
            /* what is left will not be answered here: sent again */
            hclient_lose(c, HC_CLOSED);
            return;
        }
        if (nghttp2_session_send(h->s) != 0) {
            hclient_lose(c, HC_CUT);
            return;
        }
        if ((size_t) n < sizeof(buf) && !hup && c->ssl == NULL) {
            return; /* drained (a TLS record may hold less than waits) */
        }
    }
}

const hclient_proto_t hclient_h2 = {
    "h2c", h2_connected, h2_flush, h2_readable, h2_close,
};
