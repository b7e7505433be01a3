/*
 * HTTP/1.1 (http.c) as the core and the other protocols see it: its
 * connection operations, and the dates it formats once a second.
 */

#ifndef NICD_HTTP_H
#define NICD_HTTP_H

#include "server/core/nicd.h"

/* HTTP/1.1 as the core sees it (http.c) */
extern const nicd_conn_ops_t nicd_http1_conn;

/* This thread's Date header value and access log date of the current
 * second, formatted once a second. */
const char *nicd_date_http(void);
const char *nicd_date_log(void);

#endif /* NICD_HTTP_H */
