/*
 * The "copy" backend: pread() into a buffer, then sendmsg().  The baseline
 * without zero-copy.  Headers and the first body bytes leave in one
 * sendmsg(), so a small response is one syscall after its pread().
 *
 * The buffer is per thread (worker threads share the backend state).  A
 * short write leaves nothing behind: the next call reads again from the
 * offset the caller passes, so no per-connection state is needed.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for embedders (the nginx module) that do not */
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"

#define COPY_BUF_SIZE (64 * 1024)
#define COPY_IOV_MAX  64

typedef struct {
    size_t max_chunk;
} copy_state_t;

static _Thread_local char copy_buf[COPY_BUF_SIZE];

static int
copy_init(const snic_options_t *opt, void **state, char *err, size_t errlen)
{
    copy_state_t *s;

    (void) err;
    (void) errlen;
    s = malloc(sizeof(*s));
    if (s == NULL) {
        return -1;
    }
    s->max_chunk = opt->max_chunk;
    *state = s;
    return 0;
}

static void
copy_fini(void *state)
{
    free(state);
}

/*
 * Returns SNIC_OK when everything is sent, SNIC_AGAIN when the socket is
 * full or max_chunk body bytes went out, SNIC_ERROR (errno) on failure.
 */
static int
copy_send(void *state, snic_conn_t *c, const snic_send_t *req, size_t *sent)
{
    copy_state_t *s = state;
    struct iovec  iov[COPY_IOV_MAX + 1];
    size_t        hdr_total, hdr_done, body, want;
    ssize_t       n, w;
    int           i, k, last;

    hdr_total = snic_iov_len(req->hdr, req->nhdr);
    hdr_done = 0;
    body = 0;
    *sent = 0;

    if (req->file == NULL || req->len == 0) {
        i = snic_send_headers(c, req, &hdr_done, req->more);
        *sent = hdr_done;
        return i;
    }

    while (body < req->len) {
        want = req->len - body;
        if (want > COPY_BUF_SIZE) {
            want = COPY_BUF_SIZE;
        }

        do {
            n = pread(req->file->fd, copy_buf, want,
                      req->offset + (off_t) body);
        } while (n == -1 && errno == EINTR);

        if (n <= 0) {
            if (n == 0) {
                errno = EIO; /* truncated under us */
            }
            return SNIC_ERROR;
        }

        /* the header bytes not sent yet, then the block just read */
        k = snic_header_iov(req, hdr_done, iov, COPY_IOV_MAX);
        iov[k].iov_base = copy_buf;
        iov[k].iov_len = (size_t) n;
        k++;

        last = body + (size_t) n >= req->len;
        w = snic_send_iov(c, iov, k, !last || req->more);
        if (w == -1) {
            return errno == EAGAIN ? SNIC_AGAIN : SNIC_ERROR;
        }

        if ((size_t) w < hdr_total - hdr_done) {
            hdr_done += (size_t) w;
            *sent += (size_t) w;
            return SNIC_AGAIN;
        }
        w -= (ssize_t) (hdr_total - hdr_done);
        *sent += hdr_total - hdr_done;
        hdr_done = hdr_total;

        body += (size_t) w;
        *sent += (size_t) w;

        if (w < n) {
            return SNIC_AGAIN;
        }
        if (s->max_chunk != 0 && body >= s->max_chunk && body < req->len) {
            return SNIC_AGAIN;
        }
    }
    return SNIC_OK;
}

const snic_backend_t snic_backend_copy = {
    "copy",    "pread(2) + sendmsg(2), no zero-copy (the baseline)",
    NULL,      copy_init,
    copy_fini, NULL,
    NULL,      copy_send,
    NULL,      NULL,
    NULL,      NULL,
};
