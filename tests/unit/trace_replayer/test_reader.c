/* Unit tests of trace_replayer/reader.c */

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../trace_replayer/reader.c"
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
    CHECK_STR(err, "unknown trace format \"apache\" (clf, combined, wc98, "
                   "nic)");
    CHECK_INT(count(WC98, "wc98", "/nonexistent", NULL, NULL), -1);
    CHECK_STR(err, "/nonexistent: cannot open");
}

int
main(void)
{
    RUN(test_samples_auto);
    RUN(test_wc98_urls);
    RUN(test_bad_lines_kept);
    RUN(test_stdin_and_errors);
    return harness_report("test_reader");
}
