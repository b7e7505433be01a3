/*
 * The files of a trace: each object (objects.h: the decoded path and the
 * query) with the largest successful transfer seen for it.  "Successful" is
 * status 200 or 206 with a byte count above zero, the rule nictrace
 * docroot, nictrace stats and nicsim share: that count is the least the
 * file must hold for the logged response to have been possible.
 */

#ifndef TRACE_FILES_H
#define TRACE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/formats/trace.h"

typedef struct trace_files_s trace_files_t;

trace_files_t *trace_files_new(void);
void           trace_files_free(trace_files_t *f);

/*
 * The key of target url into out (room for len + 16); its length: the
 * file name the path rule gives (trace_file_name), with the query, or the
 * target as it was when the rule refuses it.  Objects are known by it
 * (objects.h).
 */
size_t trace_object_key(const char *url, size_t len, char *out);

/* The path of a request target: up to '?' (or the end). */
size_t trace_path_len(const char *url, size_t len);

/*
 * The file a URL path names, as nicd looks it up, from the root and with
 * a leading '/': percent-decoded, "//" merged, a trailing "/" naming its
 * index.html; "." and ".." segments resolved when resolve_dots (as a
 * server does) or refused when not (as nictrace docroot does, so that it
 * never writes through one).  Refused (0): no leading "/", a bad escape,
 * an encoded "/" or NUL, ".." above the root.  out holds len + 12 bytes.
 * Returns the name's length.
 */
size_t trace_file_name(const char *url, size_t len, char *out,
                       int resolve_dots);

/* Account r: a successful transfer raises its file's size.  0 or -1
 * (out of memory). */
int trace_files_add(trace_files_t *f, const trace_req_t *r);

/* trace_files_add() for a caller that remembers its URLs by number (the
 * compact format's url_id): *id UINT32_MAX on entry decodes and looks up
 * the URL, and, when r counts, leaves its file's id there; any other *id
 * is that file's, from an earlier call for the same URL, and nothing is
 * decoded or hashed.  0 or -1 (out of memory). */
int trace_files_add_as(trace_files_t *f, const trace_req_t *r, uint32_t *id);

/* The same for object key k of n bytes (trace_object_key's, as
 * trace_files_each walks them): its size raised to at least bytes, the
 * file added when new.  How tables of several traces are merged. */
int trace_files_raise(trace_files_t *f, const char *k, size_t n,
                      uint64_t bytes);

/*
 * The file of request target url: 0 with its *size and *id (ids count
 * from 0 in the order files were first seen), or -1 when its object had
 * no successful transfer.
 */
int trace_files_find(trace_files_t *f, const char *url, size_t len,
                     uint64_t *size, uint32_t *id);

/* Files seen so far, and the sum of their sizes. */
uint64_t trace_files_count(const trace_files_t *f);
/* The size of the file trace_files_find() gave id. */
uint64_t trace_files_size(const trace_files_t *f, uint32_t id);
uint64_t trace_files_bytes(const trace_files_t *f);

/* Walk every file: fn(path, len, size, arg). */
void trace_files_each(const trace_files_t *f,
                      void (*fn)(const char *path, size_t len, uint64_t size,
                                 void *arg),
                      void *arg);

#endif /* TRACE_FILES_H */
