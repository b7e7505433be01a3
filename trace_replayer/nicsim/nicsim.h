/*
 * nicsim's parts: options.c reads the command line into a nicsim_conf_t,
 * sim.c runs the trace through the caches into a nicsim_run_t, report.c
 * prints it (main.c calls the three).  No state at file scope.
 */

#ifndef NICSIM_H
#define NICSIM_H

#include <stdint.h>
#include <stdio.h>

#include "sendfile_nic/snic_model.h"
#include "lib/models/files.h"
#include "lib/grow.h"
#include "lib/models/mrc.h"
#include "lib/models/opt.h"
#include "lib/formats/reader.h"
#include "lib/models/sessions.h"

#define MAX_SIZES     255
#define DEFAULT_SIZES "64k,128k,256k,512k,1m,2m,4m,8m,16m"
#define MAX_POLICIES  16
#define MAX_SPLIT     64

/* what the command line asks */
typedef struct {
    trace_src_t          src; /* the trace (read twice: a file) */
    const char          *path;
    uint64_t             sizes[MAX_SIZES];
    int                  nsizes;
    const snic_policy_t *pol[MAX_POLICIES]; /* NULL: Belady's OPT */
    int                  npol;
    uint64_t             block;
    int                  split;    /* caches; connection k to cache k % split */
    int                  nic;      /* --nic: only this cache (-1: all) */
    long                 gap;      /* --conn-gap, seconds */
    long                 repeat;   /* passes through warm caches */
    uint64_t             warm_n;   /* --warmup: records ... */
    double               warm_s;   /* ... or seconds of the trace */
    int                  want_mrc; /* --mrc (or --sample) */
    double               rate;     /* --sample */
    uint64_t             threshold;  /* follow a block: its hash below */
    uint64_t             max_blocks; /* --sample-size: at most, per cache */
    int                  want_opt;   /* OPT or --oracle-out: record blocks */
    const char          *oracle;     /* --oracle-out FILE */
    const char          *plot;       /* --plot FILE.png */
    int                  out;        /* standard output: 0 table, 1 JSON
                                        (--json -), 2 CSV */
    const char          *json_path;  /* --json FILE ("-": out is 1) */
    FILE                *json;       /* ... open (NULL: none, stdout: -) */
} nicsim_conf_t;

/* One cache size and policy, and what it saw (all its caches together). */
typedef struct {
    const snic_policy_t *policy; /* NULL: Belady's OPT */
    uint64_t             cache_bytes;
    snic_dir_t          *dir[MAX_SPLIT];
    uint64_t             cached; /* content bytes served from a cache */
    uint64_t             hits, misses, bypassed;
    uint64_t             requests, req_misses; /* with content; a miss: a
                                                  block of it missed */
    /* --sample in miniature (Waldspurger et al., ATC'17: a cache of rate
     * times the blocks, on the blocks whose hash SHARDS follows): the
     * block accesses and content bytes the size took, all counted, and the
     * bytes of the followed misses (scaled() makes them estimates) */
    uint64_t acc, in, lost;
} sim_t;

/* a run: the files, the caches and what they counted */
typedef struct {
    const nicsim_conf_t *cf;
    trace_files_t       *files;
    trace_sessions_t    *sess;
    sim_t               *sims; /* policy-major: pol[i], sizes[j] */
    int                  nsims;
    trace_mrc_t         *mrc[MAX_SPLIT];
    /* OPT needs the whole sequence: the accesses of each cache, recorded */
    trace_opt_seq_t *opt_seq[MAX_SPLIT];
    struct {
        uint32_t *id; /* a URL number's file id + 1; 0: not looked up;
                         UINT32_MAX: none */
        size_t    n;
    } memo;
    uint64_t content; /* content bytes counted */
    double   seconds; /* the passes took */
} nicsim_run_t;

/*
 * options.c: the command line into cf.  -1 to go on, else the exit
 * status (0 after --help or --version, 2 for a bad command line, having
 * said why).
 */
int nicsim_options(nicsim_conf_t *cf, int argc, char **argv);

/* sim.c: the trace through every cache: 0, or the exit status (1) after
 * saying why.  nicsim_free() whatever it returned. */
int  nicsim_run(nicsim_run_t *run, const nicsim_conf_t *cf);
void nicsim_free(nicsim_run_t *run);

/* report.c: the results on standard output (and --plot): 0 or 1. */
int nicsim_report(const nicsim_run_t *run);
/* the rows in out's form (0 a table, 1 JSON, 2 CSV); nic: --nic's cache,
 * written in the JSON, or -1 */
void nicsim_print_results(FILE *f, int out, const sim_t *sims, int nsims,
                          int split, uint64_t block, uint64_t content, int nic);

/* merge.c: "nicsim merge RESULT.json... [--json|--csv]": the --json
 * results of --nic runs (or of disjoint sizes) as one: the exit status */
int nicsim_merge(int argc, char **argv);

#endif /* NICSIM_H */
