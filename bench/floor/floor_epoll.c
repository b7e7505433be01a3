/*
 * The epoll floor (floor.h): one thread, edge-triggered epoll, a read of
 * what has come and one writev of every response it asks for; a read
 * shorter than the buffer means the socket is drained (the next byte
 * raises a new edge), so a request costs one epoll_wait share, one read
 * and one writev.
 *
 * Usage: floor_epoll --port N --root DIR   (until SIGTERM)
 */

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "floor.h"

static void
conn_close(floor_conn_t **conns, int fd)
{
    free(conns[fd]);
    conns[fd] = NULL;
    close(fd);
}

/* what c has queued, sent until done or the socket is full: 0, or -1 */
static int
flush(floor_conn_t *c, int fd)
{
    struct iovec iov[FLOOR_IOV];
    ssize_t      n;
    int          k;

    while ((k = floor_iov(c, iov, FLOOR_IOV)) > 0) {
        n = writev(fd, iov, k);
        if (n < 0) {
            return errno == EAGAIN ? 0 : -1;
        }
        floor_sent(c, (size_t) n);
    }
    return 0;
}

/* fd readable (or writable): 0, or -1 to close it */
static int
serve(floor_conn_t *c, int fd)
{
    size_t  room;
    ssize_t n;

    for (;;) {
        room = FLOOR_IN - c->inlen;
        n = read(fd, c->in + c->inlen, room);
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
            return -1;
        }
        if (n < 0) {
            break;
        }
        c->inlen += (size_t) n;
        if (floor_take(c) != 0) {
            return -1;
        }
        if ((size_t) n < room) {
            break; /* drained: the next byte raises a new edge */
        }
    }
    return flush(c, fd);
}

int
main(int argc, char **argv)
{
    int                lfd = floor_start(argc, argv, "floor_epoll");
    int                ep = epoll_create1(EPOLL_CLOEXEC), n, i, fd;
    struct epoll_event ev = {.events = EPOLLIN}, evs[256];
    floor_conn_t     **conns = calloc(65536, sizeof(*conns));

    ev.data.fd = lfd;
    if (ep == -1 || conns == NULL || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev)) {
        return 1;
    }
    for (;;) {
        n = epoll_wait(ep, evs, 256, -1);
        for (i = 0; i < n; i++) {
            fd = evs[i].data.fd;
            if (fd == lfd) {
                while ((fd = accept4(lfd, NULL, NULL,
                                     SOCK_NONBLOCK | SOCK_CLOEXEC))
                       != -1) {
                    if (fd >= 65536
                        || (conns[fd] = calloc(1, sizeof(floor_conn_t)))
                               == NULL) {
                        close(fd);
                        continue;
                    }
                    ev.events = EPOLLIN | EPOLLOUT | EPOLLET | EPOLLRDHUP;
                    ev.data.fd = fd;
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
                }
                continue;
            }
            if (conns[fd] != NULL && serve(conns[fd], fd) != 0) {
                conn_close(conns, fd);
            }
        }
    }
}
