/*
 * nicsim's run (nicsim.h): pass 1 learns the files and their sizes, pass 2
 * sends every transfer through every cache (or through the one-pass
 * curves), then OPT runs over the recorded accesses.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/size.h"
#include "nicsim/nicsim.h"

static int
opt_record(nicsim_run_t *run, int nic, uint64_t key, uint32_t used,
           uint64_t fsize)
{
    trace_opt_seq_t **q = &run->opt_seq[nic];

    if (*q == NULL && (*q = trace_opt_seq_new()) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    return trace_opt_seq_add(*q, key, used, fsize);
}

/*
 * The file of a record: the compact format numbers its URLs, so a URL's
 * file (or its absence) is looked up once and remembered by number,
 * instead of decoding and hashing the URL at every record (the largest
 * cost of a pass, measured with perf).  0, or -1: not a file.
 */
/* r's place in the memo, made when new (0); NULL when r has no URL
 * number or memory is short (the caller then looks the URL up) */
static uint32_t *
memo_of(nicsim_run_t *run, const trace_req_t *r)
{
    if (r->url_id == 0
        || trace_grow_zeroed(&run->memo.id, &run->memo.n,
                             (size_t) r->url_id + 1, sizeof(uint32_t), 1024)
               != 0) {
        return NULL;
    }
    return &run->memo.id[r->url_id];
}

static int
find_file(nicsim_run_t *run, const trace_req_t *r, uint64_t *fsize,
          uint32_t *id)
{
    trace_files_t *files = run->files;
    uint32_t      *m = memo_of(run, r);

    if (m == NULL) {
        return trace_files_find(files, r->url, r->url_len, fsize, id);
    }
    if (*m == 0) {
        *m = trace_files_find(files, r->url, r->url_len, fsize, id) == 0
                 ? *id + 1
                 : UINT32_MAX;
    }
    if (*m == UINT32_MAX) {
        return -1;
    }
    *id = *m - 1;
    *fsize = trace_files_size(files, *id);
    return 0;
}

/* Pass 1's account of r: the compact format's URL numbers remember the
 * file found, so a URL is decoded and hashed once, not at every record,
 * and pass 2 finds it remembered.  0 or -1 (out of memory). */
static int
learn_file(nicsim_run_t *run, const trace_req_t *r)
{
    uint32_t id = UINT32_MAX, *m = memo_of(run, r);

    if (m == NULL) {
        return trace_files_add(run->files, r);
    }
    if (*m != 0) {
        id = *m - 1; /* (pass 1 remembers files only, never "none") */
    }
    if (trace_files_add_as(run->files, r, &id) != 0) {
        return -1;
    }
    if (id != UINT32_MAX) {
        *m = id + 1;
    }
    return 0;
}

/* cache k is simulated here: all of them, or --nic's one */
static int
mine(const nicsim_conf_t *cf, int k)
{
    return cf->nic < 0 || cf->nic == k;
}

/*
 * What a request transfers: 0 with the cache it goes to (*conn, the
 * connection's number: only --split looks at it), its file's size and
 * number, when it carries content (a 200 or 206 of bytes > 0 of a file);
 * -1 when it carries none.
 */
static int
transfer_of(nicsim_run_t *run, const trace_req_t *r, uint64_t *conn,
            uint64_t *fsize, uint32_t *id)
{
    int opened, grouped;

    /* the connection only chooses among several caches */
    *conn =
        run->cf->split > 1 ? trace_session(run->sess, r, &opened, &grouped) : 0;
    if (!mine(run->cf, (int) (*conn % (uint64_t) run->cf->split))
        || (r->status != 200 && r->status != 206) || r->bytes == 0
        || find_file(run, r, fsize, id) != 0) {
        return -1;
    }
    return 0;
}

/* One request through the one-pass curves (--mrc), as simulate(). */
static void
simulate_mrc(nicsim_run_t *run, const trace_req_t *r, int counting)
{
    uint64_t fsize, conn;
    uint32_t id;

    if (transfer_of(run, r, &conn, &fsize, &id) != 0) {
        return;
    }
    run->content += counting ? r->bytes : 0;
    if (trace_mrc_request(run->mrc[conn % (uint64_t) run->cf->split], id, fsize,
                          r->bytes, counting)
        != 0) {
        fprintf(stderr, "nicsim: failed: out of memory for the curve\n");
        exit(1);
    }
}

/* a miniature cache's blocks: rate times k, at least one */
static uint64_t
miniature(uint64_t k, double rate)
{
    uint64_t m = (uint64_t) ((double) k * rate + 0.5);

    return m > 0 ? m : 1;
}

/* A miniature's counts as estimates of the whole: its misses scaled by
 * 1 / rate, the rest of the accesses and bytes hits (SHARDS_adj, as
 * mrc.c) */
static void
scaled(sim_t *s, double rate)
{
    uint64_t miss = (uint64_t) ((double) s->misses / rate + 0.5);
    uint64_t lost = (uint64_t) ((double) s->lost / rate + 0.5);

    s->misses = miss < s->acc ? miss : s->acc;
    s->hits = s->acc - s->misses;
    s->cached = lost < s->in ? s->in - lost : 0;
}

/* One request of the trace through every cache; counted unless it falls
 * in the warm-up (the caches fill either way). */
static void
simulate(nicsim_run_t *run, const trace_req_t *r, int counting)
{
    const nicsim_conf_t *cf = run->cf;
    uint64_t             fsize, conn, b, nblocks, used, block = cf->block;
    uint32_t             id;
    snic_block_id_t      bid;
    int                  i, ev, sampled = cf->rate < 1;

    if (transfer_of(run, r, &conn, &fsize, &id) != 0) {
        return;
    }
    run->content += counting ? r->bytes : 0;
    nblocks = (r->bytes + block - 1) / block;
    bid.dev = 0;
    bid.ino = id;
    for (b = 0; cf->want_opt && b < nblocks; b++) {
        used = r->bytes - b * block < block ? r->bytes - b * block : block;
        if (opt_record(run, (int) (conn % (uint64_t) cf->split),
                       (uint64_t) id << 32 | b, (uint32_t) used, fsize)
            != 0) {
            fprintf(stderr, "nicsim: opt: %s\n", strerror(errno));
            exit(1);
        }
    }
    for (i = 0; i < run->nsims; i++) {
        sim_t      *s = &run->sims[i];
        snic_dir_t *d = s->dir[conn % (uint64_t) cf->split];

        if (s->policy == NULL) {
            continue; /* OPT: after the pass */
        }
        if (d == NULL || fsize > s->cache_bytes) {
            if (counting) {
                s->bypassed += r->bytes;
                s->requests++;
                s->req_misses++;
            }
            continue;
        }
        {
            /* every block, or in miniature (--sample) only the blocks
             * whose hash SHARDS would follow (mrc.c's), through one loop:
             * one call of the directory's lookup and insert each, which
             * the compiler then inlines (5 % of nicsim's time, measured) */
            uint64_t hit = 0, hit_bytes = 0, followed = 0, lost = 0;

            for (b = 0; b < nblocks; b++) {
                if (sampled
                    && snic_mix(0, (uint64_t) id << 32 | b) >= cf->threshold) {
                    continue;
                }
                followed++;
                bid.block = b;
                used =
                    r->bytes - b * block < block ? r->bytes - b * block : block;
                if (snic_dir_lookup(d, &bid, 1) != SNIC_SLOT_NONE) {
                    hit_bytes += used;
                    hit++;
                } else {
                    snic_dir_insert(d, &bid, 1, &ev);
                    lost += used;
                }
            }
            if (counting && sampled) {
                /* the accesses and bytes counted whole (scaled()) */
                s->acc += nblocks;
                s->in += r->bytes;
                s->lost += lost;
                s->cached += hit_bytes;
                s->hits += hit;
                s->misses += followed - hit;
                if (followed > 0) {
                    s->requests++;
                    s->req_misses += hit < followed;
                }
                continue;
            }
            if (counting) {
                s->cached += hit_bytes;
                s->hits += hit;
                s->misses += nblocks - hit;
                s->requests++;
                s->req_misses += hit < nblocks;
            }
        }
    }
}

int
nicsim_run(nicsim_run_t *run, const nicsim_conf_t *cf)
{
    char            err[512];
    uint64_t        nrecords = 0, seen = 0; /* records of pass 2 */
    int64_t         t_first = 0;
    double          t_start;
    trace_reader_t *t;
    trace_req_t     r;
    long            rep;
    int             i, j, k, rc, counting;

    memset(run, 0, sizeof(*run));
    run->cf = cf;
    /* pass 1: the files and their sizes */
    t = trace_src_open(&cf->src, err, sizeof(err));
    run->files = trace_files_new();
    if (t == NULL || run->files == NULL) {
        fprintf(stderr, "nicsim: %s\n", t == NULL ? err : "out of memory");
        return 1;
    }
    while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
        if (learn_file(run, &r) != 0) {
            fprintf(stderr, "nicsim: out of memory\n");
            return 1;
        }
        nrecords++;
    }
    if (rc < 0 || nrecords == 0) {
        if (rc < 0) {
            fprintf(stderr, "nicsim: %s: %s\n", cf->path, err);
        } else {
            char why[512];

            fprintf(stderr, "nicsim: failed: %s\n",
                    trace_no_record_why(t, cf->path, why, sizeof(why)));
        }
        trace_close(t);
        return 1;
    }
    if (trace_late_failure(t, cf->path, err, sizeof(err)) != NULL) {
        fprintf(stderr, "nicsim: failed: %s\n", err);
        trace_close(t);
        return 1;
    }
    if (trace_bad_count(t) > 0) {
        fprintf(stderr,
                "nicsim: %llu lines of %s did not parse (nictrace "
                "stats lists them)\n",
                (unsigned long long) trace_bad_count(t), cf->path);
    }
    trace_close(t);

    run->nsims = cf->nsizes * cf->npol;
    run->sims = calloc((size_t) run->nsims, sizeof(sim_t));
    if (run->sims == NULL) {
        fprintf(stderr, "nicsim: out of memory\n");
        return 1;
    }
    for (i = 0; i < cf->npol; i++) {
        for (j = 0; j < cf->nsizes; j++) {
            sim_t *s = &run->sims[i * cf->nsizes + j];

            s->policy = cf->pol[i];
            s->cache_bytes = cf->sizes[j];
            for (k = 0; k < cf->split; k++) {
                /* in miniature (--sample): rate times the blocks */
                if (!mine(cf, k)) {
                    continue; /* --nic: another machine's */
                }
                uint64_t slots =
                    cf->rate < 1 ? miniature(cf->sizes[j] / cf->block, cf->rate)
                                 : cf->sizes[j] / cf->block;

                if (slots >= UINT32_MAX) {
                    fprintf(stderr,
                            "nicsim: %llu blocks are too many for "
                            "one cache\n",
                            (unsigned long long) slots);
                    return 2;
                }
                /* a cache smaller than a block holds nothing: no
                 * directory, every transfer bypasses it */
                s->dir[k] = cf->pol[i] != NULL && slots > 0 && !cf->want_mrc
                                ? snic_dir_create((uint32_t) slots, cf->pol[i])
                                : NULL;
                if (cf->pol[i] != NULL && slots > 0 && !cf->want_mrc
                    && s->dir[k] == NULL) {
                    fprintf(stderr, "nicsim: out of memory\n");
                    return 1;
                }
            }
        }
    }

    for (k = 0; cf->want_mrc && k < cf->split; k++) {
        if (mine(cf, k)
            && (run->mrc[k] = trace_mrc_new(cf->sizes, cf->nsizes, cf->block,
                                            cf->rate, cf->max_blocks))
                   == NULL) {
            fprintf(stderr, "nicsim: out of memory\n");
            return 1;
        }
    }

    /* pass 2: every transfer through every cache (--repeat: the trace
     * again and again, the caches kept warm; for measuring speed) */
    run->sess = trace_sessions_new(cf->gap, cf->gap);
    if (run->sess == NULL) {
        fprintf(stderr, "nicsim: out of memory\n");
        return 1;
    }
    t_start = nicache_now_s();
    for (rep = 0; rep < cf->repeat; rep++) {
        t = trace_src_open(&cf->src, err, sizeof(err));
        if (t == NULL) {
            fprintf(stderr, "nicsim: %s\n", err);
            return 1;
        }
        while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
            if (seen++ == 0) {
                t_first = r.time;
            }
            counting = rep > 0
                       || (seen > cf->warm_n
                           && (double) (r.time - t_first) >= cf->warm_s);
            if (cf->want_mrc) {
                simulate_mrc(run, &r, counting);
            } else {
                simulate(run, &r, counting);
            }
        }
        if (rc < 0) {
            fprintf(stderr, "nicsim: %s: %s\n", cf->path, err);
            return 1;
        }
        trace_close(t);
    }
    run->seconds = nicache_now_s() - t_start;
    for (k = 0; cf->want_mrc && k < cf->split; k++) {
        if (!mine(cf, k)) {
            continue;
        }
        /* the curve's counters are nicsim's, summed over the caches */
        for (j = 0; j < cf->nsizes; j++) {
            trace_mrc_result_t m;
            sim_t             *s = &run->sims[j];

            trace_mrc_result(run->mrc[k], j, &m);
            s->hits += m.hits;
            s->misses += m.misses;
            s->cached += m.cached;
            s->bypassed += m.bypassed;
            s->requests += m.requests;
            s->req_misses += m.req_misses;
        }
        for (j = 0; k == (cf->nic < 0 ? 0 : cf->nic) && j < cf->nsizes; j++) {
            if (trace_mrc_coarse(run->mrc[k], j)) {
                char a[32];

                nicache_size_str(cf->sizes[j], a, sizeof(a));
                fprintf(stderr,
                        "nicsim: at %s the cache holds under 32 sampled "
                        "blocks: a coarse estimate (raise --sample, or "
                        "--mrc for the exact curve)\n",
                        a);
            }
        }
        fprintf(stderr,
                "nicsim: %s curve of cache %d (rate %.6g): %llu blocks "
                "followed, %.1f MiB\n",
                cf->rate < 1 || cf->max_blocks > 0 ? "sampled" : "exact", k,
                trace_mrc_rate(run->mrc[k]),
                (unsigned long long) trace_mrc_blocks(run->mrc[k]),
                (double) trace_mrc_memory(run->mrc[k]) / 1048576.0);
    }
    for (i = 0; cf->rate < 1 && !cf->want_mrc && i < run->nsims; i++) {
        scaled(&run->sims[i], cf->rate);
    }
    for (i = 0; i < run->nsims; i++) {
        sim_t   *s = &run->sims[i];
        uint64_t hits, cached, accesses;

        if (s->policy != NULL) {
            continue;
        }
        for (k = 0; k < cf->split; k++) {
            if (!mine(cf, k) || run->opt_seq[k] == NULL) {
                continue; /* (no access recorded: nothing counts) */
            }
            if (trace_opt(run->opt_seq[k],
                          (uint32_t) (s->cache_bytes / cf->block),
                          s->cache_bytes, &hits, &cached, &accesses)
                != 0) {
                fprintf(stderr, "nicsim: out of memory in opt\n");
                return 1;
            }
            s->hits += hits;
            s->misses += accesses - hits;
            s->cached += cached;
        }
    }
    if (cf->oracle != NULL) {
        /* the stream of the first cache (--split 1: all of it) */
        FILE *f = fopen(cf->oracle, "wb");

        if (f == NULL
            || (run->opt_seq[0] != NULL
                && trace_opt_write_oracle(run->opt_seq[0], (uint32_t) cf->block,
                                          f)
                       != 0)
                   != 0
            || fclose(f) != 0) {
            fprintf(stderr, "nicsim: --oracle-out %s: %s\n", cf->oracle,
                    strerror(errno ? errno : ENOMEM));
            return 1;
        }
    }

    return 0;
}

void
nicsim_free(nicsim_run_t *run)
{
    int i, k;

    for (i = 0; run->sims != NULL && i < run->nsims; i++) {
        for (k = 0; k < run->cf->split; k++) {
            snic_dir_destroy(run->sims[i].dir[k]);
        }
    }
    for (k = 0; k < MAX_SPLIT; k++) {
        trace_mrc_free(run->mrc[k]);
        trace_opt_seq_free(run->opt_seq[k]);
    }
    free(run->sims);
    free(run->memo.id);
    trace_sessions_free(run->sess);
    trace_files_free(run->files);
}
