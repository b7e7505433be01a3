/* Unit tests of trace_replayer/lib/formats/reader.c */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/formats/reader.c"
#include "harness.h"

#define NASA    "../shared/traces/nasa/NASA_access_log_Jul95.first1000"
#define NASA10K "../shared/traces/nasa/NASA_access_log_Jul95.first10k.clf.gz"
#define WC98    "../shared/traces/worldcup98/test_log.gz"
#define WC98MAP "../shared/traces/worldcup98/object_mappings.sort.gz"

static char err[512];

/* count records of path; -1 when it cannot be opened */
static long
count(const char *path, const char *format, const char *map, const char **fmt,
      uint64_t *bad)
{
    trace_reader_t *t = trace_open(path, format, map, err, sizeof(err));
    trace_req_t     r;
    long            n = 0;
    int             rc;

    if (t == NULL) {
        return -1;
    }
    while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
        n++;
    }
    if (fmt != NULL) {
        *fmt = trace_format(t);
    }
    if (bad != NULL) {
        *bad = trace_bad_count(t);
    }
    trace_close(t);
    return rc == 0 ? n : -2;
}

static void
test_samples_auto(void)
{
    const char *fmt;
    uint64_t    bad;

    CHECK_INT(count(NASA, "auto", NULL, &fmt, &bad), 1000);
    CHECK_STR(fmt, "clf");
    CHECK_INT(bad, 0);
    CHECK_INT(count(NASA10K, "auto", NULL, &fmt, &bad), 9999);
    CHECK_STR(fmt, "clf");
    CHECK_INT(count(WC98, "auto", NULL, &fmt, &bad), 1000);
    CHECK_STR(fmt, "wc98");
    CHECK_INT(count(WC98, "wc98", WC98MAP, NULL, NULL), 1000);
}

static void
test_wc98_urls(void)
{
    trace_reader_t *t = trace_open(WC98, "auto", WC98MAP, err, sizeof(err));
    trace_req_t     r;

    CHECK(t != NULL);
    if (t == NULL) {
        return;
    }
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 1);
    CHECK(r.url_len == 17 && memcmp(r.url, "/images/hm_bg.jpg", 17) == 0);
    trace_close(t);
    t = trace_open(WC98, "auto", NULL, err, sizeof(err));
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 1);
    CHECK(r.url_len == 12 && memcmp(r.url, "/object/3208", 12) == 0);
    trace_close(t);
}

static const char *
temp_file(const char *text, size_t len)
{
    static char path[64];
    int         fd;

    snprintf(path, sizeof(path), "/tmp/trace-XXXXXX");
    fd = mkstemp(path);
    if (write(fd, text, len) != (ssize_t) len) {
        perror("write");
    }
    close(fd);
    return path;
}

static void
test_bad_lines_kept(void)
{
    static char text[20000];
    const char *good = "h - - [01/Jul/1995:00:00:01 -0400] \"GET /a "
                       "HTTP/1.0\" 200 1\n";
    const char *path;
    size_t      n = 0;
    int         i, kept;

    for (i = 1; i <= 30; i++) {
        n += (size_t) snprintf(text + n, sizeof(text) - n, "%s",
                               i % 3 == 0 ? "broken line\n" : good);
    }
    /* a line far longer than the first buffer, and no final newline */
    n += (size_t) snprintf(text + n, sizeof(text) - n,
                           "h - - [01/Jul/1995:00:00:01 -0400] \"GET /%09000d "
                           "HTTP/1.0\" 200 1",
                           0);
    path = temp_file(text, n);

    trace_reader_t    *t = trace_open(path, "clf", NULL, err, sizeof(err));
    trace_req_t        r;
    const trace_bad_t *b;
    long               ok = 0;
    size_t             last_len = 0;

    while (trace_next(t, &r, err, sizeof(err)) == 1) {
        ok++;
        last_len = r.url_len;
    }
    CHECK_INT(ok, 21);
    CHECK_INT(last_len, 9001);
    CHECK_INT(trace_bad_count(t), 10);
    b = trace_bad_first(t, &kept);
    CHECK_INT(kept, 10);
    CHECK_INT(b[0].line, 3);
    CHECK_INT(b[9].line, 30);
    CHECK_INT(b[0].err, TRACE_ERR_FIELDS);
    trace_close(t);
    unlink(path);
}

static void
test_stdin_and_errors(void)
{
    int saved = dup(0), fd = open(NASA, O_RDONLY);

    dup2(fd, 0);
    close(fd);
    CHECK_INT(count("-", "clf", NULL, NULL, NULL), 1000);
    dup2(saved, 0);
    close(saved);

    CHECK_INT(count("/nonexistent", "auto", NULL, NULL, NULL), -1);
    CHECK_STR(err, "/nonexistent: cannot open");
    CHECK_INT(count(NASA, "apache", NULL, NULL, NULL), -1);
    CHECK_STR(err, "unknown trace format \"apache\" (combined, common, json, "
                   "wc98, nic, oracle, lcs-csv, or an nginx log_format "
                   "string with $)");
    CHECK_INT(count(WC98, "wc98", "/nonexistent", NULL, NULL), -1);
    CHECK_STR(err, "/nonexistent: cannot open");
}

/* write text to a temporary file; its name in path */
static void
tmpfile_with(char *path, const char *text)
{
    int fd;

    strcpy(path, "/tmp/test_reader.XXXXXX");
    fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_INT(write(fd, text, strlen(text)), (long) strlen(text));
    close(fd);
}

/* lines out of time order come out sorted within the window; a line
 * later than the window is clamped and counted */
static void
test_time_order(void)
{
    char            path[64];
    trace_reader_t *t;
    trace_req_t     r;
    int64_t         want[] = {0, 1, 3, 5, 60, 60, 300};
    const char     *want_url[] = {"/a", "/b", "/c", "/d", "/e", "/late", "/f"};
    int             i;

    tmpfile_with(path,
                 "h - - [01/Jan/1970:00:00:03 +0000] \"GET /c\" 200 1\n"
                 "h - - [01/Jan/1970:00:00:01 +0000] \"GET /b\" 200 1\n"
                 "h - - [01/Jan/1970:00:00:05 +0000] \"GET /d\" 200 1\n"
                 "h - - [01/Jan/1970:00:00:00 +0000] \"GET /a\" 200 1\n"
                 "h - - [01/Jan/1970:00:01:00 +0000] \"GET /e\" 200 1\n"
                 "h - - [01/Jan/1970:00:05:00 +0000] \"GET /f\" 200 1\n"
                 "h - - [01/Jan/1970:00:00:02 +0000] \"GET /late\" 200 1\n");
    t = trace_open(path, "auto", NULL, err, sizeof(err));
    CHECK(t != NULL);
    trace_set_window(t, 10);
    for (i = 0; i < 7; i++) {
        CHECK_INT(trace_next(t, &r, err, sizeof(err)), 1);
        CHECK_INT(r.time, want[i]);
        CHECK_INT((long) r.url_len, (long) strlen(want_url[i]));
        CHECK(memcmp(r.url, want_url[i], r.url_len) == 0);
    }
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 0);
    /* /late was 298 s behind /f: clamped to the last time handed out */
    CHECK_INT(trace_late_count(t), 1);
    trace_close(t);

    /* window 0: the log's order, times never going back */
    t = trace_open(path, "auto", NULL, err, sizeof(err));
    trace_set_window(t, 0);
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 1);
    CHECK_INT(r.time, 3);
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 1);
    CHECK_INT(r.time, 3);
    trace_close(t);
    unlink(path);
}

static void
test_log_format_and_json(void)
{
    char            path[64];
    trace_reader_t *t;
    trace_req_t     r;

    tmpfile_with(path, "9.9.9.9 [01/Mar/2015:12:00:05 +0100] "
                       "\"GET /a\\x22b?q=1 HTTP/1.1\" 200 5000 \"u\\\"a\" "
                       "0.250\n"
                       "9.9.9.9 [01/Mar/2015:12:00:06 +0100] \"-\" 400 0 "
                       "\"-\" 0.000\n");
    t = trace_open(path,
                   "$remote_addr [$time_local] \"$request\" $status "
                   "$body_bytes_sent \"$http_user_agent\" $request_time",
                   NULL, err, sizeof(err));
    CHECK(t != NULL);
    CHECK_STR(trace_format(t), "log_format");
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 1);
    /* 11:00:05 UTC less the request's 0.25 s */
    CHECK_INT(r.time, 1425207604);
    CHECK_INT(r.usec, 750000);
    CHECK_INT((long) r.url_len, 8);
    CHECK(memcmp(r.url, "/a\"b?q=1", 8) == 0);
    CHECK_INT(r.status, 200);
    CHECK_INT(r.bytes, 5000);
    CHECK_INT(r.has_protocol, 1);
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 0);
    CHECK_INT(trace_bad_count(t), 1); /* "-" is no request */
    trace_close(t);
    unlink(path);

    tmpfile_with(path,
                 "{\"remote_addr\": \"1.2.3.4\", \"msec\": 1425211205.5, "
                 "\"request_method\": \"HEAD\", \"uri\": \"/x\", "
                 "\"args\": \"y=\\u00e9\", \"status\": 200, "
                 "\"body_bytes_sent\": \"-\", \"nested\": {\"a\": 1}}\n"
                 "not json\n");
    t = trace_open(path, "auto", NULL, err, sizeof(err));
    CHECK(t != NULL);
    CHECK_STR(trace_format(t), "json");
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 1);
    CHECK_INT(r.time, 1425211205);
    CHECK_INT(r.usec, 500000);
    CHECK_INT(r.method, TRACE_HEAD);
    CHECK_INT((long) r.url_len, 7);
    CHECK(memcmp(r.url, "/x?y=\xc3\xa9", 7) == 0);
    CHECK_INT(r.bytes_known, 0);
    CHECK_INT(trace_next(t, &r, err, sizeof(err)), 0);
    CHECK_INT(trace_bad_count(t), 1);
    trace_close(t);
    unlink(path);

    CHECK(trace_open(NASA, "$remote_addr $status", NULL, err, sizeof(err))
          == NULL);
    CHECK_STR(err, "log format: no time ($time_local, $time_iso8601, $msec or "
              "${time LAYOUT})");
    CHECK(trace_open(NASA, "$msec$status $request", NULL, err, sizeof(err))
          == NULL);
}

int
main(void)
{
    RUN(test_samples_auto);
    RUN(test_wc98_urls);
    RUN(test_bad_lines_kept);
    RUN(test_stdin_and_errors);
    RUN(test_time_order);
    RUN(test_log_format_and_json);
    return harness_report("test_reader");
}
