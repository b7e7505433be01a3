/*
 * Finding a server and a location for a request (lookup.h).
 */

#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "server/http/lookup.h"
#include "server/http/redirect.h"

const nicd_server_conf_t *
nicd_conf_find_server(const nicd_conf_t *c, int li, const char *host,
                      size_t len, void *match_data)
{
    nicd_server_conf_t *const *list = c->listen_servers[li];
    const nicd_server_conf_t  *best = NULL, *re_best = NULL;
    size_t                     q, bestq = 0;
    int                        i, k, n = c->listen_nservers[li];

    if (n == 1 || host == NULL || len == 0) {
        return list[0];
    }
    for (i = 0; i < n; i++) {
        for (k = 0; k < list[i]->nnames; k++) {
            if (list[i]->name_re[k] != NULL) {
                if (re_best == NULL) {
                    pcre2_match_data *md = match_data;

                    if (md == NULL) {
                        md = pcre2_match_data_create(1, NULL);
                    }
                    if (md != NULL
                        && pcre2_match(list[i]->name_re[k], (PCRE2_SPTR) host,
                                       len, 0, 0, md, NULL)
                               >= 0) {
                        re_best = list[i];
                    }
                    if (md != match_data) {
                        pcre2_match_data_free(md);
                    }
                }
                continue;
            }
            q = nicd_server_name_match(list[i]->names[k], host, len);
            if (q > bestq) {
                bestq = q;
                best = list[i];
            }
        }
    }
    /* exact, then leading wildcards, then trailing (best ranks them),
     * then the first regex that matched (nginx's order) */
    if (best != NULL) {
        return best;
    }
    return re_best != NULL ? re_best : list[0];
}

const nicd_loc_conf_t *
nicd_conf_named(const nicd_server_conf_t *srv, const char *name)
{
    int i;

    for (i = 0; i < srv->nnamed; i++) {
        if (strcmp(srv->named[i]->name, name) == 0) {
            return srv->named[i];
        }
    }
    return NULL;
}

enum { FIND_DECLINED = 0, FIND_AGAIN, FIND_OK, FIND_REDIRECT };

/* nginx's ngx_http_core_find_location, over a location's children */
static int
find_in(const nicd_loc_conf_t *p, const char *uri, size_t len,
        const nicd_loc_conf_t **out, pcre2_match_data *md)
{
    const nicd_loc_conf_t *best = NULL, *l;
    int                    i, rc = FIND_DECLINED, noregex = 0;

    for (i = 0; i < p->nlocs; i++) {
        l = p->locs[i];
        if (l->kind == NICD_LOC_EXACT) {
            if (l->name_len == len && memcmp(l->name, uri, len) == 0) {
                *out = l;
                return FIND_OK;
            }
        } else if ((l->kind == NICD_LOC_PREFIX || l->kind == NICD_LOC_NOREGEX)
                   && l->name_len <= len
                   && memcmp(l->name, uri, l->name_len) == 0
                   && (best == NULL || l->name_len > best->name_len)) {
            best = l;
        }
    }
    if (best == NULL || best->name_len < len) {
        /* uri is a location's name but its last '/', a location that
         * passes requests on: redirected there (nginx's auto_redirect,
         * which wins over a shorter prefix and stops the regexes) */
        for (i = 0; i < p->nlocs; i++) {
            l = p->locs[i];
            if ((l->kind == NICD_LOC_PREFIX || l->kind == NICD_LOC_NOREGEX
                 || l->kind == NICD_LOC_EXACT)
                && l->name_len == len + 1 && memcmp(l->name, uri, len) == 0
                && nicd_redirect_auto(l)) {
                *out = l;
                return FIND_REDIRECT;
            }
        }
    }
    if (best != NULL) {
        *out = best;
        noregex = best->kind == NICD_LOC_NOREGEX;
        rc = best->nlocs > 0 ? find_in(best, uri, len, out, md) : FIND_AGAIN;
        if (rc == FIND_OK || rc == FIND_REDIRECT) {
            return rc;
        }
    }
    if (noregex) {
        return rc;
    }
    for (i = 0; i < p->nlocs; i++) {
        l = p->locs[i];
        if ((l->kind == NICD_LOC_REGEX || l->kind == NICD_LOC_REGEX_CI)
            && pcre2_match(l->re, (PCRE2_SPTR) uri, len, 0, 0, md, NULL) >= 0) {
            *out = l;
            if (l->nlocs > 0) {
                (void) find_in(l, uri, len, out, md);
            }
            return FIND_OK;
        }
    }
    return rc;
}

const nicd_loc_conf_t *
nicd_conf_find_location(const nicd_server_conf_t *srv, const char *uri,
                        size_t len, void *match_data, int *redirect)
{
    const nicd_loc_conf_t *out = srv->loc;
    int                    rc = FIND_DECLINED;

    if (srv->loc->nlocs > 0) {
        rc = find_in(srv->loc, uri, len, &out, match_data);
    }
    if (redirect != NULL) {
        *redirect = rc == FIND_REDIRECT;
    }
    return out;
}

/* opening the roots: one descriptor per distinct directory */

static int
any_below(const nicd_loc_conf_t *l,
          int (*pred)(const nicd_loc_conf_t *lc, const void *arg),
          const void *arg)
{
    int i;

    if (pred(l, arg)) {
        return 1;
    }
    for (i = 0; i < l->nlocs; i++) {
        if (any_below(l->locs[i], pred, arg)) {
            return 1;
        }
    }
    return 0;
}

int
nicd_conf_any_level(const nicd_conf_t *c,
                    int (*pred)(const nicd_loc_conf_t *lc, const void *arg),
                    const void *arg)
{
    int i;

    if (any_below(c->http, pred, arg)) {
        return 1;
    }
    for (i = 0; i < c->nservers; i++) {
        if (any_below(c->servers[i]->loc, pred, arg)) {
            return 1;
        }
    }
    return 0;
}
