/*
 * The parts of a proxied request's exchange with its upstream
 * (upstream_io.h) that call nothing above them: its log lines, closing
 * its connection, its cleanup, whether a failure may go to the next
 * server, and sending and reading on its socket.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/log.h"
#include "server/http/upstream_io.h"

/* the log line's tail, nginx's: while doing what, and for whom */
void
nicd_up_log(up_t *p, int level, int err, const char *what, const char *during)
{
    const nicd_request_t *r = p->req->in;

    log_error(level, err,
              "%s while %s, client: %s, server: %s, request: \"%.*s\", "
              "upstream: \"http://%s%s\"",
              what, during,
              p->req->peer != NULL ? p->req->peer->text : p->req->conn->addr,
              p->req->srv != NULL && p->req->srv->nnames > 0
                  ? p->req->srv->names[0]
                  : "",
              r != NULL && r->line.p != NULL ? (int) r->line.len : 0,
              r != NULL && r->line.p != NULL ? r->line.p : "",
              p->pk.server >= 0 ? nicd_upstream_server(&p->pk)->name : "", "");
}
void
nicd_up_close(up_t *p)
{
    if (p->ev_set) {
        nicd_ev_del(&p->ev);
        p->ev_set = 0;
    }
    if (p->wev_set) {
        nicd_ev_del(&p->wev);
        p->wev_set = 0;
    }
    if (p->sk != NULL) {
        nicd_upstream_sock_close(p->sk);
        p->sk = NULL;
    } else if (p->fd >= 0) {
        close(p->fd);
    }
    p->fd = -1;
}
/* the request's cleanup: its response has gone, or the client went */
void
nicd_up_cleanup(void *data)
{
    up_t *p = data;

    if (!p->finished) {
        /* the client went first (nginx logs 499) */
        if (p->pk.server >= 0) {
            log_error(LOG_INFO, 0,
                      "client closed connection while waiting for the "
                      "upstream, client: %s, upstream: \"%s\"",
                      p->req->conn->addr, nicd_upstream_server(&p->pk)->name);
        }
        nicd_up_close(p);
        nicd_upstream_free(p->w, &p->pk, 0);
        if (p->req->upstream == &p->ur) {
            p->req->upstream = NULL;
        }
        p->req->wake = NULL;
    }
    nicd_spill_close(&p->spill);
    nicd_buf_free(&p->rq);
    nicd_buf_free(&p->in);
    nicd_buf_free(&p->head);
    free(p);
}
static int
idempotent(int m)
{
    return m != NICD_M_POST && m != NICD_M_PATCH && m != NICD_M_UNKNOWN;
}
/* may a failure ft of the server at hand go to the next one? */
int
nicd_up_may_go_next(up_t *p, int ft)
{
    const nicd_upstream_conf_t *pc = p->uc;
    long                        now = nicd_up_now(p);
    /* (a kept connection that failed costs no try: nginx's) */
    int left = p->pk.tries - 1 + (p->cached && ft == NICD_FT_ERROR);

    if (left <= 0 || !(pc->next_upstream & ft)) {
        return 0;
    }
    if (pc->next_tries > 0 && p->ur.ntries >= pc->next_tries) {
        return 0;
    }
    if (pc->next_timeout > 0 && now - p->start_ms >= pc->next_timeout) {
        return 0;
    }
    if (p->state >= S_SEND && !idempotent(p->method)
        && !(pc->next_upstream & NICD_FT_NON_IDEMPOTENT)) {
        return 0;
    }
    return p->ur.ntries < NICD_UPSTREAM_MAX_TRIES;
}
/* p->rq's bytes not yet sent, to the upstream: 1 when all went, 0 when
 * the socket is full, -1 on an error (errno) */
int
nicd_up_send(up_t *p)
{
    ssize_t n;

    while (p->rq_sent < p->rq.len) {
        n = send(p->fd, p->rq.data + p->rq_sent, p->rq.len - p->rq_sent,
                 MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return errno == EAGAIN ? 0 : -1;
        }
        p->rq_sent += (size_t) n;
        nicd_up_try(p)->sent += (uint64_t) n;
    }
    return 1;
}
/* read what the upstream sent into p->in: bytes read, 0 at its end, -1
 * (errno) on an error, -2 when nothing is there yet */
ssize_t
nicd_up_read(up_t *p, size_t want)
{
    ssize_t n;

    if (nicd_buf_reserve(&p->in, want) != 0) {
        errno = ENOMEM;
        return -1;
    }
    do {
        n = recv(p->fd, p->in.data + p->in.len, want, 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) {
        return -2;
    }
    if (n > 0) {
        p->in.len += (size_t) n;
        nicd_up_try(p)->received += (uint64_t) n;
    }
    return n;
}
