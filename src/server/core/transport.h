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

#endif /* NICD_TRANSPORT_H */
