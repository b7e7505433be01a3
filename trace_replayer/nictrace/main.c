/*
 * nictrace: trace tools.  So far: "nictrace stats", the statistics of the
 * paper's Table 1 for any trace the readers know (several read as one,
 * or "nictrace merge" of results read apart), "nictrace docroot",
 * which materialises a trace's files, "nictrace sessions", the
 * connection and pipeline grouping as statistics, "nictrace convert" to
 * the compact format, and "nictrace synth", a synthetic trace (synth.h).
 *
 * Definitions (also in --help and docs/traces.md):
 *   requests              records that parsed (every method and status)
 *   duration              latest minus earliest record time
 *   total response bytes  the byte counts of all requests ("-" is 0)
 *   average response size total response bytes / requests
 *   distinct files        objects (decoded path and query, objects.h) with
 *                         a successful transfer: status 200 or 206, bytes > 0
 *   data set size         the sum, over those files, of the largest such
 *                         transfer (the size nictrace docroot gives them)
 *   parse errors          lines or records that did not parse
 */

#include "lib/cli.h"
#include "nictrace/nictrace.h"

/* The command the options name: its exit status. */
static int
command(nictrace_opts_t *o)
{
    int json;

    json = o->json != NULL;
    if (o->nargs == 1 && strcmp(o->args[0], "synth") == 0) {
        /* its trace may be on standard output: the JSON goes apart */
        return nictrace_synth(o->synth_opt, o->out, o->json);
    }
    /* --json FILE: what the command prints as JSON goes there, opened
     * before the work */
    if (json && cli_stdout_to("nictrace", o->json) != 0) {
        return 1;
    }
    if (o->nargs == 2) {
        o->src.path = o->args[1];
    }
    if (o->nargs >= 2 && strcmp(o->args[0], "stats") == 0) {
        if (o->with_files && !json) {
            fprintf(stderr, "nictrace: --with-files goes with --json\n");
            return 2;
        }
        return nictrace_stats(&o->src, o->args + 1, o->nargs - 1, json,
                              o->with_files);
    }
    if (o->nargs >= 1 && strcmp(o->args[0], "merge") == 0) {
        return nictrace_merge(o->args + 1, o->nargs - 1, json);
    }
    if (o->nargs == 2 && strcmp(o->args[0], "docroot") == 0) {
        if (o->root == NULL) {
            fprintf(stderr, "nictrace: docroot needs --root DIR\n");
            return 2;
        }
        return nictrace_docroot(&o->src, o->root, json);
    }
    if (o->nargs == 2 && strcmp(o->args[0], "convert") == 0) {
        if (o->out == NULL) {
            fprintf(stderr, "nictrace: convert needs --out FILE\n");
            return 2;
        }
        return nictrace_convert(&o->src, o->out, json);
    }
    if (o->nargs == 2 && strcmp(o->args[0], "sessions") == 0) {
        return nictrace_sessions(&o->src, (long) o->conn_gap,
                                 (long) o->pipe_gap, json);
    }
    if (o->nargs >= 1 && strcmp(o->args[0], "stats") != 0
        && strcmp(o->args[0], "merge") != 0 && strcmp(o->args[0], "synth") != 0
        && strcmp(o->args[0], "docroot") != 0
        && strcmp(o->args[0], "sessions") != 0
        && strcmp(o->args[0], "convert") != 0) {
        return cli_usage("nictrace", "unknown command \"%s\"", o->args[0]);
    }
    return cli_usage("nictrace",
                     o->nargs == 0 ? "give a command (stats, merge, "
                                     "docroot, sessions, convert, synth)"
                                   : "\"%s\" wants other arguments",
                     o->args[0]);
}

int
main(int argc, char **argv)
{
    nictrace_opts_t o;
    int             rc;

    if ((rc = nictrace_options(&o, argc, argv)) >= 0) {
        return rc;
    }
    return command(&o);
}
