/*
 * The one path rule of the server and the trace tools: how a request's
 * path becomes the name of a file under a root.  Percent-decoding and
 * dot-segment removal (RFC 3986, 5.2.4), empty segments ("//") merged,
 * with the refusals that keep a name inside the root.  nicd opens what it
 * gives (http/path.c); nictrace docroot writes, nicsim and nicreplay name
 * files by it (trace_replayer/lib/models/files.c), so a docroot made from a trace
 * holds the files nicd will look up for the same requests.
 */

#ifndef NICACHE_URLPATH_H
#define NICACHE_URLPATH_H

#include <stddef.h>

/*
 * Decode the path in[0..len) into out (room for len + 1 bytes), which
 * starts with '/', keeps a trailing '/' and is NUL-terminated; *outlen
 * its length.  flags: NICACHE_URLPATH_REFUSE_DOTS, a "." or ".." segment
 * is refused rather than resolved (a tool that must never write through
 * one); NICACHE_URLPATH_KEEP_SLASHES, empty segments are kept (nginx's
 * merge_slashes off: "/a//../b" is "/a/b").
 *
 * Returns 0, or -1 for: no leading '/', a bad escape, an encoded '/' or
 * NUL, a NUL byte, ".." above the root (or any dot segment, with
 * refuse_dots).
 */
#define NICACHE_URLPATH_REFUSE_DOTS  1
#define NICACHE_URLPATH_KEEP_SLASHES 2
int nicache_urlpath(const char *in, size_t len, char *out, size_t *outlen,
                    int flags);

#endif /* NICACHE_URLPATH_H */
