/*
 * Synthetic access logs (see synth.h for the model).
 *
 * Memory is a few words per file and a byte per client, whatever the
 * number of requests: the requests are generated as they are written.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/heap.h"
#include "lib/rng.h"
#include "lib/models/synth.h"

#define HISTORY       4096 /* requests a re-reference can reach back */
#define PAGE_MAX      64   /* requests of one page at most */
#define THINK_MAX     300.0
#define PAGES_MEAN    4.0
#define FIT_TOLERANCE 1e-3 /* of the total bytes */

struct trace_synth_s {
    trace_synth_cfg_t   cf;
    uint64_t           *count; /* requests by popularity rank */
    uint64_t           *size;  /* bytes by rank */
    uint32_t           *id;    /* the file's number by rank */
    uint64_t           *left;  /* requests still to make by rank */
    uint64_t           *tree;  /* the same as a Fenwick tree, to draw from */
    uint32_t           *rank;  /* by file number */
    unsigned char      *busy;  /* by client - 1 */
    uint64_t            rng;
    double              per_session; /* the mean requests of a session */
    trace_synth_stats_t st;
};

typedef struct {
    double   next;
    uint64_t client;
    uint32_t pages; /* left after this one */
    uint32_t left;  /* requests left on this page */
} session_t;

static double
normal(uint64_t *x)
{
    return sqrt(-2 * log(trace_rng_uniform(x)))
           * cos(2 * M_PI * trace_rng_uniform(x));
}

static double
pareto(uint64_t *x, double k, double alpha)
{
    return k / pow(trace_rng_uniform(x), 1 / alpha);
}

/* uniform in [0, n): the high word of a 64 x 64-bit product (exact; a
 * double's rounding could give n itself) */
static uint64_t
below(uint64_t *x, uint64_t n)
{
    return (uint64_t) (((unsigned __int128) trace_rng_next(x) * n) >> 64);
}

/* presets */

typedef struct {
    const char *name;
    uint64_t    requests, files, data_set;
    double      avg_size, duration, zipf;
    int64_t     start;
} preset_t;

static const preset_t presets[] = {
    /* July 1995, from 1995-07-01 00:00:00 -0400 */
    {"nasa", 1685904, 4690, 271000000, 56983, 31 * 86400.0, 0.85, 804571200},
    /* two weeks from the first match, 1998-06-10 00:00:00 UTC */
    {"worldcup", 10641170, 5163, 93000000, 6847, 14 * 86400.0, 1.0, 897436800},
    {NULL, 0, 0, 0, 0, 0, 0, 0},
};

const char *const trace_synth_presets[] = {"nasa", "worldcup", NULL};

void
trace_synth_defaults(trace_synth_cfg_t *cfg)
{
    char err[64];

    memset(cfg, 0, sizeof(*cfg));
    cfg->requests = 10000;
    cfg->files = 1000;
    cfg->zipf = 1.0;
    (void) trace_synth_parse_sizes("surge", &cfg->sizes, err, sizeof(err));
    cfg->max_size = (uint64_t) 1 << 30;
    cfg->duration = 3600;
    cfg->locality = 0.2;
    cfg->start = 1767225600; /* 2026-01-01 */
    cfg->seed = 1;
}

int
trace_synth_preset(trace_synth_cfg_t *cfg, const char *name)
{
    const preset_t *p;

    for (p = presets; p->name != NULL; p++) {
        if (strcmp(p->name, name) == 0) {
            cfg->requests = p->requests;
            cfg->files = (uint32_t) p->files;
            cfg->data_set = p->data_set;
            cfg->avg_size = p->avg_size;
            cfg->duration = p->duration;
            cfg->zipf = p->zipf;
            cfg->start = p->start;
            return 0;
        }
    }
    return -1;
}

/* size distributions */

typedef struct {
    const char *kind;
    int         nparams;
    double      defaults[5];
    const char *params; /* for the error message */
} dist_t;

static const dist_t dists[] = {
    /* SURGE's hybrid: lognormal body (mu, sigma), Pareto tail (k, alpha)
     * for the given share of files */
    {"surge", 5, {9.357, 1.318, 133000, 1.1, 0.07}, "MU,SIGMA,K,ALPHA,TAIL"},
    {"lognormal", 2, {9.357, 1.318, 0, 0, 0}, "MU,SIGMA"},
    {"pareto", 2, {133000, 1.1, 0, 0, 0}, "K,ALPHA"},
    {"fixed", 1, {4096, 0, 0, 0, 0}, "BYTES"},
    {"uniform", 2, {1, 8192, 0, 0, 0}, "MIN,MAX"},
    {NULL, 0, {0, 0, 0, 0, 0}, NULL},
};

int
trace_synth_parse_sizes(const char *spec, trace_synth_sizes_t *out, char *err,
                        size_t errlen)
{
    const dist_t *d;
    const char   *colon = strchr(spec, ':'), *p;
    size_t        n = colon ? (size_t) (colon - spec) : strlen(spec);
    char         *end;
    int           i;

    for (d = dists; d->kind != NULL; d++) {
        if (strlen(d->kind) == n && strncmp(d->kind, spec, n) == 0) {
            break;
        }
    }
    if (d->kind == NULL) {
        snprintf(err, errlen,
                 "unknown size distribution \"%.*s\" (surge, lognormal, "
                 "pareto, fixed, uniform)",
                 (int) n, spec);
        return -1;
    }
    out->kind = d->kind;
    memcpy(out->p, d->defaults, sizeof(out->p));
    if (colon != NULL) {
        for (i = 0, p = colon + 1; i < d->nparams; i++, p = end + 1) {
            out->p[i] = strtod(p, &end);
            if (end == p || !isfinite(out->p[i])
                || (*end != ',' && *end != '\0')
                || (*end == '\0' && i != d->nparams - 1)) {
                break;
            }
            if (*end == '\0') {
                i++;
                break;
            }
        }
        if (i != d->nparams || *end != '\0') {
            snprintf(err, errlen, "%s wants %s:%s", d->kind, d->kind,
                     d->params);
            return -1;
        }
    }
    if ((strcmp(d->kind, "surge") == 0
         && (out->p[1] <= 0 || out->p[2] <= 0 || out->p[3] <= 0 || out->p[4] < 0
             || out->p[4] > 1))
        || (strcmp(d->kind, "lognormal") == 0 && out->p[1] <= 0)
        || (strcmp(d->kind, "pareto") == 0
            && (out->p[0] <= 0 || out->p[1] <= 0))
        || (strcmp(d->kind, "fixed") == 0 && out->p[0] < 1)
        || (strcmp(d->kind, "uniform") == 0
            && (out->p[0] < 1 || out->p[1] < out->p[0]))) {
        snprintf(err, errlen, "%s: a parameter out of range", spec);
        return -1;
    }
    return 0;
}

static double
draw_size(const trace_synth_sizes_t *d, uint64_t *x)
{
    double v;
    int    i;

    switch (d->kind[0]) {
    case 's':
        if (trace_rng_uniform(x) <= d->p[4]) {
            return pareto(x, d->p[2], d->p[3]);
        }
        /* the body stays below the tail's start */
        for (i = 0; i < 16; i++) {
            v = exp(d->p[0] + d->p[1] * normal(x));
            if (v < d->p[2]) {
                return v;
            }
        }
        return d->p[2];
    case 'l': return exp(d->p[0] + d->p[1] * normal(x));
    case 'p': return pareto(x, d->p[0], d->p[1]);
    case 'f': return d->p[0];
    default: return d->p[0] + (d->p[1] - d->p[0]) * trace_rng_uniform(x);
    }
}

/* the files */

static int
cmp_u64_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

    return x < y ? 1 : x > y ? -1 : 0;
}

/* Zipf counts: one each, and the rest drawn by rank. */
static int
draw_counts(trace_synth_t *s)
{
    uint32_t i, f = s->cf.files, lo, hi, mid;
    double  *cdf = malloc(f * sizeof(double)), u;
    uint64_t r;

    if (cdf == NULL) {
        return -1;
    }
    for (i = 0; i < f; i++) {
        cdf[i] = (i ? cdf[i - 1] : 0) + pow(i + 1.0, -s->cf.zipf);
        s->count[i] = 1;
    }
    for (r = f; r < s->cf.requests; r++) {
        u = (1 - trace_rng_uniform(&s->rng)) * cdf[f - 1];
        for (lo = 0, hi = f - 1; lo < hi;) {
            mid = lo + (hi - lo) / 2;
            if (cdf[mid] > u) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        s->count[lo]++;
    }
    free(cdf);
    return 0;
}

/*
 * Sizes that sum to the data set exactly, each in [1, max]: scale the
 * draws, pin those that fall outside to the bound, rescale the rest, and
 * give the rounding's remainder out a byte at a time.
 */
static int
draw_sizes(trace_synth_t *s, char *err, size_t errlen)
{
    uint32_t i, f = s->cf.files, round;
    double  *v = malloc(f * sizeof(double)), fixed, free_sum, scale;
    uint64_t target = s->cf.data_set, max = s->cf.max_size, sum;
    int64_t  diff;
    int      changed;

    if (v == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (i = 0; i < f; i++) {
        v[i] = draw_size(&s->cf.sizes, &s->rng);
        v[i] = v[i] < 1 ? 1 : v[i] > (double) max ? (double) max : v[i];
    }
    if (target == 0) {
        for (i = 0; i < f; i++) {
            s->size[i] = (uint64_t) llround(v[i]);
        }
        free(v);
        return 0;
    }
    if (target < f || (double) target > (double) f * (double) max) {
        snprintf(err, errlen,
                 "a data set of %llu bytes cannot hold %u files of 1 to %llu "
                 "bytes",
                 (unsigned long long) target, f, (unsigned long long) max);
        free(v);
        return -1;
    }
    /* v < 0 marks a size pinned at -v */
    for (round = 0; round < 64; round++) {
        fixed = free_sum = 0;
        for (i = 0; i < f; i++) {
            if (v[i] < 0) {
                fixed -= v[i];
            } else {
                free_sum += v[i];
            }
        }
        if (free_sum == 0) {
            break;
        }
        scale = ((double) target - fixed) / free_sum;
        changed = 0;
        for (i = 0; i < f; i++) {
            if (v[i] >= 0 && v[i] * scale < 1) {
                v[i] = -1.0;
                changed = 1;
            } else if (v[i] >= 0 && v[i] * scale > (double) max) {
                v[i] = -(double) max;
                changed = 1;
            }
        }
        if (!changed) {
            for (i = 0; i < f; i++) {
                v[i] *= scale;
            }
            break;
        }
    }
    for (i = 0, sum = 0; i < f; i++) {
        s->size[i] = (uint64_t) llround(fabs(v[i]));
        s->size[i] = s->size[i] < 1 ? 1 : s->size[i] > max ? max : s->size[i];
        sum += s->size[i];
    }
    free(v);
    /* bounded: target is within [f, f * max] */
    for (diff = (int64_t) (target - sum), i = 0; diff != 0; i = (i + 1) % f) {
        if (diff > 0 && s->size[i] < max) {
            s->size[i]++;
            diff--;
        } else if (diff < 0 && s->size[i] > 1) {
            s->size[i]--;
            diff++;
        }
    }
    return 0;
}

/*
 * Lay the sizes over the ranks so that the total bytes are requests x the
 * average size: check the target lies between the least (the smallest
 * files the most popular) and the most it can be, then swap the sizes of
 * pairs of ranks while a swap brings the total closer.  One rank of each
 * pair is drawn by popularity, so the swaps that move the total most are
 * tried often; the other uniformly, so small corrections exist at the end.
 */
static int
fit_average(trace_synth_t *s, char *err, size_t errlen)
{
    uint32_t  i, j, f = s->cf.files, lo, hi, mid;
    uint64_t *c = malloc(f * sizeof(uint64_t)),
             *z = malloc(f * sizeof(uint64_t));
    uint64_t *cum = malloc(f * sizeof(uint64_t)), u, tries, t;
    double    want, total = 0, least = 0, most = 0, delta, gap;

    if (c == NULL || z == NULL || cum == NULL) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    want = s->cf.avg_size > 0 ? s->cf.avg_size * (double) s->cf.requests : 0;
    memcpy(c, s->count, f * sizeof(uint64_t));
    memcpy(z, s->size, f * sizeof(uint64_t));
    qsort(c, f, sizeof(uint64_t), cmp_u64_desc);
    qsort(z, f, sizeof(uint64_t), cmp_u64_desc);
    for (i = 0; i < f; i++) {
        most += (double) c[i] * (double) z[i];
        least += (double) c[i] * (double) z[f - 1 - i];
        total += (double) s->count[i] * (double) s->size[i];
        cum[i] = (i ? cum[i - 1] : 0) + s->count[i];
    }
    if (want == 0) {
        /* size independent of popularity, on average */
        for (i = 0, t = 0; i < f; i++) {
            t += s->size[i];
        }
        want = (double) t / f * (double) s->cf.requests;
    }
    if (want < least * (1 - FIT_TOLERANCE)
        || want > most * (1 + FIT_TOLERANCE)) {
        snprintf(err, errlen,
                 "an average response size of %.0f bytes is out of reach of "
                 "these sizes and this popularity (%.0f to %.0f): change "
                 "--zipf, --sizes or --data-set",
                 want / (double) s->cf.requests,
                 least / (double) s->cf.requests,
                 most / (double) s->cf.requests);
        goto err;
    }
    for (tries = 0; tries < 50000000; tries++) {
        gap = total - want;
        if (fabs(gap) <= want * FIT_TOLERANCE / 4) {
            break;
        }
        u = below(&s->rng, s->cf.requests);
        for (lo = 0, hi = f - 1; lo < hi;) {
            mid = lo + (hi - lo) / 2;
            if (cum[mid] > u) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        i = lo;
        j = (uint32_t) below(&s->rng, f);
        delta = ((double) s->count[i] - (double) s->count[j])
                * ((double) s->size[j] - (double) s->size[i]);
        if (fabs(gap + delta) < fabs(gap)) {
            t = s->size[i];
            s->size[i] = s->size[j];
            s->size[j] = t;
            total += delta;
        }
    }
    free(c);
    free(z);
    free(cum);
    return 0;

err:
    free(c);
    free(z);
    free(cum);
    return -1;
}

/* the mean of min(floor(Pareto(1, 2.43)), PAGE_MAX): sum of P(X >= n) */
static double
page_mean(void)
{
    double m = 0;
    int    n;

    for (n = 1; n <= PAGE_MAX; n++) {
        m += pow(n, -2.43);
    }
    return m;
}

trace_synth_t *
trace_synth_new(const trace_synth_cfg_t *cfg, char *err, size_t errlen)
{
    trace_synth_t *s;
    uint32_t       i, j, t;

    if (cfg->files == 0 || cfg->requests < cfg->files) {
        snprintf(err, errlen,
                 "every file is requested at least once: --requests (%llu) "
                 "must be at least --files (%u), and --files at least 1",
                 (unsigned long long) cfg->requests, cfg->files);
        return NULL;
    }
    if (!(cfg->duration > 0) || !(cfg->zipf >= 0) || !(cfg->locality >= 0)
        || cfg->locality > 0.95 || cfg->max_size == 0
        || !(cfg->avg_size >= 0)) {
        snprintf(err, errlen,
                 "--duration must be positive, --zipf and --avg-size not "
                 "negative, --locality between 0 and 0.95, --max-size not 0");
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cf = *cfg;
    if (s->cf.clients == 0) {
        s->cf.clients = s->cf.requests / 20 ? s->cf.requests / 20 : 1;
    }
    s->count = calloc(cfg->files, sizeof(uint64_t));
    s->size = calloc(cfg->files, sizeof(uint64_t));
    s->id = calloc(cfg->files, sizeof(uint32_t));
    s->left = calloc(cfg->files, sizeof(uint64_t));
    s->tree = calloc((size_t) cfg->files + 1, sizeof(uint64_t));
    s->rank = calloc(cfg->files, sizeof(uint32_t));
    s->busy = calloc(s->cf.clients, 1);
    if (s->count == NULL || s->size == NULL || s->id == NULL || s->left == NULL
        || s->tree == NULL || s->rank == NULL || s->busy == NULL) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    s->rng = cfg->seed * 0x2545f4914f6cdd1dULL;
    if (draw_counts(s) != 0) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    if (draw_sizes(s, err, errlen) != 0 || fit_average(s, err, errlen) != 0) {
        goto err;
    }
    /* names that say nothing of popularity */
    for (i = 0; i < cfg->files; i++) {
        s->id[i] = i;
    }
    for (i = cfg->files - 1; i > 0; i--) {
        j = (uint32_t) below(&s->rng, (uint64_t) i + 1);
        t = s->id[i];
        s->id[i] = s->id[j];
        s->id[j] = t;
    }
    for (i = 0; i < cfg->files; i++) {
        s->rank[s->id[i]] = i;
    }
    s->per_session = PAGES_MEAN * page_mean();
    s->st.files = cfg->files;
    for (i = 0; i < cfg->files; i++) {
        s->st.data_set += s->size[i];
        s->st.total_bytes += s->count[i] * s->size[i];
    }
    s->st.requests = cfg->requests;
    return s;

err:
    trace_synth_free(s);
    return NULL;
}

void
trace_synth_free(trace_synth_t *s)
{
    if (s == NULL) {
        return;
    }
    free(s->count);
    free(s->size);
    free(s->id);
    free(s->left);
    free(s->tree);
    free(s->rank);
    free(s->busy);
    free(s);
}

void
trace_synth_name(const trace_synth_t *s, uint32_t file, char *buf)
{
    static const char *const ext[] = {"gif", "html", "jpg", "pdf", "zip"};
    uint64_t                 size = s->size[s->rank[file]];
    int                      e;

    /* the extension follows the size, as on real sites */
    e = size < 2048      ? 0
        : size < 32768   ? 1
        : size < 262144  ? 2
        : size < 4194304 ? 3
                         : 4;
    snprintf(buf, 64, "/d%03u/f%06u.%s", file / 100, file, ext[e]);
}

/* the request stream */

static void
tree_add(trace_synth_t *s, uint32_t rank, int64_t d)
{
    uint32_t i;

    for (i = rank + 1; i <= s->cf.files; i += i & (0 - i)) {
        s->tree[i] += (uint64_t) d;
    }
}

/* the rank at which the requests left, cumulated, pass u */
static uint32_t
tree_find(const trace_synth_t *s, uint64_t u)
{
    uint32_t pos = 0, step = 1;

    while (step * 2 <= s->cf.files) {
        step *= 2;
    }
    for (; step > 0; step /= 2) {
        if (pos + step <= s->cf.files && s->tree[pos + step] <= u) {
            pos += step;
            u -= s->tree[pos];
        }
    }
    return pos;
}

/* sessions by their next request's time */
#define SESSION_LESS(a, b) ((a)->next < (b)->next)
TRACE_HEAP_DEFINE(session_heap, session_t, SESSION_LESS, TRACE_HEAP_UNINDEXED)

static uint32_t
page_requests(uint64_t *x)
{
    double v = floor(pareto(x, 1, 2.43));

    return v > PAGE_MAX ? PAGE_MAX : (uint32_t) v;
}

static uint32_t
session_pages(uint64_t *x)
{
    /* geometric on 1, 2, ... with mean PAGES_MEAN */
    return 1
           + (uint32_t) floor(log(trace_rng_uniform(x))
                              / log(1 - 1 / PAGES_MEAN));
}

/*
 * One pass: times multiplied by scale; emit NULL only measures.  The
 * last request's unscaled time into *last.
 */
static int
run(trace_synth_t *s, double scale, trace_synth_emit_pt emit, void *ctx,
    double *last)
{
    uint32_t         *hist = malloc(HISTORY * sizeof(uint32_t)), rank, i;
    uint64_t          rng = s->cf.seed * 0x9e3779b97f4a7c15ULL + 7, left;
    uint64_t          emitted = 0, started = 0, c, n;
    double            rate, arrival = 0, d;
    session_heap_t    h = {NULL, 0, 0, NULL};
    session_t         x;
    trace_synth_req_t r;
    int               rc = 0, k;

    if (hist == NULL) {
        return -1;
    }
    memset(s->tree, 0, ((size_t) s->cf.files + 1) * sizeof(uint64_t));
    for (i = 0; i < s->cf.files; i++) {
        s->left[i] = s->count[i];
        tree_add(s, i, (int64_t) s->count[i]);
    }
    memset(s->busy, 0, s->cf.clients);
    rate = (double) s->cf.requests / s->per_session / s->cf.duration;
    left = s->cf.requests;
    *last = 0;
    while (emitted < s->cf.requests) {
        if (h.n == 0 || arrival <= h.a[0].next) {
            /* a user arrives: a free client, the first ones all new */
            c = started < s->cf.clients ? started : below(&rng, s->cf.clients);
            for (n = 0; n < s->cf.clients && s->busy[c]; n++) {
                c = (c + 1) % s->cf.clients;
            }
            s->busy[c] = 1;
            started++;
            x.next = arrival;
            x.client = c + 1;
            x.pages = session_pages(&rng) - 1;
            x.left = page_requests(&rng);
            if (session_heap_push(&h, x) != 0) {
                rc = -1;
                break;
            }
            arrival += -log(trace_rng_uniform(&rng)) / rate;
            continue;
        }
        x = session_heap_pop(&h);
        /* which file: a re-reference, or any request still to make */
        rank = UINT32_MAX;
        if (emitted > 0 && trace_rng_uniform(&rng) <= s->cf.locality) {
            for (k = 0; k < 4 && rank == UINT32_MAX; k++) {
                d = exp(log(8.0) + 1.5 * normal(&rng));
                if (d < (double) (emitted < HISTORY ? emitted : HISTORY)) {
                    i = hist[(emitted - 1 - (uint64_t) d) % HISTORY];
                    rank = s->left[i] > 0 ? i : UINT32_MAX;
                }
            }
        }
        if (rank == UINT32_MAX) {
            rank = tree_find(s, below(&rng, left));
        }
        tree_add(s, rank, -1);
        s->left[rank]--;
        left--;
        hist[emitted % HISTORY] = rank;
        emitted++;
        *last = x.next;
        if (emit != NULL) {
            r.time = x.next * scale;
            r.client = x.client;
            r.file = s->id[rank];
            r.size = s->size[rank];
            if ((rc = emit(ctx, &r)) != 0) {
                break;
            }
        }
        /* the session's next request, page or end */
        if (--x.left > 0) {
            x.next += 0.382 * pow(-log(trace_rng_uniform(&rng)), 1 / 1.46);
        } else if (x.pages > 0) {
            x.pages--;
            x.left = page_requests(&rng);
            d = pareto(&rng, 1, 1.5);
            x.next += d > THINK_MAX ? THINK_MAX : d;
        } else {
            s->busy[x.client - 1] = 0;
            continue;
        }
        if (session_heap_push(&h, x) != 0) {
            rc = -1;
            break;
        }
    }
    s->st.sessions = started;
    s->st.clients = started < s->cf.clients ? started : s->cf.clients;
    session_heap_free(&h);
    free(hist);
    return rc;
}

int
trace_synth_run(trace_synth_t *s, trace_synth_emit_pt emit, void *ctx)
{
    double last, scale;
    int    rc;

    /* once to learn the span, once scaled to the duration */
    if (run(s, 1, NULL, NULL, &last) != 0) {
        return -1;
    }
    scale = last > 0 ? s->cf.duration / last : 1;
    rc = run(s, scale, emit, ctx, &last);
    s->st.duration = last * scale;
    return rc;
}

void
trace_synth_stats(const trace_synth_t *s, trace_synth_stats_t *st)
{
    *st = s->st;
}
