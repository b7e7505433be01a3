/*
 * Socket output helpers shared by the backends.
 *
 * sendmsg() with MSG_MORE tells TCP that more data follows, so headers and
 * the first body bytes share a segment (Linux >= 2.4.4); MSG_NOSIGNAL keeps
 * a peer reset from raising SIGPIPE.  A connection with a transport of its
 * own (TLS, snic_conn_t.write) takes every byte through it instead: file
 * bytes are read into a per-thread buffer, since sendfile(2) would put
 * them on the socket unencrypted.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for embedders (the nginx module) that do not */
#endif

#include <errno.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"

size_t
snic_iov_len(const struct iovec *iov, int n)
{
    size_t len = 0;
    int    i;

    for (i = 0; i < n; i++) {
        len += iov[i].iov_len;
    }
    return len;
}

ssize_t
snic_send_iov(snic_conn_t *c, const struct iovec *iov, int n, int more)
{
    struct msghdr msg;
    ssize_t       rc;

    if (c->write != NULL) {
        return c->write(c, iov, n);
    }
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = (struct iovec *) iov;
    msg.msg_iovlen = (size_t) n;

    do {
        rc = sendmsg(c->fd, &msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
    } while (rc == -1 && errno == EINTR);
    return rc;
}

#define READ_BUF (16 * 1024) /* a TLS record */

static _Thread_local char read_buf[READ_BUF];

ssize_t
snic_sendfile(snic_conn_t *c, int fd, off_t *off, size_t len)
{
    struct iovec iov;
    ssize_t      n, w;

    if (c->write == NULL) {
        do {
            n = sendfile(c->fd, fd, off, len);
        } while (n == -1 && errno == EINTR);
        return n;
    }
    do {
        n = pread(fd, read_buf, len < READ_BUF ? len : READ_BUF, *off);
    } while (n == -1 && errno == EINTR);
    if (n <= 0) {
        return n;
    }
    iov.iov_base = read_buf;
    iov.iov_len = (size_t) n;
    w = c->write(c, &iov, 1);
    if (w > 0) {
        *off += w; /* what the transport did not take is read again */
    }
    return w;
}

ssize_t
snic_send_file(snic_conn_t *c, const snic_file_t *f, off_t *off, size_t len)
{
    struct iovec iov;
    ssize_t      w;

    if (c->write == NULL || f->mem == NULL || *off >= f->size) {
        return snic_sendfile(c, f->fd, off, len);
    }
    iov.iov_base = (char *) f->mem + *off;
    iov.iov_len =
        len < (size_t) (f->size - *off) ? len : (size_t) (f->size - *off);
    w = c->write(c, &iov, 1);
    if (w > 0) {
        *off += w;
    }
    return w;
}

int
snic_header_iov(const snic_send_t *req, size_t skip, struct iovec *iov, int max)
{
    int i, k = 0;

    for (i = 0; i < req->nhdr && k < max; i++) {
        if (skip >= req->hdr[i].iov_len) {
            skip -= req->hdr[i].iov_len;
            continue;
        }
        iov[k].iov_base = (char *) req->hdr[i].iov_base + skip;
        iov[k].iov_len = req->hdr[i].iov_len - skip;
        skip = 0;
        k++;
    }
    return k;
}

/*
 * Returns SNIC_OK when every header byte of req is out, SNIC_AGAIN when the
 * socket is full, SNIC_ERROR on failure.  *done counts header bytes sent.
 */
int
snic_send_headers(snic_conn_t *c, const snic_send_t *req, size_t *done,
                  int more)
{
    struct iovec iov[64];
    size_t       total;
    ssize_t      n;
    int          k;

    total = snic_iov_len(req->hdr, req->nhdr);
    *done = 0;

    while (*done < total) {
        /* rebuild the iovec window past what is already sent */
        k = snic_header_iov(req, *done, iov, 64);
        n = snic_send_iov(c, iov, k, more);
        if (n == -1) {
            return errno == EAGAIN ? SNIC_AGAIN : SNIC_ERROR;
        }
        *done += (size_t) n;
    }
    return SNIC_OK;
}
