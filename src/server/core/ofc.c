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
nicd_ofc_init(nicd_ofc_t *c, int symlinks, int max, long valid_ms,
              long inactive_ms, const void *conf)
{
    unsigned size = 16;

    memset(c, 0, sizeof(*c));
    c->symlinks = symlinks;
    c->max = max;
    c->valid_ms = valid_ms;
    c->inactive_ms = inactive_ms;
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

/* Open a path below the root; returns a descriptor or -1 with errno. */
static int
open_beneath(nicd_ofc_t *c, int root_fd, const char *rel)
{
    int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

#ifdef HAVE_OPENAT2
    if (c->symlinks != NICD_SYMLINKS_OFF) {
        struct open_how how;

        memset(&how, 0, sizeof(how));
        how.flags = (unsigned long long) flags;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        if (c->symlinks == NICD_SYMLINKS_ON) {
            how.resolve |= RESOLVE_NO_SYMLINKS;
        }
        return (int) syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));
    }
#else
#error "openat2(2) is required (Linux 5.6 or later)"
#endif
    return openat(root_fd, rel, flags);
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

static int
open_new(nicd_ofc_t *c, int root_fd, const char *path, size_t len, unsigned h,
         long now_ms, nicd_file_t **out)
{
    nicd_file_t *f;
    struct stat  st;
    const char  *rel = path;
    int          fd, err;

    /* relative to the root: every leading "/" goes ("//index.html", which
     * try_files $uri/index.html makes of "/", is a file beneath it, as
     * nginx finds it; an absolute name would be refused as leaving it) */
    while (*rel == '/') {
        rel++;
    }
    if (*rel == '\0' || len <= 1) {
        rel = ".";
    }
    fd = open_beneath(c, root_fd, rel);
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

    f = calloc(1, sizeof(*f) + len + 1);
    if (f == NULL) {
        close(fd);
        return ENOMEM;
    }
    memcpy(f->path, path, len);
    f->path[len] = '\0';
    f->path_len = len;
    f->file.fd = fd;
    f->hash = h;
    f->root_fd = root_fd;
    f->validated_ms = now_ms;
    f->used_ms = now_ms;
    set_stat(c, f, &st);
    if (c->max > 0) {
        load_mem(f);
    }
    *out = f;
    return 0;
}

int
nicd_ofc_open(nicd_ofc_t *c, int root_fd, const char *path, size_t len,
              long now_ms, nicd_file_t **out)
{
    nicd_file_t *f = NULL, *nf = NULL;
    struct stat  st;
    unsigned     h;
    int          err;

    /* the same path under another root is another file */
    h = (unsigned) nicache_fnv1a64(path, len)
        ^ ((unsigned) root_fd * 2654435761u);
    if (c->max > 0) {
        for (f = c->table[h & c->mask]; f != NULL; f = f->hnext) {
            if (f->hash == h && f->root_fd == root_fd && f->path_len == len
                && memcmp(f->path, path, len) == 0) {
                break;
            }
        }
    }

    if (f != NULL) {
        if (now_ms - f->validated_ms < c->valid_ms) {
            c->hits++;
            goto found;
        }

        /* revalidate: the same inode keeps the open descriptor; bytes in
         * memory of another revision are read again, unless a response
         * in flight still sends them: then the entry is made anew, and
         * that response keeps the old one */
        c->revalidations++;
        if (fstatat(root_fd, len > 1 ? path + 1 : ".", &st, 0) == 0
            && st.st_ino == f->file.id_ino && st.st_dev == f->file.id_dev
            && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
            int stale = f->file.mem != NULL
                        && snic_file_revision(&st) != f->file.revision;

            if (!stale || f->refs == 0) {
                if (stale) {
                    free((char *) f->file.mem);
                    f->file.mem = NULL;
                }
                set_stat(c, f, &st);
                if (stale) {
                    load_mem(f);
                }
                f->validated_ms = now_ms;
                goto found;
            }
        }

        /* gone or replaced (rename over it): open it anew */
        c->reopens++;
        evict(c, f);
        f = NULL;
    } else {
        c->misses++;
    }

    err = open_new(c, root_fd, path, len, h, now_ms, &nf);
    if (err != 0) {
        return err;
    }
    f = nf;

    if (c->max > 0) {
        f->hnext = c->table[f->hash & c->mask];
        c->table[f->hash & c->mask] = f;
        f->in_cache = 1;
        c->count++;
        lru_push(c, f);
        while (c->count > c->max && c->lru_tail != NULL) {
            evict(c, c->lru_tail);
        }
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
