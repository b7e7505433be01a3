/*
 * HTTP/1.1's own parts shared by its files (http.c: the protocol;
 * http1_request.c: a head's view; http1_head.c: a response's head;
 * http1_log.c: a response's access log records), private to them.
 */

#ifndef NICD_HTTP1_H
#define NICD_HTTP1_H

#include "server/http/handler.h"
#include "server/http/http_parser.h"

#define REQ_BASE(c) ((c)->in + (c)->in_start)

/*
 * What HTTP/1.1 keeps of a connection's request in the block it borrows
 * (c->req, nicd_http1_conn.req_size): the parser, and the state of a
 * chunked body being skipped after the head was answered.  The block is
 * given back only when no body is left to skip (h1_waiting).
 */
typedef struct {
    nicd_http_req_t p;
    nicd_chunked_t  chunked;
    nicd_req_t      r; /* the request being answered (c->r) */
} h1_req_t;

#define H1_REQ(c)     (&((h1_req_t *) (c)->req)->p)
#define H1_CHUNKED(c) (&((h1_req_t *) (c)->req)->chunked)
#define H1_R(c)       (&((h1_req_t *) (c)->req)->r)

/*
 * Start the access log records of the response being built (http1_log.c)
 * into c->logb: where they start and their length
 */
void nicd_h1_log_record(nicd_conn_t *c, uint32_t *off, uint32_t *len);

/* q, the view of the request parsed in c (its head starting at base),
 * its header lines in hname and hvalue (NICD_HTTP_MAX_HEADERS each), those
 * the server ignores left out (http1_request.c) */
void nicd_h1_fill_request(nicd_conn_t *c, const char *base, nicd_request_t *q,
                          nicd_str_t *hname, nicd_str_t *hvalue);

/* the status line, Server and Date into c->out (http1_head.c) */
void nicd_h1_begin_head(nicd_conn_t *c, int status);
/* Connection (and Keep-Alive) and the empty line: whether the connection
 * stays, and how long it then waits (http1_head.c) */
void nicd_h1_end_head(nicd_conn_t *c);

#endif /* NICD_HTTP1_H */
