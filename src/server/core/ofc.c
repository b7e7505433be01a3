/*
 * Open file cache.  Kernel facts relied on:
 * - openat2(2) (Linux 5.6) with RESOLVE_BENEATH refuses, with EXDEV, any
 *   resolution that leaves the directory it starts from, including through
 *   absolute symlinks and "..": the root is enforced by the kernel, not by
 *   string checks.  RESOLVE_NO_SYMLINKS refuses every symlink (ELOOP).
 * - O_NONBLOCK on open() keeps a FIFO under the root from blocking the
 *   event loop; such files are then refused as not regular.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"

#ifdef HAVE_OPENAT2
#include <linux/openat2.h>
#endif

#include "util/hash.h"
#include "util/buf.h"
#include "server/conf/conf.h"
#include "server/core/ofc.h"
#include "sendfile_nic/snic_backend.h"

int
nicd_ofc_init(nicd_ofc_t *c, const nicd_conf_t *conf)
{
    unsigned size = 16;
    int      max = conf->open_file_cache_max;

    memset(c, 0, sizeof(*c));
    c->max = max;
    c->valid_ms = conf->open_file_cache_valid;
    c->inactive_ms = conf->open_file_cache_inactive;
    c->min_uses = (unsigned) conf->open_file_cache_min_uses;
    c->errors = conf->open_file_cache_errors;
    c->conf = conf;
    if (max > 0) {
        while (size < (unsigned) max * 2 && size < (1u << 24)) {
            size *= 2;
        }
        c->table = calloc(size, sizeof(nicd_file_t *));
        if (c->table == NULL) {
            return -1;
        }
        c->mask = size - 1;
    }
    return 0;
}

static void
file_free(nicd_file_t *f)
{
    if (f->file.fd != -1) {
        close(f->file.fd);
    }
    free((char *) f->file.mem);
    free(f);
}

static void
lru_unlink(nicd_ofc_t *c, nicd_file_t *f)
{
    if (f->lprev != NULL) {
        f->lprev->lnext = f->lnext;
    } else {
        c->lru_head = f->lnext;
    }
    if (f->lnext != NULL) {
        f->lnext->lprev = f->lprev;
    } else {
        c->lru_tail = f->lprev;
    }
    f->lprev = f->lnext = NULL;
}

static void
lru_push(nicd_ofc_t *c, nicd_file_t *f)
{
    f->lprev = NULL;
    f->lnext = c->lru_head;
    if (c->lru_head != NULL) {
        c->lru_head->lprev = f;
    }
    c->lru_head = f;
    if (c->lru_tail == NULL) {
        c->lru_tail = f;
    }
}

/* Take f out of the cache; it is freed now or at its last release. */
static void
evict(nicd_ofc_t *c, nicd_file_t *f)
{
    nicd_file_t **pp = &c->table[f->hash & c->mask];

    while (*pp != f) {
        pp = &(*pp)->hnext;
    }
    *pp = f->hnext;
    lru_unlink(c, f);
    f->in_cache = 0;
    c->count--;
    if (f->refs == 0) {
        file_free(f);
    }
}

void
nicd_ofc_free(nicd_ofc_t *c)
{
    while (c->lru_head != NULL) {
        evict(c, c->lru_head);
    }
    free(c->table);
    c->table = NULL;
}

/* Lowercase hex digits of v into p; returns their count. */
static size_t
hex_u64(char *p, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char              tmp[16];
    size_t            n = 0, i;

    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v != 0);
    for (i = 0; i < n; i++) {
        p[i] = tmp[n - 1 - i];
    }
    return n;
}

/* Fill what a response needs from a stat() result (f's bytes in memory,
 * if it has them, stay: they are of this revision, see nicd_ofc_open). */
static void
set_stat(nicd_ofc_t *c, nicd_file_t *f, const struct stat *st)
{
    const char *mem = f->file.mem;
    char       *p;

    snic_file_init(&f->file, f->file.fd, st);
    f->file.mem = mem;
    f->is_dir = S_ISDIR(st->st_mode) ? 1 : 0;
    f->mtime = st->st_mtim.tv_sec;

    /* nginx's form: "hex(mtime)-hex(size)" */
    p = f->etag;
    *p++ = '"';
    p += hex_u64(p, (uint64_t) st->st_mtim.tv_sec);
    *p++ = '-';
    p += hex_u64(p, (uint64_t) st->st_size);
    *p++ = '"';
    *p = '\0';
    f->etag_len = (size_t) (p - f->etag);
    nicd_http_date(f->last_modified, f->mtime);
    f->mime = nicd_conf_mime(c->conf, f->path, f->path_len);
}

/* if_not_owner: name opened from at, refused (ELOOP) when what it is
 * (a symlink, or not) has another owner than what it leads to; as
 * nginx, the owners are compared even when it is not a symlink, since
 * it may have been one while it was opened */
static int
open_owner(int at, const char *name, int flags)
{
    struct stat link, target;
    int         fd = openat(at, name, flags), err;

    if (fd == -1) {
        return -1;
    }
    if (fstatat(at, name, &link, AT_SYMLINK_NOFOLLOW) != 0
        || fstat(fd, &target) != 0) {
        err = errno;
    } else if (link.st_uid != target.st_uid) {
        err = ELOOP;
    } else {
        return fd;
    }
    close(fd);
    errno = err;
    return -1;
}

int
nicd_open_checked(const char *name, size_t from, int mode, int flags)
{
    const int   search = O_PATH | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC;
    const char *p = name, *end = name + strlen(name), *cp;
    char        part[NAME_MAX + 1], head[PATH_MAX];
    int         at = AT_FDCWD, fd, err;

    flags |= O_CLOEXEC;
    if (from > 0) {
        /* the first from bytes followed as they are */
        if (from >= sizeof(head)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(head, name, from);
        head[from] = '\0';
        at = open(head, search);
        p = name + from + 1;
    } else if (*p == '/') {
        at = open("/", search);
        p++;
    }
    if (at == -1) {
        return -1;
    }
    for (;;) {
        cp = memchr(p, '/', (size_t) (end - p));
        if (cp == NULL) {
            break;
        }
        if (cp == p) {
            p++;
            continue;
        }
        if ((size_t) (cp - p) >= sizeof(part)) {
            err = ENAMETOOLONG;
            goto failed;
        }
        memcpy(part, p, (size_t) (cp - p));
        part[cp - p] = '\0';
        /* on: a symlink opened as itself (O_PATH), below which nothing is
         * found (ENOTDIR), as nginx's walk finds it */
        fd = mode == NICD_SYMLINKS_NOTOWNER
                 ? open_owner(at, part, O_PATH | O_NONBLOCK | O_CLOEXEC)
                 : openat(at, part,
                          O_PATH | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd == -1) {
            err = errno;
            goto failed;
        }
        if (at != AT_FDCWD) {
            close(at);
        }
        at = fd;
        p = cp + 1;
    }
    if (p == end) {
        /* a name ending in "/": its last component is a directory */
        fd = openat(at, ".", flags);
    } else if (mode == NICD_SYMLINKS_NOTOWNER) {
        fd = open_owner(at, p, flags);
    } else {
        fd = openat(at, p, flags | O_NOFOLLOW);
    }
    err = errno;
    if (at != AT_FDCWD) {
        close(at);
    }
    errno = err;
    return fd;

failed:
    if (at != AT_FDCWD) {
        close(at);
    }
    errno = err;
    return -1;
}

/* Open a path as how says; returns a descriptor or -1 with errno. */
static int
open_as(const nicd_open_how_t *how, const char *rel)
{
    int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

    switch (how->symlinks) {
    case NICD_SYMLINKS_ON:
    case NICD_SYMLINKS_NOTOWNER:
        return nicd_open_checked(how->full, how->from, how->symlinks, flags);
    case NICD_SYMLINKS_OUTSIDE: {
#ifdef HAVE_OPENAT2
        struct open_how oh;

        memset(&oh, 0, sizeof(oh));
        oh.flags = (unsigned long long) flags;
        oh.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        return (int) syscall(SYS_openat2, how->root_fd, rel, &oh, sizeof(oh));
#else
#error "openat2(2) is required (Linux 5.6 or later)"
#endif
    }
    }
    return openat(how->root_fd, rel, flags);
}

/*
 * A cached small regular file keeps its bytes in memory: a response
 * gathered into one send with its header (transport.c) copies them from
 * there instead of reading the file (snic_send_file()).  A read that
 * fails or comes up short leaves the file without them.
 */
static void
load_mem(nicd_file_t *f)
{
    size_t  size = (size_t) f->file.size, got = 0;
    ssize_t n;
    char   *m;

    if (!f->file.cacheable || size == 0 || size > NICD_OFC_MEM_MAX
        || (m = malloc(size)) == NULL) {
        return;
    }
    while (got < size) {
        n = pread(f->file.fd, m + got, size - got, (off_t) got);
        if (n <= 0) {
            if (n == -1 && errno == EINTR) {
                continue;
            }
            free(m);
            return;
        }
        got += (size_t) n;
    }
    f->file.mem = m;
}

/* path relative to the root: every leading "/" goes ("//index.html",
 * which try_files $uri/index.html makes of "/", is a file beneath it, as
 * nginx finds it; an absolute name would be refused as leaving it) */
static const char *
relative(const char *path)
{
    while (*path == '/') {
        path++;
    }
    return *path != '\0' ? path : ".";
}

/* the stat of what path now names, reached as how says: 0 or -1 */
static int
stat_as(const nicd_open_how_t *how, const char *path, struct stat *st)
{
    int fd, rc;

    if (how->symlinks != NICD_SYMLINKS_ON
        && how->symlinks != NICD_SYMLINKS_NOTOWNER) {
        return fstatat(how->root_fd, relative(path), st, 0);
    }
    fd = open_as(how, relative(path));
    if (fd == -1) {
        return -1;
    }
    rc = fstat(fd, st);
    close(fd);
    return rc;
}

/* an entry for path, without a descriptor yet; NULL when out of memory */
static nicd_file_t *
entry_new(const nicd_open_how_t *how, const char *path, size_t len, unsigned h,
          long now_ms)
{
    nicd_file_t *f = calloc(1, sizeof(*f) + len + 1);

    if (f == NULL) {
        return NULL;
    }
    memcpy(f->path, path, len);
    f->path[len] = '\0';
    f->path_len = len;
    f->file.fd = -1;
    f->hash = h;
    f->root_fd = how->root_fd;
    f->symlinks = how->symlinks;
    f->from = how->from;
    f->validated_ms = now_ms;
    f->used_ms = now_ms;
    f->uses = 1;
    return f;
}

static int
open_new(nicd_ofc_t *c, const nicd_open_how_t *how, const char *path,
         size_t len, unsigned h, long now_ms, nicd_file_t **out)
{
    nicd_file_t *f;
    struct stat  st;
    int          fd, err;

    fd = open_as(how, relative(path));
    if (fd == -1) {
        return errno;
    }
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return err;
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        close(fd);
        return EACCES; /* devices, FIFOs, sockets */
    }
    f = entry_new(how, path, len, h, now_ms);
    if (f == NULL) {
        close(fd);
        return ENOMEM;
    }
    f->file.fd = fd;
    set_stat(c, f, &st);
    *out = f;
    return 0;
}

/* f into the cache, the least recently used out while it holds too many */
static void
insert(nicd_ofc_t *c, nicd_file_t *f)
{
    f->hnext = c->table[f->hash & c->mask];
    c->table[f->hash & c->mask] = f;
    f->in_cache = 1;
    c->count++;
    lru_push(c, f);
    while (c->count > c->max && c->lru_tail != NULL) {
        evict(c, c->lru_tail);
    }
}

/*
 * An entry without a descriptor in the cache: a name's error
 * (open_file_cache_errors), or the uses of a file asked for fewer than
 * min_uses times.
 */
static void
remember(nicd_ofc_t *c, const nicd_open_how_t *how, const char *path,
         size_t len, unsigned h, long now_ms, int err, unsigned uses)
{
    nicd_file_t *f = entry_new(how, path, len, h, now_ms);

    if (f != NULL) {
        f->err = err;
        f->uses = uses;
        insert(c, f);
    }
}

/* revalidate a cached file: 0 when it is the same one (the same inode
 * keeps the open descriptor; bytes in memory of another revision are
 * read again, unless a response in flight still sends them: then it is
 * made anew, and that response keeps the old one), -1 when it must be
 * opened anew */
static int
revalidate(nicd_ofc_t *c, const nicd_open_how_t *how, nicd_file_t *f,
           long now_ms)
{
    struct stat st;
    int         stale;

    c->revalidations++;
    if (stat_as(how, f->path, &st) != 0 || st.st_ino != f->file.id_ino
        || st.st_dev != f->file.id_dev
        || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
        return -1;
    }
    stale = f->file.mem != NULL && snic_file_revision(&st) != f->file.revision;
    if (stale && f->refs > 0) {
        return -1;
    }
    if (stale) {
        free((char *) f->file.mem);
        f->file.mem = NULL;
    }
    set_stat(c, f, &st);
    if (stale) {
        load_mem(f);
    }
    f->validated_ms = now_ms;
    return 0;
}

int
nicd_ofc_open(nicd_ofc_t *c, const nicd_open_how_t *how, const char *path,
              size_t len, long now_ms, nicd_file_t **out)
{
    nicd_file_t *f = NULL, *nf = NULL;
    unsigned     h, uses = 1;
    int          err;

    /* the same path under another root is another file */
    h = (unsigned) nicache_fnv1a64(path, len)
        ^ ((unsigned) how->root_fd * 2654435761u);
    if (c->max > 0) {
        for (f = c->table[h & c->mask]; f != NULL; f = f->hnext) {
            if (f->hash == h && f->root_fd == how->root_fd && f->path_len == len
                && memcmp(f->path, path, len) == 0
                && f->symlinks == how->symlinks && f->from == how->from) {
                break;
            }
        }
    }

    if (f != NULL) {
        int valid = now_ms - f->validated_ms < c->valid_ms;

        uses = f->uses + 1;
        if (f->file.fd != -1 && (valid || revalidate(c, how, f, now_ms) == 0)) {
            c->hits += valid;
            f->uses = uses;
            goto found;
        }
        if (f->err != 0 && valid) {
            c->hits++;
            f->uses = uses;
            f->used_ms = now_ms;
            lru_unlink(c, f);
            lru_push(c, f);
            return f->err;
        }
        /* gone or replaced (rename over it), an error to try again, or
         * a file counting its uses: open it anew */
        c->reopens += f->file.fd != -1;
        evict(c, f);
        f = NULL;
    } else {
        c->misses++;
    }

    err = open_new(c, how, path, len, h, now_ms, &nf);
    if (err != 0) {
        if (c->max > 0 && c->errors) {
            remember(c, how, path, len, h, now_ms, err, uses);
        }
        return err;
    }
    f = nf;
    f->uses = uses;
    if (c->max > 0 && uses < c->min_uses) {
        /* opened for this request only: its uses are counted */
        remember(c, how, path, len, h, now_ms, 0, uses);
    } else if (c->max > 0) {
        load_mem(f);
        insert(c, f);
    }
    f->refs = 1;
    *out = f;
    return 0;

found:
    f->used_ms = now_ms;
    lru_unlink(c, f);
    lru_push(c, f);
    f->refs++;
    *out = f;
    return 0;
}

void
nicd_ofc_release(nicd_ofc_t *c, nicd_file_t *f)
{
    (void) c;
    if (--f->refs == 0 && !f->in_cache) {
        file_free(f);
    }
}

void
nicd_ofc_expire(nicd_ofc_t *c, long now_ms)
{
    while (c->lru_tail != NULL
           && now_ms - c->lru_tail->used_ms >= c->inactive_ms) {
        evict(c, c->lru_tail);
    }
}
