/*
 * Fuzz target: nicreplay's response reader.  The input is a stream of
 * pipelined responses, fed in pieces whose sizes come from its first
 * byte; the reader must consume only what it was given, deliver body
 * bytes at increasing offsets, and never crash or loop.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/http/hresp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t next_off;

static void
body(void *arg, uint64_t off, const char *p, size_t n)
{
    (void) arg;
    (void) p;
    if (off < next_off && next_off != 0 && off != 0) {
        abort();
    }
    next_off = off + n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hresp_t r;
    char   *buf;
    size_t  step, fed = 0, have = 0, rounds = 0;
    ssize_t used;

    if (size < 2) {
        return 0;
    }
    step = (size_t) data[0] % 16 + 1;
    data++;
    size--;
    buf = malloc(size);
    hresp_init(&r, data[0] & 1);
    next_off = 0;
    while (fed < size || have > 0) {
        size_t k = size - fed < step ? size - fed : step;

        memcpy(buf + have, data + fed, k);
        have += k;
        fed += k;
        used = hresp_feed(&r, buf, have, body, NULL);
        if (used < 0) {
            break;
        }
        if ((size_t) used > have) {
            abort();
        }
        memmove(buf, buf + used, have - (size_t) used);
        have -= (size_t) used;
        if (r.state == HRESP_DONE) {
            hresp_init(&r, 0);
            next_off = 0;
        } else if (used == 0 && k == 0) {
            break;
        }
        if (++rounds > 4 * size + 16) {
            abort(); /* no progress */
        }
    }
    hresp_eof(&r);
    free(buf);
    return 0;
}
