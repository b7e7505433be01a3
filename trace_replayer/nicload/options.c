/*
 * nicload's command line (nicload.h): the options into a load_t's
 * conf_t, checked together.
 */

#include "nicload/nicload.h"

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: nicload fileset --connections N --root DIR\n"
            "       nicload http[s]://HOST[:PORT]/ --connections N [--duration "
            "S] [--warmup S]\n"
            "               [--rate-per-conn 400k] [--mix static] "
            "[--fileset-connections N]\n"
            "               [--verify] [--timeout S] [--max-errors N|P%%] "
            "[--seed N]\n"
            "               [--json FILE] [--log FILE] [-q]\n"
            "       nicload http://HOST[:PORT]/ --search [--min N] [--max N] "
            "[--conform 0.95]\n"
            "               [--duration S] [--warmup S] [...]\n"
            "\n"
            "SPECweb99's static workload: N connections, each paced to "
            "--rate-per-conn\nbit/s (k and m are 1000s); one conforms when "
            "it received at least 80 %% of\nthat rate over the measurement, "
            "every request answered 200 with its bytes "
            "(--duration, default 30 s, after --warmup,\ndefault 5 s).  The "
            "file set must be made for at least N connections\n(nicload "
            "fileset, or --fileset-connections if it is larger); --search "
            "finds\nthe largest N, between --min (1) and --max (64), at "
            "which --conform of the\nconnections conform (default all), by "
            "bisection, the file set made for\n--max.  See docs/nicload.md.\n"
            "\n"
            "  -c, --connections N       simultaneous connections\n"
            "      --root DIR            where fileset makes the file set\n"
            "      --duration S          the measurement (default 30; S "
            "is a duration:\n"
            "                            30, 1.5s, 250ms, 2m, 1h)\n"
            "      --warmup S            before it (default 5)\n"
            "      --rate-per-conn R     bit/s a connection is paced to "
            "(default 400k)\n"
            "      --mix static|full     the static mix, or SPECweb99's "
            "full one\n"
            "      --dynamic-prefix P    the dynamic requests' prefix "
            "(default /specweb/)\n"
            "      --fileset-connections N  the file set was made for N "
            "(more than -c)\n"
            "      --verify              check every body byte\n"
            "      --insecure            https: no certificate verification "
            "(a self-signed\n"
            "                            server)\n"
            "      --cacert FILE         https: trust the CAs in FILE "
            "instead of the system's\n"
            "      --timeout S           a connection idle this long fails "
            "(default 30)\n"
            "      --max-errors N|P%%     connections that may fail to "
            "connect (default 0;\n"
            "                            past a count the run stops at "
            "once)\n"
            "      --seed N              of the request mix (default 1)\n"
            "      --json FILE           the results as JSON\n"
            "      --log FILE            one line per request\n"
            "      --search              find the capacity (with --min, "
            "--max, --conform)\n"
            "      --min N, --max N      the search's bounds (default 1, "
            "64)\n"
            "      --conform F           the share that must conform "
            "(default 1.0)\n"
            "  -q, --quiet               no progress line\n"
            "  -h, --help                this text\n"
            "      --version             the version and the compiled "
            "features\n"
            "\n"
            "Exit status: 0 when the run did what was asked; 1 when it did "
            "not (nothing\nanswers, the file set is smaller than the "
            "connections need, no request\nanswered, connections that could "
            "not connect past --max-errors (default 0),\nmismatches under "
            "--verify), with one line saying why (--json's \"run_failed\"\n"
            "says it too); 2 for a bad command line.\n");
}

/* "400k", "1.5m", "400000": bits per second (powers of 1000) */
static int
parse_rate(const char *s, double *out)
{
    char  *end;
    double v = strtod(s, &end);

    if (end == s || v <= 0) {
        return -1;
    }
    if (*end == 'k' || *end == 'K') {
        v *= 1e3;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v *= 1e6;
        end++;
    }
    *out = v;
    return *end == '\0' ? 0 : -1;
}

static int
parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;

    if (cli_count(s, &v) != 0 || v == 0 || v > 1000000) {
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

/* One option (ch, its value arg) into lp: -1 to go on, else the exit
 * status after saying why. */
static int
option(load_t *lp, int ch, const char *arg)
{
    const char *bad = NULL;
    char       *end;

    switch (ch) {
    case 'c':
        bad = parse_u32(arg, &lp->cf.conns) ? "--connections" : bad;
        break;
    case 'F':
        bad = parse_u32(arg, &lp->cf.fileset_conns) ? "--fileset-connections"
                                                    : bad;
        break;
    case 'm': bad = parse_u32(arg, &lp->cf.min) ? "--min" : bad; break;
    case 'x': bad = parse_u32(arg, &lp->cf.max) ? "--max" : bad; break;
    case 'r': lp->cf.fileset_root = arg; break;
    case 'E':
        bad =
            hclient_limit_parse(arg, &lp->cf.max_errors) ? "--max-errors" : bad;
        break;
    case 'd':
        bad = cli_seconds(arg, &lp->cf.duration) != 0 || !(lp->cf.duration > 0)
                  ? "--duration"
                  : bad;
        break;
    case 'w':
        bad = cli_seconds(arg, &lp->cf.warmup) != 0 ? "--warmup" : bad;
        break;
    case 't':
        bad = cli_seconds(arg, &lp->cf.timeout) != 0 || !(lp->cf.timeout > 0)
                  ? "--timeout"
                  : bad;
        break;
    case 'C':
        lp->cf.conform = strtod(arg, &end);
        bad = *end != '\0' || !(lp->cf.conform > 0 && lp->cf.conform <= 1)
                  ? "--conform"
                  : bad;
        break;
    case 'R':
        bad = parse_rate(arg, &lp->cf.rate) ? "--rate-per-conn" : bad;
        break;
    case 'M':
        if (strcmp(arg, "static") != 0 && strcmp(arg, "full") != 0) {
            fprintf(stderr, "nicload: --mix %s: \"static\" or \"full\"\n", arg);
            return 2;
        }
        lp->cf.full = strcmp(arg, "full") == 0;
        break;
    case 'P': lp->cf.prefix = arg; break;
    case 'v': lp->cf.verify = 1; break;
    case 's': bad = cli_count(arg, &lp->cf.seed) != 0 ? "--seed" : bad; break;
    case 'j': lp->cf.json = arg; break;
    case 'l': lp->cf.log = arg; break;
    case 'S': lp->cf.search = 1; break;
    case 'q': lp->cf.quiet = 1; break;
    case 'k': lp->cf.insecure = 1; break;
    case 'A': lp->cf.cacert = arg; break;
    case NICACHE_OPT_VERSION: trace_print_version("nicload"); return 0;
    case 'h': usage(stdout); return 0;
    default: return 2; /* cli_getopt said why */
    }
    return bad != NULL ? cli_bad_value("nicload", bad, arg, "a valid value")
                       : -1;
}

int
nicload_options(load_t *lp, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"connections", required_argument, NULL, 'c'},
        {"root", required_argument, NULL, 'r'},
        {"duration", required_argument, NULL, 'd'},
        {"warmup", required_argument, NULL, 'w'},
        {"rate-per-conn", required_argument, NULL, 'R'},
        {"mix", required_argument, NULL, 'M'},
        {"dynamic-prefix", required_argument, NULL, 'P'},
        {"fileset-connections", required_argument, NULL, 'F'},
        {"verify", no_argument, NULL, 'v'},
        {"insecure", no_argument, NULL, 'k'},
        {"cacert", required_argument, NULL, 'A'},
        {"max-errors", required_argument, NULL, 'E'},
        {"timeout", required_argument, NULL, 't'},
        {"seed", required_argument, NULL, 's'},
        {"json", required_argument, NULL, 'j'},
        {"log", required_argument, NULL, 'l'},
        {"search", no_argument, NULL, 'S'},
        {"min", required_argument, NULL, 'm'},
        {"max", required_argument, NULL, 'x'},
        {"conform", required_argument, NULL, 'C'},
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch, rc;

    memset(lp, 0, sizeof(*lp));
    lp->ep = -1;
    lp->cf.duration = 30;
    lp->cf.warmup = 5;
    lp->cf.timeout = 30;
    lp->cf.rate = 400000;
    lp->cf.conform = 1.0;
    lp->cf.min = 1;
    lp->cf.max = 64;
    lp->cf.seed = 1;
    lp->cf.prefix = "/specweb/";
    while ((ch = cli_getopt("nicload", argc, argv, "c:qh", longopts)) != -1) {
        if ((rc = option(lp, ch, optarg)) >= 0) {
            return rc;
        }
    }
    if (argc - optind == 1 && strcmp(argv[optind], "fileset") == 0) {
        if (lp->cf.conns == 0 || lp->cf.fileset_root == NULL) {
            fprintf(stderr, "nicload: fileset needs --connections N and "
                            "--root DIR\n");
            return 2;
        }
        return -1; /* main makes it */
    }
    if (argc - optind != 1) {
        return cli_usage("nicload",
                         argc - optind == 0 ? "give a URL (or fileset)"
                                            : "one URL, not %d",
                         argc - optind);
    }
    if ((lp->cf.conns == 0) == !lp->cf.search || lp->cf.min > lp->cf.max) {
        fprintf(stderr, "nicload: give --connections N, or --search (with "
                        "--min <= --max)\n");
        return 2;
    }
    lp->cf.url = argv[optind];
    return -1;
}
