/* Unit tests of trace_replayer/lib/stats.c: the median's interval */

#include <math.h>

#include "lib/stats.c"
#include "harness.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void
test_intervals(void)
{
    double     x[20] = {5, 1, 4, 2, 3}, y[20];
    trace_ci_t c;
    int        i;

    /* five values: the whole range, 1 - 2/32 */
    trace_median_ci(x, 5, 0.95, &c);
    CHECK(c.median == 3 && c.low == 1 && c.high == 5);
    CHECK(NEAR(c.coverage, 0.9375));
    CHECK(x[0] == 5); /* left as it was */
    /* six: still the range, 1 - 2/64, and the middle two averaged */
    x[5] = 6;
    trace_median_ci(x, 6, 0.95, &c);
    CHECK(c.median == 3.5 && c.low == 1 && c.high == 6);
    CHECK(NEAR(c.coverage, 1 - 2.0 / 64));
    /* twenty values 1..20: [x(6), x(15)] is the 95 % interval
     * (1 - 2 P(Bin(20, 1/2) <= 5) = 0.9586; k = 7 gives 0.8847) */
    for (i = 0; i < 20; i++) {
        y[i] = 20 - i;
    }
    trace_median_ci(y, 20, 0.95, &c);
    CHECK(c.median == 10.5 && c.low == 6 && c.high == 15);
    CHECK(fabs(c.coverage - 0.9586) < 1e-4);
    trace_median_ci(y, 1, 0.95, &c);
    CHECK(c.median == 20 && c.low == 20 && c.high == 20 && c.coverage == 0);
    trace_median_ci(y, 0, 0.95, &c);
    CHECK(c.n == 0 && c.median == 0);
}

int
main(void)
{
    RUN(test_intervals);
    return harness_report("test_stats");
}
