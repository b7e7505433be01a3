/*
 * The TLS transport: OpenSSL on the connection's socket.
 *
 * Facts relied on:
 * - A non-blocking SSL_read()/SSL_write() that returns WANT_READ or
 *   WANT_WRITE must be repeated with the same buffer and length.  The
 *   backends do not repeat themselves exactly (a retry starts where the
 *   socket stopped, with whatever is queued behind), so the write hook
 *   copies what it takes into the connection's own record buffer
 *   (TLS_RECORD bytes, a full TLS record), writes it when it is full or
 *   when the connection's flush ends, and retries from there, taking
 *   nothing new while a write is under way.  So every byte the hook
 *   reports as taken will leave, and conn.c's flush waits for the buffer
 *   to drain before the connection goes idle or closes.
 * - After the handshake (without kernel TLS) OpenSSL writes its records
 *   into the connection's ciphertext buffer (a BIO of ours, TLS_WBUF
 *   bytes: four full records) instead of the socket, and the buffer goes
 *   to the socket when full or when the flush ends: a flush of several
 *   records costs one send(2), not one per record, as h2o writes.  The
 *   buffer is taken when the first record comes and given back (kept as
 *   the worker's spare) when it has drained, so idle connections hold
 *   none.
 * - SSL_read() decrypts one record at a time into OpenSSL's buffer; what
 *   the caller's buffer could not take stays there, announced by no read
 *   event: SSL_pending() says how much.
 * - sendfile(2) cannot send through OpenSSL.  With kernel TLS
 *   (SSL_OP_ENABLE_KTLS, Linux's "tls" ULP) the kernel encrypts what is
 *   written to the socket, so after the handshake the backends may write
 *   to it directly again, sendfile included; without it (this machine's
 *   kernel offers no "tls" ULP) file bytes are read into a buffer and
 *   written through SSL_write() (snic_sendfile()).
 * - A connection starts with the SSL_CTX of its address (tls_ctx.c),
 *   which every worker thread shares.
 */

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config.h"
#include "server/core/nicd.h"
#include "server/core/tls_ctx.h"
#include "server/core/transport.h"
#include "sendfile_nic/snic_backend.h"

#if defined(HAVE_OPENSSL)

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#define TLS_RECORD 16384
#define TLS_WBUF   (4 * (TLS_RECORD + 256)) /* 4 records and their overhead */

typedef struct {
    SSL         *ssl;
    nicd_conn_t *c;
    char        *out; /* plaintext taken from the backends, to be written */
    size_t       out_len;
    int          writing; /* an SSL_write() of out is under way */
    int          ktls; /* the kernel encrypts what is written to the socket */
    char        *wbuf; /* ciphertext to be sent (TLS_WBUF bytes), or NULL */
    size_t       woff, wlen; /* what of it is still to be sent */
    int          peeked;     /* the first byte said it is TLS */
    int          shut;       /* close_notify sent */
} tls_conn_t;

static BIO_METHOD    *wbio_method;
static pthread_once_t wbio_once = PTHREAD_ONCE_INIT;

/*
 * The ciphertext buffer.  wbuf_send: send what it holds: 1 all out (the
 * buffer goes back to the worker), 0 socket full, -1 failed (errno).
 */
static int
wbuf_send(tls_conn_t *t)
{
    nicd_worker_t *w = t->c->w;
    ssize_t        n;

    while (t->wlen > 0) {
        n = send(t->c->sc.fd, t->wbuf + t->woff, t->wlen, MSG_NOSIGNAL);
        if (n == -1) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        }
        t->woff += (size_t) n;
        t->wlen -= (size_t) n;
    }
    t->woff = 0;
    if (t->wbuf != NULL && w->tls_spare == NULL) {
        w->tls_spare = t->wbuf;
    } else {
        free(t->wbuf);
    }
    t->wbuf = NULL;
    return 1;
}

/* BIO write: append a record to the buffer, sending first if it is full */
static int
wbio_write(BIO *b, const char *in, int len)
{
    tls_conn_t    *t = BIO_get_data(b);
    nicd_worker_t *w = t->c->w;
    ssize_t        n;
    int            rc;

    BIO_clear_retry_flags(b);
    if (len <= 0) {
        return 0;
    }
    if (t->woff + t->wlen + (size_t) len > TLS_WBUF && t->wlen > 0) {
        rc = wbuf_send(t);
        if (rc < 0) {
            return -1;
        }
        if (rc == 0 && t->woff > 0) {
            memmove(t->wbuf, t->wbuf + t->woff, t->wlen);
            t->woff = 0;
        }
    }
    if (t->wlen + (size_t) len > TLS_WBUF) {
        if (t->wlen > 0) {
            BIO_set_retry_write(b); /* the socket is full */
            return -1;
        }
        /* larger than the buffer (never an application record): direct */
        n = send(t->c->sc.fd, in, (size_t) len, MSG_NOSIGNAL);
        if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            BIO_set_retry_write(b);
        }
        return (int) n;
    }
    if (t->wbuf == NULL) {
        t->wbuf = w->tls_spare != NULL ? w->tls_spare : malloc(TLS_WBUF);
        w->tls_spare = NULL;
        if (t->wbuf == NULL) {
            errno = ENOMEM;
            return -1;
        }
    }
    /* after what is still to be sent, which may start past woff */
    memcpy(t->wbuf + t->woff + t->wlen, in, (size_t) len);
    t->wlen += (size_t) len;
    return len;
}

static long
wbio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    tls_conn_t *t = BIO_get_data(b);
    int         rc;

    (void) num;
    (void) ptr;
    switch (cmd) {
    case BIO_CTRL_FLUSH:
        BIO_clear_retry_flags(b);
        rc = wbuf_send(t);
        if (rc == 0) {
            BIO_set_retry_write(b);
        }
        return rc;
    case BIO_CTRL_WPENDING: return (long) t->wlen;
    default: return 0;
    }
}

static void
wbio_method_make(void)
{
    wbio_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK,
                               "nicd ciphertext buffer");
    if (wbio_method != NULL) {
        BIO_meth_set_write(wbio_method, wbio_write);
        BIO_meth_set_ctrl(wbio_method, wbio_ctrl);
    }
}

/* After the handshake: OpenSSL's records go to t's buffer (0, or -1). */
static int
wbio_attach(tls_conn_t *t)
{
    BIO *b;

    pthread_once(&wbio_once, wbio_method_make);
    if (wbio_method == NULL || (b = BIO_new(wbio_method)) == NULL) {
        return -1;
    }
    BIO_set_data(b, t);
    BIO_set_init(b, 1);
    SSL_set0_wbio(t->ssl, b); /* the socket BIO stays the read BIO */
    return 0;
}

/* Worker exit: its spare ciphertext buffer. */
void
nicd_tls_worker_free(nicd_worker_t *w)
{
    free(w->tls_spare);
    w->tls_spare = NULL;
}

/*
 * Write what the record buffer holds: 1 all out, 0 socket full (the
 * SSL_write() is under way: it must be repeated with this buffer and
 * length, so nothing may be added meanwhile), -1 failed.
 */
static int
write_out(tls_conn_t *t)
{
    int n;

    if (t->out_len == 0) {
        return 1;
    }
    ERR_clear_error();
    n = SSL_write(t->ssl, t->out, (int) t->out_len);
    if (n > 0) {
        t->out_len = 0;
        t->writing = 0;
        return 1;
    }
    switch (SSL_get_error(t->ssl, n)) {
    case SSL_ERROR_WANT_WRITE:
    case SSL_ERROR_WANT_READ:
        t->writing = 1;
        errno = EAGAIN;
        return 0;
    default:
        ERR_clear_error();
        errno = errno != 0 ? errno : EPIPE;
        return -1;
    }
}

/*
 * snic_conn_t.write: take what fits in the record buffer.  It is written
 * when full, and at the end of the connection's flush (tls_flush), so the
 * header and body of a small response, or several pipelined responses or
 * HTTP/2 frames, share one record and one write, as nginx's ssl_buffer.
 */
static ssize_t
tls_write(snic_conn_t *sc, const struct iovec *iov, int n)
{
    tls_conn_t *t = sc->transport;
    size_t      k = 0, take;
    int         i;

    if ((t->writing || t->out_len == TLS_RECORD) && write_out(t) <= 0) {
        return -1;
    }
    for (i = 0; i < n && t->out_len + k < TLS_RECORD; i++) {
        take = iov[i].iov_len < TLS_RECORD - t->out_len - k
                   ? iov[i].iov_len
                   : TLS_RECORD - t->out_len - k;
        memcpy(t->out + t->out_len + k, iov[i].iov_base, take);
        k += take;
    }
    t->out_len += k;
    if (t->out_len == TLS_RECORD && write_out(t) < 0) {
        return -1;
    }
    return (ssize_t) k; /* taken: it leaves from the record buffer */
}

static int
tls_start(nicd_conn_t *c, void *set)
{
    SSL_CTX    *ctx = nicd_tls_ctx_of(set, c->sc.listener);
    tls_conn_t *t = ctx != NULL ? calloc(1, sizeof(*t)) : NULL;

    if (t == NULL || (t->out = malloc(TLS_RECORD)) == NULL
        || (t->ssl = SSL_new(ctx)) == NULL
        || SSL_set_fd(t->ssl, c->sc.fd) != 1) {
        log_error(LOG_CRIT, 0, "SSL_new() failed: %s, client: %s",
                  nicd_tls_reason(), c->addr);
        if (t != NULL) {
            SSL_free(t->ssl);
            free(t->out);
        }
        free(t);
        return -1;
    }
    SSL_set_accept_state(t->ssl);
    SSL_set_app_data(t->ssl, c);
    t->c = c;
    c->tp_data = t;
    c->sc.transport = t;
    c->sc.write = tls_write;
    return 0;
}

static void tls_close(nicd_conn_t *c);

/*
 * Before the first handshake step: does the client speak TLS?  Its first
 * byte is a handshake record's (0x16) or an SSLv2 hello's (high bit), as
 * nginx tells them; else the connection goes on in clear text, so that
 * its request is answered (nicd_transport_http_on_https).  1 TLS, 0 not
 * yet known, -1 switched (or failed: c->tp_data NULL).
 */
static int
speaks_tls(nicd_conn_t *c, tls_conn_t *t)
{
    unsigned char b;
    ssize_t       n;

    if (t->peeked) {
        return 1;
    }
    n = recv(c->sc.fd, &b, 1, MSG_PEEK);
    if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
        c->tp_want_write = 0;
        return 0;
    }
    t->peeked = 1;
    if (n != 1 || b == 0x16 || (b & 0x80)) {
        return 1; /* (an error or the end: SSL_do_handshake says so) */
    }
    tls_close(c);
    c->tp = &nicd_transport_http_on_https;
    if (c->tp->start(c, NULL) != 0) {
        return -2;
    }
    return -1;
}

static int
tls_handshake(nicd_conn_t *c)
{
    tls_conn_t *t = c->tp_data;
    int         n;

    switch (speaks_tls(c, t)) {
    case 0: return 0;
    case -1: return 1; /* in clear text from here on */
    case -2: return -1;
    }
    ERR_clear_error();
    errno = 0;
    n = SSL_do_handshake(t->ssl);
    if (n == 1) {
#ifdef SSL_OP_ENABLE_KTLS
        if (BIO_get_ktls_send(SSL_get_wbio(t->ssl))) {
            /* the kernel encrypts: backends write to the socket again */
            t->ktls = 1;
            c->sc.write = NULL;
            return 1;
        }
#endif
        if (wbio_attach(t) != 0) {
            log_error(LOG_CRIT, 0, "BIO_new() failed: %s, client: %s",
                      nicd_tls_reason(), c->addr);
            return -1;
        }
        return 1;
    }
    switch (SSL_get_error(t->ssl, n)) {
    case SSL_ERROR_WANT_READ: c->tp_want_write = 0; return 0;
    case SSL_ERROR_WANT_WRITE: c->tp_want_write = 1; return 0;
    default:
        log_error(LOG_INFO, 0, "SSL_do_handshake() failed (%s), client: %s",
                  nicd_tls_reason(), c->addr);
        return -1;
    }
}

static ssize_t
tls_recv(nicd_conn_t *c, void *buf, size_t len)
{
    tls_conn_t *t = c->tp_data;
    int         n;

    ERR_clear_error();
    errno = 0;
    n = SSL_read(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int) len);
    if (n > 0) {
        return n;
    }
    switch (SSL_get_error(t->ssl, n)) {
    case SSL_ERROR_ZERO_RETURN: return 0; /* close_notify */
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    case SSL_ERROR_SYSCALL:
        if (errno == 0) {
            return 0; /* the peer closed without close_notify */
        }
        ERR_clear_error();
        return -1;
    default:
        log_error(LOG_INFO, 0, "SSL_read() failed (%s), client: %s",
                  nicd_tls_reason(), c->addr);
        errno = EPROTO;
        return -1;
    }
}

static int
tls_pending(nicd_conn_t *c)
{
    return SSL_pending(((tls_conn_t *) c->tp_data)->ssl) > 0;
}

static int
tls_flush(nicd_conn_t *c)
{
    tls_conn_t *t = c->tp_data;
    int         rc = write_out(t);

    return rc <= 0 || t->wlen == 0 ? rc : wbuf_send(t);
}

/* close_notify, if the socket takes it; never waits (once) */
static void
tls_shutdown(nicd_conn_t *c)
{
    tls_conn_t *t = c->tp_data;

    if (t != NULL && !c->handshaking && !t->shut) {
        t->shut = 1;
        ERR_clear_error();
        SSL_shutdown(t->ssl); /* OpenSSL flushes the alert (wbio_ctrl) */
        ERR_clear_error();
    }
}

static void
tls_close(nicd_conn_t *c)
{
    tls_conn_t *t = c->tp_data;

    if (t == NULL) {
        return;
    }
    tls_shutdown(c);
    SSL_free(t->ssl);
    free(t->out);
    free(t->wbuf);
    free(t);
    c->tp_data = NULL;
    c->sc.transport = NULL;
    c->sc.write = NULL;
}

static const char *
tls_alpn(nicd_conn_t *c, size_t *len)
{
    const unsigned char *p;
    unsigned int         n;

    SSL_get0_alpn_selected(((tls_conn_t *) c->tp_data)->ssl, &p, &n);
    *len = n;
    return n > 0 ? (const char *) p : NULL;
}

const nicd_transport_t nicd_transport_tls = {
    "tls",     tls_start, tls_handshake, tls_recv, tls_pending,
    tls_flush, tls_close, tls_alpn,      NULL,     tls_shutdown,
};

#else /* no OpenSSL: configuration refuses "listen ... ssl" */

void
nicd_tls_worker_free(nicd_worker_t *w)
{
    (void) w;
}

const nicd_transport_t nicd_transport_tls = {"tls", NULL, NULL, NULL, NULL,
                                             NULL,  NULL, NULL, NULL};

#endif

/* the groups the client offered, "X25519:prime256v1:..." as nginx's
 * $ssl_curves (one an OpenSSL without a name for it: "0x001d"); the
 * worker thread's buffer, valid until its next call */
static const char *
client_groups(SSL *ssl)
{
    static _Thread_local char text[512];
    int                       n = SSL_get1_groups(ssl, NULL), i, *ids;
    size_t                    len = 0;
    const char               *name;

    if (n <= 0 || (ids = malloc(sizeof(int) * (size_t) n)) == NULL) {
        return NULL;
    }
    SSL_get1_groups(ssl, ids);
    text[0] = '\0';
    for (i = 0; i < n && len + 16 < sizeof(text); i++) {
        name = (ids[i] & TLSEXT_nid_unknown) ? NULL : OBJ_nid2sn(ids[i]);
        len += (size_t) (name != NULL ? snprintf(text + len, sizeof(text) - len,
                                                 "%s%s", i > 0 ? ":" : "", name)
                                      : snprintf(text + len, sizeof(text) - len,
                                                 "%s0x%04x", i > 0 ? ":" : "",
                                                 (unsigned) (ids[i] & 0xffff)));
    }
    free(ids);
    return text;
}

void *
nicd_tls_ssl(nicd_conn_t *c)
{
#if defined(HAVE_OPENSSL)
    if (c->tp == &nicd_transport_tls && c->tp_data != NULL && !c->handshaking) {
        return ((tls_conn_t *) c->tp_data)->ssl;
    }
#endif
    (void) c;
    return NULL;
}

const char *
nicd_tls_info(nicd_conn_t *c, int what)
{
    tls_conn_t *t;

    if (c->tp != &nicd_transport_tls || c->tp_data == NULL
        || (c->handshaking && what != NICD_TLS_SERVER_NAME)) {
        return NULL; /* (the name is there for a certificate's template) */
    }
    t = c->tp_data;
    switch (what) {
    case NICD_TLS_PROTOCOL: return SSL_get_version(t->ssl);
    case NICD_TLS_CIPHER: return SSL_get_cipher_name(t->ssl);
    case NICD_TLS_SERVER_NAME:
        return SSL_get_servername(t->ssl, TLSEXT_NAMETYPE_host_name);
    case NICD_TLS_CURVE: {
        int nid = SSL_get_negotiated_group(t->ssl);

        return nid != NID_undef ? OBJ_nid2sn(nid) : NULL;
    }
    case NICD_TLS_CURVES: return client_groups(t->ssl);
    default: return SSL_session_reused(t->ssl) ? "r" : ".";
    }
}
