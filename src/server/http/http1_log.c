/*
 * HTTP/1.1: the access log records of a response (http1.h).
 */

#include <string.h>

#include "server/core/transport.h"
#include "server/http/http1.h"
#include "server/http/phases.h"

/*
 * Start the access log records of the response being built, one for each
 * of its location's logs that takes it (modules/log_format.c): what the
 * request says now, the status, bytes and time as markers filled in when
 * the response has been sent (conn.c).
 */
void
nicd_h1_log_record(nicd_conn_t *c, uint32_t *off, uint32_t *len)
{
    nicd_http_req_t      *r = H1_REQ(c);
    const nicd_request_t *q = c->r->in;
    nicd_log_view_t       v;
    nicd_str_t           *hn = c->w->hname, *hv = c->w->hvalue;
    nicd_log_sel_t        sel;
    int                   i;

    *off = (uint32_t) c->logb.len;
    *len = 0;
    if (!nicd_log_phase_select(c, &sel)) {
        return;
    }
    memset(&v, 0, sizeof(v));
    v.addr = nicd_client(c);
    if (q != NULL && q->line.p != NULL) {
        /* the request's view (a request answered later has only its own) */
        v.line = q->line;
        v.method = nicd_http_method_name(q->method);
        v.path = q->path;
        v.query = q->query;
        v.hname = q->hname;
        v.hvalue = q->hvalue;
        v.nheaders = q->nheaders;
    } else if (r != NULL && r->line.len > 0) {
        v.line.p = REQ_BASE(c) + r->line.off;
        v.line.len = r->line.len;
        v.method = nicd_http_method_name(r->method);
        v.path.p = REQ_BASE(c) + r->path.off;
        v.path.len = r->path.len;
        v.query.p = REQ_BASE(c) + r->query.off;
        v.query.len = r->query.len;
        for (i = 0; i < r->nheaders; i++) {
            hn[i].p = REQ_BASE(c) + r->headers[i].name.off;
            hn[i].len = r->headers[i].name.len;
            hv[i].p = REQ_BASE(c) + r->headers[i].value.off;
            hv[i].len = r->headers[i].value.len;
        }
        v.hname = hn;
        v.hvalue = hv;
        v.nheaders = r->nheaders;
    } else {
        v.method = "-";
    }
    v.uri.p = c->r->uri;
    v.uri.len = c->r->uri_len;
    v.protocol = q != NULL                       ? q->protocol
                 : r != NULL && r->version == 10 ? "HTTP/1.0"
                                                 : "HTTP/1.1";
    v.server_name =
        c->r->srv != NULL && c->r->srv->nnames > 0 ? c->r->srv->names[0] : "";
    v.tls = c->tp == &nicd_transport_tls;
    v.sent = c->r->sent;
    v.c = c;
    nicd_log_phase_records(c, &sel, &v, &c->logb);
    *len = (uint32_t) (c->logb.len - *off);
}
