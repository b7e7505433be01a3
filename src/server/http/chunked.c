/*
 * HTTP/1.1 chunked request bodies (RFC 9112, 7.1): the chunked reader of
 * http_parser.h, skipping a body or handing its data on, apart from the
 * head parser.
 */

#include "util/hex.h"
#include "server/http/http_parser.h"

/* chunked body states */
enum {
    C_SIZE = 0, /* hex digits of a chunk size */
    C_EXT,      /* after the size: BWS, ";" extensions, up to CRLF */
    C_SIZE_LF,  /* after CR of the size line */
    C_DATA,     /* chunk data */
    C_DATA_CR,  /* the CRLF after chunk data */
    C_DATA_LF,
    C_TRAILER, /* at the start of a trailer line, or the final CRLF */
    C_TRAILER_LINE,
    C_END_LF /* after CR of the empty line that ends the body */
};

#define CHUNK_LINE_MAX 4096

/*
 * The chunked reader: skip (data NULL) consumes the whole of buf; read
 * (data set) stops after the first data bytes, which it gives.
 */
static int
chunked_run(nicd_chunked_t *s, const char *buf, size_t len, size_t *used,
            const char **data, size_t *dlen)
{
    size_t        i = 0, n;
    unsigned char c;
    int           d;

    *used = 0; /* on an error too: the caller skips nothing */
    while (i < len) {
        c = (unsigned char) buf[i];

        switch (s->state) {
        case C_SIZE:
            d = nicache_hexval(c);
            if (d >= 0) {
                if (s->left > (UINT64_MAX >> 4)) {
                    return 400;
                }
                s->left = s->left * 16 + (uint64_t) d;
                if (++s->line > CHUNK_LINE_MAX) {
                    return 400; /* endless leading zeros */
                }
                break;
            }
            if (s->line == 0) {
                return 400; /* no digits */
            }
            s->state = C_EXT;
            continue; /* look at c again */

        case C_EXT:
            if (c == '\r') {
                s->state = C_SIZE_LF;
            } else if (c == '\n') {
                goto size_done;
            } else if ((c < ' ' && c != '\t') || c == 0x7f) {
                return 400;
            }
            break;

        case C_SIZE_LF:
            if (c != '\n') {
                return 400;
            }
        size_done:
            s->line = 0;
            s->state = s->left == 0 ? C_TRAILER : C_DATA;
            break;

        case C_DATA:
            n = len - i;
            if (n > s->left) {
                n = (size_t) s->left;
            }
            s->left -= n;
            s->total += n;
            if (s->left == 0) {
                s->state = C_DATA_CR;
            }
            if (data != NULL) {
                *data = buf + i;
                *dlen = n;
                *used = i + n;
                return NICD_HTTP_AGAIN;
            }
            i += n;
            continue;

        case C_DATA_CR:
            if (c == '\r') {
                s->state = C_DATA_LF;
                break;
            }
            /* a bare LF ends the data too */
            __attribute__((fallthrough));
        case C_DATA_LF:
            if (c != '\n') {
                return 400;
            }
            s->state = C_SIZE;
            s->line = 0;
            break;

        case C_TRAILER:
            if (c == '\r') {
                s->state = C_END_LF;
            } else if (c == '\n') {
                *used = i + 1;
                return NICD_HTTP_DONE;
            } else {
                s->state = C_TRAILER_LINE;
                s->line = 1;
            }
            break;

        case C_TRAILER_LINE:
            if (c == '\n') {
                s->state = C_TRAILER;
                s->line = 0;
            }
            break;

        case C_END_LF:
            if (c != '\n') {
                return 400;
            }
            *used = i + 1;
            return NICD_HTTP_DONE;
        }

        /* extensions and trailer lines are bounded */
        if ((s->state == C_EXT || s->state == C_TRAILER_LINE)
            && ++s->line > CHUNK_LINE_MAX) {
            return 400;
        }
        i++;
    }
    *used = len;
    return NICD_HTTP_AGAIN;
}

int
nicd_http_chunked_skip(nicd_chunked_t *s, const char *buf, size_t len,
                       size_t *used)
{
    return chunked_run(s, buf, len, used, NULL, NULL);
}

int
nicd_http_chunked_read(nicd_chunked_t *s, const char *buf, size_t len,
                       size_t *used, const char **data, size_t *dlen)
{
    *dlen = 0;
    return chunked_run(s, buf, len, used, data, dlen);
}
