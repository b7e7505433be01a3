/*
 * niccompare's command line (niccompare.h): the options into a cmp_t,
 * checked together, and every output made before any work.
 */

#include "lib/cli.h"
#include "niccompare/niccompare.h"

static void
usage(FILE *f)
{
    fprintf(f, "usage: niccompare TRACE [--sizes 0,4m,8m,16m] [--nics 2] "
               "[--testbed amd33[,amd66,...]]\n"
               "                  [--policy lru] [-c N] [--duration S] "
               "[--threads N] [--port P]\n"
               "                  [--workdir DIR [--keep]] [--json FILE] "
               "[--plots DIR] "
               "[--report FILE.md]\n"
               "                  [--http2] [--format F] [--mapping FILE] "
               "[-q]\n"
               "\n"
               "Answers \"how much would a NIC data cache save this server on "
               "this workload?\":\nfor each testbed and cache size (0: none), "
               "serves the trace's docroot with nicd\n(nic backend, paced by "
               "the testbed's bus and host models), replays the trace\nas "
               "logged with nicreplay (one URL per NIC), reads the counters, "
               "runs nicsim on\nthe same trace, and prints the paper's "
               "Figures 7a, 7b/7c, 3 and 4.\n"
               "\n"
               "  --sizes LIST    cache sizes per NIC (default 0,4m,8m,16m)\n"
               "  --nics N        emulated NICs (default 2, as the paper's "
               "server)\n"
               "  --testbed LIST  ");
    {
        const snic_testbed_t *t;

        for (t = snic_testbeds; t->name != NULL; t++) {
            fprintf(f, "%s%s", t == snic_testbeds ? "" : ", ", t->name);
        }
    }
    fprintf(
        f,
        " (default amd33)\n"
        "  --policy NAME   replacement policy (default lru)\n"
        "  -c N            replay connections (default 16)\n"
        "  --runs N        replays per configuration, in rounds over "
        "every one\n"
        "                  (default 5); medians with the order-statistic "
        "interval\n"
        "                  (with 5 runs the range, 93.75 %%; 95 %% from 6)\n"
        "  --until-ci P    more rounds until every gain's interval is "
        "narrower than P\n"
        "                  points, at most --max-runs (default 15)\n"
        "  --duration S    replay for S seconds (default: the whole "
        "trace)\n"
        "  --threads N     nicd worker threads (default 1)\n"
        "  --http2         replay over HTTP/2 (h2c): nicd's NIC listeners "
        "speak h2c,\n"
        "                  nicreplay --http2 sends each session's groups as "
        "streams\n"
        "  --port P        listen on P, P+1, ... (default: free ports)\n"
        "  --workdir DIR   docroot, configs, logs (made with its parents; "
        "default: a new\n                  directory under $TMPDIR)\n"
        "  --keep          keep the work directory niccompare made "
        "(one that was there\n                  is always kept)\n"
        "  --json FILE     one object per configuration (- for stdout)\n"
        "  --plots DIR     PNG figures (python3-matplotlib)\n"
        "  --report FILE   a Markdown page with the tables and figures\n"
        "  -q, --quiet     no progress lines\n"
        "  -h, --help      this text\n"
        "      --version   the version and the compiled features\n"
        "\nReading the trace (passed to nictrace, nicsim and nicreplay):\n"
        "%s",
        TRACE_SRC_USAGE);
}

/* an output file (NULL: none; "-": standard output) can be written:
 * made now, written at the end */
static int
check_out(const char *path)
{
    FILE *f;

    if (path == NULL || strcmp(path, "-") == 0) {
        return 0;
    }
    if ((f = cli_open_out("niccompare", path)) == NULL) {
        return -1;
    }
    fclose(f);
    return 0;
}

/* One option (ch, its value arg) into cp, the lists into *sizes and
 * *tbs: -1 to go on, else the exit status after saying why. */
static int
option(cmp_t *cp, int ch, char *arg, char **sizes, char **tbs)
{
    char *end;
    long  v;

    switch (ch) {
    case 's': *sizes = arg; break;
    case 't': *tbs = arg; break;
    case 'p': cp->o.policy = arg; break;
    case 'w': cp->o.workdir = arg; break;
    case 'j': cp->o.json = arg; break;
    case 'g': cp->o.plots = arg; break;
    case 'r': cp->o.report = arg; break;
    case 'f': cp->o.format = arg; break;
    case 'm': cp->o.mapping = arg; break;
    case 'W': cp->o.window = arg; break; /* the tools check it */
    case TRACE_OPT_HELD: cp->o.held = arg; break;
    case TRACE_OPT_TRUNC: cp->o.allow_truncated = 1; break;
    case TRACE_OPT_LATE: cp->o.allow_late = 1; break;
    case TRACE_OPT_SORT: cp->o.sort = 1; break;
    case 'q': cp->o.quiet = 1; break;
    case 'K': cp->o.keep = 1; break;
    case 'H': cp->o.http2 = 1; break;
    case 'd':
        if (cli_seconds(arg, &cp->o.duration) != 0 || !(cp->o.duration > 0)) {
            return cli_bad_value("niccompare", "--duration", arg,
                                 "a duration above 0 (30, 1.5s, 2m)");
        }
        break;
    case 'U':
        cp->o.until_ci = strtod(arg, &end);
        if (end == arg || *end != '\0' || !(cp->o.until_ci > 0)) {
            fprintf(stderr,
                    "niccompare: --until-ci: \"%s\" is not a width in "
                    "points above 0\n",
                    arg);
            return 2;
        }
        break;
    case 'n':
    case 'c':
    case 'T':
    case 'R':
    case 'X':
    case 'P':
        v = strtol(arg, &end, 10);
        if (end == arg || *end != '\0' || v < 1
            || v > (ch == 'n'                ? MAX_NICS
                    : ch == 'P'              ? 65535
                    : ch == 'R' || ch == 'X' ? MAX_REPEATS
                                             : 100000)) {
            fprintf(stderr, "niccompare: %s: \"%s\" is out of range\n",
                    ch == 'n'   ? "--nics"
                    : ch == 'c' ? "-c"
                    : ch == 'T' ? "--threads"
                    : ch == 'R' ? "--runs"
                    : ch == 'X' ? "--max-runs"
                                : "--port",
                    arg);
            return 2;
        }
        *(ch == 'n'   ? &cp->o.nics
          : ch == 'c' ? &cp->o.conns
          : ch == 'T' ? &cp->o.threads
          : ch == 'R' ? &cp->o.runs
          : ch == 'X' ? &cp->o.max_runs
                      : &cp->o.port) = (int) v;
        break;
    case NICACHE_OPT_VERSION: trace_print_version("niccompare"); return 0;
    case 'h': usage(stdout); return 0;
    default: return 2; /* cli_getopt said why */
    }
    return -1;
}

/* The lists and what they name, and the outputs made before any work:
 * 0, or the exit status after saying why. */
static int
check(cmp_t *cp, char *sizes, char *tbs)
{
    char *list, *tok, *save;
    int   i;

    for (list = sizes; (tok = strtok_r(list, ",", &save)) != NULL;
         list = NULL) {
        if (cp->o.nsizes == MAX_SIZES
            || nicache_parse_size(tok, &cp->o.sizes[cp->o.nsizes]) != 0
            || (cp->o.sizes[cp->o.nsizes] > 0
                && cp->o.sizes[cp->o.nsizes] < 4096)) {
            fprintf(stderr,
                    "niccompare: --sizes: \"%s\" is not a size (0, or 4k "
                    "and up, like 512k or 16m)\n",
                    tok);
            return 2;
        }
        cp->o.nsizes++;
    }
    for (i = 0; i < cp->o.nsizes && cp->o.sizes[i] != 0; i++) {
    }
    if (i == cp->o.nsizes) {
        /* every gain is against the uncached run: it is made */
        if (cp->o.nsizes == MAX_SIZES) {
            fprintf(stderr,
                    "niccompare: --sizes: at most %d with the "
                    "uncached 0 added\n",
                    MAX_SIZES - 1);
            return 2;
        }
        memmove(&cp->o.sizes[1], &cp->o.sizes[0],
                (size_t) cp->o.nsizes * sizeof(cp->o.sizes[0]));
        cp->o.sizes[0] = 0;
        cp->o.nsizes++;
        fprintf(stderr, "niccompare: --sizes has no 0: the uncached run "
                        "(size 0) is added, as every gain is against it\n");
    }
    for (list = tbs; (tok = strtok_r(list, ",", &save)) != NULL; list = NULL) {
        if (cp->o.ntestbeds == MAX_TESTBEDS || snic_testbed_find(tok) == NULL) {
            fprintf(stderr,
                    "niccompare: --testbed: no testbed \"%s\" (see "
                    "niccompare --help)\n",
                    tok);
            return 2;
        }
        cp->o.testbeds[cp->o.ntestbeds++] = tok;
    }
    if (snic_policy_find(cp->o.policy) == NULL) {
        fprintf(stderr, "niccompare: --policy: no policy \"%s\"\n",
                cp->o.policy);
        return 2;
    }
    /* every output made before the first run: a bad path costs nothing */
    if (check_out(cp->o.json) != 0 || check_out(cp->o.report) != 0) {
        return 1;
    }
    if (cp->o.plots != NULL && mkdir(cp->o.plots, 0755) != 0
        && errno != EEXIST) {
        fprintf(stderr, "niccompare: %s: %s\n", cp->o.plots, strerror(errno));
        return 1;
    }
    return 0;
}

int
niccompare_options(cmp_t *cp, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sizes", required_argument, NULL, 's'},
        {"nics", required_argument, NULL, 'n'},
        {"testbed", required_argument, NULL, 't'},
        {"policy", required_argument, NULL, 'p'},
        {"duration", required_argument, NULL, 'd'},
        {"threads", required_argument, NULL, 'T'},
        {"runs", required_argument, NULL, 'R'},
        {"until-ci", required_argument, NULL, 'U'},
        {"max-runs", required_argument, NULL, 'X'},
        {"port", required_argument, NULL, 'P'},
        {"workdir", required_argument, NULL, 'w'},
        {"json", required_argument, NULL, 'j'},
        {"plots", required_argument, NULL, 'g'},
        {"report", required_argument, NULL, 'r'},
        TRACE_SRC_LONGOPTS,
        {"quiet", no_argument, NULL, 'q'},
        {"keep", no_argument, NULL, 'K'},
        {"http2", no_argument, NULL, 'H'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static char sizes_default[] = "0,4m,8m,16m", tb_default[] = "amd33";
    char       *sizes = sizes_default, *tbs = tb_default, *slash;
    int         ch, i, j, rc;

    /* the command line as given (list options are cut in place below) */
    for (i = 0, j = 0; i < argc && (size_t) j < sizeof(cp->o.cmdline); i++) {
        j += snprintf(cp->o.cmdline + j, sizeof(cp->o.cmdline) - (size_t) j,
                      "%s%s", i ? " " : "", argv[i]);
    }
    cp->o.policy = "lru";
    cp->o.workdir = NULL; /* a new one under $TMPDIR */
    cp->o.nics = 2;
    cp->o.conns = 16;
    cp->o.runs = 5;
    cp->o.max_runs = 0; /* --runs, or 15 with --until-ci */
    cp->o.threads = 1;
    while ((ch = cli_getopt("niccompare", argc, argv, "c:qh", longopts))
           != -1) {
        if ((rc = option(cp, ch, optarg, &sizes, &tbs)) >= 0) {
            return rc;
        }
    }
    if (argc - optind != 1) {
        return cli_usage("niccompare",
                         argc - optind == 0 ? "give a TRACE"
                                            : "one TRACE, not %d",
                         argc - optind);
    }
    if (cp->o.max_runs == 0) {
        cp->o.max_runs = cp->o.until_ci > 0 ? 15 : cp->o.runs;
    }
    if (cp->o.max_runs < cp->o.runs) {
        fprintf(stderr, "niccompare: --max-runs is below --runs\n");
        return 2;
    }
    cp->o.trace = argv[optind];
    if (access(cp->o.trace, R_OK) != 0) {
        fprintf(stderr, "niccompare: %s: %s\n", cp->o.trace, strerror(errno));
        return 2;
    }
    if ((rc = check(cp, sizes, tbs)) != 0) {
        return rc;
    }
    /* the tools next to this program */
    snprintf(cp->o.bindir, sizeof(cp->o.bindir), "%s", argv[0]);
    slash = strrchr(cp->o.bindir, '/');
    if (slash != NULL) {
        *slash = '\0';
    } else {
        snprintf(cp->o.bindir, sizeof(cp->o.bindir), ".");
    }
    return -1;
}
