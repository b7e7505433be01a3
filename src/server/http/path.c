/*
 * Path decoding and normalisation.
 *
 * Decoding comes first, then dot-segment removal, so "%2e%2e" is a ".."
 * segment like any other and cannot climb above the root.  An encoded
 * slash is refused rather than decoded: "a%2Fb" names no file under a
 * Linux root and decoding it would let a segment hide a separator.
 */

#include "util/urlpath.h"
#include "server/http/path.h"

int
nicd_path_normalize(const char *in, size_t len, char *out, size_t *outlen,
                    int merge_slashes)
{
    if (len == 0) {
        out[0] = '/';
        out[1] = '\0';
        *outlen = 1;
        return 0;
    }
    /* the rule the trace tools name files by (util/urlpath.c) */
    return nicache_urlpath(in, len, out, outlen,
                           merge_slashes ? 0 : NICACHE_URLPATH_KEEP_SLASHES)
                   == 0
               ? 0
               : 400;
}

size_t
nicd_path_escape(const char *s, size_t len, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i, o = 0;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'
            || c == '~' || c == '/') {
            out[o++] = (char) c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return o;
}

size_t
nicd_html_escape(const char *s, size_t len, char *out)
{
    size_t i, o = 0, k;

    for (i = 0; i < len; i++) {
        const char *rep = 0;

        switch (s[i]) {
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '&': rep = "&amp;"; break;
        case '"': rep = "&quot;"; break;
        default: out[o++] = s[i]; continue;
        }
        for (k = 0; rep[k] != '\0'; k++) {
            out[o++] = rep[k];
        }
    }
    out[o] = '\0';
    return o;
}
