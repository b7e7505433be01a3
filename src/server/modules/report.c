/*
 * The report handler: a location's view of the send backend's counters,
 * Prometheus text or JSON, never cached.  "?reset" sets them to zero
 * after reading them.
 */

#include <stdlib.h>
#include <string.h>

#include "handler.h"

void
nicd_report(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *loc)
{
    const snic_instance_t *in = &c->w->cycle->backend;
    int                    head = r->method == NICD_M_HEAD;
    size_t                 n, need;
    char                  *text;

    n = strlen(in->ops->name);
    if (in->ops->report == NULL
        || strncmp(loc->handler_name, in->ops->name, n) != 0
        || loc->handler_name[n] != '_') {
        log_error(LOG_ERR, 0,
                  "\"%s\" needs \"send_backend %.*s\" (the backend is %s), "
                  "client: %s",
                  loc->handler_name, (int) strcspn(loc->handler_name, "_"),
                  loc->handler_name, in->ops->name, c->addr);
        nicd_respond_error(c, 404, head, NULL, 0);
        return;
    }
    need = in->ops->report(in->state, loc->format, NULL, 0);
    text = malloc(need + 1);
    if (text == NULL) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    n = in->ops->report(in->state, loc->format, text, need + 1);
    if (n > need) {
        n = need; /* grew in between: cut, still well formed enough */
    }
    if (r->query.len == 5 && memcmp(r->query.p, "reset", 5) == 0
        && in->ops->reset != NULL) {
        in->ops->reset(in->state);
        log_error(LOG_NOTICE, 0, "%s counters reset, client: %s", in->ops->name,
                  c->addr);
    }
    nicd_resp_start(c, 200);
    if (loc->format == SNIC_REPORT_JSON) {
        NICD_RESP_HEADER(c, "Content-Type", "application/json", 16);
    } else {
        NICD_RESP_HEADER(c, "Content-Type", "text/plain; version=0.0.4", 25);
    }
    NICD_RESP_HEADER(c, "Cache-Control", "no-store", 8);
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) n);
    nicd_resp_end_headers(c);
    if (!head) {
        nicd_resp_body_mem(c, text, n);
    }
    free(text);
    nicd_resp_finish(c, 200);
}
