/*
 * HTTP/2, the second protocol over the handlers (http2.c, over the session
 * of http2_session.h):
 * over TLS when ALPN chose "h2", and in clear text on a "listen ... http2"
 * socket when a connection opens with the HTTP/2 preface (prior
 * knowledge; the HTTP/1.1 Upgrade to h2c is not offered).
 */

#ifndef NICD_HTTP2_H
#define NICD_HTTP2_H

#include "server/core/nicd.h"

/* the HTTP/2 client connection preface (RFC 9113, 3.4) */
#define NICD_H2_PREFACE     "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define NICD_H2_PREFACE_LEN 24

/* HTTP/2 as the core sees it */
extern const nicd_conn_ops_t nicd_http2_conn;

/* Worker exit: the streams it kept for reuse. */
void nicd_h2_worker_free(nicd_worker_t *w);

#endif /* NICD_HTTP2_H */
