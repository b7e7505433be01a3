/*
 * A log-linear latency histogram (HdrHistogram's idea, in a few lines):
 * values below 64 have a bucket each; above, every power of two is cut
 * into 32 equal buckets, so a bucket's width is at most 1/32 (3.1 %) of
 * its values.  Fixed size, no allocation, merged by adding counts.
 */

#ifndef TRACE_HIST_H
#define TRACE_HIST_H

#include <stdint.h>

#define TRACE_HIST_BUCKETS (64 + 58 * 32)

typedef struct {
    uint64_t count;
    uint64_t sum;
    uint64_t max;
    uint64_t bucket[TRACE_HIST_BUCKETS];
} trace_hist_t;

/* the bucket of v, and the smallest value of bucket i */
unsigned trace_hist_index(uint64_t v);
uint64_t trace_hist_low(unsigned i);

void trace_hist_add(trace_hist_t *h, uint64_t v, uint64_t n);
void trace_hist_merge(trace_hist_t *into, const trace_hist_t *h);

/*
 * The value at quantile q (0..1): the middle of the bucket holding the
 * ceil(q * count)-th smallest value, never above the largest value seen.
 * 0 for an empty histogram.
 */
uint64_t trace_hist_quantile(const trace_hist_t *h, double q);

/*
 * h as one interval of an HdrHistogram log (the V2 compressed encoding,
 * base64): each bucket's count recorded at its middle value in an
 * HdrHistogram of 2 significant digits from 1 to 2^40.  The string is
 * malloc'd; NULL when out of memory.
 */
char *trace_hist_hdr_encode(const trace_hist_t *h);

#endif /* TRACE_HIST_H */
