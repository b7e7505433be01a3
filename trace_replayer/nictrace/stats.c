/*
 * nictrace stats (nictrace.h): Table 1's figures of one trace or of
 * several read as their concatenation, and "nictrace merge", the same
 * figures from the --json --with-files results of traces read apart (on
 * a cluster's machines): sums add, first and last times bound, the
 * files' tables are joined (a file's size the largest of any), so the
 * merged figures are those of the concatenation.
 */

#include "nictrace/nictrace.h"

#include "lib/json.h"

#define ERRORS_KEPT TRACE_ERRORS_KEPT

/* the figures, however they were gathered */
typedef struct {
    const char    *traces[64]; /* the first 64 named */
    int            ntraces;
    char           format[32]; /* "mixed" when they differ */
    int64_t        t0, t1;
    uint64_t       requests, bytes, bad, late;
    trace_files_t *files;
    struct {
        const char *trace;
        uint64_t    line;
        char        what[64];
    } err[ERRORS_KEPT];
    int nerr;
} stats_t;

static void
add_trace(stats_t *st, const char *path, const char *format)
{
    if (st->ntraces < 64) {
        st->traces[st->ntraces] = path;
    }
    st->ntraces++;
    if (st->format[0] == '\0') {
        snprintf(st->format, sizeof(st->format), "%s", format);
    } else if (strcmp(st->format, format) != 0) {
        snprintf(st->format, sizeof(st->format), "mixed");
    }
}

static void
add_error(stats_t *st, const char *trace, uint64_t line, const char *what)
{
    if (st->nerr < ERRORS_KEPT) {
        st->err[st->nerr].trace = trace;
        st->err[st->nerr].line = line;
        snprintf(st->err[st->nerr].what, sizeof(st->err[0].what), "%s", what);
        st->nerr++;
    }
}

static void
file_json(const char *path, size_t len, uint64_t size, void *arg)
{
    char *k = malloc(len + 1);

    if (k == NULL) {
        return;
    }
    memcpy(k, path, len);
    k[len] = '\0';
    printf("%s\n  [", *(int *) arg ? "," : "");
    nictrace_json_string(k);
    printf(", %llu]", (unsigned long long) size);
    *(int *) arg = 1;
    free(k);
}

static void
print_stats(const stats_t *st, int json, int with_files)
{
    char   a[32], b[32];
    double avg =
        st->requests > 0 ? (double) st->bytes / (double) st->requests : 0;
    int i, n = st->ntraces < 64 ? st->ntraces : 64;

    if (json) {
        printf("{\"trace\": ");
        nictrace_json_string(st->traces[0]);
        printf(", \"traces\": [");
        for (i = 0; i < n; i++) {
            printf("%s", i ? ", " : "");
            nictrace_json_string(st->traces[i]);
        }
        printf("], \"format\": \"%s\", \"duration_s\": %lld, "
               "\"first_time\": %lld, \"last_time\": %lld, "
               "\"total_response_bytes\": %llu, \"avg_response_bytes\": "
               "%.1f, \"data_set_bytes\": %llu, \"requests\": %llu, "
               "\"distinct_files\": %llu, \"parse_errors\": %llu, "
               "\"late_records\": %llu, \"first_errors\": [",
               st->format, (long long) (st->t1 - st->t0), (long long) st->t0,
               (long long) st->t1, (unsigned long long) st->bytes, avg,
               (unsigned long long) trace_files_bytes(st->files),
               (unsigned long long) st->requests,
               (unsigned long long) trace_files_count(st->files),
               (unsigned long long) st->bad, (unsigned long long) st->late);
        for (i = 0; i < st->nerr; i++) {
            printf("%s{\"trace\": ", i ? ", " : "");
            nictrace_json_string(st->err[i].trace);
            printf(", \"line\": %llu, \"error\": ",
                   (unsigned long long) st->err[i].line);
            nictrace_json_string(st->err[i].what);
            printf("}");
        }
        printf("]");
        if (with_files) {
            int first = 0;

            printf(", \"files\": [");
            trace_files_each(st->files, file_json, &first);
            printf("]");
        }
        printf("}\n");
        return;
    }
    printf("%-22s ", st->ntraces > 1 ? "traces" : "trace");
    for (i = 0; i < n; i++) {
        printf("%s%s", i ? ", " : "", st->traces[i]);
    }
    printf("%s (%s)\n", st->ntraces > n ? ", ..." : "", st->format);
    printf("%-22s %lld s (%.1f h)\n", "duration", (long long) (st->t1 - st->t0),
           (double) (st->t1 - st->t0) / 3600);
    printf("%-22s %s B (%.1f MB)\n", "total response bytes",
           nictrace_thousands(st->bytes, a), (double) st->bytes / 1e6);
    printf("%-22s %.0f B\n", "average response size", avg);
    printf("%-22s %s B (%.1f MB)\n", "data set size",
           nictrace_thousands(trace_files_bytes(st->files), b),
           (double) trace_files_bytes(st->files) / 1e6);
    printf("%-22s %s\n", "total requests", nictrace_thousands(st->requests, a));
    printf("%-22s %s\n", "distinct files",
           nictrace_thousands(trace_files_count(st->files), a));
    printf("%-22s %s\n", "parse errors", nictrace_thousands(st->bad, a));
    printf("%-22s %s (later than the reorder window: clamped)\n",
           "late records", nictrace_thousands(st->late, a));
    for (i = 0; i < st->nerr; i++) {
        if (st->ntraces > 1) {
            printf("  %s line %llu: %s\n", st->err[i].trace,
                   (unsigned long long) st->err[i].line, st->err[i].what);
        } else {
            printf("  line %llu: %s\n", (unsigned long long) st->err[i].line,
                   st->err[i].what);
        }
    }
}

int
nictrace_stats(const trace_src_t *src, char **paths, int n, int json,
               int with_files)
{
    scan_t             sc;
    stats_t            st;
    const trace_bad_t *bad;
    trace_src_t        one = *src;
    int                i, k, nbad;

    memset(&st, 0, sizeof(st));
    for (i = 0; i < n; i++) {
        one.path = paths[i];
        if ((i == 0 ? nictrace_scan(&one, NULL, 0, &sc)
                    : nictrace_scan_more(&one, NULL, &sc))
            != 0) {
            return 1;
        }
        if (nictrace_no_records(paths[i], sc.requests - st.requests,
                                sc.reader)) {
            nictrace_scan_free(&sc);
            return 1;
        }
        add_trace(&st, paths[i], trace_format(sc.reader));
        bad = trace_bad_first(sc.reader, &nbad);
        for (k = 0; k < nbad; k++) {
            add_error(&st, paths[i], bad[k].line, trace_err_str(bad[k].err));
        }
        st.bad += trace_bad_count(sc.reader);
        st.late += trace_late_count(sc.reader);
        st.requests = sc.requests;
    }
    st.t0 = sc.t0;
    st.t1 = sc.t1;
    st.bytes = sc.bytes;
    st.files = sc.files;
    print_stats(&st, json, with_files);
    nictrace_scan_free(&sc);
    {
        char why[512];

        /* printed, and still a failure: the figures are of clamped times */
        if (trace_late_why(st.late, st.requests, src->allow_late,
                           n == 1 ? paths[0] : "the traces", why, sizeof(why))
            != NULL) {
            fflush(stdout);
            fprintf(stderr, "nictrace: failed: %s\n", why);
            return 1;
        }
    }
    return 0;
}

/* ---- merge ---- */

static int
num(const json_t *o, const char *key, double *v)
{
    const json_t *e = json_get(o, key);

    if (e == NULL || e->type != JSON_NUMBER) {
        return -1;
    }
    *v = e->number;
    return 0;
}

/* one result into st; 0, or -1 after saying why */
static int
merge_one(stats_t *st, const char *path, const json_t *root, char **names,
          int *nnames)
{
    const json_t *e, *f = json_get(root, "files"), *fmt;
    double        req, bytes, bad, late, t0, t1;

    fmt = json_get(root, "format");
    if (num(root, "requests", &req) != 0
        || num(root, "total_response_bytes", &bytes) != 0
        || num(root, "parse_errors", &bad) != 0
        || num(root, "late_records", &late) != 0
        || num(root, "first_time", &t0) != 0 || num(root, "last_time", &t1) != 0
        || fmt == NULL || fmt->type != JSON_STRING) {
        fprintf(stderr,
                "nictrace merge: %s: not a nictrace stats --json "
                "result\n",
                path);
        return -1;
    }
    if (f == NULL || f->type != JSON_ARRAY) {
        fprintf(stderr,
                "nictrace merge: %s: no files table (give nictrace "
                "stats --json --with-files)\n",
                path);
        return -1;
    }
    if (st->requests == 0 || (int64_t) t0 < st->t0) {
        st->t0 = (int64_t) t0;
    }
    if (st->requests == 0 || (int64_t) t1 > st->t1) {
        st->t1 = (int64_t) t1;
    }
    st->requests += (uint64_t) req;
    st->bytes += (uint64_t) bytes;
    st->bad += (uint64_t) bad;
    st->late += (uint64_t) late;
    e = json_get(root, "traces");
    for (e = e != NULL ? e->child : NULL; e != NULL; e = e->next) {
        if (st->ntraces < 64 && e->type == JSON_STRING
            && *nnames < 64 + ERRORS_KEPT
            && (names[*nnames] = strdup(e->string)) != NULL) {
            add_trace(st, names[(*nnames)++], fmt->string);
        } else {
            add_trace(st, NULL, fmt->string); /* counted, not named */
        }
    }
    e = json_get(root, "first_errors");
    for (e = e != NULL ? e->child : NULL; e != NULL; e = e->next) {
        const json_t *t = json_get(e, "trace"), *w = json_get(e, "error");
        double        line;

        if (t != NULL && t->type == JSON_STRING && w != NULL
            && w->type == JSON_STRING && num(e, "line", &line) == 0
            && st->nerr < ERRORS_KEPT && *nnames < 64 + ERRORS_KEPT
            && (names[*nnames] = strdup(t->string)) != NULL) {
            add_error(st, names[(*nnames)++], (uint64_t) line, w->string);
        }
    }
    for (e = f->child; e != NULL; e = e->next) {
        const json_t *k = e->child;

        if (e->type != JSON_ARRAY || k == NULL || k->type != JSON_STRING
            || k->next == NULL || k->next->type != JSON_NUMBER) {
            fprintf(stderr,
                    "nictrace merge: %s: a files entry is not "
                    "[key, size]\n",
                    path);
            return -1;
        }
        if (trace_files_raise(st->files, k->string, strlen(k->string),
                              (uint64_t) k->next->number)
            != 0) {
            fprintf(stderr, "nictrace merge: out of memory\n");
            return -1;
        }
    }
    return 0;
}

int
nictrace_merge(char **paths, int n, int json)
{
    stats_t st;
    char   *names[64 + ERRORS_KEPT];
    int     nnames = 0, i, rc = 1;

    memset(&st, 0, sizeof(st));
    if (n == 0) {
        fprintf(stderr, "usage: nictrace merge STATS.json... [--json]\n");
        return 2;
    }
    if ((st.files = trace_files_new()) == NULL) {
        fprintf(stderr, "nictrace merge: out of memory\n");
        return 1;
    }
    for (i = 0; i < n; i++) {
        char    err[256];
        size_t  len;
        char   *buf = json_read_file(paths[i], &len, err, sizeof(err));
        json_t *root;

        if (buf == NULL) {
            fprintf(stderr, "nictrace merge: %s\n", err);
            goto out;
        }
        root = json_parse(buf, len, err, sizeof(err));
        free(buf);
        if (root == NULL) {
            fprintf(stderr, "nictrace merge: %s: not JSON (%s)\n", paths[i],
                    err);
            goto out;
        }
        if (merge_one(&st, paths[i], root, names, &nnames) != 0) {
            json_free(root);
            goto out;
        }
        json_free(root);
    }
    if (st.requests == 0) {
        fprintf(stderr, "nictrace merge: failed: the results hold no "
                        "record\n");
        goto out;
    }
    print_stats(&st, json, 0);
    rc = 0;
out:
    for (i = 0; i < nnames; i++) {
        free(names[i]);
    }
    trace_files_free(st.files);
    return rc;
}
