/*
 * niccompare's report (niccompare.h): tables, JSON, figures, Markdown.
 */

#include <time.h>

#include "niccompare/niccompare.h"

/* ---- results ---- */

static const run_t *
baseline(cmp_t *cp, const run_t *r)
{
    int i;

    for (i = 0; i < cp->nruns; i++) {
        if (cp->runs[i].cache == 0
            && strcmp(cp->runs[i].testbed, r->testbed) == 0) {
            return &cp->runs[i];
        }
    }
    return NULL;
}

static double
gain(double v, double base)
{
    return base > 0 ? 100.0 * (v / base - 1.0) : 0;
}

/* the index of r's baseline (cache 0, the same testbed), or -1 */
static int
baseline_index(cmp_t *cp, const run_t *r)
{
    const run_t *b = baseline(cp, r);

    return b != NULL ? (int) (b - cp->runs) : -1;
}

/* qsort: runs by throughput, lowest first (for the median of repeats) */
static int
by_mbps(const void *a, const void *b)
{
    double x = ((const run_t *) a)->mbps, y = ((const run_t *) b)->mbps;

    return (x > y) - (x < y);
}

double
niccompare_summarise(cmp_t *cp)
{
    double x[MAX_REPEATS], y[MAX_REPEATS], widest = 0;
    run_t  sorted[MAX_REPEATS];
    int    i, k, n = cp->nreps, b;

    for (i = 0; i < cp->nruns; i++) {
        run_t *r = &cp->runs[i];

        /* the median replay by throughput, with its counters */
        memcpy(sorted, cp->reps[i], sizeof(run_t) * (size_t) n);
        qsort(sorted, (size_t) n, sizeof(run_t), by_mbps);
        *r = sorted[n / 2];
        r->has_ci = n > 1;
        for (k = 0; k < n; k++) {
            x[k] = cp->reps[i][k].mbps;
            y[k] = cp->reps[i][k].rps;
        }
        trace_median_ci(x, n, 0.95, &r->mbps_ci);
        trace_median_ci(y, n, 0.95, &r->rps_ci);
        b = baseline_index(cp, r);
        if (b < 0 || b == i) {
            memset(&r->gain_ci, 0, sizeof(r->gain_ci));
            memset(&r->rgain_ci, 0, sizeof(r->rgain_ci));
            continue;
        }
        /* round k of this configuration against round k of its
         * baseline: they ran one after the other */
        for (k = 0; k < n; k++) {
            x[k] = gain(cp->reps[i][k].mbps, cp->reps[b][k].mbps);
            y[k] = gain(cp->reps[i][k].rps, cp->reps[b][k].rps);
        }
        trace_median_ci(x, n, 0.95, &r->gain_ci);
        trace_median_ci(y, n, 0.95, &r->rgain_ci);
        if (r->gain_ci.high - r->gain_ci.low > widest) {
            widest = r->gain_ci.high - r->gain_ci.low;
        }
    }
    return widest;
}

/*
 * Did a modelled resource (bus, host, memory) set the pace of any of
 * testbed's runs, or would it have (over its limit)?  When none did, this
 * machine set the pace, and a measured difference is the emulation's own
 * cost (inserts are real copies), not the cache's effect: the modelled
 * answer is that the cache does not change throughput there.
 */
static int
bound(cmp_t *cp, const char *testbed)
{
    int i;

    for (i = 0; i < cp->nruns; i++) {
        const run_t *r = &cp->runs[i];

        if (strcmp(r->testbed, testbed) == 0
            && (strcmp(r->limited_by, "none") != 0 || r->bus_over
                || r->host_over || r->mem_over)) {
            return 1;
        }
    }
    return 0;
}

/* the measured gain, as gain_of() but whatever limited the run */
static double
measured_gain(cmp_t *cp, const run_t *r, int rate)
{
    const run_t *b = baseline(cp, r);

    if (b == NULL || b == r) {
        return 0;
    }
    if (r->has_ci) {
        return rate ? r->rgain_ci.median : r->gain_ci.median;
    }
    return rate ? gain(r->rps, b->rps) : gain(r->mbps, b->mbps);
}

/* ---- today's question: bytes per served byte, and the ceilings ---- */

static uint64_t bus_total(const run_t *r);

/* interconnect (bus occupancy, framing included) and DRAM bytes per
 * content byte served */
static double
pcie_per_byte(const run_t *r)
{
    return r->content > 0 ? (double) bus_total(r) / (double) r->content : 0;
}

static double
dram_per_byte(const run_t *r)
{
    return r->content > 0 ? (double) r->dram / (double) r->content : 0;
}

/*
 * The content rate (Gb/s) the testbed's modelled resources allow at these
 * bytes per served byte: the least of the line (1448 content bytes of each
 * 1514-byte frame), the interconnect at its busiest and the DRAM
 * bandwidth, of those the testbed gives (a testbed without a line rate or
 * a memory model still has its interconnect); 0 when it gives none.
 * *by (may be NULL): which of "line", "pcie" and "memory" sets it.
 */
static double
ceiling(const run_t *r, const char **by)
{
    double c = 0, x, pcie = pcie_per_byte(r), dram = dram_per_byte(r);

    if (by != NULL) {
        *by = "line";
    }
    if (r->line_gbps > 0) {
        c = r->line_gbps * 1448.0 / 1514.0;
    }
    if (pcie > 0 && r->bus_bw > 0 && r->bus_max_util > 0
        && ((x = r->bus_bw * r->bus_max_util / pcie * 8 / 1e9) < c || c == 0)) {
        c = x;
        if (by != NULL) {
            *by = "pcie";
        }
    }
    if (dram > 0 && r->mem_bw > 0
        && ((x = r->mem_bw / dram * 8 / 1e9) < c || c == 0)) {
        c = x;
        if (by != NULL) {
            *by = "memory";
        }
    }
    return c;
}

static double
ceiling_gbps(const run_t *r)
{
    return ceiling(r, NULL);
}

static const char *
ceiling_by(const run_t *r)
{
    const char *by;

    ceiling(r, &by);
    return by;
}

/* a configuration's gain over its baseline in percent: the median of the
 * gains paired round by round (rate: of requests/s, else of Mb/s); 0
 * where no modelled resource limits (bound()) */
static double
gain_of(cmp_t *cp, const run_t *r, int rate)
{
    return bound(cp, r->testbed) ? measured_gain(cp, r, rate) : 0;
}

/* 1 when a gain's interval holds 0: no measurable change */
static int
no_change(const run_t *r, const trace_ci_t *g)
{
    return r->has_ci && r->cache != 0 && g->low <= 0 && g->high >= 0;
}

/* "+12.3 [+8.1, +15.0]", "-" for a baseline; "no change" marks one whose
 * interval holds 0 */
static const char *
gain_text(cmp_t *cp, const run_t *r, int rate, char *buf, size_t len)
{
    const trace_ci_t *g = rate ? &r->rgain_ci : &r->gain_ci;

    if (baseline(cp, r) == NULL || r->cache == 0) {
        return "-";
    }
    if (!bound(cp, r->testbed)) {
        /* no modelled resource limits: what was measured is the
         * emulation's own cost, said as that, never as a 0 */
        snprintf(buf, len, "%+.1f (emulation)", measured_gain(cp, r, rate));
        return buf;
    }
    if (!r->has_ci) {
        snprintf(buf, len, "%+.1f", gain_of(cp, r, rate));
    } else {
        snprintf(buf, len, "%+.1f [%+.1f, %+.1f]%s", g->median, g->low, g->high,
                 no_change(r, g) ? " no change" : "");
    }
    return buf;
}

/* "1234.5 [1200.1, 1250.0]" */
static const char *
value_text(const run_t *r, const trace_ci_t *c, double v, char *buf, size_t len)
{
    if (!r->has_ci) {
        snprintf(buf, len, "%.1f", v);
    } else {
        snprintf(buf, len, "%.1f [%.1f, %.1f]", c->median, c->low, c->high);
    }
    return buf;
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

/*
 * What the cache changes on the interconnect and in DRAM, per content
 * byte served, and (testbeds with a line rate) the content rate the
 * modelled resources allow with and without it, and the DRAM bandwidth
 * it frees at the line rate.
 */
static void
today_table(cmp_t *cp, FILE *f, int md)
{
    const char *sep = md ? " | " : "  ";
    char        size[24], ceil[24], gainb[24], freed[24];
    int         i;

    fprintf(f,
            "\n%sWhat the cache changes: interconnect (bus occupancy, "
            "framing included) and DRAM bytes per served content byte, "
            "modelled%s\n\n",
            md ? "### " : "",
            md ? ""
               : " (ceiling: the content rate the line, interconnect "
                 "and DRAM allow)");
    fputs(md ? "| " : "", f);
    fprintf(f, "%-16s%s%6s%s%8s%s%8s%s%8s%s%8s%s%9s%s%7s%s%9s%s%10s", "testbed",
            sep, "cache", sep, "PCIe B/B", sep, "saved", sep, "DRAM B/B", sep,
            "saved", sep, "ceiling", sep, "by", sep, "gain%", sep,
            "DRAM freed");
    fputs(md ? " |\n" : "\n", f);
    if (md) {
        fputs("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: "
              "| ---: |\n",
              f);
    }
    for (i = 0; i < cp->nruns; i++) {
        const run_t *r = &cp->runs[i], *b = baseline(cp, r);
        double       c = ceiling_gbps(r), cb = b != NULL ? ceiling_gbps(b) : 0;

        niccompare_human(r->cache, size, sizeof(size));
        snprintf(ceil, sizeof(ceil), c > 0 ? "%.1f Gb/s" : "-", c);
        snprintf(gainb, sizeof(gainb),
                 c > 0 && cb > 0 && r->cache != 0 ? "%+.1f" : "-", gain(c, cb));
        /* DRAM bandwidth freed when serving at the line rate, or where
         * the testbed gives none at its ceiling (GB/s) */
        snprintf(freed, sizeof(freed),
                 (r->line_gbps > 0 || c > 0) && b != NULL && r->cache != 0
                         && r->dram > 0
                     ? "%.2f GB/s"
                     : "-",
                 (dram_per_byte(b != NULL ? b : r) - dram_per_byte(r))
                     * (r->line_gbps > 0 ? r->line_gbps * 1448.0 / 1514.0 : c)
                     / 8);
        fputs(md ? "| " : "", f);
        fprintf(f,
                "%-16s%s%6s%s%8.3f%s%8.3f%s%8.3f%s%8.3f%s%9s%s%7s%s%9s%s%10s",
                r->testbed, sep, size, sep, pcie_per_byte(r), sep,
                b != NULL ? pcie_per_byte(b) - pcie_per_byte(r) : 0, sep,
                dram_per_byte(r), sep,
                b != NULL ? dram_per_byte(b) - dram_per_byte(r) : 0, sep, ceil,
                sep, c > 0 ? ceiling_by(r) : "-", sep, gainb, sep, freed);
        fputs(md ? " |\n" : "\n", f);
    }
}

void
niccompare_tables(cmp_t *cp, FILE *f, int md)
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

        niccompare_human(cp->runs[i].cache, size, sizeof(size));
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
    if (cp->nreps > 1) {
        fprintf(f,
                "Medians of %d rounds; [low, high] holds the median with "
                "probability %.1f %% (order statistics); \"no change\": the "
                "gain's interval holds 0, no measurable change.\n\n",
                cp->nreps, 100 * cp->runs[0].mbps_ci.coverage);
    }
    ROW_START();
    fprintf(f, "%-12s%s%6s%s%24s%s%30s%s%24s%s%30s%s%6s%s%6s%s%8s%s%10s",
            "testbed", sep, "cache", sep, "Mb/s", sep, "gain%", sep, "req/s",
            sep, "gain%", sep, "bus", sep, "host", sep, "limited", sep,
            "mismatches");
    ROW_END();
    if (md) {
        fputs("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
              "| ---: |\n",
              f);
    }
    for (i = 0; i < cp->nruns; i++) {
        const run_t *r = &cp->runs[i];
        char         a[64], g1[64], c[64], g2[64];

        niccompare_human(r->cache, size, sizeof(size));
        ROW_START();
        fprintf(f,
                "%-12s%s%6s%s%24s%s%30s%s%24s%s%30s%s%6.3f%s%6.3f%s%8s"
                "%s%10llu",
                r->testbed, sep, size, sep,
                value_text(r, &r->mbps_ci, r->mbps, a, sizeof(a)), sep,
                gain_text(cp, r, 0, g1, sizeof(g1)), sep,
                value_text(r, &r->rps_ci, r->rps, c, sizeof(c)), sep,
                gain_text(cp, r, 1, g2, sizeof(g2)), sep, r->bus_util, sep,
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

        niccompare_human(r->cache, size, sizeof(size));
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
        if (!bound(cp, cp->o.testbeds[k])) {
            fprintf(f,
                    "\n%s: not bus-, host- or memory-bound: the cache does "
                    "not change throughput here (this machine set the "
                    "pace; the measured difference, the emulation's own "
                    "cost, is in the JSON as measured_throughput_gain).  "
                    "What the cache changes is below: interconnect and "
                    "DRAM bytes per served byte.\n",
                    cp->o.testbeds[k]);
            continue;
        }
        for (i = 0; i < cp->nruns; i++) {
            if (cp->runs[i].testbed == cp->o.testbeds[k]
                && strcmp(cp->runs[i].limited_by, "none") == 0) {
                break;
            }
        }
        if (i < cp->nruns) {
            fprintf(f,
                    "\nNote: no modelled resource limited some %s runs: "
                    "this machine set their pace, so part of their "
                    "throughput difference is the emulation's own cost "
                    "(inserts are real copies).\n",
                    cp->o.testbeds[k]);
        }
    }
    today_table(cp, f, md);
    for (i = 0; i < cp->nruns; i++) {
        if (cp->runs[i].bus_over || cp->runs[i].host_over
            || cp->runs[i].mem_over) {
            fprintf(f,
                    "\nNote: the modelled %s would have limited the %s run "
                    "(utilisation above what it can do).\n",
                    cp->runs[i].bus_over    ? "bus"
                    : cp->runs[i].host_over ? "host"
                                            : "memory",
                    cp->runs[i].testbed);
        }
    }
#undef ROW_START
#undef ROW_END
}

void
niccompare_write_json(cmp_t *cp, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int   i, k;

    if (f == NULL) {
        niccompare_die("%s: %s", path, strerror(errno));
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
                "\"request_rate_gain\": %.3f, \"responses\": %llu, ",
                r->testbed, cp->o.nics, (unsigned long long) r->cache,
                cp->o.policy, cp->o.conns, cp->nreps, r->seconds,
                (unsigned long long) r->requests,
                r->has_ci ? r->rps_ci.median : r->rps,
                r->has_ci ? r->mbps_ci.median : r->mbps, gain_of(cp, r, 0),
                gain_of(cp, r, 1), (unsigned long long) r->responses);
        {
            const run_t *base = b != NULL ? b : r;

            fprintf(f,
                    "\"bound\": %s, \"measured_throughput_gain\": %.3f, "
                    "\"measured_request_rate_gain\": %.3f, "
                    "\"pcie_bytes_per_served_byte\": %.6f, "
                    "\"pcie_bytes_saved_per_served_byte\": %.6f, "
                    "\"dram_bytes_per_served_byte\": %.6f, "
                    "\"dram_bytes_saved_per_served_byte\": %.6f, "
                    "\"dram_bytes\": %llu, \"mem_utilisation\": %.6f, "
                    "\"mem_over_limit\": %s, \"line_gbps\": %.1f, "
                    "\"modelled_ceiling_gbps\": %.3f, "
                    "\"modelled_ceiling_by\": \"%s\", "
                    "\"modelled_gain\": %.3f, ",
                    bound(cp, r->testbed) ? "true" : "false",
                    measured_gain(cp, r, 0), measured_gain(cp, r, 1),
                    pcie_per_byte(r), pcie_per_byte(base) - pcie_per_byte(r),
                    dram_per_byte(r), dram_per_byte(base) - dram_per_byte(r),
                    (unsigned long long) r->dram, r->mem_util,
                    r->mem_over ? "true" : "false", r->line_gbps,
                    ceiling_gbps(r), ceiling_gbps(r) > 0 ? ceiling_by(r) : "",
                    ceiling_gbps(base) > 0
                        ? gain(ceiling_gbps(r), ceiling_gbps(base))
                        : 0);
        }
        if (r->has_ci) {
            /* the intervals, and whether each gain is a measurable one */
            fprintf(f,
                    "\"ci_coverage\": %.4f, \"requests_per_s_ci_low\": %.3f, "
                    "\"requests_per_s_ci_high\": %.3f, "
                    "\"content_mbps_ci_low\": %.3f, "
                    "\"content_mbps_ci_high\": %.3f, "
                    "\"throughput_gain_ci_low\": %.3f, "
                    "\"throughput_gain_ci_high\": %.3f, "
                    "\"request_rate_gain_ci_low\": %.3f, "
                    "\"request_rate_gain_ci_high\": %.3f, "
                    "\"measurable_throughput_gain\": %s, "
                    "\"measurable_request_rate_gain\": %s, ",
                    r->mbps_ci.coverage, r->rps_ci.low, r->rps_ci.high,
                    r->mbps_ci.low, r->mbps_ci.high,
                    /* not bound: the modelled gain is 0, exactly */
                    bound(cp, r->testbed) ? r->gain_ci.low : 0,
                    bound(cp, r->testbed) ? r->gain_ci.high : 0,
                    bound(cp, r->testbed) ? r->rgain_ci.low : 0,
                    bound(cp, r->testbed) ? r->rgain_ci.high : 0,
                    b != NULL && b != r && bound(cp, r->testbed)
                            && !no_change(r, &r->gain_ci)
                        ? "true"
                        : "false",
                    b != NULL && b != r && bound(cp, r->testbed)
                            && !no_change(r, &r->rgain_ci)
                        ? "true"
                        : "false");
        }
        fprintf(f, "\"bus_bytes\": {");
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
        niccompare_die("%s: %s", path, strerror(errno));
    }
}

/* today in UTC, YYYY-MM-DD */
static void
today(char *buf, size_t len)
{
    time_t    t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d", &tm);
}

void
niccompare_plots(cmp_t *cp)
{
    char  data[PATH_MAX], script[PATH_MAX], date[16], *slash;
    char *argv[9];

    if (mkdir(cp->o.plots, 0755) != 0 && errno != EEXIST) {
        niccompare_die("%s: %s", cp->o.plots, strerror(errno));
    }
    snprintf(data, sizeof(data), "%s/niccompare.json", cp->o.plots);
    niccompare_write_json(cp, data);
    snprintf(script, sizeof(script), "%s",
             niccompare_tool(cp, "niccompare-plot"));
    today(date, sizeof(date));
    slash = strrchr(cp->o.trace, '/');
    argv[0] = script;
    argv[1] = data;
    argv[2] = (char *) cp->o.plots;
    argv[3] = "--trace";
    argv[4] = slash != NULL ? slash + 1 : (char *) cp->o.trace;
    argv[5] = "--date";
    argv[6] = date;
    argv[7] = NULL;
    if (niccompare_run(argv, NULL, NULL) != 0) {
        niccompare_die("niccompare-plot could not draw the figures into %s "
                       "(python3-matplotlib installed?)",
                       cp->o.plots);
    }
}

/*
 * to as a path relative to the directory from (both made absolute): the
 * report's image links open from wherever the report is read.
 */
static void
relative(const char *from, const char *to, char *out, size_t len)
{
    char        a[PATH_MAX], b[PATH_MAX];
    const char *p, *q;
    size_t      common = 0, o = 0;

    if (realpath(from, a) == NULL || realpath(to, b) == NULL) {
        snprintf(out, len, "%s", to);
        return;
    }
    /* the longest common leading run of whole components */
    for (p = a, q = b; *p != '\0' && *p == *q; p++, q++) {
        if (*p == '/') {
            common = (size_t) (p - a);
        }
    }
    if ((*p == '\0' && (*q == '/' || *q == '\0'))) {
        common = (size_t) (p - a);
    }
    out[0] = '\0';
    for (p = a + common; *p != '\0'; p++) {
        if (*p == '/' && o + 3 < len) {
            memcpy(out + o, "../", 4);
            o += 3;
        }
    }
    q = b + common;
    snprintf(out + o, len - o, "%s", *q == '/' ? q + 1 : q);
    if (out[0] == '\0') {
        snprintf(out, len, ".");
    }
}

/*
 * The report's first line, the answer to its question for each testbed:
 * the largest cache's throughput gain with its interval, and what limits
 * the runs ("16 MiB per NIC: +22.0 [+17.0, +24.0] % throughput on amd33,
 * bus-limited").  Where no modelled resource limits, the measured change
 * is the emulation's own cost, and said so.
 */
static void
answer(cmp_t *cp, FILE *f)
{
    char sz[32], g[64];
    int  i, j, any = 0;

    for (i = 0; i < cp->o.ntestbeds; i++) {
        const run_t *best = NULL;

        for (j = 0; j < cp->nruns; j++) {
            const run_t *r = &cp->runs[j];

            if (strcmp(r->testbed, cp->o.testbeds[i]) == 0 && r->cache > 0
                && (best == NULL || r->cache > best->cache)) {
                best = r;
            }
        }
        if (best == NULL) {
            continue;
        }
        nicache_size_str(best->cache, sz, sizeof(sz));
        if (bound(cp, best->testbed)) {
            const trace_ci_t *c = &best->gain_ci;

            if (best->has_ci) {
                snprintf(g, sizeof(g), "%+.1f %% [%+.1f, %+.1f]%s", c->median,
                         c->low, c->high,
                         no_change(best, c) ? ", no measurable change" : "");
            } else {
                snprintf(g, sizeof(g), "%+.1f %%", gain_of(cp, best, 0));
            }
            fprintf(f, "%s**%s per NIC on %s: %s throughput, %s-limited**",
                    any ? "; " : "", sz, best->testbed, g,
                    strcmp(best->limited_by, "none") != 0 ? best->limited_by
                                                          : "model");
        } else {
            fprintf(f,
                    "%s**%s per NIC on %s: no modelled resource limits, so "
                    "no gain; the measured %+.1f %% is the emulation's own "
                    "cost**",
                    any ? "; " : "", sz, best->testbed,
                    measured_gain(cp, best, 0));
        }
        any = 1;
    }
    if (any) {
        fputs(".\n\n", f);
    }
}

void
niccompare_report(cmp_t *cp)
{
    FILE *f = fopen(cp->o.report, "w");
    char  dir[PATH_MAX], rel[PATH_MAX], date[16], *slash;

    if (f == NULL) {
        niccompare_die("%s: %s", cp->o.report, strerror(errno));
    }
    today(date, sizeof(date));
    fprintf(f, "# NIC data cache: cached versus uncached\n\n");
    answer(cp, f);
    fprintf(f,
            "Trace `%s`, %d NICs, policy %s, %d connections%s, %d round%s.  "
            "Measured: throughput, request rate, mismatches (nicreplay); "
            "modelled: bus and host time and traffic "
            "(docs/interconnect.md).\n\n"
            "Made on %s by niccompare %s:\n\n    ",
            cp->o.trace, cp->o.nics, cp->o.policy, cp->o.conns,
            cp->o.duration > 0 ? " (timed replay)" : " (whole trace)",
            cp->nreps, cp->nreps == 1 ? "" : "s", date, NICACHE_VERSION);
    fprintf(f, "%s\n\n", cp->o.cmdline);
    niccompare_tables(cp, f, 1);
    if (cp->o.plots != NULL) {
        /* links relative to the report's own directory */
        snprintf(dir, sizeof(dir), "%s", cp->o.report);
        slash = strrchr(dir, '/');
        if (slash != NULL) {
            *slash = '\0';
        } else {
            snprintf(dir, sizeof(dir), ".");
        }
        relative(dir, cp->o.plots, rel, sizeof(rel));
        fprintf(f,
                "\n![Figure 7a](%s/fig7a.png)\n![Figure 7b](%s/fig7b.png)\n"
                "![Figure 7c](%s/fig7c.png)\n![Figure 3](%s/fig3.png)\n"
                "![Figure 4](%s/fig4.png)\n",
                rel, rel, rel, rel, rel);
    }
    if (fclose(f) != 0) {
        niccompare_die("%s: %s", cp->o.report, strerror(errno));
    }
}
