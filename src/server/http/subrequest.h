/*
 * Subrequests, as nginx's ngx_http_subrequest() with
 * NGX_HTTP_SUBREQUEST_IN_MEMORY: a request of the request at hand for
 * another URI of its server, a GET with the same header fields, run
 * through the phases from the server's rewrites on (its location's
 * rewrites, access, try_files and content handler, a proxy's as well),
 * whose response's head is dropped and whose body is kept in memory for
 * the caller (SSI's include).  Its variables start fresh; its
 * $request_id is its parent's.
 *
 * A subrequest answered at once (a file, a return) is done when
 * nicd_subrequest() returns.  One that answers later (a proxied one) is
 * pending: the caller suspends its own request (nicd_req_suspend) and
 * returns; then(data) is called from the loop once the subrequest is
 * answered, and the caller resumes its request (nicd_req_resume).
 * Subrequests nest up to 50 deep (nginx's limit): past that one fails,
 * with nginx's log line.
 */

#ifndef NICD_SUBREQUEST_H
#define NICD_SUBREQUEST_H

#include "server/http/handler.h"

typedef struct nicd_subreq_s nicd_subreq_t;

enum {
    NICD_SUBREQ_PENDING = 0,
    NICD_SUBREQ_DONE,  /* answered: status and body */
    NICD_SUBREQ_FAILED /* not answered (out of memory, nested too deep, a
                          file that could not be read, no answer): a 500 */
};

struct nicd_subreq_s {
    nicd_req_t     req;    /* the subrequest's block (first: the protocol's) */
    nicd_request_t in;     /* what it asks: its parent's, for uri and args */
    int            state;  /* NICD_SUBREQ_* */
    int            status; /* its response's */
    nicd_buf_t     body;   /* its response's body */
    /* internal: */
    char      *path; /* uri, normalised; then args */
    size_t     plen, alen;
    nicd_ev_t *ev;
    void (*then)(void *data);
    void *data;
};

/*
 * A subrequest of the request at hand for uri (ulen bytes: a path, its
 * escapes decoded, not yet normalised) with args (alen bytes, NULL: none),
 * in its server.  NULL when out of memory; else sr, its state DONE or
 * FAILED at once, or PENDING (then(data) follows; see above).  The caller
 * frees it (nicd_subreq_free) when done with it, or when its own request
 * ends first (a pending one is then given up: its cleanups run).
 */
nicd_subreq_t *nicd_subrequest(nicd_conn_t *c, const char *uri, size_t ulen,
                               const char *args, size_t        alen,
                               void (*then)(void *data), void *data);
void           nicd_subreq_free(nicd_subreq_t *sr);
/* the parent of a pending sr was suspended (its block moved to parent):
 * what sr asks is taken from there from now on */
void nicd_subreq_parent_moved(nicd_subreq_t *sr, const nicd_req_t *parent);

#endif /* NICD_SUBREQUEST_H */
