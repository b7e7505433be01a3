/*
 * limit_except METHOD ... { ... }  (location), as nginx's core module has
 * it: a request whose method is not listed (GET brings HEAD with it) is
 * answered with the block's settings, which take the location's where
 * they set nothing: allow, deny, auth_basic and proxy_pass may stand in
 * it (CTX_LMT).  The block is a location of kind NICD_LOC_LIMIT_EXCEPT
 * nested in its own (so that it is merged with it), which no URI finds.
 */

#include <string.h>

#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "server/http/limit_except.h"

typedef struct {
    unsigned         allowed; /* 1 << NICD_M_* of the methods listed */
    nicd_loc_conf_t *inner;   /* the block's settings, or NULL: none */
} lmt_conf_t;

nicd_module_t nicd_http_limit_except_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(lmt_conf_t));
}

/* the methods nginx's limit_except takes (WebDAV's too: nicd answers
 * those as methods it does not know, which no list lets through) */
static const char *const known[] = {"GET",     "HEAD",     "POST",      "PUT",
                                    "DELETE",  "MKCOL",    "COPY",      "MOVE",
                                    "OPTIONS", "PROPFIND", "PROPPATCH", "LOCK",
                                    "UNLOCK",  "PATCH",    NULL};

static const char *
set_limit_except(parse_t *ps, const char **a, int n)
{
    nicd_conf_t     *c = ps->conf;
    nicd_loc_conf_t *outer = ps->loc, *l;
    lmt_conf_t      *lc = nicd_conf_module_loc(ps);
    int              i, k, m;

    if (lc->inner != NULL) {
        return "is duplicate";
    }
    for (i = 0; i < n; i++) {
        for (k = 0; known[k] != NULL && strcmp(known[k], a[i]) != 0; k++) {
        }
        if (known[k] == NULL) {
            return nicd_conf_msg("invalid method \"%s\"", a[i]);
        }
        m = nicd_http_method(a[i], strlen(a[i]));
        if (m != NICD_M_UNKNOWN) {
            lc->allowed |= 1u << m;
        }
        if (m == NICD_M_GET) {
            lc->allowed |= 1u << NICD_M_HEAD;
        }
    }
    l = nicd_conf_loc_new(c, NICD_LOC_LIMIT_EXCEPT);
    outer->locs = nicd_conf_grow(c, outer->locs, outer->nlocs, sizeof(l));
    if (l == NULL || outer->locs == NULL) {
        return "out of memory";
    }
    l->name = outer->name;
    l->name_len = outer->name_len;
    l->where = outer->where;
    l->parent = outer;
    l->srv = outer->srv;
    outer->locs[outer->nlocs++] = l;
    lc->inner = l;
    ps->loc = l; /* the block's directives */
    return NULL;
}

const nicd_loc_conf_t *
nicd_limit_except(const nicd_loc_conf_t *lc, int method)
{
    const lmt_conf_t *m = NICD_LOC_CONF(lc, nicd_http_limit_except_module);

    if (m == NULL || m->inner == NULL || (m->allowed & (1u << method))) {
        return lc;
    }
    return m->inner;
}

/* a block without a content handler of its own answers as its location
 * does (nginx's proxy module gives it its handler so) */
static void
inherit_handlers(nicd_loc_conf_t *l)
{
    lmt_conf_t *m = NICD_LOC_CONF(l, nicd_http_limit_except_module);
    int         i;

    if (m != NULL && m->inner != NULL && m->inner->handler == NULL) {
        m->inner->handler = l->handler;
        m->inner->handler_name = l->handler_name;
        m->inner->handler_body = l->handler_body;
    }
    for (i = 0; i < l->nlocs; i++) {
        inherit_handlers(l->locs[i]);
    }
}

static const char *
lmt_postconfiguration(nicd_conf_t *c)
{
    int i;

    for (i = 0; i < c->nservers; i++) {
        inherit_handlers(c->servers[i]->loc);
    }
    return NULL;
}

static const directive_t lmt_directives[] = {
    {"limit_except", CTX_LOC, 1, 14, set_limit_except, 0, CTX_LMT, NULL},
    {NULL, 0, 0, 0, NULL, 0, 0, NULL},
};

nicd_module_t nicd_http_limit_except_module = {
    .name = "limit_except",
    .directives = lmt_directives,
    .create_loc_conf = create_conf,
    .postconfiguration = lmt_postconfiguration,
};
