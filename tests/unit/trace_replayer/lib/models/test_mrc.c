/*
 * Unit tests of trace_replayer/lib/models/mrc.c: the one-pass curve against the nic
 * backend's own LRU directory run once per size, with nicsim's bypass rule
 * (a file larger than the cache skips it), hit for hit.
 */

#include "lib/models/mrc.c"
#include "sendfile_nic/snic_model.h"
#include "harness.h"

#define BLOCK 4096

static uint64_t
next(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* nicsim's simulate() for one LRU cache of size bytes */
static void
direct(snic_dir_t *d, uint64_t size, uint32_t file, uint64_t fsize,
       uint64_t bytes, trace_mrc_result_t *r)
{
    uint64_t        nb = (bytes + BLOCK - 1) / BLOCK, b, hit = 0, used;
    snic_block_id_t id = {0, file, 0};
    int             ev;

    if (fsize > size) {
        r->bypassed += bytes;
        r->requests++;
        r->req_misses++;
        return;
    }
    for (b = 0; b < nb; b++) {
        id.block = b;
        used = bytes - b * BLOCK < BLOCK ? bytes - b * BLOCK : BLOCK;
        if (snic_dir_lookup(d, &id, 1) != SNIC_SLOT_NONE) {
            r->cached += used;
            hit++;
        } else {
            snic_dir_insert(d, &id, 1, &ev);
        }
    }
    r->hits += hit;
    r->misses += nb - hit;
    r->requests++;
    r->req_misses += hit < nb;
}

/*
 * A Zipf-like mix of files of many sizes (some larger than the smaller
 * caches), requests of whole files and of prefixes, sizes given out of
 * order; the curve must equal the directory at every size.
 */
static void
run(uint64_t seed, int nfiles, int nreq, int warm)
{
    static const uint64_t sizes[] = {256 << 10, 16 << 10, 1 << 20,
                                     64 << 10,  8 << 10,  4 << 20};
    enum { K = sizeof(sizes) / sizeof(sizes[0]) };
    uint64_t            fsize[512], x = seed;
    snic_dir_t         *d[K];
    trace_mrc_result_t  want[K], got;
    trace_mrc_t        *m = trace_mrc_new(sizes, K, BLOCK, 1.0, 0);
    int                 i, n, bad = 0;

    CHECK(m != NULL);
    for (i = 0; i < nfiles; i++) {
        uint64_t r = next(&x) % 100;

        fsize[i] = r < 60   ? 1 + next(&x) % 8192
                   : r < 90 ? 1 + next(&x) % (128 << 10)
                            : 1 + next(&x) % (3 << 20);
    }
    for (i = 0; i < K; i++) {
        d[i] = snic_dir_create((uint32_t) (sizes[i] / BLOCK),
                               snic_policy_find("lru"));
        memset(&want[i], 0, sizeof(want[i]));
    }
    for (n = 0; n < nreq; n++) {
        /* popular files more often: the product of two uniforms */
        uint32_t f = (uint32_t) (next(&x) % (uint64_t) nfiles
                                 * (next(&x) % (uint64_t) nfiles)
                                 / (uint64_t) nfiles);
        uint64_t bytes =
            next(&x) % 4 == 0 ? 1 + next(&x) % fsize[f] : fsize[f];
        trace_mrc_result_t scratch;

        for (i = 0; i < K; i++) {
            memset(&scratch, 0, sizeof(scratch));
            direct(d[i], sizes[i], f, fsize[f], bytes,
                   n < warm ? &scratch : &want[i]);
        }
        CHECK_INT(trace_mrc_request(m, f, fsize[f], bytes, n >= warm), 0);
    }
    for (i = 0; i < K; i++) {
        trace_mrc_result(m, i, &got);
        bad += got.hits != want[i].hits || got.misses != want[i].misses
               || got.cached != want[i].cached
               || got.bypassed != want[i].bypassed
               || got.requests != want[i].requests
               || got.req_misses != want[i].req_misses;
        if (got.hits != want[i].hits) {
            fprintf(stderr, "size %llu: %llu hits, the directory %llu\n",
                    (unsigned long long) sizes[i],
                    (unsigned long long) got.hits,
                    (unsigned long long) want[i].hits);
        }
        CHECK(want[i].hits > 0);
        snic_dir_destroy(d[i]);
    }
    CHECK_INT(bad, 0);
    trace_mrc_free(m);
}

static void
test_equals_the_directory(void)
{
    run(1, 50, 20000, 0);
    run(7, 400, 60000, 0); /* the axes compact and grow many times */
    run(9, 300, 30000, 5000); /* a warm-up counts nothing */
}

/* A fixed-rate sample of half the blocks: within 0.02 of the exact curve
 * (measured: 0.005 at most), holding about half the blocks. */
static void
test_sampled(void)
{
    static const uint64_t sizes[] = {1 << 20, 8 << 20, 32 << 20};
    trace_mrc_t          *exact = trace_mrc_new(sizes, 3, BLOCK, 1.0, 0);
    trace_mrc_t          *half = trace_mrc_new(sizes, 3, BLOCK, 0.5, 0);
    trace_mrc_result_t    a, b;
    uint64_t              x = 3;
    double                mr[3];
    int                   n, i;

    CHECK(exact != NULL && half != NULL);
    for (n = 0; n < 200000; n++) {
        uint32_t f = (uint32_t) (next(&x) % 3000 * (next(&x) % 3000) / 3000);

        trace_mrc_request(exact, f, 20000, 20000, 1);
        trace_mrc_request(half, f, 20000, 20000, 1);
    }
    for (i = 0; i < 3; i++) {
        double ea, eb;

        trace_mrc_result(exact, i, &a);
        trace_mrc_result(half, i, &b);
        ea = (double) a.misses / (double) (a.hits + a.misses);
        eb = (double) b.misses / (double) (b.hits + b.misses);
        CHECK(ea - eb < 0.02 && eb - ea < 0.02);
        mr[i] = ea;
    }
    CHECK(mr[0] > mr[2] + 0.5); /* a curve, not a constant */
    CHECK(trace_mrc_blocks(half) < trace_mrc_blocks(exact) * 6 / 10);
    trace_mrc_free(exact);
    trace_mrc_free(half);
}

/*
 * SHARDS' fixed size: a bound above the distinct blocks never samples
 * (the exact curve, hit for hit); a bound of 2,000 of 15,000 blocks holds
 * at most 2,000, its rate falls, and its miss ratios stay within 0.03.
 */
static void
test_fixed_size(void)
{
    static const uint64_t sizes[] = {1 << 20, 8 << 20, 32 << 20};
    trace_mrc_t          *exact = trace_mrc_new(sizes, 3, BLOCK, 1.0, 0);
    trace_mrc_t          *roomy = trace_mrc_new(sizes, 3, BLOCK, 1.0, 100000);
    trace_mrc_t          *small = trace_mrc_new(sizes, 3, BLOCK, 1.0, 2000);
    trace_mrc_result_t    a, b, c;
    uint64_t              x = 5;
    int                   n, i;

    CHECK(exact != NULL && roomy != NULL && small != NULL);
    for (n = 0; n < 200000; n++) {
        uint32_t f = (uint32_t) (next(&x) % 3000 * (next(&x) % 3000) / 3000);

        trace_mrc_request(exact, f, 20000, 20000, 1);
        trace_mrc_request(roomy, f, 20000, 20000, 1);
        CHECK_INT(trace_mrc_request(small, f, 20000, 20000, 1), 0);
        if (trace_mrc_blocks(small) > 2000) {
            CHECK(trace_mrc_blocks(small) <= 2000);
            break;
        }
    }
    for (i = 0; i < 3; i++) {
        double ea, ec;

        trace_mrc_result(exact, i, &a);
        trace_mrc_result(roomy, i, &b);
        trace_mrc_result(small, i, &c);
        CHECK(a.hits == b.hits && a.misses == b.misses
              && a.cached == b.cached);
        ea = (double) a.misses / (double) (a.hits + a.misses);
        ec = (double) c.misses / (double) (c.hits + c.misses);
        CHECK(ea - ec < 0.03 && ec - ea < 0.03);
    }
    CHECK(trace_mrc_blocks(small) == 2000);
    CHECK(trace_mrc_rate(small) < 0.2 && trace_mrc_rate(roomy) == 1.0);
    trace_mrc_free(exact);
    trace_mrc_free(roomy);
    trace_mrc_free(small);
}

int
main(void)
{
    RUN(test_equals_the_directory);
    RUN(test_sampled);
    RUN(test_fixed_size);
    return harness_report("test_mrc");
}
