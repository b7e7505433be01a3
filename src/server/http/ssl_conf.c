/*
 * The TLS settings (nginx's ngx_http_ssl_module): certificates,
 * protocols, ciphers and the session cache, in http {} and per server,
 * checked once the configuration is read.  The TLS I/O that uses them is core/tls.c.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/conf/directive.h"
#include "server/core/tls_ctx.h"
#include "server/http/lookup.h"
#include "server/http/variables.h"

/* the settings a directive writes: the server {} block's own (made on
 * its first ssl_* line, every field unset), else the http level's */
static nicd_ssl_conf_t *
target(parse_t *ps)
{
    nicd_ssl_conf_t *s;

    if (ps->srv == NULL) {
        return &ps->conf->ssl;
    }
    if (ps->srv->ssl == NULL) {
        s = nicd_conf_alloc(ps->conf, sizeof(*s));
        if (s == NULL) {
            return NULL;
        }
        s->protocols = s->prefer_server_ciphers = s->session_tickets =
            s->reject_handshake = s->verify_client = s->verify_depth =
                NICD_UNSET;
        s->session_cache = s->session_timeout = NICD_UNSET;
        ps->srv->ssl = s;
    }
    return ps->srv->ssl;
}

static const char *
set_ssl_protocols(parse_t *ps, const char **a, int n)
{
    nicd_ssl_conf_t *t = target(ps);
    static const struct {
        const char *name;
        int         bit;
    } names[] = {{"TLSv1", NICD_TLS_1_0},
                 {"TLSv1.1", NICD_TLS_1_1},
                 {"TLSv1.2", NICD_TLS_1_2},
                 {"TLSv1.3", NICD_TLS_1_3}};
    int i, k, bits = 0;

    for (i = 0; i < n; i++) {
        for (k = 0; k < 4 && strcmp(a[i], names[k].name) != 0; k++) {
        }
        if (k == 4) {
            return nicd_conf_msg(
                "unknown protocol \"%s\" (TLSv1, TLSv1.1, TLSv1.2, "
                "TLSv1.3)",
                a[i]);
        }
        bits |= names[k].bit;
    }
    if (t == NULL) {
        return "out of memory";
    }
    t->protocols = bits;
    return NULL;
}

/*
 * ssl_session_cache off | none | builtin[:SIZE] | shared:NAME:SIZE ...
 * One SSL_CTX serves every worker thread, so OpenSSL's own cache is
 * already shared: "builtin" and "shared" both size it (shared's SIZE in
 * bytes, about 4,000 sessions a megabyte as in nginx).
 */
static const char *
set_ssl_session_cache(parse_t *ps, const char **a, int n)
{
    nicd_ssl_conf_t *t = target(ps);
    int              i;
    long             sessions = 0, v;
    char            *end;
    const char      *colon;
    size_t           bytes = 0;

    for (i = 0; i < n; i++) {
        if (strcmp(a[i], "off") == 0 || strcmp(a[i], "none") == 0) {
            continue;
        }
        if (strcmp(a[i], "builtin") == 0) {
            sessions += 20480;
        } else if (strncmp(a[i], "builtin:", 8) == 0) {
            v = strtol(a[i] + 8, &end, 10);
            if (a[i][8] == '\0' || *end != '\0' || v <= 0) {
                return nicd_conf_msg("invalid session cache \"%s\"", a[i]);
            }
            sessions += v;
        } else if (strncmp(a[i], "shared:", 7) == 0
                   && (colon = strchr(a[i] + 7, ':')) != NULL
                   && colon > a[i] + 7) {
            if (nicd_conf_size(colon + 1, &bytes) != NULL || bytes == 0) {
                return nicd_conf_msg("invalid session cache \"%s\"", a[i]);
            }
            sessions += (long) (bytes / 256);
        } else {
            return nicd_conf_msg("invalid session cache \"%s\"", a[i]);
        }
    }
    if (t == NULL) {
        return "out of memory";
    }
    t->session_cache = sessions;
    return NULL;
}

/* ssl_ciphers, ssl_dhparam, ssl_ecdh_curve: a string of the level at
 * hand (the directive's offset in nicd_ssl_conf_t) */
static const char *
set_ssl_string(parse_t *ps, const char **a, int n)
{
    nicd_ssl_conf_t *t = target(ps);
    const char     **dst;

    (void) n;
    if (t == NULL) {
        return "out of memory";
    }
    dst = (const char **) (void *) ((char *) t + ps->d->offset);
    *dst = nicd_conf_strdup(ps->conf, a[0]);
    return *dst == NULL ? "out of memory" : NULL;
}

/* ssl_client_certificate, ssl_trusted_certificate, ssl_crl: a file of
 * CA certificates (or revocation lists), read when the configuration's
 * TLS contexts are made; one that cannot be read fails -t already */
static const char *
set_ssl_file(parse_t *ps, const char **a, int n)
{
    FILE *f = fopen(a[0], "r");

    if (f == NULL) {
        return nicd_conf_msg("cannot read \"%s\": %s", a[0], strerror(errno));
    }
    fclose(f);
    return set_ssl_string(ps, a, n);
}

static const char *
set_ssl_verify_client(parse_t *ps, const char **a, int n)
{
    static const nicd_conf_enum_t modes[] = {
        {"off", NICD_VERIFY_OFF},
        {"on", NICD_VERIFY_ON},
        {"optional", NICD_VERIFY_OPTIONAL},
        {"optional_no_ca", NICD_VERIFY_OPTIONAL_NO_CA},
        {NULL, 0}};
    nicd_ssl_conf_t *t = target(ps);
    int              i;

    (void) n;
    if (t == NULL) {
        return "out of memory";
    }
    for (i = 0; modes[i].name != NULL; i++) {
        if (strcmp(a[0], modes[i].name) == 0) {
            t->verify_client = modes[i].value;
            return NULL;
        }
    }
    return nicd_conf_msg("invalid value \"%s\", it must be \"off\", \"on\", "
                         "\"optional\" or \"optional_no_ca\"",
                         a[0]);
}

static const char *
set_ssl_verify_depth(parse_t *ps, const char **a, int n)
{
    nicd_ssl_conf_t *t = target(ps);

    (void) n;
    if (t == NULL) {
        return "out of memory";
    }
    return nicd_conf_positive(a[0], &t->verify_depth);
}

/* ssl_password_file FILE: its lines, the passphrases tried in turn for
 * encrypted keys; read now, as nginx reads it */
static const char *
set_ssl_password_file(parse_t *ps, const char **a, int n)
{
    nicd_ssl_conf_t *t = target(ps);
    FILE            *f;
    char            *text, *p;
    long             size;

    (void) n;
    if (t == NULL) {
        return "out of memory";
    }
    if (t->passwords != NULL) {
        return "is duplicate";
    }
    f = fopen(a[0], "r");
    if (f == NULL) {
        return nicd_conf_msg("cannot open \"%s\": %s", a[0], strerror(errno));
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0
        || fseek(f, 0, SEEK_SET) != 0
        || (text = nicd_conf_alloc(ps->conf, (size_t) size + 1)) == NULL
        || fread(text, 1, (size_t) size, f) != (size_t) size) {
        fclose(f);
        return nicd_conf_msg("cannot read \"%s\"", a[0]);
    }
    fclose(f);
    text[size] = '\0';
    /* CRLF or LF between lines; the last one's end is not a passphrase */
    for (p = text; *p != '\0'; p++) {
        if (*p == '\r' && p[1] == '\n') {
            memmove(p, p + 1, strlen(p + 1) + 1);
        }
    }
    while (size > 0 && (text[size - 1] == '\n' || text[size - 1] == '\r')) {
        text[--size] = '\0';
    }
    if (size == 0) {
        return nicd_conf_msg("empty password file \"%s\"", a[0]);
    }
    t->passwords = text;
    return NULL;
}

/* ssl_prefer_server_ciphers, ssl_session_tickets: on or off */
static const char *
set_ssl_flag(parse_t *ps, const char **a, int n)
{
    nicd_ssl_conf_t *t = target(ps);

    (void) n;
    if (t == NULL) {
        return "out of memory";
    }
    return nicd_conf_flag(a[0],
                          strcmp(ps->d->name, "ssl_session_tickets") == 0
                              ? &t->session_tickets
                          : strcmp(ps->d->name, "ssl_reject_handshake") == 0
                              ? &t->reject_handshake
                              : &t->prefer_server_ciphers);
}

static const char *
set_ssl_session_timeout(parse_t *ps, const char **a, int n)
{
    nicd_ssl_conf_t *t = target(ps);

    (void) n;
    if (t == NULL) {
        return "out of memory";
    }
    return nicd_conf_time(a[0], &t->session_timeout);
}

/* in a server {} block: that block's certificate (SNI); elsewhere the
 * http-level one, which blocks without their own inherit.  Several lines
 * (an ECDSA and an RSA certificate, say) add up, as nginx's: the list is
 * kept as the names joined by newlines, the n-th key for the n-th
 * certificate (tls.c loads each pair) */
static const char *
set_ssl_certificate(parse_t *ps, const char **a, int n)
{
    int    key = strcmp(ps->d->name, "ssl_certificate_key") == 0;
    char **dst, *joined;
    size_t len;

    (void) n;
    if (strchr(a[0], '\n') != NULL) {
        return nicd_conf_msg("invalid file name \"%s\"", a[0]);
    }
    if (ps->srv != NULL) {
        dst = key ? &ps->srv->key : &ps->srv->cert;
    } else {
        dst = key ? &ps->conf->ssl_certificate_key : &ps->conf->ssl_certificate;
    }
    if (*dst == NULL) {
        joined = nicd_conf_strdup(ps->conf, a[0]);
    } else {
        len = strlen(*dst) + 1 + strlen(a[0]) + 1;
        joined = nicd_conf_alloc(ps->conf, len);
        if (joined != NULL) {
            snprintf(joined, len, "%s\n%s", *dst, a[0]);
        }
    }
    if (joined == NULL) {
        return "out of memory";
    }
    if (ps->srv == NULL) {
        /* the http level's strings are the configuration's (freed with
         * it, conf.c) */
        return nicd_conf_str(dst, joined);
    }
    *dst = joined;
    return NULL;
}

/* how many names a joined list holds */
static int
names(const char *list)
{
    int n = 1;

    while ((list = strchr(list, '\n')) != NULL) {
        list++;
        n++;
    }
    return n;
}

/*
 * Each server's certificate and key: its own, else the http-level ones;
 * with none at http level, the first server with a certificate gives the
 * default one (clients without SNI, or naming no server), as nginx's
 * first server is the default of its listen.  NULL, or a message.
 */
static const char *
finish_certificates(nicd_conf_t *c)
{
    nicd_server_conf_t *sv;
    int                 i;

    for (i = 0; i < c->nservers; i++) {
        sv = c->servers[i];
        if (sv->cert == NULL) {
            sv->cert = c->ssl_certificate;
        }
        if (sv->key == NULL) {
            sv->key = c->ssl_certificate_key;
        }
        if (c->nssl > 0 && sv->cert != NULL
            && (sv->key == NULL || names(sv->key) < names(sv->cert))) {
            return nicd_conf_msg(
                "no \"ssl_certificate_key\" is defined for certificate "
                "\"%s\" of the server block at %s",
                sv->cert, sv->where != NULL ? sv->where : "?");
        }
    }
    for (i = 0; i < c->nservers && c->ssl_certificate == NULL; i++) {
        sv = c->servers[i];
        if (sv->cert != NULL && sv->key != NULL
            && (nicd_conf_str(&c->ssl_certificate, sv->cert) != NULL
                || nicd_conf_str(&c->ssl_certificate_key, sv->key) != NULL)) {
            return "out of memory";
        }
    }
    return NULL;
}

/* each server's settings: what its block did not set, the http level's
 * (a block that set none shares them) */
static void
merge_settings(nicd_conf_t *c)
{
    const nicd_ssl_conf_t *h = &c->ssl;
    nicd_ssl_conf_t       *s;
    int                    i;

    for (i = 0; i < c->nservers; i++) {
        s = c->servers[i]->ssl;
        if (s == NULL) {
            c->servers[i]->ssl = &c->ssl;
            continue;
        }
        NICD_MERGE(s, h, protocols, 0);
        NICD_MERGE(s, h, prefer_server_ciphers, 0);
        NICD_MERGE(s, h, session_tickets, 0);
        NICD_MERGE(s, h, reject_handshake, 0);
        NICD_MERGE(s, h, session_cache, 0);
        NICD_MERGE(s, h, session_timeout, 0);
        NICD_MERGE_PTR(s, h, ciphers, NULL);
        NICD_MERGE_PTR(s, h, dhparam, NULL);
        NICD_MERGE_PTR(s, h, ecdh_curve, NULL);
        NICD_MERGE_PTR(s, h, passwords, NULL);
        NICD_MERGE(s, h, verify_client, NICD_VERIFY_OFF);
        NICD_MERGE(s, h, verify_depth, 1);
        NICD_MERGE_PTR(s, h, client_certificate, NULL);
        NICD_MERGE_PTR(s, h, trusted_certificate, NULL);
        NICD_MERGE_PTR(s, h, crl, NULL);
    }
}

/* certificates and keys whose names have variables: compiled, to be
 * loaded at each handshake (tls_ctx.c) */
static const char *
compile_certificates(nicd_conf_t *c)
{
    nicd_server_conf_t *sv;
    const char         *err;
    int                 i;

    for (i = 0; i < c->nservers; i++) {
        sv = c->servers[i];
        if (sv->cert == NULL || sv->key == NULL
            || (strchr(sv->cert, '$') == NULL
                && strchr(sv->key, '$') == NULL)) {
            continue; /* loaded once, when the configuration is made */
        }
        sv->cert_cv = nicd_cv_compile(c, sv->cert, sv->where, &err);
        sv->key_cv = sv->cert_cv != NULL
                         ? nicd_cv_compile(c, sv->key, sv->where, &err)
                         : NULL;
        if (sv->key_cv == NULL) {
            return err;
        }
    }
    return NULL;
}

/* a certificate's names for a connection in its handshake: its
 * template evaluated as for a request without any header field, to the
 * default server of its address (nginx makes one such request too) */
static int
handshake_eval(nicd_conn_t *c, const void *cv, nicd_buf_t *out)
{
    nicd_request_t none;
    nicd_req_t     req, *saved = c->r;
    int            rc;

    memset(&none, 0, sizeof(none));
    memset(&req, 0, sizeof(req));
    none.method = NICD_M_GET;
    none.protocol = "HTTP/1.1";
    req.in = &none;
    req.srv =
        nicd_conf_find_server(c->w->cycle->conf, c->sc.listener, NULL, 0, NULL);
    req.loc = req.srv->loc;
    c->r = &req;
    nicd_vars_fresh(c->w);
    rc = nicd_cv_eval(c, cv, NULL, out);
    nicd_vars_fresh(c->w); /* nothing of it for the next request */
    c->r = saved;
    return rc;
}

static void
ssl_init(void)
{
    nicd_tls_set_eval(handshake_eval);
}

/* every server's certificate, and one for each "listen ... ssl" */
static const char *
ssl_postconfiguration(nicd_conf_t *c)
{
    const char *msg = finish_certificates(c);
    int         i;

    merge_settings(c);
    if (msg == NULL) {
        msg = compile_certificates(c);
    }

    if (msg != NULL || c->nssl == 0) {
        return msg;
    }
    for (i = 0; i < c->nservers; i++) {
        const nicd_ssl_conf_t *t = c->servers[i]->ssl;

        if ((t->verify_client == NICD_VERIFY_ON
             || t->verify_client == NICD_VERIFY_OPTIONAL)
            && t->client_certificate == NULL
            && t->trusted_certificate == NULL) {
            return nicd_conf_msg("no ssl_client_certificate or "
                                 "ssl_trusted_certificate for "
                                 "ssl_verify_client in the server block at %s",
                                 c->servers[i]->where != NULL
                                     ? c->servers[i]->where
                                     : "the top level");
        }
    }
    /* each address' default server shows a certificate (its own, or the
     * default one), unless it rejects every handshake */
    for (i = 0; i < c->nlistens; i++) {
        const nicd_server_conf_t *d = c->listen_servers[i][0];

        if (!c->listens[i].ssl || d->ssl->reject_handshake
            || (d->cert != NULL && d->key != NULL)
            || (c->ssl_certificate != NULL && c->ssl_certificate_key != NULL)) {
            continue;
        }
        return nicd_conf_msg("no \"ssl_certificate%s\" is defined for the "
                             "\"listen %s ssl\" directive in %s",
                             c->ssl_certificate == NULL ? "" : "_key",
                             c->listens[i].text, c->listens[i].where);
    }
    return NULL;
}

#define MHS (CTX_MAIN | CTX_HTTP | CTX_SRV)

static const directive_t ssl_directives[] = {
    {"ssl_certificate", CTX_TOP, 1, 1, set_ssl_certificate, 0},
    {"ssl_certificate_key", CTX_TOP, 1, 1, set_ssl_certificate, 0},
    {"ssl_protocols", MHS, 1, 4, set_ssl_protocols, 0},
    {"ssl_ciphers", MHS, 1, 1, set_ssl_string,
     offsetof(nicd_ssl_conf_t, ciphers)},
    {"ssl_prefer_server_ciphers", MHS, 1, 1, set_ssl_flag, 0},
    {"ssl_session_cache", MHS, 1, 3, set_ssl_session_cache, 0},
    {"ssl_session_timeout", MHS, 1, 1, set_ssl_session_timeout, 0},
    {"ssl_session_tickets", MHS, 1, 1, set_ssl_flag, 0},
    {"ssl_reject_handshake", MHS, 1, 1, set_ssl_flag, 0},
    {"ssl_dhparam", MHS, 1, 1, set_ssl_string,
     offsetof(nicd_ssl_conf_t, dhparam)},
    {"ssl_ecdh_curve", MHS, 1, 1, set_ssl_string,
     offsetof(nicd_ssl_conf_t, ecdh_curve)},
    {"ssl_trusted_certificate", MHS, 1, 1, set_ssl_file,
     offsetof(nicd_ssl_conf_t, trusted_certificate)},
    {"ssl_client_certificate", MHS, 1, 1, set_ssl_file,
     offsetof(nicd_ssl_conf_t, client_certificate)},
    {"ssl_crl", MHS, 1, 1, set_ssl_file, offsetof(nicd_ssl_conf_t, crl)},
    {"ssl_verify_client", MHS, 1, 1, set_ssl_verify_client, 0},
    {"ssl_verify_depth", MHS, 1, 1, set_ssl_verify_depth, 0},
    {"ssl_password_file", MHS, 1, 1, set_ssl_password_file, 0},
    /* nginx's housekeeping: nothing to do for nicd (docs/config.md) */
    {"ssl_session_ticket_key", MHS, 1, 1, nicd_conf_housekeeping, 0},
    {"ssl_stapling", CTX_TOP, 1, 1, nicd_conf_housekeeping, 0},
    {"ssl_stapling_verify", CTX_TOP, 1, 1, nicd_conf_housekeeping, 0},
    /* nicd looks no name up (OCSP stapling is not done, there is no
     * upstream yet): the Mozilla generator's "resolver" line is taken */
    {"resolver", CTX_TOP, 1, MAX_ARGS, nicd_conf_housekeeping, 0},
    {"resolver_timeout", CTX_TOP, 1, 1, nicd_conf_housekeeping, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_ssl_module = {
    .name = "ssl",
    .directives = ssl_directives,
    .postconfiguration = ssl_postconfiguration,
    .init = ssl_init,
};
