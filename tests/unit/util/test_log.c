/* Unit tests of src/util/log.c */

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/log.c"
#include "harness.h"

static size_t
slurp(const char *path, char *buf, size_t cap)
{
    int     fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? 0 : read(fd, buf, cap - 1);

    if (fd >= 0) {
        close(fd);
    }
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? (size_t) n : 0;
}

static void
test_levels(void)
{
    CHECK_INT(log_level_parse("error"), LOG_ERR);
    CHECK_INT(log_level_parse("debug"), LOG_DEBUG);
    CHECK_INT(log_level_parse("loud"), -1);
}

/* error lines are whole, filtered by level, and survive a reopen */
static void
test_error_log_and_reopen(void)
{
    char path[] = "/tmp/nicd-log-XXXXXX", moved[64], buf[4096];
    int  fd = mkstemp(path);

    close(fd);
    CHECK_INT(log_error_open(path, LOG_WARN), 0);
    log_error(LOG_ERR, ENOENT, "open() \"%s\" failed", "/x");
    log_error(LOG_INFO, 0, "not shown");
    slurp(path, buf, sizeof(buf));
    CHECK(strstr(buf, "[error]") != NULL);
    CHECK(strstr(buf, "open() \"/x\" failed (2: No such file or directory)\n")
          != NULL);
    CHECK(strstr(buf, "not shown") == NULL);

    snprintf(moved, sizeof(moved), "%s.1", path);
    CHECK_INT(rename(path, moved), 0);
    CHECK_INT(log_error_reopen(), 0);
    log_error(LOG_WARN, 0, "after reopen");
    slurp(path, buf, sizeof(buf));
    CHECK(strstr(buf, "after reopen") != NULL);
    log_error_open(NULL, LOG_NOTICE);
    unlink(path);
    unlink(moved);
}

/* a thread's sinks take its lines, each at its level, twice where two
 * name one file; without them the error log does */
static void
test_sinks(void)
{
    char       path[] = "/tmp/nicd-sink-XXXXXX", main[] = "/tmp/nicd-main-XXXXXX";
    char       buf[4096];
    log_sink_t s[3];
    int        fd = mkstemp(path), fd2 = mkstemp(main);

    close(fd);
    close(fd2);
    CHECK_INT(log_error_open(main, LOG_NOTICE), 0);
    s[0].path = path;
    s[0].level = LOG_ERR;
    s[1].path = path;
    s[1].level = LOG_INFO;
    s[2].path = "stderr";
    s[2].level = LOG_EMERG;
    CHECK(log_sink_open(path) >= 0 && log_sink_open(path) == log_sink_open(path));
    log_error_to(s, 2);
    log_error(LOG_ERR, 0, "both take it");
    log_error(LOG_INFO, 0, "one takes it");
    log_error(LOG_DEBUG, 0, "none takes it");
    log_error_to(NULL, 0);
    log_error(LOG_NOTICE, 0, "the error log's");
    slurp(path, buf, sizeof(buf));
    CHECK(strstr(buf, "both take it\n") != NULL
          && strstr(strstr(buf, "both take it\n") + 1, "both take it\n")
                 != NULL);
    CHECK(strstr(buf, "one takes it") != NULL
          && strstr(strstr(buf, "one takes it") + 1, "one takes it") == NULL);
    CHECK(strstr(buf, "none takes it") == NULL);
    CHECK(strstr(buf, "the error log's") == NULL);
    slurp(main, buf, sizeof(buf));
    CHECK(strstr(buf, "the error log's") != NULL
          && strstr(buf, "take it") == NULL);
    log_error_open(NULL, LOG_NOTICE);
    unlink(path);
    unlink(main);
}

/* the level is tested where log_error() is called: a line below it
 * costs no call, its arguments are not even computed; the thread's
 * sinks' level stands in for the error log's while they are set */
static void
test_level_at_the_call(void)
{
    char       path[] = "/tmp/nicd-lvl-XXXXXX";
    log_sink_t s = {NULL, LOG_INFO};
    int        fd = mkstemp(path), made = 0;

    close(fd);
    s.path = path;
    CHECK_INT(log_error_open(path, LOG_WARN), 0);
    log_error(LOG_INFO, 0, "%d", ++made);
    CHECK_INT(made, 0);
    CHECK(!log_wants(LOG_NOTICE) && log_wants(LOG_WARN));
    log_error(LOG_WARN, 0, "%d", ++made);
    CHECK_INT(made, 1);
    log_error_to(&s, 1);
    CHECK(log_wants(LOG_INFO) && !log_wants(LOG_DEBUG));
    log_error(LOG_INFO, 0, "%d", ++made);
    CHECK_INT(made, 2);
    log_error_to(NULL, 0);
    CHECK(!log_wants(LOG_INFO) && log_level_of_thread == LOG_LEVEL_OF_LOG);
    log_error_open(NULL, LOG_NOTICE);
    unlink(path);
}

static void
test_access_buffer(void)
{
    char            path[] = "/tmp/nicd-acc-XXXXXX", buf[8192];
    nicd_logfile_t *lf;
    nicd_logbuf_t   b;
    int             fd = mkstemp(path), i;

    close(fd);
    lf = log_access_open(path);
    CHECK(lf != NULL);
    CHECK(log_access_open(path) == lf); /* shared by path */
    CHECK_INT(log_buf_init(&b, lf, 512), 0);
    log_buf_write(&b, "line one\n", 9);
    CHECK_INT(slurp(path, buf, sizeof(buf)), 0); /* still buffered */
    for (i = 0; i < 100; i++) {
        log_buf_write(&b, "0123456789\n", 11);
    }
    CHECK(slurp(path, buf, sizeof(buf)) > 0); /* flushed when full */
    log_buf_free(&b);
    CHECK_INT(slurp(path, buf, sizeof(buf)), 9 + 1100);
    CHECK(strncmp(buf, "line one\n0123456789\n", 20) == 0);
    unlink(path);
}

int
main(void)
{
    RUN(test_levels);
    RUN(test_error_log_and_reopen);
    RUN(test_level_at_the_call);
    RUN(test_sinks);
    RUN(test_access_buffer);
    return harness_report("test_log");
}
