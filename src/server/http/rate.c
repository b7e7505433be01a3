/*
 * How fast a response's body goes, at every level (http, server,
 * location, if in location), as nginx's core module has it:
 *
 *   limit_rate RATE;  (0: no limit)  limit_rate_after SIZE;  (0)
 *       variables allowed in both ("limit_rate $arg_l;"), evaluated once
 *       a response.  After SIZE bytes of it, the response goes at most
 *       RATE bytes a second, one second's worth at once (nginx's rule).
 *
 * A handler may set the rate of its response itself (the proxy's
 * X-Accel-Limit-Rate): nicd_rate_set().
 */

#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/size.h"
#include "server/conf/directive.h"
#include "server/http/rate.h"
#include "server/http/variables.h"

typedef struct {
    nicd_cv_t *rate, *after; /* NULL: unset (merged: NULL is 0) */
    int        rate_set, after_set;
    int        var; /* the http level's: $limit_rate's index, or -1 */
} rate_conf_t;

nicd_module_t nicd_http_rate_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(rate_conf_t));
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev_, void *conf_)
{
    const rate_conf_t *prev = prev_;
    rate_conf_t       *conf = conf_;

    (void) c;
    if (!conf->rate_set && prev != NULL) {
        conf->rate = prev->rate;
        conf->rate_set = prev->rate_set;
    }
    if (!conf->after_set && prev != NULL) {
        conf->after = prev->after;
        conf->after_set = prev->after_set;
    }
    return NULL;
}

/* a template's value as a size; a bad one is 0 (nginx: no limit), logged */
static uint64_t
size_of(nicd_conn_t *c, const nicd_cv_t *cv, const char *what)
{
    nicd_buf_t *b = &c->w->hexpand;
    size_t      v;

    if (cv == NULL || nicd_cv_eval(c, cv, NULL, b) != 0 || b->len == 0) {
        return 0;
    }
    if (nicd_parse_size(b->data, &v) != 0) {
        log_error(LOG_ERR, 0, "invalid \"%s\" value \"%s\", client: %s", what,
                  b->data, nicd_client(c));
        return 0;
    }
    return v;
}

/* "set $limit_rate VALUE": its size (a bad one 0, as nginx's), or
 * UINT64_MAX when nothing was set */
static uint64_t
set_rate_of(nicd_conn_t *c)
{
    const rate_conf_t *h =
        NICD_LOC_CONF(c->w->cycle->conf->http, nicd_http_rate_module);
    nicd_str_t v;
    char       text[32];
    size_t     n;

    if (h->var < 0 || !nicd_var_kept(c, h->var, &v)) {
        return UINT64_MAX;
    }
    if (v.len == 0 || v.len >= sizeof(text)) {
        return 0;
    }
    memcpy(text, v.p, v.len);
    text[v.len] = '\0';
    return nicd_parse_size(text, &n) == 0 ? n : 0;
}

void
nicd_rate_of(nicd_conn_t *c, uint32_t *rate, uint32_t *after)
{
    nicd_req_t        *q = c->r;
    const rate_conf_t *rc;

    if (q == NULL || q->loc == NULL) {
        *rate = *after = 0;
        return;
    }
    if (!q->rate_known) {
        rc = NICD_LOC_CONF(q->loc, nicd_http_rate_module);
        if (!q->rate_given) {
            uint64_t r = set_rate_of(c);

            if (r == UINT64_MAX) {
                r = size_of(c, rc->rate, "limit_rate");
            }
            q->rate = r > UINT32_MAX ? UINT32_MAX : (uint32_t) r;
        }
        {
            uint64_t a = size_of(c, rc->after, "limit_rate_after");

            q->rate_after = a > UINT32_MAX ? UINT32_MAX : (uint32_t) a;
        }
        q->rate_known = 1;
    }
    *rate = q->rate;
    *after = q->rate_after;
}

void
nicd_rate_set(nicd_conn_t *c, uint32_t rate)
{
    c->r->rate = rate;
    c->r->rate_given = 1;
    c->r->rate_known = 0; /* (limit_rate_after still the location's) */
}

static const char *
set_rate(parse_t *ps, const char **a, int n)
{
    rate_conf_t *rc = nicd_conf_module_loc(ps);
    int          after = strcmp(ps->d->name, "limit_rate_after") == 0;
    nicd_cv_t   *cv;
    const char  *msg, *text;
    size_t       len, v;

    (void) n;
    if ((cv = nicd_conf_cv(ps, a[0], &msg)) == NULL) {
        return msg;
    }
    if (nicd_cv_literal(cv, &text, &len) && nicd_parse_size(a[0], &v) != 0) {
        return nicd_conf_msg("invalid size \"%s\"", a[0]);
    }
    if (after) {
        rc->after = cv;
        rc->after_set = 1;
    } else {
        rc->rate = cv;
        rc->rate_set = 1;
    }
    return NULL;
}

/* $limit_rate: the response's rate, bytes a second ("set" may change it,
 * before the response starts) */
static int
get_limit_rate(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
               const char *suffix, size_t slen, nicd_buf_t *b)
{
    uint32_t rate, after;
    uint64_t set = set_rate_of(c);

    (void) x;
    (void) v;
    (void) suffix;
    (void) slen;
    if (set != UINT64_MAX) {
        nicd_buf_add_u64(b, set);
        return 0;
    }
    nicd_rate_of(c, &rate, &after);
    nicd_buf_add_u64(b, rate);
    return 0;
}

static const nicd_var_t rate_vars[] = {
    {"limit_rate", get_limit_rate, NICD_VAR_VOLATILE | NICD_VAR_CHANGEABLE,
     NULL},
    {NULL, NULL, 0, NULL},
};

static const char *
rate_postconfiguration(nicd_conf_t *c)
{
    rate_conf_t *h = NICD_LOC_CONF(c->http, nicd_http_rate_module);

    /* only a "set $limit_rate" (or a template reading it) indexes it:
     * without one no request looks for a value */
    h->var = nicd_var_indexed(c, "limit_rate", 10);
    return NULL;
}

static const directive_t rate_directives[] = {
    {"limit_rate", CTX_HSL | CTX_IF, 1, 1, set_rate, 0, 0, NULL},
    {"limit_rate_after", CTX_HSL | CTX_IF, 1, 1, set_rate, 0, 0, NULL},
    {NULL, 0, 0, 0, NULL, 0, 0, NULL},
};

nicd_module_t nicd_http_rate_module = {
    .name = "limit_rate",
    .directives = rate_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = rate_postconfiguration,
    .variables = rate_vars,
};
