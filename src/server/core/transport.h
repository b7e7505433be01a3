/*
 * The transport of a connection: how its bytes meet the socket.  Clear-text
 * TCP (HTTP/1.1 and HTTP/2) reads with recv(2) and gathers: response
 * headers, frames and small file ranges are copied into one buffer and
 * leave in one send(2), as h2o writes small files, while larger file
 * ranges go out from the send backends with zero copy (sendfile(2)).  TLS
 * reads through OpenSSL and gives the backends a write hook
 * (snic_conn_t.write), through which everything they send is encrypted.
 * The HTTP code above never sees which.
 *
 * One const struct of operations per transport; conn.c calls them.
 * Mandatory: name, recv.  Optional (NULL: nothing to do): start,
 * handshake, pending, flush, close, alpn, route.
 */

#ifndef NICD_TRANSPORT_H
#define NICD_TRANSPORT_H

#include <sys/types.h>

#include "util/buf.h"

typedef struct nicd_conn_s nicd_conn_t;

typedef struct nicd_transport_s {
    const char *name;

    /*
     * Set the connection up (c->tp_data, c->sc.write).  ctx: what the
     * transport was configured with (the cycle's TLS context).  0, or -1
     * (logged; the connection is closed).
     */
    int (*start)(nicd_conn_t *c, void *ctx);

    /*
     * One step of the handshake.  Returns 1 when it is done, 0 when it
     * waits (c->tp_want_write says for a writable socket, else readable),
     * -1 when it failed (logged; close the connection).
     */
    int (*handshake)(nicd_conn_t *c);

    /*
     * Read up to len bytes: > 0 bytes read, 0 at the peer's end, -1 with
     * errno (EAGAIN: wait for a readable socket).
     */
    ssize_t (*recv)(nicd_conn_t *c, void *buf, size_t len);

    /* Bytes already read from the socket and not yet returned by recv
     * (a read event will not announce them). */
    int (*pending)(nicd_conn_t *c);

    /*
     * Send what the transport took from the backends and still holds.
     * Returns 1 when nothing is held, 0 when the socket is full, -1 on
     * failure (errno).
     */
    int (*flush)(nicd_conn_t *c);

    /* The connection ends (before its socket is closed). */
    void (*close)(nicd_conn_t *c);

    /* The application protocol the handshake chose (ALPN), or NULL. */
    const char *(*alpn)(nicd_conn_t *c, size_t *len);

    /*
     * Before each send request: choose how its bytes go (through
     * c->sc.write or to the socket directly), given the length of its
     * file range (0: none) and whether more requests follow it in this
     * flush.  Returns 1 to go on, 0 when the socket is full (wait for
     * writable), -1 on failure (errno).
     */
    int (*route)(nicd_conn_t *c, size_t file_len, int more);

    /* The connection stops sending but reads on (a lingering close): what
     * the protocol says first (TLS: close_notify, as nginx sends it), or
     * NULL. */
    void (*shutdown)(nicd_conn_t *c);
} nicd_transport_t;

extern const nicd_transport_t nicd_transport_tls;
extern const nicd_transport_t nicd_transport_gather;
/* clear text that came to a TLS port (tls.c switches to it): read as
 * HTTP/1.x, and every request answered 400 ("The plain HTTP request was
 * sent to HTTPS port", nginx's 497) */
extern const nicd_transport_t nicd_transport_http_on_https;

/* what a TLS connection's handshake settled, for $ssl_* (tls.c) */
enum {
    NICD_TLS_PROTOCOL = 0, /* "TLSv1.3" */
    NICD_TLS_CIPHER,       /* "TLS_AES_256_GCM_SHA384" */
    NICD_TLS_SERVER_NAME,  /* the SNI host name sent */
    NICD_TLS_CURVE,        /* the key exchange's group: "prime256v1" */
    NICD_TLS_CURVES,       /* the groups the client offered, ":" between */
    NICD_TLS_REUSED        /* "r" when the session was resumed, else "." */
};
/* the value, or NULL (not TLS, no handshake yet, no server name) */
const char *nicd_tls_info(nicd_conn_t *c, int what);

/* the connection's SSL (OpenSSL's, as void *) once its handshake is done,
 * else NULL (tls.c) */
void *nicd_tls_ssl(nicd_conn_t *c);

/* what the client's certificate and session say, for $ssl_client_* and
 * the rest (tls_client.c) */
enum {
    NICD_TLS_CLIENT_VERIFY = 0, /* SUCCESS, FAILED:reason, NONE */
    NICD_TLS_CLIENT_S_DN,       /* RFC 2253 */
    NICD_TLS_CLIENT_I_DN,
    NICD_TLS_CLIENT_S_DN_LEGACY, /* "/C=../CN=.." */
    NICD_TLS_CLIENT_I_DN_LEGACY,
    NICD_TLS_CLIENT_SERIAL,       /* hex, upper case */
    NICD_TLS_CLIENT_FINGERPRINT,  /* SHA-1, hex */
    NICD_TLS_CLIENT_CERT,         /* PEM, lines after the first indented */
    NICD_TLS_CLIENT_RAW_CERT,     /* PEM */
    NICD_TLS_CLIENT_ESCAPED_CERT, /* PEM, percent-encoded */
    NICD_TLS_CLIENT_V_START,      /* "Sep 28 06:00:00 2026 GMT" */
    NICD_TLS_CLIENT_V_END,
    NICD_TLS_CLIENT_V_REMAIN, /* days */
    NICD_TLS_SESSION_ID,      /* hex */
    NICD_TLS_CIPHERS          /* the client's, ":" between */
};

/* what's value appended to b (nothing when there is none: no TLS, no
 * certificate): 0, or -1 (out of memory) */
int nicd_tls_client_info(nicd_conn_t *c, int what, nicd_buf_t *b);

/*
 * ssl_verify_client's check of a request (mode NICD_VERIFY_*): 0 when it
 * may go on, else the status nginx answers (495: the certificate did not
 * verify, 496: none was sent where one is required), logged.
 */
int nicd_tls_verify(nicd_conn_t *c, int mode);

#endif /* NICD_TRANSPORT_H */
