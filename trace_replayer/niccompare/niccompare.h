/*
 * niccompare's parts (main.c tells the whole): main.c reads the command
 * line, tools.c runs nictrace and nicsim, live.c runs nicd and nicreplay
 * for each configuration (and owns the server's process), report.c makes
 * the tables, JSON, figures and the Markdown report.
 */

#ifndef NICCOMPARE_H
#define NICCOMPARE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/version.h"
#include "sendfile_nic/snic_model.h"
#include "util/size.h"
#include "lib/grow.h"
#include "lib/http/hclient.h"
#include "lib/json.h"
#include "lib/stats.h"
#include "lib/formats/reader.h"
#include "util/clock.h"

#define MAX_SIZES    16
#define MAX_TESTBEDS 8
#define MAX_NICS     16
#define MAX_RUNS     (MAX_SIZES * MAX_TESTBEDS)

typedef struct {
    const char *testbed;
    uint64_t    cache; /* bytes per NIC; 0: no cache */
    /* measured */
    double   seconds, rps, mbps;
    uint64_t requests, mismatches, errors, failed;
    /* modelled (the server's counters) */
    uint64_t responses, content, saved, bus[SNIC_BUS_NCAT];
    double   bus_util, host_util, mem_util, live_share;
    char     limited_by[8];
    int      bus_over, host_over, mem_over;
    /* the memory system and the interconnect (today's question) */
    uint64_t dram;                 /* modelled DRAM traffic, bytes */
    double   mem_bw, line_gbps;    /* the testbed's (0: not given) */
    double   bus_bw, bus_max_util; /* the bus's raw bytes/s, busiest */
    /* from nicsim */
    double sim_share;
    /* over the repeats: the medians' intervals, and the gains over the
     * same testbed's no-cache run, paired round by round (has_ci: more
     * than one repeat) */
    trace_ci_t mbps_ci, rps_ci, gain_ci, rgain_ci;
    int        has_ci;
} run_t;

typedef struct {
    const char *trace, *policy, *workdir, *json, *plots, *report, *format;
    const char *mapping, *window, *held;
    int         allow_truncated;
    int         allow_late;
    int         sort; /* --sort */
    uint64_t    sizes[MAX_SIZES];
    int         nsizes;
    const char *testbeds[MAX_TESTBEDS];
    int         ntestbeds;
    int         nics, conns, threads, port, quiet, runs;
    double      until_ci;      /* --until-ci: widest gain interval, points */
    char        cmdline[4096]; /* as given, for the report */
    int         max_runs;      /* ... and at most this many repeats */
    int         keep;  /* --keep: leave the work directory niccompare made */
    int         http2; /* --http2: h2c listeners, nicreplay --http2 */
    double      duration;
    char        bindir[PATH_MAX - 64];
} opts_t;

#define MAX_REPEATS 31

/* a comparison: what was asked, the runs and their results (no state at
 * file scope but server_pid below) */
typedef struct {
    opts_t o;
    run_t  runs[MAX_RUNS];
    int    nruns;
    /* every repeat of every configuration, in the order they ran */
    run_t reps[MAX_RUNS][MAX_REPEATS];
    int   nreps;
    char  docroot[PATH_MAX];
} cmp_t;

/* say why on stderr, stop the server, exit 1 */
void niccompare_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
/* the server niccompare started, stopped (and waited for) */
void niccompare_stop_server(void);
/* the server's pid for the ways out (-1: none running) */
void niccompare_server_is(pid_t pid);
/* remove dir, which niccompare made, on every way out (die, a signal,
 * niccompare_cleanup) */
void niccompare_remove_on_exit(const char *dir);
/* the normal way out: the server stopped, the directory removed */
void niccompare_cleanup(void);
/* SIGINT, SIGTERM, SIGHUP: the server stopped, then the signal again */
void niccompare_on_signal(int sig);
/* a cache size for the tables: "none" for no cache */
void niccompare_human(uint64_t v, char *buf, size_t len);
/* the path of a tool beside this program (else its name, for PATH) */
const char *niccompare_tool(cmp_t *cp, const char *name);
/* run argv, its output to out_path and stderr to err_path (NULL: ours):
 * its exit status, -1 when it did not run */
int niccompare_run(char *const argv[], const char *out_path,
                   const char *err_path);
/* a whole file, NUL-terminated (NULL: unreadable); *len its length */
char *niccompare_slurp(const char *path, size_t *len);
/* a tool's JSON output, or die naming what it was */
json_t *niccompare_read_json(const char *path, const char *what);
/* a number member of a JSON object (0 when absent) */
double niccompare_num(const json_t *o_, const char *key);
/* the trace options into argv from k on: the next free index */
int niccompare_trace_args(cmp_t *cp, char **argv, int k);
/* the trace's docroot in the work directory (made once, reused) */
void niccompare_make_docroot(cmp_t *cp);
/* nicsim's share for every configuration */
void niccompare_simulate(cmp_t *cp);
/* one configuration live: nicd, nicreplay, the counters into r */
void niccompare_live(cmp_t *cp, run_t *r, int index, int total, double eta);
/* the medians and their intervals over the repeats so far, into
 * cp->runs; the widest interval of a gain, in points */
double niccompare_summarise(cmp_t *cp);
/* the tables, as text or Markdown (md) */
void niccompare_tables(cmp_t *cp, FILE *f, int md);
/* --json */
void niccompare_write_json(cmp_t *cp, const char *path);
/* --plots DIR: the figures (niccompare-plot) */
void niccompare_plots(cmp_t *cp);
/* --report FILE: the Markdown report */
void niccompare_report(cmp_t *cp);

/* The command line into cp (options.c): -1 to go on, else the exit
 * status after saying why (--help, --version, a bad option or path). */
int niccompare_options(cmp_t *cp, int argc, char **argv);

#endif /* NICCOMPARE_H */
