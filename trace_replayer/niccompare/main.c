/*
 * niccompare: how much would a data cache on the network interface save
 * this server on this workload?  One command, end to end:
 *
 *   1. the trace's docroot (nictrace docroot), reused when it was made
 *      from the same trace (a stamp file records path, size and mtime);
 *   2. every file read once, so the page cache holds the docroot (the
 *      paper's inclusion property wants the blocks in main memory);
 *   3. per testbed and cache size: nicd with the nic backend, one
 *      listener per NIC ("listen ... nic=K"), pacing on; nicreplay
 *      --as-logged --verify with one URL per NIC, so session k reaches
 *      NIC k mod n exactly as nicsim --split n assigns it; the counters
 *      from the server's status location; the server stopped;
 *   4. nicsim on the same trace, policy, sizes and split;
 *   5. the paper's tables (Figures 7a, 7b/7c, 3 and 4), and on request
 *      JSON, PNG plots (niccompare-plot, matplotlib) and a Markdown report.
 *
 * Cache size 0 is the baseline: the nic backend with no NIC memory, every
 * byte by normal DMA, through the same bus and host models.
 *
 * Every server it starts is stopped when it ends, whether a step failed,
 * the user pressed Ctrl-C or all went well.  Errors are one line on
 * stderr and exit status 1 (2 for usage).
 */

#include "lib/cli.h"
#include "niccompare/niccompare.h"

/*
 * The work directory into buf (absolute): --workdir DIR, made with its
 * parents when missing, else a new one under $TMPDIR (or /tmp).  One
 * niccompare made is removed at the end unless --keep; one that was there
 * is left as it is (its docroot is reused).  0, or 1 after saying why.
 */
static int
work_dir(cmp_t *cp, char *buf, size_t len)
{
    char        path[PATH_MAX], abs[PATH_MAX], *p;
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    int         made = 0;

    if (cp->o.workdir == NULL) {
        snprintf(path, sizeof(path), "%s/niccompare-XXXXXX",
                 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
        if (mkdtemp(path) == NULL) {
            fprintf(stderr, "niccompare: %s: %s\n", path, strerror(errno));
            return 1;
        }
        made = 1;
    } else {
        snprintf(path, sizeof(path), "%s", cp->o.workdir);
        made = stat(path, &st) != 0;
        errno = 0;
        /* the parents first, as mkdir -p */
        for (p = path + 1; made && (p = strchr(p, '/')) != NULL; p++) {
            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                fprintf(stderr, "niccompare: %s: %s\n", path, strerror(errno));
                return 1;
            }
            *p = '/';
        }
        if (made && mkdir(path, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "niccompare: %s: %s\n", path, strerror(errno));
            return 1;
        }
    }
    /* realpath() writes up to PATH_MAX bytes: into one that size */
    if (realpath(path, abs) == NULL || strlen(abs) >= len) {
        fprintf(stderr, "niccompare: %s: %s\n", path,
                errno ? strerror(errno) : "too long a path");
        return 1;
    }
    memcpy(buf, abs, strlen(abs) + 1);
    if (made && !cp->o.keep) {
        niccompare_remove_on_exit(buf);
    }
    return 0;
}

/* The comparison itself, the options read: the exit status. */
static int
compare(cmp_t *cp)
{
    double t0, eta;
    int    i, j;

    signal(SIGINT, niccompare_on_signal);
    signal(SIGTERM, niccompare_on_signal);
    signal(SIGHUP, niccompare_on_signal);
    signal(SIGPIPE, SIG_IGN);

    for (i = 0; i < cp->o.ntestbeds; i++) {
        for (j = 0; j < cp->o.nsizes; j++) {
            cp->runs[cp->nruns].testbed = cp->o.testbeds[i];
            cp->runs[cp->nruns].cache = cp->o.sizes[j];
            cp->nruns++;
        }
    }
    /* the simulation first: it also says whether the trace parses,
     * before any server starts */
    niccompare_simulate(cp);
    niccompare_make_docroot(cp);
    /* round robin: every configuration once a round, so that drift
     * (a warming machine, another job) hits them alike; --until-ci adds
     * rounds while a gain's interval is wider than asked */
    t0 = nicache_now_s();
    for (j = 0; j < cp->o.max_runs; j++) {
        if (j >= cp->o.runs
            && (cp->o.until_ci <= 0
                || niccompare_summarise(cp) <= cp->o.until_ci)) {
            break;
        }
        for (i = 0; i < cp->nruns; i++) {
            int done = j * cp->nruns + i;
            int total = (j < cp->o.runs ? cp->o.runs : j + 1) * cp->nruns;

            eta = done > 0 ? (nicache_now_s() - t0) / done * (total - done) : 0;
            cp->reps[i][j] = cp->runs[i];
            niccompare_live(cp, &cp->reps[i][j], done + 1, total, eta);
        }
        cp->nreps = j + 1;
    }
    niccompare_summarise(cp);
    niccompare_tables(cp, stdout, 0);
    if (cp->o.json != NULL) {
        niccompare_write_json(cp, cp->o.json);
    }
    if (cp->o.plots != NULL) {
        niccompare_plots(cp);
    }
    if (cp->o.report != NULL) {
        niccompare_report(cp);
    }
    niccompare_cleanup();
    if (cp->o.keep) {
        fprintf(stderr, "niccompare: the work directory is kept: %s\n",
                cp->o.workdir);
    }
    for (i = 0; i < cp->nruns; i++) {
        if (cp->runs[i].mismatches > 0 || cp->runs[i].errors > 0) {
            fprintf(stderr,
                    "niccompare: %s, cache %llu: %llu mismatches, %llu "
                    "errors\n",
                    cp->runs[i].testbed, (unsigned long long) cp->runs[i].cache,
                    (unsigned long long) cp->runs[i].mismatches,
                    (unsigned long long) cp->runs[i].errors);
            return 1;
        }
    }
    return 0;
}

int
main(int argc, char **argv)
{
    static cmp_t cmp; /* main's own: too large for the stack */
    static char  workdir[PATH_MAX - 128];
    int          rc;

    if ((rc = niccompare_options(&cmp, argc, argv)) >= 0) {
        return rc;
    }
    if (work_dir(&cmp, workdir, sizeof(workdir)) != 0) {
        return 1;
    }
    cmp.o.workdir = workdir;
    return compare(&cmp);
}
