/*
 * nicsim's report (nicsim.h): the table, JSON or CSV, the speed line on
 * stderr for long runs, and --plot.
 */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/size.h"
#include "nicsim/nicsim.h"

/*
 * The results in out's form (0 a table, 1 JSON, 2 CSV) to f.  libCacheSim's
 * names: miss_ratio (of requests: one with a block missed, or bypassing
 * the cache, is a miss) and byte_miss_ratio; the paper's share is
 * 1 - byte_miss_ratio; and the block stream's.
 */
void
nicsim_print_results(FILE *f, int out, const sim_t *sims, int nsims, int split,
                     uint64_t block, uint64_t content, int nic)
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
        double   mr =
            s->requests ? (double) s->req_misses / (double) s->requests : 0;
        int  has_req = s->policy != NULL; /* opt counts blocks only */
        char h[32], mrs[32];

        snprintf(mrs, sizeof(mrs), "%.6f", mr);
        if (out == 2) {
            fprintf(f,
                    "%s,%llu,%d,%llu,%.6f,%llu,%llu,%llu,%llu,%s%llu,%s,%.6f,"
                    "%.6f\n",
                    (s->policy != NULL ? s->policy->name : "opt"),
                    (unsigned long long) s->cache_bytes, split,
                    (unsigned long long) block, share,
                    (unsigned long long) s->cached,
                    (unsigned long long) content, (unsigned long long) s->hits,
                    (unsigned long long) s->misses, "",
                    (unsigned long long) s->requests, has_req ? mrs : "", bmr,
                    blmr);
        } else if (out == 1) {
            fprintf(f,
                    "%s\n {\"policy\": \"%s\", \"cache_bytes\": %llu, "
                    "\"caches\": %d, \"block\": %llu, \"share\": %.6f, "
                    "\"cached_bytes\": %llu, \"content_bytes\": %llu, "
                    "\"block_hits\": %llu, \"block_misses\": %llu, "
                    "\"requests\": %llu, \"missed_requests\": %llu, "
                    "\"miss_ratio\": %s, "
                    "\"byte_miss_ratio\": %.6f, \"block_miss_ratio\": %.6f",
                    i ? "," : "", (s->policy != NULL ? s->policy->name : "opt"),
                    (unsigned long long) s->cache_bytes, split,
                    (unsigned long long) block, share,
                    (unsigned long long) s->cached,
                    (unsigned long long) content, (unsigned long long) s->hits,
                    (unsigned long long) s->misses,
                    (unsigned long long) s->requests,
                    (unsigned long long) s->req_misses, has_req ? mrs : "null",
                    bmr, blmr);
            if (nic >= 0) {
                fprintf(f, ", \"nic\": %d", nic);
            }
            fprintf(f, "}");
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
    char    self[PATH_MAX], script[PATH_MAX + 16], *slash;
    int     fds[2], status;
    pid_t   pid;
    FILE   *f;
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
        nicsim_print_results(f, 2, sims, nsims, split, block, content, -1);
        fclose(f);
    } else {
        close(fds[1]);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)
        || WEXITSTATUS(status) != 0) {
        fprintf(stderr,
                "nicsim: failed: nicsim-plot could not draw %s "
                "(python3-matplotlib installed?)\n",
                png);
        return -1;
    }
    return 0;
}

int
nicsim_report(const nicsim_run_t *run)
{
    const nicsim_conf_t *cf = run->cf;
    int                  i;

    if (cf->repeat > 1 || run->seconds > 2.0) {
        uint64_t accesses = 0;

        for (i = 0; i < run->nsims; i++) {
            accesses += run->sims[i].hits + run->sims[i].misses;
        }
        fprintf(stderr,
                "nicsim: %llu block accesses in %.2f s (%.1f M/s, "
                "trace reading included)\n",
                (unsigned long long) accesses, run->seconds,
                run->seconds > 0 ? (double) accesses / run->seconds / 1e6 : 0);
    }
    nicsim_print_results(stdout, cf->out, run->sims, run->nsims, cf->split,
                         cf->block, run->content, cf->nic);
    if (cf->json != NULL && cf->json != stdout) {
        /* --json FILE: the JSON there, the table (or CSV) here */
        nicsim_print_results(cf->json, 1, run->sims, run->nsims, cf->split,
                             cf->block, run->content, cf->nic);
    }
    if (cf->plot != NULL
        && draw(cf->plot, cf->path, run->sims, run->nsims, cf->split, cf->block,
                run->content)
               != 0) {
        return 1;
    }
    return 0;
}
