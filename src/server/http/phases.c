/*
 * A request's walk through its server's configuration, nginx's phases:
 *
 *   server selection   the listen address, then Host against server_name
 *   server rewrite     the server's rewrite and return, in order
 *   find location      "=", longest prefix (its nested ones), regexes
 *   rewrite            the location's rewrite and return; "last" finds a
 *                      location again for the new URI
 *   access             internal locations refuse outside requests (404)
 *   try_files          the first file that exists, else the last item
 *   content            the location's handler (a report, Lua) or files
 *   header filters     add_header, expires, charset (nicd_resp_end_headers)
 *   error_page         an error status redirects internally
 *
 * An internal redirect (rewrite last, try_files' last item, error_page, a
 * named location) starts again at "find location"; more than
 * internal_redirects of them (10, as nginx) is a 500 and a log line.
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

#include "handler.h"
#include "path.h"
#include "variables.h"

static const nicd_server_conf_t *
server_of(nicd_conn_t *c, const nicd_request_t *r)
{
    const char *host;
    size_t      len;

    nicd_request_host(r, &host, &len);
    return nicd_conf_find_server(c->w->cycle->conf, c->sc.listener, host, len,
                                 nicd_match_data(c->w));
}

static int
is_url(const char *s, size_t n)
{
    return (n >= 7 && strncmp(s, "http://", 7) == 0)
           || (n >= 8 && strncmp(s, "https://", 8) == 0);
}

/*
 * A redirect to target (a URL, or a path made absolute with the request's
 * scheme, Host and the port it came to, as nginx's absolute_redirect).
 */
#define redirect nicd_redirect

void
nicd_redirect(nicd_conn_t *c, const nicd_request_t *r, int status,
              const char *target, size_t len)
{
    nicd_buf_t  own = {0}, *b = &own; /* target may be in w->scratch */
    const char *host;
    size_t      hlen;
    unsigned    port;
    int         tls = c->tp == &nicd_transport_tls;

    if (!is_url(target, len) && c->loc->absolute_redirect) {
        nicd_request_host(r, &host, &hlen);
        if (host == NULL || hlen == 0) {
            host = c->srv->nnames > 0 && c->srv->names[0][0] != '\0'
                       ? c->srv->names[0]
                       : "localhost";
            hlen = strlen(host);
        }
        port = nicd_local_port(c);
        nicd_buf_addf(b, "%s://%.*s", tls ? "https" : "http", (int) hlen, host);
        if (port != (tls ? 443u : 80u)) {
            nicd_buf_addf(b, ":%u", port);
        }
    }
    nicd_buf_add(b, target, len);
    if (nicd_buf_failed(b)) {
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
        return;
    }
    nicd_respond_error(c, status, r->method == NICD_M_HEAD, b->data, b->len);
    nicd_buf_free(b);
}

/* "return CODE TEXT": the text as the body (text/plain, nginx's
 * default_type for it is the location's) */
static void
return_text(nicd_conn_t *c, const nicd_request_t *r, int code, const char *text,
            size_t len)
{
    const char *t = c->loc->default_type, *body;
    nicd_buf_t  z = {0};

    body = nicd_body_filter(c, t, strlen(t), text, &len, &z);
    nicd_resp_start(c, code);
    nicd_resp_content_type(c, t, strlen(t));
    if (body != text) {
        NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
    }
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) len);
    nicd_resp_end_headers(c);
    if (r->method != NICD_M_HEAD && len > 0) {
        nicd_resp_body_mem(c, body, len);
    }
    nicd_buf_free(&z);
    nicd_resp_finish(c, code);
}

enum { RW_GO_ON = 0, RW_DONE, RW_AGAIN, RW_BREAK };

/* the rewrite module's state while a list of rules runs */
typedef struct {
    nicd_buf_t        cur;  /* the URI as the rules change it */
    nicd_buf_t        subj; /* what the last regex matched, for $1..$9 */
    const PCRE2_SIZE *caps;
    int               ncaps;
    int               changed;
} rw_state_t;

/* a path test of if: -f, -d, -e, -x */
static int
path_test(int op, const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        return 0;
    }
    switch (op) {
    case NICD_IF_FILE: return !S_ISDIR(st.st_mode);
    case NICD_IF_DIR: return S_ISDIR(st.st_mode);
    case NICD_IF_EXEC: return access(path, X_OK) == 0;
    }
    return 1;
}

/* if's condition: 1 true, 0 false, -1 an error (logged) */
static int
condition(nicd_conn_t *c, const nicd_request_t *r, const nicd_if_t *cond,
          rw_state_t *st, pcre2_match_data *md)
{
    nicd_buf_t *v = &c->w->expand, rhs = {0};
    int         t, n;

    if (nicd_expand(c, r, st->cur.data, st->cur.len, cond->var, v,
                    st->subj.data, st->caps, st->ncaps)
        != 0) {
        return -1;
    }
    nicd_buf_add(v, "", 1);
    if (nicd_buf_failed(v)) {
        return -1;
    }
    v->len--;
    switch (cond->op) {
    case NICD_IF_TRUE:
        t = v->len > 0 && !(v->len == 1 && v->data[0] == '0');
        break;
    case NICD_IF_EQ:
        if (nicd_expand(c, r, st->cur.data, st->cur.len, cond->value, &rhs,
                        st->subj.data, st->caps, st->ncaps)
            != 0) {
            nicd_buf_free(&rhs);
            return -1;
        }
        t = rhs.len == v->len && memcmp(rhs.data, v->data, v->len) == 0;
        nicd_buf_free(&rhs);
        break;
    case NICD_IF_RE:
        n = pcre2_match(cond->re, (PCRE2_SPTR) v->data, v->len, 0, 0, md, NULL);
        t = n >= 0;
        if (t && !cond->negate) {
            /* its captures serve the block's rules */
            st->subj.len = 0;
            nicd_buf_add(&st->subj, v->data, v->len);
            nicd_buf_add(&st->subj, "", 1);
            st->caps = pcre2_get_ovector_pointer(md);
            st->ncaps = n;
        }
        break;
    default: t = path_test(cond->op, v->data);
    }
    return cond->negate ? !t : t;
}

/*
 * Run rules (n of them) on st->cur.  RW_DONE: answered; RW_AGAIN: "last";
 * RW_BREAK: "break" (the flag or the directive); RW_GO_ON: all ran.
 */
static int
rules(nicd_conn_t *c, const nicd_request_t *r, const nicd_rewrite_t *rw,
      int nrw, rw_state_t *st)
{
    nicd_worker_t    *w = c->w;
    pcre2_match_data *md = nicd_match_data(w);
    int               i, n, rc, code, head = r->method == NICD_M_HEAD;

    if (md == NULL) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return RW_DONE;
    }
    for (i = 0; i < nrw; i++, rw++) {
        switch (rw->flag) {
        case NICD_REWRITE_STOP: return RW_BREAK;
        case NICD_REWRITE_SET:
            if (nicd_expand(c, r, st->cur.data, st->cur.len, rw->replacement,
                            &w->expand, st->subj.data, st->caps, st->ncaps)
                    != 0
                || nicd_var_set(w, rw->var, w->expand.data, w->expand.len)
                       != 0) {
                nicd_respond_error(c, 500, head, NULL, 0);
                return RW_DONE;
            }
            continue;
        case NICD_REWRITE_IF:
            rc = condition(c, r, rw->cond, st, md);
            if (rc < 0) {
                nicd_respond_error(c, 500, head, NULL, 0);
                return RW_DONE;
            }
            if (rc == 1) {
                rc = rules(c, r, rw->block->rewrites, rw->block->nrewrites, st);
                if (rc != RW_GO_ON) {
                    return rc;
                }
            }
            continue;
        case NICD_REWRITE_RETURN:
            c->resp_status = rw->code; /* $status in the text, as nginx */
            if (nicd_expand(c, r, st->cur.data, st->cur.len, rw->replacement,
                            &w->expand, st->subj.data, st->caps, st->ncaps)
                != 0) {
                nicd_respond_error(c, 500, head, NULL, 0);
                return RW_DONE;
            }
            code = rw->code;
            if (code == 301 || code == 302 || code == 303 || code == 307
                || code == 308) {
                redirect(c, r, code, w->expand.data, w->expand.len);
            } else if (rw->replacement[0] == '\0') {
                /* no text: nginx's page for the code, if it has one */
                nicd_respond_error(c, code, head, NULL, 0);
            } else {
                return_text(c, r, code, w->expand.data, w->expand.len);
            }
            return RW_DONE;
        }
        n = pcre2_match(rw->re, (PCRE2_SPTR) st->cur.data, st->cur.len, 0, 0,
                        md, NULL);
        if (n < 0) {
            continue;
        }
        st->subj.len = 0;
        nicd_buf_add(&st->subj, st->cur.data, st->cur.len);
        nicd_buf_add(&st->subj, "", 1);
        st->caps = pcre2_get_ovector_pointer(md);
        st->ncaps = n;
        if (nicd_expand(c, r, st->cur.data, st->cur.len, rw->replacement,
                        &w->expand, st->subj.data, st->caps, st->ncaps)
            != 0) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return RW_DONE;
        }
        if (rw->flag == NICD_REWRITE_REDIRECT
            || rw->flag == NICD_REWRITE_PERMANENT) {
            /* the request's arguments follow unless the new URI has its
             * own (nginx) */
            if (r->query.len > 0
                && memchr(w->expand.data, '?', w->expand.len) == NULL) {
                nicd_buf_add(&w->expand, "?", 1);
                nicd_buf_add(&w->expand, r->query.p, r->query.len);
            }
            redirect(c, r, rw->flag == NICD_REWRITE_PERMANENT ? 301 : 302,
                     w->expand.data, w->expand.len);
            return RW_DONE;
        }
        st->cur.len = 0;
        nicd_buf_add(&st->cur, w->expand.data, w->expand.len);
        st->changed = 1;
        if (rw->flag == NICD_REWRITE_LAST) {
            return RW_AGAIN;
        }
        if (rw->flag == NICD_REWRITE_BREAK) {
            return RW_BREAK;
        }
    }
    return RW_GO_ON;
}

/*
 * Run the rewrites of lc on uri.  RW_DONE: answered; RW_AGAIN: the URI
 * (in w->uri) is to find a location again ("last", or a rewrite without
 * a flag that changed it, as nginx's post-rewrite phase does); RW_BREAK:
 * the URI (w->uri) stays in this location; RW_GO_ON: nothing changed.
 */
static int
rewrite_phase(nicd_conn_t *c, const nicd_request_t *r,
              const nicd_loc_conf_t *lc, const char *uri, size_t len)
{
    nicd_worker_t *w = c->w;
    rw_state_t     st;
    int            rc;

    memset(&st, 0, sizeof(st));
    nicd_buf_add(&st.cur, uri, len);
    rc = rules(c, r, lc->rewrites, lc->nrewrites, &st);
    if (rc == RW_GO_ON && st.changed) {
        rc = RW_AGAIN;
    }
    if (rc == RW_BREAK && !st.changed) {
        rc = RW_GO_ON;
    }
    if (rc == RW_AGAIN || rc == RW_BREAK) {
        w->uri.len = 0;
        nicd_buf_add(&w->uri, st.cur.data, st.cur.len);
        nicd_buf_add(&w->uri, "", 1);
        if (nicd_buf_failed(&w->uri) || nicd_buf_failed(&st.cur)) {
            nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
            rc = RW_DONE;
        }
    }
    nicd_buf_free(&st.cur);
    nicd_buf_free(&st.subj);
    return rc;
}

static void run(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
                size_t len, const nicd_loc_conf_t *named, int server_rw);

#define internal_redirect nicd_internal_redirect

/* expand the first n bytes of tmpl (try_files' items) */
static int
expand_n(nicd_conn_t *c, const nicd_request_t *r, const char *uri, size_t ulen,
         const char *tmpl, size_t n, nicd_buf_t *b)
{
    char *t = strndup(tmpl, n);
    int   rc;

    if (t == NULL) {
        return -1;
    }
    rc = nicd_expand(c, r, uri, ulen, t, b, NULL, NULL, 0);
    free(t);
    return rc;
}

/* an internal redirect to uri (a copy is made: uri may be in w->uri) */
void
nicd_internal_redirect(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
                       size_t len)
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
    status = nicd_path_normalize(uri, n, copy, &n);
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
 * try_files: 1 when it answered (or redirected), 0 to serve *uri as it
 * stands (set to the file found).
 */
static int
try_files_phase(nicd_conn_t *c, const nicd_request_t *r,
                const nicd_loc_conf_t *lc, const char *uri, size_t len)
{
    nicd_worker_t *w = c->w;
    nicd_file_t   *f;
    const char    *last = lc->try_files[lc->ntry_files - 1];
    int            i, err, dir, head = r->method == NICD_M_HEAD;
    char          *copy;

    for (i = 0; i < lc->ntry_files - 1; i++) {
        /* an item written with a trailing "/" looks for a directory,
         * named without that slash (nginx decides it on the item as
         * written, not on what it expands to) */
        size_t ilen = strlen(lc->try_files[i]);

        dir = ilen > 0 && lc->try_files[i][ilen - 1] == '/';
        if (expand_n(c, r, uri, len, lc->try_files[i], ilen - (size_t) dir,
                     &w->expand)
                != 0
            || w->expand.len == 0) {
            continue;
        }
        nicd_buf_add(&w->expand, "", 1);
        copy = malloc(w->expand.len);
        if (copy == NULL) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return 1;
        }
        memcpy(copy, w->expand.data, w->expand.len);
        if (nicd_http_hooks.lookup(c, lc, copy, w->expand.len - 1, &f, &err)
            == 0) {
            int ok = f->is_dir == (unsigned) dir;

            nicd_ofc_release(&w->ofc, f);
            if (ok) {
                nicd_http_hooks.files(c, r, lc, copy, w->expand.len - 1);
                free(copy);
                return 1;
            }
        } else if (err != ENOENT && err != ENOTDIR && err != ENAMETOOLONG) {
            nicd_respond_error(c, nicd_open_status(c, err, copy), head, NULL,
                               0);
            free(copy);
            return 1;
        }
        free(copy);
    }
    if (last[0] == '=') {
        nicd_respond_error(c, atoi(last + 1), head, NULL, 0);
        return 1;
    }
    if (last[0] == '@') {
        const nicd_loc_conf_t *nl = nicd_conf_named(c->srv, last);

        if (nl == NULL) {
            log_error(LOG_ERR, 0,
                      "could not find named location \"%s\", "
                      "client: %s",
                      last, c->addr);
            nicd_respond_error(c, 500, head, NULL, 0);
            return 1;
        }
        run(c, r, uri, len, nl, 0);
        return 1;
    }
    if (nicd_expand(c, r, uri, len, last, &w->expand, NULL, NULL, 0) != 0) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return 1;
    }
    internal_redirect(c, r, w->expand.data, w->expand.len);
    return 1;
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
    if (++c->redirects <= c->w->cycle->conf->internal_redirects + 1) {
        return 0;
    }
    log_error(LOG_ERR, 0,
              "rewrite or internal redirection cycle while processing "
              "\"%.*s\", client: %s",
              (int) len, uri, c->addr);
    c->error_paged = 1;
    nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
    return 1;
}

/* the URI the rewrites left in w->uri, made the one at hand (*own, the
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
    return 0;
}

/* the phases from "find location" on, for uri (normalised) */
static void
run(nicd_conn_t *c, const nicd_request_t *r, const char *uri, size_t len,
    const nicd_loc_conf_t *named, int server_rw)
{
    const nicd_loc_conf_t *lc;
    int                    head = r->method == NICD_M_HEAD, rc;
    char                  *own = NULL;

    if (redirect_cycle(c, r, uri, len)) {
        return;
    }
    if (server_rw && c->srv->loc->nrewrites > 0) {
        c->loc = c->srv->loc;
        rc = rewrite_phase(c, r, c->srv->loc, uri, len);
        if (rc == RW_DONE) {
            return;
        }
        if (rc != RW_GO_ON && take_uri(c, r, &own, &uri, &len) != 0) {
            return;
        }
    }

    for (;;) {
        lc = named != NULL ? named
                           : nicd_conf_find_location(c->srv, uri, len,
                                                     nicd_match_data(c->w));
        c->loc = lc;
        c->cur_uri = uri;
        c->cur_uri_len = len;
        if (lc->internal && c->redirects <= 1) {
            nicd_respond_error(c, 404, head, NULL, 0);
            goto out;
        }
        if (lc->nrewrites == 0 || lc == c->srv->loc) {
            break;
        }
        rc = rewrite_phase(c, r, lc, uri, len);
        if (rc == RW_DONE) {
            goto out;
        }
        if (rc == RW_GO_ON) {
            break;
        }
        if (take_uri(c, r, &own, &uri, &len) != 0) {
            return;
        }
        c->cur_uri = uri;
        c->cur_uri_len = len;
        if (rc == RW_BREAK) {
            break;
        }
        /* "last": a location again, counted as nginx counts it */
        named = NULL;
        if (redirect_cycle(c, r, uri, len)) {
            goto out;
        }
    }

    if ((lc->naccess > 0 || lc->auth_realm != NULL)
        && nicd_http_hooks.access != NULL && nicd_http_hooks.access(c, r, lc)) {
        goto out;
    }
    if (lc->ntry_files > 0 && try_files_phase(c, r, lc, uri, len)) {
        goto out;
    }
    if (lc->handler != NULL) {
        if (lc->lua == NULL && r->method != NICD_M_GET && !head) {
            nicd_respond_error(c, 405, head, NULL, 0);
        } else {
            lc->handler(c, r, lc);
        }
        goto out;
    }
    nicd_http_hooks.files(c, r, lc, uri, len);
out:
    free(own);
}

void
nicd_handle(nicd_conn_t *c, const nicd_request_t *r)
{
    int    head = r->method == NICD_M_HEAD;
    char  *path;
    size_t len;
    int    status;

    c->srv = server_of(c, r);
    c->loc = c->srv->loc;
    c->cur_request = r;
    c->cur_uri = NULL;
    c->w->vars.len = 0; /* "set" variables live for one request */
    c->resp_status = 0; /* $status: "000" until a response starts */
    if (c->w->stats->srv != NULL) {
        NICD_STAT_ADD(c->w->stats->srv[c->srv->index * NICD_SRV_STATS], 1);
    }
    c->redirects = 0;
    c->status_override = 0;
    c->error_paged = 0;
    c->gzipped = 0;
    c->vary_ae = 0;
    c->type_of = NULL;
    /* the request's own buffer (w->path is the static handler's): no
     * copy on the way to the file */
    if (nicd_buf_reserve(&c->w->reqpath, r->path.len + 2) != 0) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    path = c->w->reqpath.data;
    status = nicd_path_normalize(r->path.p, r->path.len, path, &len);
    if (status != 0) {
        log_error(LOG_INFO, 0, "client sent invalid path, client: %s", c->addr);
        nicd_respond_error(c, status, head, NULL, 0);
        return;
    }
    run(c, r, path, len, NULL, 1);
    c->loc = NULL;
    c->cur_request = NULL;
    c->cur_uri = NULL;
}

int
nicd_lua_location(nicd_conn_t *c, const nicd_request_t *r)
{
    const nicd_conf_t        *cf = c->w->cycle->conf;
    const nicd_server_conf_t *srv;
    const nicd_loc_conf_t    *lc;
    size_t                    n;

    if (cf->nlua == 0 || nicd_buf_reserve(&c->w->path, r->path.len + 2) != 0
        || nicd_path_normalize(r->path.p, r->path.len, c->w->path.data, &n)
               != 0) {
        return 0;
    }
    srv = server_of(c, r);
    lc =
        nicd_conf_find_location(srv, c->w->path.data, n, nicd_match_data(c->w));
    return lc->lua != NULL;
}

/*
 * error_page: answer status by the page the location names for it, once
 * a request.  1 when it did.
 */
int
nicd_error_page(nicd_conn_t *c, int status, int head)
{
    const nicd_loc_conf_t   *lc = c->loc;
    const nicd_error_page_t *ep = NULL;
    nicd_request_t           r;
    int                      i;

    if (lc == NULL || c->error_paged || c->cur_request == NULL) {
        return 0;
    }
    for (i = 0; i < lc->nerror_pages && ep == NULL; i++) {
        if (lc->error_pages[i].status == status) {
            ep = &lc->error_pages[i];
        }
    }
    if (ep == NULL) {
        return 0;
    }
    c->error_paged = 1;
    r = *c->cur_request;
    if (r.method != NICD_M_HEAD) {
        r.method = NICD_M_GET; /* nginx: the page is fetched with GET */
    }
    for (i = 0; i < NICD_NHDR; i++) {
        if (i != NICD_HDR_HOST) {
            r.hdr[i].p = NULL; /* no ranges or conditionals on the page */
            r.hdr[i].len = 0;
        }
    }
    (void) head;
    if (is_url(ep->uri, strlen(ep->uri))) {
        redirect(c, &r, ep->override > 0 ? ep->override : 302, ep->uri,
                 strlen(ep->uri));
        return 1;
    }
    /* "=" alone: the status of what the page's URI answers */
    c->status_override = ep->override == 0    ? status
                         : ep->override == -1 ? 0
                                              : ep->override;
    if (ep->uri[0] == '@') {
        const nicd_loc_conf_t *nl = nicd_conf_named(c->srv, ep->uri);

        if (nl == NULL) {
            c->status_override = 0;
            return 0;
        }
        run(c, &r, ep->uri, strlen(ep->uri), nl, 0);
        return 1;
    }
    internal_redirect(c, &r, ep->uri, strlen(ep->uri));
    return 1;
}

void
nicd_phases_worker_free(nicd_worker_t *w)
{
    pcre2_match_data_free(w->match);
    w->match = NULL;
    pcre2_match_data_free(w->map_match);
    w->map_match = NULL;
    nicd_buf_free(&w->vars);
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
    const char *body;
    nicd_buf_t  z = {0};
    size_t      blen;
    int         n;

    if (status >= 300 && nicd_error_page(c, status, head)) {
        return;
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

    n = snprintf(page, sizeof(page),
                 "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n"
                 "<center><h1>%d %s</h1></center>\r\n<hr><center>nicd</center>"
                 "\r\n</body>\r\n</html>\r\n",
                 status, nicd_status_reason(status), status,
                 nicd_status_reason(status));
    blen = (size_t) n;

    body = nicd_body_filter(c, "text/html", 9, page, &blen, &z);
    nicd_resp_start(c, status);
    nicd_resp_content_type(c, "text/html", 9);
    if (body != page) {
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
