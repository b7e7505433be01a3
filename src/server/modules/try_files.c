/*
 * try_files FILE ... LAST (nginx's): each FILE (with variables; a name
 * ending in "/" is a directory) is looked for under the location's root
 * or alias; the first that exists is served as the URI; when none does,
 * LAST is an internal redirect to a URI, a named location "@name", or
 * "=CODE".
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/conf/directive.h"
#include "server/http/lookup.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

/* an item: the name to try (compiled without a trailing "/"), whether
 * it looks for a directory; the last: =CODE, @name, or a URI */
typedef struct {
    const nicd_cv_t *cv;
    int              dir;
    const char      *text; /* as written */
    int              code; /* =CODE */
} item_t;

/* the module's settings of a level, never inherited */
typedef struct {
    item_t *items;
    int     nitems;
} try_files_conf_t;

nicd_module_t nicd_try_files_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(try_files_conf_t));
}

static const char *
set_try_files(parse_t *ps, const char **a, int n)
{
    try_files_conf_t *l = nicd_conf_module_loc(ps);
    item_t           *it;
    const char       *err;
    char             *name;
    size_t            len;
    int               i;

    if (l->items != NULL) {
        return "is duplicate";
    }
    l->items = nicd_conf_alloc(ps->conf, sizeof(item_t) * (size_t) n);
    if (l->items == NULL) {
        return "out of memory";
    }
    for (i = 0; i < n; i++) {
        it = &l->items[i];
        it->text = nicd_conf_strdup(ps->conf, a[i]);
        if (it->text == NULL) {
            return "out of memory";
        }
        if (i == n - 1 && (a[i][0] == '=' || a[i][0] == '@')) {
            continue;
        }
        /* an item written with a trailing "/" looks for a directory,
         * named without that slash (nginx decides it on the item as
         * written, not on what it expands to) */
        len = strlen(a[i]);
        it->dir = i < n - 1 && len > 0 && a[i][len - 1] == '/';
        name = nicd_conf_strdup(ps->conf, a[i]);
        if (name == NULL) {
            return "out of memory";
        }
        name[len - (size_t) it->dir] = '\0';
        it->cv = nicd_conf_cv(ps, name, &err);
        if (it->cv == NULL) {
            return err;
        }
    }
    l->nitems = n;
    if (a[n - 1][0] == '=') {
        char *end;
        long  code = strtol(a[n - 1] + 1, &end, 10);

        if (a[n - 1][1] == '\0' || *end != '\0' || code < 100 || code > 999) {
            return nicd_conf_msg("invalid code \"%s\"", a[n - 1]);
        }
        l->items[n - 1].code = (int) code;
    }
    return NULL;
}

/*
 * The precontent phase: NICD_URI_STAY with the first item that exists in
 * nicd_phase_uri (served where it is), else NICD_DONE after the last item's
 * answer or redirect; NICD_DECLINED without try_files.
 */
static int
try_files_handler(nicd_conn_t *c, const nicd_request_t *r,
                  const nicd_loc_conf_t *lc, const char *uri, size_t len)
{
    const try_files_conf_t *tf = NICD_LOC_CONF(lc, nicd_try_files_module);
    nicd_worker_t          *w = c->w;
    nicd_vctx_t             x = {r, uri, len, NULL, NULL, 0};
    const item_t           *last;
    const char             *name;
    nicd_file_t            *f;
    int                     i, err, head = r->method == NICD_M_HEAD;

    if (tf->nitems == 0) {
        return NICD_DECLINED;
    }
    last = &tf->items[tf->nitems - 1];
    for (i = 0; i < tf->nitems - 1; i++) {
        if (nicd_cv_eval(c, tf->items[i].cv, &x, &w->expand) != 0
            || w->expand.len == 0) {
            continue;
        }
        /* the name tried, given as the URI at hand: it is, when it is
         * the one */
        name = nicd_phase_uri(c, w->expand.data, w->expand.len);
        if (name == NULL) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return NICD_DONE;
        }
        if (nicd_uri_open(c, lc, name, w->expand.len, 1, &f, &err) == 0) {
            int ok = f->is_dir == (unsigned) tf->items[i].dir;

            nicd_ofc_release(&w->ofc, f);
            if (ok) {
                c->r->uri_to_alias = lc->alias;
                return NICD_URI_STAY;
            }
        } else if (err == EMFILE || err == ENFILE || err == ENOMEM) {
            /* out of descriptors: no other file stands for this one */
            nicd_respond_error(c, nicd_open_status(c, err, name), head, NULL,
                               0);
            return NICD_DONE;
        } else if (err != ENOENT && err != ENOTDIR && err != ENAMETOOLONG) {
            /* refused (a symlink, permissions): the next is tried, as
             * nginx does, saying why */
            log_error(LOG_CRIT, err, "open() \"%s%s\" failed, client: %s",
                      lc->root, name, nicd_client(c));
        }
    }
    if (last->code != 0) {
        nicd_respond_error(c, last->code, head, NULL, 0);
        return NICD_DONE;
    }
    if (last->text[0] == '@') {
        const nicd_loc_conf_t *nl = nicd_conf_named(c->r->srv, last->text);

        if (nl == NULL) {
            log_error(LOG_ERR, 0,
                      "could not find named location \"%s\", "
                      "client: %s",
                      last->text, nicd_client(c));
            nicd_respond_error(c, 500, head, NULL, 0);
            return NICD_DONE;
        }
        nicd_named_location(c, r, uri, len, nl);
        return NICD_DONE;
    }
    if (nicd_cv_eval(c, last->cv, &x, &w->expand) != 0) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return NICD_DONE;
    }
    nicd_internal_redirect(c, r, w->expand.data, w->expand.len, 0);
    return NICD_DONE;
}

static int
uses(const nicd_loc_conf_t *lc, const void *arg)
{
    (void) arg;
    return ((const try_files_conf_t *) NICD_LOC_CONF(lc, nicd_try_files_module))
               ->nitems
           > 0;
}

static const char *
try_files_postconfiguration(nicd_conf_t *c)
{
    return nicd_conf_any_level(c, uses, NULL)
               ? nicd_phase_add(c, NICD_PHASE_PRECONTENT, try_files_handler)
               : NULL;
}

static const directive_t nicd_try_files_directives[] = {
    {"try_files", CTX_SRV | CTX_LOC, 2, MAX_ARGS, set_try_files, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_try_files_module = {
    .name = "try_files",
    .directives = nicd_try_files_directives,
    .create_loc_conf = create_conf,
    .postconfiguration = try_files_postconfiguration,
};
