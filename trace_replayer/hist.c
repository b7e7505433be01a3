/* Log-linear histogram: see hist.h. */

#include "hist.h"

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
