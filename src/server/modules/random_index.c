/*
 * random_index on | off;  (off, per location) as nginx's module: a
 * request whose URI ends in "/" is answered with a file of that directory
 * picked at random (its names starting with "." left out, symlinks to
 * files counted), by an internal redirect, before index looks for one.
 * A directory without such a file is left to the next content handler;
 * one that cannot be opened is 404 or 403.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/lookup.h"
#include "server/http/path.h"
#include "server/http/phases.h"

typedef struct {
    int enable;
} random_index_conf_t;

nicd_module_t nicd_random_index_module;

static void *
create_conf(nicd_conf_t *c)
{
    random_index_conf_t *ri = nicd_conf_alloc(c, sizeof(*ri));

    if (ri != NULL) {
        ri->enable = NICD_UNSET;
    }
    return ri;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const random_index_conf_t *p = prev;
    random_index_conf_t       *ri = conf;

    (void) c;
    NICD_MERGE(ri, p, enable, 0);
    return NULL;
}

/* is the entry de of directory fd a file (a symlink to one too)? */
static int
is_file(int fd, const struct dirent *de)
{
    struct stat st;

    if (de->d_type == DT_REG) {
        return 1;
    }
    if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN) {
        return 0;
    }
    return fstatat(fd, de->d_name, &st, 0) == 0 && S_ISREG(st.st_mode);
}

/* the n-th (0-based, of those is_file() takes) name of dir into b; the
 * count of them when n is -1 */
static long
nth_file(DIR *dir, long n, nicd_buf_t *b)
{
    struct dirent *de;
    long           i = 0;

    rewinddir(dir);
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.' || !is_file(dirfd(dir), de)) {
            continue;
        }
        if (i++ == n) {
            nicd_buf_adds(b, de->d_name);
            return n;
        }
    }
    return i;
}

static int
random_index_handler(nicd_conn_t *c, const nicd_request_t *r,
                     const nicd_loc_conf_t *lc, const char *uri, size_t len)
{
    const random_index_conf_t *ri = NICD_LOC_CONF(lc, nicd_random_index_module);
    nicd_buf_t                 name = {0}, target = {0};
    nicd_file_t               *f;
    DIR                       *dir;
    uint32_t                   draw = 0;
    long                       n;
    int                        err, fd;

    if (!ri->enable || len == 0 || uri[len - 1] != '/'
        || (r->method != NICD_M_GET && r->method != NICD_M_HEAD
            && r->method != NICD_M_POST)) {
        return NICD_DECLINED;
    }
    if (nicd_uri_open(c, lc, uri, len, 0, &f, &err) != 0) {
        log_error(LOG_ERR, err, "opendir() \"%s%s\" failed, client: %s",
                  lc->root, uri, nicd_client(c));
        nicd_respond_error(c, err == EACCES || err == ELOOP ? 403 : 404,
                           r->method == NICD_M_HEAD, NULL, 0);
        return NICD_DONE;
    }
    fd = f->is_dir ? openat(f->file.fd, ".", O_RDONLY | O_DIRECTORY) : -1;
    nicd_ofc_release(&c->w->ofc, f);
    dir = fd != -1 ? fdopendir(fd) : NULL;
    if (dir == NULL) {
        if (fd != -1) {
            close(fd);
        }
        return NICD_DECLINED;
    }
    n = nth_file(dir, -1, &name);
    if (n > 0) {
        if (getrandom(&draw, sizeof(draw), 0) != sizeof(draw)) {
            draw = (uint32_t) random();
        }
        nth_file(dir, (long) (((uint64_t) draw * (uint64_t) n) >> 32), &name);
    }
    closedir(dir);
    if (n == 0 || name.len == 0) {
        nicd_buf_free(&name);
        return NICD_DECLINED;
    }
    nicd_buf_add(&target, uri, len);
    if (nicd_buf_reserve(&target, 3 * name.len + 1) == 0) {
        target.len +=
            nicd_path_escape(name.data, name.len, target.data + target.len);
    }
    if (nicd_req_args(c, r)->len > 0) {
        nicd_buf_add(&target, "?", 1);
        nicd_buf_add(&target, nicd_req_args(c, r)->p, nicd_req_args(c, r)->len);
    }
    if (nicd_buf_failed(&target) || nicd_buf_failed(&name)) {
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
    } else {
        nicd_internal_redirect(c, r, target.data, target.len, 1);
    }
    nicd_buf_free(&name);
    nicd_buf_free(&target);
    return NICD_DONE;
}

static int
uses(const nicd_loc_conf_t *lc, const void *arg)
{
    (void) arg;
    return ((const random_index_conf_t *) NICD_LOC_CONF(
                lc, nicd_random_index_module))
        ->enable;
}

static const char *
random_index_postconfiguration(nicd_conf_t *c)
{
    return nicd_conf_any_level(c, uses, NULL)
               ? nicd_phase_add(c, NICD_PHASE_CONTENT, random_index_handler)
               : NULL;
}

static const directive_t random_index_directives[] = {
    {"random_index", CTX_LOC, 1, 1, nicd_conf_slot_flag,
     offsetof(random_index_conf_t, enable)},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_random_index_module = {
    .name = "random_index",
    .directives = random_index_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = random_index_postconfiguration,
};
