/*
 * The reverse proxy, as nginx's ngx_http_proxy_module (docs/config.md,
 * "Reverse proxy", lists its directives and variables): a location's
 * requests passed to an HTTP/1.x server or group (http/upstream.c), the
 * exchange and the response relayed by http/upstream_io.c.  This module
 * owns the directives, makes the request the upstream is sent (its URI
 * by proxy_pass' rules, its fields by proxy_set_header's) and rewrites
 * the Location and Refresh it answers with (proxy_redirect).  With
 * variables, proxy_pass' URL is made per request: its HOST a group or an
 * address (no name resolved at run time: 502, as nginx without a
 * resolver).  proxy_cache and kin: accepted with a warning, no cache.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/phases.h"
#include "server/http/redirect.h"
#include "server/http/upstream.h"
#include "server/http/variables.h"

typedef struct {
    char      *name; /* as written */
    size_t     len;
    nicd_cv_t *value; /* an empty value: the field is not sent */
} proxy_header_t;

/* proxy_redirect's rules */
typedef struct {
    nicd_cv_t *from; /* literal or with variables: a prefix, any case */
    void      *re;   /* or a regex (pcre2_code) */
    nicd_cv_t *to;
} proxy_redirect_t;

enum { REDIRECT_DEFAULT = 0, REDIRECT_OFF, REDIRECT_RULES };

typedef struct {
    nicd_upstream_conf_t u; /* the exchange's (http/upstream.h) */
    struct { /* proxy_pass: a group (static URL), or a URL with variables */
        nicd_upstream_t       *upstream;
        nicd_cv_t             *url;
        char                  *host, *uri; /* $proxy_host; the URI, or NULL */
        char                  *whole;      /* as written, for proxy_redirect */
        const nicd_loc_conf_t *loc;        /* the location it stands in */
    } t; /* (merged: a limit_except block takes its location's) */

    proxy_header_t   *headers; /* proxy_set_header (NULL: unset) */
    int               nheaders;
    proxy_redirect_t *redirects;
    int               nredirects, redirect; /* REDIRECT_* (NICD_UNSET) */
    nicd_cv_t        *set_body, *method;
    int               body_set, method_set;

    int http_version; /* 10 or 11 */
    int pass_request_headers, pass_request_body;
} proxy_conf_t;

nicd_module_t nicd_proxy_module;

static inline const proxy_conf_t *
proxy_conf(const nicd_loc_conf_t *lc)
{
    return NICD_LOC_CONF(lc, nicd_proxy_module);
}

/* a worker's: the target of the request being made ($proxy_host) */
typedef struct {
    nicd_buf_t host, port, url, tmp;
    int        active;
} proxy_worker_t;

static int proxy_redirect(nicd_conn_t *c, const void *owner, const char *v,
                          size_t len, nicd_buf_t *b);

static void *
create_conf(nicd_conf_t *c)
{
    proxy_conf_t *p = nicd_conf_alloc(c, sizeof(*p));

    if (p == NULL) {
        return NULL;
    }
    p->redirect = NICD_UNSET;
    p->http_version = NICD_UNSET;
    p->pass_request_headers = p->pass_request_body = NICD_UNSET;
    p->u.intercept_errors = p->u.ignore_client_abort = NICD_UNSET;
    p->u.next_upstream = NICD_UNSET;
    p->u.next_tries = NICD_UNSET;
    p->u.next_timeout = p->u.connect_timeout = NICD_UNSET;
    p->u.send_timeout = p->u.read_timeout = NICD_UNSET;
    p->u.buffering = p->u.request_buffering = p->u.nbuffers = NICD_UNSET;
    p->u.buffer_size = p->u.buffers_size = (size_t) NICD_UNSET;
    p->u.max_temp_file_size = p->u.busy_buffers_size = (size_t) NICD_UNSET;
    p->u.socket_keepalive = NICD_UNSET;
    p->u.ignore_headers = NICD_UNSET;
    return p;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev_, void *conf_)
{
    const proxy_conf_t *prev = prev_;
    proxy_conf_t       *conf = conf_;

    (void) c;
    if (conf->t.whole == NULL && prev != NULL) {
        conf->t = prev->t;
    }
    NICD_MERGE_LIST(conf, prev, headers, nheaders);
    NICD_MERGE_LIST(conf, prev, u.hide, u.nhide);
    NICD_MERGE_LIST(conf, prev, u.pass, u.npass);
    if (conf->redirect == NICD_UNSET) {
        conf->redirect = prev != NULL ? prev->redirect : REDIRECT_DEFAULT;
        if (prev != NULL) {
            conf->redirects = prev->redirects;
            conf->nredirects = prev->nredirects;
        }
    }
    if (!conf->body_set && prev != NULL) {
        conf->set_body = prev->set_body;
        conf->body_set = prev->body_set;
    }
    if (!conf->method_set && prev != NULL) {
        conf->method = prev->method;
        conf->method_set = prev->method_set;
    }
    NICD_MERGE(conf, prev, http_version, 10);
    NICD_MERGE(conf, prev, pass_request_headers, 1);
    NICD_MERGE(conf, prev, pass_request_body, 1);
    NICD_MERGE(conf, prev, u.intercept_errors, 0);
    NICD_MERGE(conf, prev, u.ignore_client_abort, 0);
    NICD_MERGE(conf, prev, u.next_upstream, NICD_FT_ERROR | NICD_FT_TIMEOUT);
    NICD_MERGE(conf, prev, u.next_tries, 0);
    NICD_MERGE(conf, prev, u.next_timeout, 0);
    NICD_MERGE(conf, prev, u.connect_timeout, 60000);
    NICD_MERGE(conf, prev, u.send_timeout, 60000);
    NICD_MERGE(conf, prev, u.read_timeout, 60000);
    NICD_MERGE(conf, prev, u.buffering, 1);
    NICD_MERGE(conf, prev, u.request_buffering, 1);
    NICD_MERGE(conf, prev, u.nbuffers, 8);
    NICD_MERGE_SIZE(conf, prev, u.buffer_size, 4096);
    NICD_MERGE_SIZE(conf, prev, u.buffers_size, 4096);
    NICD_MERGE_SIZE(conf, prev, u.max_temp_file_size,
                    (size_t) 1024 * 1024 * 1024);
    NICD_MERGE_SIZE(conf, prev, u.busy_buffers_size, 2 * conf->u.buffer_size);
    NICD_MERGE_PTR(conf, prev, u.temp_path, "/tmp");
    conf->u.rewrite = proxy_redirect;
    conf->u.owner = conf;
    NICD_MERGE(conf, prev, u.socket_keepalive, 0);
    NICD_MERGE(conf, prev, u.ignore_headers, 0);
    return NULL;
}

/* ---- the URI and the request ---- */

/* the upstream's URI (proxy_pass' rules; uri_moved: the whole) into b */
static void
upstream_uri(nicd_conn_t *c, const nicd_request_t *r, const proxy_conf_t *pc,
             const char *vuri, size_t vlen, int vars, nicd_buf_t *b)
{
    const nicd_req_t *q = c->r;
    const char       *uri = q->uri != NULL ? q->uri : r->path.p;
    size_t            len = q->uri != NULL ? q->uri_len : r->path.len;
    size_t            loc = 0;
    int unparsed = q->redirects <= 1 && q->uri == c->w->reqpath.data;
    const nicd_loc_conf_t *lc = pc->t.loc;

    b->len = 0;
    if (vars && vuri != NULL) {
        nicd_buf_add(b, vuri, vlen); /* as it is */
        return;
    }
    if (vuri == NULL && unparsed) {
        nicd_buf_add(b, r->path.p, r->path.len);
        if (r->query.p != NULL && r->query.len > 0) {
            nicd_buf_add(b, "?", 1);
            nicd_buf_add(b, r->query.p, r->query.len);
        }
        return;
    }
    if (vuri != NULL && !q->uri_moved && lc != NULL
        && (lc->kind == NICD_LOC_PREFIX || lc->kind == NICD_LOC_EXACT
            || lc->kind == NICD_LOC_NOREGEX)
        && len >= lc->name_len && strncmp(uri, lc->name, lc->name_len) == 0) {
        loc = lc->name_len;
    }
    if (vuri != NULL && !q->uri_moved) {
        nicd_buf_add(b, vuri, vlen);
    }
    nicd_buf_add_uri(b, uri + loc, len - loc);
    if (nicd_req_args(c, r)->len > 0) {
        nicd_buf_add(b, "?", 1);
        nicd_buf_add(b, nicd_req_args(c, r)->p, nicd_req_args(c, r)->len);
    }
}

/* the fields nginx sets itself, unless proxy_set_header does */
#define F(name)                                                                \
    {                                                                          \
        name, sizeof(name) - 1                                                 \
    }
static const struct {
    const char *name;
    size_t      len;
} own_fields[] = {
    F("Host"),
    F("Connection"),
    F("Proxy-Connection"),
    F("Content-Length"),
    F("Transfer-Encoding"),
    F("TE"),
    F("Keep-Alive"),
    F("Expect"),
    F("Upgrade"),
};
#undef F

static int
set_by_conf(const proxy_conf_t *pc, const char *name, size_t len)
{
    int i;

    for (i = 0; i < pc->nheaders; i++) {
        if (pc->headers[i].len == len
            && strncasecmp(pc->headers[i].name, name, len) == 0) {
            return 1;
        }
    }
    return 0;
}

static int
own_field(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < sizeof(own_fields) / sizeof(own_fields[0]); i++) {
        if (own_fields[i].len == len
            && strncasecmp(own_fields[i].name, name, len) == 0) {
            return 1;
        }
    }
    return 0;
}

static void
add_field(nicd_buf_t *b, const char *n, size_t nl, const char *v, size_t vl)
{
    nicd_buf_add(b, n, nl);
    NICD_BUF_LIT(b, ": ");
    nicd_buf_add(b, v, vl);
    NICD_BUF_LIT(b, "\r\n");
}

static int
proxy_request(nicd_conn_t *c, const nicd_request_t *r, const proxy_conf_t *pc,
              const char *uri, size_t ulen, nicd_buf_t *b)
{
    proxy_worker_t *pw = NICD_WORKER_CTX(c->w, nicd_proxy_module);
    nicd_buf_t     *v = &pw->tmp;
    nicd_str_t      body = {NULL, 0};
    int             i, has_host = 0, has_conn = 0;

    /* the request line */
    if (pc->method != NULL) {
        if (nicd_cv_eval(c, pc->method, NULL, v) != 0) {
            return -1;
        }
        nicd_buf_add(b, v->data, v->len);
    } else {
        nicd_buf_adds(b, r->method == NICD_M_HEAD && !pc->body_set
                             ? "HEAD"
                             : nicd_http_method_name(r->method));
    }
    nicd_buf_add(b, " ", 1);
    nicd_buf_add(b, uri, ulen);
    nicd_buf_adds(b,
                  pc->http_version == 11 ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");

    /* the body, and its length */
    if (pc->body_set) {
        if (nicd_cv_eval(c, pc->set_body, NULL, v) != 0) {
            return -1;
        }
        body.p = strndup(v->data, v->len); /* (v is used again below) */
        body.len = v->len;
        if (body.p == NULL) {
            return -1;
        }
    } else if (pc->pass_request_body && r->body.p != NULL) {
        body = r->body;
    }

    /* the fields proxy_set_header makes, then nginx's own */
    for (i = 0; i < pc->nheaders; i++) {
        const proxy_header_t *h = &pc->headers[i];

        if (nicd_cv_eval(c, h->value, NULL, v) != 0) {
            goto failed;
        }
        has_host |= h->len == 4 && strncasecmp(h->name, "Host", 4) == 0;
        has_conn |= h->len == 10 && strncasecmp(h->name, "Connection", 10) == 0;
        if (v->len > 0) {
            add_field(b, h->name, h->len, v->data, v->len);
        }
    }
    if (!has_host) {
        add_field(b, "Host", 4, pw->host.data, pw->host.len);
    }
    if (!has_conn) {
        add_field(b, "Connection", 10, "close", 5);
    }
    if (body.p != NULL && !set_by_conf(pc, "Content-Length", 14)) {
        nicd_buf_adds(b, "Content-Length: ");
        nicd_buf_add_u64(b, body.len);
        NICD_BUF_LIT(b, "\r\n");
    }
    /* the client's, but those above */
    for (i = 0; pc->pass_request_headers && i < r->nheaders; i++) {
        if (own_field(r->hname[i].p, r->hname[i].len)
            || set_by_conf(pc, r->hname[i].p, r->hname[i].len)) {
            continue;
        }
        add_field(b, r->hname[i].p, r->hname[i].len, r->hvalue[i].p,
                  r->hvalue[i].len);
    }
    NICD_BUF_LIT(b, "\r\n");
    if (body.p != NULL) {
        nicd_buf_add(b, body.p, body.len);
    }
    if (pc->body_set) {
        free((char *) body.p);
    }
    return nicd_buf_failed(b) ? -1 : 0;

failed:
    if (pc->body_set) {
        free((char *) body.p);
    }
    return -1;
}

/* ---- the content handler ---- */

/* the host and port (p.p NULL: none) of a proxy_pass without variables,
 * as nicd_upstream_split_url() gave them */
static void
static_target(const proxy_conf_t *pc, nicd_str_t *h, nicd_str_t *p)
{
    char *colon = strrchr(pc->t.host, ':');

    h->p = pc->t.host;
    h->len = strlen(pc->t.host);
    p->p = NULL;
    p->len = 0;
    if (colon != NULL && strchr(colon, ']') == NULL
        && strncmp(pc->t.host, "unix:", 5) != 0) {
        h->len = (size_t) (colon - pc->t.host);
        p->p = colon + 1;
        p->len = strlen(colon + 1);
    }
}

static void
proxy_handler(nicd_conn_t *c, const nicd_request_t *r,
              const nicd_loc_conf_t *lc)
{
    const proxy_conf_t  *pc = proxy_conf(lc);
    proxy_worker_t      *pw = NICD_WORKER_CTX(c->w, nicd_proxy_module);
    int                  head = r->method == NICD_M_HEAD, status;
    nicd_upstream_pick_t pick, *pk = &pick; /* (copied by the exchange) */
    nicd_buf_t           rq = {0};
    nicd_str_t           host, port, uri = {NULL, 0};
    char                 name[INET6_ADDRSTRLEN + 8];

    if (pw == NULL) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    if (pc->t.url != NULL) {
        nicd_vctx_t x; /* the location's captures, $1.. */

        (void) nicd_loc_captures(c, lc, c->r->uri != NULL ? c->r->uri : "",
                                 c->r->uri_len, &x);
        if (nicd_cv_eval(c, pc->t.url, &x, &pw->url) != 0) {
            status = 500;
            goto fail;
        }
        if (nicd_upstream_split_url(pw->url.data, pw->url.len, &host, &port,
                                    &uri)
            != 0) {
            log_error(LOG_ERR, 0, "invalid URL prefix in \"%.*s\", client: %s",
                      (int) pw->url.len, pw->url.data, nicd_client(c));
            status = 500;
            goto fail;
        }
        nicd_upstream_host_of(host, port, &pw->host, &pw->port);
        status = nicd_upstream_pick_url(c, pk, host, port, name, sizeof(name));
        if (status != 0) {
            goto fail;
        }
    } else {
        nicd_str_t h, p;

        static_target(pc, &h, &p);
        nicd_upstream_host_of(h, p, &pw->host, &pw->port);
        if (pc->t.uri != NULL) {
            uri.p = pc->t.uri;
            uri.len = strlen(pc->t.uri);
        }
        if (nicd_upstream_pick_init(c, pk, pc->t.upstream) != 0) {
            status = 500;
            goto fail;
        }
    }
    pw->active = 1;
    upstream_uri(c, r, pc, uri.p, uri.len, pc->t.url != NULL, &pw->tmp);
    {
        char  *u = strndup(pw->tmp.data, pw->tmp.len);
        size_t ul = pw->tmp.len;

        status =
            u == NULL || proxy_request(c, r, pc, u, ul, &rq) != 0 ? 500 : 0;
        free(u);
    }
    pw->active = 0;
    if (status != 0) {
        nicd_buf_free(&rq);
        goto fail;
    }
    nicd_upstream_start(c, r, &pc->u, pk, &rq);
    return;

fail:
    nicd_respond_error(c, status, head, NULL, 0);
}

/* ---- directives ---- */

static const char *
set_pass(parse_t *ps, const char **a, int n)
{
    proxy_conf_t *pc = nicd_conf_module_loc(ps);
    nicd_str_t    host, port, uri;
    const char   *msg, *text;
    size_t        tlen;
    char          hbuf[300];
    unsigned      pn = 0;
    size_t        i;

    (void) n;
    if (ps->loc->kind == NICD_LOC_SERVER) {
        return "is not allowed here";
    }
    if ((msg = nicd_conf_handler(ps, NULL, "proxy_pass")) != NULL) {
        return msg;
    }
    ps->loc->handler = NULL; /* (set below, once it is known good) */
    nicd_redirect_auto_set(ps);
    pc->t.loc = ps->loc;
    pc->t.whole = nicd_conf_strdup(ps->conf, a[0]);
    if ((pc->t.url = nicd_conf_cv(ps, a[0], &msg)) == NULL) {
        return msg;
    }
    if (!nicd_cv_literal(pc->t.url, &text, &tlen)) {
        ps->loc->handler = proxy_handler;
        ps->loc->handler_body = 1;
        ps->conf->body_handlers++;
        return NULL; /* made per request */
    }
    pc->t.url = NULL;
    if (strncasecmp(a[0], "https://", 8) == 0) {
        return "https:// upstreams are not supported";
    }
    if (nicd_upstream_split_url(a[0], strlen(a[0]), &host, &port, &uri) != 0) {
        return nicd_conf_msg("invalid URL prefix in \"%s\"", a[0]);
    }
    if (uri.p != NULL
        && (ps->loc->kind >= NICD_LOC_REGEX || (ps->ctx & CTX_IF))) {
        return "\"proxy_pass\" cannot have URI part in location given by "
               "regular expression, or inside named location, or inside "
               "\"if\" statement, or inside \"limit_except\" block";
    }
    for (i = 0; i < port.len; i++) {
        pn = pn * 10 + (unsigned) (port.p[i] - '0');
    }
    if (port.p != NULL && (pn == 0 || pn > 65535)) {
        return nicd_conf_msg("invalid port in \"%s\"", a[0]);
    }
    if (host.len >= sizeof(hbuf)) {
        return "host name too long";
    }
    memcpy(hbuf, host.p, host.len);
    hbuf[host.len] = '\0';
    pc->t.upstream = nicd_upstream_add(ps, hbuf, host.len, pn);
    pc->t.host = nicd_conf_alloc(
        ps->conf,
        (size_t) (port.p != NULL ? port.p + port.len - host.p : (long) host.len)
            + 1);
    if (pc->t.upstream == NULL || pc->t.host == NULL) {
        return "out of memory";
    }
    memcpy(pc->t.host, host.p,
           port.p != NULL ? (size_t) (port.p + port.len - host.p) : host.len);
    if (uri.p != NULL
        && (pc->t.uri = nicd_conf_alloc(ps->conf, uri.len + 1)) != NULL) {
        memcpy(pc->t.uri, uri.p, uri.len);
    }
    ps->loc->handler = proxy_handler;
    ps->loc->handler_body = 1;
    ps->conf->body_handlers++;
    return NULL;
}

static const char *
set_header(parse_t *ps, const char **a, int n)
{
    proxy_conf_t   *pc = nicd_conf_module_loc(ps);
    proxy_header_t *h;
    const char     *msg;

    (void) n;
    h = nicd_conf_grow(ps->conf, pc->headers, pc->nheaders, sizeof(*h));
    if (h == NULL) {
        return "out of memory";
    }
    pc->headers = h;
    h += pc->nheaders;
    h->name = nicd_conf_strdup(ps->conf, a[0]);
    h->len = strlen(a[0]);
    if (h->name == NULL || (h->value = nicd_conf_cv(ps, a[1], &msg)) == NULL) {
        return h->name == NULL ? "out of memory" : msg;
    }
    pc->nheaders++;
    return NULL;
}

static const char *
set_field_list(parse_t *ps, const char **a, int n)
{
    proxy_conf_t *pc = nicd_conf_module_loc(ps);
    int           hide = strcmp(ps->d->name, "proxy_hide_header") == 0;
    char       ***list = hide ? &pc->u.hide : &pc->u.pass;
    int          *cnt = hide ? &pc->u.nhide : &pc->u.npass;
    char        **l;

    (void) n;
    l = nicd_conf_grow(ps->conf, *list, *cnt, sizeof(*l));
    if (l == NULL || (l[*cnt] = nicd_conf_strdup(ps->conf, a[0])) == NULL) {
        return "out of memory";
    }
    *list = l;
    (*cnt)++;
    return NULL;
}

static const char *
set_redirect(parse_t *ps, const char **a, int n)
{
    proxy_conf_t     *pc = nicd_conf_module_loc(ps);
    proxy_redirect_t *r;
    const char       *msg, *from = a[0];
    char              err[256];
    int               ci = 0;

    if (n == 1) {
        if (strcmp(a[0], "off") == 0) {
            pc->redirect = REDIRECT_OFF;
            pc->nredirects = 0;
            return NULL;
        }
        if (strcmp(a[0], "default") == 0) {
            if (pc->redirect == REDIRECT_OFF) {
                return "invalid parameter \"default\"";
            }
            pc->redirect = pc->redirect == REDIRECT_RULES ? REDIRECT_RULES
                                                          : REDIRECT_DEFAULT;
            if (pc->redirect == REDIRECT_RULES) {
                /* "default" among rules: the default rule, added when
                 * proxy_pass is known (postconfiguration) */
                r = nicd_conf_grow(ps->conf, pc->redirects, pc->nredirects,
                                   sizeof(*r));
                if (r == NULL) {
                    return "out of memory";
                }
                pc->redirects = r;
                memset(&r[pc->nredirects++], 0, sizeof(*r));
            }
            return NULL;
        }
        return nicd_conf_msg("invalid parameter \"%s\"", a[0]);
    }
    if (pc->redirect == REDIRECT_OFF) {
        return "is duplicate";
    }
    r = nicd_conf_grow(ps->conf, pc->redirects, pc->nredirects, sizeof(*r));
    if (r == NULL) {
        return "out of memory";
    }
    pc->redirects = r;
    r += pc->nredirects;
    memset(r, 0, sizeof(*r));
    if (from[0] == '~') {
        ci = from[1] == '*';
        from += ci ? 2 : 1;
        if ((r->re = nicd_conf_regex(ps->conf, from, ci, err, sizeof(err)))
            == NULL) {
            return nicd_conf_msg("%s", err);
        }
    } else if ((r->from = nicd_conf_cv(ps, from, &msg)) == NULL) {
        return msg;
    }
    if ((r->to = nicd_conf_cv(ps, a[1], &msg)) == NULL) {
        return msg;
    }
    pc->nredirects++;
    pc->redirect = REDIRECT_RULES;
    return NULL;
}

static const nicd_conf_enum_t next_names[] = {
    {"error", NICD_FT_ERROR},
    {"timeout", NICD_FT_TIMEOUT},
    {"invalid_header", NICD_FT_INVALID_HEADER},
    {"http_500", NICD_FT_HTTP_500},
    {"http_502", NICD_FT_HTTP_502},
    {"http_503", NICD_FT_HTTP_503},
    {"http_504", NICD_FT_HTTP_504},
    {"http_403", NICD_FT_HTTP_403},
    {"http_404", NICD_FT_HTTP_404},
    {"http_429", NICD_FT_HTTP_429},
    {"non_idempotent", NICD_FT_NON_IDEMPOTENT},
    {"off", NICD_FT_OFF},
    {NULL, 0},
};

static const char *
set_next(parse_t *ps, const char **a, int n)
{
    proxy_conf_t *pc = nicd_conf_module_loc(ps);
    int           i, k, bits = 0;

    for (i = 0; i < n; i++) {
        for (k = 0; next_names[k].name != NULL; k++) {
            if (strcmp(a[i], next_names[k].name) == 0) {
                break;
            }
        }
        if (next_names[k].name == NULL) {
            return nicd_conf_msg("invalid value \"%s\"", a[i]);
        }
        bits |= next_names[k].value;
    }
    if ((bits & NICD_FT_OFF) && bits != NICD_FT_OFF) {
        return "invalid value \"off\" among others";
    }
    pc->u.next_upstream = bits == NICD_FT_OFF ? 0 : bits;
    return NULL;
}

/* the fields proxy_ignore_headers takes: those that only steer a cache
 * mean nothing to nicd */
static const nicd_conf_enum_t ignore_names[] = {
    {"X-Accel-Redirect", NICD_IGNORE_ACCEL_REDIRECT},
    {"X-Accel-Limit-Rate", NICD_IGNORE_ACCEL_LIMIT_RATE},
    {"X-Accel-Buffering", NICD_IGNORE_ACCEL_BUFFERING},
    {"X-Accel-Expires", 0},
    {"X-Accel-Charset", 0},
    {"Expires", 0},
    {"Cache-Control", 0},
    {"Set-Cookie", 0},
    {"Vary", 0},
    {NULL, 0},
};

static const char *
set_ignore(parse_t *ps, const char **a, int n)
{
    proxy_conf_t *pc = nicd_conf_module_loc(ps);
    int           i, k;

    pc->u.ignore_headers = 0;
    for (i = 0; i < n; i++) {
        for (k = 0; ignore_names[k].name != NULL; k++) {
            if (strcasecmp(a[i], ignore_names[k].name) == 0) {
                break;
            }
        }
        if (ignore_names[k].name == NULL) {
            return nicd_conf_msg("invalid value \"%s\"", a[i]);
        }
        pc->u.ignore_headers |= ignore_names[k].value;
    }
    return NULL;
}

static const char *
set_cv_once(parse_t *ps, const char **a, int n)
{
    proxy_conf_t *pc = nicd_conf_module_loc(ps);
    int           body = strcmp(ps->d->name, "proxy_set_body") == 0;
    nicd_cv_t   **cv = body ? &pc->set_body : &pc->method;
    const char   *msg;

    (void) n;
    if ((*cv = nicd_conf_cv(ps, a[0], &msg)) == NULL) {
        return msg;
    }
    *(body ? &pc->body_set : &pc->method_set) = 1;
    return NULL;
}

static const char *
set_version(parse_t *ps, const char **a, int n)
{
    proxy_conf_t *pc = nicd_conf_module_loc(ps);

    (void) n;
    if (strcmp(a[0], "1.0") == 0) {
        pc->http_version = 10;
    } else if (strcmp(a[0], "1.1") == 0) {
        pc->http_version = 11;
    } else {
        return nicd_conf_msg("invalid value \"%s\"", a[0]);
    }
    return NULL;
}

static const char *
set_buffers(parse_t *ps, const char **a, int n)
{
    proxy_conf_t *pc = nicd_conf_module_loc(ps);
    int           num;

    (void) n;
    if (nicd_conf_positive(a[0], &num) != NULL
        || nicd_conf_size(a[1], &pc->u.buffers_size) != NULL
        || pc->u.buffers_size == 0) {
        return nicd_conf_msg("invalid value \"%s %s\"", a[0], a[1]);
    }
    pc->u.nbuffers = num;
    return NULL;
}

static const char *
set_refused(parse_t *ps, const char **a, int n)
{
    (void) a;
    (void) n;
    return nicd_conf_msg("is not supported by nicd (%s)", ps->d->name);
}

/* proxy_cache, proxy_cache_*, proxy_no_cache: the configuration loads,
 * the responses pass uncached (a warning says so) */
static int
proxy_unknown(parse_t *ps, const char *name, const char **args, int nargs,
              const char **msg)
{
    (void) args;
    *msg = NULL;
    if (strncmp(name, "proxy_cache", 11) != 0
        && strcmp(name, "proxy_no_cache") != 0) {
        return 0;
    }
    if (nargs < 1) {
        *msg = nicd_conf_msg("invalid number of arguments in \"%s\"", name);
        return 1;
    }
    log_error(LOG_WARN, 0,
              "nicd keeps no cache of proxied responses: \"%s\" in %s:%d "
              "is ignored",
              name, ps->name, ps->line);
    return 1;
}

#define P(f) offsetof(proxy_conf_t, f)
#define HSL  CTX_HSL
static const directive_t proxy_directives[] = {
    {"proxy_pass", CTX_LOC | CTX_IF | CTX_LMT, 1, 1, set_pass, 0, 0, NULL},
    {"proxy_set_header", HSL, 2, 2, set_header, 0, 0, NULL},
    {"proxy_hide_header", HSL, 1, 1, set_field_list, 0, 0, NULL},
    {"proxy_ignore_headers", HSL, 1, 9, set_ignore, 0, 0, NULL},
    {"proxy_pass_header", HSL, 1, 1, set_field_list, 0, 0, NULL},
    {"proxy_redirect", HSL, 1, 2, set_redirect, 0, 0, NULL},
    {"proxy_set_body", HSL, 1, 1, set_cv_once, 0, 0, NULL},
    {"proxy_method", HSL, 1, 1, set_cv_once, 0, 0, NULL},
    {"proxy_http_version", HSL, 1, 1, set_version, 0, 0, NULL},
    {"proxy_pass_request_headers", HSL, 1, 1, nicd_conf_slot_flag,
     P(pass_request_headers), 0, NULL},
    {"proxy_pass_request_body", HSL, 1, 1, nicd_conf_slot_flag,
     P(pass_request_body), 0, NULL},
    {"proxy_intercept_errors", HSL, 1, 1, nicd_conf_slot_flag,
     P(u.intercept_errors), 0, NULL},
    {"proxy_ignore_client_abort", HSL, 1, 1, nicd_conf_slot_flag,
     P(u.ignore_client_abort), 0, NULL},
    {"proxy_next_upstream", HSL, 1, 12, set_next, 0, 0, NULL},
    {"proxy_next_upstream_tries", HSL, 1, 1, nicd_conf_slot_positive,
     P(u.next_tries), 0, NULL},
    {"proxy_next_upstream_timeout", HSL, 1, 1, nicd_conf_slot_msec,
     P(u.next_timeout), 0, NULL},
    {"proxy_connect_timeout", HSL, 1, 1, nicd_conf_slot_msec,
     P(u.connect_timeout), 0, NULL},
    {"proxy_send_timeout", HSL, 1, 1, nicd_conf_slot_msec, P(u.send_timeout), 0,
     NULL},
    {"proxy_read_timeout", HSL, 1, 1, nicd_conf_slot_msec, P(u.read_timeout), 0,
     NULL},
    {"proxy_buffering", HSL, 1, 1, nicd_conf_slot_flag, P(u.buffering), 0,
     NULL},
    {"proxy_request_buffering", HSL, 1, 1, nicd_conf_slot_flag,
     P(u.request_buffering), 0, NULL},
    {"proxy_buffer_size", HSL, 1, 1, nicd_conf_slot_size, P(u.buffer_size), 0,
     NULL},
    {"proxy_buffers", HSL, 2, 2, set_buffers, 0, 0, NULL},
    {"proxy_busy_buffers_size", HSL, 1, 1, nicd_conf_slot_size,
     P(u.busy_buffers_size), 0, NULL},
    {"proxy_max_temp_file_size", HSL, 1, 1, nicd_conf_slot_size,
     P(u.max_temp_file_size), 0, NULL},
    {"proxy_temp_file_write_size", HSL, 1, 1, nicd_conf_housekeeping, 0, 0,
     NULL},
    {"proxy_temp_path", HSL, 1, 4, nicd_upstream_slot_temp_path, P(u.temp_path),
     0, NULL},
    {"proxy_socket_keepalive", HSL, 1, 1, nicd_conf_slot_flag,
     P(u.socket_keepalive), 0, NULL},
    {"proxy_store", HSL, 1, 1, set_refused, 0, 0, NULL},
    {NULL, 0, 0, 0, NULL, 0, 0, NULL},
};
#undef P
#undef HSL

/* ---- proxy_redirect at run time ---- */

/* the exchange's rewrite of Location and Refresh (nicd_upstream_conf_t) */
static int
proxy_redirect(nicd_conn_t *c, const void *owner, const char *v, size_t len,
               nicd_buf_t *b)
{
    const proxy_conf_t *pc = owner;
    proxy_worker_t     *pw = NICD_WORKER_CTX(c->w, nicd_proxy_module);
    int                 i;

    if (pc->redirect == REDIRECT_OFF || pw == NULL) {
        return 0;
    }
    for (i = 0; i < (pc->redirect == REDIRECT_DEFAULT ? 1 : pc->nredirects);
         i++) {
        const proxy_redirect_t *r =
            pc->redirect == REDIRECT_DEFAULT ? NULL : &pc->redirects[i];
        nicd_buf_t *from = &pw->tmp;

        if (r == NULL || (r->from == NULL && r->re == NULL)) {
            /* default: the URL proxy_pass names (with "/" when it has no
             * URI) becomes the location's name */
            const char *lname = pc->t.loc != NULL ? pc->t.loc->name : "/";

            if (pc->t.url != NULL || pc->t.whole == NULL) {
                continue;
            }
            from->len = 0;
            nicd_buf_adds(from, pc->t.whole);
            if (pc->t.uri == NULL) {
                nicd_buf_add(from, "/", 1);
            }
            if (len >= from->len
                && strncasecmp(v, from->data, from->len) == 0) {
                b->len = 0;
                nicd_buf_adds(b, lname);
                nicd_buf_add(b, v + from->len, len - from->len);
                return 1;
            }
            continue;
        }
        if (r->re != NULL) {
            void       *md = nicd_regex_match(c->w, r->re, v, len);
            nicd_vctx_t x;

            if (md == NULL) {
                continue;
            }
            memset(&x, 0, sizeof(x));
            x.subject = v;
            x.caps = pcre2_get_ovector_pointer(md);
            x.ncaps = (int) pcre2_get_ovector_count(md);
            return nicd_cv_eval(c, r->to, &x, b) == 0;
        }
        if (nicd_cv_eval(c, r->from, NULL, from) != 0) {
            continue;
        }
        if (len >= from->len && strncasecmp(v, from->data, from->len) == 0) {
            size_t flen = from->len;

            if (nicd_cv_eval(c, r->to, NULL, b) != 0) {
                return 0;
            }
            nicd_buf_add(b, v + flen, len - flen);
            return 1;
        }
    }
    return 0;
}

/* ---- variables ---- */

static int
host_var(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
         const char *suffix, size_t slen, nicd_buf_t *b)
{
    proxy_worker_t     *pw = NICD_WORKER_CTX(c->w, nicd_proxy_module);
    const proxy_conf_t *pc =
        c->r != NULL && c->r->loc != NULL ? proxy_conf(c->r->loc) : NULL;
    int port = v->data != NULL;

    (void) x;
    (void) suffix;
    (void) slen;
    if (pw != NULL && pw->active) {
        nicd_buf_add(b, port ? pw->port.data : pw->host.data,
                     port ? pw->port.len : pw->host.len);
    } else if (pc != NULL && pc->t.host != NULL) {
        /* (no request being proxied: the location's proxy_pass says) */
        nicd_buf_t hb = {0}, pb = {0};
        nicd_str_t h, p;

        static_target(pc, &h, &p);
        nicd_upstream_host_of(h, p, &hb, &pb);
        nicd_buf_add(b, port ? pb.data : hb.data, port ? pb.len : hb.len);
        nicd_buf_free(&hb);
        nicd_buf_free(&pb);
    }
    return 0;
}

static int
xff_var(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
        const char *suffix, size_t slen, nicd_buf_t *b)
{
    const nicd_request_t *r = x != NULL && x->r != NULL ? x->r : c->r->in;
    int                   i;

    (void) v;
    (void) suffix;
    (void) slen;
    for (i = 0; r != NULL && i < r->nheaders; i++) {
        if (nicd_req_field_is(r, i, "X-Forwarded-For", 15)) {
            nicd_buf_add(b, r->hvalue[i].p, r->hvalue[i].len);
            NICD_BUF_LIT(b, ", ");
        }
    }
    nicd_buf_adds(b, nicd_client(c));
    return 0;
}

static const nicd_var_t proxy_vars[] = {
    {"proxy_host", host_var, NICD_VAR_VOLATILE, NULL},
    {"proxy_port", host_var, NICD_VAR_VOLATILE, "port"},
    {"proxy_add_x_forwarded_for", xff_var, 0, NULL},
    {NULL, NULL, 0, NULL},
};

static void
proxy_worker_init(nicd_worker_t *w)
{
    NICD_WORKER_CTX(w, nicd_proxy_module) = calloc(1, sizeof(proxy_worker_t));
}

static void
proxy_worker_free(nicd_worker_t *w)
{
    proxy_worker_t *pw = NICD_WORKER_CTX(w, nicd_proxy_module);

    if (pw != NULL) {
        nicd_buf_free(&pw->host);
        nicd_buf_free(&pw->port);
        nicd_buf_free(&pw->url);
        nicd_buf_free(&pw->tmp);
        free(pw);
    }
    NICD_WORKER_CTX(w, nicd_proxy_module) = NULL;
}

nicd_module_t nicd_proxy_module = {
    .name = "proxy",
    .directives = proxy_directives,
    .unknown = proxy_unknown,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .worker_init = proxy_worker_init,
    .worker_free = proxy_worker_free,
    .variables = proxy_vars,
};
