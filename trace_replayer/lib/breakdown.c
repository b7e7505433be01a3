/* Per-URL and per-size-class statistics: see breakdown.h. */

#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "hist.h"

#define COARSE      168 /* 4 per power of two, up to 2^41 */
#define SIZE_POW2   41  /* classes of 2^k bytes: [2^(k-1), 2^k) */
#define MAX_CLASSES SIZE_POW2

typedef struct {
    uint64_t requests, bytes, time_us, max_us;
    uint32_t lat[COARSE];
} url_stat_t;

struct breakdown_s {
    unsigned     top;
    int          by_size;
    url_stat_t **url; /* by URL id; NULL until answered */
    size_t       nurl;
    uint64_t     class_requests[MAX_CLASSES], class_bytes[MAX_CLASSES];
    trace_hist_t class_lat[MAX_CLASSES];
};

static const char *const specweb_names[] = {"<1KiB", "1-10KiB", "10-100KiB",
                                            "100KiB-1MiB", ">=1MiB"};

breakdown_t *
breakdown_new(unsigned top, int by_size)
{
    breakdown_t *b = calloc(1, sizeof(*b));

    if (b != NULL) {
        b->top = top;
        b->by_size = by_size;
    }
    return b;
}

void
breakdown_free(breakdown_t *b)
{
    size_t i;

    if (b == NULL) {
        return;
    }
    for (i = 0; i < b->nurl; i++) {
        free(b->url[i]);
    }
    free(b->url);
    free(b);
}

static unsigned
coarse_index(uint64_t v)
{
    unsigned m;

    if (v < 4) {
        return (unsigned) v;
    }
    m = 63u - (unsigned) __builtin_clzll(v);
    if (m > 41) {
        return COARSE - 1;
    }
    return m * 4 + (unsigned) ((v >> (m - 2)) & 3);
}

/* the middle of a coarse bucket */
static uint64_t
coarse_mid(unsigned i)
{
    unsigned m = i / 4, sub = i % 4;
    uint64_t lo, w;

    if (i < 4) {
        return i;
    }
    lo = (uint64_t) (4 + sub) << (m - 2);
    w = (uint64_t) 1 << (m - 2);
    return lo + w / 2;
}

static uint64_t
coarse_quantile(const url_stat_t *u, double q)
{
    uint64_t want = (uint64_t) (q * (double) u->requests + 0.999999), seen = 0;
    unsigned i;

    if (want == 0) {
        want = 1;
    }
    for (i = 0; i < COARSE; i++) {
        seen += u->lat[i];
        if (seen >= want) {
            uint64_t v = coarse_mid(i);

            return v > u->max_us ? u->max_us : v;
        }
    }
    return u->max_us;
}

static unsigned
size_class(const breakdown_t *b, uint64_t body)
{
    unsigned k = 0;

    if (b->by_size == BY_SIZE_SPECWEB) {
        uint64_t limit = 1024;

        while (k < 4 && body >= limit) {
            limit *= 10;
            k++;
        }
        return k;
    }
    while (k + 1 < SIZE_POW2 && body >= ((uint64_t) 1 << k)) {
        k++;
    }
    return k; /* body < 2^k */
}

int
breakdown_add(breakdown_t *b, uint32_t url, uint64_t body, uint64_t latency_us)
{
    url_stat_t *u;

    if (b->by_size != BY_SIZE_NONE) {
        unsigned k = size_class(b, body);

        b->class_requests[k]++;
        b->class_bytes[k] += body;
        trace_hist_add(&b->class_lat[k], latency_us, 1);
    }
    if (b->top == 0) {
        return 0;
    }
    if (url >= b->nurl) {
        size_t       n = (size_t) url * 2 + 64;
        url_stat_t **nu = realloc(b->url, n * sizeof(*nu));

        if (nu == NULL) {
            return -1;
        }
        memset(nu + b->nurl, 0, (n - b->nurl) * sizeof(*nu));
        b->url = nu;
        b->nurl = n;
    }
    u = b->url[url];
    if (u == NULL && (u = b->url[url] = calloc(1, sizeof(*u))) == NULL) {
        return -1;
    }
    u->requests++;
    u->bytes += body;
    u->time_us += latency_us;
    if (latency_us > u->max_us) {
        u->max_us = latency_us;
    }
    u->lat[coarse_index(latency_us)]++;
    return 0;
}

/* the ranking of the answered URLs by one measure */
typedef struct {
    uint32_t          id;
    const url_stat_t *s;
} ranked_t;

static int rank_key; /* 0 requests, 1 bytes, 2 time */

static uint64_t
measure(const url_stat_t *s)
{
    return rank_key == 0 ? s->requests : rank_key == 1 ? s->bytes : s->time_us;
}

static int
by_measure(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    uint64_t        mx = measure(x->s), my = measure(y->s);

    if (mx != my) {
        return mx > my ? -1 : 1;
    }
    return x->id < y->id ? -1 : x->id > y->id;
}

/* the top URLs by measure key: *n of them */
static ranked_t *
ranking(const breakdown_t *b, int key, size_t *n)
{
    ranked_t *r = malloc((b->nurl + 1) * sizeof(*r));
    size_t    i, k = 0;

    if (r == NULL) {
        *n = 0;
        return NULL;
    }
    for (i = 0; i < b->nurl; i++) {
        if (b->url[i] != NULL) {
            r[k].id = (uint32_t) i;
            r[k].s = b->url[i];
            k++;
        }
    }
    rank_key = key;
    qsort(r, k, sizeof(*r), by_measure);
    *n = k < b->top ? k : b->top;
    return r;
}

static const char *const rank_names[] = {"requests", "bytes", "time"};

static void
json_target(FILE *out, const char *t, size_t len)
{
    size_t i;

    putc('"', out);
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char) t[i];

        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20 || c >= 0x7f) {
            fprintf(out, "\\u%04x", c);
        } else {
            putc(c, out);
        }
    }
    putc('"', out);
}

void
breakdown_print(const breakdown_t *b, const feed_t *feed, double elapsed,
                FILE *out)
{
    ranked_t *r;
    size_t    n, i, len;
    unsigned  k;
    int       key;

    for (key = 0; key < 3 && b->top > 0; key++) {
        r = ranking(b, key, &n);
        fprintf(out,
                "  top %zu URLs by %s:\n    %10s %14s %12s %8s %8s %8s  %s\n",
                n, rank_names[key], "requests", "bytes", "time ms", "p50 us",
                "p99 us", "max us", "target");
        for (i = 0; i < n; i++) {
            const char *t = feed_target(feed, r[i].id, &len);

            fprintf(out, "    %10llu %14llu %12.1f %8llu %8llu %8llu  %.*s\n",
                    (unsigned long long) r[i].s->requests,
                    (unsigned long long) r[i].s->bytes,
                    (double) r[i].s->time_us / 1000,
                    (unsigned long long) coarse_quantile(r[i].s, 0.5),
                    (unsigned long long) coarse_quantile(r[i].s, 0.99),
                    (unsigned long long) r[i].s->max_us,
                    (int) (len > 100 ? 100 : len), t);
        }
        free(r);
    }
    if (b->by_size == BY_SIZE_NONE) {
        return;
    }
    fprintf(out, "  by size      %-12s %10s %14s %10s %8s %8s %8s\n", "class",
            "requests", "bytes", "Mb/s", "p50 us", "p99 us", "max us");
    for (k = 0; k < MAX_CLASSES; k++) {
        char name[32];

        if (b->class_requests[k] == 0) {
            continue;
        }
        if (b->by_size == BY_SIZE_SPECWEB) {
            snprintf(name, sizeof(name), "%s", specweb_names[k]);
        } else {
            snprintf(name, sizeof(name), "<2^%u", k);
        }
        fprintf(
            out,
            "               %-12s %10llu %14llu %10.2f %8llu %8llu "
            "%8llu\n",
            name, (unsigned long long) b->class_requests[k],
            (unsigned long long) b->class_bytes[k],
            elapsed > 0 ? (double) b->class_bytes[k] * 8 / elapsed / 1e6 : 0,
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.5),
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.99),
            (unsigned long long) b->class_lat[k].max);
    }
}

void
breakdown_json(const breakdown_t *b, const feed_t *feed, double elapsed,
               FILE *out)
{
    ranked_t *r;
    size_t    n, i, len;
    unsigned  k;
    int       key, first;

    if (b->top > 0) {
        fprintf(out, "  \"by_url\": {");
        for (key = 0; key < 3; key++) {
            r = ranking(b, key, &n);
            fprintf(out, "%s\n    \"by_%s\": [", key ? "," : "",
                    rank_names[key]);
            for (i = 0; i < n; i++) {
                const char *t = feed_target(feed, r[i].id, &len);

                fprintf(out, "%s\n      {\"target\": ", i ? "," : "");
                json_target(out, t, len);
                fprintf(out,
                        ", \"requests\": %llu, \"bytes\": %llu, \"time_us\": "
                        "%llu, \"latency_us\": {\"p50\": %llu, \"p90\": %llu, "
                        "\"p99\": %llu, \"max\": %llu}}",
                        (unsigned long long) r[i].s->requests,
                        (unsigned long long) r[i].s->bytes,
                        (unsigned long long) r[i].s->time_us,
                        (unsigned long long) coarse_quantile(r[i].s, 0.5),
                        (unsigned long long) coarse_quantile(r[i].s, 0.9),
                        (unsigned long long) coarse_quantile(r[i].s, 0.99),
                        (unsigned long long) r[i].s->max_us);
            }
            fprintf(out, "]");
            free(r);
        }
        fprintf(out, "},\n");
    }
    if (b->by_size == BY_SIZE_NONE) {
        return;
    }
    fprintf(out, "  \"by_size\": [");
    for (first = 1, k = 0; k < MAX_CLASSES; k++) {
        if (b->class_requests[k] == 0) {
            continue;
        }
        fprintf(out, "%s\n    {\"class\": ", first ? "" : ",");
        if (b->by_size == BY_SIZE_SPECWEB) {
            fprintf(out, "\"%s\", \"min_bytes\": %llu", specweb_names[k],
                    k == 0 ? 0ULL
                           : (unsigned long long) (1024
                                                   * (k == 1   ? 1
                                                      : k == 2 ? 10
                                                      : k == 3 ? 100
                                                               : 1000)));
        } else {
            fprintf(out, "\"<2^%u\", \"min_bytes\": %llu", k,
                    k == 0 ? 0ULL : 1ULL << (k - 1));
        }
        fprintf(
            out,
            ", \"requests\": %llu, \"bytes\": %llu, \"mbps\": %.3f, "
            "\"latency_us\": {\"p50\": %llu, \"p90\": %llu, \"p99\": %llu, "
            "\"max\": %llu}}",
            (unsigned long long) b->class_requests[k],
            (unsigned long long) b->class_bytes[k],
            elapsed > 0 ? (double) b->class_bytes[k] * 8 / elapsed / 1e6 : 0,
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.5),
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.9),
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.99),
            (unsigned long long) b->class_lat[k].max);
        first = 0;
    }
    fprintf(out, "],\n");
}
