/*
 * The median and its order-statistic interval (stats.h).
 */

#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

static int
by_value(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return (x > y) - (x < y);
}

/* P(Bin(n, 1/2) <= k), exactly enough for n up to a few hundred */
static double
binom_cdf_half(int n, int k)
{
    double p = 1, sum = 0, scale = 1;
    int    i;

    /* C(n, i) / 2^n, term by term from C(n, 0) / 2^n */
    for (i = 0; i < n; i++) {
        scale *= 0.5;
    }
    for (i = 0; i <= k && i <= n; i++) {
        sum += p * scale;
        p = p * (double) (n - i) / (double) (i + 1);
    }
    return sum;
}

void
trace_median_ci(const double *x, int n, double level, trace_ci_t *out)
{
    double *s;
    int     k;

    memset(out, 0, sizeof(*out));
    out->n = n;
    if (n <= 0 || (s = malloc(sizeof(double) * (size_t) n)) == NULL) {
        return;
    }
    memcpy(s, x, sizeof(double) * (size_t) n);
    qsort(s, (size_t) n, sizeof(double), by_value);
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    /* the widest interval first (k = 1), narrower while it still holds */
    for (k = 1; 2 * (k + 1) <= n + 1 && 1 - 2 * binom_cdf_half(n, k) >= level;
         k++) {
    }
    out->low = s[k - 1];
    out->high = s[n - k];
    out->coverage = n == 1 ? 0 : 1 - 2 * binom_cdf_half(n, k - 1);
    free(s);
}
