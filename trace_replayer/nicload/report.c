/*
 * nicload's report (nicload.h): the summary for people and --json.
 */

#include "nicload/nicload.h"

/* ---- results ---- */

double
nicload_share(uint64_t part, uint64_t whole)
{
    return whole > 0 ? (double) part / (double) whole : 0;
}

/* three standard deviations, in points, of the largest class's share at
 * this number of requests: what chance alone explains */
static double
mix_spread(load_t *lp)
{
    double p = specweb_class_share[1];

    return lp->res.requests > 0
               ? 300 * sqrt(p * (1 - p) / (double) lp->res.requests)
               : 100;
}

/* the largest distance, in points, between the mix sent and the target */
static double
mix_deviation(load_t *lp)
{
    double worst = 0, d;
    int    k;

    for (k = 0; k < SPECWEB_CLASSES; k++) {
        d = 100
            * (nicload_share(lp->res.by_class[k], lp->res.requests)
               - specweb_class_share[k]);
        d = d < 0 ? -d : d;
        worst = d > worst ? d : worst;
    }
    return worst;
}

void
nicload_print_summary(load_t *lp, FILE *out)
{
    char causes[512];
    int  k;

    if (lp->res.failure[0] != '\0') {
        fprintf(out, "FAILED: %s\n", lp->res.failure);
    }
    fprintf(out,
            "%u connections at %.0f bit/s: %u conforming (%.1f %%), %u "
            "not\n",
            lp->cf.conns, lp->cf.rate, lp->res.conforming,
            100 * nicload_share(lp->res.conforming, lp->cf.conns),
            lp->cf.conns - lp->res.conforming);
    fprintf(out,
            "  per connection: min %.0f, median %.0f, max %.0f bit/s "
            "(conforming: %.0f)\n",
            lp->res.rate_min, lp->res.rate_median, lp->res.rate_max,
            0.8 * lp->cf.rate);
    fprintf(out,
            "  measured %.0f s: %llu requests (%.1f/s), %.2f Mb/s, %llu TCP "
            "connections\n",
            lp->cf.duration, (unsigned long long) lp->res.requests,
            (double) lp->res.requests / lp->cf.duration,
            lp->res.bits / lp->cf.duration / 1e6,
            (unsigned long long) lp->res.connections);
    for (k = 0; lp->res.requests > 0 && k < SPECWEB_CLASSES; k++) {
        fprintf(out,
                "  class %d: %llu (%.2f %%, target %.0f %%), latency p50 "
                "%.2f ms p99 %.2f ms\n",
                k, (unsigned long long) lp->res.by_class[k],
                100 * nicload_share(lp->res.by_class[k], lp->res.requests),
                100 * specweb_class_share[k],
                (double) trace_hist_quantile(&lp->res.latency[k], 0.5) / 1e3,
                (double) trace_hist_quantile(&lp->res.latency[k], 0.99) / 1e3);
    }
    for (k = 0; lp->res.requests > 0 && lp->cf.full && k < K_KINDS; k++) {
        fprintf(out, "  %s: %llu (%.2f %%, target %.2f %%)\n", kind_names[k],
                (unsigned long long) lp->res.by_kind[k],
                100 * nicload_share(lp->res.by_kind[k], lp->res.requests),
                100 * kind_share[k]);
    }
    if (lp->res.requests > 0) {
        fprintf(out,
                "  mix: at most %.2f points from the target (chance "
                "explains %.2f at this count)%s\n",
                mix_deviation(lp), mix_spread(lp),
                mix_deviation(lp) > mix_spread(lp) ? ": OFF TARGET" : "");
    }
    fprintf(out, "  errors:");
    for (k = 0; k < E_KINDS; k++) {
        fprintf(out, " %s %llu", error_names[k],
                (unsigned long long) lp->res.errors[k]);
    }
    fprintf(out, "; failed %llu\n", (unsigned long long) lp->res.failed);
    if (lp->cf.tls != NULL) {
        const hclient_tls_stats_t *t = hclient_tls_stats(lp->cf.tls);

        fprintf(
            out, "  tls: %llu handshakes, %llu resumed, %llu failed; %s %s\n",
            (unsigned long long) t->handshakes, (unsigned long long) t->resumed,
            (unsigned long long) t->failed, t->version, t->cipher);
    }
    if (lp->res.causes.total > 0) {
        fprintf(
            out, "  causes: %s\n",
            causes_format(&lp->res.causes, CAUSES_MAX, causes, sizeof(causes)));
    }
    if (lp->cf.verify) {
        fprintf(out, "  verify: %llu bytes checked, %llu mismatches\n",
                (unsigned long long) lp->res.verified_bytes,
                (unsigned long long) lp->res.mismatches);
    }
}

void
nicload_write_result(load_t *lp, FILE *f)
{
    int k;

    fputs("{\"run_failed\": ", f);
    if (lp->res.failure[0] != '\0') {
        json_write_string(f, lp->res.failure);
    } else {
        fputs("null", f);
    }
    fprintf(f,
            ", \"connections\": %u, \"rate_per_conn_bps\": %.0f, "
            "\"conforming\": %u, \"non_conforming\": %u, "
            "\"conforming_share\": %.4f, \"conn_rate_bps\": {\"min\": %.0f, "
            "\"median\": %.0f, \"max\": %.0f}, \"duration_s\": %.3f, "
            "\"warmup_s\": %.3f, \"requests\": %llu, \"requests_per_s\": "
            "%.1f, \"throughput_bps\": %.0f, \"tcp_connections\": %llu, "
            "\"failed\": %llu, \"mismatches\": %llu, \"verified_bytes\": "
            "%llu, \"mix_deviation_points\": %.3f, \"mix_spread_points\": "
            "%.3f, \"classes\": [",
            lp->cf.conns, lp->cf.rate, lp->res.conforming,
            lp->cf.conns - lp->res.conforming,
            nicload_share(lp->res.conforming, lp->cf.conns), lp->res.rate_min,
            lp->res.rate_median, lp->res.rate_max, lp->cf.duration,
            lp->cf.warmup, (unsigned long long) lp->res.requests,
            (double) lp->res.requests / lp->cf.duration,
            lp->res.bits / lp->cf.duration,
            (unsigned long long) lp->res.connections,
            (unsigned long long) lp->res.failed,
            (unsigned long long) lp->res.mismatches,
            (unsigned long long) lp->res.verified_bytes, mix_deviation(lp),
            mix_spread(lp));
    for (k = 0; k < SPECWEB_CLASSES; k++) {
        const trace_hist_t *h = &lp->res.latency[k];

        fprintf(f,
                "%s{\"class\": %d, \"requests\": %llu, \"share\": %.5f, "
                "\"target\": %.2f, \"latency_us\": {\"p50\": %llu, \"p90\": "
                "%llu, \"p99\": %llu, \"max\": %llu}}",
                k ? ", " : "", k, (unsigned long long) lp->res.by_class[k],
                nicload_share(lp->res.by_class[k], lp->res.requests),
                specweb_class_share[k],
                (unsigned long long) trace_hist_quantile(h, 0.5),
                (unsigned long long) trace_hist_quantile(h, 0.9),
                (unsigned long long) trace_hist_quantile(h, 0.99),
                (unsigned long long) h->max);
    }
    fprintf(f, "], \"mix\": \"%s\", \"kinds\": [",
            lp->cf.full ? "full" : "static");
    for (k = 0; k < K_KINDS; k++) {
        fprintf(f,
                "%s{\"kind\": \"%s\", \"requests\": %llu, \"share\": %.5f, "
                "\"target\": %.4f}",
                k ? ", " : "", kind_names[k],
                (unsigned long long) lp->res.by_kind[k],
                nicload_share(lp->res.by_kind[k], lp->res.requests),
                lp->cf.full ? kind_share[k] : (k == K_STATIC));
    }
    fprintf(f, "], \"conn_rates_bps\": [");
    for (k = 0; k < (int) lp->cf.conns; k++) {
        fprintf(f, "%s%.0f", k ? ", " : "", lp->res.rates[k]);
    }
    fprintf(f, "], \"errors\": {");
    for (k = 0; k < E_KINDS; k++) {
        fprintf(f, "%s\"%s\": %llu", k ? ", " : "", error_names[k],
                (unsigned long long) lp->res.errors[k]);
    }
    fputc('}', f);
    if (lp->cf.tls != NULL) {
        fputs(", \"tls\": ", f);
        hclient_tls_json(hclient_tls_stats(lp->cf.tls), f);
    }
    fprintf(f, ", \"error_causes\": ");
    causes_json(&lp->res.causes, f);
    fputc('}', f);
}
