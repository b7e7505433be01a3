/*
 * Fuzz target: the HPACK decoder and encoder (src/server/http/hpack.c).
 * The input is two field blocks (split where its first byte says)
 * decoded by one decoder, so the second sees the table the first left;
 * libnghttp2's inflater decodes the same blocks and must agree on the
 * fields whenever both accept, and on accepting a block whose integers
 * stay under 2^21 (this decoder's bound, nginx's; nghttp2's is higher).  Every
 * field decoded is then encoded again and decoded once more: the same
 * fields must come back.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "server/http/hpack.h"
#if defined(HAVE_NGHTTP2)
#include "hpack_oracle.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXF 256

typedef struct {
    uint8_t *bytes; /* names and values one after the other */
    size_t   used, cap;
    size_t   off[MAXF], nlen[MAXF], vlen[MAXF];
    int      never[MAXF];
    int      n;
} flist_t;

static void
add(flist_t *l, const char *name, size_t nlen, const char *value,
    size_t vlen, int never)
{
    if (l->n == MAXF) {
        return;
    }
    if (l->bytes == NULL || l->used + nlen + vlen > l->cap) {
        l->cap = (l->used + nlen + vlen) * 2 + 64;
        l->bytes = realloc(l->bytes, l->cap);
        if (l->bytes == NULL) {
            abort();
        }
    }
    l->off[l->n] = l->used;
    l->nlen[l->n] = nlen;
    l->vlen[l->n] = vlen;
    l->never[l->n] = never;
    memcpy(l->bytes + l->used, name, nlen);
    memcpy(l->bytes + l->used + nlen, value, vlen);
    l->used += nlen + vlen;
    l->n++;
}

static void
emit(void *arg, const nicd_hpack_field_t *f)
{
    add(arg, f->name, f->nlen, f->value, f->vlen, f->never_indexed);
}

static int
same(const flist_t *a, const flist_t *b)
{
    int k;

    if (a->n != b->n) {
        return 0;
    }
    for (k = 0; k < a->n; k++) {
        if (a->nlen[k] != b->nlen[k] || a->vlen[k] != b->vlen[k]
            || a->never[k] != b->never[k]
            || memcmp(a->bytes + a->off[k], b->bytes + b->off[k],
                      a->nlen[k] + a->vlen[k]) != 0) {
            return 0;
        }
    }
    return 1;
}

#if defined(HAVE_NGHTTP2)
/* a varint of 3 bytes after its prefix, the last with more to come:
 * past this decoder's bound (nginx's), not nghttp2's */
static int
long_integer(const uint8_t *in, size_t len)
{
    size_t i, run = 0;

    for (i = 0; i < len; i++) {
        run = in[i] & 0x80 ? run + 1 : 0;
        if (run >= 3) {
            return 1;
        }
    }
    return 0;
}
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nicd_hpack_decoder_t d, d2;
    nicd_hpack_encoder_t e;
    flist_t              got = { 0 }, again = { 0 };
    const uint8_t       *blk[2];
    size_t               len[2], cut, k, n;
    uint8_t             *out;
    int                  b, i;
    int                  r[2] = {NICD_HPACK_ERROR, NICD_HPACK_ERROR};

    if (size < 1) {
        return 0;
    }
    cut = size > 1 ? data[0] % size : 0;
    blk[0] = data + 1;
    len[0] = cut > 0 ? cut - 1 : 0;
    blk[1] = data + 1 + len[0];
    len[1] = size - 1 - len[0];

    nicd_hpack_decoder_init(&d, NICD_HPACK_TABLE_SIZE);
    for (b = 0; b < 2; b++) {
        r[b] = nicd_hpack_decode(&d, blk[b], len[b], emit, &got);
        if (r[b] != NICD_HPACK_OK) {
            break;
        }
    }
    nicd_hpack_decoder_free(&d);

#if defined(HAVE_NGHTTP2)
    {
        nghttp2_hd_inflater *inf;
        flist_t              ng = { 0 };
        int                  ok = 1;

        if (nghttp2_hd_inflate_new(&inf) != 0) {
            abort();
        }
        for (b = 0; b < 2 && ok; b++) {
            ok = oracle_inflate(inf, blk[b], len[b], emit, &ng) == 0;
        }
        nghttp2_hd_inflate_del(inf);
        if (ok && r[0] == NICD_HPACK_OK && r[1] == NICD_HPACK_OK) {
            if (!same(&got, &ng)) {
                abort();
            }
        } else if (ok && !long_integer(data + 1, size - 1)) {
            abort(); /* nghttp2 took a block refused here */
        }
        free(ng.bytes);
    }
#endif

    /* what was decoded, encoded and decoded again */
    nicd_hpack_encoder_init(&e, NICD_HPACK_TABLE_SIZE);
    nicd_hpack_decoder_init(&d2, NICD_HPACK_TABLE_SIZE);
    for (i = 0; i < 2; i++) { /* twice: the second through the tables */
        size_t cap = 16;

        for (k = 0; k < (size_t) got.n; k++) {
            cap += NICD_HPACK_BOUND(got.nlen[k], got.vlen[k]);
        }
        out = malloc(cap);
        n = nicd_hpack_encode_begin(&e, out);
        for (k = 0; k < (size_t) got.n; k++) {
            nicd_hpack_field_t f;

            f.name = (const char *) got.bytes + got.off[k];
            f.nlen = got.nlen[k];
            f.value = f.name + f.nlen;
            f.vlen = got.vlen[k];
            f.never_indexed = got.never[k] != 0;
            n += nicd_hpack_encode(&e, out + n, &f);
        }
        if (n > cap) {
            abort();
        }
        again.n = 0;
        again.used = 0;
        if (nicd_hpack_decode(&d2, out, n, emit, &again) != NICD_HPACK_OK
            || !same(&got, &again)) {
            abort();
        }
        free(out);
    }
    nicd_hpack_encoder_free(&e);
    nicd_hpack_decoder_free(&d2);
    free(got.bytes);
    free(again.bytes);
    return 0;
}
