/*
 * Status and metrics for every send backend: nginx's stub_status, and the
 * same counters with more (responses by status class, body bytes, per
 * server) as JSON (nicd_status) and Prometheus text (nicd_metrics); the
 * send backend's own report joins them where it has one (the nic
 * backend's counters).
 *
 * The counters are the generation's (they start again at a reload, where
 * nginx keeps its in shared memory).  Reading and Writing change as the
 * connections do (nicd_conn_state), as nginx's; Waiting is the rest of
 * the active ones.  The same counts are the variables
 * $connections_active, _reading, _writing and _waiting.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

enum { FORMAT_STUB = 0, FORMAT_JSON, FORMAT_PROMETHEUS };

/* the generation's counters, summed over its workers */
typedef struct {
    uint64_t active, reading, writing, waiting, accepted, handled, requests;
    uint64_t responses[6], body_bytes;
} totals_t;

static void
sum(const nicd_cycle_t *cy, totals_t *t)
{
    const nicd_stats_t *s;
    uint32_t            active, reading, writing;
    int                 i, k;

    memset(t, 0, sizeof(*t));
    for (i = 0; cy->stats != NULL && i < cy->nworkers; i++) {
        s = &cy->stats[i];
        active = NICD_STAT_GET(s->active);
        reading = NICD_STAT_GET(s->reading);
        writing = NICD_STAT_GET(s->writing);
        t->active += active;
        t->reading += reading;
        t->writing += writing;
        /* the worker's other connections (read at slightly different
         * moments: never below 0) */
        t->waiting +=
            active > reading + writing ? active - reading - writing : 0;
        t->accepted += NICD_STAT_GET(s->accepted);
        t->handled += NICD_STAT_GET(s->handled);
        t->requests += NICD_STAT_GET(s->requests);
        t->body_bytes += NICD_STAT_GET(s->body_bytes);
        for (k = 0; k < 6; k++) {
            t->responses[k] += NICD_STAT_GET(s->responses[k]);
        }
    }
}

/* server srv's counter k (0: requests, 1..5: responses by class) */
static uint64_t
srv_count(const nicd_cycle_t *cy, int srv, int k)
{
    uint64_t n = 0;
    int      i;

    for (i = 0; cy->stats != NULL && i < cy->nworkers; i++) {
        n += NICD_STAT_GET(cy->stats[i].srv[srv * NICD_SRV_STATS + k]);
    }
    return n;
}

/* a server's label: its first name, else "_" and its number */
static void
srv_name(nicd_buf_t *b, const nicd_server_conf_t *sv)
{
    const char *p;

    if (sv->nnames == 0 || sv->names[0][0] == '\0') {
        nicd_buf_addf(b, "_%d", sv->index);
        return;
    }
    for (p = sv->names[0]; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\') {
            nicd_buf_add(b, "\\", 1);
        }
        nicd_buf_add(b, p, 1);
    }
}

static void
stub(nicd_buf_t *b, const totals_t *t)
{
    nicd_buf_addf(b,
                  "Active connections: %" PRIu64 " \nserver accepts handled "
                  "requests\n %" PRIu64 " %" PRIu64 " %" PRIu64
                  " \nReading: %" PRIu64 " Writing: %" PRIu64
                  " Waiting: %" PRIu64 " \n",
                  t->active, t->accepted, t->handled, t->requests, t->reading,
                  t->writing, t->waiting);
}

static void
json(nicd_conn_t *c, nicd_buf_t *b, const totals_t *t)
{
    const nicd_cycle_t *cy = c->w->cycle;
    const nicd_conf_t  *cf = cy->conf;
    int                 i, k;

    nicd_buf_addf(
        b,
        "{\"version\":\"%s\",\"generation\":%d,\"uptime_s\":%" PRIu64
        ",\"send_backend\":\"%s\",\"connections\":{\"active\":%" PRIu64
        ",\"reading\":%" PRIu64 ",\"writing\":%" PRIu64 ",\"waiting\":%" PRIu64
        ",\"accepted\":%" PRIu64 ",\"handled\":%" PRIu64
        "},\"requests\":%" PRIu64 ",\"body_bytes\":%" PRIu64 ",\"responses\":{",
        NICD_VERSION, cy->generation, (uint64_t) time(NULL) - cy->started,
        cy->backend.ops->name, t->active, t->reading, t->writing, t->waiting,
        t->accepted, t->handled, t->requests, t->body_bytes);
    for (k = 1; k < 6; k++) {
        nicd_buf_addf(b, "%s\"%dxx\":%" PRIu64, k > 1 ? "," : "", k,
                      t->responses[k]);
    }
    NICD_BUF_LIT(b, "},\"servers\":[");
    for (i = 0; i < cf->nservers; i++) {
        nicd_buf_addf(b, "%s{\"name\":\"", i > 0 ? "," : "");
        srv_name(b, cf->servers[i]);
        nicd_buf_addf(b, "\",\"requests\":%" PRIu64 ",\"responses\":{",
                      srv_count(cy, i, 0));
        for (k = 1; k < 6; k++) {
            nicd_buf_addf(b, "%s\"%dxx\":%" PRIu64, k > 1 ? "," : "", k,
                          srv_count(cy, i, k));
        }
        NICD_BUF_LIT(b, "}}");
    }
    NICD_BUF_LIT(b, "]");
    if (cy->backend.ops->report != NULL) {
        NICD_BUF_LIT(b, ",\"backend\":");
        nicd_backend_report(c, SNIC_REPORT_JSON, b);
        /* the backend's text may end in a newline: JSON allows it */
    }
    NICD_BUF_LIT(b, "}\n");
}

static void
metric(nicd_buf_t *b, const char *name, const char *type, const char *help)
{
    nicd_buf_addf(b, "# HELP nicd_%s %s\n# TYPE nicd_%s %s\n", name, help, name,
                  type);
}

static void
prometheus(nicd_conn_t *c, nicd_buf_t *b, const totals_t *t)
{
    const nicd_cycle_t *cy = c->w->cycle;
    const nicd_conf_t  *cf = cy->conf;
    int                 i, k;

    metric(b, "connections", "gauge", "Connections open, by state.");
    nicd_buf_addf(b,
                  "nicd_connections{state=\"active\"} %" PRIu64 "\n"
                  "nicd_connections{state=\"reading\"} %" PRIu64 "\n"
                  "nicd_connections{state=\"writing\"} %" PRIu64 "\n"
                  "nicd_connections{state=\"waiting\"} %" PRIu64 "\n",
                  t->active, t->reading, t->writing, t->waiting);
    metric(b, "connections_accepted_total", "counter", "Connections accepted.");
    nicd_buf_addf(b, "nicd_connections_accepted_total %" PRIu64 "\n",
                  t->accepted);
    metric(b, "requests_total", "counter", "Requests read.");
    nicd_buf_addf(b, "nicd_requests_total %" PRIu64 "\n", t->requests);
    metric(b, "body_bytes_total", "counter", "Response body bytes sent.");
    nicd_buf_addf(b, "nicd_body_bytes_total %" PRIu64 "\n", t->body_bytes);
    metric(b, "responses_total", "counter", "Responses, by status class.");
    for (k = 1; k < 6; k++) {
        nicd_buf_addf(b, "nicd_responses_total{class=\"%dxx\"} %" PRIu64 "\n",
                      k, t->responses[k]);
    }
    metric(b, "server_requests_total", "counter", "Requests, by server.");
    for (i = 0; i < cf->nservers; i++) {
        NICD_BUF_LIT(b, "nicd_server_requests_total{server=\"");
        srv_name(b, cf->servers[i]);
        nicd_buf_addf(b, "\"} %" PRIu64 "\n", srv_count(cy, i, 0));
    }
    metric(b, "server_responses_total", "counter",
           "Responses, by server and status class.");
    for (i = 0; i < cf->nservers; i++) {
        for (k = 1; k < 6; k++) {
            NICD_BUF_LIT(b, "nicd_server_responses_total{server=\"");
            srv_name(b, cf->servers[i]);
            nicd_buf_addf(b, "\",class=\"%dxx\"} %" PRIu64 "\n", k,
                          srv_count(cy, i, k));
        }
    }
    nicd_backend_report(c, SNIC_REPORT_PROMETHEUS, b);
}

/* the module's settings of a level: the format of its page */
typedef struct {
    int format; /* FORMAT_*, NICD_UNSET: no status page here */
} status_conf_t;

nicd_module_t nicd_status_module;

static void
status_content(nicd_conn_t *c, const nicd_request_t *r,
               const nicd_loc_conf_t *lc)
{
    int format =
        ((const status_conf_t *) NICD_LOC_CONF(lc, nicd_status_module))->format;

    static const char *const types[] = {"text/plain", "application/json",
                                        "text/plain; version=0.0.4"};
    nicd_buf_t               b = {0};
    totals_t                 t;
    int                      head = r->method == NICD_M_HEAD;

    sum(c->w->cycle, &t);
    switch (format) {
    case FORMAT_JSON: json(c, &b, &t); break;
    case FORMAT_PROMETHEUS: prometheus(c, &b, &t); break;
    default: stub(&b, &t);
    }
    nicd_respond_mem(c, 200, head, types[format], 1, &b);
    nicd_buf_free(&b);
}

static const char *
set_status(parse_t *ps, const char **a, int n)
{
    const char *msg;

    (void) a;
    (void) n;
    msg = nicd_conf_handler(ps, status_content, ps->d->name);
    if (msg == NULL) {
        /* the format, by entry */
        ((status_conf_t *) nicd_conf_module_loc(ps))->format =
            (int) ps->d->offset;
    }
    return msg;
}

static const directive_t nicd_status_directives[] = {
    {"stub_status", CTX_LOC, 0, 1, set_status, FORMAT_STUB},
    {"nicd_status", CTX_LOC, 0, 0, set_status, FORMAT_JSON},
    {"nicd_metrics", CTX_LOC, 0, 0, set_status, FORMAT_PROMETHEUS},
    {NULL, 0, 0, 0, NULL, 0},
};

static void *
status_create(nicd_conf_t *c)
{
    status_conf_t *sc = nicd_conf_alloc(c, sizeof(*sc));

    if (sc != NULL) {
        sc->format = NICD_UNSET;
    }
    return sc;
}

/* $connections_active, _reading, _writing, _waiting (v->data: the
 * field's offset in totals_t), as the stub_status page has them */
static int
get_connections(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
                const char *suffix, size_t slen, nicd_buf_t *b)
{
    totals_t t;

    (void) x;
    (void) suffix;
    (void) slen;
    sum(c->w->cycle, &t);
    nicd_buf_addf(
        b, "%" PRIu64,
        *(const uint64_t *) ((const char *) &t + (size_t) (uintptr_t) v->data));
    return 0;
}

#define TOTAL(f) ((const void *) offsetof(totals_t, f))
static const nicd_var_t status_vars[] = {
    {"connections_active", get_connections, NICD_VAR_VOLATILE, TOTAL(active)},
    {"connections_reading", get_connections, NICD_VAR_VOLATILE, TOTAL(reading)},
    {"connections_writing", get_connections, NICD_VAR_VOLATILE, TOTAL(writing)},
    {"connections_waiting", get_connections, NICD_VAR_VOLATILE, TOTAL(waiting)},
    {NULL, NULL, 0, NULL},
};
#undef TOTAL

nicd_module_t nicd_status_module = {
    .name = "status",
    .directives = nicd_status_directives,
    .create_loc_conf = status_create,
    .variables = status_vars,
};
