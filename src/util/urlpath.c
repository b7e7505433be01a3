/*
 * The path rule (urlpath.h), in one pass: o is the output's length, seg
 * where the current segment starts in out (just after its '/').
 */

#include "util/hex.h"
#include "util/urlpath.h"

int
nicache_urlpath(const char *in, size_t len, char *out, size_t *outlen,
                int flags)
{
    int refuse_dots = flags & NICACHE_URLPATH_REFUSE_DOTS;
    int keep = flags & NICACHE_URLPATH_KEEP_SLASHES;

    size_t i, o = 1, seg = 1;
    int    hi, lo;
    char   c;

    if (len == 0 || in[0] != '/') {
        return -1;
    }
    out[0] = '/';
    for (i = 1; i <= len; i++) {
        if (i == len || in[i] == '/') {
            size_t n = o - seg;
            int    dot = n == 1 && out[seg] == '.';
            int    dotdot = n == 2 && out[seg] == '.' && out[seg + 1] == '.';

            if ((dot || dotdot) && refuse_dots) {
                return -1;
            }
            if (dot) {
                o = seg; /* "a/./" is "a/" */
            } else if (dotdot) {
                if (seg == 1) {
                    return -1; /* above the root */
                }
                /* back to the '/' that ends the segment before */
                for (o = seg - 1; o > 1 && out[o - 1] != '/'; o--) {
                }
            } else if ((n > 0 || keep) && i < len) {
                out[o++] = '/';
            }
            /* n == 0: an empty segment ("//"), merged unless kept */
            seg = o;
            continue;
        }
        c = in[i];
        if (c == '%') {
            if (i + 2 >= len || (hi = nicache_hexval(in[i + 1])) < 0
                || (lo = nicache_hexval(in[i + 2])) < 0) {
                return -1;
            }
            c = (char) (hi * 16 + lo);
            if (c == '/' || c == '\0') {
                return -1;
            }
            i += 2;
        } else if (c == '\0') {
            return -1;
        }
        out[o++] = c;
    }
    /* a removed "." or ".." leaves o just after a '/', so a path naming
     * a directory keeps its trailing slash */
    out[o] = '\0';
    *outlen = o;
    return 0;
}
