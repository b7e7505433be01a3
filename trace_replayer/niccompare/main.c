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
#include <zlib.h>

#include "../../src/util/version.h"
#include "../../src/sendfile_nic/nic/bus.h"
#include "../../src/sendfile_nic/nic/host.h"
#include "../../src/sendfile_nic/policy/policy.h"
#include "../../src/util/size.h"
#include "../lib/hclient.h"
#include "../lib/json.h"
#include "../lib/reader.h"
#include "../../src/util/clock.h"

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
    double   bus_util, host_util, live_share;
    char     limited_by[8];
    int      bus_over, host_over;
    /* from nicsim */
    double sim_share;
} run_t;

typedef struct {
    const char *trace, *policy, *workdir, *json, *plots, *report, *format;
    const char *mapping, *window, *held;
    int         allow_truncated;
    uint64_t    sizes[MAX_SIZES];
    int         nsizes;
    const char *testbeds[MAX_TESTBEDS];
    int         ntestbeds;
    int         nics, conns, threads, port, quiet, runs;
    double      duration;
    char        bindir[PATH_MAX - 64];
} opts_t;

#define MAX_REPEATS 15

/* a comparison: what was asked, the runs and their results (no state at
 * file scope but server_pid below) */
typedef struct {
    opts_t o;
    run_t  runs[MAX_RUNS];
    int    nruns;
    char   docroot[PATH_MAX];
} cmp_t;

/* the server this process started, stopped on every way out: at file
 * scope because the signal handler and die() must reach it */
static volatile pid_t server_pid = -1;

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
stop_server(void)
{
    pid_t pid = server_pid;
    int   st;

    if (pid > 0) {
        server_pid = -1;
        kill(pid, SIGTERM);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
}

static void
die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "niccompare: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    stop_server();
    exit(1);
}

static void
on_signal(int sig)
{
    pid_t pid = server_pid;

    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* a cache size for the tables: "none" for no cache */
static void
human(uint64_t v, char *buf, size_t len)
{
    if (v == 0) {
        snprintf(buf, len, "none");
    } else {
        nicache_size_str(v, buf, len);
    }
}

/* A tool next to this program (build/ or bin/), in ../sbin, or on PATH. */
static const char *
tool(cmp_t *cp, const char *name)
{
    static char buf[8][PATH_MAX];
    static int  k;
    char       *p = buf[k++ % 8];

    snprintf(p, PATH_MAX, "%s/%s", cp->o.bindir, name);
    if (access(p, X_OK) == 0) {
        return p;
    }
    snprintf(p, PATH_MAX, "%s/../sbin/%s", cp->o.bindir, name);
    if (access(p, X_OK) == 0) {
        return p;
    }
    return name; /* execvp looks on PATH */
}

/*
 * Run argv; its standard output to out_path, its standard error to
 * err_path (NULL: ours).  Returns its exit status (-1: did not run).
 */
static int
run(char *const argv[], const char *out_path, const char *err_path)
{
    pid_t pid;
    int   st, fd;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        if (out_path != NULL) {
            fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0) {
                _exit(127);
            }
        }
        if (err_path != NULL) {
            fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                dup2(fd, 2);
            }
        }
        execvp(argv[0], argv);
        fprintf(stderr, "niccompare: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* everything fd has until its end, NUL-terminated (NULL: no memory) */
static char *
slurp_fd(int fd, size_t *len)
{
    char   *buf = NULL, *b;
    size_t  cap = 0, n = 0;
    ssize_t k;

    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            b = realloc(buf, cap);
            if (b == NULL) {
                free(buf);
                return NULL;
            }
            buf = b;
        }
        k = read(fd, buf + n, cap - n - 1);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            break;
        }
        n += (size_t) k;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static char *
slurp(const char *path, size_t *len)
{
    int   fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf;

    if (fd < 0) {
        return NULL;
    }
    buf = slurp_fd(fd, len);
    close(fd);
    return buf;
}

/* the first line a tool wrote to its error file, or fallback */
static const char *
first_line(const char *path, const char *fallback)
{
    static char line[512];
    FILE       *f = fopen(path, "r");

    line[0] = '\0';
    if (f != NULL) {
        if (fgets(line, sizeof(line), f) == NULL) {
            line[0] = '\0';
        }
        fclose(f);
    }
    line[strcspn(line, "\n")] = '\0';
    return line[0] != '\0' ? line : fallback;
}

static json_t *
read_json(const char *path, const char *what)
{
    size_t  n;
    char   *buf = slurp(path, &n), err[256];
    json_t *v;

    if (buf == NULL) {
        die("%s: cannot read %s: %s", what, path, strerror(errno));
    }
    v = json_parse(buf, n, err, sizeof(err));
    free(buf);
    if (v == NULL) {
        die("%s: %s is not the JSON expected: %s", what, path, err);
    }
    return v;
}

static double
num(const json_t *o_, const char *key)
{
    const json_t *v = o_ != NULL ? json_get(o_, key) : NULL;

    return v != NULL && (v->type == JSON_NUMBER || v->type == JSON_BOOL)
               ? v->number
               : 0;
}

/* the options every trace tool takes to read the trace, at argv[k] */
static int
trace_args(cmp_t *cp, char **argv, int k)
{
    if (cp->o.format != NULL) {
        argv[k++] = "--format";
        argv[k++] = (char *) cp->o.format;
    }
    if (cp->o.mapping != NULL) {
        argv[k++] = "--mapping";
        argv[k++] = (char *) cp->o.mapping;
    }
    if (cp->o.window != NULL) {
        argv[k++] = "--reorder-window";
        argv[k++] = (char *) cp->o.window;
    }
    if (cp->o.held != NULL) {
        argv[k++] = "--reorder-max";
        argv[k++] = (char *) cp->o.held;
    }
    if (cp->o.allow_truncated) {
        argv[k++] = "--allow-truncated";
    }
    return k;
}

/* ---- the docroot ---- */

static int
warm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    static char buf[1 << 16];
    int         fd;

    (void) f;
    if (flag != FTW_F || !S_ISREG(st->st_mode)) {
        return 0;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        while (read(fd, buf, sizeof(buf)) > 0) {
        }
        close(fd);
    }
    return 0;
}

static void
make_docroot(cmp_t *cp)
{
    struct stat st;
    char        stamp[PATH_MAX + 64], want[PATH_MAX + 64], real[PATH_MAX];
    char        have[PATH_MAX + 64] = "", errs[PATH_MAX];
    FILE       *f;
    char       *argv[20];
    int         k = 0;

    if (stat(cp->o.trace, &st) != 0 || realpath(cp->o.trace, real) == NULL) {
        die("%s: %s", cp->o.trace, strerror(errno));
    }
    snprintf(want, sizeof(want), "%s %lld %lld.%09ld\n", real,
             (long long) st.st_size, (long long) st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    snprintf(cp->docroot, sizeof(cp->docroot), "%s/docroot", cp->o.workdir);
    snprintf(errs, sizeof(errs), "%s/nictrace.err", cp->o.workdir);
    snprintf(stamp, sizeof(stamp), "%s/.niccompare-trace", cp->o.workdir);
    f = fopen(stamp, "r");
    if (f != NULL) {
        if (fgets(have, sizeof(have), f) == NULL) {
            have[0] = '\0';
        }
        fclose(f);
    }
    if (strcmp(have, want) != 0) {
        if (!cp->o.quiet) {
            fprintf(stderr, "niccompare: making the docroot in %s\n", cp->docroot);
        }
        unlink(stamp);
        argv[k++] = (char *) tool(cp, "nictrace");
        argv[k++] = "docroot";
        argv[k++] = (char *) cp->o.trace;
        argv[k++] = "--root";
        argv[k++] = cp->docroot;
        k = trace_args(cp, argv, k);
        argv[k] = NULL;
        if (run(argv, "/dev/null", errs) != 0) {
            die("%s", first_line(errs, "nictrace docroot failed"));
        }
        f = fopen(stamp, "w");
        if (f == NULL || fputs(want, f) < 0 || fclose(f) != 0) {
            die("%s: %s", stamp, strerror(errno));
        }
    } else if (!cp->o.quiet) {
        fprintf(stderr, "niccompare: reusing the docroot in %s\n", cp->docroot);
    }
    nftw(cp->docroot, warm_one, 16, FTW_PHYS);
}

/* ---- nicsim ---- */

static void
simulate(cmp_t *cp)
{
    char    sizes[MAX_SIZES * 24] = "", split[16], out[PATH_MAX], *argv[26];
    char    errs[PATH_MAX];
    char    one[24];
    json_t *v;
    int     i, j, k = 0, any = 0;

    for (i = 0; i < cp->o.nsizes; i++) {
        if (cp->o.sizes[i] > 0) {
            snprintf(one, sizeof(one), "%s%llu", any ? "," : "",
                     (unsigned long long) cp->o.sizes[i]);
            strcat(sizes, one);
            any = 1;
        }
    }
    if (!any) {
        return;
    }
    snprintf(split, sizeof(split), "%d", cp->o.nics);
    snprintf(out, sizeof(out), "%s/nicsim.json", cp->o.workdir);
    argv[k++] = (char *) tool(cp, "nicsim");
    argv[k++] = (char *) cp->o.trace;
    argv[k++] = "--sizes";
    argv[k++] = sizes;
    argv[k++] = "--policy";
    argv[k++] = (char *) cp->o.policy;
    argv[k++] = "--split";
    argv[k++] = split;
    k = trace_args(cp, argv, k);
    argv[k++] = "--json";
    argv[k] = NULL;
    snprintf(errs, sizeof(errs), "%s/nicsim.err", cp->o.workdir);
    if (run(argv, out, errs) != 0) {
        die("%s", first_line(errs, "nicsim failed"));
    }
    v = read_json(out, "nicsim");
    for (i = 0; i < cp->nruns; i++) {
        const json_t *e;

        for (e = v->child; e != NULL; e = e->next) {
            if ((uint64_t) num(e, "cache_bytes") == cp->runs[i].cache) {
                cp->runs[i].sim_share = num(e, "share");
            }
        }
    }
    for (j = 0; j < cp->nruns; j++) {
        if (cp->runs[j].cache == 0) {
            cp->runs[j].sim_share = 0;
        }
    }
    json_free(v);
}

/* ---- one live run ---- */

/*
 * NIC k listens on 127.0.0.(k + 1): distinct addresses, so every listener
 * can take a free port (port 0) of its own.  Wait for nicd to report them
 * in its error log; their ports into ports[].
 */
static int
wait_ports(const char *log, const char *errs, pid_t pid, int *ports, int n,
           char *why, size_t whylen)
{
    double deadline = nicache_now_s() + 20;
    int    st;

    for (;;) {
        size_t      len, elen;
        char       *buf = slurp(log, &len), *p, *ebuf;
        int         k, found = 0;
        const char *last = NULL;

        for (k = 0; k < n; k++) {
            char want[64];

            snprintf(want, sizeof(want),
                     "listening on http://127.0.0.%d:", k + 1);
            p = buf != NULL ? strstr(buf, want) : NULL;
            if (p != NULL) {
                ports[k] = atoi(p + strlen(want));
                found++;
            }
        }
        if (found == n) {
            free(buf);
            return 0;
        }
        if (waitpid(pid, &st, WNOHANG) == pid) {
            server_pid = -1;
            /* the last "[emerg]" line (of the log, or of its stderr, for
             * what went wrong before the log was open) says why */
            ebuf = slurp(errs, &elen);
            for (p = ebuf; p != NULL && (p = strstr(p, "[emerg]")) != NULL;
                 p++) {
                last = p;
            }
            for (p = buf; p != NULL && (p = strstr(p, "[emerg]")) != NULL;
                 p++) {
                last = p;
            }
            if (last != NULL) {
                snprintf(why, whylen, "%.*s", (int) strcspn(last, "\n"), last);
            } else {
                snprintf(why, whylen, "exited (status %d)",
                         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            }
            free(buf);
            free(ebuf);
            return -1;
        }
        free(buf);
        if (nicache_now_s() > deadline) {
            snprintf(why, whylen, "did not report its ports in 20 s");
            return -1;
        }
        usleep(20000); /* polling the log file for the line */
    }
}

/* GET path from 127.0.0.1:port; the body, or NULL */
static char *
http_get(int port, const char *path, size_t *blen)
{
    struct sockaddr_in sa;
    char              *body = NULL;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t) port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (hclient_fetch((struct sockaddr *) &sa, sizeof(sa), "localhost", "GET",
                      path, 30, &body, blen)
        != 200) {
        free(body);
        return NULL;
    }
    return body;
}

static void
live(cmp_t *cp, run_t *r, int index, int total, double eta)
{
    char          conf[PATH_MAX], log[PATH_MAX], out[PATH_MAX], why[512];
    char          errs[PATH_MAX];
    char          urls[MAX_NICS][64], conns[16], dur[32], size[24];
    char         *argv[30 + MAX_NICS], *body, err[256];
    int           ports[MAX_NICS], i, k = 0, rc;
    FILE         *f;
    pid_t         pid;
    size_t        blen;
    json_t       *v;
    const json_t *t;

    human(r->cache, size, sizeof(size));
    if (!cp->o.quiet) {
        fprintf(stderr, "niccompare: [%d/%d] %s, %d x %s: replaying%s", index,
                total, r->testbed, cp->o.nics, size, eta > 0 ? " (ETA " : "");
        if (eta > 0) {
            fprintf(stderr, "%dm%02ds)", (int) eta / 60, (int) eta % 60);
        }
        fputc('\n', stderr);
    }
    snprintf(conf, sizeof(conf), "%s/nicd.conf", cp->o.workdir);
    snprintf(log, sizeof(log), "%s/nicd-error.log", cp->o.workdir);
    snprintf(errs, sizeof(errs), "%s/nicd-stderr.log", cp->o.workdir);
    f = fopen(conf, "w");
    if (f == NULL) {
        die("%s: %s", conf, strerror(errno));
    }
    fprintf(f,
            "# written by niccompare: %s, %d NICs of %llu bytes\n"
            "worker_threads %d;\nerror_log %s notice;\naccess_log off;\n"
            "root %s;\nopen_file_cache max=65536 valid=3600s;\n"
            "keepalive_requests 1000000;\n"
            "send_backend nic;\nnic_count %d;\nnic_cache_size %llu;\n"
            "nic_policy %s;\nnic_testbed %s;\nnic_bus_limit on;\n"
            "location = /nic-status { nic_status; }\n",
            r->testbed, cp->o.nics, (unsigned long long) r->cache, cp->o.threads, log,
            cp->docroot, cp->o.nics, (unsigned long long) r->cache, cp->o.policy,
            r->testbed);
    for (i = 0; i < cp->o.nics; i++) {
        fprintf(f, "listen 127.0.0.%d:%d nic=%d;\n", i + 1,
                cp->o.port ? cp->o.port + i : 0, i);
    }
    if (fclose(f) != 0) {
        die("%s: %s", conf, strerror(errno));
    }
    unlink(log);

    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        die("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        int ef = open(errs, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd >= 0 && ef >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(ef, 2);
        }
        execlp(tool(cp, "nicd"), "nicd", "-c", conf, (char *) NULL);
        _exit(127);
    }
    server_pid = pid;
    if (wait_ports(log, errs, pid, ports, cp->o.nics, why, sizeof(why)) != 0) {
        die("nicd did not start (%s): %s", conf, why);
    }
    for (i = 0; i < cp->o.nics; i++) {
        snprintf(urls[i], sizeof(urls[i]), "http://127.0.0.%d:%d/", i + 1,
                 ports[i]);
    }
    /* the counters and the utilisation clock start with the replay */
    body = http_get(ports[0], "/nic-status?reset", &blen);
    if (body == NULL) {
        die("no counters from http://127.0.0.1:%d/nic-status", ports[0]);
    }
    free(body);
    snprintf(out, sizeof(out), "%s/nicreplay.json", cp->o.workdir);
    snprintf(conns, sizeof(conns), "%d", cp->o.conns);
    argv[k++] = (char *) tool(cp, "nicreplay");
    argv[k++] = "--as-logged";
    argv[k++] = "--verify";
    argv[k++] = "--docroot";
    argv[k++] = cp->docroot;
    argv[k++] = "-c";
    argv[k++] = conns;
    argv[k++] = "--json";
    argv[k++] = out;
    if (cp->o.duration > 0) {
        snprintf(dur, sizeof(dur), "%g", cp->o.duration);
        argv[k++] = "--duration";
        argv[k++] = dur;
    }
    k = trace_args(cp, argv, k);
    if (cp->o.quiet || !isatty(2)) {
        argv[k++] = "-q";
    }
    argv[k++] = (char *) cp->o.trace;
    for (i = 0; i < cp->o.nics; i++) {
        argv[k++] = urls[i];
    }
    argv[k] = NULL;
    rc = run(argv, "/dev/null", NULL);
    if (rc != 0) {
        die("nicreplay failed (exit %d) against %s", rc, conf);
    }
    body = http_get(ports[0], "/nic-status", &blen);
    if (body == NULL) {
        die("no counters from http://127.0.0.1:%d/nic-status", ports[0]);
    }
    stop_server();

    v = json_parse(body, blen, err, sizeof(err));
    free(body);
    if (v == NULL || (t = json_get(v, "total")) == NULL) {
        die("the server's counters did not parse: %s", err);
    }
    r->responses = (uint64_t) num(t, "responses");
    r->content = (uint64_t) num(t, "content_bytes");
    r->saved = (uint64_t) num(t, "saved_bytes");
    r->live_share = num(t, "saved_share");
    r->bus_util = num(t, "bus_utilisation");
    r->host_util = num(t, "host_utilisation");
    for (i = 0; i < SNIC_BUS_NCAT; i++) {
        r->bus[i] =
            (uint64_t) num(json_get(t, "bus_bytes"), snic_bus_category[i]);
    }
    {
        const json_t *lb = json_get(v, "limited_by");

        snprintf(r->limited_by, sizeof(r->limited_by), "%s",
                 lb != NULL && lb->type == JSON_STRING ? lb->string : "?");
    }
    r->bus_over = num(v, "bus_over_limit") != 0;
    r->host_over = num(v, "host_over_limit") != 0;
    json_free(v);

    v = read_json(out, "nicreplay");
    r->seconds = num(v, "duration_s");
    r->requests = (uint64_t) num(v, "requests");
    r->rps = num(v, "requests_per_s");
    r->mbps = num(v, "content_mbps");
    r->mismatches = (uint64_t) num(v, "mismatches");
    r->failed = (uint64_t) num(v, "failed");
    {
        const json_t *e = json_get(v, "errors"), *c;

        for (c = e != NULL ? e->child : NULL; c != NULL; c = c->next) {
            r->errors += (uint64_t) c->number;
        }
    }
    json_free(v);
}

/* ---- results ---- */

static const run_t *
baseline(cmp_t *cp, const run_t *r)
{
    int i;

    for (i = 0; i < cp->nruns; i++) {
        if (cp->runs[i].cache == 0 && strcmp(cp->runs[i].testbed, r->testbed) == 0) {
            return &cp->runs[i];
        }
    }
    return NULL;
}

static int
by_mbps(const void *a, const void *b)
{
    double x = ((const run_t *) a)->mbps, y = ((const run_t *) b)->mbps;

    return (x > y) - (x < y);
}

static double
gain(double v, double base)
{
    return base > 0 ? 100.0 * (v / base - 1.0) : 0;
}

static uint64_t
bus_total(const run_t *r)
{
    uint64_t t = 0;
    int      i;

    for (i = 0; i < SNIC_BUS_NCAT; i++) {
        t += r->bus[i];
    }
    return t;
}

/* bus bytes per response of category cat (-1: all) */
static double
per_response(const run_t *r, int cat)
{
    if (r->responses == 0) {
        return 0;
    }
    return (double) (cat < 0 ? bus_total(r) : r->bus[cat])
           / (double) r->responses;
}

static void
tables(cmp_t *cp, FILE *f, int md)
{
    const char *sep = md ? " | " : "  ";
    char        size[24];
    int         i, k;

#define ROW_START() fputs(md ? "| " : "", f)
#define ROW_END()   fputs(md ? " |\n" : "\n", f)
    fprintf(f,
            "%sFigure 7a: bus traffic by category, per response, "
            "normalised to no cache (%d NICs, %s)\n\n",
            md ? "### " : "", cp->o.nics, cp->o.policy);
    ROW_START();
    fprintf(f, "%-12s%s%6s", "testbed", sep, "cache");
    for (k = 0; k < SNIC_BUS_NCAT; k++) {
        fprintf(f, "%s%11s", sep, snic_bus_category[k]);
    }
    fprintf(f, "%s%7s", sep, "total");
    ROW_END();
    if (md) {
        fputs("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", f);
    }
    for (i = 0; i < cp->nruns; i++) {
        const run_t *b = baseline(cp, &cp->runs[i]);
        double       base = b != NULL ? per_response(b, -1) : 0;

        human(cp->runs[i].cache, size, sizeof(size));
        ROW_START();
        fprintf(f, "%-12s%s%6s", cp->runs[i].testbed, sep, size);
        for (k = 0; k < SNIC_BUS_NCAT; k++) {
            fprintf(f, "%s%11.3f", sep,
                    base > 0 ? per_response(&cp->runs[i], k) / base : 0);
        }
        fprintf(f, "%s%7.3f", sep,
                base > 0 ? per_response(&cp->runs[i], -1) / base : 0);
        ROW_END();
    }

    fprintf(f,
            "\n%sFigures 7b and 7c: HTTP content throughput and request "
            "rate (measured, paced by the models)\n\n",
            md ? "### " : "");
    ROW_START();
    fprintf(f, "%-12s%s%6s%s%9s%s%7s%s%9s%s%7s%s%6s%s%6s%s%8s%s%10s", "testbed",
            sep, "cache", sep, "Mb/s", sep, "gain%", sep, "req/s", sep, "gain%",
            sep, "bus", sep, "host", sep, "limited", sep, "mismatches");
    ROW_END();
    if (md) {
        fputs("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
              "| ---: |\n",
              f);
    }
    for (i = 0; i < cp->nruns; i++) {
        const run_t *r = &cp->runs[i], *b = baseline(cp, r);

        human(r->cache, size, sizeof(size));
        ROW_START();
        fprintf(f,
                "%-12s%s%6s%s%9.1f%s%+7.1f%s%9.1f%s%+7.1f%s%6.3f%s%6.3f%s%8s"
                "%s%10llu",
                r->testbed, sep, size, sep, r->mbps, sep,
                b != NULL ? gain(r->mbps, b->mbps) : 0, sep, r->rps, sep,
                b != NULL ? gain(r->rps, b->rps) : 0, sep, r->bus_util, sep,
                r->host_util, sep, r->limited_by, sep,
                (unsigned long long) r->mismatches);
        ROW_END();
    }

    fprintf(f,
            "\n%sFigure 3: share of content served from NIC memory, "
            "simulated (nicsim) and live\n\n",
            md ? "### " : "");
    ROW_START();
    fprintf(f, "%-12s%s%6s%s%9s%s%9s%s%7s", "testbed", sep, "cache", sep,
            "nicsim", sep, "live", sep, "points");
    ROW_END();
    if (md) {
        fputs("| --- | ---: | ---: | ---: | ---: |\n", f);
    }
    for (i = 0; i < cp->nruns; i++) {
        const run_t *r = &cp->runs[i];

        human(r->cache, size, sizeof(size));
        ROW_START();
        fprintf(f, "%-12s%s%6s%s%9.4f%s%9.4f%s%+7.2f", r->testbed, sep, size,
                sep, r->sim_share, sep, r->live_share, sep,
                100.0 * (r->live_share - r->sim_share));
        ROW_END();
    }

    fprintf(f,
            "\n%sFigure 4: bus utilisation by category without a cache "
            "(modelled)\n\n",
            md ? "### " : "");
    ROW_START();
    fprintf(f, "%-12s", "testbed");
    for (k = 0; k < SNIC_BUS_NCAT; k++) {
        fprintf(f, "%s%11s", sep, snic_bus_category[k]);
    }
    fprintf(f, "%s%7s", sep, "total");
    ROW_END();
    if (md) {
        fputs("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n", f);
    }
    for (i = 0; i < cp->nruns; i++) {
        const run_t *r = &cp->runs[i];
        uint64_t     tot = bus_total(r);

        if (r->cache != 0) {
            continue;
        }
        ROW_START();
        fprintf(f, "%-12s", r->testbed);
        for (k = 0; k < SNIC_BUS_NCAT; k++) {
            fprintf(f, "%s%11.3f", sep,
                    tot > 0 ? r->bus_util * (double) r->bus[k] / (double) tot
                            : 0);
        }
        fprintf(f, "%s%7.3f", sep, r->bus_util);
        ROW_END();
    }
    for (k = 0; k < cp->o.ntestbeds; k++) {
        for (i = 0; i < cp->nruns; i++) {
            if (cp->runs[i].testbed == cp->o.testbeds[k]
                && strcmp(cp->runs[i].limited_by, "none") == 0) {
                break;
            }
        }
        if (i < cp->nruns) {
            fprintf(f,
                    "\nNote: neither modelled resource limited some %s "
                    "runs: this machine set the pace, so their throughput "
                    "differences are the emulation's own cost (inserts are "
                    "real copies), not the cache's effect.  Read the bus "
                    "bytes and the saved share instead.\n",
                    cp->o.testbeds[k]);
        }
    }
    for (i = 0; i < cp->nruns; i++) {
        if (cp->runs[i].bus_over || cp->runs[i].host_over) {
            fprintf(f,
                    "\nNote: the modelled %s would have limited the %s run "
                    "(utilisation above what it can do).\n",
                    cp->runs[i].bus_over ? "bus" : "host", cp->runs[i].testbed);
        }
    }
#undef ROW_START
#undef ROW_END
}

static void
write_json(cmp_t *cp, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int   i, k;

    if (f == NULL) {
        die("%s: %s", path, strerror(errno));
    }
    fprintf(f, "[\n");
    for (i = 0; i < cp->nruns; i++) {
        const run_t *r = &cp->runs[i], *b = baseline(cp, r);

        fprintf(f,
                " {\"testbed\": \"%s\", \"nics\": %d, \"cache_bytes\": %llu, "
                "\"policy\": \"%s\", \"connections\": %d, \"runs\": %d, "
                "\"seconds\": %.3f, "
                "\"requests\": %llu, \"requests_per_s\": %.3f, "
                "\"content_mbps\": %.3f, \"throughput_gain\": %.3f, "
                "\"request_rate_gain\": %.3f, \"responses\": %llu, "
                "\"bus_bytes\": {",
                r->testbed, cp->o.nics, (unsigned long long) r->cache, cp->o.policy,
                cp->o.conns, cp->o.runs, r->seconds, (unsigned long long) r->requests,
                r->rps, r->mbps, b != NULL ? gain(r->mbps, b->mbps) : 0,
                b != NULL ? gain(r->rps, b->rps) : 0,
                (unsigned long long) r->responses);
        for (k = 0; k < SNIC_BUS_NCAT; k++) {
            fprintf(f, "%s\"%s\": %llu", k ? ", " : "", snic_bus_category[k],
                    (unsigned long long) r->bus[k]);
        }
        fprintf(f,
                "}, \"bus_utilisation\": %.6f, \"host_utilisation\": %.6f, "
                "\"limited_by\": \"%s\", \"bus_over_limit\": %s, "
                "\"host_over_limit\": %s, \"content_bytes\": %llu, "
                "\"saved_bytes\": %llu, \"live_share\": %.6f, "
                "\"sim_share\": %.6f, \"mismatches\": %llu, \"errors\": "
                "%llu, \"failed\": %llu}%s\n",
                r->bus_util, r->host_util, r->limited_by,
                r->bus_over ? "true" : "false", r->host_over ? "true" : "false",
                (unsigned long long) r->content, (unsigned long long) r->saved,
                r->live_share, r->sim_share, (unsigned long long) r->mismatches,
                (unsigned long long) r->errors, (unsigned long long) r->failed,
                i + 1 < cp->nruns ? "," : "");
    }
    fprintf(f, "]\n");
    if (f != stdout && fclose(f) != 0) {
        die("%s: %s", path, strerror(errno));
    }
}

static void
plots(cmp_t *cp)
{
    char  data[PATH_MAX], script[PATH_MAX];
    char *argv[5];

    if (mkdir(cp->o.plots, 0755) != 0 && errno != EEXIST) {
        die("%s: %s", cp->o.plots, strerror(errno));
    }
    snprintf(data, sizeof(data), "%s/niccompare.json", cp->o.plots);
    write_json(cp, data);
    snprintf(script, sizeof(script), "%s", tool(cp, "niccompare-plot"));
    argv[0] = script;
    argv[1] = data;
    argv[2] = (char *) cp->o.plots;
    argv[3] = NULL;
    if (run(argv, NULL, NULL) != 0) {
        die("niccompare-plot could not draw the figures into %s "
            "(python3-matplotlib installed?)",
            cp->o.plots);
    }
}

static void
report(cmp_t *cp)
{
    FILE *f = fopen(cp->o.report, "w");

    if (f == NULL) {
        die("%s: %s", cp->o.report, strerror(errno));
    }
    fprintf(f,
            "# NIC data cache: cached versus uncached\n\n"
            "Trace `%s`, %d NICs, policy %s, %d connections%s.  Measured: "
            "throughput, request rate, mismatches (nicreplay); modelled: bus "
            "and host time and traffic (docs/interconnect.md).\n\n",
            cp->o.trace, cp->o.nics, cp->o.policy, cp->o.conns,
            cp->o.duration > 0 ? " (timed replay)" : " (whole trace)");
    tables(cp, f, 1);
    if (cp->o.plots != NULL) {
        fprintf(f,
                "\n![Figure 7a](%s/fig7a.png)\n![Figure 7b](%s/fig7b.png)\n"
                "![Figure 7c](%s/fig7c.png)\n![Figure 3](%s/fig3.png)\n"
                "![Figure 4](%s/fig4.png)\n",
                cp->o.plots, cp->o.plots, cp->o.plots, cp->o.plots, cp->o.plots);
    }
    if (fclose(f) != 0) {
        die("%s: %s", cp->o.report, strerror(errno));
    }
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: niccompare TRACE [--sizes 0,4m,8m,16m] [--nics 2] "
               "[--testbed amd33[,amd66,...]]\n"
               "                  [--policy lru] [-c N] [--duration S] "
               "[--threads N] [--port P]\n"
               "                  [--workdir DIR] [--json FILE] [--plots DIR] "
               "[--report FILE.md]\n"
               "                  [--format F] [--mapping FILE] [-q]\n"
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
    fprintf(f,
            " (default amd33)\n"
            "  --policy NAME   replacement policy (default lru)\n"
            "  -c N            replay connections (default 16)\n"
            "  --runs N        replays per configuration; the median by "
            "throughput\n"
            "                  is reported (default 1)\n"
            "  --duration S    replay for S seconds (default: the whole "
            "trace)\n"
            "  --threads N     nicd worker threads (default 1)\n"
            "  --port P        listen on P, P+1, ... (default: free ports)\n"
            "  --workdir DIR   docroot, configs, logs (default niccompare.d)\n"
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

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sizes", required_argument, NULL, 's'},
        {"nics", required_argument, NULL, 'n'},
        {"testbed", required_argument, NULL, 't'},
        {"policy", required_argument, NULL, 'p'},
        {"duration", required_argument, NULL, 'd'},
        {"threads", required_argument, NULL, 'T'},
        {"runs", required_argument, NULL, 'R'},
        {"port", required_argument, NULL, 'P'},
        {"workdir", required_argument, NULL, 'w'},
        {"json", required_argument, NULL, 'j'},
        {"plots", required_argument, NULL, 'g'},
        {"report", required_argument, NULL, 'r'},
        TRACE_SRC_LONGOPTS,
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char       *list, *tok, *save, *end, *slash;
    char        sizes_default[] = "0,4m,8m,16m", tb_default[] = "amd33";
    static char workdir[PATH_MAX - 128];
    char       *sizes = sizes_default, *tbs = tb_default;
    int         ch, i, j;
    double      t0, eta;
    long        v;
    static cmp_t cmp; /* main's own: too large for the stack */
    cmp_t       *cp = &cmp;

    cp->o.policy = "lru";
    cp->o.workdir = "niccompare.d";
    cp->o.nics = 2;
    cp->o.conns = 16;
    cp->o.runs = 1;
    cp->o.threads = 1;
    while ((ch = getopt_long(argc, argv, "c:qh", longopts, NULL)) != -1) {
        switch (ch) {
        case 's': sizes = optarg; break;
        case 't': tbs = optarg; break;
        case 'p': cp->o.policy = optarg; break;
        case 'w': cp->o.workdir = optarg; break;
        case 'j': cp->o.json = optarg; break;
        case 'g': cp->o.plots = optarg; break;
        case 'r': cp->o.report = optarg; break;
        case 'f': cp->o.format = optarg; break;
        case 'm': cp->o.mapping = optarg; break;
        case 'W': cp->o.window = optarg; break; /* the tools check it */
        case TRACE_OPT_HELD: cp->o.held = optarg; break;
        case TRACE_OPT_TRUNC: cp->o.allow_truncated = 1; break;
        case 'q': cp->o.quiet = 1; break;
        case 'd':
            cp->o.duration = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(cp->o.duration > 0)) {
                fprintf(stderr,
                        "niccompare: --duration: \"%s\" is not a "
                        "number of seconds\n",
                        optarg);
                return 2;
            }
            break;
        case 'n':
        case 'c':
        case 'T':
        case 'R':
        case 'P':
            v = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || v < 1
                || v > (ch == 'n'   ? MAX_NICS
                        : ch == 'P' ? 65535
                        : ch == 'R' ? MAX_REPEATS
                                    : 100000)) {
                fprintf(stderr, "niccompare: %s: \"%s\" is out of range\n",
                        ch == 'n'   ? "--nics"
                        : ch == 'c' ? "-c"
                        : ch == 'T' ? "--threads"
                        : ch == 'R' ? "--runs"
                                    : "--port",
                        optarg);
                return 2;
            }
            *(ch == 'n'   ? &cp->o.nics
              : ch == 'c' ? &cp->o.conns
              : ch == 'T' ? &cp->o.threads
              : ch == 'R' ? &cp->o.runs
                          : &cp->o.port) = (int) v;
            break;
        case NICACHE_OPT_VERSION:
            printf("%s (nicache) %s\nfeatures: gzip (zlib %s)\n", "niccompare",
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
    cp->o.trace = argv[optind];
    if (access(cp->o.trace, R_OK) != 0) {
        fprintf(stderr, "niccompare: %s: %s\n", cp->o.trace, strerror(errno));
        return 2;
    }
    for (list = sizes; (tok = strtok_r(list, ",", &save)) != NULL;
         list = NULL) {
        if (cp->o.nsizes == MAX_SIZES
            || nicache_parse_size(tok, &cp->o.sizes[cp->o.nsizes]) != 0
            || (cp->o.sizes[cp->o.nsizes] > 0 && cp->o.sizes[cp->o.nsizes] < 4096)) {
            fprintf(stderr,
                    "niccompare: --sizes: \"%s\" is not a size (0, or 4k "
                    "and up, like 512k or 16m)\n",
                    tok);
            return 2;
        }
        cp->o.nsizes++;
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
        fprintf(stderr, "niccompare: --policy: no policy \"%s\"\n", cp->o.policy);
        return 2;
    }
    /* the tools next to this program */
    snprintf(cp->o.bindir, sizeof(cp->o.bindir), "%s", argv[0]);
    slash = strrchr(cp->o.bindir, '/');
    if (slash != NULL) {
        *slash = '\0';
    } else {
        snprintf(cp->o.bindir, sizeof(cp->o.bindir), ".");
    }
    if ((mkdir(cp->o.workdir, 0755) != 0 && errno != EEXIST)
        || realpath(cp->o.workdir, workdir) == NULL) {
        fprintf(stderr, "niccompare: %s: %s\n", cp->o.workdir, strerror(errno));
        return 1;
    }
    cp->o.workdir = workdir;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
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
    simulate(cp);
    make_docroot(cp);
    t0 = nicache_now_s();
    for (i = 0; i < cp->nruns; i++) {
        run_t rep[MAX_REPEATS];

        for (j = 0; j < cp->o.runs; j++) {
            int done = i * cp->o.runs + j, total = cp->nruns * cp->o.runs;

            eta = done > 0 ? (nicache_now_s() - t0) / done * (total - done) : 0;
            rep[j] = cp->runs[i];
            live(cp, &rep[j], done + 1, total, eta);
        }
        /* the median replay by throughput, with its counters */
        qsort(rep, (size_t) cp->o.runs, sizeof(run_t), by_mbps);
        cp->runs[i] = rep[cp->o.runs / 2];
    }
    tables(cp, stdout, 0);
    if (cp->o.json != NULL) {
        write_json(cp, cp->o.json);
    }
    if (cp->o.plots != NULL) {
        plots(cp);
    }
    if (cp->o.report != NULL) {
        report(cp);
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
