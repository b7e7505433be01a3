/*
 * nicreplay's counts and reports (nicreplay.h): the summary for people,
 * --json, --hdr, --csv, progress ("nicreplay merge" is merge.c).
 */

#include "nicreplay/nicreplay.h"

int
nicreplay_scheduled(replay_t *rp)
{
    return rp->cf.rate > 0 || rp->cf.speed > 0;
}

const char *const nicreplay_error_names[E_KINDS] = {"connect", "reset",
                                                    "timeout", "parse"};

int
nicreplay_hdr_write(replay_t *rp, uint64_t t)
{
    const trace_hist_t *h = &rp->hdr_interval;
    char               *enc;
    int                 rc = 0;

    if (rp->csv_sec_file != NULL) {
        /* start and length (s), what was answered and failed in it */
        rc = fprintf(
            rp->csv_sec_file, "%.3f,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
            (double) (rp->hdr_since - rp->t_start) / 1e9,
            (double) (t - rp->hdr_since) / 1e9, (unsigned long long) h->count,
            (unsigned long long) rp->iv_failed,
            (unsigned long long) rp->iv_bytes,
            (unsigned long long) trace_hist_quantile(h, 0.5),
            (unsigned long long) trace_hist_quantile(h, 0.9),
            (unsigned long long) trace_hist_quantile(h, 0.99),
            (unsigned long long) h->max);
    }
    if (rp->hdr_file != NULL && rc >= 0) {
        enc = trace_hist_hdr_encode(h);
        if (enc == NULL) {
            return -1;
        }
        /* start (s since the log's StartTime), length (s), max (ms, as
         * HdrHistogram's tools print microseconds), the histogram */
        rc = fprintf(rp->hdr_file, "%.3f,%.3f,%.3f,%s\n",
                     (double) (rp->hdr_since - rp->t_start) / 1e9,
                     (double) (t - rp->hdr_since) / 1e9,
                     (double) h->max / 1000.0, enc);
        free(enc);
    }
    memset(&rp->hdr_interval, 0, sizeof(rp->hdr_interval));
    rp->iv_failed = rp->iv_bytes = 0;
    rp->hdr_since = t;
    return rc < 0 ? -1 : 0;
}

/* a CSV field: quoted when it holds a comma, a quote or a line break */
static void
csv_field(FILE *f, const char *s, size_t n)
{
    size_t i;

    if (strcspn(s, ",\"\r\n") >= n) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (i = 0; i < n; i++) {
        if (s[i] == '"') {
            fputc('"', f);
        }
        fputc(s[i], f);
    }
    fputc('"', f);
}

void
nicreplay_csv_row(replay_t *rp, uint64_t session, const char *method,
                  const char *target, size_t tlen, int status, uint64_t bytes,
                  uint64_t us, uint64_t intended_us, uint64_t sent_us,
                  const cause_t *error)
{
    FILE *f = rp->csv_file;
    char  why[160];

    fprintf(f, "%llu,%s,", (unsigned long long) session, method);
    csv_field(f, target, tlen);
    fprintf(f, ",%d,%llu,%llu,%llu,%llu,", status, (unsigned long long) bytes,
            (unsigned long long) us, (unsigned long long) intended_us,
            (unsigned long long) sent_us);
    if (error != NULL) {
        snprintf(why, sizeof(why), "%s: %s", error->what, causes_reason(error));
        csv_field(f, why, strlen(why));
    }
    fputc('\n', f);
}

/* ---- results ---- */

void
nicreplay_count_status(result_t *r, int status, uint64_t n)
{
    if (status >= 0 && status < MAX_STATUS) {
        r->status[status] += n;
    } else {
        r->status_other += n;
    }
}

static double
rate(uint64_t n, double s)
{
    return s > 0 ? (double) n / s : 0;
}

/* "LABEL p50 .. max ..SUFFIX" and its JSON member: one histogram each */
static void
print_latency(FILE *out, const char *label, const trace_hist_t *h,
              const char *suffix)
{
    fprintf(out, "%s p50 %llu  p90 %llu  p99 %llu  p99.9 %llu  max %llu%s\n",
            label, (unsigned long long) trace_hist_quantile(h, 0.5),
            (unsigned long long) trace_hist_quantile(h, 0.9),
            (unsigned long long) trace_hist_quantile(h, 0.99),
            (unsigned long long) trace_hist_quantile(h, 0.999),
            (unsigned long long) h->max, suffix);
}

static void
json_latency(FILE *out, const char *key, const trace_hist_t *h, int mean)
{
    fprintf(out,
            "  \"%s\": {\"p50\": %llu, \"p90\": %llu, \"p99\": %llu, "
            "\"p999\": %llu, ",
            key, (unsigned long long) trace_hist_quantile(h, 0.5),
            (unsigned long long) trace_hist_quantile(h, 0.9),
            (unsigned long long) trace_hist_quantile(h, 0.99),
            (unsigned long long) trace_hist_quantile(h, 0.999));
    if (mean) {
        fprintf(out, "\"mean\": %.1f, ",
                h->count ? (double) h->sum / (double) h->count : 0.0);
    }
    fprintf(out, "\"max\": %llu},\n", (unsigned long long) h->max);
}

/*
 * Why the run did not do what was asked, into buf (one line), or NULL
 * when it did: a trace with nothing to replay, no request answered,
 * connections that could not connect past --max-errors, bytes that did
 * not match under --verify.
 */
const char *
nicreplay_failure(replay_t *rp, const result_t *r, const feed_stats_t *fs,
                  char *buf, size_t len)
{
    char causes[256];

    if (fs != NULL && fs->records == 0) {
        trace_no_record_why(feed_reader(rp->feed), "the trace", buf, len);
    } else if (fs != NULL && fs->kept == 0) {
        snprintf(buf, len,
                 "nothing to replay: of %llu records, %llu other "
                 "methods, %llu not ok, %llu other shards",
                 (unsigned long long) fs->records,
                 (unsigned long long) fs->other_methods,
                 (unsigned long long) fs->not_ok,
                 (unsigned long long) fs->other_shards);
    } else if (fs != NULL
               && trace_late_failure(feed_reader(rp->feed), "the trace", buf,
                                     len)
                      != NULL) {
        /* buf says it: an out-of-order log replayed out of its times */
    } else if (r->requests == 0) {
        snprintf(buf, len, "no request was answered (%s)%s",
                 causes_format(&r->causes, 3, causes, sizeof(causes)),
                 rp->gave_up ? "; stopped past --max-errors" : "");
    } else if (rp->gave_up
               || hclient_limit_exceeded(&rp->cf.max_errors,
                                         r->errors[E_CONNECT], r->connections,
                                         1)) {
        hclient_limit_why(&rp->cf.max_errors, r->errors[E_CONNECT],
                          r->connections, rp->gave_up,
                          causes_format(&r->causes, 3, causes, sizeof(causes)),
                          buf, len);
    } else if (rp->cf.verify && r->mismatches > 0) {
        snprintf(buf, len,
                 "%llu responses did not have the docroot's bytes "
                 "(--verify)",
                 (unsigned long long) r->mismatches);
    } else {
        return NULL;
    }
    return buf;
}

void
nicreplay_print_summary(const result_t *r, const char *failure, FILE *out)
{
    char causes[512];
    int  i, any = 0;

    if (failure != NULL) {
        fprintf(out, "FAILED: %s\n", failure);
    }
    fprintf(out,
            "%llu requests in %.2f s, %llu sessions, %llu connections "
            "(%llu reconnects)\n",
            (unsigned long long) r->requests, r->elapsed,
            (unsigned long long) r->sessions,
            (unsigned long long) r->connections,
            (unsigned long long) r->reconnects);
    /* no rate, latency or share over nothing answered: a 0 or a 100 %
     * there would read as a measurement */
    if (r->requests > 0) {
        fprintf(out, "  requests/s   %.1f\n", rate(r->requests, r->elapsed));
        fprintf(out, "  content      %.2f Mb/s (%llu body bytes)\n",
                rate(r->content_bytes, r->elapsed) * 8 / 1e6,
                (unsigned long long) r->content_bytes);
    }
    fprintf(out, "  pipeline     %llu groups, depth mean %.2f, max %llu\n",
            (unsigned long long) r->groups,
            r->groups ? (double) r->sent / (double) r->groups : 0.0,
            (unsigned long long) r->max_depth);
    if (r->requests > 0) {
        print_latency(out, "  latency us  ", &r->latency, "");
    }
    if (r->latency_sent.count > 0) {
        print_latency(out, "  from send us", &r->latency_sent,
                      " (uncorrected)");
        fprintf(out, "  schedule     sends late by up to %.1f ms\n",
                (double) r->lag_max_ns / 1e6);
    }
    fprintf(out, "  responses   ");
    for (i = 0; i < MAX_STATUS; i++) {
        if (r->status[i] > 0) {
            fprintf(out, " %d: %llu", i, (unsigned long long) r->status[i]);
            any = 1;
        }
    }
    if (r->status_other > 0) {
        fprintf(out, " other: %llu", (unsigned long long) r->status_other);
    }
    fprintf(out, "%s\n  errors      ", any ? "" : " none");
    for (i = 0; i < E_KINDS; i++) {
        fprintf(out, " %s %llu", nicreplay_error_names[i],
                (unsigned long long) r->errors[i]);
    }
    fprintf(out, " (requests without a response: %llu)\n",
            (unsigned long long) r->failed);
    if (r->tls) {
        char t[256];

        fprintf(out, "  tls          %s\n",
                hclient_tls_text(&r->tls_st, t, sizeof(t)));
    }
    if (r->causes.total > 0) {
        fprintf(out, "  causes       %s\n",
                causes_format(&r->causes, CAUSES_MAX, causes, sizeof(causes)));
    }
    fprintf(out, "  mismatches   %llu (%llu body bytes verified)\n",
            (unsigned long long) r->mismatches,
            (unsigned long long) r->verified_bytes);
    if (r->requests == 0) {
        return; /* fidelity of nothing answered is nothing */
    }
    if (r->log_2xx == 0) {
        fprintf(out, "  fidelity     no 2xx request replayed");
    } else {
        fprintf(out, "  fidelity     2xx answered 2xx %.2f %%",
                100.0 * (double) r->got_2xx / (double) r->log_2xx);
    }
    fprintf(out,
            " (%llu of %llu, %llu of "
            "the logged size); 404 stayed 404: %llu of %llu; 3xx answered "
            "301: %llu of %llu\n",
            (unsigned long long) r->got_2xx, (unsigned long long) r->log_2xx,
            (unsigned long long) r->logged_size,
            (unsigned long long) r->got_404, (unsigned long long) r->log_404,
            (unsigned long long) r->got_301, (unsigned long long) r->log_3xx);
    if (r->miss_2xx[0] > 0) {
        fprintf(out, "               2xx in the log answered nothing: %llu\n",
                (unsigned long long) r->miss_2xx[0]);
    }
    for (i = 1; i < MAX_STATUS; i++) {
        if (r->miss_2xx[i] > 0) {
            fprintf(out, "               2xx in the log answered %d: %llu\n", i,
                    (unsigned long long) r->miss_2xx[i]);
        }
    }
}

int
nicreplay_write_json(replay_t *rp, const result_t *r, const feed_stats_t *fs,
                     const breakdown_t *bd, const char *failure,
                     const char *path)
{
    FILE    *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int      i, first = 1;
    unsigned b;

    if (out == NULL) {
        fprintf(stderr, "nicreplay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(out, "{\n  \"run_failed\": ");
    if (failure != NULL) {
        json_write_string(out, failure);
    } else {
        fputs("null", out);
    }
    fprintf(out, ",\n  \"requests\": %llu,\n  \"requests_sent\": %llu,\n",
            (unsigned long long) r->requests, (unsigned long long) r->sent);
    fprintf(out, "  \"failed\": %llu,\n  \"duration_s\": %.6f,\n",
            (unsigned long long) r->failed, r->elapsed);
    if (r->started_at > 0) {
        fprintf(out, "  \"started_at\": %.6f,\n", r->started_at);
    }
    fprintf(out, "  \"requests_per_s\": %.3f,\n  \"content_mbps\": %.3f,\n",
            rate(r->requests, r->elapsed),
            rate(r->content_bytes, r->elapsed) * 8 / 1e6);
    fprintf(out, "  \"content_bytes\": %llu,\n  \"header_bytes\": %llu,\n",
            (unsigned long long) r->content_bytes,
            (unsigned long long) r->head_bytes);
    fprintf(out, "  \"responses_by_status\": {");
    for (i = 0; i < MAX_STATUS; i++) {
        if (r->status[i] > 0) {
            fprintf(out, "%s\"%d\": %llu", first ? "" : ", ", i,
                    (unsigned long long) r->status[i]);
            first = 0;
        }
    }
    if (r->status_other > 0) {
        fprintf(out, "%s\"other\": %llu", first ? "" : ", ",
                (unsigned long long) r->status_other);
    }
    fprintf(out, "},\n  \"errors\": {");
    for (i = 0; i < E_KINDS; i++) {
        fprintf(out, "%s\"%s\": %llu", i ? ", " : "", nicreplay_error_names[i],
                (unsigned long long) r->errors[i]);
    }
    fputc('}', out);
    if (r->tls) {
        fputs(",\n  \"tls\": ", out);
        hclient_tls_json(&r->tls_st, out);
    }
    fprintf(out, ",\n  \"error_causes\": ");
    causes_json(&r->causes, out);
    fprintf(out, ",\n  \"mismatches\": %llu,\n  \"verified_bytes\": %llu,\n",
            (unsigned long long) r->mismatches,
            (unsigned long long) r->verified_bytes);
    fprintf(out,
            "  \"sessions\": %llu,\n  \"connections\": %llu,\n"
            "  \"reconnects\": %llu,\n",
            (unsigned long long) r->sessions,
            (unsigned long long) r->connections,
            (unsigned long long) r->reconnects);
    fprintf(out,
            "  \"pipeline\": {\"groups\": %llu, \"mean_depth\": %.3f, "
            "\"max_depth\": %llu},\n",
            (unsigned long long) r->groups,
            r->groups ? (double) r->sent / (double) r->groups : 0.0,
            (unsigned long long) r->max_depth);
    json_latency(out, "latency_us", &r->latency, 1);
    if (r->latency_sent.count > 0) {
        json_latency(out, "latency_from_send_us", &r->latency_sent, 0);
        fprintf(out, "  \"schedule_lag_max_us\": %llu,\n",
                (unsigned long long) (r->lag_max_ns / 1000));
    }
    if (bd != NULL) {
        breakdown_json(bd, rp != NULL ? rp->feed : NULL, r->elapsed, out);
    }
    fprintf(out,
            "  \"fidelity\": {\"log_2xx\": %llu, \"answered_2xx\": %llu, "
            "\"share_2xx\": %.6f, \"logged_size\": %llu, \"log_404\": %llu, "
            "\"answered_404\": %llu, \"log_3xx\": %llu, \"answered_301\": "
            "%llu, \"exceptions\": {",
            (unsigned long long) r->log_2xx, (unsigned long long) r->got_2xx,
            r->log_2xx ? (double) r->got_2xx / (double) r->log_2xx : 0.0,
            (unsigned long long) r->logged_size,
            (unsigned long long) r->log_404, (unsigned long long) r->got_404,
            (unsigned long long) r->log_3xx, (unsigned long long) r->got_301);
    first = 1;
    for (i = 0; i < MAX_STATUS; i++) {
        if (r->miss_2xx[i] > 0) {
            fprintf(out, "%s\"2xx_answered_%d\": %llu", first ? "" : ", ", i,
                    (unsigned long long) r->miss_2xx[i]);
            first = 0;
        }
    }
    fprintf(out, "}},\n");
    if (fs != NULL) {
        fprintf(out,
                "  \"trace\": {\"records\": %llu, \"replayed\": %llu, "
                "\"other_methods\": %llu, \"not_ok\": %llu, "
                "\"other_shards\": %llu, \"parse_errors\": %llu},\n",
                (unsigned long long) fs->records, (unsigned long long) fs->kept,
                (unsigned long long) fs->other_methods,
                (unsigned long long) fs->not_ok,
                (unsigned long long) fs->other_shards,
                (unsigned long long) trace_bad_count(feed_reader(rp->feed)));
    }
    /* the histogram as [smallest value of the bucket, count] pairs, so
     * merge can add runs up and recompute the percentiles */
    fprintf(out, "  \"latency_histogram_us\": [");
    first = 1;
    for (b = 0; b < TRACE_HIST_BUCKETS; b++) {
        if (r->latency.bucket[b] > 0) {
            fprintf(out, "%s[%llu, %llu]", first ? "" : ", ",
                    (unsigned long long) trace_hist_low(b),
                    (unsigned long long) r->latency.bucket[b]);
            first = 0;
        }
    }
    fprintf(out,
            "],\n  \"latency_sum_us\": %llu,\n  \"latency_max_us\": "
            "%llu\n}\n",
            (unsigned long long) r->latency.sum,
            (unsigned long long) r->latency.max);
    if (out != stdout) {
        return fclose(out) == 0 ? 0 : -1;
    }
    fflush(out);
    return 0;
}

void
nicreplay_progress(replay_t *rp, uint64_t t, int final)
{
    static int tty = -1;
    double     el = (double) (t - rp->t_start) / 1e9, r, p, eta = -1;
    char       etab[64] = "", errb[200];

    if (tty < 0) {
        tty = isatty(STDERR_FILENO);
    }
    r = el > 0 ? (double) rp->res.requests / el : 0;
    if (rp->cf.duration > 0) {
        eta = rp->cf.duration - el;
    }
    if (rp->cf.max_requests > 0 && r > 0) {
        double e = (double) (rp->cf.max_requests - rp->res.requests) / r;

        eta = eta < 0 || e < eta ? e : eta;
    }
    p = feed_progress(rp->feed);
    if (eta < 0 && p > 0.001) {
        eta = el * (1 - p) / p;
    }
    if (eta >= 0 && !final) {
        snprintf(etab, sizeof(etab), ", ETA %.0f s", eta);
    }
    if (nicreplay_scheduled(rp) && !final) {
        size_t k = strlen(etab);

        snprintf(etab + k, sizeof(etab) - k, ", lag %.1f ms",
                 (double) rp->res.lag_last_ns / 1e6);
    }
    errb[0] = '\0';
    if (rp->res.causes.total > 0) {
        /* the errors as they come, with the commonest cause */
        char c[160];

        snprintf(errb, sizeof(errb), ", %llu errors (%s)",
                 (unsigned long long) rp->res.causes.total,
                 causes_format(&rp->res.causes, 1, c, sizeof(c)));
    }
    fprintf(stderr, "%snicreplay: %llu requests, %.0f/s, %.0f s%s%s%s",
            tty ? "\r" : "", (unsigned long long) rp->res.requests, r, el, etab,
            errb, tty ? (final ? "\n" : "    ") : "\n");
}
