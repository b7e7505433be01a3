/*
 * Log files opened by path, one line at a time or kept in a cache
 * (logcache.h).  The cache is a short list searched from its most
 * recently written end: max is small (nginx's examples use tens).
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/logcache.h"

typedef struct entry_s {
    struct entry_s *prev, *next; /* by last write: the newest first */
    char           *path;
    int             fd;      /* -1: not kept open (yet) */
    int             uses;    /* writes while it was in the cache */
    long            used_ms; /* the last write */
    long            open_ms; /* when fd was opened */
} entry_t;

struct log_fcache_s {
    pthread_mutex_t lock;
    int             max, min_uses, n;
    long            inactive_ms, valid_ms;
    entry_t        *newest, *oldest;
};

log_fcache_t *
log_fcache_new(int max, long inactive_ms, long valid_ms, int min_uses)
{
    log_fcache_t *fc = calloc(1, sizeof(*fc));

    if (fc == NULL || pthread_mutex_init(&fc->lock, NULL) != 0) {
        free(fc);
        return NULL;
    }
    fc->max = max;
    fc->inactive_ms = inactive_ms;
    fc->valid_ms = valid_ms;
    fc->min_uses = min_uses;
    return fc;
}

static void
unlink_entry(log_fcache_t *fc, entry_t *e)
{
    *(e->prev != NULL ? &e->prev->next : &fc->newest) = e->next;
    *(e->next != NULL ? &e->next->prev : &fc->oldest) = e->prev;
}

static void
drop(log_fcache_t *fc, entry_t *e)
{
    unlink_entry(fc, e);
    if (e->fd != -1) {
        close(e->fd);
    }
    free(e->path);
    free(e);
    fc->n--;
}

void
log_fcache_free(void *p)
{
    log_fcache_t *fc = p;

    if (fc == NULL) {
        return;
    }
    while (fc->newest != NULL) {
        drop(fc, fc->newest);
    }
    pthread_mutex_destroy(&fc->lock);
    free(fc);
}

static int
open_log(const char *path)
{
    return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

static int
write_all(int fd, const char *line, size_t len)
{
    ssize_t n = write(fd, line, len); /* O_APPEND: one write, one line */

    return n == (ssize_t) len ? 0 : -1;
}

/* the entry of path, made the newest (a new one, evicting the oldest
 * when full); NULL when out of memory */
static entry_t *
lookup(log_fcache_t *fc, const char *path, long now_ms)
{
    entry_t *e;

    while (fc->oldest != NULL
           && now_ms - fc->oldest->used_ms > fc->inactive_ms) {
        drop(fc, fc->oldest);
    }
    for (e = fc->newest; e != NULL; e = e->next) {
        if (strcmp(e->path, path) == 0) {
            unlink_entry(fc, e);
            break;
        }
    }
    if (e == NULL) {
        if (fc->n >= fc->max && fc->oldest != NULL) {
            drop(fc, fc->oldest);
        }
        if ((e = calloc(1, sizeof(*e))) == NULL
            || (e->path = strdup(path)) == NULL) {
            free(e);
            return NULL;
        }
        e->fd = -1;
        fc->n++;
    }
    e->prev = NULL;
    e->next = fc->newest;
    *(fc->newest != NULL ? &fc->newest->prev : &fc->oldest) = e;
    fc->newest = e;
    e->used_ms = now_ms;
    return e;
}

int
log_path_write(log_fcache_t *fc, const char *path, const char *line, size_t len,
               long now_ms)
{
    entry_t *e;
    int      fd, rc, err;

    if (fc == NULL) {
        if ((fd = open_log(path)) == -1) {
            return -1;
        }
        rc = write_all(fd, line, len);
        err = errno;
        close(fd);
        errno = err;
        return rc;
    }
    pthread_mutex_lock(&fc->lock);
    e = lookup(fc, path, now_ms);
    if (e != NULL && e->fd != -1 && now_ms - e->open_ms > fc->valid_ms) {
        close(e->fd); /* open again: the file may have been renamed */
        e->fd = -1;
    }
    fd = e != NULL && e->fd != -1 ? e->fd : open_log(path);
    if (fd == -1) {
        err = errno;
        if (e != NULL && e->uses == 0) {
            drop(fc, e); /* nothing to count for a file that is not there */
        }
        pthread_mutex_unlock(&fc->lock);
        errno = err;
        return -1;
    }
    rc = write_all(fd, line, len);
    err = errno;
    if (e != NULL && e->fd == -1 && ++e->uses >= fc->min_uses) {
        e->fd = fd; /* kept from now on */
        e->open_ms = now_ms;
    } else if (e == NULL || e->fd != fd) {
        close(fd);
    }
    pthread_mutex_unlock(&fc->lock);
    errno = err;
    return rc;
}
