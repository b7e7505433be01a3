/* Log-linear histogram: see hist.h. */

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/hist.h"

unsigned
trace_hist_index(uint64_t v)
{
    unsigned m, shift;

    if (v < 64) {
        return (unsigned) v;
    }
    m = 63u - (unsigned) __builtin_clzll(v); /* 6..63 */
    shift = m - 5;                           /* v >> shift is 32..63 */
    return 64 + (m - 6) * 32 + (unsigned) ((v >> shift) - 32);
}

uint64_t
trace_hist_low(unsigned i)
{
    unsigned m, shift;

    if (i < 64) {
        return i;
    }
    m = (i - 64) / 32 + 6;
    shift = m - 5;
    return (uint64_t) (32 + (i - 64) % 32) << shift;
}

void
trace_hist_add(trace_hist_t *h, uint64_t v, uint64_t n)
{
    h->bucket[trace_hist_index(v)] += n;
    h->count += n;
    h->sum += v * n;
    if (n > 0 && v > h->max) {
        h->max = v;
    }
}

void
trace_hist_merge(trace_hist_t *into, const trace_hist_t *h)
{
    unsigned i;

    for (i = 0; i < TRACE_HIST_BUCKETS; i++) {
        into->bucket[i] += h->bucket[i];
    }
    into->count += h->count;
    into->sum += h->sum;
    if (h->max > into->max) {
        into->max = h->max;
    }
}

uint64_t
trace_hist_quantile(const trace_hist_t *h, double q)
{
    uint64_t rank, seen = 0, low, high, mid;
    unsigned i;

    if (h->count == 0) {
        return 0;
    }
    rank = (uint64_t) (q * (double) h->count);
    if ((double) rank < q * (double) h->count) {
        rank++; /* ceil() without libm */
    }
    if (rank < 1) {
        rank = 1;
    }
    for (i = 0; i < TRACE_HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank) {
            break;
        }
    }
    if (i == TRACE_HIST_BUCKETS) {
        return h->max;
    }
    low = trace_hist_low(i);
    high = i + 1 < TRACE_HIST_BUCKETS ? trace_hist_low(i + 1) : low;
    mid = low + (high - low) / 2;
    return mid > h->max ? h->max : mid;
}

/* ---- HdrHistogram's V2 encoding, for its log format ---- */

#define HDR_DIGITS     2
#define HDR_HALF_MAG   7 /* log2 of half of 2^ceil(log2(2 * 10^digits)) */
#define HDR_SUB_COUNT  (1 << (HDR_HALF_MAG + 1))
#define HDR_HIGHEST    ((uint64_t) 1 << 40)
#define HDR_COOKIE     0x1c849313u /* V2 encoding, word-size bit set */
#define HDR_COOKIE_ZIP 0x1c849314u /* V2 compressed */

/* the counts-array index of v (HdrHistogram's layout, unit 1) */
static size_t
hdr_index(uint64_t v)
{
    uint64_t mask = (uint64_t) HDR_SUB_COUNT - 1;
    int      pow2ceil = 64 - __builtin_clzll(v | mask);
    int      bucket = pow2ceil - (HDR_HALF_MAG + 1);
    uint64_t sub = v >> bucket;

    return ((size_t) (bucket + 1) << HDR_HALF_MAG)
           + (size_t) (sub - (HDR_SUB_COUNT / 2));
}

static size_t
put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char) (v >> 24);
    p[1] = (unsigned char) (v >> 16);
    p[2] = (unsigned char) (v >> 8);
    p[3] = (unsigned char) v;
    return 4;
}

static size_t
put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t) (v >> 32));
    put32(p + 4, (uint32_t) v);
    return 8;
}

/* ZigZag, then LEB128 (at most 9 bytes: the 9th carries 8 bits) */
static size_t
put_zigzag(unsigned char *p, int64_t v)
{
    uint64_t u = ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
    size_t   n = 0;

    while (u >= 0x80 && n < 8) {
        p[n++] = (unsigned char) (u | 0x80);
        u >>= 7;
    }
    p[n++] = (unsigned char) u;
    return n;
}

static char *
base64(const unsigned char *p, size_t n)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char  *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    size_t i;

    if (out == NULL) {
        return NULL;
    }
    for (i = 0; i + 2 < n; i += 3) {
        *o++ = tab[p[i] >> 2];
        *o++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
        *o++ = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
        *o++ = tab[p[i + 2] & 63];
    }
    if (i < n) {
        *o++ = tab[p[i] >> 2];
        if (i + 1 < n) {
            *o++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
            *o++ = tab[(p[i + 1] & 15) << 2];
        } else {
            *o++ = tab[(p[i] & 3) << 4];
            *o++ = '=';
        }
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

char *
trace_hist_hdr_encode(const trace_hist_t *h)
{
    size_t         len = hdr_index(HDR_HIGHEST) + 1, top = 0, i, n = 40;
    uint64_t      *counts = calloc(len, sizeof(uint64_t));
    unsigned char *raw = NULL, *zip = NULL;
    uLongf         zlen;
    char          *out = NULL;
    unsigned       b;
    double         one = 1.0;
    uint64_t       bits;

    if (counts == NULL) {
        return NULL;
    }
    for (b = 0; b < TRACE_HIST_BUCKETS; b++) {
        uint64_t lo, hi, mid;

        if (h->bucket[b] == 0) {
            continue;
        }
        lo = trace_hist_low(b);
        hi = b + 1 < TRACE_HIST_BUCKETS ? trace_hist_low(b + 1) : lo + 1;
        mid = lo + (hi - lo) / 2;
        if (mid > h->max && h->max >= lo) {
            mid = h->max;
        }
        if (mid == 0) {
            mid = 1; /* HdrHistogram's unit: a value of 0 goes to 1 */
        }
        if (mid >= HDR_HIGHEST) {
            mid = HDR_HIGHEST - 1;
        }
        counts[hdr_index(mid)] += h->bucket[b];
        if (hdr_index(mid) + 1 > top) {
            top = hdr_index(mid) + 1;
        }
    }
    raw = malloc(40 + top * 9 + 16);
    if (raw == NULL) {
        goto done;
    }
    /* the payload: counts, a run of k zeros written as -k */
    for (i = 0; i < top;) {
        if (counts[i] == 0) {
            size_t z = i;

            while (z < top && counts[z] == 0) {
                z++;
            }
            n += put_zigzag(raw + n, z - i > 1 ? -(int64_t) (z - i) : 0);
            i = z;
        } else {
            n += put_zigzag(raw + n, (int64_t) counts[i++]);
        }
    }
    put32(raw, HDR_COOKIE);
    put32(raw + 4, (uint32_t) (n - 40));
    put32(raw + 8, 0); /* normalizing index offset */
    put32(raw + 12, HDR_DIGITS);
    put64(raw + 16, 1); /* lowest discernible value */
    put64(raw + 24, HDR_HIGHEST);
    memcpy(&bits, &one, sizeof(bits));
    put64(raw + 32, bits); /* integer to double ratio */

    zlen = compressBound((uLong) n);
    zip = malloc(8 + zlen);
    if (zip == NULL || compress(zip + 8, &zlen, raw, (uLong) n) != Z_OK) {
        goto done;
    }
    put32(zip, HDR_COOKIE_ZIP);
    put32(zip + 4, (uint32_t) zlen);
    out = base64(zip, 8 + zlen);

done:
    free(zip);
    free(raw);
    free(counts);
    return out;
}
