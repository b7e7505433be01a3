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

/*
 * How a certificate's or key's name with variables (a compiled template
 * of the http layer, cv) comes to a value for connection c during its
 * handshake: the http layer's, set once before any configuration is
 * made.  0 with the names in out, or -1.
 */
typedef int (*nicd_tls_eval_pt)(nicd_conn_t *c, const void *cv,
                                nicd_buf_t *out);
void nicd_tls_set_eval(nicd_tls_eval_pt eval);

#endif /* NICD_TLS_CTX_H */
