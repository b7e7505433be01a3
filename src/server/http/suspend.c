/*
 * A request answered later (handler.h: nicd_req_suspend and the others):
 * what every protocol does alike around its own suspend, resume, flush
 * and done.
 */

#include "server/http/errlog.h"
#include "server/http/handler.h"
#include "server/http/variables.h"

nicd_req_t *
nicd_req_suspend(nicd_conn_t *c)
{
    nicd_req_t *req;

    if (c->r->suspended) {
        return c->r; /* (an error_page's location answers it later too) */
    }
    if (c->r->unparsed) {
        return NULL; /* nothing of it to keep (a bad request's page) */
    }
    req = nicd_proto(c)->suspend(c);
    if (req != NULL) {
        req->suspended = 1;
        req->conn = c;
        req->vars = nicd_vars_save(c->w); /* ("set" values) */
        c->r = req;
    }
    return req;
}

nicd_conn_t *
nicd_req_resume(nicd_req_t *req)
{
    nicd_conn_t *c = req->conn;

    (req->proto != NULL ? req->proto : c->proto)->resume(c, req);
    c->r = req;
    nicd_vars_restore(c->w, req->vars); /* (others' values meanwhile) */
    nicd_errlog_use(req->loc);
    return c;
}

int
nicd_req_flush(nicd_req_t *req)
{
    return (req->proto != NULL ? req->proto : req->conn->proto)
        ->flush(req->conn);
}

void
nicd_req_done(nicd_req_t *req)
{
    nicd_conn_t *c = req->conn;

    req->suspended = 0;
    (req->proto != NULL ? req->proto : c->proto)->done(c);
}
