/*
 * Connections: read, parse every complete request already in the buffer
 * (pipelining), queue their responses, and flush the queue through the
 * send backend in as few calls as the socket allows: consecutive memory
 * items (headers of several responses, multipart boundaries, error pages)
 * travel together as the header iovecs of the next file range.
 * Timers, one event per connection:
 *   T_HEADER     client_header_timeout, from a request's first byte to its
 *                head's end (total: one byte a second still times out);
 *   T_BODY       client_body_timeout between two reads of a body (408);
 *   T_KEEPALIVE  keepalive_timeout while idle between requests;
 *   T_SEND       send_timeout between two successful writes;
 *   T_LINGER     after an error response, how long we read and discard
 *                what the client still sends before closing (so that our
 *                close does not reset the response out of its socket).
 */

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/core/nicd.h"
#include "server/core/transport.h"

#define FLUSH_IOV 64
/* output queue items in one of the pool's buffer blocks */
#define ITEMS_BLOCK ((int) (NICD_POOL_BUF_SIZE / sizeof(nicd_out_t)))

static void conn_read_cb(int fd, short ev, void *arg);
static void conn_write_cb(int fd, short ev, void *arg);
static void conn_timer_cb(int fd, short ev, void *arg);
static void conn_run(nicd_conn_t *c);

static void
set_timer(nicd_conn_t *c, int kind)
{
    const struct timeval *tv = NULL;
    struct timeval        t;

    if (kind == T_HEADER && c->timer == T_HEADER) {
        return; /* the header timeout counts from the request's start */
    }
    if (kind == T_HEADER || kind == T_KEEPALIVE) {
        c->idle_ms = (uint32_t) nicd_worker_now_ms(c->w);
    }
    switch (kind) {
    case T_HEADER: tv = c->w->tv_header; break;
    case T_KEEPALIVE: /* the location's, shared by those of that time */
        t = nicd_tv_ms(c->keepalive_ms);
        tv = nicd_worker_keepalive_tv(c->w, c->keepalive_ms);
        tv = tv != NULL ? tv : &t;
        break;
    case T_SEND: tv = c->w->tv_send; break;
    case T_LINGER: tv = c->w->tv_linger; break;
    case T_BODY: tv = c->w->tv_body; break;
    }
    c->timer = kind;
    if (kind == T_NONE) {
        nicd_ev_del(&c->tev); /* (added with no time, it kept the last's) */
    } else {
        nicd_ev_add(&c->tev, tv);
    }
}

static void
start_reading(nicd_conn_t *c)
{
    if (!c->eof && c->tp->pending != NULL && c->tp->pending(c)) {
        /* bytes the transport already read: no event will say so */
        nicd_ev_active(&c->rev, NICD_EV_READ);
    }
    if (!c->reading && !c->eof) {
        nicd_ev_add(&c->rev, NULL);
        c->reading = 1;
    }
}

static void
stop_reading(nicd_conn_t *c)
{
    if (c->reading) {
        nicd_ev_del(&c->rev);
        c->reading = 0;
    }
}

/* A buffer back to its pool, or freed when it grew off the pool's size */
static void
buf_give_back(nicd_worker_t *w, nicd_buf_t *b)
{
    if (b->data != NULL && b->size == NICD_POOL_BUF_SIZE) {
        nicd_pool_put(nicd_worker_pool(w, NICD_POOL_BUF), b->data);
    } else {
        free(b->data);
    }
    b->data = NULL;
    b->len = b->size = 0;
}

static int
buf_borrow(nicd_worker_t *w, nicd_buf_t *b)
{
    if (b->data == NULL) {
        b->data = nicd_pool_get(nicd_worker_pool(w, NICD_POOL_BUF));
        if (b->data == NULL) {
            return -1;
        }
        b->size = NICD_POOL_BUF_SIZE;
        b->len = 0;
    }
    return 0;
}

/* The request head buffer, before a read. */
static int
in_borrow(nicd_conn_t *c)
{
    nicd_pool_t *p = nicd_worker_pool(c->w, NICD_POOL_IN);

    if (c->in == NULL) {
        c->in = nicd_pool_get(p);
        if (c->in == NULL) {
            return -1;
        }
        c->in_size = (uint32_t) p->size;
        c->in_start = c->in_end = 0;
    }
    return 0;
}

int
nicd_conn_borrow(nicd_conn_t *c)
{
    int fresh = 0;

    if (c->req == NULL) {
        c->req = nicd_pool_get(nicd_worker_pool(c->w, NICD_POOL_REQ));
        if (c->req == NULL) {
            return -1;
        }
        fresh = 1;
    }
    if (buf_borrow(c->w, &c->out) != 0 || buf_borrow(c->w, &c->logb) != 0) {
        return -1;
    }
    return fresh;
}

/* Idle, nothing queued: no buffer kept while it waits (as nginx's) */
static void
conn_give_back(nicd_conn_t *c)
{
    nicd_worker_t *w = c->w;

    if (c->in != NULL) {
        if (c->in_size == nicd_worker_pool(w, NICD_POOL_IN)->size) {
            nicd_pool_put(nicd_worker_pool(w, NICD_POOL_IN), c->in);
        } else {
            free(c->in); /* grown for a large head, or HTTP/2's */
        }
        c->in = NULL;
        c->in_size = c->in_start = c->in_end = 0;
    }
    nicd_pool_put(nicd_worker_pool(w, NICD_POOL_REQ), c->req);
    c->req = NULL;
    buf_give_back(w, &c->out);
    buf_give_back(w, &c->logb);
    if (c->items != NULL && c->items_size == ITEMS_BLOCK) {
        nicd_pool_put(nicd_worker_pool(w, NICD_POOL_BUF), c->items);
    } else {
        free(c->items); /* grown past a block */
    }
    c->items = NULL;
    c->items_size = c->nitems = c->ihead = 0;
}

void
nicd_conn_accept(nicd_worker_t *w, int fd, int listener,
                 const struct sockaddr *sa)
{
    const nicd_conf_t *cf = w->cycle->conf;
    nicd_conn_t       *c;
    int                one = 1, ev = NICD_EV_PERSIST; /* (both events) */

    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        log_error(LOG_CRIT, errno, "calloc() failed, closing connection");
        close(fd);
        return;
    }
    c->w = w;
    c->sc.fd = fd;
    c->number = __atomic_add_fetch(&w->cycle->serial, 1, __ATOMIC_RELAXED);
    c->start_ms = nicd_worker_now_ms(w);
    c->sc.listener = listener;
    c->sc.nic = cf->listens[listener].nic;
    c->tp = cf->listens[listener].ssl ? &nicd_transport_tls
                                      : &nicd_transport_gather;
    /* "listen ... http2" in clear text: HTTP/2 with prior knowledge
     * only, as nginx's (the protocol checks the preface); over TLS, ALPN
     * chooses after the handshake */
    c->ops = cf->listens[listener].http2 && c->tp->alpn == NULL
                 ? w->cycle->http2
                 : w->cycle->http1;

    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr,
                  c->addr, sizeof(c->addr));
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr,
                  c->addr, sizeof(c->addr));
    } else { /* a UNIX-domain socket's client: "unix:", as nginx's */
        strcpy(c->addr, sa->sa_family == AF_UNIX ? "unix:" : "-");
    }

    /* the request head buffer and the parser are borrowed when bytes
     * come (in_borrow(), nicd_conn_borrow()) */
    c->in_max = (uint32_t) (cf->large_header_buffer_size
                            * (size_t) cf->large_header_buffers);

    /* responses are packed by MSG_MORE and TCP_CORK, never by Nagle */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

    nicd_ev_set(&c->rev, w->loop, fd, NICD_EV_READ | ev, conn_read_cb, c);
    nicd_ev_set(&c->wev, w->loop, fd, NICD_EV_WRITE | ev, conn_write_cb, c);
    nicd_ev_set(&c->tev, w->loop, -1, 0, conn_timer_cb, c);

    if (c->tp->start != NULL) {
        if (c->tp->start(c, w->cycle->tls) != 0) {
            free(c);
            close(fd);
            return;
        }
        c->handshaking = c->tp->handshake != NULL;
    }
    snic_conn_open(&w->cycle->backend, &c->sc);
    if (c->ops == NULL || (c->ops->start != NULL && c->ops->start(c) != 0)) {
        snic_conn_close(&w->cycle->backend, &c->sc);
        if (c->tp->close != NULL) {
            c->tp->close(c);
        }
        free(c);
        close(fd);
        return;
    }

    c->next = w->conns;
    if (w->conns != NULL) {
        w->conns->prev = c;
    }
    w->conns = c;
    w->nconns++;
    __atomic_store_n(&w->stats->active, (uint32_t) w->nconns, __ATOMIC_RELAXED);

    start_reading(c);
    set_timer(c, T_HEADER);
}

/* the response whose last item is it has gone: counted, logged */
static void
response_done(nicd_conn_t *c, nicd_out_t *it, int newest)
{
    nicd_conn_response_sent(c);
    nicd_conn_log_response(c, it);
    nicd_cleanup_run(it->cleanup);
    it->cleanup = NULL;
    c->body_sent = c->head_sent = 0;
    c->rate_t0 = 0;
    if (newest && c->h2 == NULL) {
        /* HTTP/1.1's last response queued: the request is over (a
         * pipelined one's head, in already, counts as it is parsed) */
        nicd_conn_state(c, NICD_CONN_WAITING);
    }
}

static void
item_done(nicd_conn_t *c, nicd_out_t *it)
{
    if (it->type == OUT_FILE) {
        nicd_ofc_release(&c->w->ofc, it->file);
        it->file = NULL;
    }
    if (it->last) {
        response_done(c, it, it == &c->items[c->nitems - 1]);
    }
}

void
nicd_conn_close(nicd_conn_t *c)
{
    nicd_worker_t *w = c->w;
    int            i;

    for (i = c->ihead; i < c->nitems; i++) {
        item_done(c, &c->items[i]);
    }
    nicd_ev_del(&c->rev);
    nicd_ev_del(&c->wev);
    nicd_ev_del(&c->tev);
    if (c->pev != NULL) {
        nicd_ev_free(c->pev);
    }
    snic_conn_close(&w->cycle->backend, &c->sc);
    if (c->ops->free != NULL) {
        c->ops->free(c);
    }
    if (c->tp->close != NULL) {
        c->tp->close(c);
    }
    close(c->sc.fd);

    if (c->prev != NULL) {
        c->prev->next = c->next;
    } else {
        w->conns = c->next;
    }
    if (c->next != NULL) {
        c->next->prev = c->prev;
    }
    nicd_conn_state(c, NICD_CONN_WAITING);
    w->nconns--;
    __atomic_store_n(&w->stats->active, (uint32_t) w->nconns, __ATOMIC_RELAXED);

    conn_give_back(c);
    free(c);

    w->conn_closed(w);
}

static nicd_out_t *
new_item(nicd_conn_t *c)
{
    nicd_out_t *items;
    int         size;

    if (c->items == NULL) {
        /* borrowed like the buffers: a pool block holds ITEMS_BLOCK */
        c->items = nicd_pool_get(nicd_worker_pool(c->w, NICD_POOL_BUF));
        if (c->items == NULL) {
            return NULL;
        }
        c->items_size = ITEMS_BLOCK;
    }
    if (c->nitems == c->items_size) {
        size = c->items_size * 2;
        items = realloc(c->items, sizeof(*items) * (size_t) size);
        if (items == NULL) {
            return NULL;
        }
        c->items = items;
        c->items_size = size;
    }
    memset(&c->items[c->nitems], 0, sizeof(nicd_out_t));
    return &c->items[c->nitems++];
}

void
nicd_conn_out_paced(nicd_conn_t *c, size_t off, size_t len, int body,
                    uint32_t rate, uint32_t after)
{
    nicd_out_t *it;

    if (len == 0 || nicd_buf_failed(&c->out)) {
        return;
    }
    if (c->nitems > c->ihead) {
        it = &c->items[c->nitems - 1];
        if (it->type == OUT_MEM && !it->last && it->body == (unsigned) body
            && it->off + it->len == off && it->rate == rate) {
            it->len += len; /* contiguous: one iovec */
            return;
        }
    }
    it = new_item(c);
    if (it == NULL) {
        c->out.len = (size_t) -1; /* fails the connection at flush */
        return;
    }
    it->type = OUT_MEM;
    it->body = body ? 1 : 0;
    it->off = off;
    it->len = len;
    it->rate = rate;
    it->after = after;
}

void
nicd_conn_out_file(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len,
                   uint32_t rate, uint32_t after)
{
    nicd_out_t *it;

    if (len == 0) {
        return;
    }
    it = new_item(c);
    if (it == NULL) {
        c->out.len = (size_t) -1;
        return;
    }
    it->type = OUT_FILE;
    it->body = 1;
    it->off = (size_t) off;
    it->len = len;
    it->file = f;
    it->rate = rate;
    it->after = after;
    f->refs++;
}

void
nicd_conn_response_sent(nicd_conn_t *c)
{
    c->sc.responses++;
}

void
nicd_conn_state(nicd_conn_t *c, int state)
{
    nicd_stats_t *s = c->w->stats;

    if ((int) c->stub_state == state) {
        return;
    }
    if (c->stub_state == NICD_CONN_READING) {
        NICD_STAT_ADD(s->reading, (uint32_t) -1);
    } else if (c->stub_state == NICD_CONN_WRITING) {
        NICD_STAT_ADD(s->writing, (uint32_t) -1);
    }
    if (state == NICD_CONN_READING) {
        NICD_STAT_ADD(s->reading, 1);
    } else if (state == NICD_CONN_WRITING) {
        NICD_STAT_ADD(s->writing, 1);
    }
    c->stub_state = (unsigned) state;
}

void
nicd_conn_out_end(nicd_conn_t *c, int status, uint32_t log_off,
                  uint32_t log_len)
{
    nicd_out_t *it, gone;

    if (c->nitems == c->ihead) {
        /* every byte of it went already (a response made in pieces, a
         * proxied one): it is over now */
        nicd_conn_gone_item(c, &gone, status, log_off, log_len);
        response_done(c, &gone, 1);
        return;
    }
    it = &c->items[c->nitems - 1];
    it->last = 1;
    it->status = status;
    it->log_off = log_off;
    it->log_t0 = (uint32_t) nicd_worker_now_ms(c->w);
    it->log_len = log_len;
}

/* Account n bytes sent from the head of the queue. */
static void
consume(nicd_conn_t *c, size_t n)
{
    nicd_out_t *it;
    size_t      take;

    while (c->ihead < c->nitems) {
        it = &c->items[c->ihead];
        take = n < it->len ? n : it->len;
        it->len -= take;
        it->off += take;
        n -= take;
        *(it->body ? &c->body_sent : &c->head_sent) += take;
        if (it->body) {
            NICD_STAT_ADD(c->w->stats->body_bytes, take);
        }
        if (it->len > 0) {
            break;
        }
        item_done(c, it);
        c->ihead++;
    }
}

/* A send to the socket failed (errno): say so and close; returns -1. */
static int
send_failed(nicd_conn_t *c)
{
    log_error(LOG_INFO, errno,
              "send failed (client closed the connection?), client: %s",
              c->addr);
    nicd_conn_close(c);
    return -1;
}

/*
 * limit_rate, as nginx's write filter: a response may have sent its rate
 * times the seconds since its body started, plus one second's worth.
 * Caps *len to what it may send now (0), or sets the pacing timer (the
 * backends' wait_ns) and returns -1 when it must wait.
 */
static int
rate_limit(nicd_conn_t *c, const nicd_out_t *it, size_t *len)
{
    uint32_t now = (uint32_t) nicd_worker_now_ms(c->w);
    int64_t  allow;

    if (c->rate_t0 == 0) {
        c->rate_t0 = now != 0 ? now : 1;
        c->rate_sent = 0;
    }
    allow = (int64_t) it->rate
                * ((int64_t) (uint32_t) (now - c->rate_t0) + 1000) / 1000
            + (int64_t) it->after - (int64_t) c->rate_sent;
    if (allow <= 0) {
        /* until the rate allows a packet's worth more */
        uint64_t ms = (uint64_t) (-allow + 1460) * 1000 / it->rate + 1;

        c->sc.wait_ns = ms * 1000000;
        return -1;
    }
    if ((uint64_t) allow < *len) {
        *len = (size_t) allow;
    }
    return 0;
}

/* Send the queue: 1 when it is empty, 0 when the socket is full, -1 when
 * the connection was closed. */
static int
conn_flush(nicd_conn_t *c)
{
    struct iovec iov[FLUSH_IOV];
    snic_send_t  req;
    size_t       sent;
    int          i, k, rc;

    if (nicd_buf_failed(&c->out) || nicd_buf_failed(&c->logb)) {
        log_error(LOG_CRIT, ENOMEM,
                  "out of memory, closing connection, client: %s", c->addr);
        nicd_conn_close(c);
        return -1;
    }

    c->sc.wait_ns = 0; /* a wait limit_rate asked for is over */
    while (c->ihead < c->nitems) {
        memset(&req, 0, sizeof(req));
        k = 0;
        for (i = c->ihead; i < c->nitems && k < FLUSH_IOV; i++) {
            size_t len = c->items[i].len;

            if (c->items[i].type != OUT_MEM) {
                break;
            }
            if (c->items[i].rate > 0
                && rate_limit(c, &c->items[i], &len) != 0) {
                break; /* (a body in memory, paced: the timer calls) */
            }
            iov[k].iov_base = c->out.data + c->items[i].off;
            iov[k].iov_len = len;
            k++;
            if (len < c->items[i].len) {
                i = c->nitems; /* the rest waits for the rate */
                break;
            }
        }
        if (k == 0 && c->sc.wait_ns > 0) {
            return 0; /* the pacing timer calls again */
        }
        req.hdr = iov;
        req.nhdr = k;
        if (i < c->nitems && c->items[i].type == OUT_FILE) {
            req.file = &c->items[i].file->file;
            req.offset = (off_t) c->items[i].off;
            req.len = c->items[i].len;
            if (c->items[i].rate > 0
                && rate_limit(c, &c->items[i], &req.len) != 0) {
                if (k == 0) {
                    return 0; /* the pacing timer calls again */
                }
                req.file = NULL; /* the headers before it go now */
                req.len = 0;
                i--;
            }
            i++;
        }
        req.more = i < c->nitems;

        if (c->tp->route != NULL) {
            rc = c->tp->route(c, req.file != NULL ? req.len : 0, req.more);
            if (rc == 0) {
                return 0;
            }
            if (rc < 0) {
                return send_failed(c);
            }
        }
        rc = snic_send(&c->w->cycle->backend, &c->sc, &req, &sent);
        c->rate_sent += sent;
        consume(c, sent);

        if (rc == SNIC_AGAIN) {
            return 0;
        }
        if (rc == SNIC_ERROR) {
            if (errno == EIO) {
                log_error(LOG_ALERT, errno,
                          "file was truncated while "
                          "being sent, client: %s",
                          c->addr);
                nicd_conn_close(c);
                return -1;
            }
            return send_failed(c);
        }
    }
    /* what the transport took must leave before the queue counts as sent */
    if (c->tp->flush != NULL) {
        rc = c->tp->flush(c);
        if (rc == 0) {
            return 0;
        }
        if (rc < 0) {
            return send_failed(c);
        }
    }
    return 1;
}

/* After an error response: stop sending, drain what still comes. */
void
nicd_conn_linger(nicd_conn_t *c)
{
    if (c->tp->shutdown != NULL) {
        c->tp->shutdown(c); /* TLS: close_notify first (nginx's) */
    }
    if (c->eof || c->w->cycle->conf->lingering_close == NICD_LINGER_OFF
        || shutdown(c->sc.fd, SHUT_WR) == -1) {
        nicd_conn_close(c);
        return;
    }
    c->lingering = 1;
    c->idle_ms = (uint32_t) nicd_worker_now_ms(c->w); /* lingering_time's */
    start_reading(c);
    set_timer(c, T_LINGER);
}

/*
 * Send the queue.  Returns 1 when it is empty (and reset), 0 when the
 * connection waits (for a writable socket, or for a pacing backend's
 * timer) with the events to resume it set, -1 when it was closed.  A
 * connection that keeps_reading (HTTP/2: the peer's WINDOW_UPDATEs may be
 * what the queue waits for) goes on reading meanwhile.
 */
int
nicd_conn_send(nicd_conn_t *c, int keep_reading)
{
    struct timeval tv;
    int            rc;

    rc = conn_flush(c);
    if (rc < 0) {
        return -1;
    }
    if (rc == 0 && c->sc.wait_ns > 0) {
        /* the backend paces (a modelled bus): call again later, not
         * when the socket is writable */
        tv.tv_sec = (time_t) (c->sc.wait_ns / 1000000000u);
        tv.tv_usec = (suseconds_t) (c->sc.wait_ns % 1000000000u / 1000);
        if (c->writing) {
            nicd_ev_del(&c->wev);
            c->writing = 0;
        }
        if (c->pev == NULL) {
            c->pev = nicd_ev_new(c->w->loop, -1, 0, conn_write_cb, c);
            if (c->pev == NULL) {
                log_error(LOG_CRIT, 0, "out of memory, client: %s", c->addr);
                nicd_conn_close(c);
                return -1;
            }
        }
        nicd_ev_add(c->pev, &tv);
    } else if (rc == 0 && !c->writing) {
        nicd_ev_add(&c->wev, NULL);
        c->writing = 1;
    }
    if (rc == 0) {
        if (!keep_reading && c->sc.wait_ns == 0) {
            /* (a paced response reads on: a client that goes meanwhile
             * is seen, as nginx sees it, not at the pace's next send) */
            stop_reading(c);
        }
        set_timer(c, T_SEND);
        return 0;
    }
    c->out.len = 0;
    c->logb.len = 0;
    c->nitems = c->ihead = 0;
    if (c->writing) {
        nicd_ev_del(&c->wev);
        c->writing = 0;
    }
    return 1;
}

/* Wait for the next bytes of the peer, with the timer given. */
void
nicd_conn_wait_read(nicd_conn_t *c, int timer)
{
    start_reading(c);
    set_timer(c, timer);
}

void
nicd_conn_keepalive(nicd_conn_t *c)
{
    conn_give_back(c);
    nicd_conn_wait_read(c, T_KEEPALIVE);
}

/* What came in: the protocol's to answer, the loop's clock held meanwhile */
static void
conn_run(nicd_conn_t *c)
{
    nicd_loop_t *l = c->w->loop;
    long         before = nicd_loop_hold_now(l);

    c->ops->run(c);
    nicd_loop_let_go_now(l, before);
}

static void
linger_read(nicd_conn_t *c)
{
    char    buf[4096];
    ssize_t n;

    for (;;) {
        n = recv(c->sc.fd, buf, sizeof(buf), 0);
        if (n > 0) {
            continue;
        }
        if (n == -1 && errno == EINTR) {
            continue;
        }
        if (n == -1 && errno == EAGAIN) {
            /* more came: wait lingering_timeout again, unless
             * lingering_time since the close began is spent */
            if ((uint32_t) nicd_worker_now_ms(c->w) - c->idle_ms
                >= (uint32_t) c->w->cycle->conf->lingering_time) {
                nicd_conn_close(c);
                return;
            }
            set_timer(c, T_LINGER);
            return;
        }
        nicd_conn_close(c); /* EOF or error */
        return;
    }
}

/*
 * A step of the transport's handshake, waiting for the socket it needs.
 * Returns 1 when done, 0 while it goes on, -1 when it failed (the
 * connection is closed).  The header timeout set at accept bounds it.
 */
static int
handshake(nicd_conn_t *c)
{
    int rc = c->tp->handshake(c);

    if (rc < 0) {
        nicd_conn_close(c);
        return -1;
    }
    if (rc == 0) {
        if (c->tp_want_write && !c->writing) {
            nicd_ev_add(&c->wev, NULL);
            c->writing = 1;
        } else if (!c->tp_want_write && c->writing) {
            nicd_ev_del(&c->wev);
            c->writing = 0;
        }
        return 0;
    }
    c->handshaking = 0;
    if (c->writing) {
        nicd_ev_del(&c->wev);
        c->writing = 0;
    }
    if (c->tp->alpn != NULL) {
        size_t      len;
        const char *p = c->tp->alpn(c, &len);

        if (p != NULL && len == 2 && memcmp(p, "h2", 2) == 0) {
            if (c->ops->free != NULL) {
                c->ops->free(c);
            }
            c->ops = c->w->cycle->http2;
            if (c->ops == NULL
                || (c->ops->start != NULL && c->ops->start(c) != 0)) {
                log_error(LOG_CRIT, 0, "HTTP/2 session not created, client: %s",
                          c->addr);
                c->ops = c->w->cycle->http1;
                nicd_conn_close(c);
                return -1;
            }
        }
    }
    return 1;
}

static void
conn_read_cb(int fd, short ev, void *arg)
{
    nicd_conn_t *c = arg;
    ssize_t      n;
    uint32_t     size;
    char        *p;

    (void) fd;
    (void) ev;

    if (c->lingering) {
        linger_read(c);
        return;
    }
    if (c->handshaking && handshake(c) <= 0) {
        return;
    }

    if (in_borrow(c) != 0) {
        log_error(LOG_CRIT, errno, "out of memory, client: %s", c->addr);
        nicd_conn_close(c);
        return;
    }
    if (c->in_end == c->in_size) {
        if (c->in_start > 0) {
            memmove(c->in, c->in + c->in_start, c->in_end - c->in_start);
            c->in_end -= c->in_start;
            c->in_start = 0;
        } else if (c->in_size < c->in_max) {
            size = c->in_size * 2 < c->in_max ? c->in_size * 2 : c->in_max;
            p = realloc(c->in, size);
            if (p == NULL) {
                log_error(LOG_CRIT, errno, "realloc() failed, client: %s",
                          c->addr);
                nicd_conn_close(c);
                return;
            }
            c->in = p;
            c->in_size = size;
        } else {
            /* full of complete requests waiting for their turn */
            stop_reading(c);
            return;
        }
    }

    for (;;) {
        n = c->tp->recv(c, c->in + c->in_end, c->in_size - c->in_end);
        if (n > 0) {
            c->in_end += (uint32_t) n;
            if (c->in_end < c->in_size && c->tp->pending != NULL
                && c->tp->pending(c)) {
                continue; /* take what the transport holds while room */
            }
            break;
        }
        if (n == 0) {
            c->eof = 1;
            stop_reading(c);
            break;
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno == EAGAIN) {
            return;
        }
        log_error(LOG_INFO, errno, "recv() failed, client: %s", c->addr);
        nicd_conn_close(c);
        return;
    }

    conn_run(c);
}

static void
conn_write_cb(int fd, short ev, void *arg)
{
    nicd_conn_t *c = arg;

    (void) fd;
    (void) ev;
    if (c->handshaking) {
        if (handshake(c) > 0) {
            /* application data may have come with the last flight */
            nicd_ev_active(&c->rev, NICD_EV_READ);
        }
        return;
    }
    conn_run(c);
}

static void
conn_timer_cb(int fd, short ev, void *arg)
{
    nicd_conn_t *c = arg;
    int          rc;

    (void) fd;
    (void) ev;
    switch (c->timer) {
    case T_HEADER:
    case T_BODY:
        rc = c->ops->header_timeout != NULL ? c->ops->header_timeout(c) : 0;
        if (rc == 1) {
            stop_reading(c); /* the answer (408) goes, then it closes */
        }
        if (rc != 0) {
            conn_run(c); /* (2: HTTP/2 reset a stream, serving on) */
            return;
        }
        break;
    case T_SEND:
        log_error(LOG_INFO, 0,
                  "client timed out while the response was sent, client: %s",
                  c->addr);
        break;
    }
    nicd_conn_close(c);
}

void
nicd_conn_shutdown(nicd_conn_t *c)
{
    uint32_t       waited;
    struct timeval tv;
    char           b;

    if (c->w->state != NICD_STOPPING) {
        return;
    }
    if (c->ops->shutdown != NULL) {
        c->ops->shutdown(c); /* HTTP/2: GOAWAY, closed when answered */
        return;
    }
    if (c->ops->waiting(c) != NICD_WAITS_REQUEST || c->lingering
        || c->writing) {
        return; /* it closes after its response (Connection: close) */
    }
    /* a request already in the socket is read and answered */
    if (recv(c->sc.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 1) {
        return;
    }
    waited = (uint32_t) nicd_worker_now_ms(c->w) - c->idle_ms;
    if (waited >= NICD_RETIRE_GRACE_MS) {
        nicd_conn_close(c);
        return;
    }
    /* the rest of the grace: its timer then closes it, and a request
     * that comes first is answered with "Connection: close" */
    tv = nicd_tv_ms(NICD_RETIRE_GRACE_MS - waited);
    nicd_ev_add(&c->tev, &tv);
}

nicd_conn_t *
nicd_conn_reusable(nicd_worker_t *w)
{
    nicd_conn_t *c, *idle = NULL, *head = NULL;
    uint32_t     now = (uint32_t) nicd_worker_now_ms(w), age, idle_age = 0,
             head_age = 0;

    /* the list is short enough to walk when the worker is full (at most
     * worker_connections), and walking costs nothing until then; it runs
     * newest first, so of equal ages the older connection wins */
    for (c = w->conns; c != NULL; c = c->next) {
        int waits =
            c->writing || c->lingering ? NICD_WAITS_NOT : c->ops->waiting(c);

        age = now - c->idle_ms;
        if (c->timer == T_KEEPALIVE && waits == NICD_WAITS_REQUEST) {
            if (idle == NULL || age >= idle_age) {
                idle = c;
                idle_age = age;
            }
        } else if (c->timer == T_HEADER && waits != NICD_WAITS_NOT) {
            if (head == NULL || age >= head_age) {
                head = c;
                head_age = age;
            }
        }
    }
    return idle != NULL ? idle : head;
}
