/*
 * map SOURCE $NAME { KEY VALUE; ... }  (nginx's ngx_http_map_module, for
 * the common cases): $NAME is VALUE of the first KEY that matches what
 * SOURCE expands to, evaluated when $NAME is used (http/variables.c).
 * Strings match ignoring case and win over regular expressions ("~KEY",
 * "~*KEY" ignoring case, tried in the order written, their captures $1..$9
 * in VALUE); "default VALUE" when none matches (else the empty string).
 * VALUE may hold variables.  "\\" before a KEY takes it literally
 * ("\\default", "\\~x").  As nginx, a value is found once a request and
 * kept (internal redirects and "rewrite ... last" included), unless the
 * map says "volatile".  "hostnames" and "include" inside a map are
 * refused.
 */

#include <string.h>
#include <strings.h>

#include "directive.h"

static const char *
map_line(parse_t *ps, const char **a, int n)
{
    nicd_map_t      *m = ps->lines_data;
    nicd_map_entry_t e;
    const char      *key = a[0];
    char             err[512];
    int              i;

    if (n == 1 && strcmp(key, "volatile") == 0) {
        m->volatile_ = 1;
        return NULL;
    }
    if (strcmp(key, "hostnames") == 0 || strcmp(key, "include") == 0) {
        return nicd_conf_msg("\"%s\" is not supported (nicd's map has "
                             "strings, regular expressions and default)",
                             key);
    }
    if (n != 2) {
        return "invalid number of arguments";
    }
    if (strcmp(key, "default") == 0) {
        if (m->deflt != NULL) {
            return "duplicate default map parameter";
        }
        m->deflt = nicd_conf_strdup(ps->conf, a[1]);
        return m->deflt == NULL ? "out of memory" : NULL;
    }
    memset(&e, 0, sizeof(e));
    if (key[0] == '~') {
        int caseless = key[1] == '*';

        e.re = nicd_conf_regex(ps->conf, key + 1 + caseless, caseless, err,
                               sizeof(err));
        if (e.re == NULL) {
            return nicd_conf_msg("%s", err);
        }
    } else {
        if (key[0] == '\\') {
            key++;
        }
        for (i = 0; i < m->nentries; i++) {
            if (m->entries[i].key != NULL
                && strcasecmp(m->entries[i].key, key) == 0) {
                return nicd_conf_msg("conflicting parameter \"%s\"", key);
            }
        }
        e.key = nicd_conf_strdup(ps->conf, key);
        if (e.key == NULL) {
            return "out of memory";
        }
    }
    e.value = nicd_conf_strdup(ps->conf, a[1]);
    m->entries = nicd_conf_grow(ps->conf, m->entries, m->nentries, sizeof(e));
    if (e.value == NULL || m->entries == NULL) {
        return "out of memory";
    }
    m->entries[m->nentries++] = e;
    return NULL;
}

static const char *
set_map(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    nicd_map_t  *m, **all;
    int          i;

    (void) n;
    if (a[1][0] != '$' || a[1][1] == '\0') {
        return nicd_conf_msg("invalid variable name \"%s\"", a[1]);
    }
    for (i = 0; i < c->nmaps; i++) {
        if (strcmp(c->maps[i]->name, a[1] + 1) == 0) {
            return nicd_conf_msg("duplicate map variable \"%s\"", a[1]);
        }
    }
    m = nicd_conf_alloc(c, sizeof(*m));
    all = nicd_conf_grow(c, c->maps, c->nmaps, sizeof(m));
    if (m == NULL || all == NULL
        || (m->source = nicd_conf_strdup(c, a[0])) == NULL
        || (m->name = nicd_conf_strdup(c, a[1] + 1)) == NULL) {
        return "out of memory";
    }
    m->name_len = strlen(m->name);
    all[c->nmaps++] = m;
    c->maps = all;
    ps->lines = map_line;
    ps->lines_data = m;
    return NULL;
}

static const directive_t nicd_map_directives[] = {
    {"map", CTX_HTTP, 2, 2, set_map, 0, CTX_LINES},
    {"map_hash_max_size", CTX_HTTP, 1, 1, nicd_conf_housekeeping, 0, 0},
    {"map_hash_bucket_size", CTX_HTTP, 1, 1, nicd_conf_housekeeping, 0, 0},
    {NULL, 0, 0, 0, NULL, 0, 0},
};

nicd_module_t nicd_map_module = {
    .name = "map",
    .directives = nicd_map_directives,
};
