/* Unit tests of src/server/http/http_parser.c */

#include "server/http/http_parser.c"
#include "harness.h"

static nicd_http_req_t req;

static int
parse(const char *s)
{
    nicd_http_req_init(&req, 8192, 8192, 32768);
    return nicd_http_parse(&req, s, strlen(s));
}

static int
span_is(const char *buf, nicd_span_t s, const char *want)
{
    return s.len == strlen(want) && memcmp(buf + s.off, want, s.len) == 0;
}

static void
test_simple_get(void)
{
    const char *r = "GET /index.html?a=1 HTTP/1.1\r\nHost: example\r\n"
                    "User-Agent: t\r\n\r\n";

    CHECK_INT(parse(r), NICD_HTTP_DONE);
    CHECK_INT(req.method, NICD_M_GET);
    CHECK_INT(req.version, 11);
    CHECK(span_is(r, req.path, "/index.html"));
    CHECK(span_is(r, req.query, "a=1"));
    CHECK(span_is(r, req.line, "GET /index.html?a=1 HTTP/1.1"));
    CHECK_INT(req.nheaders, 2);
    CHECK(span_is(r, req.headers[0].name, "Host"));
    CHECK(span_is(r, req.headers[0].value, "example"));
    CHECK_INT(req.h_host, 0);
    CHECK_INT(req.h_user_agent, 1);
    CHECK_INT(req.head_len, strlen(r));
    CHECK(req.keepalive);
    CHECK(!req.has_body);
}

/* Feeding one byte at a time gives the same result as all at once. */
static void
test_incremental(void)
{
    const char     *r = "HEAD /a%20b HTTP/1.0\r\nConnection: keep-alive\r\n"
                        "X-Empty:\r\nRange:  bytes=0-1  \r\n\r\n";
    nicd_http_req_t whole;
    size_t          i;
    int             rc = NICD_HTTP_AGAIN;

    CHECK_INT(parse(r), NICD_HTTP_DONE);
    whole = req;

    nicd_http_req_init(&req, 8192, 8192, 32768);
    for (i = 1; i <= strlen(r); i++) {
        rc = nicd_http_parse(&req, r, i);
        if (i < strlen(r)) {
            CHECK_INT(rc, NICD_HTTP_AGAIN);
        }
    }
    CHECK_INT(rc, NICD_HTTP_DONE);
    CHECK_INT(req.head_len, whole.head_len);
    CHECK_INT(req.nheaders, 3);
    CHECK(span_is(r, req.headers[1].value, ""));
    CHECK(span_is(r, req.headers[2].value, "bytes=0-1"));
    CHECK_INT(req.method, NICD_M_HEAD);
    CHECK_INT(req.version, 10);
    CHECK(req.keepalive);
    CHECK_INT(req.h_range, 2);
}

/* Pipelined requests: the head ends where the next request starts. */
static void
test_pipelined(void)
{
    const char *r = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\n";

    CHECK_INT(parse(r), NICD_HTTP_DONE);
    CHECK_INT(req.head_len, strlen("GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"));
    CHECK(span_is(r, req.path, "/1"));
}

static void
test_bare_lf_and_leading_empty_lines(void)
{
    const char *r = "\r\n\nGET / HTTP/1.1\nHost: h\n\n";

    CHECK_INT(parse(r), NICD_HTTP_DONE);
    CHECK(span_is(r, req.line, "GET / HTTP/1.1"));
    CHECK_INT(req.head_len, strlen(r));
}

static void
test_connection_semantics(void)
{
    CHECK_INT(parse("GET / HTTP/1.0\r\n\r\n"), NICD_HTTP_DONE);
    CHECK(!req.keepalive);
    CHECK_INT(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"),
              NICD_HTTP_DONE);
    CHECK(req.keepalive);
    CHECK_INT(parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, close\r\n"
                    "\r\n"),
              NICD_HTTP_DONE);
    CHECK(!req.keepalive);
    /* HTTP/1.2 is treated as 1.1 */
    CHECK_INT(parse("GET / HTTP/1.2\r\nHost: h\r\n\r\n"), NICD_HTTP_DONE);
    CHECK_INT(req.version, 11);
}

static void
test_absolute_form(void)
{
    const char *r = "GET http://example.com:8080/a/b?q HTTP/1.1\r\nHost: x\r\n"
                    "\r\n";

    CHECK_INT(parse(r), NICD_HTTP_DONE);
    CHECK(span_is(r, req.authority, "example.com:8080"));
    CHECK(span_is(r, req.path, "/a/b"));
    CHECK(span_is(r, req.query, "q"));

    r = "GET http://example.com HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK_INT(parse(r), NICD_HTTP_DONE);
    CHECK_INT(req.path.len, 0);

    /* a fragment is left out, as nginx leaves it out */
    r = "GET http://example.com?q#f HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK_INT(parse(r), NICD_HTTP_DONE);
    CHECK(span_is(r, req.authority, "example.com"));
    CHECK(span_is(r, req.query, "q"));
    r = "GET /a/b#f?x HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK_INT(parse(r), NICD_HTTP_DONE);
    CHECK(span_is(r, req.path, "/a/b"));
    CHECK_INT(req.query.len, 0);
}

static void
test_bodies(void)
{
    CHECK_INT(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"),
              NICD_HTTP_DONE);
    CHECK(req.has_body);
    CHECK_INT(req.content_length, 5);
    CHECK_INT(req.method, NICD_M_POST);
    CHECK_INT(parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
                    "Chunked\r\n\r\n"),
              NICD_HTTP_DONE);
    CHECK(req.chunked);
    /* as strict as nginx (issue 32): a list in Content-Length, a second
     * Content-Length line, and a coding other than chunked alone */
    CHECK_INT(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n"
                    "\r\n"),
              400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
                    "Content-Length: 5\r\n\r\n"),
              400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
                    "identity, chunked\r\n\r\n"),
              501);
    CHECK_INT(parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, "
                    "chunked\r\n\r\n"),
              501);
    CHECK_INT(parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
                    "chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
              400);
}

static void
test_malformed(void)
{
    static const struct {
        const char *req;
        int         status;
    } cases[] = {
        {"GET / HTTP/1.1\r\n\r\n", 400}, /* no Host */
        {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
        /* hosts as nginx validates them (its suite's http_host.t) */
        {"GET / HTTP/1.1\r\nHost: .\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: ..example.com\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: example.com/\\:552\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: [a::1]..:98\r\n\r\n", 400},
        {"GET http://a.b:1.2/ HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET http://1.2.3.4:9000:80/ HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET http://[a::1]./ HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET http://x[a::1]/ HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET http://[a::1/ HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET http://u@h/ HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400}, /* space before : */
        {"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: a\r\nX: a\x01b\r\n\r\n", 400},
        {"GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505},
        {"GET / HTTP/0.9\r\nHost: a\r\n\r\n", 505},
        {"GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400},
        {"GET / http/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET /\r\n\r\n", 400},                      /* HTTP/0.9 */
        {"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400}, /* two spaces */
        {"GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400},
        {"G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET a HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET /\x7f HTTP/1.1\r\nHost: a\r\n\r\n", 400},
        {"GET / HTTP/1.1\rHost: a\r\n\r\n", 400}, /* bare CR */
        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
         "Transfer-Encoding: chunked\r\n\r\n",
         400},
        {"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
        {"GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
         "Content-Length: 2\r\n\r\n",
         400},
        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: "
         "99999999999999999999999\r\n\r\n",
         400},
        {"GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: a\r\n:empty\r\n\r\n", 400},
    };
    size_t i;
    int    rc;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rc = parse(cases[i].req);
        if (rc != cases[i].status) {
            fprintf(stderr, "case %zu: got %d, want %d\n", i, rc,
                    cases[i].status);
        }
        CHECK_INT(rc, cases[i].status);
    }
    /* a NUL right in the middle (strlen would stop there) */
    nicd_http_req_init(&req, 8192, 8192, 32768);
    CHECK_INT(nicd_http_parse(&req, "GET /a\0b HTTP/1.1\r\n\r\n", 22), 400);
    nicd_http_req_reset(&req);
    CHECK_INT(nicd_http_parse(&req, "\0GET / HTTP/1.1\r\n\r\n", 20), 400);
}

static void
test_limits(void)
{
    static char buf[40000];
    size_t      n;
    int         i;

    /* a request line longer than max_line: 414, even before it ends */
    nicd_http_req_init(&req, 100, 100, 1000);
    n = (size_t) snprintf(buf, sizeof(buf), "GET /%0200d", 0);
    CHECK_INT(nicd_http_parse(&req, buf, n), 414);

    /* a header line longer than max_field: 431 */
    nicd_http_req_reset(&req);
    n = (size_t) snprintf(buf, sizeof(buf),
                          "GET / HTTP/1.1\r\nHost: h\r\nX: %0200d\r\n\r\n", 0);
    CHECK_INT(nicd_http_parse(&req, buf, n), 431);

    /* a head longer than max_head: 431 */
    nicd_http_req_reset(&req);
    n = (size_t) snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: h\r\n");
    for (i = 0; i < 20; i++) {
        n +=
            (size_t) snprintf(buf + n, sizeof(buf) - n, "X%d: %080d\r\n", i, 0);
    }
    CHECK_INT(nicd_http_parse(&req, buf, n), 431);

    /* a head that exactly fills max_head without ending: 431 at once, not
     * AGAIN (the connection's buffer is full then and would stall) */
    nicd_http_req_init(&req, 8192, 8192, 1024);
    n = (size_t) snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: h\r\n");
    while (n < 1024) {
        buf[n++] = 'X';
        if (n % 100 == 0) {
            buf[n - 2] = ':';
            buf[n - 1] = '\n';
        }
    }
    CHECK_INT(nicd_http_parse(&req, buf, 1024), 431);
    /* a head of exactly max_head bytes is fine */
    nicd_http_req_reset(&req);
    n = (size_t) snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: h\r\nX: ");
    memset(buf + n, 'v', 1024 - n - 4);
    memcpy(buf + 1020, "\r\n\r\n", 4);
    CHECK_INT(nicd_http_parse(&req, buf, 1024), NICD_HTTP_DONE);

    /* too many header fields: 431 */
    nicd_http_req_init(&req, 8192, 8192, 32768);
    n = (size_t) snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: h\r\n");
    for (i = 0; i < NICD_HTTP_MAX_HEADERS + 1; i++) {
        n += (size_t) snprintf(buf + n, sizeof(buf) - n, "X: y\r\n");
    }
    n += (size_t) snprintf(buf + n, sizeof(buf) - n, "\r\n");
    CHECK_INT(nicd_http_parse(&req, buf, n), 431);
}

static void
test_methods(void)
{
    CHECK_INT(parse("DELETE / HTTP/1.1\r\nHost: h\r\n\r\n"), NICD_HTTP_DONE);
    CHECK_INT(req.method, NICD_M_DELETE);
    CHECK_INT(parse("BREW / HTTP/1.1\r\nHost: h\r\n\r\n"), NICD_HTTP_DONE);
    CHECK_INT(req.method, NICD_M_UNKNOWN);
    /* nginx's method characters: upper-case letters, "_" and "-" */
    CHECK_INT(parse("get / HTTP/1.1\r\nHost: h\r\n\r\n"), 400);
    CHECK_INT(parse("M-SEARCH_X / HTTP/1.1\r\nHost: h\r\n\r\n"),
              NICD_HTTP_DONE);
    CHECK_INT(req.method, NICD_M_UNKNOWN);
    CHECK_INT(parse("GE.T / HTTP/1.1\r\nHost: h\r\n\r\n"), 400);
    CHECK(nicd_http_method_valid("GET", 3) && !nicd_http_method_valid("", 0)
          && !nicd_http_method_valid("gEt", 3));
}

static int
skip(const char *body, size_t len, size_t *used, size_t step)
{
    nicd_chunked_t st;
    size_t         off = 0, u, n;
    int            rc = NICD_HTTP_AGAIN;

    memset(&st, 0, sizeof(st));
    while (off < len) {
        n = len - off < step ? len - off : step;
        rc = nicd_http_chunked_skip(&st, body + off, n, &u);
        off += u;
        if (rc != NICD_HTTP_AGAIN) {
            break;
        }
    }
    *used = off;
    return rc;
}

static void
test_chunked_skip(void)
{
    static const char *ok[] = {
        "0\r\n\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
        "5;name=val\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n",
        "5 ; x\r\nhello\r\n000\r\nTrailer: x\r\nT2: y\r\n\r\n",
        "3\nabc\n0\n\n",
        "f\r\n0123456789abcde\r\n0\r\n\r\n",
    };
    static const char *bad[] = {
        "\r\n",
        "x\r\n",
        "5\r\nhelloX\r\n",
        "5\rX",
        "10000000000000000\r\n",
        "5\r\nhello\r\n0\r\n\rX",
        "1;\x01\r\n",
    };
    const char *next = "GET / HTTP/1.1\r\n";
    char        buf[256];
    size_t      i, used, len, step;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        /* the body, then the next request: it must stop exactly between */
        len = (size_t) snprintf(buf, sizeof(buf), "%s%s", ok[i], next);
        for (step = 1; step <= len; step += 7) {
            CHECK_INT(skip(buf, len, &used, step), NICD_HTTP_DONE);
            CHECK_INT(used, strlen(ok[i]));
        }
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(skip(bad[i], strlen(bad[i]), &used, 1000), 400);
    }
    /* incomplete: everything consumed, more wanted */
    CHECK_INT(skip("5\r\nhel", 8, &used, 1000), NICD_HTTP_AGAIN);
    CHECK_INT(used, 8);
}

/* the Host check's one-look-a-byte reading answers as the byte-by-byte
 * one, for every value of up to 5 bytes from the bytes that matter */
static void
test_host_readings_agree(void)
{
    static const char alpha[] = "a1.:[]/ _";
    const size_t      n = sizeof(alpha) - 1;
    char              v[8];
    size_t            len, i, code, total, bad = 0;

    for (len = 0; len <= 5; len++) {
        total = 1;
        for (i = 0; i < len; i++) {
            total *= n;
        }
        for (code = 0; code < total; code++) {
            size_t      k = code;
            nicd_span_t sp = {0, (uint32_t) len};

            for (i = 0; i < len; i++, k /= n) {
                v[i] = alpha[k % n];
            }
            bad += valid_host(v, sp, 0) != valid_host_by_byte(v, sp, 0);
        }
    }
    CHECK_INT(bad, 0);
    {
        nicd_span_t sp = {0, 15};

        CHECK(valid_host("127.0.0.1:18080", sp, 0));
        CHECK(!valid_host("127.0..1:180800", sp, 0));
    }
}

/* 1 when parsing head (n bytes) whole and one byte at a time, under
 * these limits, gives another answer or other fields */
static int
steps_differ(const char *head, size_t n, uint32_t line, uint32_t field,
             uint32_t max)
{
    nicd_http_req_t whole;
    size_t          i;
    int             rw, rc = NICD_HTTP_AGAIN;

    nicd_http_req_init(&req, line, field, max);
    rw = nicd_http_parse(&req, head, n);
    whole = req;
    nicd_http_req_init(&req, line, field, max);
    for (i = 1; i <= n && rc == NICD_HTTP_AGAIN; i++) {
        rc = nicd_http_parse(&req, head, i);
    }
    if (rc != rw) {
        return 1;
    }
    return rc == NICD_HTTP_DONE
           && (req.method != whole.method || req.version != whole.version
               || req.line.off != whole.line.off
               || req.line.len != whole.line.len
               || req.path.len != whole.path.len
               || req.head_len != whole.head_len
               || req.nheaders != whole.nheaders
               || req.headers[0].value.off != whole.headers[0].value.off
               || req.headers[0].value.len != whole.headers[0].value.len
               || req.headers[1].name.len != whole.headers[1].name.len);
}

/* The whole head at once (where the parser takes "GET " and "HTTP/1.1"
 * CRLF in one step) and one byte at a time (where it never can) agree on
 * every answer and every field, the limits landing anywhere in the head */
static void
test_steps_agree(void)
{
    static const char *const heads[] = {
        "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /abc?q HTTP/1.0\r\nHost: a\r\n\r\n",
        "GET /x HTTP/1.5\r\nHost: a\r\n\r\n",
        "GET /x HTTP/1.1\nHost: a\n\n",
        "GET /x HTTP/1.1\rHost: a\r\n\r\n",
        "GET /x HTTP/2.0\r\nHost: a\r\n\r\n",
        "GET /x HTTP/1.1 \r\nHost: a\r\n\r\n",
        "GET /x HTTP/1.\r\n\r\n",
        "GETX / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GE / HTTP/1.1\r\nHost: h\r\n\r\n",
        "HEAD / HTTP/1.1\r\nHost: h\r\n\r\n",
        "\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.1\r\nHost:  h \r\nX-A:\r\nB: c\rd\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nX: y\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\n\r\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\n\n",
    };
    static const uint32_t fields[] = {1, 2, 3, 5, 7, 9, 12, 8192};
    size_t                h, f, n, bad = 0, cases = 0;
    uint32_t              line, max;

    for (h = 0; h < sizeof(heads) / sizeof(heads[0]); h++) {
        n = strlen(heads[h]);
        for (line = 1; line <= 40; line++) {
            for (max = 1; max <= n + 3; max++) {
                for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
                    bad += steps_differ(heads[h], n, line, fields[f], max);
                    cases++;
                }
            }
        }
    }
    CHECK(cases > 50000);
    CHECK_INT(bad, 0);
    /* and the fast steps answer as the slow ones where they apply */
    CHECK_INT(parse("GET /x HTTP/1.0\r\nHost: h\r\n\r\n"), NICD_HTTP_DONE);
    CHECK_INT(req.version, 10);
    CHECK_INT(req.method, NICD_M_GET);
    CHECK(span_is("GET /x HTTP/1.0\r\nHost: h\r\n\r\n", req.line,
                  "GET /x HTTP/1.0"));
}

int
main(void)
{
    RUN(test_simple_get);
    RUN(test_incremental);
    RUN(test_pipelined);
    RUN(test_bare_lf_and_leading_empty_lines);
    RUN(test_connection_semantics);
    RUN(test_absolute_form);
    RUN(test_bodies);
    RUN(test_malformed);
    RUN(test_host_readings_agree);
    RUN(test_steps_agree);
    RUN(test_limits);
    RUN(test_methods);
    RUN(test_chunked_skip);
    return harness_report("test_http_parser");
}
