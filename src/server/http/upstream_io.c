/*
 * A request's exchange with its upstream, for the modules that pass one
 * (the proxy), as nginx's ngx_http_upstream.c: a server chosen, connected (or an idle
 * connection taken), the request sent, the response head read and
 * relayed, the body passed on as it comes, in the client's pace; a
 * failure goes to the next server where proxy_next_upstream says so,
 * else 502 or 504.  The request is suspended meanwhile (handler.h:
 * nicd_req_suspend): the client's connection reads nothing more.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/log.h"
#include "server/http/phases.h"
#include "server/http/stream.h"
#include "server/http/upstream_io.h"

static void on_event(int fd, short what, void *arg);
static void relay_head(up_t *p, nicd_conn_t *c);
static void connect_next(up_t *p);
static void abort_response(up_t *p, const char *why);
static void wake(void *data);

/* the temporary file could not be written (p->spill_err): cut short */
static void
spill_failed(up_t *p)
{
    char why[PATH_MAX + 64];

    (void) snprintf(why, sizeof(why),
                    "could not write a temporary file in \"%s\"",
                    p->uc->temp_path);
    abort_response(p, why);
}

/* the connection's reads (upstream.h: nicd_upstream_sock_t) */
static void
on_read(void *owner, short what)
{
    on_event(-1, what, owner);
}

/* wait for what (NICD_EV_READ or NICD_EV_WRITE) on the upstream, ms at most
 * (reads on the connection's own event, registered once) */
static void
wait_for(up_t *p, short what, long ms)
{
    struct timeval tv = nicd_tv_ms(ms);

    if (p->ev_set) {
        nicd_ev_del(&p->ev);
        p->ev_set = 0;
    }
    if (p->sk != NULL && what == NICD_EV_READ) {
        nicd_upstream_sock_read(p->sk, ms, on_read, p);
        return;
    }
    if (p->sk != NULL) {
        nicd_upstream_sock_pause(p->sk);
    }
    nicd_ev_set(&p->ev, p->w->loop, p->fd, what, on_event, p);
    nicd_ev_add(&p->ev, ms > 0 ? &tv : NULL);
    p->ev_set = 1;
}

/* the request of up_t data is answered (or handed to an error_page):
 * the protocol goes on unless another proxy took the request over */
static void
request_done(void *data)
{
    up_t       *p = data;
    nicd_req_t *req = p->req;

    p->finished = 1;
    req->wake = NULL;
    if (req->upstream == &p->ur) {
        nicd_req_done(req); /* p may be gone after this */
    }
}

/* an answer of nicd's own (502, 504, an error_page's) */
static void
finalize_error(up_t *p, int status)
{
    nicd_conn_t *c = nicd_req_resume(p->req);

    nicd_up_close(p);
    p->finished = 1;
    p->state = S_DONE;
    nicd_up_try(p)->response_ms = nicd_up_now(p) - p->try_ms;
    nicd_respond_error(c, status, p->method == NICD_M_HEAD, NULL, 0);
    request_done(p);
}

/* the server at hand failed with ft (status: what to answer when there
 * is no next one) */
static void
next_upstream(up_t *p, int ft, int status)
{
    int go = nicd_up_may_go_next(p, ft);
    int failed = ft != NICD_FT_HTTP_404 && ft != NICD_FT_HTTP_403;

    nicd_up_close(p);
    nicd_up_try(p)->response_ms = nicd_up_now(p) - p->try_ms;
    if (nicd_up_try(p)->status == 0) {
        nicd_up_try(p)->status = status;
    }
    if (p->cached && ft == NICD_FT_ERROR) {
        /* a kept connection the server had closed: not its failure,
         * and no try counted (nginx's) */
        p->pk.tries++;
        failed = 0;
    }
    nicd_upstream_free(p->w, &p->pk, failed);
    if (!go) {
        finalize_error(p, status);
        return;
    }
    connect_next(p);
}

static void
connect_next(up_t *p)
{
    nicd_upstream_try_t          *t;
    const nicd_upstream_server_t *s;
    int                           one = 1;

    if (nicd_upstream_next(p->w, &p->pk) != 0) {
        log_error(LOG_ERR, 0,
                  "no live upstreams while connecting to upstream, "
                  "client: %s, upstream: \"%s\"",
                  p->req->conn->addr, p->pk.u->name);
        if (p->ur.ntries < NICD_UPSTREAM_MAX_TRIES) {
            t = &p->ur.tries[p->ur.ntries++];
            memset(t, 0, sizeof(*t));
            t->addr = p->pk.u->name;
            t->status = 502;
            t->connect_ms = t->header_ms = -1;
        }
        p->try_ms = nicd_up_now(p);
        finalize_error(p, 502);
        return;
    }
    s = nicd_upstream_server(&p->pk);
    t = &p->ur.tries[p->ur.ntries < NICD_UPSTREAM_MAX_TRIES ? p->ur.ntries++
                                                            : p->ur.ntries - 1];
    memset(t, 0, sizeof(*t));
    t->addr = s->name;
    t->connect_ms = t->header_ms = t->response_ms = -1;
    p->try_ms = t->start_ms = nicd_up_now(p);
    p->rq_sent = 0;
    p->in.len = 0;
    p->state = S_CONNECT;
    p->cached = 0;
    p->sk = nicd_upstream_idle_get(p->w, &p->pk);
    if (p->sk != NULL) {
        p->fd = p->sk->fd;
        p->requests = p->sk->requests;
        p->born = p->sk->born;
        p->cached = 1;
        t->connect_ms = 0;
        p->state = S_SEND;
        on_event(p->fd, NICD_EV_WRITE, p);
        return;
    }
    p->requests = 0;
    p->born = nicd_up_now(p);
    p->fd =
        socket(s->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->fd < 0) {
        nicd_up_log(p, LOG_ALERT, errno, "socket() failed",
                    "connecting to upstream");
        next_upstream(p, NICD_FT_ERROR, 502);
        return;
    }
    (void) setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (p->uc->socket_keepalive) {
        (void) setsockopt(p->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    }
    if (connect(p->fd, (const struct sockaddr *) &s->sa, s->salen) != 0
        && errno != EINPROGRESS) {
        nicd_up_log(p, LOG_ERR, errno, "connect() failed",
                    "connecting to upstream");
        next_upstream(p, NICD_FT_ERROR, 502);
        return;
    }
    p->sk = nicd_upstream_sock_new(p->w, p->fd);
    if (p->sk == NULL) {
        nicd_up_log(p, LOG_ALERT, ENOMEM, "out of memory",
                    "connecting to upstream");
        next_upstream(p, NICD_FT_ERROR, 502);
        return;
    }
    wait_for(p, NICD_EV_WRITE, p->uc->connect_timeout);
}

/* ---- the response to the client ---- */

/* the head to the client (upstream_head.c) */
static void
relay_head(up_t *p, nicd_conn_t *c)
{
    nicd_upstream_head_t h;

    h.uc = p->uc;
    h.resp = &p->resp;
    h.head = p->head.data;
    h.method = p->method;
    h.client = p->req->conn->addr;
    h.server = nicd_upstream_server(&p->pk)->name;
    nicd_upstream_relay_head(c, &h);
    p->started = 1;
    nicd_up_try(p)->header_ms = nicd_up_now(p) - p->try_ms;
}

/* the response is whole: the connection kept or closed, the client's
 * response finished */
static void
finish(up_t *p)
{
    nicd_conn_t *c = nicd_req_resume(p->req);

    if (p->spill_err != 0) {
        spill_failed(p);
        return;
    }
    nicd_up_try(p)->response_ms = nicd_up_now(p) - p->try_ms;
    if (p->ev_set) {
        nicd_ev_del(&p->ev);
        p->ev_set = 0;
    }
    if (p->keep && !p->until_close && p->in.len == 0 && p->sk != NULL) {
        p->sk->requests = p->requests + 1;
        p->sk->born = p->born;
        nicd_upstream_idle_put(p->w, &p->pk, p->sk);
        p->sk = NULL;
        p->fd = -1;
    }
    nicd_up_close(p);
    nicd_upstream_free(p->w, &p->pk, 0);
    p->state = S_DONE;
    p->finished = 1; /* (a stream filter may finish it later) */
    if (p->spill.rd < p->spill.wr) {
        p->body_done = 1; /* the rest from the file */
        wake(p);
        return;
    }
    p->req->wake = NULL;
    nicd_stream_end(c, p->resp.status, request_done, p);
}

/* the client's response cut short (its connection, or HTTP/2 stream,
 * ends) and the request done */
static void
cut_short(up_t *p)
{
    nicd_conn_t *c = nicd_req_resume(p->req);

    p->req->wake = NULL;
    if (c->h2 != NULL) {
        nicd_proto(c)->close(c);
    } else {
        c->keepalive = 0;
        p->req->chunked = 0; /* no last chunk: the client sees it cut */
        nicd_resp_finish(c, p->resp.status);
    }
    request_done(p);
}

/* the upstream failed after the client's head went (or the temporary
 * file did: p->spill_err): the client's response is cut short, after
 * what the file holds */
static void
abort_response(up_t *p, const char *why)
{
    nicd_up_log(p, LOG_ERR, p->spill_err, why, "reading upstream");
    if (p->state != S_DONE) {
        /* (a temporary file's failure is not the server's) */
        nicd_up_try(p)->response_ms = nicd_up_now(p) - p->try_ms;
        nicd_up_close(p);
        nicd_upstream_free(p->w, &p->pk, p->spill_err == 0);
        p->state = S_DONE;
    }
    if (p->spill.rd < p->spill.wr && p->spill_err == 0) {
        /* what the file holds goes first, then the cut */
        p->finished = p->body_done = p->cut = 1;
        wake(p);
        return;
    }
    cut_short(p);
}

/* body bytes b (n of them) to the client, through the stream filters
 * (what the client took is seen to by pace()) */
static void
relay_body(up_t *p, const char *b, size_t n)
{
    if (n == 0) {
        return;
    }
    nicd_up_try(p)->length += n;
    if (p->method == NICD_M_HEAD || p->spill_err != 0) {
        return;
    }
    if (p->spilling) {
        if (nicd_spill_store(&p->spill, p->uc->temp_path, b, n) != 0) {
            p->spill_err = errno; /* (pace() or finish() ends it) */
        }
        return;
    }
    nicd_stream_body(nicd_req_resume(p->req), b, n);
}

/* the body bytes in p->in: relayed, and the end seen; 1 when the body
 * is whole, 0 when more is to come, -1 when its framing is bad */
static int
take_body(up_t *p)
{
    size_t      off = 0, used, dlen;
    const char *data = NULL; /* (none when a read gives no bytes) */
    int         rc;

    if (p->resp.chunked) {
        while (off < p->in.len) {
            rc = nicd_http_chunked_read(&p->chunk, p->in.data + off,
                                        p->in.len - off, &used, &data, &dlen);
            if (rc != NICD_HTTP_AGAIN && rc != NICD_HTTP_DONE) {
                return -1;
            }
            relay_body(p, data, dlen);
            off += used;
            if (rc == NICD_HTTP_DONE) {
                p->in.len -= off;
                memmove(p->in.data, p->in.data + off, p->in.len);
                return 1;
            }
        }
        p->in.len = 0;
        return 0;
    }
    if (p->until_close) {
        relay_body(p, p->in.data, p->in.len);
        p->in.len = 0;
        return 0;
    }
    used = p->in.len < p->left ? p->in.len : (size_t) p->left;
    relay_body(p, p->in.data, used);
    p->left -= used;
    p->in.len -= used;
    memmove(p->in.data, p->in.data + used, p->in.len);
    return p->left == 0;
}

/* what the file holds, to the client as it takes it: 1 when all went, 0
 * when the client is full (wake follows), -1 when the client went or
 * the file failed (p is gone) */
static int
feed(up_t *p)
{
    char    buf[16384];
    ssize_t n;
    int     rc;

    while (p->spill.rd < p->spill.wr) {
        n = nicd_spill_read(&p->spill, buf, sizeof(buf));
        if (n <= 0) {
            p->spill_err = n < 0 ? errno : EIO;
            abort_response(p, "could not read a temporary file");
            return -1;
        }
        nicd_stream_body(nicd_req_resume(p->req), buf, (size_t) n);
        rc = nicd_req_flush(p->req);
        if (rc <= 0) {
            p->req->wake = wake;
            p->req->wake_data = p;
            return rc;
        }
    }
    p->spilling = 0;
    return 1;
}

/* the client took what was queued: what the file holds next, then the
 * response's end (the upstream's part over) or the upstream read again */
static void
wake(void *data)
{
    up_t        *p = data;
    nicd_conn_t *c;

    if (p->spill.rd < p->spill.wr && feed(p) <= 0) {
        return;
    }
    p->spilling = 0;
    if (p->body_done) {
        c = nicd_req_resume(p->req);
        p->req->wake = NULL;
        if (p->cut) {
            cut_short(p);
        } else {
            nicd_stream_end(c, p->resp.status, request_done, p);
        }
        return;
    }
    if (p->paused && p->fd >= 0) {
        p->paused = 0;
        wait_for(p, NICD_EV_READ, p->uc->read_timeout);
    }
}

/* what relaying left queued for the client: sent, and the upstream read
 * again now or once the client has taken enough.  -1: the client went */
static int
pace(up_t *p)
{
    nicd_conn_t *c = p->req->conn;
    size_t       queued;
    int          rc;

    if (p->spill_err != 0) {
        spill_failed(p);
        return -1;
    }
    rc = nicd_req_flush(p->req);
    if (rc == 1 && p->spill.rd < p->spill.wr) {
        rc = feed(p); /* (the client took all: the file's next) */
    }
    if (rc < 0) {
        return -1; /* (p is gone: its cleanup ran) */
    }
    queued = rc == 1 ? 0 : c->out.len;
    if (rc == 0
        && (!p->uc->buffering
            || queued >= (size_t) p->uc->nbuffers * p->uc->buffers_size)) {
        /* the client is slower: what comes goes to a temporary file
         * (buffering on, the file not yet at proxy_max_temp_file_size),
         * else wait for it (proxy_buffering off waits at once; on, once
         * its buffers' worth is queued) */
        p->req->wake = wake;
        p->req->wake_data = p;
        if (p->uc->buffering && p->state == S_BODY
            && (uint64_t) p->spill.wr < p->uc->max_temp_file_size) {
            p->spilling = 1;
            return 0;
        }
        p->paused = 1;
        if (p->ev_set) {
            nicd_ev_del(&p->ev);
            p->ev_set = 0;
        }
        if (p->sk != NULL) {
            nicd_upstream_sock_pause(p->sk);
        }
        p->req->wake = wake;
        p->req->wake_data = p;
    }
    return 0;
}

/* X-Accel-Redirect (unless proxy_ignore_headers names it): an internal
 * redirect to its URI, the upstream's response dropped, as nginx's: 1
 * when there was one */
static int
accel_redirect(up_t *p, nicd_conn_t *c)
{
    const nicd_resp_t *rp = &p->resp;
    char              *uri;
    int                i;

    if (p->uc->ignore_headers & NICD_IGNORE_ACCEL_REDIRECT) {
        return 0;
    }
    for (i = 0; i < rp->nheaders; i++) {
        if (nicd_resp_is(rp, p->head.data, i, "X-Accel-Redirect", 16)) {
            break;
        }
    }
    if (i == rp->nheaders || rp->h[i].vlen == 0) {
        return 0;
    }
    uri = strndup(p->head.data + rp->h[i].voff, rp->h[i].vlen);
    nicd_up_close(p);
    nicd_upstream_free(p->w, &p->pk, 0);
    p->finished = 1; /* (the redirect may reach a proxied location) */
    p->state = S_DONE;
    if (uri == NULL) {
        nicd_respond_error(c, 500, p->method == NICD_M_HEAD, NULL, 0);
    } else if (uri[0] == '@') {
        const nicd_loc_conf_t *nl = nicd_conf_named(p->req->srv, uri + 1);

        if (nl == NULL) {
            nicd_respond_error(c, 404, p->method == NICD_M_HEAD, NULL, 0);
        } else {
            nicd_named_location(c, p->req->in, c->r->uri, c->r->uri_len, nl);
        }
    } else {
        nicd_internal_redirect(c, p->req->in, uri, strlen(uri), 0);
    }
    free(uri);
    request_done(p);
    return 1;
}

/* proxy_intercept_errors: the location's error_page for the status
 * answers instead, with the upstream's WWW-Authenticate (401) or Allow
 * (405) fields, as nginx's: 1 when it did */
static int
intercept(up_t *p, nicd_conn_t *c)
{
    const nicd_resp_t *rp = &p->resp;
    int                i;

    for (i = 0; i < rp->nheaders; i++) {
        if ((rp->status == 401
             && nicd_resp_is(rp, p->head.data, i, "WWW-Authenticate", 16))
            || (rp->status == 405
                && nicd_resp_is(rp, p->head.data, i, "Allow", 5))) {
            (void) nicd_resp_carry(c, p->head.data + rp->h[i].noff,
                                   rp->h[i].nlen, p->head.data + rp->h[i].voff,
                                   rp->h[i].vlen);
        }
    }
    p->finished = 1; /* (if the page is a proxied location's too) */
    if (!nicd_error_page(c, rp->status, p->method == NICD_M_HEAD)) {
        p->finished = 0;
        if (c->r->carry != NULL) {
            c->r->carry->len = 0; /* (relayed as they are) */
        }
        return 0;
    }
    nicd_up_close(p);
    nicd_upstream_free(p->w, &p->pk, 0);
    p->state = S_DONE;
    request_done(p);
    return 1;
}

/* ---- an upgraded connection (101, WebSocket): bytes both ways ---- */

static void tunnel_write(int fd, short what, void *arg);

/* what the client sent, to the upstream (p->rq, sent as the socket
 * takes it).  A failure ends the tunnel from the upstream's side: its
 * socket shut, the read event then ends the request (not here: the
 * client's bytes come from inside the protocol's loop) */
static void
tunnel_send(up_t *p)
{
    int rc = nicd_up_send(p);

    if (rc == 0) {
        struct timeval tv = nicd_tv_ms(p->uc->send_timeout);

        nicd_ev_set(&p->wev, p->w->loop, p->fd, NICD_EV_WRITE, tunnel_write, p);
        nicd_ev_add(&p->wev, &tv);
        p->wev_set = 1;
        return;
    }
    if (rc < 0) {
        nicd_up_log(p, LOG_INFO, errno, "send() failed",
                    "sending to upgraded upstream");
        (void) shutdown(p->fd, SHUT_RDWR);
    }
    p->rq.len = p->rq_sent = 0;
}

static void
tunnel_write(int fd, short what, void *arg)
{
    up_t *p = arg;

    (void) fd;
    p->wev_set = 0;
    if (what & NICD_EV_TIMEOUT) {
        abort_response(p, "upstream timed out");
        return;
    }
    tunnel_send(p);
}

/* the client's bytes (req->tunnel): taken, up to 1 MiB waiting */
static size_t
tunnel_in(void *data, const char *b, size_t len)
{
    up_t  *p = data;
    size_t room = (size_t) 1 << 20, waiting = p->rq.len - p->rq_sent;

    room = waiting < room ? room - waiting : 0;
    len = len < room ? len : room;
    nicd_buf_add(&p->rq, b, len);
    if (nicd_buf_failed(&p->rq)) {
        return 0;
    }
    if (!p->wev_set) {
        tunnel_send(p);
    }
    return len;
}

/* 101 from the upstream: the client asked for it (HTTP/1.1 with
 * Upgrade, nginx's rule), the head relayed with its Upgrade, then bytes
 * both ways until either side closes; else 502 */
static void
upgrade(up_t *p, nicd_conn_t *c)
{
    if (nicd_req_field(p->req->in, "Upgrade", 7) == NULL || c->h2 != NULL
        || p->resp.version != 11) {
        nicd_up_log(p, LOG_ERR, 0, "upstream sent 101 not asked for",
                    "reading response header from upstream");
        nicd_up_close(p);
        nicd_upstream_free(p->w, &p->pk, 0);
        finalize_error(p, 502);
        return;
    }
    p->req->upgrade = 1; /* (the protocol says "Connection: upgrade") */
    relay_head(p, c);
    p->state = S_TUNNEL;
    p->until_close = 1;
    p->keep = 0;
    p->rq.len = p->rq_sent = 0;
    p->req->tunnel = tunnel_in;
    p->req->wake_data = p;
    if (take_body(p) == 0 && pace(p) == 0 && !p->paused) {
        wait_for(p, NICD_EV_READ, p->uc->read_timeout);
    }
}

/* the head is in p->in (head_len bytes): relayed, or the next server */
static void
got_head(up_t *p)
{
    nicd_resp_t *rp = &p->resp;
    nicd_conn_t *c;
    int          ft = nicd_upstream_status_ft(rp->status);

    nicd_up_try(p)->status = rp->status;
    nicd_up_try(p)->header_ms = nicd_up_now(p) - p->try_ms;
    if (ft != 0 && (p->uc->next_upstream & ft) && nicd_up_may_go_next(p, ft)) {
        next_upstream(p, ft, rp->status);
        return;
    }
    p->head.len = 0;
    nicd_buf_add(&p->head, p->in.data, rp->head_len);
    if (nicd_buf_failed(&p->head)) {
        finalize_error(p, 500);
        return;
    }
    p->ur.head = p->head.data;
    p->ur.resp = rp;
    p->in.len -= rp->head_len;
    memmove(p->in.data, p->in.data + rp->head_len, p->in.len);

    c = nicd_req_resume(p->req);
    nicd_upstream_accel_rate(c, p->uc, &p->resp, p->head.data);
    if (accel_redirect(p, c)
        || (p->uc->intercept_errors && rp->status >= 300 && intercept(p, c))) {
        return;
    }
    if (rp->status == 101) {
        upgrade(p, c);
        return;
    }
    p->keep = rp->version == 11 ? !rp->conn_close : rp->conn_keepalive;
    if (p->method == NICD_M_HEAD || rp->status == 204 || rp->status == 304
        || rp->status < 200) {
        p->left = 0;
        p->until_close = 0;
        rp->chunked = 0;
    } else if (rp->chunked) {
        memset(&p->chunk, 0, sizeof(p->chunk));
    } else if (rp->content_length >= 0) {
        p->left = (uint64_t) rp->content_length;
    } else {
        p->until_close = 1;
        p->keep = 0;
    }
    relay_head(p, c);
    p->state = S_BODY;
    if (!p->until_close && !rp->chunked && p->left == 0) {
        finish(p);
        return;
    }
    switch (take_body(p)) {
    case 1: finish(p); return;
    case -1:
        abort_response(p, "upstream sent invalid chunked response");
        return;
    }
    if (pace(p) == 0 && !p->paused) {
        wait_for(p, NICD_EV_READ, p->uc->read_timeout);
    }
}

static void
do_send(up_t *p)
{
    int rc = nicd_up_send(p);

    if (rc == 0) {
        wait_for(p, NICD_EV_WRITE, p->uc->send_timeout);
        return;
    }
    if (rc < 0) {
        nicd_up_log(p, LOG_ERR, errno, "send() failed",
                    "sending request to upstream");
        next_upstream(p, NICD_FT_ERROR, 502);
        return;
    }
    p->state = S_HEAD;
    nicd_resp_init(&p->resp);
    wait_for(p, NICD_EV_READ, p->uc->read_timeout);
}

static void
read_head(up_t *p)
{
    size_t  max = p->uc->buffer_size;
    ssize_t n = nicd_up_read(p, max > p->in.len ? max - p->in.len : 1);
    int     rc;

    if (n == -2) {
        wait_for(p, NICD_EV_READ, p->uc->read_timeout);
        return;
    }
    if (n <= 0) {
        nicd_up_log(p, LOG_ERR, n < 0 ? errno : 0,
                    n < 0 ? "recv() failed"
                          : "upstream prematurely closed connection",
                    "reading response header from upstream");
        next_upstream(p, NICD_FT_ERROR, 502);
        return;
    }
    rc = nicd_resp_parse(&p->resp, p->in.data, p->in.len, max);
    if (rc == NICD_RESP_AGAIN) {
        wait_for(p, NICD_EV_READ, p->uc->read_timeout);
        return;
    }
    if (rc != NICD_RESP_DONE) {
        nicd_up_log(p, LOG_ERR, 0,
                    rc == NICD_RESP_TOO_BIG ? "upstream sent too big header"
                                            : p->resp.error,
                    "reading response header from upstream");
        next_upstream(p, NICD_FT_INVALID_HEADER, 502);
        return;
    }
    got_head(p);
}

static void
read_body(up_t *p)
{
    ssize_t n;
    int     rc, rounds;

    for (rounds = 0; rounds < 16; rounds++) {
        n = nicd_up_read(p, 64 * 1024);
        if (n == -2) {
            wait_for(p, NICD_EV_READ, p->uc->read_timeout);
            return;
        }
        if (n == 0 && p->until_close) {
            finish(p);
            return;
        }
        if (n <= 0) {
            abort_response(p, n < 0 ? "recv() failed"
                                    : "upstream prematurely closed "
                                      "connection");
            return;
        }
        rc = take_body(p);
        if (rc == 1) {
            finish(p);
            return;
        }
        if (rc < 0) {
            abort_response(p, "upstream sent invalid chunked response");
            return;
        }
        if (pace(p) < 0) {
            return;
        }
        if (p->paused) {
            return;
        }
    }
    wait_for(p, NICD_EV_READ, p->uc->read_timeout);
}

static void
on_event(int fd, short what, void *arg)
{
    up_t     *p = arg;
    int       err = 0;
    socklen_t len = sizeof(err);

    (void) fd;
    p->ev_set = 0;
    if (what & NICD_EV_TIMEOUT) {
        static const char *const during[] = {
            "connecting to upstream", "sending request to upstream",
            "reading response header from upstream", "reading upstream"};

        nicd_up_log(p, LOG_ERR, ETIMEDOUT, "upstream timed out",
                    during[p->state < S_DONE ? p->state : 3]);
        if (p->state == S_BODY || p->state == S_TUNNEL) {
            abort_response(p, "upstream timed out");
        } else {
            next_upstream(p, NICD_FT_TIMEOUT, 504);
        }
        return;
    }
    switch (p->state) {
    case S_CONNECT:
        if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0
            || err != 0) {
            nicd_up_log(p, LOG_ERR, err != 0 ? err : errno, "connect() failed",
                        "connecting to upstream");
            next_upstream(p, NICD_FT_ERROR, 502);
            return;
        }
        nicd_up_try(p)->connect_ms = nicd_up_now(p) - p->try_ms;
        p->state = S_SEND;
        do_send(p);
        return;
    case S_SEND: do_send(p); return;
    case S_HEAD: read_head(p); return;
    case S_BODY:
    case S_TUNNEL: read_body(p); return;
    }
}

static void
first_try(int fd, short what, void *arg)
{
    up_t *p = arg;

    (void) fd;
    (void) what;
    p->ev_set = 0;
    connect_next(p);
}

void
nicd_upstream_start(nicd_conn_t *c, const nicd_request_t *r,
                    const nicd_upstream_conf_t *uc, nicd_upstream_pick_t *pk,
                    nicd_buf_t *rq)
{
    up_t       *p = calloc(1, sizeof(*p));
    nicd_req_t *req;

    if (p == NULL) {
        nicd_buf_free(rq);
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
        return;
    }
    p->pk = *pk;
    if (p->pk.u == &pk->single) {
        p->pk.u = &p->pk.single; /* (a group of one moves with it) */
        p->pk.single.servers = &p->pk.one;
    }
    p->rq = *rq;
    p->fd = -1;
    p->spill.fd = -1;
    p->uc = uc;
    p->w = c->w;
    p->method = r->method;
    if (c->r->upstream != NULL) {
        p->ur = *c->r->upstream; /* an error_page's: the tries so far */
    }
    req = nicd_req_suspend(c);
    if (req == NULL || nicd_req_cleanup(req, nicd_up_cleanup, p) != 0) {
        nicd_buf_free(&p->rq);
        free(p);
        nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
        return;
    }
    p->req = req;
    req->upstream = &p->ur;
    p->start_ms = nicd_up_now(p);
    /* the first server is tried from the loop, not from inside the
     * handler: an answer there (no live upstream, a refused connect)
     * would end the request while its protocol is still handing it over */
    nicd_ev_set(&p->ev, p->w->loop, -1, 0, first_try, p);
    nicd_ev_active(&p->ev, NICD_EV_TIMEOUT);
    p->ev_set = 1;
}
