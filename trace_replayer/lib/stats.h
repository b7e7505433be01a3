/*
 * The median of a few measurements and its confidence interval, for
 * comparing configurations that were each run a few times (niccompare).
 *
 * The interval is the order-statistic one (distribution-free): for n
 * sorted values, [x(k), x(n+1-k)] holds the true median with probability
 * 1 - 2 P(Bin(n, 1/2) <= k - 1).  The largest k whose coverage is at
 * least the level asked is taken; with too few values for that level
 * (n <= 5 at 95 %) it is the whole range, and the coverage it does have
 * is reported, never the level that was asked.
 */

#ifndef TRACE_STATS_H
#define TRACE_STATS_H

typedef struct {
    double median;
    double low, high; /* the interval */
    double coverage;  /* its probability of holding the median */
    int    n;
} trace_ci_t;

/* The median of x[0..n) and its interval at level (0.95); x is left as
 * it was.  n 0: all zero. */
void trace_median_ci(const double *x, int n, double level, trace_ci_t *out);

#endif /* TRACE_STATS_H */
