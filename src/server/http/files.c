/*
 * How a location's files are opened, at every level (http, server,
 * location), as nginx's core module has it:
 *
 *   disable_symlinks off | on | if_not_owner [from=PART] | outside;  (off)
 *       off: every symlink is followed.  on: a name none of whose
 *       components is a symlink; if_not_owner: one whose symlinks have
 *       the owner of what they lead to (else 403).  The whole name is
 *       checked, from "/", unless from= (variables allowed) names its
 *       start: that part is followed as it is.  outside (nicd's): any
 *       symlink that stays below the root or alias (openat2
 *       RESOLVE_BENEATH).
 *   log_not_found on | off;  (on) a file not found is an error line.
 *
 * The static files, index, try_files and if's -f, -d, -e, -x all open
 * or test names this way (nginx: ngx_http_set_disable_symlinks and the
 * open file cache's walk).  $request_filename and $document_root are
 * the names (a regex location's alias with its captures).
 */

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/files.h"
#include "server/http/variables.h"

typedef struct {
    int        symlinks; /* NICD_SYMLINKS_* */
    nicd_cv_t *from;     /* from=, or NULL */
    int        from_set; /* written (NULL from: none, not inherited) */
    int        log_not_found;
} files_conf_t;

/* what a worker thread keeps: the names being checked */
typedef struct {
    nicd_buf_t full; /* a root and path put together */
    nicd_buf_t from; /* from='s value */
} files_worker_t;

nicd_module_t nicd_http_files_module;

static void
files_worker_init(nicd_worker_t *w)
{
    NICD_WORKER_CTX(w, nicd_http_files_module) =
        calloc(1, sizeof(files_worker_t));
}

static void
files_worker_free(nicd_worker_t *w)
{
    files_worker_t *fw = NICD_WORKER_CTX(w, nicd_http_files_module);

    if (fw != NULL) {
        nicd_buf_free(&fw->full);
        nicd_buf_free(&fw->from);
        free(fw);
        NICD_WORKER_CTX(w, nicd_http_files_module) = NULL;
    }
}

static void *
create_conf(nicd_conf_t *c)
{
    files_conf_t *f = nicd_conf_alloc(c, sizeof(*f));

    if (f != NULL) {
        f->symlinks = NICD_UNSET;
        f->log_not_found = NICD_UNSET;
    }
    return f;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const files_conf_t *p = prev;
    files_conf_t       *f = conf;

    (void) c;
    if (f->symlinks == NICD_UNSET) {
        f->symlinks = p != NULL ? p->symlinks : NICD_SYMLINKS_OFF;
        f->from = p != NULL ? p->from : NULL;
    }
    NICD_MERGE(f, p, log_not_found, 1);
    return NULL;
}

/* disable_symlinks MODE [from=PART], nginx's words for what is wrong */
static const char *
set_disable_symlinks(parse_t *ps, const char **a, int n)
{
    files_conf_t *f = nicd_conf_module_loc(ps);
    const char   *err;
    int           i;

    if (f->symlinks != NICD_UNSET) {
        return "is duplicate";
    }
    for (i = 0; i < n; i++) {
        if (strcmp(a[i], "off") == 0) {
            f->symlinks = NICD_SYMLINKS_OFF;
        } else if (strcmp(a[i], "on") == 0) {
            f->symlinks = NICD_SYMLINKS_ON;
        } else if (strcmp(a[i], "if_not_owner") == 0) {
            f->symlinks = NICD_SYMLINKS_NOTOWNER;
        } else if (strcmp(a[i], "outside") == 0) {
            f->symlinks = NICD_SYMLINKS_OUTSIDE;
        } else if (strncmp(a[i], "from=", 5) == 0) {
            if (f->from_set) {
                return nicd_conf_msg("duplicate parameters \"%s %s\"", a[0],
                                     a[1]);
            }
            f->from = nicd_conf_cv(ps, a[i] + 5, &err);
            if (f->from == NULL) {
                return err;
            }
            f->from_set = 1;
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
        }
    }
    if (f->symlinks == NICD_UNSET) {
        return nicd_conf_error(ps,
                               "\"%s\" must have \"off\", \"on\" or "
                               "\"if_not_owner\" parameter",
                               ps->d->name);
    }
    if (n == 2 && !f->from_set) {
        return nicd_conf_msg("duplicate parameters \"%s %s\"", a[0], a[1]);
    }
    if (f->from_set
        && (f->symlinks == NICD_SYMLINKS_OFF
            || f->symlinks == NICD_SYMLINKS_OUTSIDE)) {
        return nicd_conf_msg("\"from=\" cannot be used with \"%s\" parameter",
                             f->symlinks == NICD_SYMLINKS_OFF ? "off"
                                                              : "outside");
    }
    return NULL;
}

/*
 * how's mode and from for name (nginx's rule): from= that is not a
 * prefix of name, or is empty, checks all of it; the whole name follows
 * everything; else the part up to its "/" is not checked.  0, or -1.
 */
static int
symlinks_of(nicd_conn_t *c, const files_conf_t *f, const char *name, size_t len,
            int *mode, size_t *from)
{
    files_worker_t *fw = NICD_WORKER_CTX(c->w, nicd_http_files_module);
    nicd_buf_t     *b;

    *mode = f->symlinks;
    *from = 0;
    if (f->from == NULL) {
        return 0;
    }
    if (fw == NULL) {
        return -1;
    }
    b = &fw->from;
    if (nicd_cv_eval(c, f->from, NULL, b) != 0) {
        return -1;
    }
    if (b->len == 0 || b->len > len || memcmp(name, b->data, b->len) != 0) {
        return 0;
    }
    if (b->len == len) {
        *mode = NICD_SYMLINKS_OFF;
    } else if (name[b->len] == '/') {
        *from = b->len;
    } else if (name[b->len - 1] == '/') {
        *from = b->len - 1;
    }
    return 0;
}

int
nicd_files_how(nicd_conn_t *c, const nicd_loc_conf_t *lc, int root_fd,
               const char *root, const char *path, size_t len,
               nicd_open_how_t *how)
{
    const files_conf_t *f = NICD_LOC_CONF(lc, nicd_http_files_module);
    files_worker_t     *fw = NICD_WORKER_CTX(c->w, nicd_http_files_module);
    nicd_buf_t         *buf;

    how->root_fd = root_fd;
    how->symlinks = f->symlinks;
    how->full = NULL;
    how->from = 0;
    if (f->symlinks != NICD_SYMLINKS_ON
        && f->symlinks != NICD_SYMLINKS_NOTOWNER) {
        return 0;
    }
    if (fw == NULL) {
        log_error(LOG_ERR, ENOMEM, "the name of \"%.*s\"", (int) len, path);
        return -1;
    }
    buf = &fw->full;
    buf->len = 0;
    nicd_buf_add(buf, root, strlen(root));
    nicd_buf_add(buf, path, len);
    nicd_buf_add(buf, "", 1);
    if (nicd_buf_failed(buf)) {
        log_error(LOG_ERR, ENOMEM, "the name of \"%.*s\"", (int) len, path);
        return -1;
    }
    how->full = buf->data;
    return symlinks_of(c, f, buf->data, buf->len - 1, &how->symlinks,
                       &how->from);
}

int
nicd_files_stat(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *name,
                struct stat *st)
{
    const files_conf_t *f = NICD_LOC_CONF(lc, nicd_http_files_module);
    int                 mode, fd, rc;
    size_t              from;

    if (symlinks_of(c, f, name, strlen(name), &mode, &from) != 0) {
        errno = ENOMEM;
        return -1;
    }
    if (mode != NICD_SYMLINKS_ON && mode != NICD_SYMLINKS_NOTOWNER) {
        return stat(name, st); /* outside: no root to stay below here */
    }
    fd = nicd_open_checked(name, from, mode, O_RDONLY | O_NONBLOCK);
    if (fd == -1) {
        return -1;
    }
    rc = fstat(fd, st);
    close(fd);
    return rc;
}

/* ---- $request_filename, $document_root: the names files are opened by ---- */

/* lc's root, or its alias with this URI's captures */
static int
add_root(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *uri,
         size_t ulen, nicd_buf_t *b)
{
    nicd_buf_t dir = {0};
    int        rc = 0;

    if (!lc->root_vars) {
        nicd_buf_add(b, lc->root, strlen(lc->root));
        return 0;
    }
    if (nicd_alias_eval(c, lc, uri, ulen, &dir) == 0) {
        nicd_buf_add(b, dir.data, dir.len);
    } else {
        rc = nicd_buf_failed(&dir) ? -1 : 0; /* no match: empty */
    }
    nicd_buf_free(&dir);
    return rc;
}

/* $document_root (v->data NULL) and $request_filename: the root or
 * alias, and the URI's file below it */
static int
get_path(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
         const char *s, size_t slen, nicd_buf_t *b)
{
    const nicd_loc_conf_t *lc = c->r->loc;
    const char            *uri;
    size_t                 ulen;

    (void) s;
    (void) slen;
    nicd_vctx_uri(c, x, &uri, &ulen);
    if (add_root(c, lc, uri, ulen, b) != 0) {
        return -1;
    }
    if (v->data == NULL) {
        return 0;
    }
    if (lc->alias && lc->name_len <= ulen
        && (lc->kind == NICD_LOC_PREFIX || lc->kind == NICD_LOC_NOREGEX
            || lc->kind == NICD_LOC_EXACT)) {
        nicd_buf_add(b, uri + lc->name_len, ulen - lc->name_len);
    } else if (!lc->alias) {
        nicd_buf_add(b, uri, ulen);
    }
    return 0;
}

static const nicd_var_t files_vars[] = {
    {"request_filename", get_path, NICD_VAR_VOLATILE, "file"},
    {"document_root", get_path, NICD_VAR_VOLATILE, NULL},
    {NULL, NULL, 0, NULL},
};

int
nicd_files_log_not_found(const nicd_loc_conf_t *lc)
{
    return ((const files_conf_t *) NICD_LOC_CONF(lc, nicd_http_files_module))
        ->log_not_found;
}

static const directive_t files_directives[] = {
    {"disable_symlinks", CTX_HSL, 1, 2, set_disable_symlinks, 0},
    {"log_not_found", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(files_conf_t, log_not_found)},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_files_module = {
    .name = "files",
    .directives = files_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .worker_init = files_worker_init,
    .worker_free = files_worker_free,
    .variables = files_vars,
};
