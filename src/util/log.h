/*
 * Error log and access log.
 *
 * log_error(level, err, fmt, ...) is the one logging call: it writes one
 * line "YYYY/MM/DD HH:MM:SS [level] tid#N: message[: strerror(err)]" with a
 * single write(2), so lines from several threads never interleave.
 */

#ifndef NICD_LOG_H
#define NICD_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum {
    LOG_EMERG = 0,
    LOG_ALERT,
    LOG_CRIT,
    LOG_ERR,
    LOG_WARN,
    LOG_NOTICE,
    LOG_INFO,
    LOG_DEBUG
};

/* Level by name ("error", "warn", ...); -1 if unknown. */
int log_level_parse(const char *name);

/*
 * Point the error log at path (NULL: stderr) with the given level.
 * The descriptor number stays the same across calls (dup2), so threads
 * writing concurrently never see a closed descriptor.  Returns 0, or -1
 * with errno.
 */
int log_error_open(const char *path, int level);
int log_error_reopen(void);
/* 1 when the error log is a file, not the terminal's stderr */
int log_error_to_file(void);

/*
 * log_error() tests the level where it is called, as nginx's
 * ngx_log_error() does, so a line below the level costs a compare and no
 * call; the line itself is written by log_error_line(), which is cold: the
 * compiler moves the paths to it out of the way of the code that runs.
 * The level is this thread's sinks' (log_error_to), or the error log's
 * when it has none (LOG_LEVEL_OF_LOG).
 */
#define LOG_LEVEL_OF_LOG (-2)
extern int          log_level_of_log;
extern __thread int log_level_of_thread;

static inline int
log_wants(int level)
{
    int l = log_level_of_thread;

    return level <= (l == LOG_LEVEL_OF_LOG ? log_level_of_log : l);
}

#define log_error(level, err, ...)                                             \
    (log_wants(level) ? log_error_line((level), (err), __VA_ARGS__) : (void) 0)
void log_error_line(int level, int err, const char *fmt, ...)
    __attribute__((cold, format(printf, 3, 4)));

/*
 * Logs of a part of the configuration (nginx's error_log in a server or
 * a location): a thread answering a request there sends its lines to
 * those sinks, each taking the lines at its level or above, instead of
 * the error log.  A path ("stderr": the process's stderr) is opened once
 * for the process, by log_sink_open() or at its first line, and
 * reopened with the error log (log_error_reopen).
 */
typedef struct {
    const char *path;
    int         level;
} log_sink_t;

/* the descriptor of path's sink, opened the first time: -1 with errno */
int log_sink_open(const char *path);
/* this thread's lines to sinks (n of them) from now on; NULL: the error
 * log again */
void log_error_to(const log_sink_t *sinks, int n);

/*
 * One line a second about one condition (a thread's own limiter): the
 * lines held back in between are counted, and the next line that is
 * written says how many ("... (41 more like it not logged)").
 */
typedef struct {
    long     last_ms; /* when the last line was written; 0: never */
    unsigned held;
} log_limit_t;

void log_error_limited(log_limit_t *l, long now_ms, int level, int err,
                       const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#ifdef NICD_DEBUG
#define log_debug(...) log_error(LOG_DEBUG, 0, __VA_ARGS__)
#else
#define log_debug(...) ((void) 0)
#endif

/* Assertions record file and line and never compile to nothing. */
#define nicd_assert(e)                                                         \
    ((e) ? (void) 0 : nicd_assert_fail(#e, __FILE__, __LINE__))
void nicd_assert_fail(const char *expr, const char *file, int line)
    __attribute__((noreturn));

/*
 * Access logs are shared, by path, across configuration generations; each
 * worker thread buffers lines and writes them whole.
 */
typedef struct nicd_logfile_s nicd_logfile_t;

/* Open (or share the already open) access log at path; NULL on error. */
nicd_logfile_t *log_access_open(const char *path);
/* Reopen every access log (SIGUSR1). */
void log_access_reopen_all(void);

/* A per-thread access log buffer; gzip 1..9: each flush is written as
 * one gzip member of that level (access_log ... gzip, as nginx's: zcat
 * reads the members as one file). */
typedef struct {
    nicd_logfile_t *file;
    char           *buf;
    size_t          len;
    size_t          size;
    int             gzip;
} nicd_logbuf_t;

int  log_buf_init(nicd_logbuf_t *b, nicd_logfile_t *file, size_t size);
void log_buf_free(nicd_logbuf_t *b);
/* Append one whole line; flushes first when it would not fit. */
void log_buf_write(nicd_logbuf_t *b, const char *line, size_t len);
void log_buf_flush(nicd_logbuf_t *b);

/*
 * An access log record is rendered when its response starts (the
 * http/log_format module); what is known only once it has gone is a
 * marker, NICD_LOG_MARK and a letter: 's' the status, 'b' body bytes,
 * 'B' bytes sent, 't' the request time.  Append rec (len bytes) to out
 * with them filled in.
 */
#define NICD_LOG_MARK 0x01
void nicd_log_fill(nicd_buf_t *out, const char *rec, size_t len, int status,
                   uint64_t body_bytes, uint64_t bytes, double request_time);

#endif /* NICD_LOG_H */
