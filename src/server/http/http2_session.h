/*
 * HTTP/2's connection (RFC 9113), the server's side: frames read and
 * checked, stream states, flow control both ways, header blocks through
 * HPACK (hpack.h), responses framed.  It knows nothing of nicd's
 * connections and requests: http2.c gives it bytes and callbacks, and
 * it gives back frames to send and the requests' fields and bodies.
 *
 * A callback that judges a stream returns 0 (go on), a positive error
 * code (the stream is reset with it), or a negative one (the connection
 * ends: GOAWAY with the code negated).
 */

#ifndef NICD_HTTP2_SESSION_H
#define NICD_HTTP2_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "server/http/hpack.h"

/* error codes (RFC 9113, 7) */
enum {
    NICD_H2_NO_ERROR = 0,
    NICD_H2_PROTOCOL_ERROR = 1,
    NICD_H2_INTERNAL_ERROR = 2,
    NICD_H2_FLOW_CONTROL_ERROR = 3,
    NICD_H2_STREAM_CLOSED = 5,
    NICD_H2_FRAME_SIZE_ERROR = 6,
    NICD_H2_REFUSED_STREAM = 7,
    NICD_H2_CANCEL = 8,
    NICD_H2_COMPRESSION_ERROR = 9,
    NICD_H2_ENHANCE_YOUR_CALM = 11,
};

/* frame types and flags (RFC 9113, 6) */
enum {
    NICD_H2_DATA = 0,
    NICD_H2_HEADERS = 1,
    NICD_H2_PRIORITY = 2,
    NICD_H2_RST_STREAM = 3,
    NICD_H2_SETTINGS = 4,
    NICD_H2_PUSH_PROMISE = 5,
    NICD_H2_PING = 6,
    NICD_H2_GOAWAY = 7,
    NICD_H2_WINDOW_UPDATE = 8,
    NICD_H2_CONTINUATION = 9,
};
#define NICD_H2_F_END_STREAM  0x1
#define NICD_H2_F_ACK         0x1
#define NICD_H2_F_END_HEADERS 0x4
#define NICD_H2_F_PADDED      0x8
#define NICD_H2_F_PRIORITY    0x20

#define NICD_H2_WOULDBLOCK -1 /* a send callback took nothing: later */

typedef struct nicd_h2s_s nicd_h2s_t;

typedef struct {
    /* frames other than DATA: all taken (0) or none (WOULDBLOCK) */
    int (*send)(void *ud, const uint8_t *data, size_t len);
    /* the next DATA frame's payload of stream st: at most max bytes,
     * *eof when they end its body; nothing may change yet */
    size_t (*data_length)(void *ud, void *st, size_t max, int *eof);
    /* that frame: its 9-byte head queued, then its len bytes, which
     * the callback queues itself; 0 or WOULDBLOCK (nothing taken) */
    int (*send_data)(void *ud, void *st, const uint8_t *head, size_t len);
    /* a frame's head has come (NULL: the caller need not know) */
    void (*on_begin_frame)(void *ud, uint8_t type, uint8_t flags, int32_t id,
                           uint32_t len);
    /* a request's stream opens: its pointer for the calls below (NULL:
     * no memory, the connection ends) */
    void *(*on_begin_stream)(void *ud, int32_t id, uint32_t len);
    /* one of its header fields; valid is 0 for a name or value of bytes
     * RFC 9113, 8.2.1 forbids (the callback judges it) */
    int (*on_header)(void *ud, void *st, const uint8_t *name, size_t nlen,
                     const uint8_t *value, size_t vlen, int valid);
    /* a piece of its body */
    int (*on_data)(void *ud, void *st, const uint8_t *data, size_t len);
    /* a HEADERS block or DATA frame of a stream has ended (flags:
     * END_STREAM when the request is complete) */
    void (*on_frame_end)(void *ud, void *st, uint8_t type, uint8_t flags);
    /* the stream has closed: answered, reset by either side (error) */
    void (*on_close)(void *ud, void *st, uint32_t error);
    /* a stream was refused for the concurrency limit */
    void (*on_refused)(void *ud);
} nicd_h2s_callbacks_t;

typedef struct {
    uint32_t max_streams; /* SETTINGS_MAX_CONCURRENT_STREAMS */
    uint32_t max_frame;   /* SETTINGS_MAX_FRAME_SIZE */
    uint32_t max_header;  /* SETTINGS_MAX_HEADER_LIST_SIZE, 0: none */
    size_t   max_block;   /* a header block longer ends the connection */
} nicd_h2s_settings_t;

/* a session; its SETTINGS and connection WINDOW_UPDATE are queued */
nicd_h2s_t *nicd_h2s_new(const nicd_h2s_callbacks_t *cb, void *ud,
                         const nicd_h2s_settings_t *set);
void        nicd_h2s_free(nicd_h2s_t *s);

/*
 * Bytes from the client, all taken: 0, or -1 when the connection must
 * close at once (no preface; nicd_h2s_error() says why).  A protocol
 * error queues GOAWAY and stops reading (nicd_h2s_want_read()).
 */
int nicd_h2s_recv(nicd_h2s_t *s, const uint8_t *in, size_t len, long now_ms);

/* the frames owed, as far as the callbacks take them: 0, or -1 */
int nicd_h2s_send(nicd_h2s_t *s);

int nicd_h2s_want_read(const nicd_h2s_t *s);
int nicd_h2s_want_write(const nicd_h2s_t *s);

/* a response's HEADERS (fields lower case), then DATA from the
 * data callbacks when has_body: 0, or -1 (the stream is gone) */
int nicd_h2s_respond(nicd_h2s_t *s, int32_t id, unsigned status,
                     const nicd_hpack_field_t *f, size_t n, int has_body);

/* RST_STREAM */
void nicd_h2s_reset(nicd_h2s_t *s, int32_t id, uint32_t error);

/* GOAWAY: NO_ERROR lets the open streams finish, others end it now */
void nicd_h2s_goaway(nicd_h2s_t *s, uint32_t error);

/* the stream's pointer (on_begin_stream's), NULL when it is not open */
void *nicd_h2s_stream(const nicd_h2s_t *s, int32_t id);

/* the largest stream id the client opened */
int32_t nicd_h2s_last_id(const nicd_h2s_t *s);

/* why the client's frames ended the session (a GOAWAY with an error
 * code queued, or, after nicd_h2s_recv() returned -1, none), or NULL */
const char *nicd_h2s_error(const nicd_h2s_t *s);

#endif /* NICD_HTTP2_SESSION_H */
