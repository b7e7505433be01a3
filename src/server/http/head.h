/*
 * The limits of a request's head per server (head.c): nginx's
 * large_client_header_buffers and max_headers.
 */

#ifndef NICD_HEAD_H
#define NICD_HEAD_H

#include "server/conf/conf.h"
#include "server/http/handler.h"

/* 0 when r's head is within the limits of srv, else the status to answer
 * it with (414: the request line, 431: a header line or the whole head,
 * 400: too many header lines) */
int nicd_head_status(const nicd_request_t *r, const nicd_server_conf_t *srv);

#endif /* NICD_HEAD_H */
