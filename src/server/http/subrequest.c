/*
 * Subrequests (subrequest.h): the subrequest is a request block of its
 * own whose protocol is this file's, which keeps the body of its answer
 * in memory and drops its head.
 */

#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "server/http/errlog.h"
#include "server/http/path.h"
#include "server/http/phases.h"
#include "server/http/subrequest.h"
#include "server/http/variables.h"

/* nested: nginx's NGX_HTTP_MAX_SUBREQUESTS (50) below its main request's
 * one more */
#define SUBREQ_DEPTH 51

/* the subrequest whose response is being made (c->r is its block) */
static nicd_subreq_t *
at_hand(nicd_conn_t *c)
{
    return (nicd_subreq_t *) (void *) c->r;
}

static void
sr_start(nicd_conn_t *c, int status)
{
    at_hand(c)->status = status;
}

static void
sr_header(nicd_conn_t *c, const char *name, size_t nlen, const char *value,
          size_t vlen)
{
    (void) c;
    (void) name;
    (void) nlen;
    (void) value;
    (void) vlen;
}

static void
sr_end_headers(nicd_conn_t *c)
{
    (void) c;
}

static void
sr_body_mem(nicd_conn_t *c, const char *p, size_t len)
{
    nicd_buf_add(&at_hand(c)->body, p, len);
}

static void
sr_body_file(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len)
{
    nicd_subreq_t *sr = at_hand(c);

    if (nicd_file_read_part(c, f, off, len, &sr->body, "a subrequest") != 0) {
        sr->status = 500;
    }
}

static void
sr_finish(nicd_conn_t *c, int status)
{
    nicd_subreq_t *sr = at_hand(c);

    if (sr->status == 0) {
        sr->status = status;
    }
    sr->state =
        nicd_buf_failed(&sr->body) ? NICD_SUBREQ_FAILED : NICD_SUBREQ_DONE;
}

static void
sr_close(nicd_conn_t *c)
{
    at_hand(c)->state = NICD_SUBREQ_FAILED; /* (a 444: nothing) */
}

static nicd_req_t *
sr_suspend(nicd_conn_t *c)
{
    return c->r; /* (it stays where it is) */
}

static void
sr_resume(nicd_conn_t *c, nicd_req_t *req)
{
    (void) c;
    (void) req;
}

static int
sr_flush(nicd_conn_t *c)
{
    (void) c;
    return 1; /* everything taken */
}

/* the parent goes on, from the loop (not from inside the handler that
 * answered the subrequest, which is still on its way out) */
static void
fire(int fd, short what, void *arg)
{
    nicd_subreq_t *sr = arg;

    (void) fd;
    (void) what;
    sr->then(sr->data);
}

static void
sr_done(nicd_conn_t *c)
{
    nicd_subreq_t *sr = at_hand(c);

    if (sr->state == NICD_SUBREQ_PENDING) {
        sr->state = NICD_SUBREQ_FAILED; /* done without an answer */
    }
    nicd_req_end(&sr->req); /* its cleanups (its proxy's) */
    if (sr->ev == NULL) {
        sr->ev = nicd_ev_new(c->w->loop, -1, 0, fire, sr);
    }
    if (sr->ev == NULL) {
        log_error(LOG_ALERT, 0, "nicd_ev_new() failed for a subrequest");
        return; /* (its parent waits until its client goes) */
    }
    nicd_ev_active(sr->ev, NICD_EV_TIMEOUT);
}

static const nicd_protocol_t subreq_proto = {
    "subrequest", sr_start,     sr_header, sr_end_headers,
    sr_body_mem,  sr_body_file, sr_finish, sr_close,
    sr_suspend,   sr_resume,    sr_flush,  sr_done,
};

nicd_subreq_t *
nicd_subrequest(nicd_conn_t *c, const char *uri, size_t ulen, const char *args,
                size_t alen, void (*then)(void *data), void *data)
{
    nicd_req_t    *parent = c->r;
    nicd_subreq_t *sr;
    void          *parent_vars; /* the parent's variables, kept aside */
    size_t         n;
    int            status;

    sr = calloc(1, sizeof(*sr));
    if (sr == NULL || (sr->path = malloc(ulen + 2 + alen + 1)) == NULL
        || nicd_req_draw_id(c) != 0) {
        nicd_subreq_free(sr);
        return NULL;
    }
    sr->then = then;
    sr->data = data;
    if (parent->subdepth >= SUBREQ_DEPTH) {
        log_error(LOG_ERR, 0,
                  "subrequests cycle while processing \"%.*s\", client: %s",
                  (int) ulen, uri, nicd_client(c));
        sr->state = NICD_SUBREQ_FAILED;
        return sr;
    }
    status = nicd_path_normalize(uri, ulen, sr->path, &n,
                                 c->w->cycle->conf->merge_slashes);
    if (status != 0) {
        log_error(LOG_ERR, 0, "unsafe URI \"%.*s\" was detected, client: %s",
                  (int) ulen, uri, nicd_client(c));
        sr->state = NICD_SUBREQ_FAILED;
        return sr;
    }
    sr->path[n] = '\0';

    if (alen > 0) {
        memcpy(sr->path + n + 1, args, alen);
    }
    sr->path[n + 1 + alen] = '\0';
    sr->alen = alen;
    sr->plen = n;
    nicd_subreq_parent_moved(sr, parent);

    parent_vars = nicd_vars_save(c->w);
    nicd_req_begin(c, &sr->req);
    sr->req.proto = &subreq_proto;
    sr->req.subdepth = parent->subdepth + 1;
    sr->req.srv = parent->srv;
    memcpy(sr->req.id, parent->id, sizeof(sr->req.id));
    nicd_vars_fresh(c->w);
    nicd_handle_subrequest(c, &sr->in, sr->path, n);

    if (sr->state == NICD_SUBREQ_PENDING && !sr->req.suspended) {
        sr->state = NICD_SUBREQ_FAILED; /* it gave no answer */
    }
    if (sr->state != NICD_SUBREQ_PENDING) {
        nicd_req_end(&sr->req);
    }
    /* the parent is the request at hand again */
    c->r = parent;
    nicd_vars_restore(c->w, parent_vars);
    free(parent_vars);
    nicd_errlog_use(parent->loc);
    return sr;
}

void
nicd_subreq_parent_moved(nicd_subreq_t *sr, const nicd_req_t *parent)
{
    /* the parent's request, a GET of uri?args without a body */
    sr->in = *parent->in;
    if (sr->in.main_path.p == NULL) {
        sr->in.main_path = parent->in->path;
        sr->in.main_query = parent->in->query;
    }
    sr->in.method = NICD_M_GET;
    sr->in.path.p = sr->path;
    sr->in.path.len = sr->plen;
    sr->in.query.p = sr->path + sr->plen + 1;
    sr->in.query.len = sr->alen;
    sr->in.body.p = NULL;
    sr->in.body.len = 0;
}

void
nicd_subreq_free(nicd_subreq_t *sr)
{
    if (sr == NULL) {
        return;
    }
    if (sr->state == NICD_SUBREQ_PENDING && sr->req.suspended) {
        nicd_req_end(&sr->req); /* given up: its proxy lets go */
    }
    if (sr->ev != NULL) {
        nicd_ev_free(sr->ev);
    }
    nicd_buf_free(&sr->body);
    free(sr->path);
    free(sr);
}
