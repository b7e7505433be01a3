/*
 * Synthetic access logs for when no real one is at hand (nictrace synth).
 *
 * What a synthetic trace has, in the terms of SURGE (Barford and Crovella,
 * "Generating representative Web workloads for network and server
 * performance evaluation", SIGMETRICS 1998) and of the paper's Table 1:
 *
 *   files        F files, each requested at least once, so the trace's
 *                distinct files are exactly F;
 *   popularity   file i (rank 0 the most popular) gets 1 request plus its
 *                share of the other N - F, drawn from Zipf(alpha):
 *                P(rank i) ~ 1 / (i + 1)^alpha;
 *   sizes        drawn from a distribution (SURGE's hybrid by default: a
 *                lognormal body and a Pareto tail), then scaled so that
 *                they sum to the data set size, and laid over the
 *                popularity ranks so that the average response size (total
 *                bytes / requests) is the one asked for (swaps between
 *                ranks; without a target, the mean file size: size
 *                independent of popularity on average);
 *   order        the requests of each file are sent in a random order,
 *                except that a share of them (the temporal locality)
 *                re-reference a file requested a little earlier: at a
 *                lognormal distance back in the request stream, as SURGE's
 *                stack distance model;
 *   sessions     users arrive as a Poisson process; each visits a
 *                geometric number of pages (mean 4), a page is a Pareto
 *                number of requests (SURGE's embedded references, k 1,
 *                alpha 2.43, at most 64) spaced by SURGE's active OFF time
 *                (Weibull, shape 1.46, scale 0.382 s), pages by its think
 *                time (Pareto, k 1 s, alpha 1.5, at most 300 s); a user is
 *                one of C clients, a client never in two sessions at once
 *                while another is free;
 *   time         the arrival rate is set for the whole trace to span the
 *                duration, and the trace is generated twice, the second
 *                time with every time scaled so that the last request is
 *                exactly at the duration.
 *
 * Every request is a GET answered 200 with the file's size, so a replay
 * through nictrace docroot answers all of it.  A seed makes it repeatable.
 */

#ifndef TRACE_SYNTH_H
#define TRACE_SYNTH_H

#include <stddef.h>
#include <stdint.h>

/* A size distribution: a kind and up to five parameters. */
typedef struct {
    const char *kind; /* "surge", "lognormal", "pareto", "fixed", "uniform" */
    double      p[5];
} trace_synth_sizes_t;

typedef struct {
    uint64_t            requests; /* N >= files */
    uint32_t            files;    /* F >= 1 */
    double              zipf;     /* alpha >= 0 */
    trace_synth_sizes_t sizes;
    uint64_t            data_set; /* the sum of file sizes; 0: as drawn */
    double              avg_size; /* bytes per request; 0: mean file size */
    uint64_t            max_size; /* no file larger */
    uint64_t            clients;  /* 0: requests / 20, at least 1 */
    double              duration; /* seconds from first to last request */
    double              locality; /* share of re-references, 0 .. 0.95 */
    int64_t             start;    /* epoch seconds of the first request */
    uint64_t            seed;
} trace_synth_cfg_t;

/* The defaults: 10,000 requests to 1,000 files, Zipf 1, SURGE sizes, an
 * hour, locality 0.2, starting 2026-01-01 00:00:00 UTC. */
void trace_synth_defaults(trace_synth_cfg_t *cfg);

/*
 * Set what the preset "nasa" or "worldcup" fixes (Table 1 of Kim, Rixner
 * and Pai: requests, files, data set, average size, duration; a start
 * date and a Zipf alpha of our choosing, docs/traces.md).  0, or -1 for
 * an unknown name.
 */
int trace_synth_preset(trace_synth_cfg_t *cfg, const char *name);

/* The presets' names, NULL-terminated. */
extern const char *const trace_synth_presets[];

/*
 * Parse "surge", "surge:MU,SIGMA,K,ALPHA,TAIL", "lognormal:MU,SIGMA",
 * "pareto:K,ALPHA", "fixed:BYTES" or "uniform:MIN,MAX" into *out.  0, or
 * -1 with the reason in err.
 */
int trace_synth_parse_sizes(const char *spec, trace_synth_sizes_t *out,
                            char *err, size_t errlen);

typedef struct trace_synth_s trace_synth_t;

/*
 * Draw the files (popularity and sizes, fitted to the targets).  NULL
 * with the reason in err when the configuration cannot be met (fewer
 * requests than files, an average size the sizes and popularity cannot
 * reach, ...) or memory ran out.
 */
trace_synth_t *trace_synth_new(const trace_synth_cfg_t *cfg, char *err,
                               size_t errlen);
void           trace_synth_free(trace_synth_t *s);

typedef struct {
    double   time;   /* seconds from the first request */
    uint64_t client; /* 1 .. clients */
    uint32_t file;   /* 0 .. files - 1, not the popularity rank */
    uint64_t size;
} trace_synth_req_t;

/* Called for each request in time order; non-zero stops the run. */
typedef int (*trace_synth_emit_pt)(void *ctx, const trace_synth_req_t *r);

/*
 * Generate the trace, calling emit for each request.  0, the emitter's
 * non-zero return, or -1 when memory ran out.
 */
int trace_synth_run(trace_synth_t *s, trace_synth_emit_pt emit, void *ctx);

/* The name of a file from the root ("/d012/f001234.gif"), into buf (64
 * bytes). */
void trace_synth_name(const trace_synth_t *s, uint32_t file, char *buf);

typedef struct {
    uint64_t requests, files, data_set, total_bytes, clients, sessions;
    double   duration;
} trace_synth_stats_t;

/* What was drawn (after trace_synth_run, sessions and clients too). */
void trace_synth_stats(const trace_synth_t *s, trace_synth_stats_t *st);

#endif /* TRACE_SYNTH_H */
