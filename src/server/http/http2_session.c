/*
 * HTTP/2's connection, the server's side (RFC 9113): the reading half
 * here, frames read whole (DATA payloads streamed), checked and acted
 * on; the writing half (responses, DATA under the windows, the frames
 * owed) in http2_output.c; what both use (streams by id, the buffer of
 * frames owed, errors) in http2_state.c.
 *
 * Streams the client opened and that are not closed are in a hash by
 * id; the ids of the last streams closed are remembered, so a frame on
 * a closed stream is told from one on a stream never opened (STREAM_
 * CLOSED against PROTOCOL_ERROR), and frames on a stream this side
 * reset are dropped, as they may have been sent before the reset came.
 */

#include <stdlib.h>
#include <string.h>

#include "server/http/http2_session_int.h"

#define PREFACE     "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define PREFACE_LEN 24

/* RST_STREAMs a client may send in a burst, and per second after */
#define RESET_BURST 1000
#define RESET_RATE  33

/* ---- streams ---- */

static h2s_stream_t *
stream_open(nicd_h2s_t *s, int32_t id)
{
    h2s_stream_t *st = s->spare;

    if (st != NULL) {
        s->spare = st->hnext;
    } else if ((st = malloc(sizeof(*st))) == NULL) {
        return NULL;
    }
    memset(st, 0, sizeof(*st));
    st->id = id;
    st->send_window = s->peer_window;
    st->recv_window = H2S_WINDOW;
    st->content_length = -1;
    st->hnext = s->tab[(uint32_t) id & s->tabmask];
    s->tab[(uint32_t) id & s->tabmask] = st;
    s->nstreams++;
    return st;
}

/* 1 closed by the client or by the end of both sides, 2 reset by us, 0
 * not remembered */
static int
was_closed(const nicd_h2s_t *s, int32_t id)
{
    unsigned k, n = s->nclosed < H2S_CLOSED ? s->nclosed : H2S_CLOSED;

    for (k = 0; k < n; k++) {
        if (s->closed[k] == id) {
            return 1;
        }
        if (s->closed[k] == -id) {
            return 2;
        }
    }
    return 0;
}

void
nicd_h2s_reset(nicd_h2s_t *s, int32_t id, uint32_t error)
{
    h2s_stream_t *st = h2s_find(s, id);

    if (st != NULL) {
        h2s_stream_error(s, st, error);
    } else if (id > s->last_id && (id & 1)) {
        /* a stream whose HEADERS frame has begun: what comes of it is
         * decoded and dropped */
        h2s_rst_frame(s, id, error);
        s->last_id = id;
        h2s_remember_closed(s, id, 1);
    }
}

/* a callback's judgement: 0 on, > 0 the stream reset, < 0 the end */
static int
judged(nicd_h2s_t *s, h2s_stream_t *st, int rc)
{
    if (rc > 0) {
        h2s_stream_error(s, st, (uint32_t) rc);
        return 0;
    }
    if (rc < 0) {
        return h2s_fail(s, (uint32_t) -rc, NULL); /* (it says why) */
    }
    return 0;
}

/* ---- header blocks ---- */

static int
token_char(uint8_t ch)
{
    static const char extra[] = "!#$%&'*+-.^_`|~";

    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
           || (ch != 0 && memchr(extra, ch, sizeof(extra) - 1) != NULL);
}

static int
upper_case(const uint8_t *n, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (n[i] >= 'A' && n[i] <= 'Z') {
            return 1;
        }
    }
    return 0;
}

static int
name_valid(const uint8_t *n, size_t len)
{
    size_t i;

    for (i = n[0] == ':'; i < len; i++) {
        if (!token_char(n[i])) {
            return 0;
        }
    }
    return 1;
}

static int
value_valid(const uint8_t *v, size_t len)
{
    return memchr(v, '\0', len) == NULL && memchr(v, '\r', len) == NULL
           && memchr(v, '\n', len) == NULL;
}

#define IS(n, l, s) ((l) == sizeof(s) - 1 && memcmp((n), (s), (l)) == 0)

enum { P_METHOD = 1, P_SCHEME = 2, P_PATH = 4, P_AUTHORITY = 8 };

/* RFC 9113, 8.3.1: the request's pseudo-header fields; 0 or malformed */
static int
pseudo(h2s_block_t *b, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
    int bit;

    if (b->regular || b->trailers) {
        return -1;
    }
    bit = IS(n, nl, ":method")      ? P_METHOD
          : IS(n, nl, ":scheme")    ? P_SCHEME
          : IS(n, nl, ":path")      ? P_PATH
          : IS(n, nl, ":authority") ? P_AUTHORITY
                                    : 0;
    if (bit == 0 || (b->seen & bit)) {
        return -1;
    }
    b->seen |= bit;
    if (bit == P_METHOD) {
        b->connect = IS(v, vl, "CONNECT");
    } else if (bit == P_PATH && vl == 0) {
        return -1;
    }
    return 0;
}

/* RFC 9113, 8.2.2 and 8.1.1: fields a request may not carry, and its
 * content-length kept; 0 or malformed */
static int
regular(h2s_block_t *b, h2s_stream_t *st, const uint8_t *n, size_t nl,
        const uint8_t *v, size_t vl)
{
    int64_t len = 0;
    size_t  i;

    b->regular = 1;
    if (IS(n, nl, "connection") || IS(n, nl, "keep-alive")
        || IS(n, nl, "proxy-connection") || IS(n, nl, "transfer-encoding")
        || IS(n, nl, "upgrade")) {
        return -1;
    }
    if (IS(n, nl, "te") && !IS(v, vl, "trailers")) {
        return -1;
    }
    if (IS(n, nl, "content-length") && !b->trailers) {
        if (vl == 0 || vl > 18) {
            return -1;
        }
        for (i = 0; i < vl; i++) {
            if (v[i] < '0' || v[i] > '9') {
                return -1;
            }
            len = len * 10 + (v[i] - '0');
        }
        if (st->content_length >= 0 && st->content_length != len) {
            return -1;
        }
        st->content_length = len;
    }
    return 0;
}

static void
on_field(void *arg, const nicd_hpack_field_t *f)
{
    nicd_h2s_t    *s = arg;
    h2s_block_t   *b = &s->blk;
    h2s_stream_t  *st = b->st;
    const uint8_t *n = (const uint8_t *) f->name;
    const uint8_t *v = (const uint8_t *) f->value;
    int            valid, rc;

    if (st == NULL || st->closing || s->terminated || b->malformed) {
        return; /* (decoded all the same: the table must follow) */
    }
    /* RFC 9113, 8.2.1: names are lower case, without exception */
    if (f->nlen == 0 || upper_case(n, f->nlen)
        || (n[0] == ':' ? pseudo(b, n, f->nlen, v, f->vlen)
                        : regular(b, st, n, f->nlen, v, f->vlen))
               != 0) {
        b->malformed = 1;
        return;
    }
    if (b->trailers) {
        return; /* (trailer fields are not the request's) */
    }
    valid = name_valid(n, f->nlen) && value_valid(v, f->vlen);
    rc = s->cb->on_header(s->ud, st->user, n, f->nlen, v, f->vlen, valid);
    judged(s, st, rc);
}

/* a whole header block of stream b->st (NULL: decoded, then dropped) */
static int
block_end(nicd_h2s_t *s, const uint8_t *p, size_t len)
{
    h2s_block_t  *b = &s->blk;
    h2s_stream_t *st = b->st;

    if (nicd_hpack_decode(&s->dec, p, len, on_field, s) != NICD_HPACK_OK) {
        return h2s_fail(s, NICD_H2_COMPRESSION_ERROR, "bad header block");
    }
    s->bbuf.len = 0;
    s->cont_id = 0;
    if (st == NULL || st->closing || s->terminated) {
        return 0;
    }
    if (!b->trailers && !b->connect
        && (b->seen & (P_METHOD | P_SCHEME | P_PATH))
               != (P_METHOD | P_SCHEME | P_PATH)) {
        b->malformed = 1;
    }
    if (!b->trailers && b->connect
        && (b->seen & (P_SCHEME | P_PATH | P_AUTHORITY)) != P_AUTHORITY) {
        b->malformed = 1; /* RFC 9113, 8.5 */
    }
    if (b->trailers && !(b->flags & NICD_H2_F_END_STREAM)) {
        b->malformed = 1;
    }
    if (b->malformed) {
        h2s_stream_error(s, st, NICD_H2_PROTOCOL_ERROR);
        return 0;
    }
    if (b->flags & NICD_H2_F_END_STREAM) {
        if (st->content_length >= 0
            && (uint64_t) st->content_length != st->data_recv) {
            h2s_stream_error(s, st, NICD_H2_PROTOCOL_ERROR);
            return 0;
        }
        st->remote_closed = 1;
    }
    s->cb->on_frame_end(s->ud, st->user, NICD_H2_HEADERS, b->flags);
    return 0;
}

/* the fragment of a HEADERS or CONTINUATION frame; the block ends with
 * END_HEADERS */
static int
fragment(nicd_h2s_t *s, const uint8_t *p, size_t len, uint8_t flags)
{
    if (s->bbuf.len + len > s->set.max_block
        || ++s->nfrag > H2S_MAX_FRAGMENTS) {
        return h2s_fail(s, NICD_H2_ENHANCE_YOUR_CALM, "header block too large");
    }
    if (s->bbuf.len == 0 && (flags & NICD_H2_F_END_HEADERS)) {
        return block_end(s, p, len); /* (in one frame: read in place) */
    }
    nicd_buf_add(&s->bbuf, p, len);
    if (nicd_buf_failed(&s->bbuf)) {
        nicd_buf_free(&s->bbuf);
        return h2s_fail(s, NICD_H2_INTERNAL_ERROR, "out of memory");
    }
    if (flags & NICD_H2_F_END_HEADERS) {
        return block_end(s, (const uint8_t *) s->bbuf.data, s->bbuf.len);
    }
    s->cont_id = s->fid;
    return 0;
}

/* padding and priority off a HEADERS or DATA payload: 0, or -1 */
static int
unpad(const uint8_t **p, size_t *len, uint8_t flags, int priority, int32_t *dep)
{
    size_t pad = 0;

    if (flags & NICD_H2_F_PADDED) {
        if (*len < 1) {
            return -1;
        }
        pad = (*p)[0];
        (*p)++;
        (*len)--;
    }
    if (priority && (flags & NICD_H2_F_PRIORITY)) {
        if (*len < 5) {
            return -1;
        }
        *dep = (int32_t) (h2s_get32(*p) & 0x7fffffff);
        *p += 5;
        *len -= 5;
    }
    if (pad > *len) {
        return -1;
    }
    *len -= pad;
    return 0;
}

static int
frame_headers(nicd_h2s_t *s, const uint8_t *p, size_t len)
{
    h2s_stream_t *st;
    int32_t       id = s->fid, dep = 0;
    h2s_block_t  *b = &s->blk;
    void         *user;

    if (id == 0 || (id & 1) == 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "HEADERS on a bad stream");
    }
    if (unpad(&p, &len, s->fflags, 1, &dep) != 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "bad padding");
    }
    memset(b, 0, sizeof(*b));
    b->flags = s->fflags;
    s->nfrag = 0;
    st = h2s_find(s, id);
    if (st != NULL) { /* trailers, or a second HEADERS */
        if (st->remote_closed) {
            h2s_stream_error(s, st, NICD_H2_STREAM_CLOSED);
        } else {
            b->trailers = 1;
        }
        b->st = st;
    } else if (id <= s->last_id) {
        if (was_closed(s, id) != 2) {
            return h2s_fail(s,
                            was_closed(s, id) ? NICD_H2_STREAM_CLOSED
                                              : NICD_H2_PROTOCOL_ERROR,
                            "HEADERS on a closed stream");
        }
    } else {
        s->last_id = id;
        if (s->goaway_sent) {
            /* (decoded, not opened: past our GOAWAY) */
        } else if (s->nstreams - s->nclosing >= s->set.max_streams) {
            h2s_rst_frame(s, id, NICD_H2_REFUSED_STREAM);
            h2s_remember_closed(s, id, 1);
            s->cb->on_refused(s->ud);
        } else if ((st = stream_open(s, id)) == NULL
                   || (user = s->cb->on_begin_stream(s->ud, id, s->flen))
                          == NULL) {
            return h2s_fail(s, NICD_H2_INTERNAL_ERROR, "out of memory");
        } else {
            st->user = user;
            b->st = st;
        }
    }
    if (dep == id && b->st != NULL) {
        h2s_stream_error(s, b->st, NICD_H2_PROTOCOL_ERROR);
    }
    return fragment(s, p, len, s->fflags);
}

/* ---- the other frames, read whole ---- */

/* a new SETTINGS_INITIAL_WINDOW_SIZE: every stream's window moves by
 * the difference (RFC 9113, 6.9.2); -1 when one overflows */
static int
peer_window(nicd_h2s_t *s, int32_t value)
{
    int64_t       delta = (int64_t) value - s->peer_window;
    h2s_stream_t *st;
    uint32_t      k;

    for (k = 0; k <= s->tabmask; k++) {
        for (st = s->tab[k]; st != NULL; st = st->hnext) {
            st->send_window += delta;
            if (st->send_window > H2S_MAX_WINDOW) {
                return -1;
            }
        }
    }
    s->peer_window = value;
    return 0;
}

static int
frame_settings(nicd_h2s_t *s, const uint8_t *p, size_t len)
{
    uint32_t v;
    uint16_t id;
    size_t   i;

    if (s->fid != 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "SETTINGS on a stream");
    }
    if (s->fflags & NICD_H2_F_ACK) {
        return len == 0 ? 0
                        : h2s_fail(s, NICD_H2_FRAME_SIZE_ERROR, "bad SETTINGS");
    }
    if (len % 6 != 0) {
        return h2s_fail(s, NICD_H2_FRAME_SIZE_ERROR, "bad SETTINGS");
    }
    for (i = 0; i < len; i += 6) {
        id = (uint16_t) (p[i] << 8 | p[i + 1]);
        v = h2s_get32(p + i + 2);
        switch (id) {
        case 1: /* HEADER_TABLE_SIZE */
            nicd_hpack_encoder_settings(&s->enc, v);
            break;
        case 2: /* ENABLE_PUSH */
        case 8: /* ENABLE_CONNECT_PROTOCOL */
        case 9: /* NO_RFC7540_PRIORITIES */
            if (v > 1) {
                return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "bad SETTINGS");
            }
            break;
        case 4: /* INITIAL_WINDOW_SIZE */
            if (v > H2S_MAX_WINDOW) {
                return h2s_fail(s, NICD_H2_FLOW_CONTROL_ERROR, "bad window");
            }
            if (peer_window(s, (int32_t) v) != 0) {
                return h2s_fail(s, NICD_H2_FLOW_CONTROL_ERROR, "bad window");
            }
            break;
        case 5: /* MAX_FRAME_SIZE */
            if (v < 16384 || v > 16777215) {
                return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "bad SETTINGS");
            }
            s->peer_max_frame = v;
            break;
        default: break;
        }
    }
    return h2s_control_frame(s, NICD_H2_SETTINGS, NICD_H2_F_ACK, 0, NULL, 0);
}

static int
frame_rst(nicd_h2s_t *s, const uint8_t *p, size_t len, long now_ms)
{
    h2s_stream_t *st;

    if (len != 4) {
        return h2s_fail(s, NICD_H2_FRAME_SIZE_ERROR, "bad RST_STREAM");
    }
    if (s->fid == 0 || s->fid > s->last_id) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "RST_STREAM on idle");
    }
    /* a token bucket against resets by the thousand (CVE-2023-44487) */
    s->reset_tokens += (double) (now_ms - s->reset_ms) * RESET_RATE / 1000;
    s->reset_ms = now_ms;
    if (s->reset_tokens > RESET_BURST) {
        s->reset_tokens = RESET_BURST;
    }
    if (--s->reset_tokens < 0) {
        return h2s_fail(s, NICD_H2_ENHANCE_YOUR_CALM, "too many resets");
    }
    st = h2s_find(s, s->fid);
    if (st != NULL && !st->closing) {
        h2s_close(s, st, h2s_get32(p), 0);
    }
    return 0;
}

static int
frame_window_update(nicd_h2s_t *s, const uint8_t *p, size_t len)
{
    uint32_t      inc;
    h2s_stream_t *st;

    if (len != 4) {
        return h2s_fail(s, NICD_H2_FRAME_SIZE_ERROR, "bad WINDOW_UPDATE");
    }
    inc = h2s_get32(p) & 0x7fffffff;
    if (s->fid == 0) {
        if (inc == 0 || s->send_window + inc > H2S_MAX_WINDOW) {
            return h2s_fail(s,
                            inc == 0 ? NICD_H2_PROTOCOL_ERROR
                                     : NICD_H2_FLOW_CONTROL_ERROR,
                            "bad WINDOW_UPDATE");
        }
        s->send_window += inc;
        return 0;
    }
    if (s->fid > s->last_id || (s->fid & 1) == 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "WINDOW_UPDATE on idle");
    }
    st = h2s_find(s, s->fid);
    if (st == NULL || st->closing) {
        return 0;
    }
    if (inc == 0 || st->send_window + inc > H2S_MAX_WINDOW) {
        h2s_stream_error(s, st,
                         inc == 0 ? NICD_H2_PROTOCOL_ERROR
                                  : NICD_H2_FLOW_CONTROL_ERROR);
        return 0;
    }
    st->send_window += inc;
    return 0;
}

/* PRIORITY: checked, then ignored (RFC 9113, 5.3.2) */
static int
frame_priority(nicd_h2s_t *s, const uint8_t *p, size_t len)
{
    h2s_stream_t *st;

    if (s->fid == 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "PRIORITY on stream 0");
    }
    if (len != 5 || (int32_t) (h2s_get32(p) & 0x7fffffff) == s->fid) {
        st = h2s_find(s, s->fid);
        if (st != NULL) {
            h2s_stream_error(s, st,
                             len != 5 ? NICD_H2_FRAME_SIZE_ERROR
                                      : NICD_H2_PROTOCOL_ERROR);
        } else {
            h2s_rst_frame(s, s->fid,
                          len != 5 ? NICD_H2_FRAME_SIZE_ERROR
                                   : NICD_H2_PROTOCOL_ERROR);
        }
    }
    return 0;
}

/* a frame read whole (not DATA) */
static int
frame(nicd_h2s_t *s, const uint8_t *p, size_t len, long now_ms)
{
    switch (s->ftype) {
    case NICD_H2_HEADERS: return frame_headers(s, p, len);
    case NICD_H2_CONTINUATION: return fragment(s, p, len, s->fflags);
    case NICD_H2_PRIORITY: return frame_priority(s, p, len);
    case NICD_H2_RST_STREAM: return frame_rst(s, p, len, now_ms);
    case NICD_H2_SETTINGS: return frame_settings(s, p, len);
    case NICD_H2_PING:
        if (len != 8 || s->fid != 0) {
            return h2s_fail(
                s, len != 8 ? NICD_H2_FRAME_SIZE_ERROR : NICD_H2_PROTOCOL_ERROR,
                "bad PING");
        }
        if (s->fflags & NICD_H2_F_ACK) {
            return 0;
        }
        return h2s_control_frame(s, NICD_H2_PING, NICD_H2_F_ACK, 0, p, 8);
    case NICD_H2_GOAWAY:
        if (s->fid != 0 || len < 8) {
            return h2s_fail(
                s, s->fid ? NICD_H2_PROTOCOL_ERROR : NICD_H2_FRAME_SIZE_ERROR,
                "bad GOAWAY");
        }
        s->goaway_recv = 1;
        return 0;
    case NICD_H2_WINDOW_UPDATE: return frame_window_update(s, p, len);
    default: /* (unknown types are ignored) */ return 0;
    }
}

/* ---- DATA, streamed ---- */

/* a DATA frame's head: its stream checked, the windows charged */
static int
data_begin(nicd_h2s_t *s)
{
    h2s_stream_t *st;
    int           closed;

    s->dst = NULL;
    if (s->fid == 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "DATA on stream 0");
    }
    if (s->fid > s->last_id || (s->fid & 1) == 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "DATA on idle");
    }
    if (s->flen > s->recv_window) {
        return h2s_fail(s, NICD_H2_FLOW_CONTROL_ERROR, "window exceeded");
    }
    s->recv_window -= s->flen;
    st = h2s_find(s, s->fid);
    if (st == NULL) {
        closed = was_closed(s, s->fid);
        return closed == 2 ? 0
                           : h2s_fail(s, NICD_H2_STREAM_CLOSED,
                                      "DATA on a closed stream");
    }
    if (st->closing) {
        return 0;
    }
    if (st->remote_closed) {
        h2s_stream_error(s, st, NICD_H2_STREAM_CLOSED);
        return 0;
    }
    if (s->flen > st->recv_window) {
        return h2s_fail(s, NICD_H2_FLOW_CONTROL_ERROR, "window exceeded");
    }
    st->recv_window -= s->flen;
    s->dst = st;
    return 0;
}

/* a piece of a DATA payload (padding and its length byte excluded) */
static void
data_piece(nicd_h2s_t *s, const uint8_t *p, size_t len)
{
    h2s_stream_t *st = s->dst;

    if (st == NULL || st->closing || len == 0) {
        return;
    }
    st->data_recv += len;
    if (st->content_length >= 0
        && st->data_recv > (uint64_t) st->content_length) {
        h2s_stream_error(s, st, NICD_H2_PROTOCOL_ERROR);
        return;
    }
    judged(s, st, s->cb->on_data(s->ud, st->user, p, len));
}

/* the end of a DATA frame: the request may be complete, windows opened */
static int
data_end(nicd_h2s_t *s)
{
    h2s_stream_t *st = s->dst;

    if (s->recv_window < H2S_MAX_WINDOW / 2) {
        h2s_window_frame(s, 0, H2S_MAX_WINDOW - s->recv_window);
        s->recv_window = H2S_MAX_WINDOW;
    }
    s->dst = NULL;
    if (st == NULL || st->closing || s->terminated) {
        return 0;
    }
    if (s->fflags & NICD_H2_F_END_STREAM) {
        if (st->content_length >= 0
            && (uint64_t) st->content_length != st->data_recv) {
            h2s_stream_error(s, st, NICD_H2_PROTOCOL_ERROR);
            return 0;
        }
        st->remote_closed = 1;
    } else if (st->recv_window < H2S_WINDOW / 2) {
        h2s_window_frame(s, st->id, H2S_WINDOW - st->recv_window);
        st->recv_window = H2S_WINDOW;
    }
    s->cb->on_frame_end(s->ud, st->user, NICD_H2_DATA, s->fflags);
    return 0;
}

/* DATA payload bytes at in: how many were taken */
static size_t
data_bytes(nicd_h2s_t *s, const uint8_t *in, size_t len)
{
    size_t n, used = 0, body;

    if ((s->fflags & NICD_H2_F_PADDED) && s->fgot == 0) {
        s->pad = in[0];
        if ((size_t) s->pad + 1 > s->flen) {
            h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "bad padding");
            return len;
        }
        s->fgot = 1;
        used = 1;
    }
    body = s->flen - s->pad;
    n = s->fgot < body ? body - s->fgot : 0;
    n = n < len - used ? n : len - used;
    data_piece(s, in + used, n);
    used += n;
    s->fgot += (uint32_t) n;
    n = s->flen - s->fgot < len - used ? s->flen - s->fgot : len - used;
    used += n; /* padding */
    s->fgot += (uint32_t) n;
    return used;
}

/* ---- the frame reader ---- */

/* a frame's head read: checked, what comes next chosen */
static int
head(nicd_h2s_t *s, long now_ms)
{
    const uint8_t *h = s->head;

    s->flen = (uint32_t) h[0] << 16 | (uint32_t) h[1] << 8 | h[2];
    s->ftype = h[3];
    s->fflags = h[4];
    s->fid = (int32_t) (h2s_get32(h + 5) & 0x7fffffff);
    s->fgot = 0;
    s->pad = 0;
    s->hlen = 0;
    if (s->flen > s->set.max_frame) {
        return h2s_fail(s, NICD_H2_FRAME_SIZE_ERROR, "frame too large");
    }
    if (s->cont_id != 0
        && (s->ftype != NICD_H2_CONTINUATION || s->fid != s->cont_id)) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "CONTINUATION expected");
    }
    if (s->ftype == NICD_H2_CONTINUATION && s->cont_id == 0) {
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "CONTINUATION unexpected");
    }
    if (s->cb->on_begin_frame != NULL) {
        s->cb->on_begin_frame(s->ud, s->ftype, s->fflags, s->fid, s->flen);
    }
    if (s->ftype == NICD_H2_PUSH_PROMISE) { /* (a client may not push) */
        return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, NULL); /* (logged) */
    }
    if (s->ftype == NICD_H2_DATA) {
        if (data_begin(s) != 0) {
            return -1;
        }
        if (s->flen > 0) {
            s->rstate = R_DATA;
            return 0;
        }
        if (s->fflags & NICD_H2_F_PADDED) {
            return h2s_fail(s, NICD_H2_PROTOCOL_ERROR, "bad padding");
        }
        return data_end(s);
    }
    if (s->flen == 0) {
        return frame(s, NULL, 0, now_ms);
    }
    /* an unknown type's payload is skipped, not kept */
    s->rstate = s->ftype > NICD_H2_CONTINUATION ? R_SKIP : R_PAYLOAD;
    return 0;
}

/* a HEADERS frame come in part: its block so far judged, as nginx and
 * nghttp2 read blocks as they come (an integer too long ends the
 * connection before the rest is sent) */
static int
scan_partial(nicd_h2s_t *s)
{
    size_t off = 0, end = s->fgot;

    if (s->ftype != NICD_H2_HEADERS || s->cont_id != 0) {
        return 0;
    }
    if (s->fflags & NICD_H2_F_PADDED) {
        off = 1;
        end = s->flen - (uint8_t) s->fbuf.data[0] < end
                  ? s->flen - (uint8_t) s->fbuf.data[0]
                  : end;
    }
    off += s->fflags & NICD_H2_F_PRIORITY ? 5 : 0;
    return end > off ? nicd_hpack_scan((const uint8_t *) s->fbuf.data + off,
                                       end - off)
                     : 0;
}

int
nicd_h2s_recv(nicd_h2s_t *s, const uint8_t *in, size_t len, long now_ms)
{
    size_t i = 0, n;

    if (s->preface < PREFACE_LEN) {
        n = PREFACE_LEN - s->preface < len ? PREFACE_LEN - s->preface : len;
        if (memcmp(in, PREFACE + s->preface, n) != 0) {
            s->error = "bad client magic";
            return -1;
        }
        s->preface += (uint32_t) n;
        i = n;
    }
    while (i < len && !s->terminated) {
        switch (s->rstate) {
        case R_HEAD:
            n = 9 - s->hlen < len - i ? 9 - s->hlen : len - i;
            memcpy(s->head + s->hlen, in + i, n);
            s->hlen += (uint32_t) n;
            i += n;
            if (s->hlen == 9) {
                head(s, now_ms);
            }
            break;
        case R_SKIP:
            n = s->flen - s->fgot < len - i ? s->flen - s->fgot : len - i;
            s->fgot += (uint32_t) n;
            i += n;
            if (s->fgot == s->flen) {
                s->rstate = R_HEAD;
            }
            break;
        case R_DATA:
            i += data_bytes(s, in + i, len - i);
            if (s->fgot == s->flen && !s->terminated) {
                s->rstate = R_HEAD;
                data_end(s);
            }
            break;
        default: /* R_PAYLOAD: in place when it is all here */
            if (s->fgot == 0 && len - i >= s->flen) {
                s->rstate = R_HEAD;
                i += s->flen;
                frame(s, in + i - s->flen, s->flen, now_ms);
                break;
            }
            if (nicd_buf_reserve(&s->fbuf, s->flen) != 0) {
                nicd_buf_free(&s->fbuf);
                h2s_fail(s, NICD_H2_INTERNAL_ERROR, "out of memory");
                break;
            }
            n = s->flen - s->fgot < len - i ? s->flen - s->fgot : len - i;
            memcpy(s->fbuf.data + s->fgot, in + i, n);
            s->fgot += (uint32_t) n;
            i += n;
            if (s->fgot == s->flen) {
                s->rstate = R_HEAD;
                frame(s, (const uint8_t *) s->fbuf.data, s->flen, now_ms);
            } else if (scan_partial(s) != 0) {
                h2s_fail(s, NICD_H2_COMPRESSION_ERROR, "bad header block");
            }
        }
    }
    return 0;
}
