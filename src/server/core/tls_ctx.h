/*
 * The TLS contexts of a configuration (tls_ctx.c), as the transport
 * (tls.c) starts its connections with them.
 */

#ifndef NICD_TLS_CTX_H
#define NICD_TLS_CTX_H

#include "server/core/nicd.h"

/* the SSL_CTX (as void *) a connection to listener li starts with, from
 * nicd_tls_ctx_new()'s set; NULL for a listener without ssl */
void *nicd_tls_ctx_of(const void *set, int li);

/* the last OpenSSL error as text (and the queue cleared) */
const char *nicd_tls_reason(void);

#endif /* NICD_TLS_CTX_H */
