/*
 * server_tokens on | off | build;  (on) at every level, as nginx's core
 * module: whether the Server field and the error pages name nicd's
 * version ("nicd/0.1.0") or only "nicd".  build names the build too
 * where nginx was given one (--build=); nicd has none, so it is on.
 */

#include <string.h>

#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "server/http/tokens.h"

enum { TOKENS_OFF = 0, TOKENS_ON, TOKENS_BUILD };

typedef struct {
    int tokens;
} tokens_conf_t;

nicd_module_t nicd_http_tokens_module;

static void *
create_conf(nicd_conf_t *c)
{
    tokens_conf_t *t = nicd_conf_alloc(c, sizeof(*t));

    if (t != NULL) {
        t->tokens = NICD_UNSET;
    }
    return t;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const tokens_conf_t *p = prev;
    tokens_conf_t       *t = conf;

    (void) c;
    NICD_MERGE(t, p, tokens, TOKENS_ON);
    return NULL;
}

static const nicd_conf_enum_t tokens_values[] = {
    {"off", TOKENS_OFF}, {"on", TOKENS_ON}, {"build", TOKENS_BUILD}, {NULL, 0}};

static const char *
set_tokens(parse_t *ps, const char **a, int n)
{
    tokens_conf_t *t = nicd_conf_module_loc(ps);
    int            i;

    (void) n;
    if (t->tokens != NICD_UNSET) {
        return "is duplicate";
    }
    for (i = 0; tokens_values[i].name != NULL; i++) {
        if (strcmp(a[0], tokens_values[i].name) == 0) {
            t->tokens = tokens_values[i].value;
            return NULL;
        }
    }
    return nicd_conf_msg("invalid value \"%s\", it must be \"on\", \"off\" or "
                         "\"build\"",
                         a[0]);
}

const char *
nicd_server_line(nicd_conn_t *c, size_t *len)
{
    static const char      on[] = "Server: nicd/" NICD_VERSION "\r\n";
    static const char      off[] = "Server: nicd\r\n";
    const nicd_loc_conf_t *lc = c->r != NULL ? c->r->loc : NULL;
    const tokens_conf_t   *t;

    if (lc == NULL) {
        lc = c->r != NULL && c->r->srv != NULL ? c->r->srv->loc
                                               : c->w->cycle->conf->http;
    }
    t = NICD_LOC_CONF(lc, nicd_http_tokens_module);
    if (t != NULL && t->tokens == TOKENS_OFF) {
        *len = sizeof(off) - 1;
        return off;
    }
    *len = sizeof(on) - 1;
    return on;
}

static const directive_t tokens_directives[] = {
    {"server_tokens", CTX_HSL, 1, 1, set_tokens, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_tokens_module = {
    .name = "server_tokens",
    .directives = tokens_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
};
