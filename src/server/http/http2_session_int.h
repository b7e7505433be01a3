/*
 * The inside of an HTTP/2 session, shared by its reading half
 * (http2_session.c), its writing half (http2_output.c) and the state
 * under both (http2_state.c) alone.
 */

#ifndef NICD_HTTP2_SESSION_INT_H
#define NICD_HTTP2_SESSION_INT_H

#include "server/http/http2_session.h"
#include "util/buf.h"

#define H2S_WINDOW        65535 /* the protocol's initial windows */
#define H2S_MAX_WINDOW    0x7fffffff
#define H2S_CLOSED        64    /* closed stream ids remembered */
#define H2S_MAX_FRAGMENTS 4096  /* CONTINUATION frames in one block */
#define H2S_MAX_OWED      10000 /* ACKs owed and not yet sent */

enum { R_HEAD, R_PAYLOAD, R_DATA, R_SKIP };

typedef struct h2s_stream_s {
    int32_t              id;
    unsigned             remote_closed : 1; /* END_STREAM received */
    unsigned             responded : 1;
    unsigned             queued : 1;  /* in the DATA queue */
    unsigned             closing : 1; /* ends when the frames go */
    unsigned             by_us : 1;   /* ... reset by this side */
    uint32_t             close_error;
    int64_t              send_window;
    int64_t              recv_window;
    int64_t              content_length; /* -1: none */
    uint64_t             data_recv;
    void                *user;
    struct h2s_stream_s *hnext; /* the hash's chain, or the spare list */
    struct h2s_stream_s *qnext, *qprev; /* the DATA queue */
    struct h2s_stream_s *cnext;         /* the closing list */
} h2s_stream_t;

/* the header block being read */
typedef struct {
    h2s_stream_t *st;    /* NULL: decoded, then dropped */
    uint8_t       flags; /* its HEADERS frame's */
    int           seen;  /* pseudo-header fields */
    unsigned      regular : 1, trailers : 1, malformed : 1, connect : 1;
} h2s_block_t;

struct nicd_h2s_s {
    const nicd_h2s_callbacks_t *cb;
    void                       *ud;
    nicd_h2s_settings_t         set;
    const char                 *error;

    nicd_hpack_decoder_t dec;
    nicd_hpack_encoder_t enc;

    /* streams */
    h2s_stream_t **tab;
    uint32_t       tabmask;
    uint32_t       nstreams; /* in the hash, closing ones included */
    uint32_t       nclosing;
    h2s_stream_t  *spare;
    h2s_stream_t  *qhead, *qtail;
    h2s_stream_t  *closing;
    int32_t        last_id;
    int32_t        closed[H2S_CLOSED]; /* negative: reset by us */
    unsigned       nclosed;
    double         reset_tokens;
    long           reset_ms;

    /* the peer's settings and the windows */
    uint32_t peer_max_frame;
    int32_t  peer_window;
    int64_t  send_window;
    int64_t  recv_window;

    /* reading */
    uint32_t      preface;
    int           rstate;
    uint8_t       head[9];
    uint32_t      hlen;
    uint8_t       ftype, fflags;
    int32_t       fid;
    uint32_t      flen, fgot, pad;
    nicd_buf_t    fbuf; /* a frame come in pieces (len unused) */
    h2s_stream_t *dst;  /* the stream of the DATA frame under way */
    h2s_block_t   blk;
    int32_t       cont_id; /* CONTINUATION expected on it */
    nicd_buf_t    bbuf;    /* a header block of several frames */
    unsigned      nfrag;

    /* writing */
    nicd_buf_t out; /* the frames owed but DATA */
    unsigned   nowed;
    unsigned   terminated : 1, goaway_sent : 1, goaway_recv : 1;
};

static inline void
h2s_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t) (v >> 24);
    p[1] = (uint8_t) (v >> 16);
    p[2] = (uint8_t) (v >> 8);
    p[3] = (uint8_t) v;
}

static inline void
h2s_frame_head(uint8_t *h, size_t len, uint8_t type, uint8_t flags, int32_t id)
{
    h[0] = (uint8_t) (len >> 16);
    h[1] = (uint8_t) (len >> 8);
    h[2] = (uint8_t) len;
    h[3] = type;
    h[4] = flags;
    h2s_put32(h + 5, (uint32_t) id);
}

static inline uint32_t
h2s_get32(const uint8_t *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8
           | p[3];
}

/* http2_state.c */
h2s_stream_t *h2s_find(const nicd_h2s_t *s, int32_t id);
void          h2s_remember_closed(nicd_h2s_t *s, int32_t id, int by_us);
void     h2s_close(nicd_h2s_t *s, h2s_stream_t *st, uint32_t error, int by_us);
int      h2s_fail(nicd_h2s_t *s, uint32_t code, const char *why);
void     h2s_stream_error(nicd_h2s_t *s, h2s_stream_t *st, uint32_t code);
void     h2s_unqueue(nicd_h2s_t *s, h2s_stream_t *st);
void     h2s_close_later(nicd_h2s_t *s, h2s_stream_t *st);
uint8_t *h2s_room(nicd_h2s_t *s, size_t n);
int      h2s_append(nicd_h2s_t *s, uint8_t type, uint8_t flags, int32_t id,
                    const uint8_t *payload, size_t len);
int  h2s_control_frame(nicd_h2s_t *s, uint8_t type, uint8_t flags, int32_t id,
                       const uint8_t *payload, size_t len);
void h2s_goaway_frame(nicd_h2s_t *s, uint32_t code);
void h2s_rst_frame(nicd_h2s_t *s, int32_t id, uint32_t code);
void h2s_window_frame(nicd_h2s_t *s, int32_t id, int64_t inc);

#endif /* NICD_HTTP2_SESSION_INT_H */
