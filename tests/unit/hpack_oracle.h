/*
 * libnghttp2's HPACK inflater as the oracle hpack.c is checked against
 * (test_hpack.c and fuzz_hpack.c): one whole block decoded, each field
 * handed to emit as hpack.c's decoder hands it.
 */

#ifndef NICD_HPACK_ORACLE_H
#define NICD_HPACK_ORACLE_H

#include <nghttp2/nghttp2.h>

#include "server/http/hpack.h"

/* 0, or -1 when nghttp2 refuses the block */
static int
oracle_inflate(nghttp2_hd_inflater *inf, const uint8_t *in, size_t len,
               nicd_hpack_emit_pt emit, void *arg)
{
    nghttp2_nv         nv;
    nicd_hpack_field_t f;
    int                flags;
    ssize_t            r;

    for (;;) {
        flags = 0;
        r = nghttp2_hd_inflate_hd2(inf, &nv, &flags, in, len, 1);
        if (r < 0) {
            return -1;
        }
        in += r;
        len -= (size_t) r;
        if (flags & NGHTTP2_HD_INFLATE_EMIT) {
            f.name = (const char *) nv.name;
            f.nlen = nv.namelen;
            f.value = (const char *) nv.value;
            f.vlen = nv.valuelen;
            f.never_indexed = (nv.flags & NGHTTP2_NV_FLAG_NO_INDEX) != 0;
            emit(arg, &f);
        }
        if (flags & NGHTTP2_HD_INFLATE_FINAL) {
            nghttp2_hd_inflate_end_headers(inf);
            return 0;
        }
        if (r == 0 && len == 0 && !(flags & NGHTTP2_HD_INFLATE_EMIT)) {
            return -1; /* (no progress: never with in_final set) */
        }
    }
}

#endif /* NICD_HPACK_ORACLE_H */
