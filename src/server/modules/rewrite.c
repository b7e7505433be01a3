/*
 * rewrite and return (nginx's ngx_http_rewrite_module, without "if" and
 * "set"): at a server's level they run before a location is chosen, in a
 * location's after; in the order written.  "rewrite RE URI [last|break|
 * redirect|permanent]": a match replaces the URI ($1..$9 and the
 * variables of vars.c in URI; a URI starting with http://, https:// or
 * $scheme is a redirect); "last" looks for a location again, "break" stops
 * the rewrites and serves the new URI where it is.  "return CODE [TEXT]",
 * "return CODE URL" (301, 302, 303, 307, 308), "return URL" (302).
 */

#include <stdlib.h>
#include <string.h>

#include "directive.h"
#include "handler.h"

static const char *
add(parse_t *ps, nicd_rewrite_t *rw)
{
    nicd_loc_conf_t *l = ps->loc;

    l->rewrites =
        nicd_conf_grow(ps->conf, l->rewrites, l->nrewrites, sizeof(*rw));
    if (l->rewrites == NULL) {
        return "out of memory";
    }
    l->rewrites[l->nrewrites++] = *rw;
    return NULL;
}

static const char *
set_rewrite(parse_t *ps, const char **a, int n)
{
    nicd_rewrite_t rw;
    char           err[512];

    memset(&rw, 0, sizeof(rw));
    rw.flag = NICD_REWRITE_NONE;
    if (n == 3) {
        if (strcmp(a[2], "last") == 0) {
            rw.flag = NICD_REWRITE_LAST;
        } else if (strcmp(a[2], "break") == 0) {
            rw.flag = NICD_REWRITE_BREAK;
        } else if (strcmp(a[2], "redirect") == 0) {
            rw.flag = NICD_REWRITE_REDIRECT;
        } else if (strcmp(a[2], "permanent") == 0) {
            rw.flag = NICD_REWRITE_PERMANENT;
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[2]);
        }
    }
    rw.re = nicd_conf_regex(ps->conf, a[0], 0, err, sizeof(err));
    if (rw.re == NULL) {
        return nicd_conf_msg("%s", err);
    }
    if (rw.flag == NICD_REWRITE_NONE
        && (strncmp(a[1], "http://", 7) == 0
            || strncmp(a[1], "https://", 8) == 0
            || strncmp(a[1], "$scheme", 7) == 0)) {
        rw.flag = NICD_REWRITE_REDIRECT;
    }
    rw.replacement = nicd_conf_strdup(ps->conf, a[1]);
    return rw.replacement == NULL ? "out of memory" : add(ps, &rw);
}

static const char *
set_return(parse_t *ps, const char **a, int n)
{
    nicd_rewrite_t rw;
    char          *end;
    long           code;

    memset(&rw, 0, sizeof(rw));
    rw.flag = NICD_REWRITE_RETURN;
    code = strtol(a[0], &end, 10);
    if (*end != '\0' || end == a[0]) {
        if (n != 1
            || (strncmp(a[0], "http://", 7) != 0
                && strncmp(a[0], "https://", 8) != 0
                && strncmp(a[0], "$scheme", 7) != 0)) {
            return nicd_conf_msg("invalid return code \"%s\"", a[0]);
        }
        rw.code = 302;
        rw.replacement = nicd_conf_strdup(ps->conf, a[0]);
    } else {
        if (code < 200 || code > 999 || code == 444) {
            return nicd_conf_msg("invalid return code \"%s\"", a[0]);
        }
        rw.code = (int) code;
        rw.replacement = nicd_conf_strdup(ps->conf, n == 2 ? a[1] : "");
    }
    return rw.replacement == NULL ? "out of memory" : add(ps, &rw);
}

const directive_t nicd_rewrite_directives[] = {
    {"rewrite", CTX_SRV | CTX_LOC, 2, 3, set_rewrite, 0},
    {"return", CTX_SRV | CTX_LOC, 1, 2, set_return, 0},
    {NULL, 0, 0, 0, NULL, 0},
};
