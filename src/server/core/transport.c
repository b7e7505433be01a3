/*
 * Clear-text TCP: recv(2), and a write path that gathers.  For HTTP/1.1
 * and HTTP/2 alike a response is a header block (or a few small frames)
 * and often a small file, and pipelined or multiplexed responses follow
 * each other; writing each header and each file range with a syscall of
 * its own costs more than the bytes.  So the backends get a write hook
 * that copies into one buffer (GATHER_BUF), sent when it is full and when
 * the connection's flush ends.  File ranges up to GATHER_SMALL go through
 * it, and up to GATHER_FILE when other bytes share the send (the backend
 * reads them, from the file or from NIC memory, and accounts them as it
 * always does); the others are sent by the backend itself with zero copy
 * once the buffer is out.  The buffer is borrowed from the worker's pool
 * for the time it holds bytes: an idle connection holds none. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server/core/nicd.h"
#include "server/core/transport.h"
#include "sendfile_nic/snic_backend.h"

#define GATHER_BUF   NICD_POOL_GATHER_SIZE
#define GATHER_FILE  (16 * 1024) /* a DATA frame at the default size */
#define GATHER_SMALL (4 * 1024)

static ssize_t
plain_recv(nicd_conn_t *c, void *buf, size_t len)
{
    return recv(c->sc.fd, buf, len, 0);
}

typedef struct {
    char          *buf;        /* NULL while empty: back in the pool */
    size_t         start, len; /* buf[start, len) is still to send */
    nicd_worker_t *w;
} gather_t;

static void
gather_give_back(gather_t *g)
{
    if (g->buf != NULL) {
        nicd_pool_put(nicd_worker_pool(g->w, NICD_POOL_GATHER), g->buf);
        g->buf = NULL;
    }
}

/* Send what the buffer holds: 1 all out, 0 the socket is full, -1 failed. */
static int
gather_out(int fd, gather_t *g)
{
    ssize_t n;

    while (g->start < g->len) {
        n = send(fd, g->buf + g->start, g->len - g->start, MSG_NOSIGNAL);
        if (n == -1) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN ? 0 : -1;
        }
        g->start += (size_t) n;
    }
    g->start = g->len = 0;
    gather_give_back(g);
    return 1;
}

/* snic_conn_t.write: take what fits.  What does not fit sends the buffer
 * first, so a range is cut in two (and its tail read again) only when
 * the socket is full. */
static ssize_t
gather_write(snic_conn_t *sc, const struct iovec *iov, int n)
{
    gather_t *g = sc->transport;
    size_t    k = 0, take;
    int       i, rc;

    if (g->len > 0 && g->len + snic_iov_len(iov, n) > GATHER_BUF) {
        rc = gather_out(sc->fd, g);
        if (rc < 0 || (rc == 0 && g->start == 0 && g->len == GATHER_BUF)) {
            return -1; /* errno: EAGAIN when the socket is full */
        }
        if (rc == 0) {
            /* room at the front: move the rest there */
            memmove(g->buf, g->buf + g->start, g->len - g->start);
            g->len -= g->start;
            g->start = 0;
        }
    }
    if (g->buf == NULL) {
        g->buf = nicd_pool_get(nicd_worker_pool(g->w, NICD_POOL_GATHER));
        if (g->buf == NULL) {
            errno = ENOMEM;
            return -1;
        }
    }
    for (i = 0; i < n && g->len < GATHER_BUF; i++) {
        take = iov[i].iov_len < GATHER_BUF - g->len ? iov[i].iov_len
                                                    : GATHER_BUF - g->len;
        memcpy(g->buf + g->len, iov[i].iov_base, take);
        g->len += take;
        k += take;
    }
    return (ssize_t) k;
}

static int
gather_start(nicd_conn_t *c, void *ctx)
{
    gather_t *g = calloc(1, sizeof(*g));

    (void) ctx;
    if (g == NULL) {
        log_error(LOG_CRIT, errno, "calloc() failed, client: %s", c->addr);
        return -1;
    }
    g->w = c->w;
    c->tp_data = g;
    c->sc.transport = g;
    c->sc.write = gather_write;
    return 0;
}

static int
gather_flush(nicd_conn_t *c)
{
    return gather_out(c->sc.fd, c->tp_data);
}

static void
gather_close(nicd_conn_t *c)
{
    gather_t *g = c->tp_data;

    if (g != NULL) {
        gather_give_back(g);
        free(g);
    }
    c->tp_data = NULL;
    c->sc.transport = NULL;
    c->sc.write = NULL;
}

static int
gather_route(nicd_conn_t *c, size_t file_len, int more)
{
    gather_t *g = c->tp_data;
    int       rc;

    /* copied: what is small, or joins other bytes in one send (more
     * responses behind it, or frames gathered before it); a range above
     * a page alone goes out with zero copy, which costs less than
     * reading it in */
    if (file_len <= GATHER_SMALL
        || (file_len <= GATHER_FILE && (more || g->len > 0))) {
        c->sc.write = gather_write;
        return 1;
    }
    /* zero copy, after what was gathered before it */
    rc = gather_out(c->sc.fd, g);
    if (rc == 1) {
        c->sc.write = NULL;
    }
    return rc;
}

const nicd_transport_t nicd_transport_gather = {
    "tcp",        gather_start, NULL, plain_recv,   NULL,
    gather_flush, gather_close, NULL, gather_route,
};

const nicd_transport_t nicd_transport_http_on_https = {
    "tcp on a tls port", gather_start, NULL, plain_recv,   NULL,
    gather_flush,        gather_close, NULL, gather_route,
};
