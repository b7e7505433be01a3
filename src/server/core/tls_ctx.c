/*
 * The TLS contexts of a configuration: an SSL_CTX for each "listen ...
 * ssl" address, made from its default server's certificates and
 * settings, with the servers of that address its client may name (SNI).
 *
 * Facts relied on:
 * - Every worker thread shares an address' SSL_CTX; OpenSSL locks its
 *   session cache, so the cache is shared by all of them.  A reload
 *   makes new SSL_CTXs from the files as they are then; connections keep
 *   the one they started with (reference counted).
 * - OpenSSL calls the servername callback for every ClientHello, with or
 *   without a name, before the certificate is chosen; the protocol
 *   version is settled before it, by the SSL_CTX the connection started
 *   with.
 */

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/log.h"
#include "server/core/tls_ctx.h"

#if defined(HAVE_OPENSSL)

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

/* the last OpenSSL error as text (and the queue cleared) */
const char *
nicd_tls_reason(void)
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
 * protocol in common: the handshake fails (a client that sends no ALPN
 * speaks HTTP/1.1).
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
        /* as nginx (1.21.4): a client asking for none of ours is refused
         * with the no_application_protocol alert */
        return SSL_TLSEXT_ERR_ALERT_FATAL;
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

/* the next name of a list joined by newlines (ssl_conf.c) into out: its
 * length, 0 at the end; *list moves past it */
static size_t
next_name(const char **list, char *out, size_t size)
{
    const char *p = *list, *nl;
    size_t      n;

    if (*p == '\0') {
        return 0;
    }
    nl = strchr(p, '\n');
    n = nl != NULL ? (size_t) (nl - p) : strlen(p);
    *list = nl != NULL ? nl + 1 : p + n;
    if (n >= size) {
        n = size - 1;
    }
    memcpy(out, p, n);
    out[n] = '\0';
    return n;
}

/* OpenSSL's question for an encrypted key's passphrase: the one at
 * hand (u), never a prompt on the terminal */
static int
passphrase(char *buf, int size, int rw, void *u)
{
    size_t n = u != NULL ? strlen(u) : 0;

    (void) rw;
    if (u == NULL || n > (size_t) size) {
        return 0;
    }
    memcpy(buf, u, n);
    return (int) n;
}

/* key into ctx, trying each passphrase of passwords (lines) in turn when
 * it is encrypted: 1, or 0 (OpenSSL's error queue says why) */
static int
load_key(SSL_CTX *ctx, const char *key, const char *passwords)
{
    char pw[1024];

    SSL_CTX_set_default_passwd_cb(ctx, passphrase);
    if (passwords == NULL) {
        SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
        return SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1;
    }
    while (next_name(&passwords, pw, sizeof(pw)) > 0) {
        SSL_CTX_set_default_passwd_cb_userdata(ctx, pw);
        if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1) {
            SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
            OPENSSL_cleanse(pw, sizeof(pw));
            return 1;
        }
        if (*passwords != '\0') {
            ERR_clear_error(); /* the next one may do */
        }
    }
    SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
    OPENSSL_cleanse(pw, sizeof(pw));
    return 0;
}

/* every certificate of the list cert with its key (the n-th of keys,
 * encrypted ones opened with passwords): one of each key type (ECDSA,
 * RSA) is kept, OpenSSL choosing the one a client can take.  0, or -1
 * with err naming the file. */
static int
load_certificates(SSL_CTX *ctx, const char *certs, const char *keys,
                  const char *passwords, char *err, size_t errlen)
{
    char cert[PATH_MAX], key[PATH_MAX];

    while (next_name(&certs, cert, sizeof(cert)) > 0) {
        if (next_name(&keys, key, sizeof(key)) == 0) {
            snprintf(err, errlen,
                     "no \"ssl_certificate_key\" is defined for certificate "
                     "\"%s\"",
                     cert);
            return -1;
        }
        if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
            snprintf(err, errlen, "cannot load certificate \"%s\": %s", cert,
                     nicd_tls_reason());
            return -1;
        }
        if (!load_key(ctx, key, passwords)) {
            snprintf(err, errlen, "cannot load certificate key \"%s\": %s", key,
                     nicd_tls_reason());
            return -1;
        }
        if (SSL_CTX_check_private_key(ctx) != 1) {
            snprintf(err, errlen,
                     "certificate key \"%s\" does not match certificate "
                     "\"%s\"",
                     key, cert);
            ERR_clear_error();
            return -1;
        }
    }
    return 0;
}

/* the handshake goes on whatever the client's certificate: the request
 * is answered 495 or 496 (nicd_tls_verify), as nginx's */
static int
verify_any(int ok, X509_STORE_CTX *x)
{
    (void) ok;
    (void) x;
    return 1;
}

/* ssl_verify_client's: ask for a certificate, trust the CAs of
 * ssl_client_certificate (named to the client) and
 * ssl_trusted_certificate, check ssl_crl: 0, or -1 with err */
static int
client_verification(SSL_CTX *ctx, const nicd_ssl_conf_t *cf, char *err,
                    size_t errlen)
{
    const char *f = cf->client_certificate;

    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, verify_any);
    SSL_CTX_set_verify_depth(ctx, cf->verify_depth);
    if (f != NULL) {
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(f);

        if (SSL_CTX_load_verify_locations(ctx, f, NULL) != 1 || names == NULL) {
            sk_X509_NAME_pop_free(names, X509_NAME_free);
            snprintf(err, errlen,
                     "cannot load ssl_client_certificate \"%s\": %s", f,
                     nicd_tls_reason());
            return -1;
        }
        SSL_CTX_set_client_CA_list(ctx, names);
    }
    f = cf->trusted_certificate;
    if (f != NULL && SSL_CTX_load_verify_locations(ctx, f, NULL) != 1) {
        snprintf(err, errlen, "cannot load ssl_trusted_certificate \"%s\": %s",
                 f, nicd_tls_reason());
        return -1;
    }
    f = cf->crl;
    if (f != NULL) {
        X509_STORE  *store = SSL_CTX_get_cert_store(ctx);
        X509_LOOKUP *lk = X509_STORE_add_lookup(store, X509_LOOKUP_file());

        if (lk == NULL || X509_load_crl_file(lk, f, X509_FILETYPE_PEM) < 1) {
            snprintf(err, errlen, "cannot load ssl_crl \"%s\": %s", f,
                     nicd_tls_reason());
            return -1;
        }
        X509_STORE_set_flags(store,
                             X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
    }
    return 0;
}

static nicd_tls_eval_pt tls_eval;

/* the session ticket keys of the configuration being made: one for all
 * its SSL_CTXs, so a session resumes at any address whose server has
 * the same certificates (configurations are made by the main thread) */
static unsigned char ticket_keys[80];

/*
 * A session resumes where it was made: its context is a digest of the
 * certificates' names (templates too) and of what is asked of clients,
 * as nginx's digest of its certificates, so two addresses whose servers
 * show the same ones share sessions and others do not.
 */
static void
session_context(SSL_CTX *ctx, const char *cert, const char *key,
                const nicd_ssl_conf_t *cf)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int  n = 0;
    EVP_MD_CTX   *d = EVP_MD_CTX_new();

    if (d != NULL && EVP_DigestInit_ex(d, EVP_sha256(), NULL) == 1) {
        EVP_DigestUpdate(d, cert != NULL ? cert : "",
                         cert != NULL ? strlen(cert) + 1 : 1);
        EVP_DigestUpdate(d, key != NULL ? key : "",
                         key != NULL ? strlen(key) + 1 : 1);
        EVP_DigestUpdate(d, &cf->verify_client, sizeof(cf->verify_client));
        if (cf->client_certificate != NULL) {
            EVP_DigestUpdate(d, cf->client_certificate,
                             strlen(cf->client_certificate));
        }
        EVP_DigestFinal_ex(d, md, &n);
    }
    EVP_MD_CTX_free(d);
    if (n > SSL_MAX_SID_CTX_LENGTH) {
        n = SSL_MAX_SID_CTX_LENGTH;
    }
    SSL_CTX_set_session_id_context(
        ctx, n > 0 ? md : (const unsigned char *) "nicd", n > 0 ? n : 4);
    SSL_CTX_set_tlsext_ticket_keys(ctx, ticket_keys, sizeof(ticket_keys));
}

void
nicd_tls_set_eval(nicd_tls_eval_pt eval)
{
    tls_eval = eval;
}

/*
 * A server whose certificate names variables ($ssl_server_name.crt):
 * its certificates and keys are loaded at each handshake, as nginx's,
 * from the names the templates give for the connection.  1, or 0 (the
 * handshake fails; logged).
 */
static int
cert_cb(SSL *ssl, void *arg)
{
    const nicd_server_conf_t *sv = arg;
    nicd_conn_t              *c = SSL_get_app_data(ssl);
    nicd_buf_t                certs = {0}, keys = {0};
    const char               *cp, *kp;
    char                      cert[PATH_MAX], key[PATH_MAX], pw[1024];
    const char               *pws;
    int                       ok = 0;

    if (c == NULL || tls_eval == NULL || tls_eval(c, sv->cert_cv, &certs) != 0
        || tls_eval(c, sv->key_cv, &keys) != 0) {
        log_error(LOG_ERR, 0,
                  "the certificate of \"%s\" could not be named, "
                  "client: %s",
                  sv->cert, c != NULL ? c->addr : "?");
        goto done;
    }
    SSL_certs_clear(ssl);
    cp = certs.data;
    kp = keys.data;
    while (next_name(&cp, cert, sizeof(cert)) > 0) {
        if (next_name(&kp, key, sizeof(key)) == 0
            || SSL_use_certificate_chain_file(ssl, cert) != 1) {
            log_error(LOG_ERR, 0,
                      "cannot load certificate \"%s\": %s, "
                      "client: %s",
                      cert, nicd_tls_reason(), c->addr);
            goto done;
        }
        /* an encrypted key: the server's passphrases in turn */
        pws = sv->ssl != NULL ? sv->ssl->passwords : NULL;
        SSL_set_default_passwd_cb(ssl, passphrase);
        SSL_set_default_passwd_cb_userdata(ssl, NULL);
        ok = 0;
        do {
            if (pws != NULL && next_name(&pws, pw, sizeof(pw)) > 0) {
                SSL_set_default_passwd_cb_userdata(ssl, pw);
            }
            ok = SSL_use_PrivateKey_file(ssl, key, SSL_FILETYPE_PEM) == 1;
        } while (!ok && pws != NULL && *pws != '\0' && (ERR_clear_error(), 1));
        SSL_set_default_passwd_cb_userdata(ssl, NULL);
        OPENSSL_cleanse(pw, sizeof(pw));
        if (!ok) {
            log_error(LOG_ERR, 0,
                      "cannot load certificate key \"%s\": %s, "
                      "client: %s",
                      key, nicd_tls_reason(), c->addr);
            goto done;
        }
    }
    ok = 1;

done:
    nicd_buf_free(&certs);
    nicd_buf_free(&keys);
    return ok;
}

/* An SSL_CTX with the settings cf and the certificates cert (keys; NULL:
 * none, a server that rejects handshakes; dyn: a server whose names have
 * variables, loaded at each handshake): NULL with err naming the file
 * that failed. */
static SSL_CTX *
ctx_make(const nicd_ssl_conf_t *cf, const char *cert, const char *key,
         const nicd_server_conf_t *dyn, char *err, size_t errlen)
{
    SSL_CTX *ctx;
    int      bit, lo = 0, hi = 0;

    ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL) {
        snprintf(err, errlen, "SSL_CTX_new() failed: %s", nicd_tls_reason());
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

    if (dyn != NULL && dyn->cert_cv != NULL) {
        SSL_CTX_set_cert_cb(ctx, cert_cb, (void *) dyn);
    } else if (cert != NULL
               && load_certificates(ctx, cert, key, cf->passwords, err, errlen)
                      != 0) {
        goto err;
    }
    if (SSL_CTX_set_cipher_list(ctx, cf->ciphers) != 1) {
        snprintf(err, errlen, "ssl_ciphers \"%s\": %s", cf->ciphers,
                 nicd_tls_reason());
        goto err;
    }
    if (cf->dhparam != NULL) {
        BIO      *bio = BIO_new_file(cf->dhparam, "r");
        EVP_PKEY *dh = bio != NULL ? PEM_read_bio_Parameters(bio, NULL) : NULL;

        BIO_free(bio);
        if (dh == NULL || SSL_CTX_set0_tmp_dh_pkey(ctx, dh) != 1) {
            EVP_PKEY_free(dh);
            snprintf(err, errlen, "cannot load ssl_dhparam \"%s\": %s",
                     cf->dhparam, nicd_tls_reason());
            goto err;
        }
    } else {
        SSL_CTX_set_dh_auto(ctx, 1);
    }
    if (cf->ecdh_curve != NULL && strcmp(cf->ecdh_curve, "auto") != 0
        && SSL_CTX_set1_groups_list(ctx, cf->ecdh_curve) != 1) {
        snprintf(err, errlen, "ssl_ecdh_curve \"%s\": %s", cf->ecdh_curve,
                 nicd_tls_reason());
        goto err;
    }
    session_context(ctx, cert, key, cf);
    SSL_CTX_set_timeout(ctx, cf->session_timeout / 1000);
    if (cf->session_cache > 0) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_sess_set_cache_size(ctx, cf->session_cache);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
    if (cf->verify_client != NICD_VERIFY_OFF
        && client_verification(ctx, cf, err, errlen) != 0) {
        goto err;
    }
    return ctx;

err:
    SSL_CTX_free(ctx);
    return NULL;
}

/*
 * The SSL_CTXs of a configuration, as nginx chooses among them: a
 * connection starts with the one of the default server of the address it
 * came to (one SSL_CTX each "listen ... ssl"), and the name its client
 * sends (SNI) picks a server among those of that address: its own
 * SSL_CTX when it has a certificate of its own, else the default's, and
 * no handshake at all (alert unrecognized_name) when it says
 * ssl_reject_handshake, as the default server does for a client that
 * names none or names no server there.  Each address' table hangs on its
 * SSL_CTX (ex_data) and is freed with it; the names are copies, as a
 * connection may outlive its configuration.  The session cache and
 * ticket keys are those of the SSL_CTX the connection started with.
 */
typedef struct {
    char    *name;   /* the server_name, as written */
    void    *re;     /* a "~" name compiled (pcre2_code, its own copy) */
    SSL_CTX *ctx;    /* a reference of its own; NULL: stay */
    int      reject; /* its server rejects handshakes */
} sni_name_t;

typedef struct {
    sni_name_t *names;
    int         n;
    int         reject; /* the default server rejects: no name, or none
                           of the address' servers named */
} sni_t;

/* every "listen ... ssl" address' SSL_CTX (NULL: not ssl), by index */
typedef struct {
    SSL_CTX **ctx;
    int       n;
} tls_set_t;

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

/* how well name i of sni matches host: 0 not at all, a regex below every
 * exact or wildcard name (nginx's order) */
static size_t
sni_quality(const sni_name_t *nm, const char *host, size_t len)
{
    pcre2_match_data *md;
    size_t            q;

    if (nm->re == NULL) {
        q = nicd_server_name_match(nm->name, host, len);
        return q > 0 ? q + 1 : 0;
    }
    md = pcre2_match_data_create_from_pattern(nm->re, NULL);
    q = md != NULL
        && pcre2_match(nm->re, (PCRE2_SPTR) host, len, 0, 0, md, NULL) >= 0;
    pcre2_match_data_free(md);
    return q;
}

static int
sni_select(SSL *ssl, int *alert, void *arg)
{
    const sni_t      *sni = arg;
    const char       *host = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    const sni_name_t *best = NULL;
    size_t            len, q, bestq = 0;
    int               i;

    if (host != NULL && sni != NULL) {
        len = strlen(host);
        for (i = 0; i < sni->n; i++) {
            /* exact, then wildcards, then the first regex that matches */
            q = sni_quality(&sni->names[i], host, len);
            if (q > bestq) {
                bestq = q;
                best = &sni->names[i];
            }
        }
    }
    if (best == NULL ? sni != NULL && sni->reject : best->reject) {
        *alert = SSL_AD_UNRECOGNIZED_NAME;
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    if (best != NULL && best->ctx != NULL
        && best->ctx != SSL_get_SSL_CTX(ssl)) {
        SSL_set_SSL_CTX(ssl, best->ctx);
        /* the chosen server's options (tickets, cipher preference) too;
         * the protocol is the default server's, as in nginx */
        SSL_clear_options(ssl, SSL_get_options(ssl)
                                   & ~SSL_CTX_get_options(best->ctx));
        SSL_set_options(ssl, SSL_CTX_get_options(best->ctx));
    }
    return SSL_TLSEXT_ERR_OK;
}

/* sv's certificate and key: its own, else the configuration's default */
static void
cert_of(const nicd_conf_t *cf, const nicd_server_conf_t *sv, const char **cert,
        const char **key)
{
    *cert = sv->cert != NULL ? sv->cert : cf->ssl_certificate;
    *key = sv->cert != NULL ? sv->key : cf->ssl_certificate_key;
    if (sv->cert == NULL && sv->ssl != NULL && sv->ssl->reject_handshake) {
        *cert = *key = NULL; /* it shows none */
    }
}

/* the settings that go with the default certificate, which a default
 * server without one of its own shows (nginx refuses such a server; nicd
 * lends it the first certificate): those of the first server that has it,
 * else the http level's */
static const nicd_ssl_conf_t *
lender(const nicd_conf_t *cf)
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

/* the SSL_CTX a server switches to by SNI, made once for all servers
 * with the same certificate and settings (made, by server index; the
 * caller's reference): NULL with err, or with *none for a server that
 * stays with its address' */
static SSL_CTX *
server_ctx(const nicd_conf_t *cf, const nicd_server_conf_t *sv, SSL_CTX **made,
           char *err, size_t errlen)
{
    int i;

    for (i = 0; i < cf->nservers; i++) {
        const nicd_server_conf_t *o = cf->servers[i];

        if (made[i] != NULL && strcmp(o->cert, sv->cert) == 0
            && strcmp(o->key, sv->key) == 0 && o->ssl == sv->ssl) {
            return made[i];
        }
    }
    made[sv->index] = ctx_make(sv->ssl, sv->cert, sv->key, sv, err, errlen);
    return made[sv->index];
}

/* the SSL_CTX of "listen ... ssl" li: its default server's certificate
 * and settings, and the table of its servers' names: NULL with err */
static SSL_CTX *
listen_ctx(const nicd_conf_t *cf, int li, SSL_CTX **made, char *err,
           size_t errlen)
{
    nicd_server_conf_t *const *list = cf->listen_servers[li];
    const nicd_server_conf_t  *d = list[0], *sv;
    const char                *cert, *key;
    SSL_CTX                   *ctx, *sctx;
    sni_t                     *sni;
    int                        i, k, total = 0;

    cert_of(cf, d, &cert, &key);
    ctx = ctx_make(d->cert == NULL && cert != NULL ? lender(cf) : d->ssl, cert,
                   key, d, err, errlen);
    if (ctx == NULL) {
        return NULL;
    }
    for (i = 0; i < cf->listen_nservers[li]; i++) {
        total += list[i]->nnames;
    }
    sni = calloc(1, sizeof(*sni));
    if (sni == NULL
        || (total > 0
            && (sni->names = calloc((size_t) total, sizeof(sni_name_t)))
                   == NULL)
        || SSL_CTX_set_ex_data(ctx, sni_index, sni) != 1) {
        snprintf(err, errlen, "out of memory");
        if (sni != NULL) {
            free(sni->names);
        }
        free(sni);
        SSL_CTX_free(ctx);
        return NULL;
    }
    /* from here on sni is freed with ctx */
    sni->reject = d->ssl->reject_handshake;
    for (i = 0; i < cf->listen_nservers[li]; i++) {
        sv = list[i];
        sctx = NULL;
        if (sv != d && sv->cert != NULL
            && !(strcmp(sv->cert, cert != NULL ? cert : "") == 0
                 && strcmp(sv->key, key) == 0 && sv->ssl == d->ssl)) {
            sctx = server_ctx(cf, sv, made, err, errlen);
            if (sctx == NULL) {
                SSL_CTX_free(ctx);
                return NULL;
            }
        }
        for (k = 0; k < sv->nnames; k++) {
            sni_name_t *nm = &sni->names[sni->n];

            if ((nm->name = strdup(sv->names[k])) == NULL) {
                snprintf(err, errlen, "out of memory");
                SSL_CTX_free(ctx);
                return NULL;
            }
            if (sv->names[k][0] == '~') {
                int        ec;
                PCRE2_SIZE off;

                nm->re = pcre2_compile((PCRE2_SPTR) sv->names[k] + 1,
                                       PCRE2_ZERO_TERMINATED, PCRE2_CASELESS,
                                       &ec, &off, NULL);
            }
            if (sctx != NULL) {
                SSL_CTX_up_ref(sctx);
                nm->ctx = sctx;
            }
            nm->reject = sv->ssl->reject_handshake;
            sni->n++;
        }
    }
    SSL_CTX_set_tlsext_servername_callback(ctx, sni_select);
    SSL_CTX_set_tlsext_servername_arg(ctx, sni);
    return ctx;
}

void
nicd_tls_ctx_free(void *p)
{
    tls_set_t *set = p;
    int        i;

    if (set == NULL) {
        return;
    }
    for (i = 0; i < set->n; i++) {
        SSL_CTX_free(set->ctx[i]);
    }
    free(set->ctx);
    free(set);
}

void *
nicd_tls_ctx_new(const nicd_conf_t *cf, char *err, size_t errlen)
{
    tls_set_t *set = calloc(1, sizeof(*set));
    SSL_CTX  **made = calloc((size_t) cf->nservers + 1, sizeof(*made));
    int        i;

    if (sni_index < 0) {
        /* configurations are read by the main thread only */
        sni_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, sni_free);
    }
    if (set == NULL || made == NULL || sni_index < 0
        || (set->ctx = calloc((size_t) cf->nlistens, sizeof(SSL_CTX *)))
               == NULL) {
        snprintf(err, errlen, "out of memory");
        free(made);
        nicd_tls_ctx_free(set);
        return NULL;
    }
    set->n = cf->nlistens;
    if (RAND_bytes(ticket_keys, sizeof(ticket_keys)) != 1) {
        snprintf(err, errlen, "RAND_bytes() failed: %s", nicd_tls_reason());
        nicd_tls_ctx_free(set);
        free(made);
        return NULL;
    }
    for (i = 0; i < cf->nlistens; i++) {
        if (cf->listens[i].ssl
            && (set->ctx[i] = listen_ctx(cf, i, made, err, errlen)) == NULL) {
            nicd_tls_ctx_free(set);
            set = NULL;
            break;
        }
    }
    for (i = 0; i < cf->nservers; i++) {
        SSL_CTX_free(made[i]); /* the names hold their own references */
    }
    free(made);
    return set;
}

void *
nicd_tls_ctx_of(const void *p, int li)
{
    const tls_set_t *set = p;

    return set != NULL && li >= 0 && li < set->n ? set->ctx[li] : NULL;
}

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

void *
nicd_tls_ctx_of(const void *set, int li)
{
    (void) set;
    (void) li;
    return NULL;
}

void
nicd_tls_set_eval(nicd_tls_eval_pt eval)
{
    (void) eval;
}

#endif
