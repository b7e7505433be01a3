/*
 * TLS under hclient (hclient_tls.h): the context, the handshake driven by
 * the connection's epoll events, reads and writes through OpenSSL.  The
 * socket stays edge-triggered: a read goes on until OpenSSL wants more
 * bytes (a record may hold less than was asked while more wait), a write
 * until it wants to write again.
 */

#include <errno.h>
#include <signal.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "lib/http/hclient.h"
#include "lib/http/hclient_tls.h"
#include "lib/json.h"

struct hclient_tls_s {
    SSL_CTX            *ctx;
    char                name[256];
    int                 sni; /* name is not an address */
    int                 verify;
    int                 h2;
    SSL_SESSION        *sess; /* the latest session the server gave */
    hclient_tls_stats_t st;
};

/* OpenSSL's new-session callback: the latest ticket is the one kept */
static int
keep_session(SSL *ssl, SSL_SESSION *s)
{
    hclient_tls_t *t = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));

    if (t->sess != NULL) {
        SSL_SESSION_free(t->sess);
    }
    t->sess = s;
    return 1; /* the reference is ours */
}

hclient_tls_t *
hclient_tls_new(const char *name, int insecure, const char *cafile, int h2,
                char *err, size_t errlen)
{
    hclient_tls_t *t = calloc(1, sizeof(*t));
    unsigned char  a[16];

    if (t == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->sni =
        inet_pton(AF_INET, name, a) != 1 && inet_pton(AF_INET6, name, a) != 1;
    t->verify = !insecure;
    /* OpenSSL writes with write(2): a peer gone would raise SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    t->h2 = h2;
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (t->ctx == NULL) {
        snprintf(err, errlen, "TLS: %s",
                 ERR_reason_error_string(ERR_get_error()));
        free(t);
        return NULL;
    }
    SSL_CTX_set_app_data(t->ctx, t);
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    /* a close without close_notify is an end, as over TCP: HTTP's framing
     * says whether a response was cut (servers close idle keep-alive
     * connections so, and a body may run to the close) */
    SSL_CTX_set_options(t->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE
                                 | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                                 | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_CLIENT
                                               | SSL_SESS_CACHE_NO_INTERNAL);
    SSL_CTX_sess_set_new_cb(t->ctx, keep_session);
    if (h2) {
        static const unsigned char alpn[] = "\x02h2";

        SSL_CTX_set_alpn_protos(t->ctx, alpn, sizeof(alpn) - 1);
    } else {
        static const unsigned char alpn[] = "\x08http/1.1";

        SSL_CTX_set_alpn_protos(t->ctx, alpn, sizeof(alpn) - 1);
    }
    if (t->verify) {
        SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
        if ((cafile != NULL
                 ? SSL_CTX_load_verify_locations(t->ctx, cafile, NULL)
                 : SSL_CTX_set_default_verify_paths(t->ctx))
            != 1) {
            snprintf(err, errlen, "%s: %s", cafile ? cafile : "the system CAs",
                     ERR_reason_error_string(ERR_get_error()));
            hclient_tls_free(t);
            return NULL;
        }
    }
    return t;
}

void
hclient_tls_free(hclient_tls_t *t)
{
    if (t == NULL) {
        return;
    }
    if (t->sess != NULL) {
        SSL_SESSION_free(t->sess);
    }
    SSL_CTX_free(t->ctx);
    free(t);
}

const hclient_tls_stats_t *
hclient_tls_stats(const hclient_tls_t *t)
{
    return &t->st;
}

const char *
hclient_tls_text(const hclient_tls_stats_t *s, char *buf, size_t len)
{
    snprintf(buf, len, "%llu handshakes, %llu resumed, %llu failed%s%s%s%s%s%s",
             (unsigned long long) s->handshakes,
             (unsigned long long) s->resumed, (unsigned long long) s->failed,
             s->version[0] ? "; " : "", s->version, s->cipher[0] ? " " : "",
             s->cipher, s->alpn[0] ? ", ALPN " : "", s->alpn);
    return buf;
}

void
hclient_tls_json(const hclient_tls_stats_t *s, FILE *f)
{
    fprintf(f,
            "{\"handshakes\": %llu, \"resumed\": %llu, \"failed\": %llu, "
            "\"version\": ",
            (unsigned long long) s->handshakes, (unsigned long long) s->resumed,
            (unsigned long long) s->failed);
    json_write_string(f, s->version);
    fputs(", \"cipher\": ", f);
    json_write_string(f, s->cipher);
    fputs(", \"alpn\": ", f);
    json_write_string(f, s->alpn);
    fputc('}', f);
}

/* what failed, for the causes: a static string of OpenSSL's */
static void
failed(hclient_t *c, SSL *ssl)
{
    unsigned long e = ERR_get_error();
    long          v = ssl != NULL ? SSL_get_verify_result(ssl) : X509_V_OK;

    c->err = EPROTO;
    c->err_text = v != X509_V_OK ? X509_verify_cert_error_string(v)
                  : e != 0       ? ERR_reason_error_string(e)
                                 : NULL;
    ERR_clear_error();
}

int
hclient_tls_start(hclient_t *c)
{
    hclient_tls_t *t = c->tls;
    SSL           *ssl = SSL_new(t->ctx);

    if (ssl == NULL || SSL_set_fd(ssl, c->fd) != 1
        || (t->sni && SSL_set_tlsext_host_name(ssl, t->name) != 1)
        || (t->verify
            && (t->sni ? SSL_set1_host(ssl, t->name)
                       : X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl),
                                                       t->name))
                   != 1)
        || (t->sess != NULL && SSL_set_session(ssl, t->sess) != 1)) {
        failed(c, NULL);
        SSL_free(ssl);
        return -1;
    }
    c->ssl = ssl;
    c->handshaking = 1;
    return 0;
}

int
hclient_tls_handshake(hclient_t *c)
{
    hclient_tls_t       *t = c->tls;
    SSL                 *ssl = c->ssl;
    const unsigned char *p;
    unsigned int         n;
    int                  rc = SSL_connect(ssl);

    if (rc != 1) {
        int e = SSL_get_error(ssl, rc);

        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            return 0;
        }
        if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
            /* the connection went in the handshake */
            c->err = errno != 0 ? errno : ECONNRESET;
            c->err_text = errno != 0 ? strerror(errno)
                                     : "the server closed the connection "
                                       "in the handshake";
        } else {
            failed(c, ssl);
        }
        t->st.failed++;
        return -1;
    }
    c->handshaking = 0;
    SSL_get0_alpn_selected(ssl, &p, &n);
    if (t->h2 && (n != 2 || memcmp(p, "h2", 2) != 0)) {
        c->err = EPROTO;
        c->err_text = "the server did not choose h2 by ALPN";
        t->st.failed++;
        return -1;
    }
    t->st.handshakes++;
    t->st.resumed += SSL_session_reused(ssl) == 1;
    snprintf(t->st.version, sizeof(t->st.version), "%s", SSL_get_version(ssl));
    snprintf(t->st.cipher, sizeof(t->st.cipher), "%s",
             SSL_CIPHER_get_name(SSL_get_current_cipher(ssl)));
    snprintf(t->st.alpn, sizeof(t->st.alpn), "%.*s", (int) n, p);
    return 1;
}

ssize_t
hclient_tls_read(hclient_t *c, void *buf, size_t n)
{
    int rc;

    errno = 0; /* SSL_ERROR_SYSCALL with errno 0 is an end */
    rc = SSL_read(c->ssl, buf, n > 0x7fffffff ? 0x7fffffff : (int) n);

    if (rc > 0) {
        return rc;
    }
    switch (SSL_get_error(c->ssl, rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0; /* close_notify */
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0) {
            /* a close without close_notify: an end all the same (HTTP
             * framing says whether anything was cut) */
            return errno == 0 ? 0 : -1;
        }
        /* fall through */
    default:
        failed(c, c->ssl);
        errno = EPROTO;
        return -1;
    }
}

ssize_t
hclient_tls_write(hclient_t *c, const void *buf, size_t n)
{
    int rc = SSL_write(c->ssl, buf, n > 0x7fffffff ? 0x7fffffff : (int) n);

    if (rc > 0) {
        return rc;
    }
    switch (SSL_get_error(c->ssl, rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0 && errno != 0) {
            return -1;
        }
        /* fall through */
    default:
        failed(c, c->ssl);
        errno = EPROTO;
        return -1;
    }
}

void
hclient_tls_close(hclient_t *c)
{
    if (c->ssl == NULL) {
        return;
    }
    if (!c->handshaking) {
        (void) SSL_shutdown(c->ssl); /* close_notify, not waited for */
    }
    SSL_free(c->ssl);
    ERR_clear_error();
    c->ssl = NULL;
    c->handshaking = 0;
}
