/*
 * niccompare's tools (niccompare.h): running nictrace and nicsim, reading
 * what they write, the docroot.
 */

#include "niccompare/niccompare.h"

/* A tool next to this program (build/ or bin/), in ../sbin, or on PATH. */
const char *
niccompare_tool(cmp_t *cp, const char *name)
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
int
niccompare_run(char *const argv[], const char *out_path, const char *err_path)
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
    char   *buf = NULL;
    size_t  cap = 0, n = 0;
    ssize_t k;

    for (;;) {
        if (trace_grow(&buf, &cap, n + 4096 + 1, 1, 65536) != 0) {
            free(buf);
            return NULL;
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

char *
niccompare_slurp(const char *path, size_t *len)
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

json_t *
niccompare_read_json(const char *path, const char *what)
{
    size_t  n;
    char   *buf = niccompare_slurp(path, &n), err[256];
    json_t *v;

    if (buf == NULL) {
        niccompare_die("%s: cannot read %s: %s", what, path, strerror(errno));
    }
    v = json_parse(buf, n, err, sizeof(err));
    free(buf);
    if (v == NULL) {
        niccompare_die("%s: %s is not the JSON expected: %s", what, path, err);
    }
    return v;
}

double
niccompare_num(const json_t *o_, const char *key)
{
    const json_t *v = o_ != NULL ? json_get(o_, key) : NULL;

    return v != NULL && (v->type == JSON_NUMBER || v->type == JSON_BOOL)
               ? v->number
               : 0;
}

/* the options every trace tool takes to read the trace, at argv[k] */
int
niccompare_trace_args(cmp_t *cp, char **argv, int k)
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
    if (cp->o.allow_late) {
        argv[k++] = "--allow-late";
    }
    if (cp->o.sort) {
        argv[k++] = "--sort";
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

void
niccompare_make_docroot(cmp_t *cp)
{
    struct stat st;
    char        stamp[PATH_MAX + 64], want[PATH_MAX + 64], real[PATH_MAX];
    char        have[PATH_MAX + 64] = "", errs[PATH_MAX];
    FILE       *f;
    char       *argv[20];
    int         k = 0;

    if (stat(cp->o.trace, &st) != 0 || realpath(cp->o.trace, real) == NULL) {
        niccompare_die("%s: %s", cp->o.trace, strerror(errno));
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
            fprintf(stderr, "niccompare: making the docroot in %s\n",
                    cp->docroot);
        }
        unlink(stamp);
        argv[k++] = (char *) niccompare_tool(cp, "nictrace");
        argv[k++] = "docroot";
        argv[k++] = (char *) cp->o.trace;
        argv[k++] = "--root";
        argv[k++] = cp->docroot;
        k = niccompare_trace_args(cp, argv, k);
        argv[k] = NULL;
        if (niccompare_run(argv, "/dev/null", errs) != 0) {
            niccompare_die("%s", first_line(errs, "nictrace docroot failed"));
        }
        f = fopen(stamp, "w");
        if (f == NULL || fputs(want, f) < 0 || fclose(f) != 0) {
            niccompare_die("%s: %s", stamp, strerror(errno));
        }
    } else if (!cp->o.quiet) {
        fprintf(stderr, "niccompare: reusing the docroot in %s\n", cp->docroot);
    }
    nftw(cp->docroot, warm_one, 16, FTW_PHYS);
}

/* ---- nicsim ---- */

void
niccompare_simulate(cmp_t *cp)
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
    argv[k++] = (char *) niccompare_tool(cp, "nicsim");
    argv[k++] = (char *) cp->o.trace;
    argv[k++] = "--sizes";
    argv[k++] = sizes;
    argv[k++] = "--policy";
    argv[k++] = (char *) cp->o.policy;
    argv[k++] = "--split";
    argv[k++] = split;
    k = niccompare_trace_args(cp, argv, k);
    argv[k++] = "--json";
    argv[k++] = "-"; /* into out */
    argv[k] = NULL;
    snprintf(errs, sizeof(errs), "%s/nicsim.err", cp->o.workdir);
    if (niccompare_run(argv, out, errs) != 0) {
        niccompare_die("%s", first_line(errs, "nicsim failed"));
    }
    v = niccompare_read_json(out, "nicsim");
    for (i = 0; i < cp->nruns; i++) {
        const json_t *e;

        for (e = v->child; e != NULL; e = e->next) {
            if ((uint64_t) niccompare_num(e, "cache_bytes")
                == cp->runs[i].cache) {
                cp->runs[i].sim_share = niccompare_num(e, "share");
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

/* a cache size for the tables: "none" for no cache */
void
niccompare_human(uint64_t v, char *buf, size_t len)
{
    if (v == 0) {
        snprintf(buf, len, "none");
    } else {
        nicache_size_str(v, buf, len);
    }
}
