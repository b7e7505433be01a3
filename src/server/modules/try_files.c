/*
 * try_files FILE ... LAST (nginx's): each FILE (with variables; a name
 * ending in "/" is a directory) is looked for under the location's root
 * or alias; the first that exists is served as the URI; when none does,
 * LAST is an internal redirect to a URI, a named location "@name", or
 * "=CODE".
 */

#include <stdlib.h>
#include <string.h>

#include "directive.h"

static const char *
set_try_files(parse_t *ps, const char **a, int n)
{
    nicd_loc_conf_t *l = ps->loc;
    int              i;

    if (l->try_files != NULL) {
        return "is duplicate";
    }
    l->try_files = nicd_conf_alloc(ps->conf, sizeof(char *) * (size_t) n);
    if (l->try_files == NULL) {
        return "out of memory";
    }
    for (i = 0; i < n; i++) {
        if ((l->try_files[i] = nicd_conf_strdup(ps->conf, a[i])) == NULL) {
            return "out of memory";
        }
    }
    l->ntry_files = n;
    if (a[n - 1][0] == '=') {
        char *end;
        long  code = strtol(a[n - 1] + 1, &end, 10);

        if (a[n - 1][1] == '\0' || *end != '\0' || code < 100 || code > 999) {
            return nicd_conf_msg("invalid code \"%s\"", a[n - 1]);
        }
    }
    return NULL;
}

static const directive_t nicd_try_files_directives[] = {
    {"try_files", CTX_SRV | CTX_LOC, 2, MAX_ARGS, set_try_files, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_try_files_module = {
    .name = "try_files",
    .directives = nicd_try_files_directives,
};
