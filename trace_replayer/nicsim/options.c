/*
 * nicsim's command line (nicsim.h): the options into a nicsim_conf_t,
 * checked together (a cache smaller than a block, --mrc with a policy
 * other than LRU, --warmup with OPT).
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/duration.h"
#include "util/size.h"
#include "util/version.h"
#include "lib/cli.h"
#include "nicsim/nicsim.h"

static void
usage(FILE *out)
{
    const snic_policy_t *const *p;

    fprintf(out,
            "usage: nicsim TRACE [--sizes 64k,128k,...] [--policy "
            "lru[,fifo,...]] [--block 4k]\n"
            "              [--split N [--nic K]] [--conn-gap S] "
            "[--warmup N|TIME] [TRACE OPTIONS]\n"
            "              [--mrc [--sample RATE | --sample-size N]] "
            "[--points N]\n"
            "              [--plot FILE.png] [--json FILE|-] [--csv]\n"
            "       nicsim merge RESULT.json... [--json FILE|-] [--csv]\n"
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
            "--nic K simulates only cache K of --split N (the others' "
            "requests are not\ncounted): the caches are independent, so "
            "machines can take one each, and\n\"nicsim merge\" adds their "
            "--json results up to the --split N result, exactly\n"
            "(nicsim-cluster does both).  merge also joins results of "
            "different sizes.\n"
            "\nMiss-ratio curves: --sizes takes a list (64k,1m), a range "
            "with a step\n(64k:16m:64k) or a range with --points N (N "
            "sizes evenly on a log scale,\nwhole blocks; --points alone: "
            "64k:16m).  --mrc gives LRU's result for every\nsize in one "
            "pass (stack distances; the same numbers as simulating each "
            "size);\n--sample RATE (0 < RATE <= 1) follows that share of "
            "the blocks: with --mrc\nSHARDS' estimate of the curve, "
            "without it each policy simulated in miniature\n(a cache of "
            "RATE times the blocks, on the followed blocks).  Estimates, "
            "for\ntraces of millions of blocks; the misses scaled by 1 / "
            "RATE.  --mrc\n--sample-size N follows at most N blocks a "
            "cache, the rate falling as\nmore come (SHARDS, fixed size: "
            "memory bounded whatever the trace).  --plot\n"
            "FILE.png draws the curves (python3-matplotlib).  --json FILE "
            "writes the\nresults as JSON (- for standard output, in place of "
            "the table); --csv\nprints them as CSV.\n"
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
            fprintf(stderr, "nicsim: --sizes: more than %d sizes\n", MAX_SIZES);
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

int
nicsim_options(nicsim_conf_t *cf, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sizes", required_argument, NULL, 's'},
        {"policy", required_argument, NULL, 'p'},
        {"block", required_argument, NULL, 'b'},
        {"split", required_argument, NULL, 'n'},
        {"conn-gap", required_argument, NULL, 'g'},
        {"nic", required_argument, NULL, 'K' + 256},
        TRACE_SRC_LONGOPTS,
        {"json", required_argument, NULL, 'j'},
        {"csv", no_argument, NULL, 'c'},
        {"repeat", required_argument, NULL, 'R'},
        {"oracle-out", required_argument, NULL, 'O'},
        {"warmup", required_argument, NULL, 'W' + 256},
        {"mrc", no_argument, NULL, 'M' + 256},
        {"sample", required_argument, NULL, 'S' + 256},
        {"sample-size", required_argument, NULL, 'Z' + 256},
        {"points", required_argument, NULL, 'P' + 256},
        {"plot", required_argument, NULL, 'L' + 256},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *sizes = DEFAULT_SIZES, *policies = "lru";
    char        err[512], list[512], *tok, *save;
    double      gap;
    int         points = 0, ch, rc, i;

    memset(cf, 0, sizeof(*cf));
    cf->src = (trace_src_t) TRACE_SRC_INIT;
    cf->block = 4096;
    cf->split = 1;
    cf->nic = -1;
    cf->gap = 15;
    cf->repeat = 1;
    cf->rate = 1;
    while ((ch = cli_getopt("nicsim", argc, argv, "h", longopts)) != -1) {
        rc = trace_src_option(&cf->src, ch, optarg, err, sizeof(err));
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
            if (parse_size(optarg, &cf->block) != 0 || cf->block > (1 << 30)
                || (cf->block & (cf->block - 1)) != 0) {
                fprintf(stderr,
                        "nicsim: --block \"%s\": a power of two up to 1g "
                        "(512, 4k, 64k)\n",
                        optarg);
                return 2;
            }
            break;
        case 'n':
            cf->split = atoi(optarg);
            if (cf->split < 1 || cf->split > MAX_SPLIT) {
                fprintf(stderr, "nicsim: --split takes 1 to %d\n", MAX_SPLIT);
                return 2;
            }
            break;
        case 'K' + 256: {
            char *end;
            long  k = strtol(optarg, &end, 10);

            if (*end != '\0' || end == optarg || k < 0 || k >= MAX_SPLIT) {
                fprintf(stderr, "nicsim: --nic takes a cache's number, 0 to "
                                "--split minus 1\n");
                return 2;
            }
            cf->nic = (int) k;
            break;
        }
        case 'R':
            cf->repeat = atol(optarg);
            if (cf->repeat < 1) {
                fprintf(stderr, "nicsim: --repeat takes a count >= 1\n");
                return 2;
            }
            break;
        case 'W' + 256:
            if (parse_warmup(optarg, &cf->warm_n, &cf->warm_s) != 0) {
                fprintf(stderr,
                        "nicsim: --warmup: \"%s\" is neither a number of "
                        "requests nor a time (30s, 10m, 1h, 1d)\n",
                        optarg);
                return 2;
            }
            break;
        case 'M' + 256: cf->want_mrc = 1; break;
        case 'S' + 256:
            cf->rate = strtod(optarg, &tok);
            if (*tok != '\0' || !(cf->rate > 0) || cf->rate > 1) {
                fprintf(stderr,
                        "nicsim: --sample \"%s\": a rate above 0 and at "
                        "most 1 (0.01 follows 1 %% of the blocks)\n",
                        optarg);
                return 2;
            }
            break;
        case 'Z' + 256:
            if (nicache_parse_size(optarg, &cf->max_blocks) != 0
                || cf->max_blocks == 0) {
                fprintf(stderr,
                        "nicsim: --sample-size \"%s\": a number of blocks "
                        "above 0 (64k is 65,536 blocks)\n",
                        optarg);
                return 2;
            }
            break;
        case 'P' + 256:
            points = atoi(optarg);
            if (points < 2 || points > MAX_SIZES) {
                fprintf(stderr, "nicsim: --points takes 2 to %d\n", MAX_SIZES);
                return 2;
            }
            break;
        case 'L' + 256: cf->plot = optarg; break;
        case 'O':
            cf->oracle = optarg;
            cf->want_opt = 1; /* the block stream is recorded */
            break;
        case 'j': cf->json_path = optarg; break;
        case 'c': cf->out = 2; break;
        case 'g':
            if (cli_seconds(optarg, &gap) != 0) {
                return cli_bad_value("nicsim", "--conn-gap", optarg,
                                     "a duration (15, 15s, 1m)");
            }
            cf->gap = (long) gap;
            break;
        case NICACHE_OPT_VERSION: trace_print_version("nicsim"); return 0;
        case 'h': usage(stdout); return 0;
        default: return 2; /* cli_getopt said why */
        }
    }
    if (argc - optind != 1) {
        return cli_usage(
            "nicsim", argc - optind == 0 ? "give a TRACE" : "one TRACE, not %d",
            argc - optind);
    }
    if (cf->json_path != NULL && strcmp(cf->json_path, "-") == 0) {
        if (cf->out == 2) {
            return cli_usage("nicsim", "--json - or --csv: one of them on "
                                       "standard output");
        }
        cf->out = 1;
    }
    cf->path = cf->src.path = argv[optind];
    if (strcmp(cf->path, "-") == 0) {
        fprintf(stderr, "nicsim: the trace is read twice: give a file\n");
        return 2;
    }

    cf->nsizes = parse_sizes(sizes, points, cf->block, cf->sizes);
    if (cf->nsizes < 0) {
        return 2;
    }
    snprintf(list, sizeof(list), "%s", policies);
    for (tok = strtok_r(list, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "opt") == 0 && cf->npol < MAX_POLICIES) {
            cf->pol[cf->npol++] = NULL;
            cf->want_opt = 1;
            continue;
        }
        if (cf->npol == MAX_POLICIES
            || (cf->pol[cf->npol] = snic_policy_find(tok)) == NULL) {
            fprintf(stderr, "nicsim: unknown policy \"%s\" (see --help)\n",
                    tok);
            return 2;
        }
        cf->npol++;
    }
    if (cf->nsizes == 0 || cf->npol == 0) {
        return cli_usage("nicsim", "give --sizes and --policy");
    }
    for (i = 0; i < cf->nsizes; i++) {
        if (cf->sizes[i] < cf->block) {
            char a[32], b[32];

            nicache_size_str(cf->sizes[i], a, sizeof(a));
            nicache_size_str(cf->block, b, sizeof(b));
            fprintf(stderr,
                    "nicsim: a cache of %s is smaller than one block (--block "
                    "%s): it could hold nothing\n",
                    a, b);
            return 2;
        }
    }
    if (cf->want_mrc
        && (cf->npol != 1 || cf->pol[0] != snic_policy_find("lru"))) {
        fprintf(stderr, "nicsim: --mrc draws LRU's curve in one pass; simulate "
                        "other policies size by size (without --mrc; with "
                        "--sample R, in miniature)\n");
        return 2;
    }
    if (cf->nic >= cf->split) {
        fprintf(stderr,
                "nicsim: --nic %d: there are --split %d caches, "
                "numbered from 0\n",
                cf->nic, cf->split);
        return 2;
    }
    if (cf->nic >= 0 && cf->oracle != NULL) {
        fprintf(stderr, "nicsim: --oracle-out writes cache 0's stream: not "
                        "with --nic\n");
        return 2;
    }
    if (cf->want_mrc && cf->oracle != NULL) {
        fprintf(stderr, "nicsim: --oracle-out records the blocks of a "
                        "simulation: not with --mrc\n");
        return 2;
    }
    cf->threshold = (uint64_t) (cf->rate * 18446744073709551616.0);
    if (cf->max_blocks > 0 && !cf->want_mrc) {
        fprintf(stderr, "nicsim: --sample-size bounds the curve's memory: "
                        "with --mrc\n");
        return 2;
    }
    if (cf->max_blocks > 0 && cf->rate < 1) {
        fprintf(stderr, "nicsim: --sample and --sample-size: one or the "
                        "other (a fixed rate, or a fixed size)\n");
        return 2;
    }
    if (cf->rate < 1 && cf->want_opt) {
        fprintf(stderr, "nicsim: --sample with opt or --oracle-out is not "
                        "supported (they need every access)\n");
        return 2;
    }
    if ((cf->warm_n > 0 || cf->warm_s > 0) && cf->want_opt) {
        fprintf(stderr, "nicsim: --warmup with opt is not supported (Belady's "
                        "choice looks at the whole sequence)\n");
        return 2;
    }
    /* the output is opened before the work: a bad path costs nothing */
    if (cf->json_path != NULL
        && (cf->json = cli_open_out("nicsim", cf->json_path)) == NULL) {
        return 1;
    }
    return -1;
}
