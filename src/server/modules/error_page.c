/*
 * error_page CODE ... [=[RESPONSE]] URI (nginx's): an error answered
 * with CODE is answered instead by an internal redirect to URI (a GET),
 * keeping CODE as the status unless "=RESPONSE" says another (a bare "="
 * takes the status of what URI answers); a URI that is a URL (or
 * "=301"/"=302" with one) is a redirect.
 */

#include <stdlib.h>
#include <string.h>

#include "directive.h"

static const char *
set_error_page(parse_t *ps, const char **a, int n)
{
    nicd_loc_conf_t  *l = ps->loc;
    nicd_error_page_t ep;
    const char       *uri = a[n - 1];
    char             *end;
    int               i, codes = n - 1, override = 0;
    long              v;

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
        ep.uri = nicd_conf_strdup(ps->conf, uri);
        l->error_pages = nicd_conf_grow(ps->conf, l->error_pages,
                                        l->nerror_pages, sizeof(ep));
        if (ep.uri == NULL || l->error_pages == NULL) {
            return "out of memory";
        }
        l->error_pages[l->nerror_pages++] = ep;
    }
    return NULL;
}

static const directive_t nicd_error_page_directives[] = {
    {"error_page", CTX_HSL, 2, MAX_ARGS, set_error_page, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_error_page_module = {
    .name = "error_page",
    .directives = nicd_error_page_directives,
};
