/*
 * HTTP/2's connection: the state both halves share (http2_session.c
 * reading, http2_output.c writing): streams by id and the ids of those
 * closed, the DATA queue's removals, the buffer of frames owed and the
 * frames written to it, and the errors that end a stream or the session.
 */

#include <stdlib.h>
#include <string.h>

#include "server/http/http2_session_int.h"

/* ---- streams ---- */

h2s_stream_t *
h2s_find(const nicd_h2s_t *s, int32_t id)
{
    h2s_stream_t *st;

    for (st = s->tab[(uint32_t) id & s->tabmask]; st != NULL; st = st->hnext) {
        if (st->id == id) {
            return st;
        }
    }
    return NULL;
}

/* remember a closed id; by_us: frames after it are dropped, not errors */
void
h2s_remember_closed(nicd_h2s_t *s, int32_t id, int by_us)
{
    s->closed[s->nclosed % H2S_CLOSED] = by_us ? -id : id;
    s->nclosed++;
}

/* out of the hash and the data queue, its on_close called */
void
h2s_close(nicd_h2s_t *s, h2s_stream_t *st, uint32_t error, int by_us)
{
    h2s_stream_t **pp = &s->tab[(uint32_t) st->id & s->tabmask];

    while (*pp != st) {
        pp = &(*pp)->hnext;
    }
    *pp = st->hnext;
    s->nstreams--;
    h2s_unqueue(s, st);
    h2s_remember_closed(s, st->id, by_us);
    if (st->user != NULL) {
        s->cb->on_close(s->ud, st->user, error);
    }
    st->hnext = s->spare;
    s->spare = st;
}

void *
nicd_h2s_stream(const nicd_h2s_t *s, int32_t id)
{
    h2s_stream_t *st = h2s_find(s, id);

    return st != NULL && !st->closing ? st->user : NULL;
}

int32_t
nicd_h2s_last_id(const nicd_h2s_t *s)
{
    return s->last_id;
}

const char *
nicd_h2s_error(const nicd_h2s_t *s)
{
    return s->error;
}

/* a connection error: GOAWAY, nothing more read */
int
h2s_fail(nicd_h2s_t *s, uint32_t code, const char *why)
{
    if (!s->terminated) {
        s->error = why;
        h2s_goaway_frame(s, code);
        s->terminated = 1;
    }
    return -1;
}

/* a stream error: RST_STREAM, and the stream ends once it is sent */
void
h2s_stream_error(nicd_h2s_t *s, h2s_stream_t *st, uint32_t code)
{
    if (st->closing) {
        return;
    }
    h2s_rst_frame(s, st->id, code);
    st->by_us = 1;
    st->close_error = code;
    h2s_unqueue(s, st);
    h2s_close_later(s, st);
}

void
h2s_unqueue(nicd_h2s_t *s, h2s_stream_t *st)
{
    if (!st->queued) {
        return;
    }
    if (st->qprev != NULL) {
        st->qprev->qnext = st->qnext;
    } else {
        s->qhead = st->qnext;
    }
    if (st->qnext != NULL) {
        st->qnext->qprev = st->qprev;
    } else {
        s->qtail = st->qprev;
    }
    st->queued = 0;
}

void
h2s_close_later(nicd_h2s_t *s, h2s_stream_t *st)
{
    st->closing = 1;
    st->cnext = s->closing;
    s->closing = st;
    s->nclosing++;
}

/* ---- frames owed ---- */

/* room for n more bytes in the buffer; NULL: no memory */
uint8_t *
h2s_room(nicd_h2s_t *s, size_t n)
{
    if (nicd_buf_reserve(&s->out, n) != 0) {
        nicd_buf_free(&s->out); /* the session ends: nothing more goes */
        s->terminated = 1;
        s->error = "out of memory";
        return NULL;
    }
    return (uint8_t *) s->out.data + s->out.len;
}

int
h2s_append(nicd_h2s_t *s, uint8_t type, uint8_t flags, int32_t id,
           const uint8_t *payload, size_t len)
{
    uint8_t *p = h2s_room(s, 9 + len);

    if (p == NULL) {
        return -1;
    }
    h2s_frame_head(p, len, type, flags, id);
    if (len > 0) {
        memcpy(p + 9, payload, len);
    }
    s->out.len += 9 + len;
    return 0;
}

/* an ACK the client asked for; too many owed unsent: the end */
int
h2s_control_frame(nicd_h2s_t *s, uint8_t type, uint8_t flags, int32_t id,
                  const uint8_t *payload, size_t len)
{
    if (++s->nowed > H2S_MAX_OWED) {
        return h2s_fail(s, NICD_H2_ENHANCE_YOUR_CALM, "flood of frames");
    }
    return h2s_append(s, type, flags, id, payload, len);
}

void
h2s_goaway_frame(nicd_h2s_t *s, uint32_t code)
{
    uint8_t p[8];

    h2s_put32(p, (uint32_t) s->last_id);
    h2s_put32(p + 4, code);
    h2s_append(s, NICD_H2_GOAWAY, 0, 0, p, 8);
    s->goaway_sent = 1;
}

void
h2s_rst_frame(nicd_h2s_t *s, int32_t id, uint32_t code)
{
    uint8_t p[4];

    h2s_put32(p, code);
    h2s_append(s, NICD_H2_RST_STREAM, 0, id, p, 4);
}

void
h2s_window_frame(nicd_h2s_t *s, int32_t id, int64_t inc)
{
    uint8_t p[4];

    h2s_put32(p, (uint32_t) inc);
    h2s_append(s, NICD_H2_WINDOW_UPDATE, 0, id, p, 4);
}
