/* Unit tests of trace_replayer/lib/hist.c */

#include "lib/hist.c"
#include "harness.h"

static void
test_buckets(void)
{
    uint64_t v;
    unsigned i, prev = 0;

    /* exact below 64, then every bucket within 1/32 of its values */
    for (v = 0; v < 64; v++) {
        CHECK_INT(trace_hist_index(v), v);
        CHECK_INT(trace_hist_low((unsigned) v), v);
    }
    for (v = 64; v < (1u << 24); v = v * 9 / 8 + 1) {
        i = trace_hist_index(v);
        CHECK(i >= prev && i < TRACE_HIST_BUCKETS);
        CHECK(trace_hist_low(i) <= v && v < trace_hist_low(i + 1));
        CHECK((trace_hist_low(i + 1) - trace_hist_low(i)) * 32
              <= trace_hist_low(i));
        CHECK_INT(trace_hist_index(trace_hist_low(i)), i);
        prev = i;
    }
    CHECK(trace_hist_index(UINT64_MAX) == TRACE_HIST_BUCKETS - 1);
}

static void
test_quantiles(void)
{
    static trace_hist_t h, a, b;
    uint64_t            v;

    CHECK_INT(trace_hist_quantile(&h, 0.5), 0);
    for (v = 1; v <= 1000; v++) {
        trace_hist_add(&h, v, 1);
        trace_hist_add(v % 2 ? &a : &b, v, 1);
    }
    /* within a bucket's width of the true value */
    CHECK(trace_hist_quantile(&h, 0.5) >= 484
          && trace_hist_quantile(&h, 0.5) <= 516);
    CHECK(trace_hist_quantile(&h, 0.99) >= 960
          && trace_hist_quantile(&h, 0.99) <= 1000);
    CHECK_INT(trace_hist_quantile(&h, 1.0), 1000); /* never above max */
    CHECK_INT(trace_hist_quantile(&h, 0.001), 1);
    CHECK_INT(h.count, 1000);
    CHECK_INT(h.sum, 500500);
    /* merging two halves gives the whole */
    trace_hist_merge(&a, &b);
    CHECK(memcmp(&a, &h, sizeof(h)) == 0);
}

int
main(void)
{
    RUN(test_buckets);
    RUN(test_quantiles);
    return harness_report("hist");
}
