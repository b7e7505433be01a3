/*
 * The "sendfile" backend: Linux sendfile(2) from the file to the socket.
 *
 * Kernel facts relied on:
 * - sendfile() on a non-blocking socket sends what fits and returns the
 *   count, or -1/EAGAIN when nothing fits; a return of 0 with bytes left
 *   means the file is now shorter than we were told (truncated under us).
 * - Headers go out first with sendmsg(MSG_MORE) so they share a segment
 *   with the body; sendfile() without more data pending pushes at its end.
 * - When the caller has further responses queued (pipelining) we set
 *   TCP_CORK so that body tails and the next headers are packed into full
 *   segments; it is cleared with the last request of the batch, which
 *   pushes what is left.
 * - One call sends at most max_chunk body bytes (sendfile_max_chunk) and
 *   then returns SNIC_AGAIN, so that one fast client of a large file does
 *   not starve the others on the same event loop.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for embedders (the nginx module) that do not */
#endif

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"

/* the largest body a cork packs with what follows it */
#define CORK_MAX (64 * 1024)

typedef struct {
    size_t max_chunk;
} sendfile_state_t;

static void
set_cork(snic_conn_t *c, int on)
{
    /* a failure only costs packing: the data is still sent */
    if (setsockopt(c->fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)) == 0) {
        c->corked = on ? 1 : 0;
    }
}

static int
sendfile_init(const snic_options_t *opt, void **state, char *err, size_t errlen)
{
    sendfile_state_t *s;

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
sendfile_fini(void *state)
{
    free(state);
}

/*
 * Returns SNIC_OK when headers and the whole range are sent, SNIC_AGAIN
 * when the socket is full or max_chunk bytes went out, SNIC_ERROR (errno)
 * on failure, EIO when the file was truncated under us.
 */
static int
sendfile_send(void *state, snic_conn_t *c, const snic_send_t *req, size_t *sent)
{
    sendfile_state_t *s = state;
    size_t            hdr, body, want;
    off_t             off;
    ssize_t           n;
    int               has_body, rc;

    has_body = req->file != NULL && req->len > 0;

    /* a write hook gathers (or encrypts) on its own: no cork for it.  A
     * large body fills its segments by itself: corking it only holds its
     * tail back (pipelined 256 KiB responses ran a third slower corked),
     * so the cork packs small responses only, and comes off before a
     * large body */
    if (req->more && !c->corked && c->write == NULL
        && (!has_body || req->len < CORK_MAX)) {
        set_cork(c, 1);
    } else if (c->corked && has_body && req->len >= CORK_MAX) {
        set_cork(c, 0);
    }

    rc = snic_send_headers(c, req, &hdr, has_body || req->more);
    *sent = hdr;
    if (rc != SNIC_OK) {
        return rc;
    }

    off = req->offset;
    body = 0;

    while (has_body && body < req->len) {
        want = req->len - body;
        if (s->max_chunk != 0 && want > s->max_chunk - body) {
            want = s->max_chunk - body;
        }

        n = snic_send_file(c, req->file, &off, want);

        if (n == -1) {
            if (errno == EINTR) {
                continue;
            }
            *sent = hdr + body;
            return errno == EAGAIN ? SNIC_AGAIN : SNIC_ERROR;
        }
        if (n == 0) {
            *sent = hdr + body;
            errno = EIO;
            return SNIC_ERROR;
        }

        body += (size_t) n;

        if (s->max_chunk != 0 && body >= s->max_chunk && body < req->len) {
            *sent = hdr + body;
            return SNIC_AGAIN;
        }
    }

    *sent = hdr + body;

    if (!req->more && c->corked) {
        set_cork(c, 0);
    }
    return SNIC_OK;
}

static const char *const sendfile_directives[] = {NULL};

const snic_backend_t snic_backend_sendfile = {
    "sendfile",
    "Linux sendfile(2), headers with MSG_MORE, TCP_CORK for pipelined batches",
    sendfile_directives,
    sendfile_init,
    sendfile_fini,
    NULL,
    NULL,
    sendfile_send,
    NULL,
    NULL,
    NULL,
    NULL,
};
