/*
 * SPECweb99's static workload (see specweb.h).
 */

#include <stdio.h>
#include <stdlib.h>

#include "lib/rng.h"
#include "lib/models/specweb.h"

const double   specweb_class_share[SPECWEB_CLASSES] = {0.35, 0.50, 0.14, 0.01};
const uint32_t specweb_rank_file[SPECWEB_FILES] = {4, 3, 5, 2, 6, 1, 7, 8, 0};

static const uint64_t base[SPECWEB_CLASSES] = {1024, 10240, 102400, 1024000};

struct specweb_s {
    uint32_t dirs;
    double  *dir_cdf; /* cumulative 1 / (d + 1) */
    double   file_cdf[SPECWEB_FILES];
    uint64_t rng;
};

uint32_t
specweb_dirs(uint32_t connections)
{
    return (uint32_t) (25 + ((400000.0 / 122000.0) * connections) / 5.0);
}

uint64_t
specweb_size(int cls, int n)
{
    return base[cls] * (uint64_t) (n + 1) / 10;
}

uint64_t
specweb_dir_bytes(void)
{
    uint64_t sum = 0;
    int      k, n;

    for (k = 0; k < SPECWEB_CLASSES; k++) {
        for (n = 0; n < SPECWEB_FILES; n++) {
            sum += specweb_size(k, n);
        }
    }
    return sum;
}

void
specweb_name(uint32_t dir, int cls, int n, char *buf)
{
    snprintf(buf, 48, "/file_set/dir%05u/class%d_%d", dir, cls, n);
}

specweb_t *
specweb_new(uint32_t dirs, uint64_t seed)
{
    specweb_t *w = calloc(1, sizeof(*w));
    uint32_t   d;
    int        r;

    if (w == NULL || dirs == 0) {
        free(w);
        return NULL;
    }
    w->dir_cdf = malloc(dirs * sizeof(double));
    if (w->dir_cdf == NULL) {
        free(w);
        return NULL;
    }
    w->dirs = dirs;
    for (d = 0; d < dirs; d++) {
        w->dir_cdf[d] = (d ? w->dir_cdf[d - 1] : 0) + 1.0 / (d + 1);
    }
    for (r = 0; r < SPECWEB_FILES; r++) {
        w->file_cdf[r] = (r ? w->file_cdf[r - 1] : 0) + 1.0 / (r + 1);
    }
    w->rng = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
    return w;
}

void
specweb_free(specweb_t *w)
{
    if (w != NULL) {
        free(w->dir_cdf);
        free(w);
    }
}

double
specweb_uniform(specweb_t *w)
{
    return trace_rng_uniform(&w->rng);
}

/* the first index whose cumulative weight passes u x the total */
static uint32_t
pick(const double *cdf, uint32_t n, double u)
{
    double   x = u * cdf[n - 1];
    uint32_t lo = 0, hi = n - 1, mid;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (cdf[mid] >= x) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

void
specweb_draw(specweb_t *w, specweb_req_t *r)
{
    double u = specweb_uniform(w), c = 0;
    int    k;

    for (k = 0; k < SPECWEB_CLASSES - 1; k++) {
        c += specweb_class_share[k];
        if (u <= c) {
            break;
        }
    }
    r->cls = k;
    r->dir = pick(w->dir_cdf, w->dirs, specweb_uniform(w));
    r->rank = (int) pick(w->file_cdf, SPECWEB_FILES, specweb_uniform(w));
    r->file = (int) specweb_rank_file[r->rank];
}

int
specweb_conn_requests(specweb_t *w)
{
    int n = 5 + (int) (specweb_uniform(w) * 11);

    return n > 15 ? 15 : n;
}
