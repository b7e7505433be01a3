/*
 * Path decoding and normalisation.
 *
 * Decoding comes first, then dot-segment removal, so "%2e%2e" is a ".."
 * segment like any other and cannot climb above the root.  An encoded
 * slash is refused rather than decoded: "a%2Fb" names no file under a
 * Linux root and decoding it would let a segment hide a separator.
 */

#include "path.h"

static int
hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = (unsigned char) (c | 0x20);
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

int
nicd_path_normalize(const char *in, size_t len, char *out, size_t *outlen)
{
    size_t i, o, seg;
    int    hi, lo;
    char   c;

    if (len == 0) {
        out[0] = '/';
        out[1] = '\0';
        *outlen = 1;
        return 0;
    }
    if (in[0] != '/') {
        return 400;
    }

    /*
     * One pass: o is the output length; seg is where the current segment
     * starts in out (just after its '/').
     */
    out[0] = '/';
    o = 1;
    seg = 1;

    for (i = 1; i <= len; i++) {
        if (i == len || in[i] == '/') {
            size_t n = o - seg;

            if (n == 1 && out[seg] == '.') {
                o = seg; /* "." */
            } else if (n == 2 && out[seg] == '.' && out[seg + 1] == '.') {
                /* "..": drop it and the segment before it */
                if (seg == 1) {
                    return 400;
                }
                o = seg - 1; /* at the '/' ending the previous segment */
                while (o > 0 && out[o - 1] != '/') {
                    o--;
                }
            } else if (n > 0 && i < len) {
                out[o++] = '/';
            }
            /* n == 0: an empty segment ("//"), merged */
            seg = o;
            continue;
        }

        c = in[i];
        if (c == '%') {
            if (i + 2 >= len) {
                return 400;
            }
            hi = hexval((unsigned char) in[i + 1]);
            lo = hexval((unsigned char) in[i + 2]);
            if (hi < 0 || lo < 0) {
                return 400;
            }
            c = (char) (hi * 16 + lo);
            if (c == '\0' || c == '/') {
                return 400;
            }
            i += 2;
        } else if (c == '\0') {
            return 400;
        }
        out[o++] = c;
    }

    /* a removed "." or ".." leaves o just after a '/', so a path naming
     * a directory keeps its trailing slash */
    out[o] = '\0';
    *outlen = o;
    return 0;
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
        case '\'': rep = "&#39;"; break;
        default: out[o++] = s[i]; continue;
        }
        for (k = 0; rep[k] != '\0'; k++) {
            out[o++] = rep[k];
        }
    }
    out[o] = '\0';
    return o;
}
