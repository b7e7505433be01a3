/*
 * nicsim: how much HTTP content a network interface data cache would keep
 * off the interconnect (Kim, Rixner and Pai, Figure 3), by replaying a
 * trace through the same directory and replacement policies the nic
 * backend uses, without a network.
 *
 * Semantics (also in --help and docs/traces.md):
 * - a request with status 200 or 206 and a byte count above zero
 *   transfers that many bytes from the start of its file; other requests
 *   carry no content;
 * - a file's size is the largest such count seen for its path (the rule
 *   of nictrace docroot); it is read in a first pass over the trace;
 * - the file is cut into blocks of --block bytes; the blocks a transfer
 *   touches are looked up in order: a hit serves that block's bytes of
 *   the transfer from the cache, a miss inserts the block;
 * - a file larger than the cache bypasses it;
 * - --split N gives N caches, each of the size, and sends connection k
 *   (connections as nicreplay forms them, numbered as they open) to cache
 *   k mod N, as nicd's round-robin assignment would;
 * - share = content bytes served from a cache / all content bytes.
 * Every size and policy runs in the same pass.
 */

#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <time.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/util/version.h"
#include "../../src/sendfile_nic/nic/directory.h"
#include "../../src/util/duration.h"
#include "../../src/util/size.h"
#include "../lib/files.h"
#include "../lib/mrc.h"
#include "../lib/opt.h"
#include "../lib/reader.h"
#include "../lib/sessions.h"
#include "../../src/util/clock.h"

#define MAX_SIZES    255
#define DEFAULT_SIZES "64k,128k,256k,512k,1m,2m,4m,8m,16m"
#define MAX_POLICIES 16
#define MAX_SPLIT    64

typedef struct {
    const snic_policy_t *policy; /* NULL: Belady's OPT */
    uint64_t             cache_bytes;
    snic_dir_t          *dir[MAX_SPLIT];
    uint64_t             cached; /* content bytes served from a cache */
    uint64_t             hits, misses, bypassed;
    uint64_t             requests, req_misses; /* with content; a miss: a
                                                  block of it missed */
} sim_t;

/* OPT needs the whole sequence: the accesses of each cache, recorded */
typedef struct {
    opt_access_t *a;
    size_t        n, cap;
} opt_seq_t;

static opt_seq_t opt_seq[MAX_SPLIT];

static int want_opt;

static int
opt_record(int nic, uint64_t key, uint32_t used, uint64_t fsize)
{
    opt_seq_t *q = &opt_seq[nic];

    if (q->n == q->cap) {
        size_t        cap = q->cap ? q->cap * 2 : 4096;
        opt_access_t *a = realloc(q->a, cap * sizeof(*a));

        if (a == NULL) {
            return -1;
        }
        q->a = a;
        q->cap = cap;
    }
    q->a[q->n].key = key;
    q->a[q->n].used = used;
    q->a[q->n].fsize = fsize;
    q->n++;
    return 0;
}

static void
usage(FILE *out)
{
    const snic_policy_t *const *p;

    fprintf(out,
            "usage: nicsim TRACE [--sizes 64k,128k,...] [--policy "
            "lru[,fifo,...]] [--block 4k]\n"
            "              [--split N] [--conn-gap S] [--warmup N|TIME] "
            "[TRACE OPTIONS]\n"
            "              [--mrc [--sample RATE]] [--points N] [--plot "
            "FILE.png] [--json | --csv]\n"
            "\n"
            "Prints, per cache size and policy, the share of HTTP content "
            "bytes a NIC data\ncache would serve (they would not cross the "
            "interconnect).  Policies: opt (Belady, an upper bound: it "
            "knows the future)");
    for (p = snic_policies; *p != NULL; p++) {
        fprintf(out, " %s", (*p)->name);
    }
    fprintf(out,
            ".\n"
            "Semantics: a 200 or 206 of n > 0 bytes transfers the first n "
            "bytes of its\nfile; a file's size is the largest such n of its "
            "path; blocks are --block\nbytes (default 4k); a file larger "
            "than the cache bypasses it; --split N\nsends connection k (a "
            "client's requests less than --conn-gap, default 15 s,\napart) "
            "to cache k mod N, each cache of the given size.  share = "
            "content bytes\nserved from a cache / all content bytes; "
            "miss_ratio (of requests: one with a\nblock missed is a miss), "
            "byte_miss_ratio (1 - share) and block_miss_ratio as\n"
            "libCacheSim names them.  --warmup N (requests) or TIME (30s, "
            "10m, 1h, 1d of\nthe trace) fills the caches uncounted.  "
            "--block is a power of two; a cache\nsmaller than a block is "
            "refused.  The "
            "trace is read twice: a file,\nnot standard input.  --repeat N "
            "replays it N times through the same (warm) caches\nand is "
            "for measuring speed; the rate goes to stderr.\n"
            "--oracle-out FILE writes the block accesses (of cache 0 with "
            "--split) as\nlibCacheSim's oracleGeneral trace.\n"
            "\nMiss-ratio curves: --sizes takes a list (64k,1m), a range "
            "with a step\n(64k:16m:64k) or a range with --points N (N "
            "sizes evenly on a log scale,\nwhole blocks; --points alone: "
            "64k:16m).  --mrc gives LRU's result for every\nsize in one "
            "pass (stack distances; the same numbers as simulating each "
            "size);\n--sample RATE (0 < RATE <= 1) follows that share of "
            "the blocks (SHARDS,\nfixed rate: an estimate, for traces of "
            "millions of blocks; counts scaled by\n1 / RATE).  --plot "
            "FILE.png draws the curves (python3-matplotlib).\n"
            "\n  -h, --help            this text\n"
            "      --version         the version and the compiled features\n"
            "\nTrace options:\n" TRACE_SRC_USAGE);
}

/* a size above zero */
static int
parse_size(const char *s, uint64_t *out)
{
    return nicache_parse_size(s, out) != 0 || *out == 0 ? -1 : 0;
}

/*
 * --sizes: a list ("64k,1m,16m"), a range with a step ("64k:16m:64k"), or
 * a range cut into --points sizes evenly on a log scale ("64k:16m",
 * rounded down to whole blocks); --points alone takes 64k:16m.  The count,
 * or -1 after saying why.
 */
static int
parse_sizes(const char *text, int points, uint64_t block, uint64_t *out)
{
    char    *copy, *tok, *save, *p;
    uint64_t from, to, step = 0, v;
    int      n = 0, i;

    if (points > 0 && strchr(text, ':') == NULL) {
        if (strchr(text, ',') != NULL && strcmp(text, DEFAULT_SIZES) != 0) {
            fprintf(stderr, "nicsim: --points cuts a range: --sizes FROM:TO"
                            "\n");
            return -1;
        }
        text = "64k:16m";
    }
    if ((copy = strdup(text)) == NULL) {
        fprintf(stderr, "nicsim: out of memory\n");
        return -1;
    }
    if (strchr(copy, ':') == NULL) {
        for (tok = strtok_r(copy, ",", &save); tok != NULL;
             tok = strtok_r(NULL, ",", &save)) {
            if (n == MAX_SIZES || parse_size(tok, &out[n]) != 0) {
                fprintf(stderr, "nicsim: bad size \"%s\"\n", tok);
                free(copy);
                return -1;
            }
            n++;
        }
        free(copy);
        return n;
    }
    tok = strtok_r(copy, ":", &save);
    p = strtok_r(NULL, ":", &save);
    if (tok == NULL || p == NULL || parse_size(tok, &from) != 0
        || parse_size(p, &to) != 0 || to < from
        || ((p = strtok_r(NULL, ":", &save)) != NULL
            && (parse_size(p, &step) != 0 || points > 0))
        || (step == 0 && points == 0) || strtok_r(NULL, ":", &save) != NULL) {
        fprintf(stderr,
                "nicsim: --sizes \"%s\": FROM:TO:STEP, or FROM:TO with "
                "--points N\n",
                text);
        free(copy);
        return -1;
    }
    free(copy);
    for (i = 0; i < (step ? MAX_SIZES + 1 : points); i++) {
        if (step) {
            if (from + (uint64_t) i * step > to) {
                break;
            }
            v = from + (uint64_t) i * step;
        } else {
            double x = (double) from
                       * pow((double) to / (double) from,
                             (double) i / (double) (points - 1));

            v = (uint64_t) (x + 0.5) / block * block;
            v = v < block ? block : v;
            if (n > 0 && v <= out[n - 1]) {
                continue; /* sizes closer than a block */
            }
        }
        if (n == MAX_SIZES) {
            fprintf(stderr, "nicsim: --sizes: more than %d sizes\n",
                    MAX_SIZES);
            return -1;
        }
        out[n++] = v;
    }
    return n;
}

/* --warmup: a count of requests (a bare number), or a time of the trace
 * in nginx's syntax ("30s", "10m", "1h 30m"; util/duration.c) */
static int
parse_warmup(const char *s, uint64_t *n, double *secs)
{
    char              *end;
    unsigned long long v;
    long long          t;

    if (s[0] >= '0' && s[0] <= '9') {
        errno = 0;
        v = strtoull(s, &end, 10);
        if (*end == '\0' && errno == 0) {
            *n = v;
            return 0;
        }
    }
    if (nicache_parse_time(s, 1, &t) != 0) {
        return -1;
    }
    *secs = (double) t;
    return 0;
}

/*
 * The file of a record: the compact format numbers its URLs, so a URL's
 * file (or its absence) is looked up once and remembered by number,
 * instead of decoding and hashing the URL at every record (the largest
 * cost of a pass, measured with perf).  0, or -1: not a file.
 */
static struct {
    uint32_t *id; /* file id + 1; 0: not looked up; UINT32_MAX: none */
    uint32_t  n;
} memo;

static int
find_file(trace_files_t *files, const trace_req_t *r, uint64_t *fsize,
          uint32_t *id)
{
    uint32_t *m, n;

    if (r->url_id == 0) {
        return trace_files_find(files, r->url, r->url_len, fsize, id);
    }
    if (r->url_id >= memo.n) {
        for (n = memo.n ? memo.n : 1024; n <= r->url_id; n *= 2) {
        }
        m = realloc(memo.id, n * sizeof(uint32_t));
        if (m == NULL) {
            return trace_files_find(files, r->url, r->url_len, fsize, id);
        }
        memset(m + memo.n, 0, (n - memo.n) * sizeof(uint32_t));
        memo.id = m;
        memo.n = n;
    }
    if (memo.id[r->url_id] == 0) {
        memo.id[r->url_id] =
            trace_files_find(files, r->url, r->url_len, fsize, id) == 0
                ? *id + 1
                : UINT32_MAX;
    }
    if (memo.id[r->url_id] == UINT32_MAX) {
        return -1;
    }
    *id = memo.id[r->url_id] - 1;
    *fsize = trace_files_size(files, *id);
    return 0;
}

/*
 * What a request transfers: 0 with the cache it goes to (*conn, the
 * connection's number: only --split looks at it), its file's size and
 * number, when it carries content (a 200 or 206 of bytes > 0 of a file);
 * -1 when it carries none.
 */
static int
transfer_of(trace_files_t *files, trace_sessions_t *sess, const trace_req_t *r,
            int split, uint64_t *conn, uint64_t *fsize, uint32_t *id)
{
    int opened, grouped;

    /* the connection only chooses among several caches */
    *conn = split > 1 ? trace_session(sess, r, &opened, &grouped) : 0;
    if ((r->status != 200 && r->status != 206) || r->bytes == 0
        || find_file(files, r, fsize, id) != 0) {
        return -1;
    }
    return 0;
}

/* One request through the one-pass curves (--mrc), as simulate(). */
static void
simulate_mrc(trace_mrc_t **mrc, trace_files_t *files, trace_sessions_t *sess,
             const trace_req_t *r, int split, uint64_t *content, int counting)
{
    uint64_t fsize, conn;
    uint32_t id;

    if (transfer_of(files, sess, r, split, &conn, &fsize, &id) != 0) {
        return;
    }
    *content += counting ? r->bytes : 0;
    if (trace_mrc_request(mrc[conn % (uint64_t) split], id, fsize, r->bytes,
                          counting)
        != 0) {
        fprintf(stderr, "nicsim: failed: out of memory for the curve\n");
        exit(1);
    }
}

/* One request of the trace through every cache; counted unless it falls
 * in the warm-up (the caches fill either way). */
static void
simulate(sim_t *sims, int nsims, trace_files_t *files, trace_sessions_t *sess,
         const trace_req_t *r, uint64_t block, int split, uint64_t *content,
         int counting)
{
    uint64_t        fsize, conn, b, nblocks, used;
    uint32_t        id;
    snic_block_id_t bid;
    int             i, ev;

    if (transfer_of(files, sess, r, split, &conn, &fsize, &id) != 0) {
        return;
    }
    *content += counting ? r->bytes : 0;
    nblocks = (r->bytes + block - 1) / block;
    bid.dev = 0;
    bid.ino = id;
    for (b = 0; want_opt && b < nblocks; b++) {
        used = r->bytes - b * block < block ? r->bytes - b * block : block;
        if (opt_record((int) (conn % (uint64_t) split), (uint64_t) id << 32 | b,
                       (uint32_t) used, fsize)
            != 0) {
            fprintf(stderr, "nicsim: out of memory recording for opt\n");
            exit(1);
        }
    }
    for (i = 0; i < nsims; i++) {
        sim_t      *s = &sims[i];
        snic_dir_t *d = s->dir[conn % (uint64_t) split];

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
            uint64_t hit = 0, hit_bytes = 0;

            for (b = 0; b < nblocks; b++) {
                bid.block = b;
                used = r->bytes - b * block < block ? r->bytes - b * block
                                                    : block;
                if (snic_dir_lookup(d, &bid, 1) != SNIC_SLOT_NONE) {
                    hit_bytes += used;
                    hit++;
                } else {
                    snic_dir_insert(d, &bid, 1, &ev);
                }
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

/*
 * The results in out's form (0 a table, 1 JSON, 2 CSV) to f.  libCacheSim's
 * names: miss_ratio (of requests: one with a block missed, or bypassing
 * the cache, is a miss) and byte_miss_ratio; the paper's share is
 * 1 - byte_miss_ratio; and the block stream's.
 */
static void
print_results(FILE *f, int out, const sim_t *sims, int nsims, int split,
              uint64_t block, uint64_t content)
{
    int i;

    if (out == 2) {
        fprintf(f, "policy,cache_bytes,caches,block,share,cached_bytes,"
               "content_bytes,block_hits,block_misses,requests,miss_ratio,"
               "byte_miss_ratio,block_miss_ratio\n");
    } else if (out == 1) {
        fprintf(f, "[");
    } else {
        fprintf(f, "%-7s %8s %6s %10s %15s %7s %14s %12s\n", "policy", "cache",
               "caches", "miss ratio", "byte miss ratio", "share",
               "cached bytes", "block hits");
    }
    for (i = 0; i < nsims; i++) {
        const sim_t *s = &sims[i];
        double   share = content ? (double) s->cached / (double) content : 0;
        double   bmr = content ? 1 - share : 0;
        uint64_t acc = s->hits + s->misses;
        double   blmr = acc ? (double) s->misses / (double) acc : 0;
        double   mr = s->requests ? (double) s->req_misses / (double) s->requests
                                  : 0;
        int      has_req = s->policy != NULL; /* opt counts blocks only */
        char     h[32], mrs[32];

        snprintf(mrs, sizeof(mrs), "%.6f", mr);
        if (out == 2) {
            fprintf(f, "%s,%llu,%d,%llu,%.6f,%llu,%llu,%llu,%llu,%s%llu,%s,%.6f,"
                   "%.6f\n",
                   (s->policy != NULL ? s->policy->name : "opt"),
                   (unsigned long long) s->cache_bytes, split,
                   (unsigned long long) block, share,
                   (unsigned long long) s->cached, (unsigned long long) content,
                   (unsigned long long) s->hits,
                   (unsigned long long) s->misses, "",
                   (unsigned long long) s->requests, has_req ? mrs : "", bmr,
                   blmr);
        } else if (out == 1) {
            fprintf(f, "%s\n {\"policy\": \"%s\", \"cache_bytes\": %llu, "
                   "\"caches\": %d, \"block\": %llu, \"share\": %.6f, "
                   "\"cached_bytes\": %llu, \"content_bytes\": %llu, "
                   "\"block_hits\": %llu, \"block_misses\": %llu, "
                   "\"requests\": %llu, \"miss_ratio\": %s, "
                   "\"byte_miss_ratio\": %.6f, \"block_miss_ratio\": %.6f}",
                   i ? "," : "", (s->policy != NULL ? s->policy->name : "opt"),
                   (unsigned long long) s->cache_bytes, split,
                   (unsigned long long) block, share,
                   (unsigned long long) s->cached, (unsigned long long) content,
                   (unsigned long long) s->hits,
                   (unsigned long long) s->misses,
                   (unsigned long long) s->requests, has_req ? mrs : "null",
                   bmr, blmr);
        } else {
            nicache_size_str(s->cache_bytes, h, sizeof(h));
            snprintf(mrs, sizeof(mrs), has_req ? "%.4f" : "-", mr);
            fprintf(f, "%-7s %8s %6d %10s %15.4f %7.4f %14llu %12llu\n",
                   (s->policy != NULL ? s->policy->name : "opt"), h, split,
                   mrs, bmr, share, (unsigned long long) s->cached,
                   (unsigned long long) s->hits);
        }
    }
    if (out == 1) {
        fprintf(f, "\n]\n");
    }
}

/*
 * --plot: the results as CSV into nicsim-plot (beside this program, else
 * on PATH), which draws the miss-ratio curves into png.  0, or -1 after
 * saying why.
 */
static int
draw(const char *png, const char *trace, const sim_t *sims, int nsims,
     int split, uint64_t block, uint64_t content)
{
    char  self[PATH_MAX], script[PATH_MAX + 16], *slash;
    int   fds[2], status;
    pid_t pid;
    FILE *f;
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    snprintf(script, sizeof(script), "nicsim-plot");
    if (n > 0) {
        self[n] = '\0';
        if ((slash = strrchr(self, '/')) != NULL) {
            *slash = '\0';
            snprintf(script, sizeof(script), "%s/nicsim-plot", self);
            if (access(script, X_OK) != 0) {
                snprintf(script, sizeof(script), "nicsim-plot");
            }
        }
    }
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        fprintf(stderr, "nicsim: --plot: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(fds[0], 0);
        close(fds[0]);
        close(fds[1]);
        execlp(script, script, png, trace, (char *) NULL);
        fprintf(stderr, "nicsim: --plot: %s: %s\n", script, strerror(errno));
        _exit(127);
    }
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN); /* a script that died is said below */
    f = fdopen(fds[1], "w");
    if (f != NULL) {
        print_results(f, 2, sims, nsims, split, block, content);
        fclose(f);
    } else {
        close(fds[1]);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)
        || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "nicsim: failed: nicsim-plot could not draw %s "
                        "(python3-matplotlib installed?)\n", png);
        return -1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sizes", required_argument, NULL, 's'},
        {"policy", required_argument, NULL, 'p'},
        {"block", required_argument, NULL, 'b'},
        {"split", required_argument, NULL, 'n'},
        {"conn-gap", required_argument, NULL, 'g'},
        TRACE_SRC_LONGOPTS,
        {"json", no_argument, NULL, 'j'},
        {"csv", no_argument, NULL, 'c'},
        {"repeat", required_argument, NULL, 'R'},
        {"oracle-out", required_argument, NULL, 'O'},
        {"warmup", required_argument, NULL, 'W' + 256},
        {"mrc", no_argument, NULL, 'M' + 256},
        {"sample", required_argument, NULL, 'S' + 256},
        {"points", required_argument, NULL, 'P' + 256},
        {"plot", required_argument, NULL, 'L' + 256},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char          *sizes = DEFAULT_SIZES;
    const char          *policies = "lru", *path, *oracle = NULL;
    const char          *plot = NULL;
    trace_mrc_t         *mrc[MAX_SPLIT];
    double               rate = 1;   /* --sample */
    int                  want_mrc = 0, points = 0;
    trace_src_t          src = TRACE_SRC_INIT;
    char                 err[512], list[512], *tok, *save;
    uint64_t             size_v[MAX_SIZES], block = 4096, content = 0;
    uint64_t             nrecords = 0;
    uint64_t             warm_n = 0;   /* --warmup: records */
    double               warm_s = 0;   /* ... or seconds of the trace */
    const snic_policy_t *pol[MAX_POLICIES];
    int                  nsizes = 0, npol = 0, split = 1, out = 0, ch, rc;
    int                  i, j, k;
    long                 gap = 15, repeat = 1, rep;
    double               t_start, t_sim;
    uint64_t             seen = 0; /* records of pass 2 */
    int64_t              t_first = 0;
    trace_reader_t      *t;
    trace_files_t       *files;
    trace_sessions_t    *sess;
    trace_req_t          r;
    sim_t               *sims;
    int                  nsims;

    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        rc = trace_src_option(&src, ch, optarg, err, sizeof(err));
        if (rc != 0) {
            if (rc < 0) {
                fprintf(stderr, "nicsim: %s\n", err);
                return 2;
            }
            continue;
        }
        switch (ch) {
        case 's': sizes = optarg; break;
        case 'p': policies = optarg; break;
        case 'b':
            if (parse_size(optarg, &block) != 0 || block > (1 << 30)
                || (block & (block - 1)) != 0) {
                fprintf(stderr,
                        "nicsim: --block \"%s\": a power of two up to 1g "
                        "(512, 4k, 64k)\n",
                        optarg);
                return 2;
            }
            break;
        case 'n':
            split = atoi(optarg);
            if (split < 1 || split > MAX_SPLIT) {
                fprintf(stderr, "nicsim: --split takes 1 to %d\n", MAX_SPLIT);
                return 2;
            }
            break;
        case 'g': gap = atol(optarg); break;
        case 'R':
            repeat = atol(optarg);
            if (repeat < 1) {
                fprintf(stderr, "nicsim: --repeat takes a count >= 1\n");
                return 2;
            }
            break;
        case 'W' + 256:
            if (parse_warmup(optarg, &warm_n, &warm_s) != 0) {
                fprintf(stderr,
                        "nicsim: --warmup: \"%s\" is neither a number of "
                        "requests nor a time (30s, 10m, 1h, 1d)\n",
                        optarg);
                return 2;
            }
            break;
        case 'M' + 256: want_mrc = 1; break;
        case 'S' + 256:
            rate = strtod(optarg, &tok);
            if (*tok != '\0' || !(rate > 0) || rate > 1) {
                fprintf(stderr,
                        "nicsim: --sample \"%s\": a rate above 0 and at "
                        "most 1 (0.01 follows 1 %% of the blocks)\n",
                        optarg);
                return 2;
            }
            want_mrc = 1;
            break;
        case 'P' + 256:
            points = atoi(optarg);
            if (points < 2 || points > MAX_SIZES) {
                fprintf(stderr, "nicsim: --points takes 2 to %d\n",
                        MAX_SIZES);
                return 2;
            }
            break;
        case 'L' + 256: plot = optarg; break;
        case 'O':
            oracle = optarg;
            want_opt = 1; /* the block stream is recorded */
            break;
        case 'j': out = 1; break;
        case 'c': out = 2; break;
        case NICACHE_OPT_VERSION:
            printf("%s (nicache) %s\nfeatures: gzip (zlib %s)\n", "nicsim",
                   NICACHE_VERSION, zlibVersion());
            return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 1) {
        usage(stderr);
        return 2;
    }
    path = src.path = argv[optind];
    if (strcmp(path, "-") == 0) {
        fprintf(stderr, "nicsim: the trace is read twice: give a file\n");
        return 2;
    }

    nsizes = parse_sizes(sizes, points, block, size_v);
    if (nsizes < 0) {
        return 2;
    }
    snprintf(list, sizeof(list), "%s", policies);
    for (tok = strtok_r(list, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "opt") == 0 && npol < MAX_POLICIES) {
            pol[npol++] = NULL;
            want_opt = 1;
            continue;
        }
        if (npol == MAX_POLICIES
            || (pol[npol] = snic_policy_find(tok)) == NULL) {
            fprintf(stderr, "nicsim: unknown policy \"%s\" (see --help)\n",
                    tok);
            return 2;
        }
        npol++;
    }
    if (nsizes == 0 || npol == 0) {
        usage(stderr);
        return 2;
    }
    for (i = 0; i < nsizes; i++) {
        if (size_v[i] < block) {
            char a[32], b[32];

            nicache_size_str(size_v[i], a, sizeof(a));
            nicache_size_str(block, b, sizeof(b));
            fprintf(stderr,
                    "nicsim: a cache of %s is smaller than one block (--block "
                    "%s): it could hold nothing\n",
                    a, b);
            return 2;
        }
    }
    if (want_mrc && (npol != 1 || pol[0] != snic_policy_find("lru"))) {
        fprintf(stderr, "nicsim: --mrc and --sample draw LRU's curve in one "
                        "pass; simulate other policies size by size (without "
                        "--mrc)\n");
        return 2;
    }
    if (want_mrc && oracle != NULL) {
        fprintf(stderr, "nicsim: --oracle-out records the blocks of a "
                        "simulation: not with --mrc\n");
        return 2;
    }
    if ((warm_n > 0 || warm_s > 0) && want_opt) {
        fprintf(stderr, "nicsim: --warmup with opt is not supported (Belady's "
                        "choice looks at the whole sequence)\n");
        return 2;
    }

    /* pass 1: the files and their sizes */
    t = trace_src_open(&src, err, sizeof(err));
    files = trace_files_new();
    if (t == NULL || files == NULL) {
        fprintf(stderr, "nicsim: %s\n", t == NULL ? err : "out of memory");
        return 1;
    }
    while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
        if (trace_files_add(files, &r) != 0) {
            fprintf(stderr, "nicsim: out of memory\n");
            return 1;
        }
        nrecords++;
    }
    if (rc < 0 || nrecords == 0) {
        if (rc < 0) {
            fprintf(stderr, "nicsim: %s: %s\n", path, err);
        } else {
            fprintf(stderr,
                    "nicsim: failed: no record of %s parsed (%llu lines did "
                    "not; the wrong --format?)\n",
                    path, (unsigned long long) trace_bad_count(t));
        }
        trace_close(t);
        trace_files_free(files);
        return 1;
    }
    if (trace_bad_count(t) > 0) {
        fprintf(stderr,
                "nicsim: %llu lines of %s did not parse (nictrace "
                "stats lists them)\n",
                (unsigned long long) trace_bad_count(t), path);
    }
    trace_close(t);

    nsims = nsizes * npol;
    sims = calloc((size_t) nsims, sizeof(sim_t));
    if (sims == NULL) {
        fprintf(stderr, "nicsim: out of memory\n");
        return 1;
    }
    for (i = 0; i < npol; i++) {
        for (j = 0; j < nsizes; j++) {
            sim_t *s = &sims[i * nsizes + j];

            s->policy = pol[i];
            s->cache_bytes = size_v[j];
            for (k = 0; k < split; k++) {
                uint64_t slots = size_v[j] / block;

                if (slots >= UINT32_MAX) {
                    fprintf(stderr,
                            "nicsim: %llu blocks are too many for "
                            "one cache\n",
                            (unsigned long long) slots);
                    return 2;
                }
                /* a cache smaller than a block holds nothing: no
                 * directory, every transfer bypasses it */
                s->dir[k] = pol[i] != NULL && slots > 0 && !want_mrc
                                ? snic_dir_create((uint32_t) slots, pol[i])
                                : NULL;
                if (pol[i] != NULL && slots > 0 && !want_mrc
                    && s->dir[k] == NULL) {
                    fprintf(stderr, "nicsim: out of memory\n");
                    return 1;
                }
            }
        }
    }

    for (k = 0; want_mrc && k < split; k++) {
        if ((mrc[k] = trace_mrc_new(size_v, nsizes, block, rate)) == NULL) {
            fprintf(stderr, "nicsim: out of memory\n");
            return 1;
        }
    }

    /* pass 2: every transfer through every cache (--repeat: the trace
     * again and again, the caches kept warm; for measuring speed) */
    sess = trace_sessions_new(gap, gap);
    if (sess == NULL) {
        fprintf(stderr, "nicsim: out of memory\n");
        return 1;
    }
    t_start = nicache_now_s();
    for (rep = 0; rep < repeat; rep++) {
        t = trace_src_open(&src, err, sizeof(err));
        if (t == NULL) {
            fprintf(stderr, "nicsim: %s\n", err);
            return 1;
        }
        while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
            if (seen++ == 0) {
                t_first = r.time;
            }
            int counting = rep > 0
                           || (seen > warm_n
                               && (double) (r.time - t_first) >= warm_s);

            if (want_mrc) {
                simulate_mrc(mrc, files, sess, &r, split, &content, counting);
            } else {
                simulate(sims, nsims, files, sess, &r, block, split, &content,
                         counting);
            }
        }
        if (rc < 0) {
            fprintf(stderr, "nicsim: %s: %s\n", path, err);
            return 1;
        }
        trace_close(t);
    }
    t_sim = nicache_now_s() - t_start;
    for (k = 0; want_mrc && k < split; k++) {
        /* the curve's counters are nicsim's, summed over the caches */
        for (j = 0; j < nsizes; j++) {
            trace_mrc_result_t m;

            trace_mrc_result(mrc[k], j, &m);
            sims[j].hits += m.hits;
            sims[j].misses += m.misses;
            sims[j].cached += m.cached;
            sims[j].bypassed += m.bypassed;
            sims[j].requests += m.requests;
            sims[j].req_misses += m.req_misses;
        }
        fprintf(stderr,
                "nicsim: %s curve of cache %d: %llu blocks followed, %.1f MiB"
                "\n",
                rate < 1 ? "sampled" : "exact", k,
                (unsigned long long) trace_mrc_blocks(mrc[k]),
                (double) trace_mrc_memory(mrc[k]) / 1048576.0);
        trace_mrc_free(mrc[k]);
    }
    for (i = 0; i < nsims; i++) {
        sim_t   *s = &sims[i];
        uint64_t hits, cached, accesses;
        size_t   a;

        if (s->policy != NULL) {
            continue;
        }
        for (k = 0; k < split; k++) {
            if (trace_opt(opt_seq[k].a, opt_seq[k].n,
                          (uint32_t) (s->cache_bytes / block), s->cache_bytes,
                          &hits, &cached)
                != 0) {
                fprintf(stderr, "nicsim: out of memory in opt\n");
                return 1;
            }
            for (accesses = 0, a = 0; a < opt_seq[k].n; a++) {
                accesses += opt_seq[k].a[a].fsize <= s->cache_bytes;
            }
            s->hits += hits;
            s->misses += accesses - hits;
            s->cached += cached;
        }
    }
    if (oracle != NULL) {
        /* the stream of the first cache (--split 1: all of it) */
        FILE *f = fopen(oracle, "wb");

        if (f == NULL
            || trace_opt_write_oracle(opt_seq[0].a, opt_seq[0].n,
                                      (uint32_t) block, f)
                   != 0
            || fclose(f) != 0) {
            fprintf(stderr, "nicsim: --oracle-out %s: %s\n", oracle,
                    strerror(errno ? errno : ENOMEM));
            return 1;
        }
    }
    for (k = 0; k < split; k++) {
        free(opt_seq[k].a);
    }

    if (repeat > 1 || t_sim > 2.0) {
        uint64_t accesses = 0;

        for (i = 0; i < nsims; i++) {
            accesses += sims[i].hits + sims[i].misses;
        }
        fprintf(stderr,
                "nicsim: %llu block accesses in %.2f s (%.1f M/s, "
                "trace reading included)\n",
                (unsigned long long) accesses, t_sim,
                t_sim > 0 ? (double) accesses / t_sim / 1e6 : 0);
    }

    print_results(stdout, out, sims, nsims, split, block, content);
    if (plot != NULL && draw(plot, path, sims, nsims, split, block, content)
                            != 0) {
        return 1;
    }
    for (i = 0; i < nsims; i++) {
        for (k = 0; k < split; k++) {
            snic_dir_destroy(sims[i].dir[k]);
        }
    }
    free(sims);
    trace_sessions_free(sess);
    trace_files_free(files);
    return 0;
}
