/*
 * nictrace's command line (nictrace.h): the options into a
 * nictrace_opts_t; main.c runs the command.
 */

#include "lib/cli.h"
#include "nictrace/nictrace.h"

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: nictrace stats TRACE... [--json FILE|- [--with-files]] "
            "[OPTIONS]\n"
            "       nictrace merge STATS.json... [--json FILE|-]\n"
            "       nictrace docroot TRACE --root DIR [OPTIONS]\n"
            "       nictrace sessions TRACE [--conn-gap 15] [--pipeline-gap 5] "
            "[OPTIONS]\n"
            "       nictrace convert TRACE --out FILE [OPTIONS]\n"
            "       nictrace synth [--like nasa|worldcup] [--requests N] "
            "[--files F] [--zipf A]\n"
            "             [--sizes DIST] [--data-set B] [--avg-size B] "
            "[--max-size B]\n"
            "             [--clients C] [--duration S] [--locality P] "
            "[--start T] [--seed N]\n"
            "             [--out FILE[.gz]]\n"
            "options: --json FILE (- for standard output) writes the "
            "results as JSON,\nthe gaps are durations (15, 15s, 1m), "
            "and\n" TRACE_SRC_USAGE "  -h, --help            this text\n"
            "      --version         the version and the compiled features\n"
            "\n"
            "TRACE is a file (plain or gzip) or - for standard input (then "
            "give --format).\n"
            "stats prints the statistics of Kim, Rixner and Pai's Table 1:\n"
            "  requests       records that parsed (every method and status)\n"
            "  duration       latest minus earliest record time\n"
            "  total bytes    all byte counts (\"-\" counts 0)\n"
            "  average size   total bytes / requests\n"
            "  distinct files objects (path and query) with a 200 or 206 "
            "of more than 0 bytes\n"
            "  data set size  the sum of each such file's largest transfer\n"
            "  parse errors   lines or records that did not parse (the "
            "first ten are listed)\n"
            "Several TRACEs are read as their concatenation (late records "
            "are counted\nwithin each).  --with-files adds every file and its "
            "size to the JSON, and\nmerge gives the figures of several such "
            "results as one stats over all their\ntraces would: sums, the "
            "earliest and latest times, the files' tables joined\n(a trace "
            "a machine: nictrace-cluster stats).\n"
            "docroot makes a docroot that answers the trace as logged: a "
            "file per object\nthe log answered 2xx or 304 (its largest "
            "transfer; bytes that depend on\nname and offset only), a "
            "directory per redirect, nothing for 404s; names\nthat cannot "
            "be the object's own are listed in DIR/.nictrace-manifest\n"
            "(nicreplay --docroot DIR uses it; see docs/traces.md).\n"
            "synth writes a Common Log Format trace (to --out, else standard "
            "output) with\nexactly N requests to exactly F files: Zipf(A) "
            "popularity, sizes from DIST\n(surge, surge:MU,SIGMA,K,ALPHA,TAIL, "
            "lognormal:MU,SIGMA, pareto:K,ALPHA,\nfixed:B, uniform:MIN,MAX) "
            "scaled to the data set B and laid so that the\naverage response "
            "is --avg-size, temporal locality P, sessions of C clients\n"
            "over S seconds from T (epoch seconds or YYYY-MM-DD[THH:MM:SS], "
            "UTC).  --like\nsets Table 1's figures for NASA or World Cup "
            "(other options override them).\nDefaults: 10000 requests, 1000 "
            "files, Zipf 1, surge, locality 0.2, clients\nrequests/20, 3600 "
            "s, seed 1 (docs/traces.md).\n");
}

int
nictrace_options(nictrace_opts_t *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        TRACE_SRC_LONGOPTS,
        {"json", required_argument, NULL, 'j'},
        {"with-files", no_argument, NULL, 256 + SY_N},
        {"root", required_argument, NULL, 'r'},
        {"out", required_argument, NULL, 'o'},
        {"conn-gap", required_argument, NULL, 'g'},
        {"pipeline-gap", required_argument, NULL, 'p'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {"like", required_argument, NULL, 256 + SY_LIKE},
        {"requests", required_argument, NULL, 256 + SY_REQUESTS},
        {"files", required_argument, NULL, 256 + SY_FILES},
        {"zipf", required_argument, NULL, 256 + SY_ZIPF},
        {"sizes", required_argument, NULL, 256 + SY_SIZES},
        {"data-set", required_argument, NULL, 256 + SY_DATA_SET},
        {"avg-size", required_argument, NULL, 256 + SY_AVG_SIZE},
        {"max-size", required_argument, NULL, 256 + SY_MAX_SIZE},
        {"clients", required_argument, NULL, 256 + SY_CLIENTS},
        {"duration", required_argument, NULL, 256 + SY_DURATION},
        {"locality", required_argument, NULL, 256 + SY_LOCALITY},
        {"start", required_argument, NULL, 256 + SY_START},
        {"seed", required_argument, NULL, 256 + SY_SEED},
        {NULL, 0, NULL, 0},
    };
    char err[512];
    int  ch, rc;

    memset(o, 0, sizeof(*o));
    o->src = (trace_src_t) TRACE_SRC_INIT;
    o->conn_gap = 15;
    o->pipe_gap = 5;
    while ((ch = cli_getopt("nictrace", argc, argv, "h", longopts)) != -1) {
        rc = trace_src_option(&o->src, ch, optarg, err, sizeof(err));
        if (rc != 0) {
            if (rc < 0) {
                fprintf(stderr, "nictrace: %s\n", err);
                return 2;
            }
            continue;
        }
        switch (ch) {
        case 'j': o->json = optarg; break;
        case 256 + SY_N: o->with_files = 1; break;
        case 'r': o->root = optarg; break;
        case 'o': o->out = optarg; break;
        case 'g':
        case 'p':
            if (cli_seconds(optarg, ch == 'g' ? &o->conn_gap : &o->pipe_gap)
                != 0) {
                return cli_bad_value(
                    "nictrace", ch == 'g' ? "--conn-gap" : "--pipeline-gap",
                    optarg, "a duration (15, 15s, 1m)");
            }
            break;
        case NICACHE_OPT_VERSION: trace_print_version("nictrace"); return 0;
        case 'h': usage(stdout); return 0;
        default:
            if (ch >= 256 && ch < 256 + SY_N) {
                o->synth_opt[ch - 256] = optarg;
                break;
            }
            return 2; /* cli_getopt said why */
        }
    }
    o->args = argv + optind;
    o->nargs = argc - optind;
    return -1;
}
