/*
 * The nic backend's report: its counters per NIC and in total, as JSON
 * or Prometheus text, and their reset.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sendfile_nic/nic/nic.h"
#include "util/clock.h"

/* pinned: every slot held a block still to be sent (the nginx module
 * only: nicd sends a block before it looks at the next) */
static const char *const fb_names[FB_NREASONS] = {
    "not_file_block", "file_too_large", "not_in_page_cache", "device_error",
    "all_slots_pinned"};

static const char *const pace_names[PACE_N] = {"bus", "host", "memory"};

/* A snapshot of one NIC's counters (under its lock). */
static void
snapshot(nic_t *n, nic_counters_t *out, uint64_t *inval, uint64_t *evict,
         uint32_t *used)
{
    const snic_dir_stats_t *ds;

    snic_nic_lock(&n->lock);
    *out = n->c;
    *inval = *evict = 0;
    *used = 0;
    if (n->dir != NULL) {
        ds = snic_dir_stats(n->dir);
        *inval = ds->invalidations - n->c.inval_base;
        *evict = ds->evictions - n->c.evict_base;
        *used = snic_dir_used(n->dir);
    }
    pthread_mutex_unlock(&n->lock);
}

typedef struct {
    char  *buf;
    size_t len, need;
} out_t;

static void outf(out_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
outf(out_t *o, const char *fmt, ...)
{
    va_list ap;
    int     k;

    va_start(ap, fmt);
    k = vsnprintf(o->need < o->len ? o->buf + o->need : NULL,
                  o->need < o->len ? o->len - o->need : 0, fmt, ap);
    va_end(ap);
    if (k > 0) {
        o->need += (size_t) k;
    }
}

/* one NIC (id >= 0) or the total (id -1) */
static void
report_one(out_t *o, int format, int id, const nic_counters_t *c,
           uint64_t inval, uint64_t evict, uint32_t used, double elapsed_s)
{
    char     lbl[32];
    int      k;
    double   util = 0, hutil = 0, mutil = 0, share = 0;
    uint64_t total = 0, content = c->cached_bytes + c->mm_bytes;
    uint64_t crossed = c->insert_bytes + c->mm_bytes;

    if (elapsed_s > 0) {
        util = (double) c->bus.busy_ns / 1e9 / elapsed_s;
        hutil = (double) c->host.busy_ns / 1e9 / elapsed_s;
        mutil = (double) c->mem.busy_ns / 1e9 / elapsed_s;
    }
    if (content > 0) {
        share = (double) c->saved_bytes / (double) content;
    }
    for (k = 0; k < SNIC_BUS_NCAT; k++) {
        total += c->bus.bytes[k];
    }
    if (format == SNIC_REPORT_JSON) {
        if (id >= 0) {
            outf(o, "{\"nic\": %d, ", id);
        } else {
            outf(o, "\"total\": {");
        }
        outf(o,
             "\"connections\": %llu, \"responses\": %llu, \"hits\": %llu, "
             "\"misses\": %llu, \"inserts\": %llu, \"insert_bytes\": %llu, "
             "\"invalidations\": %llu, \"evictions\": %llu, "
             "\"blocks_used\": %u, \"content_bytes\": %llu, "
             "\"saved_bytes\": %llu, \"crossed_bytes\": %llu, "
             "\"saved_share\": %.6f, \"cached_bytes\": %llu, "
             "\"host_bytes\": %llu, \"header_bytes\": %llu, "
             "\"fallbacks\": {",
             (unsigned long long) c->conns,
             (unsigned long long) c->host.responses,
             (unsigned long long) c->hits, (unsigned long long) c->misses,
             (unsigned long long) c->inserts,
             (unsigned long long) c->insert_bytes, (unsigned long long) inval,
             (unsigned long long) evict, used, (unsigned long long) content,
             (unsigned long long) c->saved_bytes, (unsigned long long) crossed,
             share, (unsigned long long) c->cached_bytes,
             (unsigned long long) c->mm_bytes,
             (unsigned long long) c->header_bytes);
        for (k = 0; k < FB_NREASONS; k++) {
            outf(o, "%s\"%s\": %llu", k ? ", " : "", fb_names[k],
                 (unsigned long long) c->fallbacks[k]);
        }
        outf(o, "}, \"bus_bytes\": {");
        for (k = 0; k < SNIC_BUS_NCAT; k++) {
            outf(o, "%s\"%s\": %llu", k ? ", " : "", snic_bus_category[k],
                 (unsigned long long) c->bus.bytes[k]);
        }
        outf(o,
             "}, \"bus_total_bytes\": %llu, \"packets\": %llu, "
             "\"bus_busy_ns\": %llu, \"bus_utilisation\": %.6f, "
             "\"host_busy_ns\": %llu, \"host_utilisation\": %.6f, "
             "\"dram_bytes\": %llu, \"mem_busy_ns\": %llu, "
             "\"mem_utilisation\": %.6f}",
             (unsigned long long) total, (unsigned long long) c->bus.packets,
             (unsigned long long) c->bus.busy_ns, util,
             (unsigned long long) c->host.busy_ns, hutil,
             (unsigned long long) c->mem.dram_bytes,
             (unsigned long long) c->mem.busy_ns, mutil);
        return;
    }
    if (id >= 0) {
        snprintf(lbl, sizeof(lbl), "nic=\"%d\"", id);
    } else {
        snprintf(lbl, sizeof(lbl), "nic=\"total\"");
    }
#define P(name, v)                                                             \
    outf(o, "nicd_nic_" name "{%s} %llu\n", lbl, (unsigned long long) (v))
    P("connections_total", c->conns);
    P("responses_total", c->host.responses);
    P("hits_total", c->hits);
    P("misses_total", c->misses);
    P("inserts_total", c->inserts);
    P("insert_bytes_total", c->insert_bytes);
    P("invalidations_total", inval);
    P("evictions_total", evict);
    P("blocks_used", used);
    P("content_bytes_total", content);
    P("saved_bytes_total", c->saved_bytes);
    P("crossed_bytes_total", crossed);
    P("cached_bytes_total", c->cached_bytes);
    P("host_bytes_total", c->mm_bytes);
    P("header_bytes_total", c->header_bytes);
    P("packets_total", c->bus.packets);
    P("bus_busy_ns_total", c->bus.busy_ns);
    P("host_busy_ns_total", c->host.busy_ns);
    P("dram_bytes_total", c->mem.dram_bytes);
    P("mem_busy_ns_total", c->mem.busy_ns);
#undef P
    for (k = 0; k < FB_NREASONS; k++) {
        outf(o, "nicd_nic_fallbacks_total{%s,reason=\"%s\"} %llu\n", lbl,
             fb_names[k], (unsigned long long) c->fallbacks[k]);
    }
    for (k = 0; k < SNIC_BUS_NCAT; k++) {
        outf(o, "nicd_nic_bus_bytes_total{%s,category=\"%s\"} %llu\n", lbl,
             snic_bus_category[k], (unsigned long long) c->bus.bytes[k]);
    }
    outf(o, "nicd_nic_saved_share{%s} %.6f\n", lbl, share);
    outf(o, "nicd_nic_bus_utilisation{%s} %.6f\n", lbl, util);
    outf(o, "nicd_nic_host_utilisation{%s} %.6f\n", lbl, hutil);
    outf(o, "nicd_nic_mem_utilisation{%s} %.6f\n", lbl, mutil);
}

/*
 * What limited a paced run: the modelled resource whose clock made sends
 * wait longest, or "none" (the machine, or the load, set the pace).
 */
static const char *
limited_by(const uint64_t *paced)
{
    int r, most = -1;

    for (r = 0; r < PACE_N; r++) {
        if (paced[r] > 0 && (most < 0 || paced[r] > paced[most])) {
            most = r;
        }
    }
    return most < 0 ? "none" : pace_names[most];
}

size_t
snic_nic_report(void *state, int format, char *buf, size_t len)
{
    nic_state_t   *s = state;
    out_t          o = {buf, len, 0};
    nic_counters_t c, sum;
    uint64_t       inval, evict, tinval = 0, tevict = 0, paced[PACE_N];
    uint32_t       used, tused = 0;
    double         el, bus_util, host_util, mem_util;
    int            i, k, bus_over, host_over, mem_over;

    snic_nic_lock(&s->pace_lock);
    el = (double) (nicache_now_ns() - s->since) / 1e9;
    pthread_mutex_unlock(&s->pace_lock);
    for (k = 0; k < PACE_N; k++) {
        paced[k] = __atomic_load_n(&s->paced_ns[k], __ATOMIC_RELAXED);
    }
    memset(&sum, 0, sizeof(sum));
    if (format == SNIC_REPORT_JSON) {
        outf(&o,
             "{\"backend\": \"nic\", \"nic_count\": %d, "
             "\"cache_bytes\": %zu, \"block_bytes\": %zu, \"policy\": "
             "\"%s\", \"testbed\": \"%s\", \"bus\": \"%s\", "
             "\"bus_max_utilisation\": %.3f, \"host\": {\"req_ns\": %.1f, "
             "\"pkt_ns\": %.1f, \"mem_ns\": %.4f}, \"memory\": "
             "{\"bw_bytes_per_s\": %.0f, \"fill_passes\": %.3f, "
             "\"tls_passes\": %.3f}, \"line_gbps\": %.1f, "
             "\"bus_bytes_per_s\": %.0f, \"bus_limit\": %s, "
             "\"mss\": %zu, \"seconds\": %.3f, \"paced_ns\": {\"bus\": %llu, "
             "\"host\": %llu, \"memory\": %llu}, \"limited_by\": \"%s\", "
             "\"nics\": [",
             s->count, s->cache_size, s->block, s->policy->name,
             s->testbed != NULL ? s->testbed->name : "", s->bus->name,
             s->bus->max_util, s->host.req_ns, s->host.pkt_ns, s->host.mem_ns,
             s->mem.bw, s->mem.fill, s->mem.tls, s->line_gbps,
             (double) s->bus->width * s->bus->clock_mhz * 1e6,
             s->bus_limit ? "true" : "false", s->mss, el,
             (unsigned long long) paced[PACE_BUS],
             (unsigned long long) paced[PACE_HOST],
             (unsigned long long) paced[PACE_MEM], limited_by(paced));
    } else {
        outf(&o,
             "# HELP nicd_nic_hits_total Blocks sent from NIC memory.\n"
             "# TYPE nicd_nic_hits_total counter\n"
             "# HELP nicd_nic_saved_bytes_total Content sent from blocks "
             "already cached: it did not cross the interconnect.\n"
             "# TYPE nicd_nic_saved_bytes_total counter\n"
             "# HELP nicd_nic_bus_bytes_total Modelled interconnect traffic "
             "by category (overhead: bus time as bytes).\n"
             "# TYPE nicd_nic_bus_bytes_total counter\n"
             "# HELP nicd_nic_bus_utilisation Modelled bus busy time over "
             "wall-clock time since the start or reset.\n"
             "# TYPE nicd_nic_bus_utilisation gauge\n"
             "# HELP nicd_nic_host_utilisation Modelled host busy time over "
             "wall-clock time since the start or reset.\n"
             "# TYPE nicd_nic_host_utilisation gauge\n");
    }
    for (i = 0; i < s->count; i++) {
        snapshot(&s->nics[i], &c, &inval, &evict, &used);
        if (format == SNIC_REPORT_JSON && i > 0) {
            outf(&o, ", ");
        }
        report_one(&o, format, i, &c, inval, evict, used, el);
        sum.conns += c.conns;
        sum.hits += c.hits;
        sum.misses += c.misses;
        sum.inserts += c.inserts;
        sum.insert_bytes += c.insert_bytes;
        sum.cached_bytes += c.cached_bytes;
        sum.saved_bytes += c.saved_bytes;
        sum.mm_bytes += c.mm_bytes;
        sum.header_bytes += c.header_bytes;
        for (k = 0; k < FB_NREASONS; k++) {
            sum.fallbacks[k] += c.fallbacks[k];
        }
        snic_bus_acct_add(&sum.bus, &c.bus);
        sum.host.responses += c.host.responses;
        sum.host.busy_ns += c.host.busy_ns;
        sum.mem.dram_bytes += c.mem.dram_bytes;
        sum.mem.busy_ns += c.mem.busy_ns;
        tinval += inval;
        tevict += evict;
        tused += used;
    }
    if (format == SNIC_REPORT_JSON) {
        outf(&o, "], ");
    }
    report_one(&o, format, -1, &sum, tinval, tevict, tused, el);
    bus_util = el > 0 ? (double) sum.bus.busy_ns / 1e9 / el : 0;
    host_util = el > 0 ? (double) sum.host.busy_ns / 1e9 / el : 0;
    mem_util = el > 0 ? (double) sum.mem.busy_ns / 1e9 / el : 0;
    /* without pacing, say when the model would have stopped the run
     * (with it, the clocks' allowances leave a percent or two of play) */
    bus_over = !s->bus_limit && bus_util > s->bus->max_util;
    host_over = !s->bus_limit && snic_host_modelled(&s->host) && host_util > 1;
    mem_over = !s->bus_limit && s->mem.bw > 0 && mem_util > 1;
    if (format == SNIC_REPORT_JSON) {
        outf(&o,
             ", \"bus_over_limit\": %s, \"host_over_limit\": %s, "
             "\"mem_over_limit\": %s}\n",
             bus_over ? "true" : "false", host_over ? "true" : "false",
             mem_over ? "true" : "false");
    } else {
        outf(&o,
             "nicd_nic_paced_ns_total{resource=\"bus\"} %llu\n"
             "nicd_nic_paced_ns_total{resource=\"host\"} %llu\n"
             "nicd_nic_paced_ns_total{resource=\"memory\"} %llu\n"
             "nicd_nic_bus_over_limit %d\nnicd_nic_host_over_limit %d\n"
             "nicd_nic_mem_over_limit %d\n",
             (unsigned long long) paced[PACE_BUS],
             (unsigned long long) paced[PACE_HOST],
             (unsigned long long) paced[PACE_MEM], bus_over, host_over,
             mem_over);
    }
    return o.need;
}

void
snic_nic_reset(void *state)
{
    nic_state_t *s = state;
    int          i;

    for (i = 0; i < s->count; i++) {
        nic_t                  *n = &s->nics[i];
        const snic_dir_stats_t *ds;

        snic_nic_lock(&n->lock);
        memset(&n->c, 0, sizeof(n->c));
        if (n->dir != NULL) {
            ds = snic_dir_stats(n->dir);
            n->c.inval_base = ds->invalidations;
            n->c.evict_base = ds->evictions;
        }
        pthread_mutex_unlock(&n->lock);
    }
    snic_nic_lock(&s->pace_lock);
    s->since = nicache_now_ns();
    for (i = 0; i < PACE_N; i++) {
        __atomic_store_n(&s->paced_ns[i], 0, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&s->pace_lock);
}
