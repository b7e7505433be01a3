/* Per-URL and per-size-class statistics: see breakdown.h. */

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "lib/grow.h"
#include "lib/breakdown.h"
#include "lib/hist.h"

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
    /* a merged breakdown (breakdown_merge_json) names its URLs itself:
     * name[id] of len[id] bytes, found by an open-addressed table of
     * id + 1 (0: empty) */
    char    **name;
    size_t   *len;
    uint32_t  nnamed;
    uint32_t *slot;
    size_t    nslot;
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
    for (i = 0; i < b->nnamed; i++) {
        free(b->name[i]);
    }
    free(b->url);
    free(b->name);
    free(b->len);
    free(b->slot);
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

/* the smallest value of a coarse bucket */
static uint64_t
coarse_low(unsigned i)
{
    return i < 4 ? i : (uint64_t) (4 + i % 4) << (i / 4 - 2);
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

/* the counters of URL id url, made zero when new; NULL: no memory */
static url_stat_t *
url_stat(breakdown_t *b, uint32_t url)
{
    if (trace_grow_zeroed(&b->url, &b->nurl, (size_t) url + 1,
                          sizeof(url_stat_t *), 64)
        != 0) {
        return NULL;
    }
    if (b->url[url] == NULL) {
        b->url[url] = calloc(1, sizeof(*b->url[url]));
    }
    return b->url[url];
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
    if ((u = url_stat(b, url)) == NULL) {
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
    const char       *t; /* its target, which breaks ties */
    size_t            len;
} ranked_t;

static const char *target(const breakdown_t *b, const feed_t *feed, uint32_t id,
                          size_t *len);

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
    int             cmp;

    if (mx != my) {
        return mx > my ? -1 : 1;
    }
    /* ties by target, so that merged shards rank as one process does */
    cmp = memcmp(x->t, y->t, x->len < y->len ? x->len : y->len);
    if (cmp != 0) {
        return cmp;
    }
    return x->len < y->len ? -1 : x->len > y->len;
}

/* the top URLs by measure key: *n of them */
static ranked_t *
ranking(const breakdown_t *b, const feed_t *feed, int key, size_t *n)
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
            r[k].t = target(b, feed, (uint32_t) i, &r[k].len);
            k++;
        }
    }
    rank_key = key;
    qsort(r, k, sizeof(*r), by_measure);
    *n = k < b->top ? k : b->top;
    return r;
}

static const char *const rank_names[] = {"requests", "bytes", "time"};

/* URL id's target: the merged breakdown's own name, else the trace's */
static const char *
target(const breakdown_t *b, const feed_t *feed, uint32_t id, size_t *len)
{
    if (b->name != NULL) {
        *len = b->len[id];
        return b->name[id];
    }
    return feed_target(feed, id, len);
}

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
        r = ranking(b, feed, key, &n);
        fprintf(out,
                "  top %zu URLs by %s:\n    %10s %14s %12s %8s %8s %8s  %s\n",
                n, rank_names[key], "requests", "bytes", "time ms", "p50 us",
                "p99 us", "max us", "target");
        for (i = 0; i < n; i++) {
            const char *t = r[i].t;

            len = r[i].len;
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
            r = ranking(b, feed, key, &n);
            fprintf(out, "%s\n    \"by_%s\": [", key ? "," : "",
                    rank_names[key]);
            for (i = 0; i < n; i++) {
                const char *t = r[i].t;

                len = r[i].len;
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
        /* every answered URL's counters, so that "nicreplay merge" can
         * add shards up exactly and rank again: [target, requests, bytes,
         * time_us, max_us, [[bucket's smallest us, count], ...]] */
        fprintf(out, ",\n    \"top\": %u,\n    \"every_url\": [", b->top);
        for (first = 1, i = 0; i < b->nurl; i++) {
            const url_stat_t *u = b->url[i];
            const char       *t;

            if (u == NULL) {
                continue;
            }
            t = target(b, feed, (uint32_t) i, &len);
            fprintf(out, "%s\n      [", first ? "" : ",");
            json_target(out, t, len);
            fprintf(out, ", %llu, %llu, %llu, %llu, [",
                    (unsigned long long) u->requests,
                    (unsigned long long) u->bytes,
                    (unsigned long long) u->time_us,
                    (unsigned long long) u->max_us);
            for (key = 1, k = 0; k < COARSE; k++) {
                if (u->lat[k] > 0) {
                    fprintf(out, "%s[%llu, %u]", key ? "" : ", ",
                            (unsigned long long) coarse_low(k), u->lat[k]);
                    key = 0;
                }
            }
            fprintf(out, "]]");
            first = 0;
        }
        fprintf(out, "]},\n");
    }
    if (b->by_size == BY_SIZE_NONE) {
        return;
    }
    fprintf(out, "  \"by_size_classes\": \"%s\",\n  \"by_size\": [",
            b->by_size == BY_SIZE_SPECWEB ? "specweb" : "pow2");
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
            "\"max\": %llu}",
            (unsigned long long) b->class_requests[k],
            (unsigned long long) b->class_bytes[k],
            elapsed > 0 ? (double) b->class_bytes[k] * 8 / elapsed / 1e6 : 0,
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.5),
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.9),
            (unsigned long long) trace_hist_quantile(&b->class_lat[k], 0.99),
            (unsigned long long) b->class_lat[k].max);
        /* the class's histogram, for an exact merge */
        fprintf(out, ", \"latency_sum_us\": %llu, \"latency_histogram_us\": [",
                (unsigned long long) b->class_lat[k].sum);
        for (key = 1, i = 0; i < TRACE_HIST_BUCKETS; i++) {
            if (b->class_lat[k].bucket[i] > 0) {
                fprintf(out, "%s[%llu, %llu]", key ? "" : ", ",
                        (unsigned long long) trace_hist_low((unsigned) i),
                        (unsigned long long) b->class_lat[k].bucket[i]);
                key = 0;
            }
        }
        fprintf(out, "]}");
        first = 0;
    }
    fprintf(out, "],\n");
}

/* ---- merge ---- */

/* the id of target t (len bytes) in a merged breakdown, named when new;
 * UINT32_MAX when out of memory */
static uint32_t
named(breakdown_t *b, const char *t, size_t len)
{
    size_t   i, mask;
    uint32_t id;

    if (b->nnamed * 2 >= b->nslot) {
        size_t    n = b->nslot ? b->nslot * 2 : 1024;
        uint32_t *ns = calloc(n, sizeof(*ns));
        char    **nn = realloc(b->name, n / 2 * sizeof(*nn));
        size_t   *nl = nn ? realloc(b->len, n / 2 * sizeof(*nl)) : NULL;

        if (nn != NULL) {
            b->name = nn;
        }
        if (nl != NULL) {
            b->len = nl;
        }
        if (ns == NULL || nn == NULL || nl == NULL) {
            free(ns);
            return UINT32_MAX;
        }
        for (id = 0; id < b->nnamed; id++) {
            i = nicache_fnv1a64(b->name[id], b->len[id]) & (n - 1);
            while (ns[i] != 0) {
                i = (i + 1) & (n - 1);
            }
            ns[i] = id + 1;
        }
        free(b->slot);
        b->slot = ns;
        b->nslot = n;
    }
    mask = b->nslot - 1;
    for (i = nicache_fnv1a64(t, len) & mask; b->slot[i] != 0;
         i = (i + 1) & mask) {
        id = b->slot[i] - 1;
        if (b->len[id] == len && memcmp(b->name[id], t, len) == 0) {
            return id;
        }
    }
    if ((b->name[b->nnamed] = malloc(len + 1)) == NULL) {
        return UINT32_MAX;
    }
    memcpy(b->name[b->nnamed], t, len);
    b->name[b->nnamed][len] = '\0';
    b->len[b->nnamed] = len;
    b->slot[i] = ++b->nnamed;
    return b->nnamed - 1;
}

static int
number(const json_t *v, uint64_t *n)
{
    if (v == NULL || v->type != JSON_NUMBER || v->number < 0) {
        return -1;
    }
    *n = (uint64_t) v->number;
    return 0;
}

/* one [target, requests, bytes, time_us, max_us, [[low, count], ...]] */
static int
merge_url(breakdown_t *b, const json_t *e)
{
    const json_t *v = e->type == JSON_ARRAY ? e->child : NULL, *h;
    url_stat_t   *u;
    uint64_t      n[4], low, cnt;
    uint32_t      id;
    int           k;

    if (v == NULL || v->type != JSON_STRING) {
        return -1;
    }
    if ((id = named(b, v->string, strlen(v->string))) == UINT32_MAX
        || (u = url_stat(b, id)) == NULL) {
        return -1;
    }
    for (k = 0; k < 4; k++) {
        if ((v = v->next) == NULL || number(v, &n[k]) != 0) {
            return -1;
        }
    }
    u->requests += n[0];
    u->bytes += n[1];
    u->time_us += n[2];
    u->max_us = n[3] > u->max_us ? n[3] : u->max_us;
    if ((v = v->next) == NULL || v->type != JSON_ARRAY) {
        return -1;
    }
    for (h = v->child; h != NULL; h = h->next) {
        if (h->type != JSON_ARRAY || number(h->child, &low) != 0
            || number(h->child->next, &cnt) != 0) {
            return -1;
        }
        u->lat[coarse_index(low)] += (uint32_t) cnt;
    }
    return 0;
}

/* one class of "by_size": its counts and histogram added exactly (the
 * buckets, the sum and the largest value as the result wrote them) */
static int
merge_class(breakdown_t *b, const json_t *e)
{
    const json_t *h;
    trace_hist_t *lat;
    uint64_t      min, n, bytes, sum, max, low, cnt;
    unsigned      k;

    if (number(json_get(e, "min_bytes"), &min) != 0
        || number(json_get(e, "requests"), &n) != 0
        || number(json_get(e, "bytes"), &bytes) != 0
        || number(json_get(e, "latency_sum_us"), &sum) != 0
        || number(json_get(json_get(e, "latency_us"), "max"), &max) != 0
        || (h = json_get(e, "latency_histogram_us")) == NULL
        || h->type != JSON_ARRAY) {
        return -1;
    }
    k = size_class(b, min);
    lat = &b->class_lat[k];
    b->class_requests[k] += n;
    b->class_bytes[k] += bytes;
    lat->sum += sum;
    lat->max = max > lat->max ? max : lat->max;
    for (h = h->child; h != NULL; h = h->next) {
        if (h->type != JSON_ARRAY || number(h->child, &low) != 0
            || number(h->child->next, &cnt) != 0) {
            return -1;
        }
        lat->bucket[trace_hist_index(low)] += cnt;
        lat->count += cnt;
    }
    return 0;
}

int
breakdown_merge_json(breakdown_t *b, const json_t *root, const char **why)
{
    const json_t *bu = json_get(root, "by_url"),
                 *bs = json_get(root, "by_size");
    const json_t *cl = json_get(root, "by_size_classes"), *e;
    uint64_t      top;
    int           mode;

    if (bu != NULL) {
        if (number(json_get(bu, "top"), &top) != 0
            || (e = json_get(bu, "every_url")) == NULL
            || e->type != JSON_ARRAY) {
            *why = "its by_url has no every_url (an older nicreplay's)";
            return -1;
        }
        b->top = top > b->top ? (unsigned) top : b->top;
        for (e = e->child; e != NULL; e = e->next) {
            if (merge_url(b, e) != 0) {
                *why = "a by_url entry is not [target, numbers..., [...]] "
                       "(or out of memory)";
                return -1;
            }
        }
    }
    if (bs != NULL) {
        mode = cl != NULL && cl->type == JSON_STRING
                       && strcmp(cl->string, "pow2") == 0
                   ? BY_SIZE_POW2
                   : BY_SIZE_SPECWEB;
        if (cl == NULL || bs->type != JSON_ARRAY
            || (b->by_size != BY_SIZE_NONE && b->by_size != mode)) {
            *why = "its by_size classes differ from the others'";
            return -1;
        }
        b->by_size = mode;
        for (e = bs->child; e != NULL; e = e->next) {
            if (merge_class(b, e) != 0) {
                *why = "a by_size entry lacks its histogram";
                return -1;
            }
        }
    }
    return 0;
}
