/*
 * Logging.  Error lines are formatted into a stack buffer and written with
 * one write(2) to a descriptor whose number never changes (reopen uses
 * dup2), so concurrent writers and a concurrent reopen are safe without a
 * lock.
 */

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "util/log.h"

static const char *const level_names[] = {
    "emerg", "alert", "crit", "error", "warn", "notice", "info", "debug",
};

static int   error_fd = -1; /* -1: stderr itself */
static char *error_path;
int          log_level_of_log = LOG_NOTICE;

/* the sinks' files, one descriptor a path for the process */
#define MAX_SINK_FILES 256
static struct {
    char *path; /* NULL: stderr */
    int   fd;
} sink_files[MAX_SINK_FILES];
static int             nsink_files;
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

/* the sinks of the request a thread answers (log_error_to) */
static __thread const log_sink_t *my_sinks;
static __thread int               my_nsinks;
__thread int                      log_level_of_thread = LOG_LEVEL_OF_LOG;

int
log_level_parse(const char *name)
{
    int i;

    for (i = 0; i < (int) (sizeof(level_names) / sizeof(level_names[0])); i++) {
        if (strcmp(level_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

int
log_error_to_file(void)
{
    return error_path != NULL;
}

static int
open_append(const char *path)
{
    return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

int
log_error_open(const char *path, int level)
{
    int fd;

    if (path == NULL || strcmp(path, "stderr") == 0) {
        fd = dup(STDERR_FILENO);
    } else {
        fd = open_append(path);
    }
    if (fd == -1) {
        return -1;
    }

    if (error_fd == -1) {
        error_fd = fd;
    } else {
        dup2(fd, error_fd);
        close(fd);
    }

    free(error_path);
    error_path =
        (path != NULL && strcmp(path, "stderr") != 0) ? strdup(path) : NULL;
    log_level_of_log = level;
    return 0;
}

int
log_sink_open(const char *path)
{
    int i, fd = -1, is_stderr = strcmp(path, "stderr") == 0;

    pthread_mutex_lock(&sink_lock);
    for (i = 0; i < nsink_files; i++) {
        if (is_stderr ? sink_files[i].path == NULL
                      : sink_files[i].path != NULL
                            && strcmp(sink_files[i].path, path) == 0) {
            fd = sink_files[i].fd;
            goto done;
        }
    }
    if (nsink_files == MAX_SINK_FILES) {
        errno = EMFILE;
        goto done;
    }
    fd = is_stderr ? dup(STDERR_FILENO) : open_append(path);
    if (fd != -1) {
        sink_files[nsink_files].path = is_stderr ? NULL : strdup(path);
        sink_files[nsink_files++].fd = fd;
    }
done:
    pthread_mutex_unlock(&sink_lock);
    return fd;
}

void
log_error_to(const log_sink_t *sinks, int n)
{
    int i;

    my_sinks = n > 0 ? sinks : NULL;
    my_nsinks = n;
    log_level_of_thread = n > 0 ? -1 : LOG_LEVEL_OF_LOG;
    for (i = 0; i < n; i++) {
        if (sinks[i].level > log_level_of_thread) {
            log_level_of_thread = sinks[i].level;
        }
    }
}

int
log_error_reopen(void)
{
    int fd, i;

    pthread_mutex_lock(&sink_lock);
    for (i = 0; i < nsink_files; i++) {
        if (sink_files[i].path != NULL
            && (fd = open_append(sink_files[i].path)) != -1) {
            dup2(fd, sink_files[i].fd);
            close(fd);
        }
    }
    pthread_mutex_unlock(&sink_lock);
    if (error_path == NULL) {
        return 0;
    }
    fd = open_append(error_path);
    if (fd == -1) {
        return -1;
    }
    dup2(fd, error_fd);
    close(fd);
    return 0;
}

void
log_error_line(int level, int err, const char *fmt, ...)
{
    char      line[2048];
    size_t    n;
    int       k;
    time_t    now;
    struct tm tm;
    va_list   ap;
    ssize_t   unused;

    if (!log_wants(level)) {
        return;
    }

    now = time(NULL);
    localtime_r(&now, &tm);
    n = strftime(line, sizeof(line), "%Y/%m/%d %H:%M:%S ", &tm);
    k = snprintf(line + n, sizeof(line) - n,
                 "[%s] %ld#%ld: ", level_names[level], (long) getpid(),
                 (long) syscall(SYS_gettid));
    n += (size_t) k;

    va_start(ap, fmt);
    k = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
    va_end(ap);
    n = k < 0 ? n : n + (size_t) k;
    if (n > sizeof(line) - 64) {
        n = sizeof(line) - 64;
    }

    if (err != 0) {
        k = snprintf(line + n, sizeof(line) - n - 1, " (%d: %s)", err,
                     strerror(err));
        n += (size_t) k;
    }
    line[n++] = '\n';

    if (my_sinks != NULL) {
        for (k = 0; k < my_nsinks; k++) {
            int fd = level <= my_sinks[k].level
                         ? log_sink_open(my_sinks[k].path)
                         : -1;

            if (fd != -1) {
                unused = write(fd, line, n);
            }
        }
        return;
    }
    unused = write(error_fd == -1 ? STDERR_FILENO : error_fd, line, n);
    (void) unused;
}

/* the late variables of an access log record, filled in (log.h) */
void
nicd_log_fill(nicd_buf_t *out, const char *rec, size_t len, int status,
              uint64_t body_bytes, uint64_t bytes, double request_time)
{
    const char *p = rec, *end = rec + len, *m;

    while (p < end) {
        m = memchr(p, NICD_LOG_MARK, (size_t) (end - p));
        if (m == NULL || m + 1 >= end) {
            nicd_buf_add(out, p, (size_t) (end - p));
            return;
        }
        nicd_buf_add(out, p, (size_t) (m - p));
        switch (m[1]) {
        case 's': nicd_buf_addf(out, "%d", status); break;
        case 't': nicd_buf_addf(out, "%.3f", request_time); break;
        case 'B': nicd_buf_addf(out, "%" PRIu64, bytes); break;
        default: nicd_buf_addf(out, "%" PRIu64, body_bytes);
        }
        p = m + 2;
    }
}

void
log_error_limited(log_limit_t *l, long now_ms, int level, int err,
                  const char *fmt, ...)
{
    char    msg[1024], more[64] = "";
    va_list ap;

    if (!log_wants(level)) {
        return;
    }
    if (l->last_ms != 0 && now_ms - l->last_ms < 1000) {
        l->held++;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (l->held > 0) {
        snprintf(more, sizeof(more), " (%u more like it not logged)", l->held);
    }
    l->last_ms = now_ms != 0 ? now_ms : 1;
    l->held = 0;
    log_error(level, err, "%s%s", msg, more);
}

void
nicd_assert_fail(const char *expr, const char *file, int line)
{
    log_error(LOG_ALERT, 0, "assertion \"%s\" failed at %s:%d", expr, file,
              line);
    abort();
}

/* access logs */

struct nicd_logfile_s {
    char           *path;
    int             fd;
    nicd_logfile_t *next;
};

static nicd_logfile_t *logfiles;
static pthread_mutex_t logfiles_lock = PTHREAD_MUTEX_INITIALIZER;

nicd_logfile_t *
log_access_open(const char *path)
{
    nicd_logfile_t *lf;

    pthread_mutex_lock(&logfiles_lock);
    for (lf = logfiles; lf != NULL; lf = lf->next) {
        if (strcmp(lf->path, path) == 0) {
            goto done;
        }
    }

    lf = calloc(1, sizeof(*lf));
    if (lf == NULL) {
        goto done;
    }
    lf->path = strdup(path);
    lf->fd = open_append(path);
    if (lf->path == NULL || lf->fd == -1) {
        free(lf->path);
        free(lf);
        lf = NULL;
        goto done;
    }
    lf->next = logfiles;
    logfiles = lf;

done:
    pthread_mutex_unlock(&logfiles_lock);
    return lf;
}

void
log_access_reopen_all(void)
{
    nicd_logfile_t *lf;
    int             fd;

    pthread_mutex_lock(&logfiles_lock);
    for (lf = logfiles; lf != NULL; lf = lf->next) {
        fd = open_append(lf->path);
        if (fd == -1) {
            log_error(LOG_ERR, errno, "open() \"%s\" failed", lf->path);
            continue;
        }
        dup2(fd, lf->fd);
        close(fd);
    }
    pthread_mutex_unlock(&logfiles_lock);
}

int
log_buf_init(nicd_logbuf_t *b, nicd_logfile_t *file, size_t size)
{
    b->file = file;
    b->len = 0;
    b->size = size;
    b->buf = NULL;
    if (file == NULL) {
        return 0;
    }
    b->buf = malloc(size);
    return b->buf == NULL ? -1 : 0;
}

/* b's bytes as one gzip member into *out (malloc'd, *outlen): 0, or -1
 * (then they are written as they are) */
static int
gzip_member(const nicd_logbuf_t *b, char **out, size_t *outlen)
{
    z_stream z;
    uLong    room;
    int      rc;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, b->gzip, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        != Z_OK) {
        return -1;
    }
    room = deflateBound(&z, (uLong) b->len);
    *out = malloc(room);
    if (*out == NULL) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *) b->buf;
    z.avail_in = (uInt) b->len;
    z.next_out = (Bytef *) *out;
    z.avail_out = (uInt) room;
    rc = deflate(&z, Z_FINISH);
    *outlen = room - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(*out);
        return -1;
    }
    return 0;
}

void
log_buf_flush(nicd_logbuf_t *b)
{
    ssize_t n;
    size_t  off = 0, len = b->len;
    char   *data = b->buf, *z = NULL;

    if (b->gzip > 0 && len > 0 && gzip_member(b, &z, &len) == 0) {
        data = z;
    } else {
        len = b->len;
    }
    while (off < len) {
        n = write(b->file->fd, data + off, len - off);
        if (n == -1) {
            if (errno == EINTR) {
                continue;
            }
            log_error(LOG_ERR, errno, "write() to \"%s\" failed",
                      b->file->path);
            break;
        }
        off += (size_t) n;
    }
    free(z);
    b->len = 0;
}

void
log_buf_write(nicd_logbuf_t *b, const char *line, size_t len)
{
    if (b->file == NULL) {
        return;
    }
    if (b->len + len > b->size) {
        log_buf_flush(b);
    }
    if (len > b->size) {
        /* a line longer than the buffer goes alone (a member of its own
         * when compressed) */
        nicd_logbuf_t one = *b;

        one.buf = (char *) line;
        one.len = len;
        log_buf_flush(&one);
        return;
    }
    memcpy(b->buf + b->len, line, len);
    b->len += len;
}

void
log_buf_free(nicd_logbuf_t *b)
{
    if (b->file != NULL && b->len > 0) {
        log_buf_flush(b);
    }
    free(b->buf);
    b->buf = NULL;
}
