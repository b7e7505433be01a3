/*
 * Fuzz target: nicd's HTTP/2 session (http2_session.c, http2_output.c).
 * The input follows the client preface, fed in pieces whose sizes come
 * from its first byte; every request that completes is answered (a
 * status, two fields, a body of a size from the input), the send
 * callbacks refuse now and then, and whatever the frames say the
 * session must neither crash, nor leak, nor call back about a stream
 * it has closed.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/http2_session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXS 64

typedef struct {
    int32_t id;
    size_t  remaining;
    int     open;
} fstream_t;

typedef struct {
    nicd_h2s_t *s;
    fstream_t   st[MAXS];
    int         n;
    unsigned    tick;
    uint8_t     refuse; /* refuse every refuse-th send (0: never) */
    size_t      body;
} fctx_t;

static int
f_send(void *ud, const uint8_t *data, size_t len)
{
    fctx_t *x = ud;

    (void) data;
    (void) len;
    if (x->refuse && ++x->tick % x->refuse == 0) {
        return NICD_H2_WOULDBLOCK;
    }
    return 0;
}

static size_t
f_length(void *ud, void *stream, size_t max, int *eof)
{
    fstream_t *st = stream;

    (void) ud;
    if (!st->open) {
        abort();
    }
    *eof = st->remaining <= max;
    return st->remaining < max ? st->remaining : max;
}

static int
f_send_data(void *ud, void *stream, const uint8_t *head, size_t len)
{
    fstream_t *st = stream;

    if (f_send(ud, head, 9) != 0) {
        return NICD_H2_WOULDBLOCK;
    }
    if (len > st->remaining) {
        abort();
    }
    st->remaining -= len;
    return 0;
}

static void *
f_begin_stream(void *ud, int32_t id, uint32_t len)
{
    fctx_t    *x = ud;
    fstream_t *st;

    (void) len;
    if (x->n == MAXS) {
        return NULL;
    }
    st = &x->st[x->n++];
    st->id = id;
    st->open = 1;
    st->remaining = x->body;
    return st;
}

static int
f_header(void *ud, void *stream, const uint8_t *name, size_t nlen,
         const uint8_t *value, size_t vlen, int valid)
{
    fstream_t *st = stream;

    (void) ud;
    (void) name;
    (void) value;
    if (!st->open) {
        abort();
    }
    if (nlen == 5 && vlen == 5 && memcmp(name, "x-bad", 5) == 0) {
        return value[0] == 'r' ? NICD_H2_INTERNAL_ERROR
                               : -NICD_H2_ENHANCE_YOUR_CALM;
    }
    return valid ? 0 : NICD_H2_PROTOCOL_ERROR;
}

static int
f_data(void *ud, void *stream, const uint8_t *p, size_t len)
{
    fstream_t *st = stream;

    (void) ud;
    (void) p;
    if (!st->open || len == 0) {
        abort();
    }
    return 0;
}

static void
f_frame_end(void *ud, void *stream, uint8_t type, uint8_t flags)
{
    fctx_t            *x = ud;
    fstream_t         *st = stream;
    nicd_hpack_field_t f[2] = {
        {"content-type", 12, "text/plain", 10, 0},
        {"x-long", 6, "abcdefghijklmnopqrstuvwxyz", 26, 0},
    };

    (void) type;
    if (!st->open) {
        abort();
    }
    if (flags & NICD_H2_F_END_STREAM) {
        nicd_h2s_respond(x->s, st->id, st->id % 3 ? 200 : 302, f, 2,
                         st->remaining > 0);
    }
}

static void
f_close(void *ud, void *stream, uint32_t error)
{
    fstream_t *st = stream;

    (void) ud;
    (void) error;
    if (!st->open) {
        abort();
    }
    st->open = 0;
}

static void
f_refused(void *ud)
{
    (void) ud;
}

static const nicd_h2s_callbacks_t cbs = {
    f_send,  f_length,    f_send_data, NULL, f_begin_stream,
    f_header, f_data,     f_frame_end, f_close,       f_refused,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char   preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    nicd_h2s_settings_t set = {8, 16384, 0, 65536};
    fctx_t              x;
    size_t              step, off = 3;
    long                now = 0;

    if (size < 3) {
        return 0;
    }
    memset(&x, 0, sizeof(x));
    step = data[0] % 64 + 1;
    x.refuse = data[1] % 4 == 0 ? 0 : data[1] % 7 + 2;
    x.body = (size_t) data[2] * 300;
    x.s = nicd_h2s_new(&cbs, &x, &set);
    if (x.s == NULL) {
        return 0;
    }
    if (nicd_h2s_recv(x.s, (const uint8_t *) preface, 24, now) != 0) {
        abort();
    }
    while (off < size && nicd_h2s_want_read(x.s)) {
        size_t n = size - off < step ? size - off : step;

        if (nicd_h2s_recv(x.s, data + off, n, now += 10) != 0) {
            abort();
        }
        off += n;
        nicd_h2s_send(x.s);
    }
    x.refuse = 0;
    nicd_h2s_send(x.s);
    if (nicd_h2s_want_write(x.s) && nicd_h2s_want_read(x.s)) {
        /* only the windows may hold frames back now */
        nicd_h2s_send(x.s);
    }
    nicd_h2s_free(x.s);
    return 0;
}
