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
 * - One SSL_CTX serves every worker thread; OpenSSL locks its session
 *   cache, so the cache is shared by all of them.  A reload makes a new
 *   SSL_CTX from the files as they are then; connections keep the one
 *   they started with (reference counted).
 */

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config.h"
#include "server/core/nicd.h"
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
} tls_conn_t;

static BIO_METHOD    *wbio_method;
static pthread_once_t wbio_once = PTHREAD_ONCE_INIT;

/* the last OpenSSL error as text (and the queue cleared) */
static const char *
ssl_reason(void)
{
    static _Thread_local char buf[256];
    unsigned long             e = ERR_get_error();

    if (e == 0) {
        snprintf(buf, sizeof(buf), "%s",
                 errno != 0 ? strerror(errno) : "unknown");
    } else {
        ERR_error_string_n(e, buf, sizeof(buf));
    }
    ERR_clear_error();
    return buf;
}

/*
 * ALPN: "h2" first on listeners with "http2", then "http/1.1"; no
 * protocol in common: no ALPN (HTTP/1.1 is spoken).
 */
static int
alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
            const unsigned char *in, unsigned int inlen, void *arg)
{
    static const unsigned char both[] = "\x02h2\x08http/1.1";
    nicd_conn_t               *c = SSL_get_app_data(ssl);
    const unsigned char       *ours = both + 3;
    unsigned int               len = sizeof(both) - 1 - 3;

    (void) arg;
    if (c != NULL && c->w->cycle->conf->listens[c->sc.listener].http2) {
        ours = both;
        len = sizeof(both) - 1;
    }
    if (SSL_select_next_proto((unsigned char **) out, outlen, ours, len, in,
                              inlen)
        != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    return SSL_TLSEXT_ERR_OK;
}

static int
proto_version(int bit)
{
    switch (bit) {
    case NICD_TLS_1_0: return TLS1_VERSION;
    case NICD_TLS_1_1: return TLS1_1_VERSION;
    case NICD_TLS_1_2: return TLS1_2_VERSION;
    default: return TLS1_3_VERSION;
    }
}

/* An SSL_CTX with the settings cf and the certificate cert (key): NULL
 * with err naming the file that failed. */
static SSL_CTX *
ctx_make(const nicd_ssl_conf_t *cf, const char *cert, const char *key,
         char *err, size_t errlen)
{
    SSL_CTX *ctx;
    int      bit, lo = 0, hi = 0;

    ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL) {
        snprintf(err, errlen, "SSL_CTX_new() failed: %s", ssl_reason());
        return NULL;
    }
    for (bit = NICD_TLS_1_0; bit <= NICD_TLS_1_3; bit <<= 1) {
        if (cf->protocols & bit) {
            lo = lo ? lo : bit;
            hi = bit;
        }
    }
    SSL_CTX_set_min_proto_version(ctx, proto_version(lo));
    SSL_CTX_set_max_proto_version(ctx, proto_version(hi));
    SSL_CTX_set_options(
        ctx,
        SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION
            | (cf->prefer_server_ciphers ? SSL_OP_CIPHER_SERVER_PREFERENCE : 0)
            | (cf->session_tickets ? 0 : SSL_OP_NO_TICKET)
#ifdef SSL_OP_ENABLE_KTLS
            | SSL_OP_ENABLE_KTLS
#endif
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
            /* a client that closes without close_notify has just gone */
            | SSL_OP_IGNORE_UNEXPECTED_EOF
#endif
    );
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);

    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        snprintf(err, errlen, "cannot load certificate \"%s\": %s", cert,
                 ssl_reason());
        goto err;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        snprintf(err, errlen, "cannot load certificate key \"%s\": %s", key,
                 ssl_reason());
        goto err;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        snprintf(err, errlen,
                 "certificate key \"%s\" does not match certificate \"%s\"",
                 key, cert);
        ERR_clear_error();
        goto err;
    }
    if (SSL_CTX_set_cipher_list(ctx, cf->ciphers) != 1) {
        snprintf(err, errlen, "ssl_ciphers \"%s\": %s", cf->ciphers,
                 ssl_reason());
        goto err;
    }
    if (cf->dhparam != NULL) {
        BIO      *bio = BIO_new_file(cf->dhparam, "r");
        EVP_PKEY *dh = bio != NULL ? PEM_read_bio_Parameters(bio, NULL) : NULL;

        BIO_free(bio);
        if (dh == NULL || SSL_CTX_set0_tmp_dh_pkey(ctx, dh) != 1) {
            EVP_PKEY_free(dh);
            snprintf(err, errlen, "cannot load ssl_dhparam \"%s\": %s",
                     cf->dhparam, ssl_reason());
            goto err;
        }
    } else {
        SSL_CTX_set_dh_auto(ctx, 1);
    }
    if (cf->ecdh_curve != NULL && strcmp(cf->ecdh_curve, "auto") != 0
        && SSL_CTX_set1_groups_list(ctx, cf->ecdh_curve) != 1) {
        snprintf(err, errlen, "ssl_ecdh_curve \"%s\": %s", cf->ecdh_curve,
                 ssl_reason());
        goto err;
    }
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *) "nicd", 4);
    SSL_CTX_set_timeout(ctx, cf->session_timeout / 1000);
    if (cf->session_cache > 0) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_sess_set_cache_size(ctx, cf->session_cache);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
    return ctx;

err:
    SSL_CTX_free(ctx);
    return NULL;
}

/*
 * SNI: the names of the server {} blocks, each with the SSL_CTX of its
 * certificate, hung on the default SSL_CTX (ex_data) and freed with it.
 * A connection whose client names one of them switches to its SSL_CTX
 * (same settings, ALPN included, other certificate); the session cache
 * and ticket keys stay the default SSL_CTX's.
 */
typedef struct {
    char    *name; /* the server_name, as written (a copy: a connection
                    * may outlive its configuration) */
    void    *re;   /* a "~" name compiled (pcre2_code, its own copy) */
    SSL_CTX *ctx;  /* a reference of its own; NULL: the default SSL_CTX
                    * (which holds this table: no reference to itself) */
} sni_name_t;

typedef struct {
    sni_name_t *names;
    int         n;
} sni_t;

static int sni_index = -1;

static void
sni_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
         void *argp)
{
    sni_t *sni = ptr;
    int    i;

    (void) parent;
    (void) ad;
    (void) idx;
    (void) argl;
    (void) argp;
    if (sni == NULL) {
        return;
    }
    for (i = 0; i < sni->n; i++) {
        free(sni->names[i].name);
        pcre2_code_free(sni->names[i].re);
        SSL_CTX_free(sni->names[i].ctx);
    }
    free(sni->names);
    free(sni);
}

static int
sni_select(SSL *ssl, int *alert, void *arg)
{
    const sni_t *sni = arg;
    const char  *host = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    SSL_CTX     *best = NULL;
    size_t       len, q, bestq = 0;
    int          i;

    (void) alert;
    if (host == NULL || sni == NULL) {
        return SSL_TLSEXT_ERR_OK; /* the default certificate */
    }
    len = strlen(host);
    for (i = 0; i < sni->n; i++) {
        if (sni->names[i].re != NULL) {
            /* a regex ranks below the exact and wildcard names (nginx) */
            pcre2_match_data *md =
                pcre2_match_data_create_from_pattern(sni->names[i].re, NULL);

            q = md != NULL
                        && pcre2_match(sni->names[i].re, (PCRE2_SPTR) host, len,
                                       0, 0, md, NULL)
                               >= 0
                    ? 1
                    : 0;
            pcre2_match_data_free(md);
        } else {
            q = nicd_server_name_match(sni->names[i].name, host, len);
        }
        if (q > bestq) {
            bestq = q;
            best = sni->names[i].ctx;
        }
    }
    if (bestq > 0 && best != NULL && best != SSL_get_SSL_CTX(ssl)) {
        SSL_set_SSL_CTX(ssl, best);
        /* the chosen server's options (tickets, cipher preference) too;
         * the protocol is the default server's, as in nginx */
        SSL_clear_options(ssl,
                          SSL_get_options(ssl) & ~SSL_CTX_get_options(best));
        SSL_set_options(ssl, SSL_CTX_get_options(best));
    }
    return SSL_TLSEXT_ERR_OK;
}

/* sv's SSL_CTX would be the one of cert, key and the settings ssl */
static int
same_ctx(const nicd_server_conf_t *sv, const char *cert, const char *key,
         const nicd_ssl_conf_t *ssl)
{
    return strcmp(sv->cert, cert) == 0 && strcmp(sv->key, key) == 0
           && sv->ssl == ssl;
}

/* the settings of the default certificate's SSL_CTX: those of the first
 * server that has that certificate, else the http level's */
static const nicd_ssl_conf_t *
default_settings(const nicd_conf_t *cf)
{
    int i;

    for (i = 0; i < cf->nservers; i++) {
        const nicd_server_conf_t *sv = cf->servers[i];

        if (sv->cert != NULL && sv->key != NULL && sv->ssl != NULL
            && strcmp(sv->cert, cf->ssl_certificate) == 0
            && strcmp(sv->key, cf->ssl_certificate_key) == 0) {
            return sv->ssl;
        }
    }
    return &cf->ssl;
}

/* an SSL_CTX for each certificate of the server {} blocks that have
 * names (one for blocks that share a certificate), and the SNI callback
 * that chooses among them: 0 or -1 with err */
static int
sni_setup(SSL_CTX *dflt, const nicd_conf_t *cf, char *err, size_t errlen)
{
    sni_t                    *sni;
    const nicd_server_conf_t *sv;
    SSL_CTX                 **made, *ctx;
    int                       i, j, k, total = 0, rc = -1;

    for (i = 0; i < cf->nservers; i++) {
        total += cf->servers[i]->cert != NULL ? cf->servers[i]->nnames : 0;
    }
    if (total == 0) {
        return 0;
    }
    if (sni_index < 0) {
        /* configurations are read by the main thread only */
        sni_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, sni_free);
    }
    made = calloc((size_t) cf->nservers, sizeof(*made));
    sni = calloc(1, sizeof(*sni));
    if (made == NULL || sni == NULL || sni_index < 0
        || (sni->names = calloc((size_t) total, sizeof(sni_name_t))) == NULL
        || SSL_CTX_set_ex_data(dflt, sni_index, sni) != 1) {
        snprintf(err, errlen, "out of memory");
        if (sni != NULL) {
            free(sni->names);
        }
        free(sni);
        free(made);
        return -1;
    }
    /* from here on sni is freed with dflt */
    for (i = 0; i < cf->nservers; i++) {
        sv = cf->servers[i];
        if (sv->cert == NULL || sv->nnames == 0) {
            continue;
        }
        ctx = same_ctx(sv, cf->ssl_certificate, cf->ssl_certificate_key,
                       default_settings(cf))
                  ? dflt
                  : NULL;
        for (j = 0; j < i && ctx == NULL; j++) {
            if (made[j] != NULL
                && same_ctx(sv, cf->servers[j]->cert, cf->servers[j]->key,
                            cf->servers[j]->ssl)) {
                ctx = made[j];
            }
        }
        if (ctx == NULL) {
            ctx = made[i] = ctx_make(sv->ssl, sv->cert, sv->key, err, errlen);
            if (ctx == NULL) {
                goto done;
            }
        }
        for (k = 0; k < sv->nnames; k++) {
            if ((sni->names[sni->n].name = strdup(sv->names[k])) == NULL) {
                snprintf(err, errlen, "out of memory");
                goto done;
            }
            if (sv->names[k][0] == '~') {
                int        ec;
                PCRE2_SIZE off;

                sni->names[sni->n].re = pcre2_compile(
                    (PCRE2_SPTR) sv->names[k] + 1, PCRE2_ZERO_TERMINATED,
                    PCRE2_CASELESS, &ec, &off, NULL);
            }
            if (ctx != dflt) {
                SSL_CTX_up_ref(ctx);
                sni->names[sni->n].ctx = ctx;
            }
            sni->n++;
        }
    }
    SSL_CTX_set_tlsext_servername_callback(dflt, sni_select);
    SSL_CTX_set_tlsext_servername_arg(dflt, sni);
    rc = 0;

done:
    for (i = 0; i < cf->nservers; i++) {
        SSL_CTX_free(made[i]); /* the names hold their own references */
    }
    free(made);
    return rc;
}

void *
nicd_tls_ctx_new(const nicd_conf_t *cf, char *err, size_t errlen)
{
    SSL_CTX *ctx;

    ctx = ctx_make(default_settings(cf), cf->ssl_certificate,
                   cf->ssl_certificate_key, err, errlen);
    if (ctx == NULL) {
        return NULL;
    }
    if (sni_setup(ctx, cf, err, errlen) != 0) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

void
nicd_tls_ctx_free(void *ctx)
{
    SSL_CTX_free(ctx);
}

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
tls_start(nicd_conn_t *c, void *ctx)
{
    tls_conn_t *t = calloc(1, sizeof(*t));

    if (t == NULL || (t->out = malloc(TLS_RECORD)) == NULL
        || (t->ssl = SSL_new(ctx)) == NULL
        || SSL_set_fd(t->ssl, c->sc.fd) != 1) {
        log_error(LOG_CRIT, 0, "SSL_new() failed: %s, client: %s", ssl_reason(),
                  c->addr);
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

static int
tls_handshake(nicd_conn_t *c)
{
    tls_conn_t *t = c->tp_data;
    int         n;

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
                      ssl_reason(), c->addr);
            return -1;
        }
        return 1;
    }
    switch (SSL_get_error(t->ssl, n)) {
    case SSL_ERROR_WANT_READ: c->tp_want_write = 0; return 0;
    case SSL_ERROR_WANT_WRITE: c->tp_want_write = 1; return 0;
    default:
        log_error(LOG_INFO, 0, "SSL_do_handshake() failed (%s), client: %s",
                  ssl_reason(), c->addr);
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
                  ssl_reason(), c->addr);
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

static void
tls_close(nicd_conn_t *c)
{
    tls_conn_t *t = c->tp_data;

    if (t == NULL) {
        return;
    }
    if (!c->handshaking) {
        /* close_notify, if the socket takes it; never waits */
        ERR_clear_error();
        SSL_shutdown(t->ssl); /* OpenSSL flushes the alert (wbio_ctrl) */
        ERR_clear_error();
    }
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
    tls_flush, tls_close, tls_alpn,      NULL,
};

#else /* no OpenSSL: configuration refuses "listen ... ssl" */

void *
nicd_tls_ctx_new(const nicd_conf_t *cf, char *err, size_t errlen)
{
    (void) cf;
    snprintf(err, errlen, "nicd was built without OpenSSL: no \"ssl\"");
    return NULL;
}

void
nicd_tls_ctx_free(void *ctx)
{
    (void) ctx;
}

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

const char *
nicd_tls_info(nicd_conn_t *c, int what)
{
    tls_conn_t *t;

    if (c->tp != &nicd_transport_tls || c->tp_data == NULL || c->handshaking) {
        return NULL;
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
