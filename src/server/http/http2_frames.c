/*
 * HTTP/2 frames where libnghttp2 alone would not do what nginx does: the
 * client's preface, and a response's header block in one frame.
 */

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#if defined(HAVE_NGHTTP2)

#include "server/http/http2_stream.h"

/*
 * The client preface is the magic and then a SETTINGS frame (RFC 9113,
 * 3.4).  nghttp2 ends a session whose first frame is anything else with
 * GOAWAY "SETTINGS expected"; nginx does not check, and clients rely on
 * it (nginx's own test client answers the server's SETTINGS with an ACK
 * before sending any of its own).  So, as nginx: when the first frame is
 * not a SETTINGS frame without ACK, nghttp2 is given an empty SETTINGS
 * frame (all defaults, which is what the client has said) before it.
 */
#define H2_MAGIC_LEN 24
#define H2_HEAD_LEN  9

ssize_t
nicd_h2_feed_preface(nicd_conn_t *c)
{
    static const uint8_t empty_settings[H2_HEAD_LEN] = {0, 0, 0, 4};
    nicd_h2_t           *h2 = c->h2;
    const uint8_t       *p = (const uint8_t *) c->in + c->in_start;
    size_t               len = c->in_end - c->in_start;
    size_t               n;
    ssize_t              rc;

    if (h2->fed < H2_MAGIC_LEN) {
        n = H2_MAGIC_LEN - h2->fed < len ? H2_MAGIC_LEN - h2->fed : len;
        rc = nghttp2_session_mem_recv(h2->s, p, n);
        if (rc < 0) {
            return rc;
        }
        h2->fed += (uint32_t) n;
        c->in_start += (uint32_t) n;
        p += n;
        len -= n;
    }
    if (h2->fed < H2_MAGIC_LEN || len < H2_HEAD_LEN) {
        return 0; /* the rest when it comes */
    }
    h2->fed = NICD_H2_SEEN_FIRST;
    if (p[3] != NGHTTP2_SETTINGS || (p[4] & NGHTTP2_FLAG_ACK)) {
        rc = nghttp2_session_mem_recv(h2->s, empty_settings, H2_HEAD_LEN);
        if (rc < 0) {
            return rc;
        }
    }
    return 0;
}

/*
 * A response's header block in one HEADERS frame where the peer's
 * SETTINGS_MAX_FRAME_SIZE allows it, as nginx sends it.  libnghttp2 packs
 * every block in 16 KiB pieces, a HEADERS frame and CONTINUATION frames;
 * as they are handed to the send callback, one after another within one
 * nghttp2_session_send(), each CONTINUATION's payload is joined to the
 * HEADERS frame queued just before it (its length and END_HEADERS flag
 * set anew) while the two fit one frame.
 */

enum { T_HEADERS = 1, T_CONTINUATION = 9, F_END_HEADERS = 4, F_PADDED = 8 };

static uint32_t
frame_length(const uint8_t *h)
{
    return (uint32_t) h[0] << 16 | (uint32_t) h[1] << 8 | h[2];
}

static int32_t
frame_stream(const uint8_t *h)
{
    return (int32_t) ((uint32_t) (h[5] & 0x7f) << 24 | (uint32_t) h[6] << 16
                      | (uint32_t) h[7] << 8 | h[8]);
}

int
nicd_h2_join_headers(nicd_conn_t *c, const uint8_t *data, size_t len, size_t at)
{
    nicd_h2_t *h2 = c->h2;
    uint32_t   plen, joined;
    uint8_t   *h;

    if (len < 9 || frame_length(data) + 9 != len) {
        return 0; /* (not one whole frame) */
    }
    plen = frame_length(data);
    if (data[3] == T_HEADERS) {
        h2->hdr_open = !(data[4] & (F_END_HEADERS | F_PADDED));
        h2->hdr_off = at;
        h2->hdr_end = at + len;
        return 0;
    }
    if (!h2->hdr_open || data[3] != T_CONTINUATION
        || c->out.len != h2->hdr_end) {
        h2->hdr_open = 0;
        return 0;
    }
    h = (uint8_t *) c->out.data + h2->hdr_off;
    joined = frame_length(h) + plen;
    if (frame_stream(data) != frame_stream(h)
        || joined > nghttp2_session_get_remote_settings(
               h2->s, NGHTTP2_SETTINGS_MAX_FRAME_SIZE)) {
        h2->hdr_open = 0;
        return 0;
    }
    nicd_buf_add(&c->out, data + 9, plen);
    if (nicd_buf_failed(&c->out)) {
        return 1; /* (the connection fails at its flush) */
    }
    nicd_conn_out_mem(c, h2->hdr_end, plen, 0);
    h = (uint8_t *) c->out.data + h2->hdr_off; /* (it may have moved) */
    h[0] = (uint8_t) (joined >> 16);
    h[1] = (uint8_t) (joined >> 8);
    h[2] = (uint8_t) joined;
    h2->hdr_end += plen;
    if (data[4] & F_END_HEADERS) {
        h[4] |= F_END_HEADERS;
        h2->hdr_open = 0;
    }
    return 1;
}

#endif /* HAVE_NGHTTP2 */
