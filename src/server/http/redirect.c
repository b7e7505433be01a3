/*
 * Redirects' Location (redirect.h), as nginx's core module has it, at
 * every level:
 *
 *   absolute_redirect on | off;        (on)
 *   server_name_in_redirect on | off;  (off)
 *   port_in_redirect on | off;         (on)
 *
 * and the automatic redirect of a location that passes requests on,
 * which nginx's find-config phase answers (ngx_http_core_module.c, the
 * location tree's auto_redirect).
 */

#include <stddef.h>
#include <string.h>

#include "server/conf/directive.h"
#include "server/core/transport.h"
#include "server/http/handler.h"
#include "server/http/redirect.h"
#include "server/http/variables.h"

typedef struct {
    int absolute;  /* absolute_redirect */
    int name;      /* server_name_in_redirect */
    int port;      /* port_in_redirect */
    int automatic; /* the location passes requests on, its name ends '/' */
} redirect_conf_t;

nicd_module_t nicd_http_redirect_module;

static void *
create_conf(nicd_conf_t *c)
{
    redirect_conf_t *rc = nicd_conf_alloc(c, sizeof(*rc));

    if (rc != NULL) {
        rc->absolute = NICD_UNSET;
        rc->name = NICD_UNSET;
        rc->port = NICD_UNSET;
    }
    return rc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const redirect_conf_t *p = prev;
    redirect_conf_t       *rc = conf;

    (void) c;
    NICD_MERGE(rc, p, absolute, 1);
    NICD_MERGE(rc, p, name, 0);
    NICD_MERGE(rc, p, port, 1);
    return NULL; /* (automatic is the location's own) */
}

static const redirect_conf_t *
conf_of(const nicd_loc_conf_t *lc)
{
    return NICD_LOC_CONF(lc, nicd_http_redirect_module);
}

void
nicd_absolute_location(nicd_conn_t *c, const nicd_request_t *r,
                       const char *target, size_t len, nicd_buf_t *b)
{
    const nicd_loc_conf_t *lc = c->r->loc != NULL ? c->r->loc : c->r->srv->loc;
    const redirect_conf_t *rc = conf_of(lc);
    const char            *host;
    size_t                 hlen;
    unsigned               port;
    int                    tls = c->tp == &nicd_transport_tls;

    if (len > 0 && target[0] == '/' && rc->absolute) {
        nicd_buf_adds(b, tls ? "https://" : "http://");
        if (rc->name) {
            /* the server's first name ("" without one, as nginx's) */
            if (c->r->srv->nnames > 0) {
                nicd_buf_adds(b, c->r->srv->names[0]);
            }
        } else {
            nicd_request_host(r, &host, &hlen);
            if (host != NULL && hlen > 0) {
                nicd_buf_add(b, host, hlen);
            } else {
                nicd_local_addr_url(c, b);
            }
        }
        port = rc->port ? nicd_local_port(c) : 0;
        if (port != 0 && port != (tls ? 443u : 80u)) {
            nicd_buf_addf(b, ":%u", port);
        }
    }
    nicd_buf_add(b, target, len);
}

void
nicd_redirect_auto_set(parse_t *ps)
{
    nicd_loc_conf_t *lc = ps->loc;
    redirect_conf_t *rc = NICD_LOC_CONF(lc, nicd_http_redirect_module);

    if (!(ps->ctx & CTX_IF) && lc->name_len > 0
        && lc->name[lc->name_len - 1] == '/') {
        rc->automatic = 1;
    }
}

int
nicd_redirect_auto(const nicd_loc_conf_t *lc)
{
    return conf_of(lc)->automatic;
}

void
nicd_redirect_auto_target(const nicd_loc_conf_t *lc, const char *query,
                          size_t query_len, nicd_buf_t *b)
{
    nicd_buf_add_uri(b, lc->name, lc->name_len);
    if (query_len > 0) {
        nicd_buf_add(b, "?", 1);
        nicd_buf_add(b, query, query_len);
    }
}

static const directive_t redirect_directives[] = {
    {"absolute_redirect", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(redirect_conf_t, absolute)},
    {"server_name_in_redirect", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(redirect_conf_t, name)},
    {"port_in_redirect", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(redirect_conf_t, port)},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_redirect_module = {
    .name = "redirect",
    .directives = redirect_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
};
