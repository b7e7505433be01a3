/*
 * TLS under hclient (hclient.h): a target's context (OpenSSL), its
 * server name (SNI and the name the certificate must carry), the session
 * kept for resumption, and what the handshakes did.  One per target URL,
 * shared by its connections: set hclient_t.tls before hclient_open() and
 * the connection speaks TLS, HTTP/2 chosen by ALPN when asked.
 */

#ifndef TRACE_HCLIENT_TLS_H
#define TRACE_HCLIENT_TLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/http/hclient.h"

typedef struct {
    uint64_t handshakes; /* completed */
    uint64_t resumed;    /* of them, with a session kept from before */
    uint64_t failed;     /* handshakes that failed */
    char     version[16];
    char     cipher[64];
    char     alpn[16]; /* "" when the server chose none */
} hclient_tls_stats_t;

/*
 * A target's TLS.  name: the URL's host (SNI, unless an address, and
 * the certificate's name); insecure: no verification (a self-signed
 * server); cafile: the CAs to trust (NULL: the system's); h2: offer "h2"
 * alone by ALPN (the connection fails if the server does not choose it),
 * else "http/1.1".  NULL with the reason in err.
 */
hclient_tls_t             *hclient_tls_new(const char *name, int insecure,
                                           const char *cafile, int h2, char *err,
                                           size_t errlen);
void                       hclient_tls_free(hclient_tls_t *t);
const hclient_tls_stats_t *hclient_tls_stats(const hclient_tls_t *t);

/* What the handshakes did, for a summary ("476 handshakes, 415 resumed,
 * 0 failed; TLSv1.3 TLS_AES_256_GCM_SHA384, ALPN h2") into buf, and as a
 * JSON object ({"handshakes": ..., "alpn": ...}) to f. */
const char *hclient_tls_text(const hclient_tls_stats_t *s, char *buf,
                             size_t len);
void        hclient_tls_json(const hclient_tls_stats_t *s, FILE *f);

/*
 * The connection's side (hclient.c, hclient_h2.c): start once the TCP
 * connection is up (0, or -1 with c->err and c->err_text); drive the
 * handshake on each event (1 done, 0 under way, -1 failed); read and
 * write as read(2) and send(2) do (-1 with errno EAGAIN when OpenSSL
 * waits for the socket, EPROTO on a TLS failure); close frees the state.
 */
int     hclient_tls_start(hclient_t *c);
int     hclient_tls_handshake(hclient_t *c);
ssize_t hclient_tls_read(hclient_t *c, void *buf, size_t n);
ssize_t hclient_tls_write(hclient_t *c, const void *buf, size_t n);
void    hclient_tls_close(hclient_t *c);

#endif /* TRACE_HCLIENT_TLS_H */
