/* Unit tests of trace_replayer/lib/formats/trace_clf.c */

#include <stdio.h>
#include <stdlib.h>

#include "lib/formats/trace_clf.c"
#include "harness.h"

#define SAMPLE "../shared/traces/nasa/NASA_access_log_Jul95.first1000"

static trace_req_t r;

static int
parse(const char *line)
{
    memset(&r, 0, sizeof(r));
    return trace_clf_parse(line, strlen(line), &r);
}

static int
url_is(const char *want)
{
    return r.url_len == strlen(want) && memcmp(r.url, want, r.url_len) == 0;
}

static void
test_real_lines(void)
{
    uint64_t client;

    /* the first line of NASA's July 1995 log */
    CHECK_INT(parse("199.72.81.55 - - [01/Jul/1995:00:00:01 -0400] \"GET "
                    "/history/apollo/ HTTP/1.0\" 200 6245"),
              TRACE_OK);
    CHECK_INT(r.time, 804571201); /* 04:00:01 UTC */
    CHECK_INT(r.method, TRACE_GET);
    CHECK(url_is("/history/apollo/"));
    CHECK_INT(r.status, 200);
    CHECK_INT(r.bytes, 6245);
    CHECK(r.bytes_known && r.has_protocol);
    client = r.client;
    CHECK_INT(parse("199.72.81.55 - - [01/Jul/1995:00:00:12 -0400] \"GET "
                    "/images/x.gif HTTP/1.0\" 304 0"),
              TRACE_OK);
    CHECK(r.client == client);
    CHECK_INT(parse("unicomp6.unicomp.net - - [01/Jul/1995:00:00:06 -0400] "
                    "\"GET /shuttle/countdown/ HTTP/1.0\" 200 3985\r"),
              TRACE_OK);
    CHECK(r.client != client);
}

static void
test_combined(void)
{
    CHECK_INT(parse("10.0.0.1 - bob [21/Nov/2026:08:50:40 +0000] \"HEAD "
                    "/a.txt HTTP/1.1\" 200 10 \"http://r/\" \"say \\\"hi\\\""
                    "\""),
              TRACE_OK);
    CHECK_INT(r.method, TRACE_HEAD);
    CHECK(url_is("/a.txt"));
    CHECK_INT(r.bytes, 10);
    CHECK_INT(r.time, 1795251040); /* Python's calendar.timegm */
}

static void
test_oddities(void)
{
    /* no protocol */
    CHECK_INT(parse("h - - [01/Jul/1995:00:00:01 -0400] \"GET /x\" 200 5"),
              TRACE_OK);
    CHECK(url_is("/x") && !r.has_protocol);
    /* "-" bytes */
    CHECK_INT(parse("h - - [01/Jul/1995:00:00:01 -0400] \"GET /x "
                    "HTTP/1.0\" 404 -"),
              TRACE_OK);
    CHECK(!r.bytes_known && r.bytes == 0 && r.status == 404);
    /* quotes inside the request */
    CHECK_INT(parse("h - - [01/Jul/1995:00:00:01 -0400] \"GET /a\"b\" "
                    "HTTP/1.0\" 200 7"),
              TRACE_OK);
    CHECK(url_is("/a\"b\""));
    CHECK_INT(r.bytes, 7);
    /* other methods parse and are marked */
    CHECK_INT(parse("h - - [01/Jul/1995:00:00:01 -0400] \"POST /cgi HTTP/1.0\""
                    " 200 1"),
              TRACE_OK);
    CHECK_INT(r.method, TRACE_POST);
    CHECK_INT(parse("h - - [01/Jul/1995:00:00:01 -0400] \"get /x HTTP/1.0\""
                    " 200 1"),
              TRACE_OK);
    CHECK_INT(r.method, TRACE_OTHER);
    /* a time zone east of UTC */
    CHECK_INT(parse("h - - [01/Jul/1995:00:00:01 +0130] \"GET / HTTP/1.0\" "
                    "200 1"),
              TRACE_OK);
    CHECK_INT(r.time, 804571201 - 4 * 3600 - 90 * 60);
}

static void
test_broken(void)
{
    static const struct {
        const char *line;
        int         err;
    } cases[] = {
        {"", TRACE_ERR_FIELDS},
        {"garbage", TRACE_ERR_FIELDS},
        {"h - - 01/Jul/1995:00:00:01 -0400 \"GET / HTTP/1.0\" 200 1",
         TRACE_ERR_FIELDS},
        {"h - - [01/Jux/1995:00:00:01 -0400] \"GET / HTTP/1.0\" 200 1",
         TRACE_ERR_DATE},
        {"h - - [32/Jul/1995:00:00:01 -0400] \"GET / HTTP/1.0\" 200 1",
         TRACE_ERR_DATE},
        {"h - - [01/Jul/1995:00:00:01] \"GET / HTTP/1.0\" 200 1",
         TRACE_ERR_DATE},
        {"h - - [01/Jul/1995:00:00:01 -0400] GET / HTTP/1.0 200 1",
         TRACE_ERR_FIELDS},
        {"h - - [01/Jul/1995:00:00:01 -0400] \"GET / HTTP/1.0\" 2000 1",
         TRACE_ERR_STATUS},
        {"h - - [01/Jul/1995:00:00:01 -0400] \"GET / HTTP/1.0\" 200 1x",
         TRACE_ERR_BYTES},
        {"h - - [01/Jul/1995:00:00:01 -0400] \"GET / HTTP/1.0\" OK 1",
         TRACE_ERR_STATUS},
        {"h - - [01/Jul/1995:00:00:01 -0400] \"GET / HTTP/1.0 200 1",
         TRACE_ERR_FIELDS},
        {"h - - [01/Jul/1995:00:00:01 -0400] \"\" 200 1", TRACE_ERR_REQUEST},
        {"h - - [01/Jul/1995:00:00:01 -0400] \"GET\" 200 1", TRACE_ERR_REQUEST},
        {"h - - [01/Jul/1995:00:00:01 -0400] \"GET / HTTP/1.0\" 200 "
         "99999999999999999999999",
         TRACE_ERR_BYTES},
    };
    size_t i;
    int    rc;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rc = parse(cases[i].line);
        if (rc != cases[i].err) {
            fprintf(stderr, "case %zu: %s, want %s\n", i, trace_err_str(rc),
                    trace_err_str(cases[i].err));
        }
        CHECK_INT(rc, cases[i].err);
    }
}

/* the whole real sample, against figures computed independently (a
 * Python regular expression over the same file) */
static void
test_nasa_sample(void)
{
    FILE    *f = fopen(SAMPLE, "rb");
    char     line[4096];
    int      n = 0, bad = 0, ok200 = 0, gets = 0, dash = 0;
    uint64_t bytes = 0;

    CHECK(f != NULL);
    if (f == NULL) {
        fprintf(stderr,
                "%s is missing (shared/ must be beside the "
                "checkout)\n",
                SAMPLE);
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        size_t len = strcspn(line, "\n");

        n++;
        if (trace_clf_parse(line, len, &r) != TRACE_OK) {
            bad++;
            continue;
        }
        bytes += r.bytes;
        ok200 += r.status == 200;
        gets += r.method == TRACE_GET;
        dash += !r.bytes_known;
    }
    fclose(f);
    CHECK_INT(n, 1000);
    CHECK_INT(bad, 0);
    CHECK_INT(bytes, 19928140);
    CHECK_INT(ok200, 873);
    CHECK_INT(gets, 1000);
    CHECK_INT(dash, 18);
}

int
main(void)
{
    RUN(test_real_lines);
    RUN(test_combined);
    RUN(test_oddities);
    RUN(test_broken);
    RUN(test_nasa_sample);
    return harness_report("test_trace_clf");
}
