/*
 * The report handler: a location's view of the send backend's counters,
 * Prometheus text or JSON, never cached.  "?reset" sets them to zero
 * after reading them.
 */

#include <stdlib.h>
#include <string.h>

#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "server/http/phases.h"

/* the module's settings of a level: the report's format */
typedef struct {
    int format; /* SNIC_REPORT_*, NICD_UNSET: no report here */
} report_conf_t;

nicd_module_t nicd_report_module;

#define REPORT_FORMAT(lc)                                                      \
    (((report_conf_t *) NICD_LOC_CONF(lc, nicd_report_module))->format)

static void
report(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *loc)
{
    const snic_instance_t *in = &c->w->cycle->backend;
    int                    head = r->method == NICD_M_HEAD;
    size_t                 n;
    nicd_buf_t             b = {0};

    n = strlen(in->ops->name);
    if (in->ops->report == NULL
        || strncmp(loc->handler_name, in->ops->name, n) != 0
        || loc->handler_name[n] != '_') {
        log_error(LOG_ERR, 0,
                  "\"%s\" needs \"send_backend %.*s\" (the backend is %s), "
                  "client: %s",
                  loc->handler_name, (int) strcspn(loc->handler_name, "_"),
                  loc->handler_name, in->ops->name, nicd_client(c));
        nicd_respond_error(c, 404, head, NULL, 0);
        return;
    }
    (void) nicd_backend_report(c, REPORT_FORMAT(loc), &b);
    if (r->query.len == 5 && memcmp(r->query.p, "reset", 5) == 0
        && in->ops->reset != NULL) {
        in->ops->reset(in->state);
        log_error(LOG_NOTICE, 0, "%s counters reset, client: %s", in->ops->name,
                  nicd_client(c));
    }
    nicd_respond_mem(c, 200, head,
                     REPORT_FORMAT(loc) == SNIC_REPORT_JSON
                         ? "application/json"
                         : "text/plain; version=0.0.4",
                     1, &b);
    nicd_buf_free(&b);
}

/* "nic_status;": a name the send backends make (snic), so no table can
 * list it; a location's content */
static int
report_directive(parse_t *ps, const char *name, const char **a, int nargs,
                 const char **msg)
{
    (void) a;
    int fmt = snic_backend_report_format(name);

    if (fmt < 0 || nargs != 0 || ps->ctx != CTX_LOC) {
        return 0;
    }
    *msg = nicd_conf_handler(ps, report, name);
    if (*msg != NULL) {
        *msg = nicd_conf_error(ps, "\"%s\" %s", name, *msg);
    }
    REPORT_FORMAT(ps->loc) = fmt;
    return 1;
}

static void *
report_create(nicd_conf_t *c)
{
    report_conf_t *rc = nicd_conf_alloc(c, sizeof(*rc));

    if (rc != NULL) {
        rc->format = NICD_UNSET;
    }
    return rc;
}

nicd_module_t nicd_report_module = {
    .name = "report",
    .unknown = report_directive,
    .create_loc_conf = report_create,
};
