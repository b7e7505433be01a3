/*
 * Opening the roots of a configuration (roots.h): one descriptor a
 * directory, shared by the locations naming it; every file of a request
 * is opened beneath one of them.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/core/roots.h"

/* dir opened (O_PATH): a directory, or an alias' file's directory with
 * *base its name in dir; -1 (errno) */
static int
open_dir(const char *dir, const char **base)
{
    int         fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    const char *slash = strrchr(dir, '/');
    char        parent[4096];

    *base = NULL;
    if (fd != -1 || errno != ENOTDIR || slash == NULL || slash[1] == '\0'
        || (size_t) (slash - dir) >= sizeof(parent)) {
        return fd;
    }
    memcpy(parent, dir, (size_t) (slash - dir));
    parent[slash > dir ? slash - dir : 1] = '\0';
    if (slash == dir) {
        parent[0] = '/';
    }
    fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd != -1) {
        *base = slash + 1;
    }
    return fd;
}

const char *
nicd_conf_root_file(const nicd_conf_t *c, const nicd_loc_conf_t *l)
{
    int i;

    for (i = 0; i < c->nroots; i++) {
        if (strcmp(c->roots[i].path, l->root) == 0) {
            return __atomic_load_n(&c->roots[i].base, __ATOMIC_ACQUIRE);
        }
    }
    return NULL;
}

static int
open_root(nicd_conf_t *c, nicd_loc_conf_t *l, char *err, size_t errlen)
{
    const char *dir = l->root_vars ? "/" : l->root;
    int         i;

    if (l->root_fd != -1) {
        return 0;
    }
    for (i = 0; i < c->nroots; i++) {
        if (strcmp(c->roots[i].path, dir) == 0) {
            l->root_fd = c->roots[i].fd;
            return 0;
        }
    }
    c->roots = nicd_conf_grow(c, c->roots, c->nroots, sizeof(*c->roots));
    if (c->roots == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->roots[c->nroots].path = dir;
    c->roots[c->nroots].fd = open_dir(dir, &c->roots[c->nroots].base);
    if (c->roots[c->nroots].fd == -1 && c->root_override != NULL
        && strcmp(dir, c->root_override) == 0) {
        /* --root names the one directory to serve: it must be there */
        snprintf(err, errlen, "root \"%s\" cannot be opened: %s", dir,
                 strerror(errno));
        return -1;
    }
    if (c->roots[c->nroots].fd == -1) {
        /* as nginx, which opens nothing at start: its files are not
         * found until it can be opened (nicd_conf_root_fd) */
        log_error(LOG_NOTICE, errno,
                  "%s \"%s\" cannot be opened%s%s, its files are not found "
                  "until it can be",
                  l->alias ? "alias" : "root", dir,
                  l->where != NULL && !l->root_default ? " in " : "",
                  l->where != NULL && !l->root_default ? l->where : "");
    }
    l->root_fd = c->roots[c->nroots++].fd;
    return 0;
}

int
nicd_conf_root_fd(nicd_conf_t *c, const nicd_loc_conf_t *l)
{
    const char *dir = l->root_vars ? "/" : l->root, *base;
    int         i, fd, none = -1;

    if (l->root_fd != -1) {
        return l->root_fd;
    }
    for (i = 0; i < c->nroots && strcmp(c->roots[i].path, dir) != 0; i++) {
    }
    if (i == c->nroots) {
        return -1;
    }
    fd = __atomic_load_n(&c->roots[i].fd, __ATOMIC_ACQUIRE);
    if (fd != -1) {
        return fd;
    }
    fd = open_dir(dir, &base);
    if (base != NULL) {
        __atomic_store_n(&c->roots[i].base, base, __ATOMIC_RELEASE);
    }
    if (fd != -1
        && !__atomic_compare_exchange_n(&c->roots[i].fd, &none, fd, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        close(fd); /* another worker opened it first */
        fd = none;
    }
    return fd;
}

static int
open_tree(nicd_conf_t *c, nicd_loc_conf_t *l, char *err, size_t errlen)
{
    int i;

    /* a location whose content is not files needs no root */
    if (l->handler == NULL || l->kind == NICD_LOC_SERVER) {
        if (open_root(c, l, err, errlen) != 0) {
            return -1;
        }
    }
    for (i = 0; i < l->nlocs; i++) {
        if (open_tree(c, l->locs[i], err, errlen) != 0) {
            return -1;
        }
    }
    return 0;
}

int
nicd_conf_open_roots(nicd_conf_t *c, char *err, size_t errlen)
{
    int i;

    for (i = 0; i < c->nservers; i++) {
        if (open_tree(c, c->servers[i]->loc, err, errlen) != 0) {
            nicd_conf_close_roots(c);
            return -1;
        }
    }
    return 0;
}

void
nicd_conf_close_roots(nicd_conf_t *c)
{
    while (c->nroots > 0) {
        if (c->roots[--c->nroots].fd != -1) {
            close(c->roots[c->nroots].fd);
        }
    }
}
