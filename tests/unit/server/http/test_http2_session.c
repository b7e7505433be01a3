/*
 * Unit tests of nicd's HTTP/2 session (http2_session.c, http2_output.c,
 * http2_state.c) alone, without a connection: frames in, the frames it
 * owes out, through callbacks that record what they are told.  h2spec
 * (test_http2.py) checks the protocol more widely where it is
 * installed; these run everywhere.
 */

#include "server/http/http2_session.c"
#include "harness.h"

#define PREFACE_STR "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

typedef struct {
    int32_t id;
    size_t  body;  /* response body bytes still to send */
    int     ended; /* END_STREAM received */
    int     closed;
    uint32_t error;
    int     fields;
} tstream_t;

typedef struct {
    nicd_h2s_t *s;
    uint8_t     out[1 << 18];
    size_t      n;
    tstream_t   st[8];
    int         nst;
    int         refused;
} tctx_t;

static int
t_send(void *ud, const uint8_t *d, size_t len)
{
    tctx_t *x = ud;

    memcpy(x->out + x->n, d, len);
    x->n += len;
    return 0;
}

static size_t
t_length(void *ud, void *stream, size_t max, int *eof)
{
    tstream_t *st = stream;

    (void) ud;
    *eof = st->body <= max;
    return st->body < max ? st->body : max;
}

static int
t_send_data(void *ud, void *stream, const uint8_t *head, size_t len)
{
    tctx_t    *x = ud;
    tstream_t *st = stream;

    t_send(ud, head, 9);
    memset(x->out + x->n, 'b', len);
    x->n += len;
    st->body -= len;
    return 0;
}

static void *
t_begin_stream(void *ud, int32_t id, uint32_t len)
{
    tctx_t    *x = ud;
    tstream_t *st = &x->st[x->nst++];

    (void) len;
    memset(st, 0, sizeof(*st));
    st->id = id;
    return st;
}

static int
t_header(void *ud, void *stream, const uint8_t *name, size_t nlen,
         const uint8_t *value, size_t vlen, int valid)
{
    tstream_t *st = stream;

    (void) ud;
    (void) name;
    (void) nlen;
    (void) value;
    (void) vlen;
    st->fields++;
    return valid ? 0 : NICD_H2_PROTOCOL_ERROR;
}

static int
t_data(void *ud, void *stream, const uint8_t *p, size_t len)
{
    (void) ud;
    (void) stream;
    (void) p;
    (void) len;
    return 0;
}

static void
t_frame_end(void *ud, void *stream, uint8_t type, uint8_t flags)
{
    tstream_t *st = stream;

    (void) ud;
    (void) type;
    if (flags & NICD_H2_F_END_STREAM) {
        st->ended = 1;
    }
}

static void
t_close(void *ud, void *stream, uint32_t error)
{
    tstream_t *st = stream;

    (void) ud;
    st->closed = 1;
    st->error = error;
}

static void
t_refused(void *ud)
{
    ((tctx_t *) ud)->refused++;
}

static const nicd_h2s_callbacks_t tcb = {
    t_send,   t_length, t_send_data, NULL, t_begin_stream,
    t_header, t_data,   t_frame_end, t_close,       t_refused,
};

/* a frame: 9-byte head and payload into b; its length */
static size_t
mkframe(uint8_t *b, uint8_t type, uint8_t flags, int32_t id,
        const void *payload, size_t len)
{
    h2s_frame_head(b, len, type, flags, id);
    memcpy(b + 9, payload, len);
    return 9 + len;
}

static tctx_t x;

/* a session with the preface and an empty SETTINGS read, its own
 * frames sent and forgotten */
static void
start(uint32_t max_streams)
{
    nicd_h2s_settings_t set = {max_streams, 16384, 0, 65536};
    uint8_t             f[16];

    memset(&x, 0, sizeof(x));
    x.s = nicd_h2s_new(&tcb, &x, &set);
    CHECK(nicd_h2s_recv(x.s, (const uint8_t *) PREFACE_STR, 24, 0) == 0);
    CHECK(nicd_h2s_recv(x.s, f, mkframe(f, NICD_H2_SETTINGS, 0, 0, "", 0), 0)
          == 0);
    nicd_h2s_send(x.s);
    x.n = 0;
}

static int
feed(const uint8_t *p, size_t len)
{
    int rc = nicd_h2s_recv(x.s, p, len, 0);

    nicd_h2s_send(x.s);
    return rc;
}

/* the index-th frame of type in the output (-1: any type): its offset,
 * or -1 */
static long
find(int type, int index)
{
    size_t i = 0, len;

    while (i + 9 <= x.n) {
        len = (size_t) x.out[i] << 16 | (size_t) x.out[i + 1] << 8
              | x.out[i + 2];
        if ((type < 0 || x.out[i + 3] == type) && index-- == 0) {
            return (long) i;
        }
        i += 9 + len;
    }
    return -1;
}

static size_t
flen(long at)
{
    return (size_t) x.out[at] << 16 | (size_t) x.out[at + 1] << 8
           | x.out[at + 2];
}

static uint32_t
goaway_code(void)
{
    long at = find(NICD_H2_GOAWAY, 0);

    return at < 0 ? 0xffffffffu : h2s_get32(x.out + at + 13);
}

/* :method GET, :scheme http, :path /, :authority x */
static const uint8_t get_block[] = {0x82, 0x86, 0x84, 0x01, 0x01, 'x'};

static void
test_request_and_body(void)
{
    uint8_t f[64];
    long    at;

    start(8);
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 1, get_block, sizeof(get_block)));
    CHECK_INT(x.nst, 1);
    CHECK_INT(x.st[0].ended, 1);
    CHECK_INT(x.st[0].fields, 4);
    x.st[0].body = 20000; /* a frame of 16384 and one of 3616 */
    CHECK_INT(nicd_h2s_respond(x.s, 1, 200, NULL, 0, 1), 0);
    nicd_h2s_send(x.s);
    CHECK((at = find(NICD_H2_HEADERS, 0)) >= 0);
    CHECK(at >= 0 && x.out[at + 9] == 0x88); /* :status 200 */
    CHECK((at = find(NICD_H2_DATA, 0)) >= 0 && flen(at) == 16384
          && x.out[at + 4] == 0);
    CHECK((at = find(NICD_H2_DATA, 1)) >= 0 && flen(at) == 3616
          && x.out[at + 4] == NICD_H2_F_END_STREAM);
    CHECK_INT(x.st[0].closed, 1);
    CHECK_INT(x.st[0].error, 0);
    CHECK(nicd_h2s_want_read(x.s));
    nicd_h2s_free(x.s);
}

/* the client's window holds the body back until it opens */
static void
test_flow_control(void)
{
    uint8_t f[64], set[6] = {0, 4, 0, 0, 0, 100}, inc[4] = {0, 0, 3, 0x84};
    long    at;

    start(8);
    feed(f, mkframe(f, NICD_H2_SETTINGS, 0, 0, set, 6));
    CHECK(find(NICD_H2_SETTINGS, 0) >= 0); /* its ACK */
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 1, get_block, sizeof(get_block)));
    x.st[0].body = 1000;
    nicd_h2s_respond(x.s, 1, 200, NULL, 0, 1);
    nicd_h2s_send(x.s);
    CHECK((at = find(NICD_H2_DATA, 0)) >= 0 && flen(at) == 100);
    CHECK(find(NICD_H2_DATA, 1) < 0);
    CHECK(!nicd_h2s_want_write(x.s));
    feed(f, mkframe(f, NICD_H2_WINDOW_UPDATE, 0, 1, inc, 4)); /* 900 */
    CHECK((at = find(NICD_H2_DATA, 1)) >= 0 && flen(at) == 900
          && (x.out[at + 4] & NICD_H2_F_END_STREAM));
    CHECK_INT(x.st[0].closed, 1);
    nicd_h2s_free(x.s);
}

static char big[40000];
static int  big_seen;

static void
on_big(void *arg, const nicd_hpack_field_t *f)
{
    (void) arg;
    if (f->nlen == 5 && f->vlen == sizeof(big)
        && memcmp(f->value, big, sizeof(big)) == 0) {
        big_seen++;
    }
}

/* a block larger than the client's frame size: HEADERS, CONTINUATIONs */
static void
test_header_block_split(void)
{
    static uint8_t       blk[1 << 17];
    nicd_hpack_field_t   fl[1] = {{"x-big", 5, big, sizeof(big), 0}};
    nicd_hpack_decoder_t d;
    uint8_t              f[64];
    size_t               bl = 0, k;
    long                 at;
    int                  i;

    for (k = 0; k < sizeof(big); k++) {
        big[k] = (char) (k * 7 % 251 + 1);
    }
    start(8);
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 1, get_block, sizeof(get_block)));
    nicd_h2s_respond(x.s, 1, 200, fl, 1, 0);
    nicd_h2s_send(x.s);
    CHECK((at = find(NICD_H2_HEADERS, 0)) >= 0 && flen(at) == 16384
          && x.out[at + 4] == NICD_H2_F_END_STREAM);
    for (i = 0; (at = find(-1, i)) >= 0; i++) {
        if (x.out[at + 3] == NICD_H2_HEADERS
            || x.out[at + 3] == NICD_H2_CONTINUATION) {
            memcpy(blk + bl, x.out + at + 9, flen(at));
            bl += flen(at);
        }
    }
    /* 16384 bytes a frame, the last CONTINUATION ending the block */
    CHECK(bl > 2 * 16384);
    k = (bl + 16383) / 16384 - 2;
    at = find(NICD_H2_CONTINUATION, (int) k);
    CHECK(at >= 0 && x.out[at + 4] == NICD_H2_F_END_HEADERS
          && flen(at) == bl - (k + 1) * 16384);
    CHECK(find(NICD_H2_CONTINUATION, (int) k + 1) < 0);
    nicd_hpack_decoder_init(&d, 4096);
    CHECK_INT(nicd_hpack_decode(&d, blk, bl, on_big, NULL), 0);
    CHECK_INT(big_seen, 1);
    nicd_hpack_decoder_free(&d);
    CHECK_INT(x.st[0].closed, 1);
    nicd_h2s_free(x.s);
}

/* frames the RFC makes a connection error: GOAWAY with its code */
static void
test_connection_errors(void)
{
    static const struct {
        uint8_t  type, flags;
        int32_t  id;
        size_t   len;
        uint32_t code;
    } cases[] = {
        {NICD_H2_DATA, 0, 1, 4, NICD_H2_PROTOCOL_ERROR},       /* idle */
        {NICD_H2_SETTINGS, 0, 1, 0, NICD_H2_PROTOCOL_ERROR},   /* a stream */
        {NICD_H2_SETTINGS, 0, 0, 5, NICD_H2_FRAME_SIZE_ERROR}, /* not 6n */
        {NICD_H2_PING, 0, 0, 7, NICD_H2_FRAME_SIZE_ERROR},
        {NICD_H2_WINDOW_UPDATE, 0, 0, 4, NICD_H2_PROTOCOL_ERROR}, /* 0 */
        {NICD_H2_CONTINUATION, 4, 1, 1, NICD_H2_PROTOCOL_ERROR},
        {NICD_H2_RST_STREAM, 0, 3, 4, NICD_H2_PROTOCOL_ERROR}, /* idle */
        {NICD_H2_HEADERS, 5, 2, 1, NICD_H2_PROTOCOL_ERROR},    /* even */
        {NICD_H2_PUSH_PROMISE, 4, 1, 4, NICD_H2_PROTOCOL_ERROR},
    };
    uint8_t f[64], zero[16] = {0};
    size_t  k;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        start(8);
        feed(f, mkframe(f, cases[k].type, cases[k].flags, cases[k].id, zero,
                        cases[k].len));
        if (goaway_code() != cases[k].code || nicd_h2s_want_read(x.s)) {
            h_current_failed = 1;
            fprintf(stderr, "case %zu: GOAWAY code %u\n", k, goaway_code());
        }
        nicd_h2s_free(x.s);
    }
    /* a HEADERS frame on a stream closed: STREAM_CLOSED; below one
     * used and never opened: PROTOCOL_ERROR */
    start(8);
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 1, get_block, sizeof(get_block)));
    nicd_h2s_respond(x.s, 1, 204, NULL, 0, 0);
    nicd_h2s_send(x.s);
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 1, get_block, sizeof(get_block)));
    CHECK_INT(goaway_code(), NICD_H2_STREAM_CLOSED);
    nicd_h2s_free(x.s);
    start(8);
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 5, get_block, sizeof(get_block)));
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 3, get_block, sizeof(get_block)));
    CHECK_INT(goaway_code(), NICD_H2_PROTOCOL_ERROR);
    nicd_h2s_free(x.s);
    /* no preface: nothing to answer */
    memset(&x, 0, sizeof(x));
    {
        nicd_h2s_settings_t set = {8, 16384, 0, 65536};

        x.s = nicd_h2s_new(&tcb, &x, &set);
        CHECK_INT(nicd_h2s_recv(x.s, (const uint8_t *) "GET / HTTP/1.1\r\n",
                                16, 0),
                  -1);
        nicd_h2s_free(x.s);
    }
}

/* stream errors: RST_STREAM, the connection goes on (a PING answered) */
static void
test_stream_errors(void)
{
    /* :method GET, :scheme http, :path /, then "X-Up: 1" (upper case) */
    static const uint8_t upper[] = {0x82, 0x86, 0x84, 0x00, 0x04, 'X', '-',
                                    'U',  'p',  0x01, '1'};
    uint8_t              f[64], ping[8] = "SEE-THIS";
    long                 at;

    start(8);
    feed(f, mkframe(f, NICD_H2_HEADERS, 5, 1, upper, sizeof(upper)));
    CHECK((at = find(NICD_H2_RST_STREAM, 0)) >= 0
          && h2s_get32(x.out + at + 9) == NICD_H2_PROTOCOL_ERROR);
    CHECK_INT(x.st[0].closed, 1);
    feed(f, mkframe(f, NICD_H2_PING, 0, 0, ping, 8));
    CHECK((at = find(NICD_H2_PING, 0)) >= 0 && x.out[at + 4] == NICD_H2_F_ACK
          && memcmp(x.out + at + 9, "SEE-THIS", 8) == 0);
    CHECK(nicd_h2s_want_read(x.s));
    nicd_h2s_free(x.s);
}

/* past SETTINGS_MAX_CONCURRENT_STREAMS: REFUSED_STREAM, counted */
static void
test_refused(void)
{
    uint8_t f[64];
    long    at;

    start(1);
    /* two requests with bodies still to come */
    feed(f, mkframe(f, NICD_H2_HEADERS, 4, 1, get_block, sizeof(get_block)));
    feed(f, mkframe(f, NICD_H2_HEADERS, 4, 3, get_block, sizeof(get_block)));
    CHECK_INT(x.nst, 1);
    CHECK_INT(x.refused, 1);
    CHECK((at = find(NICD_H2_RST_STREAM, 0)) >= 0
          && h2s_get32(x.out + at + 5) == 3
          && h2s_get32(x.out + at + 9) == NICD_H2_REFUSED_STREAM);
    CHECK(nicd_h2s_want_read(x.s));
    nicd_h2s_free(x.s);
}

int
main(void)
{
    RUN(test_request_and_body);
    RUN(test_flow_control);
    RUN(test_header_block_split);
    RUN(test_connection_errors);
    RUN(test_stream_errors);
    RUN(test_refused);
    return harness_report("test_http2_session");
}
