/*
 * The objects of a trace and where a docroot keeps them: the one mapping
 * nictrace docroot writes, nicreplay replays through and nicsim counts.
 *
 * An object is what a logged request target names on the original site:
 * its path as a server looks it up (percent-decoded, dot segments
 * resolved, index.html after a trailing "/") and its query, so
 * "/tags/x?flav=rss20" and "/tags/x" are two objects.  Its key is that
 * decoded path, then "?" and the raw query when there is one; a target
 * that names no path (absolute form, a bad escape, an encoded "/" or NUL,
 * above the root) keys as "\x01" followed by the raw target.
 *
 * From what the log answered each object, the docroot gets:
 *   file      (a 2xx or a 304 was logged): a regular file of the largest
 *             2xx byte count, empty for "-" or 304 only;
 *   redirect  (a 3xx other than 304, no 2xx): a directory, asked for
 *             without its trailing "/" so that any server answers 301;
 *   missing   (404 or any other status): nothing, so servers answer 404.
 * The name is the object's own (natural: requests are sent as logged)
 * unless it cannot be: a query, a name some other file needs as a
 * directory, an unsafe or over-long name, a clash.  Then the object gets
 * a name of its own ("name?query" with "/" and "%" escaped in the query,
 * or /.nic/{f,r,m}/HASH), and the manifest gives the URL to send instead.
 */

#ifndef TRACE_OBJECTS_H
#define TRACE_OBJECTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/formats/trace.h"

#include "lib/models/files.h" /* trace_object_key */

enum {
    TRACE_OBJ_FILE = 'F',
    TRACE_OBJ_REDIRECT = 'R',
    TRACE_OBJ_MISSING = 'M'
};

#define TRACE_MANIFEST_NAME ".nictrace-manifest"

typedef struct {
    int         kind;
    uint64_t    size; /* a file's */
    const char *name; /* from the root, with "/" (NULL when missing) */
    const char *url;  /* to send instead of the target; NULL: as logged */
    const char *key;
    size_t      key_len;
} trace_obj_t;

/* What the log answered, in GET and HEAD requests, and what the docroot
 * will answer. */
typedef struct {
    uint64_t objects, files, redirects, missing, renamed;
    uint64_t bytes;          /* the files' sizes */
    uint64_t log_2xx;        /* requests the log answered 2xx */
    uint64_t answerable_2xx; /* ... whose object is a file */
    uint64_t log_3xx, log_304, log_404, log_other;
    uint64_t stays_404;     /* 404s whose object is missing */
    uint64_t stays_3xx;     /* 3xx (not 304) whose object is a redirect */
    uint64_t other_3xx_404; /* 3xx and 404 on an object that is a file
                               (it also succeeded): answered 2xx */
    uint64_t other_methods; /* records not GET or HEAD: not replayed */
} trace_map_stats_t;

typedef struct trace_map_s trace_map_t;

trace_map_t *trace_map_new(void);
void         trace_map_free(trace_map_t *m);

/* Account a record (0, or -1: out of memory). */
int trace_map_add(trace_map_t *m, const trace_req_t *r);

/* Name every object (after the last add; 0, or -1: out of memory). */
int trace_map_decide(trace_map_t *m);

const trace_map_stats_t *trace_map_stats(const trace_map_t *m);

uint32_t trace_map_count(const trace_map_t *m);
void     trace_map_get(const trace_map_t *m, uint32_t id, trace_obj_t *o);

/* The object of target url: 0 with *o, or -1 when the map has none. */
int trace_map_find(trace_map_t *m, const char *url, size_t len, trace_obj_t *o);

/* The manifest: write it (0, or -1 with errno), read one back (NULL with
 * err set: unreadable, or not a manifest). */
int          trace_map_write(const trace_map_t *m, FILE *f, const char *trace);
trace_map_t *trace_map_read(const char *path, char *err, size_t errlen);

#endif /* TRACE_OBJECTS_H */
