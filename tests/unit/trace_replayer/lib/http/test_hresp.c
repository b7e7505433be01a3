/*
 * Unit tests of trace_replayer/lib/http/hresp.c: the framing rules, fed whole and
 * one byte at a time (which must give the same answers).
 */

#include <stdlib.h>

#include "lib/http/hresp.c"
#include "harness.h"

typedef struct {
    char     body[4096];
    size_t   n;
    uint64_t first_offset;
} sink_t;

static void
collect(void *arg, uint64_t off, const char *p, size_t n)
{
    sink_t *s = arg;

    if (s->n == 0) {
        s->first_offset = off;
    }
    memcpy(s->body + s->n, p, n);
    s->n += n;
}

/*
 * Read responses from text, step bytes at a time (0: all at once), the
 * way the replayer does: unconsumed bytes stay and more are appended.
 * Returns the number of complete responses, -1 on an error; the last
 * response's state in *r and body in *s.
 */
static int
read_all(const char *text, size_t len, size_t step, const int *head, int eof,
         hresp_t *r, sink_t *s)
{
    char    buf[8192];
    size_t  have = 0, fed = 0;
    int     done = 0;
    ssize_t used;

    hresp_init(r, head[0]);
    memset(s, 0, sizeof(*s));
    while (fed < len || have > 0) {
        size_t k = step == 0 || len - fed < step ? len - fed : step;

        memcpy(buf + have, text + fed, k);
        have += k;
        fed += k;
        used = hresp_feed(r, buf, have, collect, s);
        if (used < 0) {
            return -1;
        }
        memmove(buf, buf + used, have - (size_t) used);
        have -= (size_t) used;
        if (r->state == HRESP_DONE) {
            done++;
            if (fed < len || have > 0) {
                hresp_init(r, head[done]);
                memset(s, 0, sizeof(*s));
            }
        } else if (used == 0 && k == 0) {
            break;
        }
    }
    if (eof && r->state != HRESP_DONE && hresp_eof(r)) {
        done++;
    }
    return done;
}

static void
test_framing(void)
{
    static const struct {
        const char *text;
        int         head[4];
        int         eof;
        int         responses, status, close;
        const char *body; /* of the last response */
        uint64_t    offset;
    } t[] = {
        {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", {0}, 0, 1, 200,
         0, "hello", 0},
        /* two pipelined, the second chunked with extensions and a trailer */
        {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab"
         "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
         "3;x=y\r\nabc\r\n1\r\nd\r\n0\r\nTrailer: v\r\n\r\n",
         {0, 0}, 0, 2, 200, 0, "abcd", 0},
        /* HEAD: Content-Length but no body; then a GET */
        {"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"
         "HTTP/1.1 404 Not Found\r\ncontent-length: 1\r\n\r\nx",
         {1, 0}, 0, 2, 404, 0, "x", 0},
        /* 304 and 204 never have a body */
        {"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"
         "HTTP/1.1 204 No Content\r\n\r\n",
         {0, 0}, 0, 2, 204, 0, "", 0},
        /* an interim 100 before the answer */
        {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: "
         "1\r\n\r\nz",
         {0}, 0, 1, 200, 0, "z", 0},
        /* HTTP/1.0 without a length: the body runs to the close */
        {"HTTP/1.0 200 OK\r\n\r\nuntil eof", {0}, 1, 1, 200, 1, "until eof",
         0},
        /* 1.0 keep-alive with a length: not closing */
        {"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n"
         "\r\nk",
         {0}, 0, 1, 200, 0, "k", 0},
        /* Connection: close among other tokens; a 206's offset */
        {"HTTP/1.1 206 Partial Content\r\nConnection: foo, close\r\n"
         "Content-Range: bytes 100-102/1000\r\nContent-Length: 3\r\n\r\nabc",
         {0}, 0, 1, 206, 1, "abc", 100},
        /* bare LF line ends */
        {"HTTP/1.1 200 OK\nContent-Length: 2\n\nok", {0}, 0, 1, 200, 0, "ok",
         0},
    };
    size_t i, steps[] = {0, 1, 7};
    size_t j;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        for (j = 0; j < 3; j++) {
            hresp_t r;
            sink_t  s;
            int     n = read_all(t[i].text, strlen(t[i].text), steps[j],
                                 t[i].head, t[i].eof, &r, &s);

            if (n != t[i].responses) {
                fprintf(stderr, "case %zu step %zu: %d responses\n", i,
                        steps[j], n);
            }
            CHECK_INT(n, t[i].responses);
            CHECK_INT(r.status, t[i].status);
            CHECK_INT(r.close, t[i].close);
            CHECK_INT(s.n, strlen(t[i].body));
            CHECK(memcmp(s.body, t[i].body, s.n) == 0);
            if (s.n > 0) {
                CHECK_INT(s.first_offset, t[i].offset);
            }
        }
    }
}

static void
test_errors(void)
{
    static const char *bad[] = {
        "HTTP/2 200 OK\r\n\r\n",
        "HTTX/1.1 200 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naX",
        "HTTP/1.1 101 Switching Protocols\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    };
    size_t  i;
    hresp_t r;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        hresp_init(&r, 0);
        if (hresp_feed(&r, bad[i], strlen(bad[i]), NULL, NULL) != -1) {
            fprintf(stderr, "accepted: %s\n", bad[i]);
            CHECK(0);
        }
    }
    /* a head that never ends is refused at its limit, not buffered on */
    {
        size_t n = HRESP_MAX_HEAD + 10;
        char  *p = malloc(n);

        memcpy(p, "HTTP/1.1 200 OK\r\nX: ", 20);
        memset(p + 20, 'a', n - 20);
        hresp_init(&r, 0);
        CHECK_INT(hresp_feed(&r, p, n, NULL, NULL), -1);
        free(p);
    }
    /* a cut body is not complete at the end of the connection */
    hresp_init(&r, 0);
    CHECK_INT(hresp_feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab",
                         40, NULL, NULL),
              40);
    CHECK_INT(hresp_eof(&r), 0);
}

int
main(void)
{
    RUN(test_framing);
    RUN(test_errors);
    return harness_report("hresp");
}
