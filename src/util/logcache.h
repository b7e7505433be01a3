/*
 * Access logs whose path holds variables (nginx's access_log with
 * variables and open_log_file_cache): each line is written to the file
 * its request names, opened for the line, or kept open in a cache.
 */

#ifndef NICACHE_LOGCACHE_H
#define NICACHE_LOGCACHE_H

#include <stddef.h>

/*
 * A cache of open log files, as nginx's open_log_file_cache: at most
 * max files; a file is kept open once it has been written min_uses
 * times while it stayed in the cache; one not written for inactive ms
 * leaves it (the least recently written leaves first when it is full);
 * one open longer than valid ms is opened again (a file renamed away
 * meanwhile is then made anew).  Shared by the threads (a mutex).
 */
typedef struct log_fcache_s log_fcache_t;

log_fcache_t *log_fcache_new(int max, long inactive_ms, long valid_ms,
                             int min_uses);
void          log_fcache_free(void *fc);

/* line (len bytes) appended to the file at path, through fc (NULL:
 * opened and closed for it); now_ms: the caller's clock.  0, or -1 with
 * errno (the file could not be opened or written) */
int log_path_write(log_fcache_t *fc, const char *path, const char *line,
                   size_t len, long now_ms);

#endif /* NICACHE_LOGCACHE_H */
