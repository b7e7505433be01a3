/*
 * Socket output helpers shared by the backends.
 *
 * sendmsg() with MSG_MORE tells TCP that more data follows, so headers and
 * the first body bytes share a segment (Linux >= 2.4.4); MSG_NOSIGNAL keeps
 * a peer reset from raising SIGPIPE.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "snic.h"

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
snic_send_iov(int fd, const struct iovec *iov, int n, int more)
{
    struct msghdr msg;
    ssize_t       rc;

    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = (struct iovec *) iov;
    msg.msg_iovlen = (size_t) n;

    do {
        rc = sendmsg(fd, &msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
    } while (rc == -1 && errno == EINTR);
    return rc;
}

/*
 * Returns SNIC_OK when every header byte of req is out, SNIC_AGAIN when the
 * socket is full, SNIC_ERROR on failure.  *done counts header bytes sent.
 */
int
snic_send_headers(int fd, const snic_send_t *req, size_t *done, int more)
{
    struct iovec iov[64];
    size_t       total, skip;
    ssize_t      n;
    int          i, k;

    total = snic_iov_len(req->hdr, req->nhdr);
    *done = 0;

    while (*done < total) {
        /* rebuild the iovec window past what is already sent */
        skip = *done;
        k = 0;
        for (i = 0; i < req->nhdr && k < 64; i++) {
            if (skip >= req->hdr[i].iov_len) {
                skip -= req->hdr[i].iov_len;
                continue;
            }
            iov[k].iov_base = (char *) req->hdr[i].iov_base + skip;
            iov[k].iov_len = req->hdr[i].iov_len - skip;
            skip = 0;
            k++;
        }

        n = snic_send_iov(fd, iov, k, more);
        if (n == -1) {
            return errno == EAGAIN ? SNIC_AGAIN : SNIC_ERROR;
        }
        *done += (size_t) n;
    }
    return SNIC_OK;
}
