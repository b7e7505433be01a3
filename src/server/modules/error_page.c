/*
 * error_page CODE ... [=[RESPONSE]] URI (nginx's): an error answered
 * with CODE is answered instead by an internal redirect to URI (a GET),
 * keeping CODE as the status unless "=RESPONSE" says another (a bare "="
 * takes the status of what URI answers); a URI that is a URL (or
 * "=301"/"=302" with one) is a redirect.
 */

#include <stdlib.h>
#include <string.h>

#include "server/conf/directive.h"
#include "server/http/lookup.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

/* "error_page CODE ... [=[CODE]] URI;" */
typedef struct {
    int status;
    int override;         /* =CODE: the answer's status; 0: the original; -1:
                       "=" alone, the status of what URI answers */
    const nicd_cv_t *uri; /* may hold variables */
} error_page_t;

/* the module's settings of a level: the list, taken whole from the
 * enclosing level when a level has none, as in nginx */
typedef struct {
    error_page_t *pages;
    int           npages;
} error_page_conf_t;

nicd_module_t nicd_error_page_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(error_page_conf_t));
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const error_page_conf_t *p = prev;
    error_page_conf_t       *ec = conf;

    (void) c;
    NICD_MERGE_LIST(ec, p, pages, npages);
    return NULL;
}

static const char *
set_error_page(parse_t *ps, const char **a, int n)
{
    error_page_conf_t *l = nicd_conf_module_loc(ps);
    error_page_t       ep;
    const char        *uri = a[n - 1];
    char              *end;
    int                i, codes = n - 1, override = 0;
    long               v;
    const char        *err;

    if (codes >= 1 && a[n - 2][0] == '=') {
        codes--;
        if (a[n - 2][1] == '\0') {
            override = -1;
        } else {
            v = strtol(a[n - 2] + 1, &end, 10);
            if (*end != '\0' || v < 100 || v > 999) {
                return nicd_conf_msg("invalid value \"%s\"", a[n - 2]);
            }
            override = (int) v;
        }
    }
    if (codes < 1) {
        return "invalid number of arguments";
    }
    for (i = 0; i < codes; i++) {
        v = strtol(a[i], &end, 10);
        if (*end != '\0' || v < 300 || v > 599) {
            return nicd_conf_msg("value \"%s\" must be between 300 and 599",
                                 a[i]);
        }
        ep.status = (int) v;
        ep.override = override;
        ep.uri = nicd_conf_cv(ps, uri, &err);
        if (ep.uri == NULL) {
            return err;
        }
        l->pages = nicd_conf_grow(ps->conf, l->pages, l->npages, sizeof(ep));
        if (l->pages == NULL) {
            return "out of memory";
        }
        l->pages[l->npages++] = ep;
    }
    return NULL;
}

static int page(nicd_conn_t *c, const nicd_request_t *r, const error_page_t *ep,
                int status, const char *uri, size_t len);

/*
 * The error page handler (phases.h): answer status by the page the
 * location names for it, once a request.  1 when it did.
 */
static int
error_page(nicd_conn_t *c, int status, int head)
{
    const error_page_conf_t *ec;
    const error_page_t      *ep = NULL;
    nicd_request_t           r;
    nicd_buf_t               b = {0};
    const char              *uri;
    size_t                   len;
    int                      i, rc;

    if (c->r->loc == NULL || c->r->error_paged || c->r->in == NULL) {
        return 0;
    }
    ec = NICD_LOC_CONF(c->r->loc, nicd_error_page_module);
    for (i = 0; i < ec->npages && ep == NULL; i++) {
        if (ec->pages[i].status == status) {
            ep = &ec->pages[i];
        }
    }
    if (ep == NULL) {
        return 0;
    }
    c->r->error_paged = 1;
    r = *c->r->in;
    if (r.method != NICD_M_HEAD) {
        r.method = NICD_M_GET; /* nginx: the page is fetched with GET */
    }
    for (i = 0; i < NICD_NHDR; i++) {
        /* no ranges or conditionals on the page (nginx applies them to a
         * 200 only); Host, Accept-Encoding and Authorization stay, as in
         * nginx's internal redirect (a page may be compressed, or served
         * from a .gz) */
        if (i != NICD_HDR_HOST && i != NICD_HDR_ACCEPT_ENCODING
            && i != NICD_HDR_AUTHORIZATION) {
            r.hdr[i].p = NULL;
            r.hdr[i].len = 0;
        }
    }
    (void) head;
    if (!nicd_cv_literal(ep->uri, &uri, &len)) {
        if (nicd_cv_eval(c, ep->uri, NULL, &b) != 0) {
            nicd_buf_free(&b);
            c->r->error_paged = 0;
            return 0; /* (logged) the built-in page, then */
        }
        uri = b.data;
        len = b.len;
    }
    rc = page(c, &r, ep, status, uri, len);
    nicd_buf_free(&b);
    return rc;
}

/* the page ep names at uri (len bytes, NUL-terminated) for status */
static int
page(nicd_conn_t *c, const nicd_request_t *r, const error_page_t *ep,
     int status, const char *uri, size_t len)
{
    if (nicd_is_url(uri, len)) {
        nicd_redirect(c, r, ep->override > 0 ? ep->override : 302, uri, len);
        return 1;
    }
    /* "=" alone: the status of what the page's URI answers */
    c->r->status_override = ep->override == 0    ? status
                            : ep->override == -1 ? 0
                                                 : ep->override;
    if (uri[0] == '@') {
        const nicd_loc_conf_t *nl = nicd_conf_named(c->r->srv, uri);

        if (nl == NULL) {
            c->r->status_override = 0;
            return 0;
        }
        nicd_named_location(c, r, uri, len, nl);
        return 1;
    }
    nicd_internal_redirect(c, r, uri, len, 0);
    return 1;
}

/* does level lc name a page? */
static int
has_pages(const nicd_loc_conf_t *lc, const void *arg)
{
    const error_page_conf_t *ec = NICD_LOC_CONF(lc, nicd_error_page_module);

    (void) arg;
    return ec->npages > 0;
}

static const char *
error_page_postconfiguration(nicd_conf_t *c)
{
    return nicd_conf_any_level(c, has_pages, NULL)
               ? nicd_error_page_add(c, error_page)
               : NULL;
}

static const directive_t nicd_error_page_directives[] = {
    {"error_page", CTX_HSL, 2, MAX_ARGS, set_error_page, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_error_page_module = {
    .name = "error_page",
    .directives = nicd_error_page_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = error_page_postconfiguration,
};
