/* Unit tests of trace_replayer/lib/models/synth.c */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/models/synth.c"
#include "harness.h"

static void
test_parse_sizes(void)
{
    trace_synth_sizes_t d;
    char                err[256];

    CHECK_INT(trace_synth_parse_sizes("surge", &d, err, sizeof(err)), 0);
    CHECK_STR(d.kind, "surge");
    CHECK(d.p[0] == 9.357 && d.p[3] == 1.1 && d.p[4] == 0.07);
    CHECK_INT(trace_synth_parse_sizes("lognormal:8,1.5", &d, err, sizeof(err)),
              0);
    CHECK(d.p[0] == 8 && d.p[1] == 1.5);
    CHECK_INT(trace_synth_parse_sizes("fixed:4096", &d, err, sizeof(err)), 0);
    CHECK(d.p[0] == 4096);
    CHECK_INT(trace_synth_parse_sizes("normal", &d, err, sizeof(err)), -1);
    CHECK(strstr(err, "unknown size distribution") != NULL);
    CHECK_INT(trace_synth_parse_sizes("lognormal:8", &d, err, sizeof(err)),
              -1);
    CHECK(strstr(err, "MU,SIGMA") != NULL);
    CHECK_INT(trace_synth_parse_sizes("pareto:1,2,3", &d, err, sizeof(err)),
              -1);
    CHECK_INT(trace_synth_parse_sizes("uniform:9,3", &d, err, sizeof(err)),
              -1);
    CHECK_INT(trace_synth_parse_sizes("fixed:x", &d, err, sizeof(err)), -1);
}

typedef struct {
    uint64_t  n, bytes, clients_seen, near_repeats;
    double    first, last;
    int       ordered;
    uint32_t *per_file;
    uint32_t  recent[8];
    uint64_t  hash;
    unsigned char *client;
} seen_t;

static int
collect(void *ctx, const trace_synth_req_t *r)
{
    seen_t *s = ctx;
    int     i;

    if (s->n == 0) {
        s->first = r->time;
    } else if (r->time < s->last) {
        s->ordered = 0;
    }
    s->last = r->time;
    s->per_file[r->file]++;
    s->bytes += r->size;
    if (!s->client[r->client]) {
        s->client[r->client] = 1;
        s->clients_seen++;
    }
    for (i = 0; i < 8 && (uint64_t) i < s->n; i++) {
        if (s->recent[i] == r->file) {
            s->near_repeats++;
            break;
        }
    }
    s->recent[s->n % 8] = r->file;
    s->hash = (s->hash ^ r->file ^ (uint64_t) (r->time * 1000)) * 1099511628211ULL;
    s->n++;
    return 0;
}

static int
generate(const trace_synth_cfg_t *cf, seen_t *s)
{
    char           err[256];
    trace_synth_t *t = trace_synth_new(cf, err, sizeof(err));
    int            rc;

    memset(s, 0, sizeof(*s));
    s->ordered = 1;
    s->per_file = calloc(cf->files, sizeof(uint32_t));
    s->client = calloc(cf->clients + 2, 1);
    if (t == NULL) {
        fprintf(stderr, "trace_synth_new: %s\n", err);
        return -1;
    }
    rc = trace_synth_run(t, collect, s);
    trace_synth_free(t);
    return rc;
}

static void
seen_free(seen_t *s)
{
    free(s->per_file);
    free(s->client);
}

static void
test_targets(void)
{
    trace_synth_cfg_t cf;
    seen_t            s;
    uint32_t          i, zero = 0;

    trace_synth_defaults(&cf);
    cf.requests = 50000;
    cf.files = 2000;
    cf.data_set = 40000000; /* 20,000 B a file */
    cf.avg_size = 8000;     /* the popular files small */
    cf.clients = 300;
    cf.duration = 600;
    CHECK_INT(generate(&cf, &s), 0);
    CHECK_INT(s.n, 50000);
    CHECK(s.ordered);
    CHECK(s.first == 0);
    CHECK(fabs(s.last - 600) < 1e-6);
    for (i = 0; i < cf.files; i++) {
        zero += s.per_file[i] == 0;
    }
    CHECK_INT(zero, 0);
    CHECK(fabs((double) s.bytes / 50000 - 8000) < 8000 * 0.002);
    CHECK_INT(s.clients_seen, 300);
    seen_free(&s);
}

static void
test_data_set_exact(void)
{
    trace_synth_cfg_t   cf;
    trace_synth_stats_t st;
    trace_synth_t      *t;
    char                err[256];
    uint32_t            i;
    uint64_t            sum = 0, max = 0;

    trace_synth_defaults(&cf);
    cf.files = 3000;
    cf.data_set = 77777777;
    cf.max_size = 1000000;
    t = trace_synth_new(&cf, err, sizeof(err));
    CHECK(t != NULL);
    if (t == NULL) {
        return;
    }
    for (i = 0; i < cf.files; i++) {
        sum += t->size[i];
        max = t->size[i] > max ? t->size[i] : max;
        CHECK(t->size[i] >= 1);
    }
    CHECK_INT(sum, 77777777);
    CHECK(max <= 1000000);
    trace_synth_stats(t, &st);
    CHECK_INT(st.data_set, 77777777);
    CHECK_INT(st.files, 3000);
    trace_synth_free(t);
}

static void
test_repeatable(void)
{
    trace_synth_cfg_t cf;
    seen_t            a, b, c;

    trace_synth_defaults(&cf);
    cf.requests = 5000;
    cf.files = 300;
    cf.clients = 50;
    CHECK_INT(generate(&cf, &a), 0);
    CHECK_INT(generate(&cf, &b), 0);
    cf.seed = 2;
    CHECK_INT(generate(&cf, &c), 0);
    CHECK(a.hash == b.hash);
    CHECK(a.hash != c.hash);
    seen_free(&a);
    seen_free(&b);
    seen_free(&c);
}

/* a request that repeats one of the 8 before it: more with locality */
static void
test_locality(void)
{
    trace_synth_cfg_t cf;
    seen_t            none, some;

    trace_synth_defaults(&cf);
    cf.requests = 40000;
    cf.files = 4000;
    cf.zipf = 0.6;
    cf.clients = 100;
    cf.locality = 0;
    CHECK_INT(generate(&cf, &none), 0);
    cf.locality = 0.6;
    CHECK_INT(generate(&cf, &some), 0);
    CHECK(some.near_repeats > 2 * none.near_repeats);
    CHECK_INT(some.n, 40000);
    seen_free(&none);
    seen_free(&some);
}

static void
test_refusals(void)
{
    trace_synth_cfg_t cf;
    char              err[256];

    trace_synth_defaults(&cf);
    cf.requests = 10;
    cf.files = 20;
    CHECK(trace_synth_new(&cf, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "at least once") != NULL);
    trace_synth_defaults(&cf);
    cf.sizes.kind = "fixed";
    cf.sizes.p[0] = 1000;
    cf.avg_size = 5000; /* all files are 1000 bytes */
    CHECK(trace_synth_new(&cf, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "out of reach") != NULL);
    trace_synth_defaults(&cf);
    cf.data_set = 10; /* 1000 files */
    CHECK(trace_synth_new(&cf, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "cannot hold") != NULL);
    CHECK_INT(trace_synth_preset(&cf, "nasa"), 0);
    CHECK_INT(cf.requests, 1685904);
    CHECK_INT(cf.files, 4690);
    CHECK_INT(trace_synth_preset(&cf, "ibm"), -1);
}

int
main(void)
{
    RUN(test_parse_sizes);
    RUN(test_targets);
    RUN(test_data_set_exact);
    RUN(test_repeatable);
    RUN(test_locality);
    RUN(test_refusals);
    return harness_report("test_synth");
}
