/*
 * Fuzz target: the proxy's reader of an upstream's response
 * (http/resp_parser.c: the head; http_parser.c: a chunked body).  The
 * input is what an upstream sends, fed in pieces whose sizes come from
 * its first byte, the head's bound from its second; the reader must
 * point only inside what it was given, say where the head ends, take a
 * chunked body's bytes in order, and never crash or loop.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/http_parser.h"
#include "server/http/resp_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a chunked body in buf[0..len): every data piece inside it */
static void
body(const char *buf, size_t len)
{
    nicd_chunked_t ch;
    size_t         off = 0, used, dlen, rounds = 0;
    const char    *d;
    int            rc;

    memset(&ch, 0, sizeof(ch));
    while (off < len) {
        rc = nicd_http_chunked_read(&ch, buf + off, len - off, &used, &d,
                                    &dlen);
        if (used > len - off || (dlen > 0 && (d < buf + off
                                              || d + dlen > buf + off + used))
            || ++rounds > len + 1) {
            abort();
        }
        off += used;
        if (rc != NICD_HTTP_AGAIN) {
            break; /* the end, or bad framing */
        }
        if (used == 0) {
            break;
        }
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nicd_resp_t r;
    size_t      step, max, have = 0;
    int         rc = NICD_RESP_AGAIN, i;

    if (size < 3) {
        return 0;
    }
    step = (size_t) data[0] % 64 + 1;
    max = ((size_t) data[1] + 1) * 64;
    data += 2;
    size -= 2;
    nicd_resp_init(&r);
    while (rc == NICD_RESP_AGAIN && have < size) {
        have = have + step < size ? have + step : size;
        rc = nicd_resp_parse(&r, (const char *) data, have, max);
    }
    if (rc != NICD_RESP_DONE) {
        return 0;
    }
    if (r.head_len > have || r.head_len > max || r.nheaders < 0
        || r.nheaders > NICD_RESP_MAX_HEADERS) {
        abort();
    }
    for (i = 0; i < r.nheaders; i++) {
        if (r.h[i].noff + r.h[i].nlen > r.head_len
            || r.h[i].voff + r.h[i].vlen > r.head_len || r.h[i].nlen == 0) {
            abort();
        }
    }
    if (r.status < 100 || r.status > 999
        || (r.chunked && r.content_length >= 0)) {
        abort();
    }
    if (r.chunked) {
        body((const char *) data + r.head_len, size - r.head_len);
    }
    return 0;
}
