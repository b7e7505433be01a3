/*
 * HTTP/2's connection, the writing half: frames other than DATA are
 * gathered in one buffer handed to the send callback whole (so a batch
 * of responses' HEADERS is one write); DATA frames come from the data
 * callbacks, one stream after another, as the windows allow.  A stream
 * whose last frame is in that buffer closes once the buffer is taken.
 */

#include <stdlib.h>
#include <string.h>

#include "server/http/http2_session_int.h"

/* ---- the DATA queue ---- */

static void
enqueue(nicd_h2s_t *s, h2s_stream_t *st)
{
    st->qnext = NULL;
    st->qprev = s->qtail;
    if (s->qtail != NULL) {
        s->qtail->qnext = st;
    } else {
        s->qhead = st;
    }
    s->qtail = st;
    st->queued = 1;
}

/* the response is all queued: the stream ends, or the client is told
 * to stop sending its request (RFC 9113, 8.1) */
static void
local_end(nicd_h2s_t *s, h2s_stream_t *st, int now)
{
    if (!st->remote_closed) {
        h2s_rst_frame(s, st->id, NICD_H2_NO_ERROR);
        st->by_us = 1;
        now = 0;
    }
    if (now) {
        h2s_close(s, st, NICD_H2_NO_ERROR, 0);
    } else {
        h2s_close_later(s, st);
    }
}

/* ---- responses ---- */

/* a header block of n bytes at out[at + 9]: cut in frames of the
 * peer's size (HEADERS, then CONTINUATIONs), heads written */
static int
frame_block(nicd_h2s_t *s, size_t at, size_t n, int32_t id, uint8_t flags)
{
    size_t   max = s->peer_max_frame, nframes = (n + max - 1) / max, k, len;
    uint8_t *p;

    if (nframes <= 1) {
        h2s_frame_head((uint8_t *) s->out.data + at, n, NICD_H2_HEADERS,
                       flags | NICD_H2_F_END_HEADERS, id);
        s->out.len = at + 9 + n;
        return 0;
    }
    if (h2s_room(s, (nframes - 1) * 9) == NULL) {
        return -1;
    }
    p = (uint8_t *) s->out.data + at;
    /* from the last piece back, each moved past the heads before it */
    for (k = nframes - 1; k > 0; k--) {
        len = k == nframes - 1 ? n - k * max : max;
        memmove(p + 9 + k * max + k * 9, p + 9 + k * max, len);
        h2s_frame_head(p + k * (max + 9), len, NICD_H2_CONTINUATION,
                       k == nframes - 1 ? NICD_H2_F_END_HEADERS : 0, id);
    }
    h2s_frame_head(p, max, NICD_H2_HEADERS, flags, id);
    s->out.len = at + n + nframes * 9;
    return 0;
}

int
nicd_h2s_respond(nicd_h2s_t *s, int32_t id, unsigned status,
                 const nicd_hpack_field_t *f, size_t n, int has_body)
{
    h2s_stream_t *st = h2s_find(s, id);
    size_t        bound = 9 + 12 + 6, k, at = s->out.len, len;
    uint8_t      *p;

    if (st == NULL || st->closing || st->responded || s->terminated) {
        return -1;
    }
    for (k = 0; k < n; k++) {
        bound += NICD_HPACK_BOUND(f[k].nlen, f[k].vlen);
    }
    if ((p = h2s_room(s, bound)) == NULL) {
        return -1;
    }
    p += 9;
    len = nicd_hpack_encode_begin(&s->enc, p);
    len += nicd_hpack_encode_status(&s->enc, p + len, status);
    for (k = 0; k < n; k++) {
        len += nicd_hpack_encode(&s->enc, p + len, &f[k]);
    }
    if (frame_block(s, at, len, id, has_body ? 0 : NICD_H2_F_END_STREAM) != 0) {
        s->out.len = s->out.data != NULL ? at : 0;
        return -1;
    }
    st->responded = 1;
    if (has_body) {
        enqueue(s, st);
    } else {
        local_end(s, st, 0);
    }
    return 0;
}

void
nicd_h2s_goaway(nicd_h2s_t *s, uint32_t error)
{
    if (error != NICD_H2_NO_ERROR) {
        h2s_fail(s, error, NULL); /* (the caller says why) */
    } else if (!s->goaway_sent && !s->terminated) {
        h2s_goaway_frame(s, NICD_H2_NO_ERROR);
    }
}

/* ---- sending ---- */

/* one DATA frame: 1 sent, 0 none can go */
static int
data_frame(nicd_h2s_t *s)
{
    h2s_stream_t *st;
    uint8_t       h[9];
    size_t        max, n;
    int           eof = 0;

    if (s->send_window <= 0) {
        return 0;
    }
    for (st = s->qhead; st != NULL && st->send_window <= 0; st = st->qnext) {
    }
    if (st == NULL) {
        return 0;
    }
    max = s->peer_max_frame;
    max = (int64_t) max < st->send_window ? max : (size_t) st->send_window;
    max = (int64_t) max < s->send_window ? max : (size_t) s->send_window;
    n = s->cb->data_length(s->ud, st->user, max, &eof);
    h2s_frame_head(h, n, NICD_H2_DATA, eof ? NICD_H2_F_END_STREAM : 0, st->id);
    if ((n == 0 && !eof)
        || s->cb->send_data(s->ud, st->user, h, n) == NICD_H2_WOULDBLOCK) {
        return 0;
    }
    st->send_window -= (int64_t) n;
    s->send_window -= (int64_t) n;
    h2s_unqueue(s, st);
    if (eof) {
        local_end(s, st, 1);
    } else {
        enqueue(s, st); /* (behind the others) */
    }
    return 1;
}

/* the streams whose last frames were in the buffer just taken */
static void
close_sent(nicd_h2s_t *s)
{
    h2s_stream_t *st;

    while ((st = s->closing) != NULL) {
        s->closing = st->cnext;
        s->nclosing--;
        h2s_close(s, st, st->close_error, st->by_us);
    }
}

int
nicd_h2s_send(nicd_h2s_t *s)
{
    for (;;) {
        if (s->out.len > 0) {
            if (s->cb->send(s->ud, (const uint8_t *) s->out.data, s->out.len)
                == NICD_H2_WOULDBLOCK) {
                return 0;
            }
            s->out.len = 0;
            s->nowed = 0;
            close_sent(s);
            continue;
        }
        if (s->terminated || !data_frame(s)) {
            return 0;
        }
    }
}

int
nicd_h2s_want_write(const nicd_h2s_t *s)
{
    const h2s_stream_t *st;

    if (s->out.len > 0) {
        return 1;
    }
    if (s->terminated || s->send_window <= 0) {
        return 0;
    }
    for (st = s->qhead; st != NULL; st = st->qnext) {
        if (st->send_window > 0) {
            return 1;
        }
    }
    return 0;
}

int
nicd_h2s_want_read(const nicd_h2s_t *s)
{
    return !s->terminated
           && !((s->goaway_sent || s->goaway_recv) && s->nstreams == 0);
}

/* ---- the session ---- */

nicd_h2s_t *
nicd_h2s_new(const nicd_h2s_callbacks_t *cb, void *ud,
             const nicd_h2s_settings_t *set)
{
    nicd_h2s_t *s = calloc(1, sizeof(*s));
    uint8_t     p[18];
    size_t      n = 0, slots = 16;

    if (s == NULL) {
        return NULL;
    }
    while (slots < set->max_streams * 2 && slots < 4096) {
        slots *= 2;
    }
    s->tab = calloc(slots, sizeof(*s->tab));
    if (s->tab == NULL) {
        free(s);
        return NULL;
    }
    s->tabmask = (uint32_t) slots - 1;
    s->cb = cb;
    s->ud = ud;
    s->set = *set;
    s->peer_max_frame = 16384;
    s->peer_window = H2S_WINDOW;
    s->send_window = H2S_WINDOW;
    s->recv_window = H2S_MAX_WINDOW;
    s->reset_tokens = 1000;
    nicd_hpack_decoder_init(&s->dec, NICD_HPACK_TABLE_SIZE);
    nicd_hpack_encoder_init(&s->enc, NICD_HPACK_TABLE_SIZE);
    p[n++] = 0, p[n++] = 3; /* MAX_CONCURRENT_STREAMS */
    h2s_put32(p + n, set->max_streams), n += 4;
    p[n++] = 0, p[n++] = 5; /* MAX_FRAME_SIZE */
    h2s_put32(p + n, set->max_frame), n += 4;
    if (set->max_header > 0) {
        p[n++] = 0, p[n++] = 6; /* MAX_HEADER_LIST_SIZE */
        h2s_put32(p + n, set->max_header), n += 4;
    }
    h2s_append(s, NICD_H2_SETTINGS, 0, 0, p, n);
    /* the connection's window opened all the way at once, as nginx does */
    h2s_window_frame(s, 0, H2S_MAX_WINDOW - H2S_WINDOW);
    return s;
}

void
nicd_h2s_free(nicd_h2s_t *s)
{
    h2s_stream_t *st;
    uint32_t      k;

    if (s == NULL) {
        return;
    }
    for (k = 0; k <= s->tabmask; k++) {
        while ((st = s->tab[k]) != NULL) {
            s->tab[k] = st->hnext;
            free(st);
        }
    }
    while ((st = s->spare) != NULL) {
        s->spare = st->hnext;
        free(st);
    }
    nicd_hpack_decoder_free(&s->dec);
    nicd_hpack_encoder_free(&s->enc);
    free(s->tab);
    nicd_buf_free(&s->fbuf);
    nicd_buf_free(&s->bbuf);
    nicd_buf_free(&s->out);
    free(s);
}
