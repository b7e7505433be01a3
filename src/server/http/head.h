/*
 * The limits of a request's head per server (head.c): nginx's
 * large_client_header_buffers, max_headers, ignore_invalid_headers and
 * underscores_in_headers.
 */

#ifndef NICD_HEAD_H
#define NICD_HEAD_H

#include "server/conf/conf.h"
#include "server/http/handler.h"

/* 0 when r's head is within the limits of srv, else the status to answer
 * it with (414: the request line, 431: a header line or the whole head,
 * 400: too many header lines) */
int nicd_head_status(const nicd_request_t *r, const nicd_server_conf_t *srv);

/* q's header lines (its arrays hname and hvalue, n of them) without those
 * the server Host chooses ignores (ignore_invalid_headers,
 * underscores_in_headers), each logged: how many are kept, in order.
 * For a head whose names are not all letters, digits and '-'. */
int nicd_head_filter(nicd_conn_t *c, const nicd_request_t *q, nicd_str_t *hname,
                     nicd_str_t *hvalue, int n);

/* the limits of an HTTP/2 request's fields on c, the default server's of
 * its address (nginx reads them before a server is chosen): one field's
 * name or value, and all names and values together */
void nicd_head_h2_limits(nicd_conn_t *c, size_t *field, size_t *all);

#endif /* NICD_HEAD_H */
