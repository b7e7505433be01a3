/*
 * The core's variables (variables.h): $uri, $host, $http_NAME, ... each a
 * getter of the request at hand, and their table (nginx's
 * ngx_http_core_variables).
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>

#include "server/conf/directive.h"
#include "server/http/variables.h"

/* ---- what the requests share ---- */

void
nicd_request_host(const nicd_request_t *r, const char **host, size_t *len)
{
    const char *h = r->hdr[NICD_HDR_HOST].p;
    size_t      n = r->hdr[NICD_HDR_HOST].len, i;

    if (h == NULL) {
        *host = NULL;
        *len = 0;
        return;
    }
    /* the port off: after a "[...]" literal, else from the first ':' */
    if (n > 0 && h[0] == '[') {
        for (i = 0; i < n && h[i] != ']'; i++) {
        }
        n = i < n ? i + 1 : n;
    } else {
        for (i = 0; i < n && h[i] != ':'; i++) {
        }
        n = i;
    }
    if (n > 0 && h[n - 1] == '.') {
        n--;
    }
    *host = h;
    *len = n;
}

/* the port of an IPv4 or IPv6 address (0: none, as a UNIX-domain
 * socket's) */
static unsigned
port_of(const struct sockaddr_storage *ss)
{
    if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6) {
        return 0;
    }
    return ss->ss_family == AF_INET6
               ? ntohs(((const struct sockaddr_in6 *) ss)->sin6_port)
               : ntohs(((const struct sockaddr_in *) ss)->sin_port);
}

unsigned
nicd_local_port(nicd_conn_t *c)
{
    struct sockaddr_storage ss;
    socklen_t               len = sizeof(ss);

    if (getsockname(c->sc.fd, (struct sockaddr *) &ss, &len) != 0) {
        return 0;
    }
    return port_of(&ss);
}

static const nicd_request_t *
req_of(nicd_conn_t *c, const nicd_vctx_t *x)
{
    return x != NULL && x->r != NULL ? x->r : c->r->in;
}

void
nicd_vctx_uri(nicd_conn_t *c, const nicd_vctx_t *x, const char **uri,
              size_t *len)
{
    if (x != NULL && x->uri != NULL) {
        *uri = x->uri;
        *len = x->ulen;
    } else if (c->r->uri != NULL) {
        *uri = c->r->uri;
        *len = c->r->uri_len;
    } else {
        *uri = req_of(c, x)->path.p;
        *len = req_of(c, x)->path.len;
    }
}

#define GETTER(name)                                                           \
    static int name(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v, \
                    const char *s, size_t slen, nicd_buf_t *b)
#define UNUSED_ARGS                                                            \
    (void) c;                                                                  \
    (void) x;                                                                  \
    (void) v;                                                                  \
    (void) s;                                                                  \
    (void) slen

GETTER(get_uri)
{
    const char *u;
    size_t      n;

    UNUSED_ARGS;
    nicd_vctx_uri(c, x, &u, &n);
    nicd_buf_add(b, u, n);
    return 0;
}

GETTER(get_request_uri)
{
    const nicd_request_t *r = req_of(c, x);
    const nicd_str_t     *p = r->main_path.p != NULL ? &r->main_path : &r->path;
    const nicd_str_t *q = r->main_path.p != NULL ? &r->main_query : &r->query;

    UNUSED_ARGS;
    nicd_buf_add(b, p->p, p->len);
    if (q->len > 0) {
        nicd_buf_add(b, "?", 1);
        nicd_buf_add(b, q->p, q->len);
    }
    return 0;
}

GETTER(get_args)
{
    const nicd_str_t *a = nicd_req_args(c, req_of(c, x));

    UNUSED_ARGS;
    nicd_buf_add(b, a->p, a->len);
    return 0;
}

GETTER(get_is_args)
{
    UNUSED_ARGS;
    if (nicd_req_args(c, req_of(c, x))->len > 0) {
        nicd_buf_add(b, "?", 1);
    }
    return 0;
}

static const char *
first_server_name(const nicd_conn_t *c)
{
    return c->r->srv != NULL && c->r->srv->nnames > 0 ? c->r->srv->names[0]
                                                      : "";
}

GETTER(get_host)
{
    const char *host;
    size_t      hlen;

    UNUSED_ARGS;
    nicd_request_host(req_of(c, x), &host, &hlen);
    if (host == NULL || hlen == 0) {
        host = first_server_name(c);
        hlen = strlen(host);
    }
    if (nicd_buf_reserve(b, hlen) == 0) {
        size_t i;

        for (i = 0; i < hlen; i++) { /* $host is lowercase (nginx) */
            b->data[b->len + i] = (char) tolower((unsigned char) host[i]);
        }
        b->len += hlen;
    }
    return 0;
}

GETTER(get_server_name)
{
    UNUSED_ARGS;
    nicd_buf_addf(b, "%s", first_server_name(c));
    return 0;
}

GETTER(get_scheme)
{
    UNUSED_ARGS;
    nicd_buf_addf(b, "%s", c->tp == &nicd_transport_tls ? "https" : "http");
    return 0;
}

GETTER(get_remote_addr)
{
    UNUSED_ARGS;
    nicd_buf_add(b, nicd_client(c), strlen(nicd_client(c)));
    return 0;
}

GETTER(get_server_port)
{
    unsigned port = nicd_local_port(c);

    UNUSED_ARGS;
    if (port > 0) { /* (a UNIX-domain socket has none: empty, as nginx) */
        nicd_buf_addf(b, "%u", port);
    }
    return 0;
}

GETTER(get_request_method)
{
    UNUSED_ARGS;
    nicd_buf_addf(b, "%s", nicd_http_method_name(req_of(c, x)->method));
    return 0;
}

GETTER(get_status)
{
    UNUSED_ARGS;
    nicd_buf_addf(b, "%03d", c->r->status);
    return 0;
}

/* $body_bytes_sent, $bytes_sent in a template: read when the response
 * starts (a header filter, access_log if=), before any byte went: 0 as
 * nginx's header filters see it; log_format counts what was sent */
GETTER(get_nothing_sent)
{
    UNUSED_ARGS;
    nicd_buf_add(b, "0", 1);
    return 0;
}

/* $sent_http_NAME: the field NAME of the response, once sent (in a
 * header filter, those before it; in the log, all) */
/* $sent_http_NAME: every field of that name the response sent, ", "
 * between (nginx's multi-valued fields, Cache-Control's three lines) */
GETTER(get_sent_http)
{
    UNUSED_ARGS;
    (void) nicd_sent_headers(c->r->sent, s, slen, b);
    return 0;
}

/* the fields named s of the request, joined as nginx (1.23 and later)
 * joins them: "; " between Cookie fields, ", " between others */
static void
request_header(const nicd_request_t *r, const char *s, size_t slen,
               nicd_buf_t *b)
{
    int k, n = 0;

    for (k = 0; k < r->nheaders; k++) {
        if (nicd_header_is(r->hname[k].p, r->hname[k].len, s, slen)) {
            if (n++ > 0) {
                nicd_buf_adds(b, slen == 6 && strncasecmp(s, "cookie", 6) == 0
                                     ? "; "
                                     : ", ");
            }
            nicd_buf_add(b, r->hvalue[k].p, r->hvalue[k].len);
        }
    }
}

/* $http_NAME, and $content_type, $content_length (v->data: the name) */
GETTER(get_http)
{
    UNUSED_ARGS;
    if (v->data != NULL) {
        s = v->data;
        slen = strlen(s);
    }
    request_header(req_of(c, x), s, slen, b);
    return 0;
}

/* $arg_NAME: the first NAME=VALUE of the query */
GETTER(get_arg)
{
    nicd_str_t value;

    UNUSED_ARGS;
    if (nicd_query_arg(nicd_req_args(c, req_of(c, x)), s, slen, &value)) {
        nicd_buf_add(b, value.p, value.len);
    }
    return 0;
}

/*
 * The user and password of an Authorization: Basic value, in buf (NUL
 * between them): the password, or NULL.
 */
const char *
nicd_basic_credentials(const nicd_str_t *v, char *buf, size_t len)
{
    size_t i = 0;
    int    n;
    char  *colon;

    if (v->p == NULL || v->len < 6 || strncasecmp(v->p, "Basic ", 6) != 0) {
        return NULL;
    }
    for (i = 6; i < v->len && v->p[i] == ' '; i++) {
    }
    if ((v->len - i) / 4 * 3 + 1 > len || (v->len - i) % 4 != 0) {
        return NULL;
    }
    n = nicd_base64_decode((unsigned char *) buf, v->p + i, v->len - i);
    if (n < 0) {
        return NULL;
    }
    buf[n] = '\0';
    if (strlen(buf) != (size_t) n) {
        return NULL; /* a NUL inside */
    }
    colon = strchr(buf, ':');
    if (colon == NULL) {
        return NULL;
    }
    *colon = '\0';
    return colon + 1;
}

/* $remote_user: the user of an Authorization: Basic field */
GETTER(get_remote_user)
{
    const nicd_request_t *r = req_of(c, x);
    char                  buf[1024];

    UNUSED_ARGS;
    if (nicd_basic_credentials(&r->hdr[NICD_HDR_AUTHORIZATION], buf,
                               sizeof(buf))
        != NULL) {
        nicd_buf_adds(b, buf);
    }
    return 0;
}

/* $cookie_NAME: NAME's value in the Cookie fields ("a=1; b=2") */
GETTER(get_cookie)
{
    const nicd_request_t *r = req_of(c, x);
    const char           *p, *end, *e;
    int                   k;

    UNUSED_ARGS;
    for (k = 0; k < r->nheaders; k++) {
        if (!nicd_header_is(r->hname[k].p, r->hname[k].len, "cookie", 6)) {
            continue;
        }
        p = r->hvalue[k].p;
        end = p + r->hvalue[k].len;
        while (p < end) {
            /* pairs are separated by ";" alone, as nginx reads them */
            while (p < end && (*p == ' ' || *p == ';')) {
                p++;
            }
            for (e = p; e < end && *e != ';'; e++) {
            }
            if ((size_t) (e - p) > slen && strncasecmp(p, s, slen) == 0
                && p[slen] == '=') {
                nicd_buf_add(b, p + slen + 1, (size_t) (e - p) - slen - 1);
                return 0;
            }
            p = e;
        }
    }
    return 0;
}

GETTER(get_server_protocol)
{
    const char *p = req_of(c, x)->protocol;

    UNUSED_ARGS;
    nicd_buf_addf(b, "%s", p != NULL ? p : "HTTP/1.1");
    return 0;
}

/* $http2: "h2" over TLS, "h2c" in clear text, "" for HTTP/1.x */
GETTER(get_http2)
{
    UNUSED_ARGS;
    if (c->h2 != NULL) {
        nicd_buf_addf(b, "%s", c->tp == &nicd_transport_tls ? "h2" : "h2c");
    }
    return 0;
}

GETTER(get_https)
{
    UNUSED_ARGS;
    if (c->tp == &nicd_transport_tls) {
        nicd_buf_add(b, "on", 2);
    }
    return 0;
}

/* $request_body: the body a handler read (a proxied location's, Lua's),
 * else empty */
GETTER(get_request_body)
{
    const nicd_request_t *r = req_of(c, x);

    UNUSED_ARGS;
    if (r->body.p != NULL) {
        nicd_buf_add(b, r->body.p, r->body.len);
    }
    return 0;
}

GETTER(get_request_length)
{
    UNUSED_ARGS;
    nicd_buf_addf(b, "%llu", (unsigned long long) req_of(c, x)->length);
    return 0;
}

/* the client's (v->data NULL: realip's for the request, else the peer's)
 * or the local (non-NULL) address of c */
static int
sockaddr_of(const nicd_conn_t *c, const nicd_var_t *v,
            struct sockaddr_storage *ss)
{
    socklen_t len = sizeof(*ss);

    if (v->data == NULL && c->r != NULL && c->r->peer != NULL) {
        *ss = c->r->peer->sa;
        return 0;
    }
    return v->data != NULL
               ? getsockname(c->sc.fd, (struct sockaddr *) ss, &len)
               : getpeername(c->sc.fd, (struct sockaddr *) ss, &len);
}

/* $remote_port, $server_port-like: the port of sockaddr_of() */
GETTER(get_remote_port)
{
    struct sockaddr_storage ss;

    UNUSED_ARGS;
    if (sockaddr_of(c, v, &ss) == 0
        && (ss.ss_family == AF_INET6 || ss.ss_family == AF_INET)
        && port_of(&ss) > 0) { /* (realip's without a port: none) */
        nicd_buf_addf(b, "%u", port_of(&ss));
    }
    return 0;
}

/* $binary_remote_addr: the address's 4 or 16 bytes */
GETTER(get_binary_remote_addr)
{
    struct sockaddr_storage ss;

    UNUSED_ARGS;
    if (sockaddr_of(c, v, &ss) != 0) {
        return 0;
    }
    if (ss.ss_family == AF_INET6) {
        nicd_buf_add(b, &((struct sockaddr_in6 *) &ss)->sin6_addr, 16);
    } else if (ss.ss_family == AF_INET) {
        nicd_buf_add(b, &((struct sockaddr_in *) &ss)->sin_addr, 4);
    } else if (ss.ss_family == AF_UNIX) {
        NICD_BUF_LIT(b, "unix:"); /* (nginx's: the address's text) */
    }
    return 0;
}

/* $server_addr: the address the connection came to */
/* an IPv4 or IPv6 address as text (IPv6 in brackets with url) */
static void
add_addr_text(const struct sockaddr_storage *ss, int url, nicd_buf_t *b)
{
    char text[INET6_ADDRSTRLEN];

    if (ss->ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) ss)->sin6_addr,
                  text, sizeof(text));
        nicd_buf_addf(b, url ? "[%s]" : "%s", text);
    } else if (ss->ss_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *) ss)->sin_addr, text,
                  sizeof(text));
        nicd_buf_adds(b, text);
    } else if (ss->ss_family == AF_UNIX) {
        /* "unix:" and the socket's path (nginx's ngx_sock_ntop) */
        const struct sockaddr_un *sun = (const struct sockaddr_un *) ss;

        nicd_buf_addf(b, "unix:%.*s", (int) sizeof(sun->sun_path),
                      sun->sun_path);
    }
}

GETTER(get_server_addr)
{
    struct sockaddr_storage ss;

    UNUSED_ARGS;
    if (sockaddr_of(c, v, &ss) == 0) {
        add_addr_text(&ss, 0, b);
    }
    return 0;
}

void
nicd_local_addr_url(nicd_conn_t *c, nicd_buf_t *b)
{
    struct sockaddr_storage ss;
    socklen_t               len = sizeof(ss);

    if (getsockname(c->sc.fd, (struct sockaddr *) &ss, &len) == 0) {
        add_addr_text(&ss, 1, b);
    }
}

GETTER(get_connection)
{
    UNUSED_ARGS;
    nicd_buf_addf(b, "%llu", (unsigned long long) c->number);
    return 0;
}

/* $connection_requests: this one included (counted as it began) */
GETTER(get_connection_requests)
{
    UNUSED_ARGS;
    nicd_buf_addf(b, "%d", c->nrequests);
    return 0;
}

/* seconds with milliseconds since since_ms (the loop's clock) */
static void
add_elapsed(nicd_conn_t *c, long since_ms, nicd_buf_t *b)
{
    long ms = nicd_worker_now_ms(c->w) - since_ms;

    if (ms < 0) {
        ms = 0;
    }
    nicd_buf_addf(b, "%ld.%03ld", ms / 1000, ms % 1000);
}

/* since the connection was accepted */
GETTER(get_connection_time)
{
    UNUSED_ARGS;
    add_elapsed(c, c->start_ms, b);
    return 0;
}

/* since the request's head came */
GETTER(get_request_time)
{
    UNUSED_ARGS;
    add_elapsed(c, req_of(c, x)->start_ms, b);
    return 0;
}

int
nicd_req_draw_id(nicd_conn_t *c)
{
    uint64_t *id = c->r->id;

    while (id[0] == 0 && id[1] == 0) {
        if (getrandom(id, 2 * sizeof(uint64_t), 0) != 2 * sizeof(uint64_t)
            && errno != EINTR) {
            log_error(LOG_ALERT, errno, "getrandom() failed, client: %s",
                      nicd_client(c));
            return -1;
        }
    }
    return 0;
}

/* $request_id: 32 hexadecimal digits, random, one a request (nginx's) */
GETTER(get_request_id)
{
    UNUSED_ARGS;
    if (c->r == NULL) {
        return 0; /* no request: empty */
    }
    if (nicd_req_draw_id(c) != 0) {
        return -1;
    }
    nicd_buf_addf(b, "%016llx%016llx", (unsigned long long) c->r->id[0],
                  (unsigned long long) c->r->id[1]);
    return 0;
}

GETTER(get_msec)
{
    struct timespec ts;

    UNUSED_ARGS;
    clock_gettime(CLOCK_REALTIME, &ts);
    nicd_buf_addf(b, "%lld.%03ld", (long long) ts.tv_sec, ts.tv_nsec / 1000000);
    return 0;
}

/* $ssl_protocol, $ssl_cipher, $ssl_server_name, $ssl_session_reused
 * (v->data: which, NICD_TLS_* + 1); empty without TLS */
GETTER(get_ssl)
{
    const char *s2 = nicd_tls_info(c, (int) (intptr_t) v->data - 1);

    UNUSED_ARGS;
    if (s2 != NULL) {
        nicd_buf_addf(b, "%s", s2);
    }
    return 0;
}

#define VOL         NICD_VAR_VOLATILE
#define TLS_INFO(k) ((const void *) (intptr_t) ((k) + 1))

/* $ssl_client_*, $ssl_session_id, $ssl_ciphers (v->data: which,
 * NICD_TLS_CLIENT_* + 1); empty without TLS or a certificate */
GETTER(get_ssl_client)
{
    UNUSED_ARGS;
    return nicd_tls_client_info(c, (int) (intptr_t) v->data - 1, b);
}

#define LOCAL ((const void *) 1)

const nicd_var_t nicd_core_vars[] = {
    {"uri", get_uri, VOL, NULL},
    {"document_uri", get_uri, VOL, NULL},
    {"request_uri", get_request_uri, 0, NULL},
    {"args", get_args, NICD_VAR_VOLATILE, NULL}, /* (rewrites set them) */
    {"query_string", get_args, NICD_VAR_VOLATILE, NULL},
    {"is_args", get_is_args, NICD_VAR_VOLATILE, NULL},
    {"host", get_host, 0, NULL},
    {"server_name", get_server_name, 0, NULL},
    {"scheme", get_scheme, 0, NULL},
    {"remote_addr", get_remote_addr, 0, NULL},
    {"server_port", get_server_port, 0, NULL},
    {"request_method", get_request_method, VOL, NULL},
    {"status", get_status, VOL, NULL},
    {"content_type", get_http, 0, "content_type"},
    {"content_length", get_http, 0, "content_length"},
    {"http_", get_http, NICD_VAR_PREFIX, NULL},
    {"arg_", get_arg, NICD_VAR_PREFIX | NICD_VAR_VOLATILE, NULL},
    {"cookie_", get_cookie, NICD_VAR_PREFIX, NULL},
    {"remote_user", get_remote_user, 0, NULL},
    {"sent_http_", get_sent_http, NICD_VAR_PREFIX | VOL, NULL},
    {"server_protocol", get_server_protocol, 0, NULL},
    {"http2", get_http2, 0, NULL},
    {"https", get_https, 0, NULL},
    {"request_length", get_request_length, 0, NULL},
    {"request_body", get_request_body, VOL, NULL},
    {"remote_port", get_remote_port, 0, NULL},
    {"binary_remote_addr", get_binary_remote_addr, 0, NULL},
    {"server_addr", get_server_addr, 0, LOCAL},
    {"connection", get_connection, 0, NULL},
    {"connection_requests", get_connection_requests, 0, NULL},
    {"connection_time", get_connection_time, VOL, NULL},
    {"msec", get_msec, VOL, NULL},
    {"request_id", get_request_id, 0, NULL},
    {"request_time", get_request_time, VOL, NULL},
    {"ssl_protocol", get_ssl, 0, TLS_INFO(NICD_TLS_PROTOCOL)},
    {"ssl_cipher", get_ssl, 0, TLS_INFO(NICD_TLS_CIPHER)},
    {"ssl_server_name", get_ssl, 0, TLS_INFO(NICD_TLS_SERVER_NAME)},
    {"ssl_session_reused", get_ssl, 0, TLS_INFO(NICD_TLS_REUSED)},
    {"ssl_curve", get_ssl, 0, TLS_INFO(NICD_TLS_CURVE)},
    {"ssl_curves", get_ssl, 0, TLS_INFO(NICD_TLS_CURVES)},
    {"ssl_session_id", get_ssl_client, 0, TLS_INFO(NICD_TLS_SESSION_ID)},
    {"ssl_ciphers", get_ssl_client, 0, TLS_INFO(NICD_TLS_CIPHERS)},
    {"ssl_client_verify", get_ssl_client, 0, TLS_INFO(NICD_TLS_CLIENT_VERIFY)},
    {"ssl_client_s_dn", get_ssl_client, 0, TLS_INFO(NICD_TLS_CLIENT_S_DN)},
    {"ssl_client_i_dn", get_ssl_client, 0, TLS_INFO(NICD_TLS_CLIENT_I_DN)},
    {"ssl_client_s_dn_legacy", get_ssl_client, 0,
     TLS_INFO(NICD_TLS_CLIENT_S_DN_LEGACY)},
    {"ssl_client_i_dn_legacy", get_ssl_client, 0,
     TLS_INFO(NICD_TLS_CLIENT_I_DN_LEGACY)},
    {"ssl_client_serial", get_ssl_client, 0, TLS_INFO(NICD_TLS_CLIENT_SERIAL)},
    {"ssl_client_fingerprint", get_ssl_client, 0,
     TLS_INFO(NICD_TLS_CLIENT_FINGERPRINT)},
    {"ssl_client_cert", get_ssl_client, 0, TLS_INFO(NICD_TLS_CLIENT_CERT)},
    {"ssl_client_raw_cert", get_ssl_client, 0,
     TLS_INFO(NICD_TLS_CLIENT_RAW_CERT)},
    {"ssl_client_escaped_cert", get_ssl_client, 0,
     TLS_INFO(NICD_TLS_CLIENT_ESCAPED_CERT)},
    {"ssl_client_v_start", get_ssl_client, 0,
     TLS_INFO(NICD_TLS_CLIENT_V_START)},
    {"ssl_client_v_end", get_ssl_client, 0, TLS_INFO(NICD_TLS_CLIENT_V_END)},
    {"ssl_client_v_remain", get_ssl_client, 0,
     TLS_INFO(NICD_TLS_CLIENT_V_REMAIN)},
    {"body_bytes_sent", get_nothing_sent, VOL, NULL},
    {"bytes_sent", get_nothing_sent, VOL, NULL},
    {NULL, NULL, 0, NULL},
};
