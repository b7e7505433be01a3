/*
 * The emulated NIC memory: a memfd (tmpfs pages) of the configured size,
 * or (nic_memory_path DIR) an unnamed file in DIR (O_TMPFILE) whose pages
 * live in that filesystem's page cache.
 *
 * Kernel facts this relies on:
 * - sendfile(2) or splice(2) from a memfd to a TCP socket (or vmsplice(2)
 *   of its mapping, then splice(2)) does not copy: the socket's queue
 *   holds references to the memfd's page-cache pages until the data is
 *   acknowledged.  Writing into a page that is still queued changes
 *   bytes that were "already sent".  On the paper's NIC, an insert into a
 *   block waits for earlier appends of that block to leave the NIC.
 * - The Linux way to get that interlock without waiting:
 *   fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) removes the
 *   block's pages from the memfd; queued data keeps the old pages (they
 *   are freed when the last reference goes) and the next write allocates
 *   fresh ones.  So every insert punches its block first.  The unit test
 *   shows both halves on this kernel: without the punch, queued bytes
 *   change; with it, none do.
 * - copy_file_range(2) copies inside the kernel, but not across
 *   filesystems since Linux 5.19 (EXDEV), and a memfd is always on tmpfs:
 *   after the first EXDEV (or EINVAL/EOPNOTSUPP) the device falls back to
 *   pread + pwrite for good.
 * - sendfile(2) from tmpfs looks each 4 KiB page up (and locks it) on its
 *   own (shmem_file_splice_read), where a disk filesystem's page cache is
 *   read in batches (filemap_splice_read): a 256 KiB body from a memfd
 *   cost this machine's kernel 43 us a call against 35 us from the ext4
 *   file.  An O_TMPFILE on ext4 (or xfs, btrfs) is read the batched way;
 *   its pages can be written back and, under memory pressure, dropped
 *   and read again from disk (the bytes stay right, only slower), where
 *   tmpfs pages stay in memory unless swapped.  Its filesystem must punch
 *   holes (checked at creation), and copy_file_range(2) then copies
 *   inside the kernel when the served files are on the same filesystem.
 * - A read-only shared mapping of the memory sees every insert and punched
 *   hole at once (the page cache is one): transports that copy (TLS, the
 *   gathered small responses) read cached bytes from it, without a
 *   pread(2) into a buffer of their own first.
 * - So a memfd's bytes leave by vmsplice(2) from that mapping into a pipe
 *   of the thread's, then splice(2) from the pipe to the socket: the pipe
 *   takes references to the pages as sendfile(2) does (nothing is copied,
 *   and a punched block's queued pages stay the old ones), but gathers
 *   them by walking the page table, not the memfd's page cache a page at
 *   a time.  Gathering 256 KiB into a pipe (make bench-splice) cost
 *   this machine 4.1 us from the ext4 file, 9.7 us from the memfd and
 *   5.3 us by vmsplice(2).  What the socket does not take is drained to
 *   /dev/null, so the pipe is empty between sends; the next send gathers
 *   those pages again.  An O_TMPFILE, whose own reads are batched, keeps
 *   sendfile(2).
 * - Blocks just inserted are gathered from the memfd itself (splice(2)),
 *   not through the mapping: vmsplice(2) maps the pages it takes into
 *   the process's page table, and punching a mapped block costs a TLB
 *   shootdown on top of the punch (3.5 against 2.7 us a 4 KiB block
 *   here) and the next vmsplice(2) a page fault.  A block that is hit
 *   again is worth mapping; in a small cache most inserted blocks are
 *   evicted before that (a NASA replay through 4 MiB: 6 % less server
 *   CPU than with every block mapped, 0.936x over 11 paired rounds).
 * - The pipe also lets a response whose blocks lie in several places of
 *   NIC memory (a cache that has evicted and reused slots) leave in one
 *   splice(2): its runs are gathered one by one (snic_device_gather(),
 *   taking the pages' references at once, so a later insert that punches
 *   one of those blocks does not change them) and sent together
 *   (snic_device_flush()), where sendfile(2) took a call, and TCP a
 *   sendmsg, for each run.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for embedders (the nginx module) that do not */
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/nic/device.h"

struct snic_device_s {
    int                 fd;
    size_t              block;
    uint32_t            nblocks;
    int                 no_copy_range;
    char               *bounce; /* one block, for pread + pwrite */
    const char         *map;    /* the memory mapped read-only, or NULL */
    int                 splice; /* sends by vmsplice + splice (a memfd) */
    snic_device_stats_t stats;
};

/* A thread's pipe for the splice path: empty between sends. */
typedef struct {
    int    fd[2]; /* -1: none could be made; the thread uses sendfile(2) */
    int    null;  /* /dev/null, where unsent bytes are drained */
    size_t size;  /* its capacity */
    size_t held;  /* bytes gathered and not flushed */
} splice_pipe_t;

#define SPLICE_PIPE_SIZE (1024 * 1024) /* pipe-max-size's default */

/* found through this_pipe on every send; the key only closes it when
 * the thread exits */
static _Thread_local splice_pipe_t *this_pipe;
static pthread_key_t                pipe_key;
static pthread_once_t               pipe_once = PTHREAD_ONCE_INIT;
static int                          pipe_key_ok;

static void
pipe_close(void *arg)
{
    splice_pipe_t *p = arg;

    if (p->fd[0] != -1) {
        close(p->fd[0]);
        close(p->fd[1]);
    }
    if (p->null != -1) {
        close(p->null);
    }
    free(p);
}

static void
pipe_key_create(void)
{
    pipe_key_ok = pthread_key_create(&pipe_key, pipe_close) == 0;
}

/* The calling thread's pipe, made on first use; NULL if none can be. */
static splice_pipe_t *
thread_pipe(void)
{
    splice_pipe_t *p;
    int            size;

    p = this_pipe;
    if (p != NULL) {
        return p->fd[0] != -1 ? p : NULL;
    }
    pthread_once(&pipe_once, pipe_key_create);
    if (!pipe_key_ok) {
        return NULL;
    }
    p = malloc(sizeof(*p)); /* the thread's own, never in shared memory */
    if (p == NULL) {
        return NULL;
    }
    p->size = p->held = 0;
    p->null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (p->null == -1 || pipe2(p->fd, O_CLOEXEC | O_NONBLOCK) != 0) {
        p->fd[0] = p->fd[1] = -1;
    } else {
        /* a smaller pipe (pipe-max-size, or a user's pipe quota) only
         * means more calls per body */
        size = fcntl(p->fd[1], F_SETPIPE_SZ, SPLICE_PIPE_SIZE);
        if (size == -1) {
            size = fcntl(p->fd[1], F_GETPIPE_SZ);
        }
        p->size = size > 0 ? (size_t) size : 4096;
    }
    if (pthread_setspecific(pipe_key, p) != 0) {
        pipe_close(p);
        return NULL;
    }
    this_pipe = p;
    return p->fd[0] != -1 ? p : NULL;
}

/* The thread's pipe goes: the thread sends by sendfile(2) from now on. */
static void
pipe_give_up(splice_pipe_t *p)
{
    close(p->fd[0]);
    close(p->fd[1]);
    p->fd[0] = p->fd[1] = -1;
}

/* Discard what is left in the thread's pipe; if that fails, the pipe goes
 * (bytes in it must never reach another connection). */
static void
pipe_drain(splice_pipe_t *p, size_t left)
{
    ssize_t n;

    while (left > 0) {
        n = splice(p->fd[0], NULL, p->null, NULL, left, SPLICE_F_NONBLOCK);
        if (n == -1 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            pipe_give_up(p);
            return;
        }
        left -= (size_t) n;
    }
}

snic_device_t *
snic_device_create(size_t size, size_t block, const char *path, char *err,
                   size_t errlen)
{
    snic_device_t *d;
    const char    *what = NULL;
    void          *map;

    if (block == 0 || size < block || size / block > UINT32_MAX - 1) {
        snprintf(err, errlen,
                 "NIC memory of %zu bytes cannot hold blocks "
                 "of %zu bytes",
                 size, block);
        return NULL;
    }
    d = snic_calloc(1, sizeof(*d));
    if (d == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->block = block;
    d->nblocks = (uint32_t) (size / block);
    d->bounce = snic_malloc(block);
    d->fd = path != NULL ? open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)
                         : memfd_create("nicache-nic-memory", MFD_CLOEXEC);
    if (d->fd == -1 || d->bounce == NULL) {
        what = d->bounce == NULL ? "out of memory"
               : errno == EOPNOTSUPP && path != NULL
                   ? "the filesystem has no unnamed files (O_TMPFILE)"
                   : strerror(errno);
    } else if (ftruncate(d->fd, (off_t) d->nblocks * (off_t) block) != 0) {
        what = strerror(errno);
    } else if (fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                         (off_t) block)
               != 0) {
        what = errno == EOPNOTSUPP ? "the filesystem cannot punch holes"
                                   : strerror(errno);
    }
    if (what != NULL) {
        snprintf(err, errlen, "NIC memory%s%s: %s", path ? " in " : "",
                 path ? path : "", what);
        snic_device_destroy(d);
        return NULL;
    }
    /* mapped here, before an embedder forks its workers, so the address
     * is good in all of them; without it, reads go by pread(2) */
    map = mmap(NULL, (size_t) d->nblocks * block, PROT_READ, MAP_SHARED, d->fd,
               0);
    d->map = map != MAP_FAILED ? map : NULL;
    d->splice = path == NULL && d->map != NULL;
    return d;
}

void
snic_device_destroy(snic_device_t *d)
{
    if (d == NULL) {
        return;
    }
    snic_device_let_go(d->fd, d->map, (size_t) d->nblocks * d->block);
    snic_free(d->bounce);
    snic_free(d);
}

uint32_t
snic_device_blocks(const snic_device_t *d)
{
    return d->nblocks;
}

size_t
snic_device_block_size(const snic_device_t *d)
{
    return d->block;
}

off_t
snic_device_offset(const snic_device_t *d, uint32_t slot)
{
    return (off_t) slot * (off_t) d->block;
}

/* Copy with pread + pwrite; 0 or -1 (EIO when the file is short). */
static int
copy_bounce(snic_device_t *d, int fd, off_t from, off_t to, size_t len)
{
    ssize_t n;
    size_t  done = 0;

    while (done < len) {
        n = pread(fd, d->bounce + done, len - done, from + (off_t) done);
        if (n == -1 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = EIO;
            }
            return -1;
        }
        done += (size_t) n;
    }
    done = 0;
    while (done < len) {
        n = pwrite(d->fd, d->bounce + done, len - done, to + (off_t) done);
        if (n == -1 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        done += (size_t) n;
    }
    return 0;
}

int
snic_device_insert(snic_device_t *d, uint32_t slot, int fd, off_t file_off,
                   size_t len)
{
    off_t   to = snic_device_offset(d, slot), from = file_off, dst;
    ssize_t n;
    size_t  done = 0;

    if (slot >= d->nblocks || len > d->block) {
        errno = EINVAL;
        goto err;
    }
    if (fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, to,
                  (off_t) d->block)
        != 0) {
        goto err;
    }

    while (!d->no_copy_range && done < len) {
        dst = to + (off_t) done;
        n = copy_file_range(fd, &from, d->fd, &dst, len - done, 0);
        if (n > 0) {
            done += (size_t) n;
            continue;
        }
        if (n == 0) {
            errno = EIO; /* the file is shorter than the directory thinks */
            goto err;
        }
        if (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP
            || errno == ENOSYS) {
            d->no_copy_range = 1;
            break;
        }
        goto err;
    }
    if (done < len
        && copy_bounce(d, fd, file_off + (off_t) done, to + (off_t) done,
                       len - done)
               != 0) {
        goto err;
    }

    d->stats.inserts++;
    d->stats.insert_bytes += len;
    return 0;

err:
    d->stats.insert_errors++;
    return -1;
}

ssize_t
snic_device_gather(snic_device_t *d, off_t nc_off, size_t len, int hot)
{
    splice_pipe_t *p = d->splice ? thread_pipe() : NULL;
    struct iovec   iov;
    ssize_t        in;
    loff_t         at = nc_off;

    if (p == NULL) {
        return -1;
    }
    iov.iov_base = (char *) d->map + nc_off;
    iov.iov_len = len < p->size - p->held ? len : p->size - p->held;
    if (iov.iov_len == 0) {
        return 0;
    }
    do {
        in = hot ? vmsplice(p->fd[1], &iov, 1, SPLICE_F_NONBLOCK)
                 : splice(d->fd, &at, p->fd[1], NULL, iov.iov_len,
                          SPLICE_F_NONBLOCK);
    } while (in == -1 && errno == EINTR);
    if (in <= 0 && p->held > 0) {
        /* its slots are taken (EAGAIN: short pieces), or something else:
         * what is held goes first, then this is tried again */
        return 0;
    }
    if (in <= 0) {
        pipe_give_up(p); /* not expected of an empty pipe */
        return -1;
    }
    p->held += (size_t) in;
    return in;
}

ssize_t
snic_device_flush(snic_device_t *d, int sock)
{
    splice_pipe_t *p = thread_pipe();
    ssize_t        out;
    size_t         held;
    int            err;

    if (p == NULL || p->held == 0) {
        return 0;
    }
    held = p->held;
    p->held = 0;
    do {
        out = splice(p->fd[0], NULL, sock, NULL, held, SPLICE_F_NONBLOCK);
    } while (out == -1 && errno == EINTR);
    if (out < (ssize_t) held) {
        err = errno;
        pipe_drain(p, held - (size_t) (out > 0 ? out : 0));
        errno = err;
    }
    if (out > 0) {
        d->stats.cached_bytes += (uint64_t) out;
    }
    return out;
}

ssize_t
snic_device_send(snic_device_t *d, int sock, off_t nc_off, size_t len)
{
    ssize_t n = snic_device_gather(d, nc_off, len, 1);

    if (n > 0) {
        return snic_device_flush(d, sock);
    }
    do {
        n = sendfile(sock, d->fd, &nc_off, len);
    } while (n == -1 && errno == EINTR);
    if (n > 0) {
        d->stats.cached_bytes += (uint64_t) n;
    }
    return n;
}

int
snic_device_fd(const snic_device_t *d)
{
    return d->fd;
}

const char *
snic_device_memory(const snic_device_t *d)
{
    return d->map;
}

const snic_device_stats_t *
snic_device_stats(const snic_device_t *d)
{
    return &d->stats;
}

void
snic_device_hold(const snic_device_t *d, int *fd, const void **map,
                 size_t *size)
{
    *fd = d->fd;
    *map = d->map;
    *size = (size_t) d->nblocks * d->block;
}

void
snic_device_let_go(int fd, const void *map, size_t size)
{
    if (map != NULL) {
        munmap((void *) map, size);
    }
    if (fd != -1) {
        close(fd);
    }
}
