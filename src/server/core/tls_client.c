/*
 * What a TLS connection's client certificate and session say, as nginx's
 * $ssl_client_* and $ssl_session_id, $ssl_ciphers, and the check
 * ssl_verify_client makes of each request (transport.h).
 */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "util/log.h"
#include "server/conf/conf.h"
#include "server/core/nicd.h"
#include "server/core/transport.h"

#if defined(HAVE_OPENSSL)

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* what bio holds appended to b, with each line after the first
 * indented by a tab (indent) */
static void
add_bio(nicd_buf_t *b, BIO *bio, int indent)
{
    char *p;
    long  n = BIO_get_mem_data(bio, &p), i;

    for (i = 0; i < n; i++) {
        nicd_buf_add(b, p + i, 1);
        if (indent && p[i] == '\n' && i + 1 < n) {
            nicd_buf_add(b, "\t", 1);
        }
    }
}

static void
add_hex(nicd_buf_t *b, const unsigned char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t            i;

    for (i = 0; i < n; i++) {
        char h[2] = {hex[p[i] >> 4], hex[p[i] & 15]};

        nicd_buf_add(b, h, 2);
    }
}

static void
add_verify(nicd_buf_t *b, SSL *ssl, X509 *cert)
{
    long rc;

    if (cert == NULL) {
        nicd_buf_adds(b, "NONE");
        return;
    }
    rc = SSL_get_verify_result(ssl);
    if (rc == X509_V_OK) {
        nicd_buf_adds(b, "SUCCESS");
        return;
    }
    nicd_buf_adds(b, "FAILED:");
    nicd_buf_adds(b, X509_verify_cert_error_string(rc));
}

/* days from now to t, 0 when it is past */
static void
add_remain(nicd_buf_t *b, const ASN1_TIME *t)
{
    int day, sec;

    if (ASN1_TIME_diff(&day, &sec, NULL, t) != 1 || day < 0
        || (day == 0 && sec < 0)) {
        day = 0;
    }
    nicd_buf_addf(b, "%d", day);
}

/* the cipher suites the client offered that OpenSSL knows, ":" between
 * (OpenSSL keeps no others in the list) */
static void
add_ciphers(nicd_buf_t *b, SSL *ssl)
{
    STACK_OF(SSL_CIPHER) *sk = SSL_get_client_ciphers(ssl);
    int i;

    for (i = 0; sk != NULL && i < sk_SSL_CIPHER_num(sk); i++) {
        if (i > 0) {
            nicd_buf_add(b, ":", 1);
        }
        nicd_buf_adds(b, SSL_CIPHER_get_name(sk_SSL_CIPHER_value(sk, i)));
    }
}

/* a part of cert through a memory BIO: 0, or -1 */
static int
add_cert_part(nicd_buf_t *b, X509 *cert, int what)
{
    BIO *bio = BIO_new(BIO_s_mem());
    int  ok = bio != NULL;

    switch (what) {
    case NICD_TLS_CLIENT_S_DN:
    case NICD_TLS_CLIENT_I_DN:
        ok = ok
             && X509_NAME_print_ex(bio,
                                   what == NICD_TLS_CLIENT_S_DN
                                       ? X509_get_subject_name(cert)
                                       : X509_get_issuer_name(cert),
                                   0, XN_FLAG_RFC2253)
                    >= 0;
        break;
    case NICD_TLS_CLIENT_SERIAL:
        ok = ok && i2a_ASN1_INTEGER(bio, X509_get_serialNumber(cert)) >= 0;
        break;
    case NICD_TLS_CLIENT_V_START:
        ok = ok && ASN1_TIME_print(bio, X509_get0_notBefore(cert)) == 1;
        break;
    case NICD_TLS_CLIENT_V_END:
        ok = ok && ASN1_TIME_print(bio, X509_get0_notAfter(cert)) == 1;
        break;
    default: /* the PEM ones */ ok = ok && PEM_write_bio_X509(bio, cert) == 1;
    }
    if (ok) {
        if (what == NICD_TLS_CLIENT_ESCAPED_CERT) {
            char *pem;
            long  n = BIO_get_mem_data(bio, &pem);

            nicd_buf_add_percent(b, pem, (size_t) n); /* nginx's */
        } else {
            add_bio(b, bio, what == NICD_TLS_CLIENT_CERT);
        }
    }
    BIO_free(bio);
    if (!ok) {
        ERR_clear_error();
    }
    return ok ? 0 : -1;
}

int
nicd_tls_client_info(nicd_conn_t *c, int what, nicd_buf_t *b)
{
    SSL          *ssl = nicd_tls_ssl(c);
    X509         *cert;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int  mdlen;
    char          line[1024];
    int           rc = 0;

    if (ssl == NULL) {
        return 0;
    }
    if (what == NICD_TLS_SESSION_ID) {
        const SSL_SESSION   *sess = SSL_get0_session(ssl);
        const unsigned char *id;
        unsigned int         n = 0;

        id = sess != NULL ? SSL_SESSION_get_id(sess, &n) : NULL;
        if (id != NULL) {
            add_hex(b, id, n);
        }
        return 0;
    }
    if (what == NICD_TLS_CIPHERS) {
        add_ciphers(b, ssl);
        return 0;
    }
    cert = SSL_get1_peer_certificate(ssl);
    if (what == NICD_TLS_CLIENT_VERIFY) {
        add_verify(b, ssl, cert);
    } else if (cert == NULL) {
        return 0;
    } else if (what == NICD_TLS_CLIENT_S_DN_LEGACY
               || what == NICD_TLS_CLIENT_I_DN_LEGACY) {
        X509_NAME_oneline(what == NICD_TLS_CLIENT_S_DN_LEGACY
                              ? X509_get_subject_name(cert)
                              : X509_get_issuer_name(cert),
                          line, sizeof(line));
        nicd_buf_adds(b, line);
    } else if (what == NICD_TLS_CLIENT_FINGERPRINT) {
        if (X509_digest(cert, EVP_sha1(), md, &mdlen) == 1) {
            add_hex(b, md, mdlen);
        }
    } else if (what == NICD_TLS_CLIENT_V_REMAIN) {
        add_remain(b, X509_get0_notAfter(cert));
    } else {
        rc = add_cert_part(b, cert, what);
    }
    X509_free(cert);
    return rc;
}

/* errors ssl_verify_client optional_no_ca lets pass (nginx's) */
static int
optional_error(long rc)
{
    return rc == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
           || rc == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
           || rc == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT
           || rc == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
           || rc == X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE;
}

int
nicd_tls_verify(nicd_conn_t *c, int mode)
{
    SSL  *ssl = nicd_tls_ssl(c);
    X509 *cert;
    long  rc;

    if (ssl == NULL || mode == NICD_VERIFY_OFF) {
        return 0;
    }
    rc = SSL_get_verify_result(ssl);
    if (rc != X509_V_OK
        && (mode != NICD_VERIFY_OPTIONAL_NO_CA || !optional_error(rc))) {
        log_error(LOG_INFO, 0,
                  "client SSL certificate verify error: (%ld:%s), client: %s",
                  rc, X509_verify_cert_error_string(rc), c->addr);
        return 495;
    }
    if (mode == NICD_VERIFY_ON) {
        cert = SSL_get1_peer_certificate(ssl);
        if (cert == NULL) {
            log_error(LOG_INFO, 0,
                      "client sent no required SSL certificate, client: %s",
                      c->addr);
            return 496;
        }
        X509_free(cert);
    }
    return 0;
}

#else /* no OpenSSL */

int
nicd_tls_client_info(nicd_conn_t *c, int what, nicd_buf_t *b)
{
    (void) c;
    (void) what;
    (void) b;
    return 0;
}

int
nicd_tls_verify(nicd_conn_t *c, int mode)
{
    (void) c;
    (void) mode;
    return 0;
}

#endif
