/*
 * The io_uring floor (floor.h): one thread, one ring; a multishot accept
 * on the listening socket and a multishot receive on each connection
 * into a ring of provided buffers, so neither is asked for again while
 * it keeps going; a connection's responses go as one writev on the
 * ring, the next when it completes.  Everything a turn made ready is
 * submitted with the wait for the next completions: one io_uring_enter
 * a turn.  The ring is single-issuer with deferred task work where the
 * kernel has them (6.1), else plain.
 *
 * Usage: floor_uring --port N --root DIR   (until SIGTERM)
 */

#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "floor.h"

#define NBUFS  4096 /* provided buffers, a power of two */
#define BUFSZ  4096
#define BGID   1
#define MAXFDS 65536

enum { OP_ACCEPT = 1, OP_RECV, OP_SEND };

typedef struct {
    floor_conn_t c;
    struct iovec iov[FLOOR_IOV]; /* of the send in flight */
    int          sending, receiving;
} uconn_t;

static struct io_uring           ring;
static struct io_uring_buf_ring *br;
static char                     *bufs;
static uconn_t                 **conns;

static struct io_uring_sqe *
sqe_get(void)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

    if (sqe == NULL) {
        io_uring_submit(&ring); /* the queue is full: it goes now */
        sqe = io_uring_get_sqe(&ring);
    }
    if (sqe == NULL) {
        fprintf(stderr, "floor_uring: no submission entry\n");
        exit(1);
    }
    return sqe;
}

static void
arm(int op, int fd)
{
    struct io_uring_sqe *sqe = sqe_get();

    if (op == OP_ACCEPT) {
        io_uring_prep_multishot_accept(sqe, fd, NULL, NULL, SOCK_CLOEXEC);
    } else {
        io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->buf_group = BGID;
        conns[fd]->receiving = 1;
    }
    io_uring_sqe_set_data64(sqe, (uint64_t) op << 32 | (uint32_t) fd);
}

static void
send_next(uconn_t *u, int fd)
{
    struct io_uring_sqe *sqe;
    int                  k = floor_iov(&u->c, u->iov, FLOOR_IOV);

    if (k == 0) {
        return;
    }
    sqe = sqe_get();
    io_uring_prep_writev(sqe, fd, u->iov, (unsigned) k, 0);
    io_uring_sqe_set_data64(sqe, (uint64_t) OP_SEND << 32 | (uint32_t) fd);
    u->sending = 1;
}

/* gone once neither a receive nor a send is in flight */
static void
maybe_close(int fd)
{
    if (!conns[fd]->receiving && !conns[fd]->sending) {
        free(conns[fd]);
        conns[fd] = NULL;
        close(fd);
    }
}

static void
on_recv(struct io_uring_cqe *cqe, int fd)
{
    uconn_t *u = conns[fd];
    int      more = cqe->flags & IORING_CQE_F_MORE, bad = 0;

    if (cqe->res > 0) {
        unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

        if ((size_t) cqe->res > FLOOR_IN - u->c.inlen) {
            bad = 1;
        } else {
            memcpy(u->c.in + u->c.inlen, bufs + (size_t) bid * BUFSZ,
                   (size_t) cqe->res);
            u->c.inlen += (size_t) cqe->res;
            bad = floor_take(&u->c) != 0;
        }
        io_uring_buf_ring_add(br, bufs + (size_t) bid * BUFSZ, BUFSZ,
                              (unsigned short) bid,
                              io_uring_buf_ring_mask(NBUFS), 0);
        io_uring_buf_ring_advance(br, 1);
        if (!bad && !u->sending) {
            send_next(u, fd);
        }
    }
    if (more) {
        if (bad) {
            shutdown(fd, SHUT_RDWR); /* its receive ends with 0 */
        }
        return;
    }
    u->receiving = 0;
    if (!bad && (cqe->res > 0 || cqe->res == -ENOBUFS)) {
        arm(OP_RECV, fd); /* it stopped, the connection did not */
        return;
    }
    maybe_close(fd);
}

static void
on_send(struct io_uring_cqe *cqe, int fd)
{
    uconn_t *u = conns[fd];

    u->sending = 0;
    if (cqe->res < 0) {
        shutdown(fd, SHUT_RDWR);
        maybe_close(fd);
        return;
    }
    floor_sent(&u->c, (size_t) cqe->res);
    send_next(u, fd);
}

static void
on_accept(struct io_uring_cqe *cqe, int lfd)
{
    int fd = cqe->res;

    if (fd < 0 && fd != -EAGAIN && fd != -EINTR && fd != -ECONNABORTED
        && fd != -EMFILE && fd != -ENFILE) {
        /* (-EINVAL: a kernel without multishot accept) */
        fprintf(stderr, "floor_uring: io_uring accept: %s\n", strerror(-fd));
        exit(1);
    }
    if (!(cqe->flags & IORING_CQE_F_MORE)) {
        arm(OP_ACCEPT, lfd);
    }
    if (fd < 0) {
        return;
    }
    if (fd >= MAXFDS || (conns[fd] = calloc(1, sizeof(uconn_t))) == NULL) {
        close(fd);
        return;
    }
    arm(OP_RECV, fd);
}

static void
setup(void)
{
    struct io_uring_params  p = {0};
    struct io_uring_buf_reg reg = {0};
    void                   *mem;
    int                     i;

    p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    if (io_uring_queue_init_params(4096, &ring, &p) != 0) {
        memset(&p, 0, sizeof(p));
        if ((i = io_uring_queue_init_params(4096, &ring, &p)) != 0) {
            fprintf(stderr, "floor_uring: io_uring: %s\n", strerror(-i));
            exit(1);
        }
    }
    bufs = malloc((size_t) NBUFS * BUFSZ);
    conns = calloc(MAXFDS, sizeof(*conns));
    if (bufs == NULL || conns == NULL
        || posix_memalign(&mem, 4096, NBUFS * sizeof(struct io_uring_buf))
               != 0) {
        fprintf(stderr, "floor_uring: out of memory\n");
        exit(1);
    }
    br = mem;
    io_uring_buf_ring_init(br);
    reg.ring_addr = (unsigned long) br;
    reg.ring_entries = NBUFS;
    reg.bgid = BGID;
    if ((i = io_uring_register_buf_ring(&ring, &reg, 0)) != 0) {
        fprintf(stderr, "floor_uring: io_uring provided buffers: %s\n",
                strerror(-i));
        exit(1);
    }
    for (i = 0; i < NBUFS; i++) {
        io_uring_buf_ring_add(br, bufs + (size_t) i * BUFSZ, BUFSZ,
                              (unsigned short) i, io_uring_buf_ring_mask(NBUFS),
                              i);
    }
    io_uring_buf_ring_advance(br, NBUFS);
}

int
main(int argc, char **argv)
{
    int                  lfd = floor_start(argc, argv, "floor_uring");
    struct io_uring_cqe *cqe;
    unsigned             head, n;

    setup();
    arm(OP_ACCEPT, lfd);
    for (;;) {
        int rc = io_uring_submit_and_wait(&ring, 1);

        if (rc < 0 && rc != -EINTR) {
            fprintf(stderr, "floor_uring: io_uring_enter: %s\n", strerror(-rc));
            return 1;
        }
        n = 0;
        io_uring_for_each_cqe(&ring, head, cqe)
        {
            uint64_t d = io_uring_cqe_get_data64(cqe);
            int      fd = (int) (uint32_t) d;

            n++;
            switch (d >> 32) {
            case OP_ACCEPT: on_accept(cqe, fd); break;
            case OP_RECV: on_recv(cqe, fd); break;
            case OP_SEND: on_send(cqe, fd); break;
            }
        }
        io_uring_cq_advance(&ring, n);
    }
}
