/*
 * "nicreplay merge" (nicreplay.h): the --json results of several runs
 * (a cluster's shards) added up into one, and their --hdr logs into one
 * log, every interval kept whole and tagged with its run.
 */

#include "nicreplay/nicreplay.h"

/* ---- merge ---- */

static uint64_t
num(const json_t *o, const char *key, int *bad)
{
    const json_t *v = json_get(o, key);

    if (v == NULL || v->type != JSON_NUMBER || v->number < 0) {
        *bad = 1;
        return 0;
    }
    return (uint64_t) v->number;
}

/* a run's "error_causes" (older results have none) */
static void
merge_causes(causes_t *c, const json_t *a, int *bad)
{
    const json_t *e, *what, *why;

    for (e = a != NULL ? a->child : NULL; e != NULL; e = e->next) {
        what = json_get(e, "what");
        why = json_get(e, "reason");
        if (what == NULL || why == NULL || what->type != JSON_STRING
            || why->type != JSON_STRING) {
            *bad = 1;
            continue;
        }
        causes_add_n(c, what->string, 0, why->string, num(e, "count", bad));
    }
}

static int
merge_one(const char *path, const char *buf, size_t n, result_t *r,
          breakdown_t *bd, double *rps, double *mbps)
{
    char          err[256];
    const char   *why = NULL;
    json_t       *root;
    const json_t *o, *e;
    int           bad = 0, i;
    size_t        k;

    root = json_parse(buf, n, err, sizeof(err));
    if (root == NULL) {
        fprintf(stderr, "nicreplay merge: %s: not JSON (%s)\n", path, err);
        return -1;
    }
    r->requests += num(root, "requests", &bad);
    r->sent += num(root, "requests_sent", &bad);
    r->failed += num(root, "failed", &bad);
    r->mismatches += num(root, "mismatches", &bad);
    r->verified_bytes += num(root, "verified_bytes", &bad);
    r->content_bytes += num(root, "content_bytes", &bad);
    r->head_bytes += num(root, "header_bytes", &bad);
    r->sessions += num(root, "sessions", &bad);
    r->connections += num(root, "connections", &bad);
    r->reconnects += num(root, "reconnects", &bad);
    o = json_get(root, "pipeline");
    r->groups += num(o, "groups", &bad);
    k = num(o, "max_depth", &bad);
    if (k > r->max_depth) {
        r->max_depth = k;
    }
    e = json_get(root, "duration_s");
    if (e == NULL || e->type != JSON_NUMBER) {
        bad = 1;
    } else if (e->number > r->elapsed) {
        r->elapsed = e->number; /* the runs overlap: the longest */
    }
    e = json_get(root, "requests_per_s");
    *rps += e != NULL && e->type == JSON_NUMBER ? e->number : 0;
    e = json_get(root, "content_mbps");
    *mbps += e != NULL && e->type == JSON_NUMBER ? e->number : 0;
    o = json_get(root, "responses_by_status");
    for (e = o != NULL ? o->child : NULL; e != NULL; e = e->next) {
        char *end;
        long  st = strtol(e->key, &end, 10);

        if (e->type != JSON_NUMBER) {
            bad = 1;
        } else if (*end != '\0' || end == e->key) {
            r->status_other += (uint64_t) e->number;
        } else {
            nicreplay_count_status(r, (int) st, (uint64_t) e->number);
        }
    }
    o = json_get(root, "errors");
    for (i = 0; i < E_KINDS; i++) {
        r->errors[i] += num(o, nicreplay_error_names[i], &bad);
    }
    merge_causes(&r->causes, json_get(root, "error_causes"), &bad);
    if ((o = json_get(root, "tls")) != NULL) {
        const json_t *v = json_get(o, "version");

        r->tls = 1;
        r->tls_st.handshakes += num(o, "handshakes", &bad);
        r->tls_st.resumed += num(o, "resumed", &bad);
        r->tls_st.failed += num(o, "failed", &bad);
        if (v != NULL && v->type == JSON_STRING) {
            snprintf(r->tls_st.version, sizeof(r->tls_st.version), "%s",
                     v->string);
        }
    }
    o = json_get(root, "latency_histogram_us");
    if (o == NULL || o->type != JSON_ARRAY) {
        bad = 1;
    }
    for (e = o != NULL ? o->child : NULL; e != NULL; e = e->next) {
        const json_t *lo = e->child, *cnt = lo != NULL ? lo->next : NULL;

        if (e->type != JSON_ARRAY || lo == NULL || cnt == NULL
            || lo->type != JSON_NUMBER || cnt->type != JSON_NUMBER) {
            bad = 1;
            continue;
        }
        r->latency.bucket[trace_hist_index((uint64_t) lo->number)] +=
            (uint64_t) cnt->number;
        r->latency.count += (uint64_t) cnt->number;
    }
    o = json_get(root, "fidelity");
    r->log_2xx += num(o, "log_2xx", &bad);
    r->got_2xx += num(o, "answered_2xx", &bad);
    r->logged_size += num(o, "logged_size", &bad);
    r->log_404 += num(o, "log_404", &bad);
    r->got_404 += num(o, "answered_404", &bad);
    r->log_3xx += num(o, "log_3xx", &bad);
    r->got_301 += num(o, "answered_301", &bad);
    o = json_get(o, "exceptions");
    for (e = o != NULL ? o->child : NULL; e != NULL; e = e->next) {
        long st = strtol(e->key + (strlen(e->key) > 13 ? 13 : 0), NULL, 10);

        if (e->type != JSON_NUMBER || strncmp(e->key, "2xx_answered_", 13) != 0
            || st < 0 || st >= MAX_STATUS) {
            bad = 1;
            continue;
        }
        r->miss_2xx[st] += (uint64_t) e->number;
    }
    r->latency.sum += num(root, "latency_sum_us", &bad);
    k = num(root, "latency_max_us", &bad);
    if (k > r->latency.max) {
        r->latency.max = k;
    }
    if (!bad && breakdown_merge_json(bd, root, &why) != 0) {
        fprintf(stderr, "nicreplay merge: %s: %s\n", path, why);
        json_free(root);
        return -1;
    }
    json_free(root);
    if (bad) {
        fprintf(stderr,
                "nicreplay merge: %s: not a nicreplay result (a key is "
                "missing or not a number)\n",
                path);
        return -1;
    }
    return 0;
}

/* ---- merge of --hdr logs ---- */

typedef struct {
    double      at; /* the interval's start, s since the merged StartTime */
    int         run;
    const char *rest; /* "length,max,histogram" */
    size_t      len;
} hdr_line_t;

static int
by_start(const void *a, const void *b)
{
    const hdr_line_t *x = a, *y = b;

    if (x->at != y->at) {
        return x->at < y->at ? -1 : 1;
    }
    return x->run - y->run;
}

/*
 * The runs' HdrHistogram logs as one: every interval kept whole, tagged
 * with its run ("Tag=run-K", the log format's tags), its start moved to
 * the earliest run's StartTime.  Nothing is re-encoded or averaged: the
 * sum of the intervals is the sum of the runs' histograms, which is
 * what HdrHistogram's log tools add up.
 */
static int
merge_hdr(char **logs, const char **paths, int nlogs, const char *out_path)
{
    hdr_line_t *lines = NULL;
    size_t      nlines = 0, cap = 0, i;
    double      start[64], first = 0;
    const char *unit = NULL;
    FILE       *out;
    int         k, rc = 0;

    if (nlogs > 64) {
        fprintf(stderr, "nicreplay merge: at most 64 --hdr logs\n");
        return -1;
    }
    for (k = 0; k < nlogs; k++) {
        const char *p = strstr(logs[k], "#[StartTime: ");

        if (p == NULL || sscanf(p + 13, "%lf", &start[k]) != 1) {
            fprintf(stderr,
                    "nicreplay merge: %s: an HdrHistogram log "
                    "without its StartTime\n",
                    paths[k]);
            return -1;
        }
        if (k == 0 || start[k] < first) {
            first = start[k];
        }
    }
    for (k = 0; k < nlogs; k++) {
        char *line, *save = NULL;

        for (line = strtok_r(logs[k], "\n", &save); line != NULL;
             line = strtok_r(NULL, "\n", &save)) {
            char  *comma;
            double at;

            if (line[0] == '#') {
                if (unit == NULL && strncmp(line, "#[latency", 9) == 0) {
                    unit = line;
                }
                continue;
            }
            if (line[0] == '"') {
                continue; /* the column names */
            }
            at = strtod(line, &comma);
            if (comma == line || *comma != ',') {
                fprintf(stderr,
                        "nicreplay merge: %s: not an interval "
                        "line: %.40s\n",
                        paths[k], line);
                free(lines);
                return -1;
            }
            if (trace_grow(&lines, &cap, nlines + 1, sizeof(hdr_line_t), 64)
                != 0) {
                free(lines);
                fprintf(stderr, "nicreplay merge: out of memory\n");
                return -1;
            }
            lines[nlines].at = at + (start[k] - first);
            lines[nlines].run = k;
            lines[nlines].rest = comma + 1;
            lines[nlines].len = strlen(comma + 1);
            nlines++;
        }
    }
    qsort(lines, nlines, sizeof(*lines), by_start);
    if ((out = fopen(out_path, "w")) == NULL) {
        fprintf(stderr, "nicreplay merge: %s: %s\n", out_path, strerror(errno));
        free(lines);
        return -1;
    }
    fprintf(out,
            "#[Histogram log format version 1.3]\n"
            "#[StartTime: %.3f (seconds since epoch)]\n"
            "%s%s"
            "#[%d runs merged: each interval tagged with its run]\n"
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
            "\"Interval_Compressed_Histogram\"\n",
            first, unit != NULL ? unit : "", unit != NULL ? "\n" : "", nlogs);
    for (i = 0; i < nlines; i++) {
        fprintf(out, "Tag=run-%d,%.3f,%.*s\n", lines[i].run, lines[i].at,
                (int) lines[i].len, lines[i].rest);
    }
    free(lines);
    if (fclose(out) != 0) {
        fprintf(stderr, "nicreplay merge: %s: %s\n", out_path, strerror(errno));
        rc = -1;
    }
    return rc;
}

int
nicreplay_merge(int argc, char **argv, const char *json, const char *hdr)
{
    result_t    *r = calloc(1, sizeof(*r));
    breakdown_t *bd = breakdown_new(0, BY_SIZE_NONE);
    char       **logs = calloc((size_t) argc + 1, sizeof(*logs));
    const char **log_paths = calloc((size_t) argc + 1, sizeof(*log_paths));
    double       rps = 0, mbps = 0;
    int          i, rc = 1, nlogs = 0, nresults = 0, with_bd = 0;

    if (r == NULL || bd == NULL || logs == NULL || log_paths == NULL
        || argc == 0) {
        fprintf(stderr, "usage: nicreplay merge RESULT.json... [HDR.log...] "
                        "[--json FILE] [--hdr FILE]\n");
        rc = 2;
        goto out;
    }
    for (i = 0; i < argc; i++) {
        size_t n;
        char   err[512];
        char  *buf = json_read_file(argv[i], &n, err, sizeof(err));

        if (buf == NULL) {
            fprintf(stderr, "nicreplay merge: %s\n", err);
            goto out;
        }
        if (strncmp(buf, "#[Histogram log", 15) == 0) {
            logs[nlogs] = buf;
            log_paths[nlogs++] = argv[i];
            continue;
        }
        with_bd += strstr(buf, "\"every_url\"") != NULL
                   || strstr(buf, "\"by_size_classes\"") != NULL;
        nresults++;
        if (merge_one(argv[i], buf, n, r, bd, &rps, &mbps) != 0) {
            free(buf);
            goto out;
        }
        free(buf);
    }
    if (nresults == 0) {
        fprintf(stderr, "nicreplay merge: no RESULT.json among the files\n");
        goto out;
    }
    if (with_bd != 0 && with_bd != nresults) {
        fprintf(stderr,
                "nicreplay merge: --by-url or --by-size is in %d of "
                "the %d results: merged, its tables would count only "
                "those runs\n",
                with_bd, nresults);
        goto out;
    }
    if ((nlogs > 0) != (hdr != NULL)) {
        fprintf(stderr, nlogs > 0
                            ? "nicreplay merge: HdrHistogram logs "
                              "given without --hdr FILE to merge them into\n"
                            : "nicreplay merge: --hdr FILE with no "
                              "HdrHistogram log to merge\n");
        goto out;
    }
    if (nlogs > 0 && merge_hdr(logs, log_paths, nlogs, hdr) != 0) {
        goto out;
    }
    /* runs side by side: their rates add up; the summary's rates come
     * from the longest run's duration, so say what was added */
    nicreplay_print_summary(r, NULL, stdout);
    if (with_bd) {
        breakdown_print(bd, NULL, r->elapsed, stdout);
    }
    printf("  merged %d runs: requests/s %.1f, content %.2f Mb/s (sums of "
           "the runs' rates)\n",
           nresults, rps, mbps);
    rc = 0;
    if (json != NULL) {
        /* write the summed rates: scale the duration so that
         * requests / duration is their sum */
        if (rps > 0) {
            r->elapsed = (double) r->requests / rps;
        }
        /* no replay here: write_json reads rp only when fs is given */
        rc =
            nicreplay_write_json(NULL, r, NULL, with_bd ? bd : NULL, NULL, json)
                    == 0
                ? 0
                : 1;
    }
out:
    for (i = 0; i < nlogs; i++) {
        free(logs[i]);
    }
    free(logs);
    free(log_paths);
    breakdown_free(bd);
    free(r);
    return rc;
}

int
nicreplay_merge_main(int argc, char **argv)
{
    const char *json = NULL, *hdr = NULL;
    int         i, n = 0;

    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else if (strcmp(argv[i], "--hdr") == 0 && i + 1 < argc) {
            hdr = argv[++i];
        } else {
            argv[n++] = argv[i];
        }
    }
    return nicreplay_merge(n, argv, json, hdr);
}
