/*
 * The phase engine (phases.h): server selection (the listen address, then
 * Host against server_name), then the phases the modules added handlers
 * to, around "find location"; and error_page, the core's answer to an
 * error status (an internal redirect to the location's page).
 * Everything here runs synchronously within one call of nicd_handle(), so
 * the connection's srv and loc describe the request at hand, for HTTP/2's
 * streams too.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/in.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "server/http/filter.h"
#include "server/core/roots.h"
#include "server/core/transport.h"
#include "server/http/errlog.h"
#include "server/http/limit_except.h"
#include "server/http/lookup.h"
#include "server/http/path.h"
#include "server/http/redirect.h"
#include "server/http/files.h"
#include "server/http/head.h"
#include "server/http/tokens.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

static const nicd_server_conf_t *
server_of(nicd_conn_t *c, const nicd_request_t *r)
{
    const char *host;
    size_t      len;

    nicd_request_host(r, &host, &len);
    return nicd_conf_find_server(c->w->cycle->conf, c->sc.listener, host, len,
                                 nicd_match_data(c->w));
}

int
nicd_is_url(const char *s, size_t n)
{
    return (n >= 7 && strncmp(s, "http://", 7) == 0)
           || (n >= 8 && strncmp(s, "https://", 8) == 0);
}

void
nicd_redirect(nicd_conn_t *c, const nicd_request_t *r, int status,
              const char *target, size_t len)
{
    nicd_buf_t own = {0}, *b = &own; /* target may be in w->scratch */

    nicd_absolute_location(c, r, target, len, b);
    if (nicd_buf_failed(b)) {
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
        return;
    }
    nicd_respond_error(c, status, r->method == NICD_M_HEAD, b->data, b->len);
    nicd_buf_free(b);
}

/* a configuration's phases: each one's handlers, in the order the
 * modules' postconfiguration added them */
struct nicd_phases_s {
    nicd_phase_pt      *h[NICD_NPHASES];
    int                 n[NICD_NPHASES];
    nicd_error_page_pt *ep; /* the error page handlers */
    int                 nep;
    /* the log phase's handlers */
    const nicd_log_handler_t *log[NICD_LOG_HANDLERS];
    int                       nlog;
};

/* c's phases, made on first use (NULL: out of memory) */
static struct nicd_phases_s *
phases_of(nicd_conf_t *c)
{
    if (c->phases == NULL) {
        c->phases = nicd_conf_alloc(c, sizeof(struct nicd_phases_s));
    }
    return c->phases;
}

const char *
nicd_phase_add(nicd_conf_t *c, int phase, nicd_phase_pt h)
{
    struct nicd_phases_s *ph = phases_of(c);

    if (ph == NULL
        || (ph->h[phase] =
                nicd_conf_grow(c, ph->h[phase], ph->n[phase], sizeof(h)))
               == NULL) {
        return "out of memory";
    }
    ph->h[phase][ph->n[phase]++] = h;
    return NULL;
}

const char *
nicd_error_page_add(nicd_conf_t *c, nicd_error_page_pt h)
{
    struct nicd_phases_s *ph = phases_of(c);

    if (ph == NULL
        || (ph->ep = nicd_conf_grow(c, ph->ep, ph->nep, sizeof(h))) == NULL) {
        return "out of memory";
    }
    ph->ep[ph->nep++] = h;
    return NULL;
}

const char *
nicd_log_handler_add(nicd_conf_t *c, const nicd_log_handler_t *h)
{
    struct nicd_phases_s *ph = phases_of(c);

    if (ph == NULL) {
        return "out of memory";
    }
    if (ph->nlog == NICD_LOG_HANDLERS) {
        return "too many log handlers";
    }
    ph->log[ph->nlog++] = h;
    return NULL;
}

int
nicd_log_phase_select(nicd_conn_t *c, nicd_log_sel_t *sel)
{
    const struct nicd_phases_s *ph = c->w->cycle->conf->phases;
    int                         i;

    sel->any = 0;
    for (i = 0; ph != NULL && i < ph->nlog; i++) {
        sel->lc[i] = NULL;
        sel->mask[i] = ph->log[i]->select(c, &sel->lc[i]);
        sel->any |= sel->mask[i] != 0;
    }
    return sel->any;
}

void
nicd_log_phase_records(const nicd_conn_t *c, const nicd_log_sel_t *sel,
                       const nicd_log_view_t *v, nicd_buf_t *b)
{
    const struct nicd_phases_s *ph = c->w->cycle->conf->phases;
    int                         i;

    for (i = 0; sel->any && i < ph->nlog; i++) {
        if (sel->mask[i] != 0) {
            ph->log[i]->records(sel->lc[i], sel->mask[i], v, b);
        }
    }
}

void
nicd_log_phase_write(nicd_conn_t *c, const nicd_log_sel_t *sel,
                     const nicd_log_view_t *v)
{
    const struct nicd_phases_s *ph = c->w->cycle->conf->phases;
    int                         i;

    for (i = 0; sel->any && i < ph->nlog; i++) {
        if (sel->mask[i] != 0) {
            ph->log[i]->write(c->w, sel->lc[i], sel->mask[i], v);
        }
    }
}

int
nicd_error_page(nicd_conn_t *c, int status, int head)
{
    const struct nicd_phases_s *ph = c->w->cycle->conf->phases;
    int                         i;

    for (i = 0; ph != NULL && i < ph->nep; i++) {
        if (ph->ep[i](c, status, head)) {
            return 1;
        }
    }
    return 0;
}

/* the handlers of phase (of ph, the configuration's) until one does not
 * decline; a phase without any costs a test */
static inline int
run_phase(const struct nicd_phases_s *ph, int phase, nicd_conn_t *c,
          const nicd_request_t *r, const nicd_loc_conf_t *lc, const char *uri,
          size_t len)
{
    int i, rc;

    for (i = 0; i < ph->n[phase]; i++) {
        rc = ph->h[phase][i](c, r, lc, uri, len);
        if (rc != NICD_DECLINED) {
            return rc;
        }
    }
    return NICD_DECLINED;
}

/* a configuration whose modules added no handler (static is there
 * whenever the module list has it) */
static const struct nicd_phases_s no_phases;

static void run(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
                size_t len, const nicd_loc_conf_t *named, int server_rw);

/* an internal redirect to uri (a copy is made: uri may be in w->uri) */
void
nicd_internal_redirect(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
                       size_t len, int keep_args)
{
    char       *copy = malloc(len + 1);
    const char *q;
    size_t      n;
    int         status;

    if (copy == NULL) {
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
        return;
    }
    /* the new URI may carry arguments and escapes: normalise its path
     * (uri need not end in a NUL: it may be w->expand's bytes) */
    q = memchr(uri, '?', len);
    n = q != NULL ? (size_t) (q - uri) : len;
    if ((q != NULL || !keep_args)
        && nicd_req_set_args(c, q != NULL ? q + 1 : "",
                             q != NULL ? len - n - 1 : 0)
               != 0) {
        free(copy);
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
        return;
    }
    status =
        nicd_path_normalize(uri, n, copy, &n, c->w->cycle->conf->merge_slashes);
    if (status != 0) {
        free(copy);
        nicd_respond_error(c, status, r->method == NICD_M_HEAD, NULL, 0);
        return;
    }
    copy[n] = '\0';
    run(c, r, copy, n, NULL, 0);
    free(copy);
}

/*
 * One more internal redirect (or "last"): past internal_redirects of them
 * (nginx's 10), a 500, no error_page, and nginx's log line.  1 when it
 * answered so.
 */
static int
redirect_cycle(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
               size_t len)
{
    if (++c->r->redirects <= c->w->cycle->conf->internal_redirects + 1) {
        return 0;
    }
    log_error(LOG_ERR, 0,
              "rewrite or internal redirection cycle while processing "
              "\"%.*s\", client: %s",
              (int) len, uri, nicd_client(c));
    c->r->error_paged = 1;
    nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
    return 1;
}

const char *
nicd_phase_uri(nicd_conn_t *c, const char *p, size_t len)
{
    nicd_buf_t *u = &c->w->uri;

    u->len = 0;
    nicd_buf_add(u, p, len);
    nicd_buf_add(u, "", 1);
    return nicd_buf_failed(u) ? NULL : u->data;
}

/* the URI a phase left (nicd_phase_uri), made the one at hand (*own, the
 * previous copy, freed): 0, or -1 after answering 500 */
static int
take_uri(nicd_conn_t *c, const nicd_request_t *r, char **own, const char **uri,
         size_t *len)
{
    free(*own);
    *own = strdup(c->w->uri.data);
    if (*own == NULL) {
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
        return -1;
    }
    *uri = *own;
    *len = strlen(*own);
    c->r->uri = *uri;
    c->r->uri_len = *len;
    return 0;
}

/* "/app" of "location /app/ { proxy_pass ...; }": a 301 to the location */
static void
auto_location(nicd_conn_t *c, const nicd_request_t *r,
              const nicd_loc_conf_t *lc)
{
    nicd_buf_t t = {0};

    nicd_redirect_auto_target(lc, nicd_req_args(c, r)->p,
                              nicd_req_args(c, r)->len, &t);
    if (nicd_buf_failed(&t)) {
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
    } else {
        nicd_redirect(c, r, 301, t.data, t.len);
    }
    nicd_buf_free(&t);
}

/* the phases from "find location" on, for uri (normalised) */
static void
run(nicd_conn_t *c, const nicd_request_t *r, const char *uri, size_t len,
    const nicd_loc_conf_t *named, int server_rw)
{
    const struct nicd_phases_s *phs = c->w->cycle->conf->phases;
    const nicd_loc_conf_t      *lc;
    int   head = r->method == NICD_M_HEAD, rc, ph, auto_redirect;
    char *own = NULL;

    if (phs == NULL) {
        phs = &no_phases;
    }

    if (redirect_cycle(c, r, uri, len)) {
        return;
    }
    if (server_rw) {
        c->r->loc = c->r->srv->loc;
        nicd_errlog_use(c->r->loc);
        rc = run_phase(phs, NICD_PHASE_POST_READ, c, r, c->r->srv->loc, uri,
                       len);
        if (rc == NICD_DONE) {
            return;
        }
        rc = run_phase(phs, NICD_PHASE_SERVER_REWRITE, c, r, c->r->srv->loc,
                       uri, len);
        if (rc == NICD_DONE) {
            return;
        }
        if (rc != NICD_DECLINED && take_uri(c, r, &own, &uri, &len) != 0) {
            return;
        }
    }

    for (;;) {
        auto_redirect = 0;
        lc = named != NULL ? named
                           : nicd_conf_find_location(c->r->srv, uri, len,
                                                     nicd_match_data(c->w),
                                                     &auto_redirect);
        lc = nicd_limit_except(lc, r->method);
        c->r->loc = lc;
        c->r->uri_moved = 0;
        c->r->uri_to_alias = 0;
        nicd_errlog_use(lc); /* its lines to its error_log (nginx's) */
        log_error(LOG_DEBUG, 0, "using configuration \"%s\" for \"%.*s\"",
                  lc->name != NULL ? lc->name : "", (int) len, uri);
        c->r->uri = uri;
        c->r->uri_len = len;
        if (lc->internal && c->r->redirects <= 1) {
            nicd_respond_error(c, 404, head, NULL, 0);
            goto out;
        }
        if (auto_redirect) {
            auto_location(c, r, lc);
            goto out;
        }
        if (lc == c->r->srv->loc) {
            break; /* the server's own rules ran in the server rewrite */
        }
        rc = run_phase(phs, NICD_PHASE_REWRITE, c, r, lc, uri, len);
        if (rc == NICD_DONE) {
            goto out;
        }
        if (rc == NICD_DECLINED) {
            break;
        }
        if (take_uri(c, r, &own, &uri, &len) != 0) {
            return;
        }
        if (rc == NICD_URI_STAY) {
            /* a rewrite's break: the new URI is no longer the one this
             * location matched (nginx's valid_location 0) */
            c->r->uri_moved = 1;
            break;
        }
        /* "last": a location again, counted as nginx counts it */
        named = NULL;
        if (redirect_cycle(c, r, uri, len)) {
            goto out;
        }
    }

    for (ph = NICD_PHASE_PREACCESS; ph < NICD_PHASE_CONTENT; ph++) {
        rc = run_phase(phs, ph, c, r, lc, uri, len);
        if (rc == NICD_DONE) {
            goto out;
        }
        if (rc != NICD_DECLINED && take_uri(c, r, &own, &uri, &len) != 0) {
            return;
        }
    }
    if (lc->handler != NULL) {
        /* a handler that takes no body answers GET and HEAD alone */
        if (!lc->handler_body && r->method != NICD_M_GET && !head) {
            nicd_respond_error(c, 405, head, NULL, 0);
        } else {
            lc->handler(c, r, lc);
        }
        goto out;
    }
    if (run_phase(phs, NICD_PHASE_CONTENT, c, r, lc, uri, len)
        == NICD_DECLINED) {
        nicd_respond_error(c, 404, head, NULL, 0); /* no content module */
    }
out:
    free(own);
}

void
nicd_named_location(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
                    size_t len, const nicd_loc_conf_t *nl)
{
    run(c, r, uri, len, nl, 0);
}

/* the location whose alias lc has (a nested one takes its enclosing
 * location's, and with it that location's prefix) */
static const nicd_loc_conf_t *
alias_writer(const nicd_loc_conf_t *lc)
{
    while (lc->parent != NULL && lc->parent->alias
           && lc->parent->root == lc->root) {
        lc = lc->parent;
    }
    return lc;
}

int
nicd_uri_open(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *path,
              size_t len, int tried, nicd_file_t **out, int *err)
{
    const nicd_loc_conf_t *wr = lc->alias ? alias_writer(lc) : lc;
    nicd_buf_t            *b = &c->w->path;
    const char            *rel = path, *root = lc->root;
    size_t                 rlen = len;
    int                    alias_file = 0, root_fd;
    const char            *file;
    nicd_open_how_t        how;

    if (lc->alias && lc->root_vars) {
        /* alias /dir/$1 of a regex location: its captures of this URI */
        if (nicd_alias_eval(c, lc, path, len, b) != 0) {
            *err = ENOENT;
            return -1;
        }
        rel = b->data;
        rlen = b->len;
        root = ""; /* the whole name: below "/" */
    } else if (lc->alias
               && (wr->kind == NICD_LOC_PREFIX || wr->kind == NICD_LOC_NOREGEX
                   || wr->kind == NICD_LOC_EXACT)
               && len >= wr->name_len) {
        /* the location's prefix replaced by the alias' directory */
        rel = path + wr->name_len;
        rlen = len - wr->name_len;
        if (rlen == 0) {
            /* the whole URI matched: the alias names the file itself
             * ("location /data { alias /srv/data.bin; }") */
            rel = "/";
            rlen = 1;
            alias_file = 1;
        } else if (rel[0] != '/') {
            b->len = 0;
            nicd_buf_add(b, "/", 1);
            nicd_buf_add(b, rel, rlen);
            nicd_buf_add(b, "", 1);
            if (nicd_buf_failed(b)) {
                *err = ENOMEM;
                return -1;
            }
            rel = b->data;
            rlen = b->len - 1;
        }
    } else if (lc->alias && !tried && !c->r->uri_to_alias) {
        rel = "/"; /* a regex location's alias names the file itself */
        rlen = 1;
        alias_file = 1; /* ... and so is the whole name */
    } /* (a name try_files tries goes whole below it, as nginx's) */
    root_fd = nicd_conf_root_fd(c->w->cycle->conf, lc);
    if (root_fd == -1) {
        *err = ENOENT; /* a root not (yet) there */
        return -1;
    }
    if (lc->alias && !lc->root_vars
        && (file = nicd_conf_root_file(c->w->cycle->conf, lc)) != NULL) {
        /* the alias names a file: only the whole URI is it */
        if (!alias_file) {
            *err = ENOTDIR;
            return -1;
        }
        b->len = 0;
        nicd_buf_add(b, "/", 1);
        nicd_buf_adds(b, file);
        nicd_buf_add(b, "", 1);
        if (nicd_buf_failed(b)) {
            *err = ENOMEM;
            return -1;
        }
        rel = b->data; /* (its name in its directory; the whole name,
                          for disable_symlinks, is the alias') */
        rlen = b->len - 1;
    }
    if (nicd_files_how(c, lc, root_fd, root, rel, alias_file ? 0 : rlen, &how)
        != 0) {
        *err = ENOMEM;
        return -1;
    }
    *err = nicd_ofc_open(&c->w->ofc, &how, rel, rlen, nicd_worker_now_ms(c->w),
                         out);
    return *err == 0 ? 0 : -1;
}

void
nicd_handle(nicd_conn_t *c, const nicd_request_t *r)
{
    int    head = r->method == NICD_M_HEAD;
    char  *path;
    size_t len;
    int    status;

    /* c->r is the protocol's, fresh (nicd_req_begin): $status is "000"
     * until a response starts */
    c->r->in = r;
    c->r->srv = server_of(c, r);
    c->r->loc = c->r->srv->loc;
    nicd_errlog_use(c->r->loc);
    if (c->tp == &nicd_transport_http_on_https) {
        /* nginx's 497, which error_page may answer otherwise */
        log_error(LOG_INFO, 0,
                  "client sent plain HTTP request to HTTPS port, client: %s",
                  nicd_client(c));
        c->keepalive = 0;
        nicd_respond_error(c, 497, head, NULL, 0);
        nicd_errlog_use(NULL);
        return;
    }
    status = nicd_head_status(r, c->r->srv);
    if (status == 0 && c->r->srv->ssl != NULL) {
        /* ssl_verify_client of the server Host chose: 495, 496 */
        status = nicd_tls_verify(c, c->r->srv->ssl->verify_client);
    }
    if (status != 0) {
        /* the server's own limits (the head was read to the largest) */
        if (status < 495) { /* (those nicd_tls_verify logged) */
            log_error(LOG_INFO, 0, "client sent %s, client: %s",
                      status == 414   ? "too long URI"
                      : status == 400 ? "too many headers"
                                      : "too long header line",
                      nicd_client(c));
        }
        c->keepalive = 0;
        nicd_respond_error(c, status, head, NULL, 0);
        nicd_errlog_use(NULL);
        return;
    }
    nicd_vars_fresh(c->w); /* variables' values live for one request */
    if (c->w->stats->srv != NULL) {
        NICD_STAT_ADD(c->w->stats->srv[c->r->srv->index * NICD_SRV_STATS], 1);
    }
    /* the request's own buffer (w->path is the static handler's): no
     * copy on the way to the file */
    if (nicd_buf_reserve(&c->w->reqpath, r->path.len + 2) != 0) {
        nicd_respond_error(c, 500, head, NULL, 0);
        nicd_errlog_use(NULL);
        return;
    }
    path = c->w->reqpath.data;
    status = nicd_path_normalize(r->path.p, r->path.len, path, &len,
                                 c->w->cycle->conf->merge_slashes);
    if (status != 0) {
        log_error(LOG_INFO, 0, "client sent invalid path, client: %s",
                  nicd_client(c));
        c->r->uri = ""; /* $uri of a path that does not parse: empty */
        c->r->uri_len = 0;
        nicd_respond_error(c, status, head, NULL, 0);
    } else if (r->method == NICD_M_TRACE) {
        /* never echoed: nginx answers it so, before any location, and
         * closes (HTTP/1.1) */
        log_error(LOG_INFO, 0, "client sent TRACE method, client: %s",
                  nicd_client(c));
        c->keepalive = 0;
        nicd_respond_error(c, 405, 0, NULL, 0);
    } else {
        run(c, r, path, len, NULL, 1);
    }
    nicd_errlog_use(NULL); /* what follows is the connection's */
}

void
nicd_handle_subrequest(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
                       size_t len)
{
    c->r->in = r;
    c->r->loc = c->r->srv->loc;
    nicd_errlog_use(c->r->loc);
    run(c, r, uri, len, NULL, 1);
}

void
nicd_handle_error(nicd_conn_t *c, const nicd_request_t *r, int status)
{
    c->r->in = r;
    c->r->srv = server_of(c, r);
    c->r->loc = c->r->srv->loc;
    nicd_errlog_use(c->r->loc);
    nicd_vars_fresh(c->w);
    nicd_respond_error(c, status, r->method == NICD_M_HEAD, NULL, 0);
    nicd_errlog_use(NULL);
}

void
nicd_handle_unparsed(nicd_conn_t *c, int head, const char *protocol, int status)
{
    nicd_request_t q;

    memset(&q, 0, sizeof(q));
    q.method = head ? NICD_M_HEAD : NICD_M_GET;
    q.protocol = protocol;
    q.path.p = "/";
    q.path.len = 1;
    nicd_handle_error(c, &q, status);
}

int
nicd_body_location(nicd_conn_t *c, const nicd_request_t *r)
{
    const nicd_conf_t        *cf = c->w->cycle->conf;
    const nicd_server_conf_t *srv;
    const nicd_loc_conf_t    *lc;
    size_t                    n;

    if (cf->body_handlers == 0
        || nicd_buf_reserve(&c->w->path, r->path.len + 2) != 0
        || nicd_path_normalize(r->path.p, r->path.len, c->w->path.data, &n,
                               cf->merge_slashes)
               != 0) {
        return 0;
    }
    srv = server_of(c, r);
    lc = nicd_conf_find_location(srv, c->w->path.data, n, nicd_match_data(c->w),
                                 NULL);
    return nicd_limit_except(lc, r->method)->handler_body;
}

void
nicd_phases_worker_free(nicd_worker_t *w)
{
    pcre2_match_data_free(w->match);
    w->match = NULL;
    nicd_buf_free(&w->vars);
    nicd_vars_worker_free(w);
}

/* the statuses nginx has a page of its own for; others go out empty */
static int
has_page(int status)
{
    return (status >= 301 && status <= 303) || status == 307 || status == 308
           || (status >= 400 && status <= 416 && status != 407) || status == 421
           || status == 429 || (status >= 494 && status <= 497)
           || (status >= 500 && status <= 504) || status == 507;
}

void
nicd_respond_error(nicd_conn_t *c, int status, int head, const char *location,
                   size_t location_len)
{
    nicd_respond_error_hdr(c, status, head,
                           location != NULL ? "Location" : NULL, location,
                           location_len);
}

void
nicd_respond_error_hdr(nicd_conn_t *c, int status, int head, const char *name,
                       const char *value, size_t len)
{
    char        page[512];
    const char *body, *server;
    nicd_buf_t  z = {0};
    size_t      blen, slen;
    int         n;

    if (status == NICD_HTTP_CLOSE) {
        /* nginx's 444: no answer at all, and no error_page for it */
        c->r->status = status;
        nicd_proto(c)->close(c);
        return;
    }
    if (status >= 300) {
        /* a special response (nginx's): its own status and Location, not
         * those of an error_page that led here */
        c->r->status_override = 0;
        free(c->r->err_location);
        c->r->err_location = NULL;
    }
    /* error_page (a module's): the location's page for status instead;
     * a redirect's Location goes with the page's answer */
    if (status >= 300 && c->w->cycle->conf->phases != NULL
        && c->w->cycle->conf->phases->nep > 0) {
        if (name != NULL && strcmp(name, "Location") == 0) {
            c->r->err_location = strndup(value, len);
        }
        if (nicd_error_page(c, status, head)) {
            return;
        }
        free(c->r->err_location);
        c->r->err_location = NULL;
    }
    if (!has_page(status)) {
        /* 204, 418, ...: no body, no type (and no length for 204) */
        nicd_resp_start(c, status);
        if (status != 204 && status != 304) {
            NICD_RESP_HEADER(c, "Content-Length", "0", 1);
        }
        if (name != NULL) {
            nicd_resp_header(c, name, strlen(name), value, len);
        }
        nicd_resp_end_headers(c);
        nicd_resp_finish(c, status);
        return;
    }

    server = nicd_server_line(c, &slen); /* the page names it so too */
    if (status >= 494 && status <= 497) {
        /* nginx's own: a 400 that says what was wrong */
        static const char *const why[] = {
            "Request Header Or Cookie Too Large", "The SSL certificate error",
            "No required SSL certificate was sent",
            "The plain HTTP request was sent to HTTPS port"};

        n = snprintf(page, sizeof(page),
                     "<html>\r\n<head><title>400 %s</title></head>\r\n"
                     "<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n"
                     "<center>%s</center>\r\n<hr><center>%.*s</center>\r\n"
                     "</body>\r\n</html>\r\n",
                     why[status - 494], why[status - 494], (int) (slen - 10),
                     server + 8);
        status = 400;
    } else {
        n = snprintf(
            page, sizeof(page),
            "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n"
            "<center><h1>%d %s</h1></center>\r\n<hr><center>%.*s</center>"
            "\r\n</body>\r\n</html>\r\n",
            status, nicd_status_reason(status), status,
            nicd_status_reason(status), (int) (slen - 10), server + 8);
    }
    blen = (size_t) n;

    body = nicd_body_filter(c, "text/html", 9, page, &blen, &z);
    nicd_resp_start(c, status);
    nicd_resp_content_type(c, "text/html", 9);
    if (c->r->body_gzipped) {
        NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
    }
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) blen);
    if (status == 405) {
        NICD_RESP_HEADER(c, "Allow", "GET, HEAD", 9);
    } else if (status == 503) {
        NICD_RESP_HEADER(c, "Retry-After", "1", 1);
    } else if (name != NULL) {
        nicd_resp_header(c, name, strlen(name), value, len);
    }
    nicd_resp_end_headers(c);
    if (!head) {
        nicd_resp_body_mem(c, body, blen);
    }
    nicd_buf_free(&z);
    nicd_resp_finish(c, status);
}

void
nicd_respond_mem(nicd_conn_t *c, int status, int head, const char *type,
                 int no_store, const nicd_buf_t *b)
{
    if (nicd_buf_failed(b)) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    nicd_resp_start(c, status);
    nicd_resp_content_type(c, type, strlen(type));
    if (no_store) {
        NICD_RESP_HEADER(c, "Cache-Control", "no-store", 8);
    }
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) b->len);
    nicd_resp_end_headers(c);
    if (!head && b->len > 0) {
        nicd_resp_body_mem(c, b->data, b->len);
    }
    nicd_resp_finish(c, status);
}
