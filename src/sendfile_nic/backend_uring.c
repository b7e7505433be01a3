/*
 * The "uring" backend: sends through io_uring (liburing), a ring per
 * worker thread, with zero-copy sends where they can pay.
 *
 * Kernel facts relied on:
 * - IORING_OP_SENDMSG_ZC (Linux 6.0) sends user memory without copying it:
 *   the pages are pinned and the socket buffers refer to them.  The
 *   request completes twice: first with the bytes sent, IORING_CQE_F_MORE
 *   set when a notification will follow, then with IORING_CQE_F_NOTIF
 *   once the kernel has let go of the memory (the segments were acked or
 *   dropped).  Only then may the memory change or go: every zero-copy
 *   send here owns what it sends from (a copy of the headers and a
 *   mapping of the file range, a "hold") until its notification, which
 *   frees it.  The same interlock as the nic backend's punch-hole: bytes
 *   still queued keep their pages.
 * - File pages are not user memory, so a file range is sent from a
 *   read-only MAP_SHARED mapping of it: its pages are the page cache's,
 *   pinned, not copied.  A file truncated under such a send fails it with
 *   EFAULT where the pages beyond the end cannot be pinned, but the rest
 *   of the last page is zeros, which would go out as the file's bytes:
 *   so the file's size is checked (fstat) before each zero-copy send, and
 *   a range past it is EIO, as sendfile(2)'s 0 is.  A truncation in the
 *   microseconds between that check and the send can still send zeros
 *   from the last page, which sendfile(2) cannot: a file is not to be
 *   truncated in place while served (replaced by rename, it is safe).
 *   IORING_OP_SPLICE through a pipe would avoid the mapping, but needs a
 *   pipe per connection that may keep bytes the socket did not take, and
 *   two linked requests a send; not done.
 * - Zero copy pays above about 10 KB (Documentation/networking/
 *   msg_zerocopy.rst): pinning and the notification cost more than
 *   copying a small send.  Below uring_zc_min (16 KiB by default) a send
 *   is a copying IORING_OP_SENDMSG of headers and body (from the server's
 *   memory when it holds the file, else sendfile(2) as the sendfile
 *   backend does).
 * - To a peer on this machine (loopback), the kernel copies zero-copy
 *   pages at transmit, the device being unable to keep them
 *   (skb_copy_ubufs from __dev_queue_xmit: a third of nicd's time at 256
 *   KiB, measured with perf), where sendfile(2) hands the page cache's
 *   pages on by reference: so a connection from a loopback address is
 *   sent as the sendfile backend does, unless uring_zc_local on (the
 *   tests, which must exercise the zero-copy path here).  The saving
 *   shows only on a real NIC.
 * - MSG_DONTWAIT makes a send on a full socket complete at once with
 *   -EAGAIN (or with what fitted), so a send stays non-blocking as the
 *   backend contract asks; the server then waits for the socket to be
 *   writable.
 * - A connection with a transport of its own (TLS) writes through it:
 *   the bytes must pass through the transport, so no ring is used.
 *
 * Each send waits for its own completion (io_uring_submit_and_wait),
 * reaping the notifications of earlier sends that came meanwhile; what
 * each send did is counted (zero-copy, copied, by sendfile(2), and the
 * fallbacks by reason, as the nic backend counts its own).  Without
 * io_uring (a kernel or sandbox that refuses io_uring_setup, or no
 * SENDMSG_ZC), init says so and every send goes the sendfile backend's
 * way: uring_status reports "available": false and why.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for embedders (the nginx module) that do not */
#endif

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"

#include "config.h"

#if defined(HAVE_LIBURING)

#include <liburing.h>

#define URING_ENTRIES 256
#define URING_IOV_MAX 64

/* Linux 6.2's uapi; older headers (Debian 12's are 6.1) lack them, and a
 * kernel that does not know the flag fails the send with EINVAL, seen
 * at the probe below */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

enum {
    C_ZC_SENDS = 0, /* zero-copy sends */
    C_ZC_BYTES,     /* bytes they sent */
    C_COPY_SENDS,   /* copying sends on the ring */
    C_COPY_BYTES,   /* bytes they sent */
    C_SENDFILE,     /* sends the sendfile backend made (small ranges, TLS,
                        loopback) */
    C_NOTIFS,       /* zero-copy buffers released */
    C_ZC_COPIED,    /* notifications saying the kernel copied anyway */
    C_FB_SMALL,     /* fallback: below uring_zc_min */
    C_FB_TRANSPORT, /* fallback: a transport (TLS) */
    C_FB_MAP,       /* fallback: mmap(2) failed */
    C_FB_RING,      /* fallback: no ring (io_uring refused) */
    C_FB_LOCAL,     /* fallback: a loopback peer (the kernel would copy) */
    C_N
};

static const char *const counter_names[C_N] = {
    "zc_sends",      "zc_bytes",         "copy_sends",
    "copy_bytes",    "sendfile_sends",   "notifications",
    "zc_copied",     "fallback_small",   "fallback_transport",
    "fallback_mmap", "fallback_no_ring", "fallback_local"};

typedef struct {
    size_t   max_chunk, zc_min;
    void    *plain;        /* the sendfile backend's state, for the rest (its
                     operations called directly: backend.c, which lists
                     this backend, is not called back) */
    int      available;    /* io_uring and SENDMSG_ZC work here */
    int      report_usage; /* the kernel reports copied notifications */
    int      zc_local;     /* uring_zc_local on: zero copy to loopback too */
    char     why[128];     /* else why not */
    uint64_t c[C_N];       /* atomics: every worker adds to them */
} uring_state_t;

/* what a zero-copy send owns until its notification */
typedef struct {
    void  *map; /* the file range's mapping, or NULL */
    size_t maplen;
    size_t hlen;
    char   hdr[]; /* the header bytes it sends */
} hold_t;

/* a worker thread's ring; pending: zero-copy sends not yet released */
typedef struct {
    struct io_uring ring;
    int             ok; /* -1: could not be set up in this thread */
    uint64_t        pending;
} ring_t;

extern const snic_backend_t snic_backend_sendfile;

static _Thread_local ring_t *tl_ring;
static long                  page_size;
static pthread_key_t         ring_key; /* its destructor ends a thread's ring */
static pthread_once_t        ring_once = PTHREAD_ONCE_INIT;
/* the newest configuration's state, whose counters a thread's end reaps
 * into (NULL once it is stopped); set at start, while no worker runs */
static uring_state_t *ring_owner;

#define COUNT(s, k, n) __atomic_fetch_add(&(s)->c[k], (n), __ATOMIC_RELAXED)

/* s may be NULL: a thread ending after its configuration's state went
 * (nothing to count into then) */
static void
release(uring_state_t *s, hold_t *h)
{
    if (h->map != NULL) {
        munmap(h->map, h->maplen);
    }
    free(h);
    if (s != NULL) {
        COUNT(s, C_NOTIFS, 1);
    }
}

/* one completion that is not the send waited for: a notification */
static void
reap_one(uring_state_t *s, ring_t *r, struct io_uring_cqe *cqe)
{
    if (cqe->flags & IORING_CQE_F_NOTIF) {
        if (s != NULL && (cqe->res & IORING_NOTIF_USAGE_ZC_COPIED)) {
            COUNT(s, C_ZC_COPIED, 1);
        }
        release(s, (hold_t *) (uintptr_t) cqe->user_data);
        r->pending--;
    }
}

/* the notifications that came in, without waiting */
static void
reap(uring_state_t *s, ring_t *r)
{
    struct io_uring_cqe *cqe;

    while (r->pending > 0 && io_uring_peek_cqe(&r->ring, &cqe) == 0) {
        reap_one(s, r, cqe);
        io_uring_cqe_seen(&r->ring, cqe);
    }
}

/*
 * A worker thread ends: the notifications of its last sends (its
 * connections are closed, so they come soon; a second at most), then
 * the ring.
 */
static void
ring_end(void *arg)
{
    ring_t                  *r = arg;
    struct io_uring_cqe     *cqe;
    struct __kernel_timespec ts = {1, 0};

    if (r->ok > 0) {
        while (r->pending > 0
               && io_uring_wait_cqe_timeout(&r->ring, &cqe, &ts) == 0) {
            reap_one(ring_owner, r, cqe);
            io_uring_cqe_seen(&r->ring, cqe);
        }
        io_uring_queue_exit(&r->ring);
    }
    free(r);
}

static void
ring_key_make(void)
{
    (void) pthread_key_create(&ring_key, ring_end);
}

static ring_t *
ring_of_thread(uring_state_t *s)
{
    ring_t *r = tl_ring;

    if (r == NULL) {
        r = calloc(1, sizeof(*r));
        if (r == NULL) {
            return NULL;
        }
        r->ok = io_uring_queue_init(URING_ENTRIES, &r->ring, 0) == 0 ? 1 : -1;
        tl_ring = r;
        (void) pthread_setspecific(ring_key, r);
    }
    if (r->ok < 0) {
        return NULL;
    }
    reap(s, r);
    return r;
}

/*
 * Submit the prepared send (user_data ud) and wait for its result; the
 * notifications that come first are reaped.  *more: a notification will
 * follow.  Returns the result (bytes, or -errno).
 */
static int
submit_wait(uring_state_t *s, ring_t *r, uint64_t ud, int *more)
{
    struct io_uring_cqe *cqe;
    int                  rc;

    *more = 0;
    rc = io_uring_submit(&r->ring);
    if (rc < 0) {
        return rc;
    }
    for (;;) {
        do {
            rc = io_uring_wait_cqe(&r->ring, &cqe);
        } while (rc == -EINTR);
        if (rc < 0) {
            return rc;
        }
        if (cqe->user_data == ud && !(cqe->flags & IORING_CQE_F_NOTIF)) {
            rc = cqe->res;
            *more = (cqe->flags & IORING_CQE_F_MORE) != 0;
            io_uring_cqe_seen(&r->ring, cqe);
            return rc;
        }
        reap_one(s, r, cqe);
        io_uring_cqe_seen(&r->ring, cqe);
    }
}

static int
uring_init(const snic_options_t *opt, void **state, char *err, size_t errlen)
{
    uring_state_t         *s = calloc(1, sizeof(*s));
    struct io_uring        ring;
    struct io_uring_probe *p;
    int                    i, rc;

    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    page_size = sysconf(_SC_PAGESIZE);
    pthread_once(&ring_once, ring_key_make);
    ring_owner = s;
    s->max_chunk = opt->max_chunk;
    s->zc_min = 16 * 1024;
    for (i = 0; i < opt->nparams; i++) {
        const char *n = opt->params[i].name, *v = opt->params[i].value;

        if (strcmp(n, "uring_zc_min") == 0) {
            char              *end;
            unsigned long long x = strtoull(v, &end, 10);

            if (end == v) {
                snprintf(err, errlen, "invalid value \"%s\" of \"%s\"", v, n);
                free(s);
                return -1;
            }
            x *= *end == 'k' || *end == 'K'   ? 1024
                 : *end == 'm' || *end == 'M' ? 1024 * 1024
                                              : 1;
            s->zc_min = (size_t) x;
        } else if (strcmp(n, "uring_zc_local") == 0) {
            s->zc_local = strcmp(v, "on") == 0;
            if (!s->zc_local && strcmp(v, "off") != 0) {
                snprintf(err, errlen, "invalid value \"%s\" of \"%s\"", v, n);
                free(s);
                return -1;
            }
        } else {
            snprintf(err, errlen, "unknown parameter \"%s\"", n);
            free(s);
            return -1;
        }
    }
    /* probed once at start: a ring, and the opcodes this backend uses
     * (NICACHE_URING_OFF=1 pretends the kernel refused, for the tests of
     * the fallback) */
    rc = getenv("NICACHE_URING_OFF") != NULL ? -ENOSYS
                                             : io_uring_queue_init(4, &ring, 0);
    if (rc < 0) {
        snprintf(s->why, sizeof(s->why),
                 "io_uring_setup: %s: sending as the sendfile backend does",
                 strerror(-rc));
    } else {
        p = io_uring_get_probe_ring(&ring);
        if (p == NULL || !io_uring_opcode_supported(p, IORING_OP_SENDMSG_ZC)
            || !io_uring_opcode_supported(p, IORING_OP_SENDMSG)) {
            snprintf(s->why, sizeof(s->why),
                     "io_uring without IORING_OP_SENDMSG_ZC (Linux 6.0): "
                     "sending as the sendfile backend does");
        } else {
            struct utsname u;
            int            major = 0, minor = 0;

            s->available = 1;
            /* IORING_SEND_ZC_REPORT_USAGE: Linux 6.2 */
            s->report_usage = uname(&u) == 0
                              && sscanf(u.release, "%d.%d", &major, &minor) == 2
                              && (major > 6 || (major == 6 && minor >= 2));
        }
        if (p != NULL) {
            io_uring_free_probe(p);
        }
        io_uring_queue_exit(&ring);
    }
    {
        snic_options_t po = {opt->max_chunk, NULL, 0};

        if (snic_backend_sendfile.init(&po, &s->plain, err, errlen) != 0) {
            free(s);
            return -1;
        }
    }
    *state = s;
    return 0;
}

static void
uring_fini(void *state)
{
    uring_state_t *s = state;

    if (ring_owner == s) {
        ring_owner = NULL;
    }
    snic_backend_sendfile.fini(s->plain);
    free(s);
}

/* backend_data: 1 for a peer on this machine (a loopback address) */
static void
uring_conn_open(void *state, snic_conn_t *c)
{
    struct sockaddr_storage ss;
    socklen_t               len = sizeof(ss);
    int                     local = 0;

    (void) state;
    if (getpeername(c->fd, (struct sockaddr *) &ss, &len) == 0) {
        if (ss.ss_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *) &ss;

            local = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
        } else if (ss.ss_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *) &ss;

            local = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr)
                    || (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)
                        && a->sin6_addr.s6_addr[12] == 127);
        } else {
            local = ss.ss_family == AF_UNIX;
        }
    }
    c->backend_data = (void *) (uintptr_t) local;
}

/* the sendfile backend's way (its own instance): headers, then
 * sendfile(2), TCP_CORK across pipelined responses */
static int
plain_send(uring_state_t *s, snic_conn_t *c, const snic_send_t *req,
           size_t *sent)
{
    COUNT(s, C_SENDFILE, 1);
    return snic_backend_sendfile.send(s->plain, c, req, sent);
}

/* a send's result into the contract's terms */
static int
result(int res, size_t want, size_t *sent)
{
    if (res == -EAGAIN || res == -EWOULDBLOCK) {
        *sent = 0;
        return SNIC_AGAIN;
    }
    if (res < 0) {
        *sent = 0;
        errno = res == -EFAULT ? EIO : -res; /* EFAULT: truncated under us */
        return SNIC_ERROR;
    }
    *sent = (size_t) res;
    return (size_t) res < want ? SNIC_AGAIN : SNIC_OK;
}

static int
uring_send(void *state, snic_conn_t *c, const snic_send_t *req, size_t *sent)
{
    uring_state_t       *s = state;
    ring_t              *r;
    struct iovec         iov[URING_IOV_MAX + 1];
    struct msghdr        msg;
    struct io_uring_sqe *sqe;
    size_t               hlen = snic_iov_len(req->hdr, req->nhdr), blen = 0;
    size_t               want;
    hold_t              *h = NULL;
    int                  k, res, more, rc, flags, chunked = 0;
    const snic_file_t   *f = req->file;

    *sent = 0;
    if (f != NULL && req->len > 0) {
        blen = req->len;
        if (s->max_chunk != 0 && blen > s->max_chunk) {
            blen = s->max_chunk;
            chunked = 1;
        }
    }
    if (!s->available || (r = ring_of_thread(s)) == NULL) {
        COUNT(s, C_FB_RING, 1);
        return plain_send(s, c, req, sent);
    }
    if (c->write != NULL) {
        COUNT(s, C_FB_TRANSPORT, 1);
        return plain_send(s, c, req, sent);
    }
    want = hlen + blen;
    if (c->backend_data != NULL && !s->zc_local && want >= s->zc_min) {
        COUNT(s, C_FB_LOCAL, 1);
        return plain_send(s, c, req, sent);
    }
    if (want < s->zc_min && blen > 0 && f->mem == NULL) {
        /* a small range of a file the server does not hold: sendfile(2)
         * from the page cache beats mapping it */
        COUNT(s, C_FB_SMALL, 1);
        return plain_send(s, c, req, sent);
    }
    if (c->corked) {
        /* a cork the sendfile path left on (small pipelined responses
         * before this one): off, or this send's last segment would wait
         * for it; MSG_MORE packs from here on */
        int off = 0;

        if (setsockopt(c->fd, IPPROTO_TCP, TCP_CORK, &off, sizeof(off)) == 0) {
            c->corked = 0;
        }
    }
    flags = MSG_DONTWAIT | MSG_NOSIGNAL | (req->more || chunked ? MSG_MORE : 0);
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = iov;
    sqe = io_uring_get_sqe(&r->ring);
    if (sqe == NULL) {
        COUNT(s, C_FB_RING, 1);
        return plain_send(s, c, req, sent);
    }
    if (want < s->zc_min) {
        /* small, and in the server's memory: one copying send of the
         * headers and the body */
        k = snic_header_iov(req, 0, iov, URING_IOV_MAX);
        if (blen > 0) {
            iov[k].iov_base = (char *) f->mem + req->offset;
            iov[k].iov_len = blen;
            k++;
        }
        msg.msg_iovlen = (size_t) k;
        io_uring_prep_sendmsg(sqe, c->fd, &msg, (unsigned) flags);
        io_uring_sqe_set_data64(sqe, 1);
        res = submit_wait(s, r, 1, &more);
        rc = result(res, want, sent);
        if (res > 0) {
            COUNT(s, C_COPY_SENDS, 1);
            COUNT(s, C_COPY_BYTES, (uint64_t) res);
        }
        return rc != SNIC_OK || !chunked ? rc : SNIC_AGAIN;
    }
    /* zero copy: the hold owns a copy of the headers and a mapping of
     * the range until the kernel lets go of them */
    h = malloc(sizeof(*h) + hlen);
    if (h == NULL) {
        io_uring_prep_nop(sqe); /* give the entry back unused */
        io_uring_submit(&r->ring);
        return plain_send(s, c, req, sent);
    }
    h->map = NULL;
    h->maplen = 0;
    h->hlen = hlen;
    k = snic_header_iov(req, 0, iov, URING_IOV_MAX);
    for (int i = 0, o = 0; i < k; i++) {
        memcpy(h->hdr + o, iov[i].iov_base, iov[i].iov_len);
        o += (int) iov[i].iov_len;
    }
    k = 0;
    if (hlen > 0) {
        iov[k].iov_base = h->hdr;
        iov[k].iov_len = hlen;
        k++;
    }
    if (blen > 0) {
        off_t       start = req->offset & ~((off_t) page_size - 1);
        struct stat st;

        if (fstat(f->fd, &st) != 0 || st.st_size < req->offset + (off_t) blen) {
            free(h);
            io_uring_prep_nop(sqe);
            io_uring_submit(&r->ring);
            errno = EIO; /* truncated under us */
            return SNIC_ERROR;
        }
        h->maplen = (size_t) (req->offset - start) + blen;
        h->map = mmap(NULL, h->maplen, PROT_READ, MAP_SHARED, f->fd, start);
        if (h->map == MAP_FAILED) {
            free(h);
            COUNT(s, C_FB_MAP, 1);
            io_uring_prep_nop(sqe);
            io_uring_submit(&r->ring);
            return plain_send(s, c, req, sent);
        }
        iov[k].iov_base = (char *) h->map + (req->offset - start);
        iov[k].iov_len = blen;
        k++;
    }
    msg.msg_iovlen = (size_t) k;
    io_uring_prep_sendmsg_zc(sqe, c->fd, &msg, (unsigned) flags);
    if (s->report_usage) {
        /* the notification says whether the kernel copied after all */
        sqe->ioprio |= IORING_SEND_ZC_REPORT_USAGE;
    }
    io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) h);
    res = submit_wait(s, r, (uint64_t) (uintptr_t) h, &more);
    if (more) {
        r->pending++; /* released by its notification */
    } else {
        release(s, h);
    }
    rc = result(res, want, sent);
    if (res > 0) {
        COUNT(s, C_ZC_SENDS, 1);
        COUNT(s, C_ZC_BYTES, (uint64_t) res);
    }
    return rc != SNIC_OK || !chunked ? rc : SNIC_AGAIN;
}

static size_t
uring_report(void *state, int format, char *buf, size_t len)
{
    uring_state_t *s = state;
    size_t         need = 0;
    int            i, n;

#define OUT(...)                                                               \
    do {                                                                       \
        n = snprintf(buf + (need < len ? need : len),                          \
                     need < len ? len - need : 0, __VA_ARGS__);                \
        need += n > 0 ? (size_t) n : 0;                                        \
    } while (0)
    if (format == SNIC_REPORT_JSON) {
        OUT("{\"backend\": \"uring\", \"available\": %s, \"why\": \"%s\", "
            "\"zc_min\": %zu",
            s->available ? "true" : "false", s->why, s->zc_min);
        for (i = 0; i < C_N; i++) {
            OUT(", \"%s\": %llu", counter_names[i],
                (unsigned long long) __atomic_load_n(&s->c[i],
                                                     __ATOMIC_RELAXED));
        }
        OUT("}\n");
    } else {
        OUT("nicd_uring_available %d\n", s->available);
        for (i = 0; i < C_N; i++) {
            OUT("nicd_uring_%s_total %llu\n", counter_names[i],
                (unsigned long long) __atomic_load_n(&s->c[i],
                                                     __ATOMIC_RELAXED));
        }
    }
#undef OUT
    return need;
}

static void
uring_reset(void *state)
{
    uring_state_t *s = state;
    int            i;

    for (i = 0; i < C_N; i++) {
        __atomic_store_n(&s->c[i], 0, __ATOMIC_RELAXED);
    }
}

static const char *
uring_notice(void *state)
{
    uring_state_t *s = state;

    return s->available ? NULL : s->why;
}

static const char *const uring_directives[] = {"uring_zc_min", "uring_zc_local",
                                               NULL};

const snic_backend_t snic_backend_uring = {
    "uring",
    "io_uring: zero-copy SENDMSG_ZC from a mapping of the file above "
    "uring_zc_min, copying sends below",
    uring_directives,
    uring_init,
    uring_fini,
    uring_conn_open,
    NULL,
    uring_send,
    uring_report,
    uring_reset,
    NULL,
    uring_notice,
};

#endif /* HAVE_LIBURING */
