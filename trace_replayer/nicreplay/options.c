/*
 * nicreplay's command line (nicreplay.h): the options into the run's
 * conf_t and a nicreplay_opts_t, checked together (--rate or --speed,
 * --poisson with --rate, one output on standard output).
 */

#include "nicreplay/nicreplay.h"

static void
usage(FILE *out)
{
    fprintf(
        out,
        "usage: nicreplay [OPTIONS] TRACE http[s]://HOST[:PORT]/ [URL...]\n"
        "       nicreplay merge RESULT.json... [HDR.log...] [--json FILE] "
        "[--hdr FILE]\n"
        "\n"
        "Replays the GET and HEAD requests of TRACE (a file, plain or gzip, "
        "or - for\nstandard input with --format) with infinite demand: each "
        "of -c users takes\nthe next session in trace order, opens a "
        "connection, sends each pipeline\ngroup back to back, reads the "
        "responses, and closes at the session's end.\n"
        "A client's request less than --conn-gap seconds after its previous "
        "one joins\nits session; less than --pipeline-gap seconds after it, "
        "its pipeline group.  With several URLs, session k goes to URL k "
        "mod n (as\nnicsim --split n gives connection k to cache k mod "
        "n).\n"
        "\n"
        "  -c, --connections N   users (simultaneous connections), default 1\n"
        "      --conn-gap S      default 15\n"
        "      --pipeline-gap S  default 5\n"
        "      --no-pipeline     one request at a time\n"
        "      --max-depth N     send a longer group in pieces of N "
        "(default 64)\n"
        "      --only-ok         only requests logged with a status below "
        "400\n"
        "      --duration S      stop after S (a duration: 30, 1.5s, "
        "250ms, 2m, 1h;\n"
        "                        so are the gaps and --timeout)\n"
        "      --requests N      stop after sending N requests\n"
        "      --loop            start the trace again at its end (a file)\n"
        "      --shard I/N       replay sessions I, I+N, I+2N, ... only\n"
        "      --http2           speak HTTP/2 (h2c with prior knowledge; "
        "over https,\n"
        "                        h2 by ALPN): a group's requests go as "
        "concurrent\n"
        "                        streams on the session's connection\n"
        "      --insecure        https: no certificate verification (a "
        "self-signed\n"
        "                        server); else the system's CAs, and the "
        "URL's host\n"
        "      --cacert FILE     https: trust the CAs in FILE (PEM) "
        "instead\n"
        "      --verify          check every body byte of 200 and 206 "
        "responses\n"
        "                        against nictrace docroot's generator\n"
        "      --as-logged       ask for what the log says was sent: a "
        "success of n\n"
        "                        bytes as a Range for the first n, a 304 as "
        "a\n"
        "                        conditional GET (If-None-Match: *), a "
        "success of\n"
        "                        no bytes as a HEAD (nicsim's stream)\n"
        "      --timeout S       a connection idle this long fails its "
        "requests\n"
        "                        (default 30)\n"
        "      --max-errors N|P%% connections that may fail to connect, a "
        "count or a\n"
        "                        share of those tried (default 0: the first "
        "stops and\n"
        "                        fails the run)\n"
        "      --host NAME       the Host header (default: from the "
        "URL)\n"
        "      --docroot DIR     send each request to the URL nictrace "
        "docroot gave its\n"
        "                        object (DIR's manifest), so successes, "
        "404s and\n"
        "                        redirects stay what they were\n"
        "      --manifest FILE   the same, naming the manifest itself\n"
        "      --rate R          open loop: request k goes out at k/R "
        "seconds (no\n"
        "                        pipelining; latency from the intended "
        "time)\n"
        "      --poisson         ... with exponential gaps of mean 1/R "
        "(seeded)\n"
        "      --speed X         timed replay: each group at its logged "
        "time, X times\n"
        "                        faster (1: real time)\n"
        "      --start-at T      begin at T, seconds since the epoch (a "
        "start barrier for\n"
        "                        shards on several machines; --json says "
        "when it began)\n"
        "      --hdr FILE        the latency histogram as an HdrHistogram "
        "log (1.3)\n"
        "      --by-url N        the N URLs with the most requests, bytes "
        "and latency\n"
        "      --by-size[=specweb|pow2]  requests, bytes and latency by "
        "response size\n" TRACE_SRC_USAGE
        "      --json FILE       write the results as JSON (- for stdout)\n"
        "      --log FILE        one line per request: session, method, "
        "target,\n"
        "                        status (0: none), body bytes, latency us\n"
        "      --csv FILE        the same as CSV with a header row and "
        "each failed\n"
        "                        request's error (- for stdout)\n"
        "      --csv-seconds FILE  a CSV row a second: answered, failed, "
        "body bytes,\n"
        "                        latency p50, p90, p99, max (us)\n"
        "  -q, --quiet           no progress line\n"
        "  -h, --help            this text\n"
        "      --version         the version and the compiled features\n"
        "\n"
        "Errors: connect (could not connect), reset (the connection broke "
        "with\nrequests unanswered), timeout, parse (not an HTTP/1.x "
        "response).  A server\nclosing a persistent connection is not an "
        "error: unanswered requests are\nsent again on a new connection "
        "(reconnects).\nThe summary counts them by cause with the system's "
        "reason "
        "(\"connect:\nConnection refused 3\"); a failed run's begins "
        "\"FAILED: WHY\".\n"
        "\n"
        "Exit status: 0 when the run did what was asked; 1 when it did not "
        "(no record\nparsed, nothing answered, connect errors past "
        "--max-errors, mismatches under\n--verify, a read error), with one "
        "line saying why (the summary, --json's\n\"run_failed\", --log and "
        "--hdr are still written, and say so); 2 for a bad\ncommand line; "
        "130 when interrupted.\n");
}

static int
parse_count(const char *s, const char *what, uint64_t *out)
{
    return cli_count(s, out) != 0
               ? cli_bad_value("nicreplay", what, s, "a count")
               : 0;
}

static int
parse_seconds(const char *s, const char *what, double *out)
{
    return cli_seconds(s, out) != 0 ? cli_bad_value(
               "nicreplay", what, s, "a duration (30, 1.5s, 250ms, 2m, 1h)")
                                    : 0;
}

/* One option (ch, its value arg) into rp and o: -1 to go on, else the
 * exit status after saying why. */
static int
option(replay_t *rp, nicreplay_opts_t *o, int ch, const char *arg)
{
    uint64_t v;
    double   gap;

    switch (ch) {
    case 'c':
        if (parse_count(arg, "-c", &v) != 0 || v == 0 || v > 1000000) {
            fprintf(stderr, "nicreplay: -c wants 1 to 1000000\n");
            return 2;
        }
        rp->cf.conns = (int) v;
        break;
    case 'g':
    case 'p':
        if (parse_seconds(arg, ch == 'g' ? "--conn-gap" : "--pipeline-gap",
                          &gap)
            != 0) {
            return 2;
        }
        *(ch == 'g' ? &o->fo.conn_gap : &o->fo.pipeline_gap) = (int64_t) gap;
        break;
    case 'P': o->fo.no_pipeline = 1; break;
    case 'D':
        if (parse_count(arg, "--max-depth", &v) != 0) {
            return 2;
        }
        if (v == 0) {
            fprintf(stderr, "nicreplay: --max-depth: at least 1 (1 is "
                            "--no-pipeline)\n");
            return 2;
        }
        rp->cf.max_depth = (size_t) v;
        break;
    case 'o': o->fo.only_ok = 1; break;
    case 'd':
        if (parse_seconds(arg, "--duration", &rp->cf.duration) != 0) {
            return 2;
        }
        break;
    case 'n':
        if (parse_count(arg, "--requests", &rp->cf.max_requests) != 0) {
            return 2;
        }
        break;
    case 'L': o->fo.loop = 1; break;
    case 's': {
        unsigned long long i, n;
        int                used = 0;

        if (sscanf(arg, "%llu/%llu%n", &i, &n, &used) != 2 || arg[used] != '\0'
            || n == 0 || i >= n) {
            fprintf(stderr, "nicreplay: --shard wants I/N with 0 <= I < N\n");
            return 2;
        }
        o->fo.shard = i;
        o->fo.shards = n;
        break;
    }
    case 'V': rp->cf.verify = 1; break;
    case '2': rp->cf.http2 = 1; break;
    case 'k': rp->cf.insecure = 1; break;
    case 'C': rp->cf.cacert = arg; break;
    case 0x7101:
        if (hclient_limit_parse(arg, &rp->cf.max_errors) != 0) {
            fprintf(stderr,
                    "nicreplay: --max-errors: \"%s\" is not a count "
                    "or a percentage\n",
                    arg);
            return 2;
        }
        break;
    case 'A': rp->cf.as_logged = 1; break;
    case 'r':
    case 'S': {
        char  *end;
        double x = strtod(arg, &end);

        if (end == arg || *end != '\0' || !(x > 0) || x > 1e9) {
            fprintf(stderr, "nicreplay: %s wants a number above 0\n",
                    ch == 'r' ? "--rate" : "--speed");
            return 2;
        }
        *(ch == 'r' ? &rp->cf.rate : &rp->cf.speed) = x;
        break;
    }
    case 'Z' + 256: {
        char  *end;
        double x = strtod(arg, &end);

        if (end == arg || *end != '\0' || !(x > 0)) {
            fprintf(stderr, "nicreplay: --start-at wants a time in "
                            "seconds since the epoch\n");
            return 2;
        }
        rp->cf.start_at = x;
        break;
    }
    case 'O': rp->cf.poisson = 1; break;
    case 'T': rp->cf.hdr = arg; break;
    case 'U':
        if (parse_count(arg, "--by-url", &v) != 0 || v == 0 || v > 100000) {
            fprintf(stderr, "nicreplay: --by-url wants 1 to 100000\n");
            return 2;
        }
        o->by_url = (unsigned) v;
        break;
    case 'Z':
        if (arg == NULL || strcmp(arg, "specweb") == 0) {
            o->by_size = BY_SIZE_SPECWEB;
        } else if (strcmp(arg, "pow2") == 0) {
            o->by_size = BY_SIZE_POW2;
        } else {
            fprintf(stderr, "nicreplay: --by-size=specweb or --by-size=pow2\n");
            return 2;
        }
        break;
    case 't':
        if (parse_seconds(arg, "--timeout", &rp->cf.timeout) != 0) {
            return 2;
        }
        break;
    case 'H': o->host = arg; break;
    case 'M': o->fo.manifest = arg; break;
    case 'R':
        snprintf(o->manifest, sizeof(o->manifest), "%s/%s", arg,
                 TRACE_MANIFEST_NAME);
        o->fo.manifest = o->manifest;
        break;
    case 'j': o->json = arg; break;
    case 'l': o->log = arg; break;
    case 'X': o->csv = arg; break;
    case 'Y': o->csv_seconds = arg; break;
    case 'q': rp->cf.quiet = 1; break;
    case NICACHE_OPT_VERSION: trace_print_version("nicreplay"); return 0;
    case 'h': usage(stdout); return 0;
    default: return 2; /* cli_getopt said why */
    }
    return -1;
}

int
nicreplay_options(replay_t *rp, nicreplay_opts_t *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"connections", required_argument, NULL, 'c'},
        {"conn-gap", required_argument, NULL, 'g'},
        {"pipeline-gap", required_argument, NULL, 'p'},
        {"no-pipeline", no_argument, NULL, 'P'},
        {"max-depth", required_argument, NULL, 'D'},
        {"only-ok", no_argument, NULL, 'o'},
        {"duration", required_argument, NULL, 'd'},
        {"requests", required_argument, NULL, 'n'},
        {"loop", no_argument, NULL, 'L'},
        {"shard", required_argument, NULL, 's'},
        {"verify", no_argument, NULL, 'V'},
        {"http2", no_argument, NULL, '2'},
        {"insecure", no_argument, NULL, 'k'},
        {"cacert", required_argument, NULL, 'C'},
        {"max-errors", required_argument, NULL, 0x7101},
        {"as-logged", no_argument, NULL, 'A'},
        {"timeout", required_argument, NULL, 't'},
        {"host", required_argument, NULL, 'H'},
        TRACE_SRC_LONGOPTS,
        {"manifest", required_argument, NULL, 'M'},
        {"rate", required_argument, NULL, 'r'},
        {"poisson", no_argument, NULL, 'O'},
        {"speed", required_argument, NULL, 'S'},
        {"start-at", required_argument, NULL, 'Z' + 256},
        {"hdr", required_argument, NULL, 'T'},
        {"by-url", required_argument, NULL, 'U'},
        {"by-size", optional_argument, NULL, 'Z'},
        {"docroot", required_argument, NULL, 'R'},
        {"json", required_argument, NULL, 'j'},
        {"log", required_argument, NULL, 'l'},
        {"csv", required_argument, NULL, 'X'},
        {"csv-seconds", required_argument, NULL, 'Y'},
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char err[512];
    int  ch, rc;

    memset(rp, 0, sizeof(*rp));
    memset(o, 0, sizeof(*o));
    rp->ep = -1;
    rp->rng = 0x9e3779b97f4a7c15ULL;
    o->fo.src = (trace_src_t) TRACE_SRC_INIT;
    o->fo.conn_gap = 15;
    o->fo.pipeline_gap = 5;
    o->fo.shards = 1;
    rp->cf.conns = 1;
    rp->cf.timeout = 30;
    rp->cf.max_depth = 64;

    while ((ch = cli_getopt("nicreplay", argc, argv, "c:qh", longopts)) != -1) {
        rc = trace_src_option(&o->fo.src, ch, optarg, err, sizeof(err));
        if (rc != 0) {
            if (rc < 0) {
                fprintf(stderr, "nicreplay: %s\n", err);
                return 2;
            }
            continue;
        }
        if ((rc = option(rp, o, ch, optarg)) >= 0) {
            return rc;
        }
    }
    if (argc - optind < 2) {
        return cli_usage("nicreplay", "give a TRACE and a URL");
    }
    if (argc - optind > 1 + MAX_SERVERS) {
        return cli_usage("nicreplay", "at most %d URLs", MAX_SERVERS);
    }
    o->on_stdout =
        (o->json != NULL && strcmp(o->json, "-") == 0)
        + (o->csv != NULL && strcmp(o->csv, "-") == 0)
        + (o->csv_seconds != NULL && strcmp(o->csv_seconds, "-") == 0)
        + (o->log != NULL && strcmp(o->log, "-") == 0)
        + (rp->cf.hdr != NULL && strcmp(rp->cf.hdr, "-") == 0);
    if (o->on_stdout > 1) {
        return cli_usage("nicreplay",
                         "one of --json, --csv, --csv-seconds, --log and "
                         "--hdr on standard output (-), not %d",
                         o->on_stdout);
    }
    if (o->fo.pipeline_gap > o->fo.conn_gap) {
        o->fo.pipeline_gap = o->fo.conn_gap;
    }
    if (rp->cf.rate > 0 && rp->cf.speed > 0) {
        fprintf(stderr, "nicreplay: --rate or --speed, not both\n");
        return 2;
    }
    if (rp->cf.poisson && rp->cf.rate == 0) {
        fprintf(stderr, "nicreplay: --poisson goes with --rate\n");
        return 2;
    }
    if (rp->cf.rate > 0) {
        o->fo.no_pipeline = 1; /* a request is what the rate counts */
    }
    o->trace = argv[optind];
    o->urls = argv + optind + 1;
    o->nurls = argc - optind - 1;
    return -1;
}
