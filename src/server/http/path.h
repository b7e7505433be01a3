/*
 * Request paths: percent-decoding and dot-segment removal (RFC 3986,
 * 5.2.4), with the rejections that keep a request inside the root.
 */

#ifndef NICD_PATH_H
#define NICD_PATH_H

#include <stddef.h>

/*
 * Decode the request path in[0..len) into out (room for len + 2 bytes) and
 * remove its dot segments; empty segments ("//") are merged unless
 * merge_slashes is 0 (nginx's merge_slashes off).  The result
 * starts with '/', keeps a trailing '/', and is NUL-terminated.
 *
 * Returns 0, or 400 for: a bad escape, an encoded NUL or '/', a path that
 * does not start with '/', or ".." above the root.
 */
int nicd_path_normalize(const char *in, size_t len, char *out, size_t *outlen,
                        int merge_slashes);

/* Append s percent-encoded for use in a URL path to out (room 3*len+1). */
size_t nicd_path_escape(const char *s, size_t len, char *out);

/* Escape s for HTML text and double-quoted attributes into out (room
 * 6*len+1): <, >, & and " as nginx's ngx_escape_html (an apostrophe stays). */
size_t nicd_html_escape(const char *s, size_t len, char *out);

#endif /* NICD_PATH_H */
