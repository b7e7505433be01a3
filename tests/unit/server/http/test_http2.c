/*
 * Unit tests of src/server/http/http2.c through a loopback connection
 * (tests/unit/loopback.h): a client session of nghttp2 writes the frames
 * and reads the answer, so what is checked is what a client sees.
 * Several streams on one connection, each its own request (status,
 * headers, body, the phases per stream), HEAD, a body larger than the
 * initial window, and a bad frame that closes the connection with
 * GOAWAY while the worker goes on.
 */

#include "server/http/http2.c"
#include "harness.h"
#include "loopback.h"

#if defined(HAVE_NGHTTP2)

#include <nghttp2/nghttp2.h> /* the client: libnghttp2 as the other end */

#define MAX_STREAMS 8

static char          root[64];
static nicd_cycle_t  cycle;
static nicd_worker_t worker;

/* what the client saw of each stream, by the order it was submitted */
typedef struct {
    int32_t    id;
    int        status;
    char       location[128];
    char       type[64];
    nicd_buf_t body;
    int        closed;
    uint32_t   error;
} cstream_t;

typedef struct {
    nghttp2_session *s;
    nicd_buf_t       wire; /* the client's frames */
    cstream_t         st[MAX_STREAMS];
    int              n;
    int              goaway;
} cclient_t;

static cstream_t *
cl_stream(cclient_t *cl, int32_t id)
{
    int i;

    for (i = 0; i < cl->n; i++) {
        if (cl->st[i].id == id) {
            return &cl->st[i];
        }
    }
    return NULL;
}

static ssize_t
cl_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags,
        void *u)
{
    cclient_t *cl = u;

    (void) s;
    (void) flags;
    nicd_buf_add(&cl->wire, (const char *) data, len);
    return (ssize_t) len;
}

static int
cl_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
          size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags,
          void *u)
{
    cstream_t *st = cl_stream(u, f->hd.stream_id);

    (void) s;
    (void) flags;
    if (st == NULL) {
        return 0;
    }
    if (nlen == 7 && memcmp(name, ":status", 7) == 0) {
        st->status = atoi((const char *) value);
    } else if (nlen == 8 && memcmp(name, "location", 8) == 0) {
        snprintf(st->location, sizeof(st->location), "%.*s", (int) vlen,
                 (const char *) value);
    } else if (nlen == 12 && memcmp(name, "content-type", 12) == 0) {
        snprintf(st->type, sizeof(st->type), "%.*s", (int) vlen,
                 (const char *) value);
    }
    return 0;
}

static int
cl_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
        size_t len, void *u)
{
    cstream_t *st = cl_stream(u, id);

    (void) s;
    (void) flags;
    if (st != NULL) {
        nicd_buf_add(&st->body, (const char *) data, len);
    }
    return 0;
}

static int
cl_close(nghttp2_session *s, int32_t id, uint32_t error, void *u)
{
    cstream_t *st = cl_stream(u, id);

    (void) s;
    if (st != NULL) {
        st->closed = 1;
        st->error = error;
    }
    return 0;
}

static int
cl_frame(nghttp2_session *s, const nghttp2_frame *f, void *u)
{
    (void) s;
    if (f->hd.type == NGHTTP2_GOAWAY) {
        ((cclient_t *) u)->goaway = 1;
    }
    return 0;
}

static void
client_init(cclient_t *cl)
{
    nghttp2_session_callbacks *cb;

    memset(cl, 0, sizeof(*cl));
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(cb, cl_send);
    nghttp2_session_callbacks_set_on_header_callback(cb, cl_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, cl_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, cl_close);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, cl_frame);
    nghttp2_session_client_new(&cl->s, cb, cl);
    nghttp2_session_callbacks_del(cb);
    /* nghttp2's client session writes the preface itself */
    nghttp2_submit_settings(cl->s, NGHTTP2_FLAG_NONE, NULL, 0);
}

static void
client_free(cclient_t *cl)
{
    int i;

    for (i = 0; i < cl->n; i++) {
        nicd_buf_free(&cl->st[i].body);
    }
    nicd_buf_free(&cl->wire);
    nghttp2_session_del(cl->s);
}

/* a request for path with method */
static void
cl_submit(cclient_t *cl, const char *method, const char *path)
{
    nghttp2_nv nv[] = {
        {(uint8_t *) ":method", (uint8_t *) method, 7, strlen(method), 0},
        {(uint8_t *) ":scheme", (uint8_t *) "http", 7, 4, 0},
        {(uint8_t *) ":authority", (uint8_t *) "localhost", 10, 9, 0},
        {(uint8_t *) ":path", (uint8_t *) path, 5, strlen(path), 0},
    };

    cl->st[cl->n++].id = nghttp2_submit_request(cl->s, NULL, nv, 4, NULL, NULL);
}

/*
 * The client's frames (and bytes appended after them: extra) to a fresh
 * connection, what nicd answered read by the client session.  0, or -1
 * when the connection did not end or the answer did not parse.
 */
static int
cl_exchange(cclient_t *cl, const char *extra, size_t xlen)
{
    struct sockaddr sa;
    nicd_buf_t      in = {0}, got = {0};
    int             sv[2], open;
    ssize_t         n;

    nghttp2_session_send(cl->s);
    nicd_buf_add(&in, cl->wire.data, cl->wire.len);
    nicd_buf_add(&in, extra, xlen);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv)
        != 0) {
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_family = AF_UNIX;
    nicd_conn_accept(&worker, sv[1], 0, &sa);
    (void) loopback_turns(&worker, sv[0], in.data, in.len, &got, &open);
    close(sv[0]);
    n = nghttp2_session_mem_recv(cl->s, (const uint8_t *) got.data, got.len);
    nicd_buf_free(&in);
    nicd_buf_free(&got);
    return open || n < 0 ? -1 : 0;
}

static void
put_file(const char *name, size_t len)
{
    loopback_put(root, name, NULL, len);
}

static int
setup(void)
{
    char text[1024], err[512];

    strcpy(root, "/tmp/nicd-h2-XXXXXX");
    if (mkdtemp(root) == NULL) {
        return -1;
    }
    log_error_open("/dev/null", LOG_ERR);
    put_file("small.txt", 100);
    put_file("big.bin", 200000); /* past the initial window of 65,535 */
    snprintf(text, sizeof(text),
             "error_log /dev/null; access_log off;"
             " listen 127.0.0.1:1 http2; root %s;"
             " location /r/ { rewrite ^/r/(.*)$ /$1 last; }"
             " location = /go { return 302 /small.txt; }"
             " location = /uri { return 200 \"$uri $arg_x\"; }",
             root);
    if (loopback_cycle(&cycle, &worker, text, "sendfile", err, sizeof(err))
        != 0) {
        fprintf(stderr, "setup: %s\n", err);
        return -1;
    }
    return 0;
}

/* several streams on one connection, each answered as its own request */
static void
test_streams(void)
{
    cclient_t cl;

    client_init(&cl);
    cl_submit(&cl, "GET", "/small.txt");
    cl_submit(&cl, "HEAD", "/small.txt");
    cl_submit(&cl, "GET", "/missing");
    cl_submit(&cl, "GET", "/r/small.txt");
    cl_submit(&cl, "GET", "/go");
    cl_submit(&cl, "GET", "/uri?x=7");
    CHECK_INT(cl_exchange(&cl, NULL, 0), 0);
    CHECK_INT(cl.st[0].status, 200);
    CHECK_INT((int) cl.st[0].body.len, 100);
    CHECK(strcmp(cl.st[0].type, "text/plain") == 0);
    CHECK_INT(cl.st[1].status, 200);
    CHECK_INT((int) cl.st[1].body.len, 0);
    CHECK_INT(cl.st[2].status, 404);
    CHECK_INT(cl.st[3].status, 200);
    CHECK_INT((int) cl.st[3].body.len, 100);
    CHECK_INT(cl.st[4].status, 302);
    CHECK(strstr(cl.st[4].location, "/small.txt") != NULL);
    CHECK_INT(cl.st[5].status, 200);
    CHECK(cl.st[5].body.len == 6
          && memcmp(cl.st[5].body.data, "/uri 7", 6) == 0);
    CHECK(cl.st[0].closed && cl.st[5].closed && cl.st[0].error == 0);
    client_free(&cl);
}

/* a body past the initial flow-control window: nicd sends the window's
 * 65,535 bytes and waits; with the windows the client opened first, the
 * whole body */
static void
test_flow_control(void)
{
    cclient_t              cl;
    nghttp2_settings_entry big = {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE,
                                  1 << 20};

    client_init(&cl);
    cl_submit(&cl, "GET", "/big.bin");
    CHECK_INT(cl_exchange(&cl, NULL, 0), 0);
    CHECK_INT(cl.st[0].status, 200);
    CHECK_INT((int) cl.st[0].body.len, 65535);
    client_free(&cl);

    client_init(&cl);
    nghttp2_submit_settings(cl.s, NGHTTP2_FLAG_NONE, &big, 1);
    nghttp2_submit_window_update(cl.s, NGHTTP2_FLAG_NONE, 0, 1 << 20);
    cl_submit(&cl, "GET", "/big.bin");
    CHECK_INT(cl_exchange(&cl, NULL, 0), 0);
    CHECK_INT(cl.st[0].status, 200);
    CHECK_INT((int) cl.st[0].body.len, 200000);
    CHECK(cl.st[0].body.len == 200000 && cl.st[0].body.data[26] == 'a'
          && cl.st[0].closed);
    client_free(&cl);
}

/* a frame of an unknown stream's DATA: GOAWAY, and the worker serves
 * the next connection */
static void
test_bad_frame_then_next(void)
{
    cclient_t cl;
    /* DATA on stream 99, which was never opened: a connection error */
    static const char bad[] = {0, 0, 1, 0, 0, 0, 0, 0, 99, 'x'};

    client_init(&cl);
    CHECK_INT(cl_exchange(&cl, bad, sizeof(bad)), 0);
    CHECK(cl.goaway);
    client_free(&cl);
    client_init(&cl);
    cl_submit(&cl, "GET", "/small.txt");
    CHECK_INT(cl_exchange(&cl, NULL, 0), 0);
    CHECK_INT(cl.st[0].status, 200);
    client_free(&cl);
}

int
main(void)
{
    if (setup() != 0) {
        return harness_report("test_http2");
    }
    RUN(test_streams);
    RUN(test_flow_control);
    RUN(test_bad_frame_then_next);
    return harness_report("test_http2");
}

#else

int
main(void)
{
    printf("test_http2: 0 passed, 0 failed, 1 skipped\n");
    return 0;
}

#endif
