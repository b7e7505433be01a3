/*
 * One HTTP/1.1 client connection (see hclient.h).
 *
 * The socket is edge-triggered: a read that returns less than asked has
 * drained it, and the next bytes or the peer's FIN make a new edge; a FIN
 * that came with the data is reported with it (EPOLLRDHUP), so reading
 * goes on to the end then.  Writes go out until EAGAIN, and EPOLLOUT says
 * when more may.
 */

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/http/hclient.h"
#include "lib/http/hclient_tls.h"
#include "util/clock.h"

#define READ_CHUNK (64 * 1024)

int
hclient_fetch(const struct sockaddr *sa, socklen_t salen, hclient_tls_t *tls,
              const char *host, const char *method, const char *path,
              int timeout_s, char **body, size_t *blen, const char **why)
{
    struct timeval tv = {timeout_s, 0};
    char           req[1024], *buf = NULL, *end;
    size_t         cap = 0, n = 0;
    ssize_t        k = 0;
    int            len, status = 0;
    hclient_t      c; /* a blocking one, for its I/O through TLS */

    memset(&c, 0, sizeof(c));
    c.tls = tls;
    c.fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
        return -1;
    }
    setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(c.fd, sa, salen) != 0) {
        if (why != NULL) {
            *why = strerror(errno);
        }
        close(c.fd);
        return -1;
    }
    len = snprintf(req, sizeof(req),
                   "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                   method, path, host);
    if (len < 0 || (size_t) len >= sizeof(req)
        || (tls != NULL
            && (hclient_tls_start(&c) != 0 || hclient_tls_handshake(&c) != 1))
        || hclient_send(&c, req, (size_t) len) != len) {
        errno = c.err != 0 ? c.err : errno;
        if (why != NULL) {
            *why = c.err_text != NULL ? c.err_text : strerror(errno);
        }
        hclient_tls_close(&c);
        close(c.fd);
        return -2;
    }
    /* to the close (Connection: close) */
    for (;;) {
        if (trace_grow(&buf, &cap, n + 4096 + 1, 1, 16384) != 0) {
            break;
        }
        k = hclient_recv(&c, buf + n, cap - n - 1);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            break;
        }
        n += (size_t) k;
    }
    if (n == 0 && why != NULL) {
        *why = c.err_text != NULL ? c.err_text
               : k < 0            ? strerror(errno)
                                  : "closed without an answer";
    }
    hclient_tls_close(&c);
    close(c.fd);
    if (n == 0) {
        free(buf);
        return -2;
    }
    buf[n] = '\0';
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1) {
        status = 0;
    }
    if (body != NULL) {
        end = strstr(buf, "\r\n\r\n");
        *blen = end != NULL ? n - (size_t) (end + 4 - buf) : 0;
        memmove(buf, end != NULL ? end + 4 : buf + n, *blen + 1);
        *body = buf;
    } else {
        free(buf);
    }
    return status;
}

int
hclient_limit_parse(const char *s, hclient_limit_t *l)
{
    char  *end;
    double v = strtod(s, &end);

    l->percent = *end == '%';
    end += l->percent;
    if (end == s || *end != '\0' || !(v >= 0) || (l->percent && v > 100)) {
        return -1;
    }
    l->value = v;
    return 0;
}

int
hclient_limit_exceeded(const hclient_limit_t *l, uint64_t failed,
                       uint64_t tried, int final)
{
    if (failed == 0 || (l->percent && !final && tried < 100)) {
        return 0; /* a share of too few is no share yet */
    }
    if (l->percent) {
        return tried == 0
               || 100.0 * (double) failed / (double) tried > l->value;
    }
    return (double) failed > l->value;
}

const char *
hclient_limit_why(const hclient_limit_t *l, uint64_t failed, uint64_t tried,
                  int stopped, const char *causes, char *buf, size_t len)
{
    snprintf(buf, len,
             "%llu of %llu connections could not connect, past --max-errors "
             "%g%s%s (%s)",
             (unsigned long long) failed, (unsigned long long) tried, l->value,
             l->percent ? "%" : "", stopped ? ": the run stopped there" : "",
             causes);
    return buf;
}

void
hclient_init(hclient_t *c, const hclient_ops_t *ops, void *ud)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->ops = ops;
    c->ud = ud;
}

void
hclient_close(hclient_t *c)
{
    if (c->proto != NULL && c->proto->close != NULL) {
        c->proto->close(c);
    }
    hclient_tls_close(c);
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    c->connecting = c->ready = 0;
    c->rlen = c->wlen = c->woff = 0;
    c->pending = c->answered = 0;
}

void
hclient_free(hclient_t *c)
{
    hclient_close(c);
    free(c->wbuf);
    free(c->rbuf);
    c->wbuf = c->rbuf = NULL;
    c->wcap = c->rcap = 0;
}

int
hclient_open(hclient_t *c, int ep, const struct addrinfo *ai)
{
    struct epoll_event ev;
    int                fd, one = 1;

    hclient_close(c);
    c->err = 0;
    c->err_text = NULL;
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                0);
    if (fd < 0) {
        c->err = errno;
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.ptr = c;
    if ((connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS)
        || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        c->err = errno;
        close(fd);
        errno = c->err;
        return -1;
    }
    c->fd = fd;
    c->connecting = 1;
    c->activity_ns = nicache_now_ns(); /* a timeout counts from here */
    return 0;
}

char *
hclient_space(hclient_t *c, size_t n)
{
    if (c->woff == c->wlen) {
        c->woff = c->wlen = 0;
    }
    return trace_grow(&c->wbuf, &c->wcap, c->wlen + n, 1, 4096) == 0
               ? c->wbuf + c->wlen
               : NULL;
}

static void
start(hclient_t *c)
{
    hresp_init(&c->resp, c->ops->start(c->ud));
}

void
hclient_commit(hclient_t *c, size_t n, uint64_t responses)
{
    c->wlen += n;
    if (c->pending == 0 && responses > 0) {
        c->activity_ns = nicache_now_ns();
        c->pending = responses;
        start(c);
    } else {
        c->pending += responses;
    }
}

ssize_t
hclient_recv(hclient_t *c, void *buf, size_t n)
{
    return c->ssl != NULL ? hclient_tls_read(c, buf, n) : read(c->fd, buf, n);
}

ssize_t
hclient_send(hclient_t *c, const void *buf, size_t n)
{
    return c->ssl != NULL ? hclient_tls_write(c, buf, n)
                          : send(c->fd, buf, n, MSG_NOSIGNAL);
}

int
hclient_flush(hclient_t *c)
{
    ssize_t n;

    if (c->proto != NULL) {
        return c->proto->flush(c);
    }
    while (c->fd >= 0 && !c->connecting && !c->handshaking
           && c->woff < c->wlen) {
        n = hclient_send(c, c->wbuf + c->woff, c->wlen - c->woff);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN ? 0 : -1;
        }
        c->woff += (size_t) n;
        c->activity_ns = nicache_now_ns();
    }
    return 0;
}

void
hclient_lose(hclient_t *c, int how)
{
    uint64_t answered = c->answered;

    hclient_close(c);
    c->ops->lost(c->ud, how, answered);
}

const cause_t *
hclient_count_loss(causes_t *causes, const hclient_t *c, int how)
{
    if (c->err_text != NULL) {
        return causes_add(causes, "tls", 0, c->err_text);
    }
    switch (how) {
    case HC_CONNECT: return causes_add(causes, "connect", c->err, "failed");
    case HC_CLOSED:
        return causes_add(causes, c->err ? "read" : "closed", c->err,
                          "by the server before a response");
    case HC_CUT:
        return causes_add(causes, c->err ? "read" : "closed", c->err,
                          "by the server inside a response");
    case HC_PARSE:
        return causes_add(causes, "response", 0,
                          "did not parse (or bytes nobody asked for)");
    default: return causes_add(causes, "client", 0, "out of memory");
    }
}

/* nothing pending any more: the connection is the caller's again */
static void
idle(hclient_t *c, int closed)
{
    if (closed) {
        hclient_close(c);
    }
    c->ops->idle(c->ud, closed);
}

static void
body(void *arg, uint64_t off, const char *p, size_t n)
{
    hclient_t *c = arg;

    if (c->ops->body != NULL) {
        c->ops->body(c->ud, off, p, n);
    }
}

/* a response is in: 1 when the event is over (a callback has c) */
static int
response_done(hclient_t *c)
{
    int close_after = c->resp.close;

    c->pending--;
    c->answered++;
    c->activity_ns = nicache_now_ns();
    c->ops->done(c->ud, &c->resp);
    if (close_after) {
        if (c->pending > 0) {
            hclient_lose(c, HC_CLOSED);
        } else {
            idle(c, 1);
        }
        return 1;
    }
    if (c->pending > 0) {
        start(c);
    }
    return 0;
}

/* hup: the peer's FIN is known to be in (read on to the end) */
static void
on_readable(hclient_t *c, int hup)
{
    ssize_t n, used;
    size_t  want, off;

    for (;;) {
        if (trace_grow(&c->rbuf, &c->rcap, c->rlen + READ_CHUNK, 1, 4096)
            != 0) {
            hclient_lose(c, HC_NOMEM);
            return;
        }
        want = c->rcap - c->rlen;
        n = hclient_recv(c, c->rbuf + c->rlen, want);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            return;
        }
        if (n <= 0) {
            c->err = n < 0 ? errno : 0;
            /* closed or reset: a body that runs to the close ends */
            if (n == 0 && c->pending > 0 && c->resp.state == HRESP_BODY_EOF) {
                hresp_eof(&c->resp);
                c->rlen = 0;
                c->resp.close = 1;
                response_done(c);
                return;
            }
            if (c->pending == 0) {
                idle(c, 1);
            } else if (c->resp.state != HRESP_HEAD || c->rlen > 0) {
                hclient_lose(c, HC_CUT);
            } else {
                hclient_lose(c, HC_CLOSED);
            }
            return;
        }
        c->rlen += (size_t) n;
        c->activity_ns = nicache_now_ns();
        if (c->pending == 0) {
            hclient_lose(c, HC_PARSE); /* bytes nobody asked for */
            return;
        }
        /* answer as many requests as the bytes allow */
        for (off = 0; off < c->rlen && c->pending > 0;) {
            used = hresp_feed(&c->resp, c->rbuf + off, c->rlen - off, body, c);
            if (used < 0) {
                hclient_lose(c, HC_PARSE);
                return;
            }
            off += (size_t) used;
            if (c->resp.state == HRESP_DONE) {
                if (response_done(c)) {
                    return;
                }
            } else if (used == 0) {
                break; /* need more bytes */
            }
        }
        memmove(c->rbuf, c->rbuf + off, c->rlen - off);
        c->rlen -= off;
        if (c->pending == 0) {
            if (c->rlen > 0) {
                hclient_lose(c, HC_PARSE);
            } else {
                idle(c, 0);
            }
            return;
        }
        if ((size_t) n < want && !hup && c->ssl == NULL) {
            return; /* drained (a TLS record may hold less than waits) */
        }
    }
}

void
hclient_event(hclient_t *c, uint32_t events)
{
    int fd = c->fd, err = 0;

    socklen_t len = sizeof(err);

    if (fd < 0) {
        return; /* closed by an earlier event of the same round */
    }
    if (events & (EPOLLOUT | EPOLLERR)) {
        if (c->connecting) {
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0
                || err != 0) {
                c->err = err != 0 ? err : errno;
                hclient_lose(c, HC_CONNECT);
                return;
            }
            c->connecting = 0;
            c->activity_ns = nicache_now_ns();
            if (c->tls != NULL && hclient_tls_start(c) != 0) {
                hclient_lose(c, HC_CONNECT);
                return;
            }
        } else if (!c->handshaking) {
            (void) hclient_flush(c);
        }
    }
    if (c->handshaking) {
        /* TLS: any event may move the handshake on */
        switch (hclient_tls_handshake(c)) {
        case 0: return;
        case -1: hclient_lose(c, HC_CONNECT); return;
        default: c->activity_ns = nicache_now_ns(); break;
        }
    }
    if (c->fd == fd && !c->connecting && !c->ready) {
        c->ready = 1;
        if (c->proto != NULL && c->proto->connected(c) != 0) {
            hclient_lose(c, HC_NOMEM);
            return;
        }
        c->ops->connected(c->ud);
    }
    /* the callbacks may have moved on to another connection: its socket
     * reports for itself */
    if (c->fd == fd && !c->connecting
        && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
        int hup = (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;

        if (c->proto != NULL) {
            c->proto->readable(c, hup);
        } else {
            on_readable(c, hup);
        }
    }
}

int
hclient_parse_url(const char *url, struct addrinfo **ai, char *hdr, size_t hlen,
                  char *name, size_t namelen, char *err, size_t errlen)
{
    char            host[256], portbuf[16], *close, *colon;
    const char     *p, *port = "80", *slash;
    struct addrinfo hints;
    int             rc, tls = 0;
    size_t          n;

    if (strncmp(url, "https://", 8) == 0) {
        tls = 1;
        port = "443";
        p = url + 8;
    } else if (strncmp(url, "http://", 7) == 0) {
        p = url + 7;
    } else {
        snprintf(err, errlen, "%s: only http:// and https:// URLs", url);
        return -1;
    }
    slash = strchr(p, '/');
    n = slash != NULL ? (size_t) (slash - p) : strlen(p);
    if (n == 0 || n >= sizeof(host) || n >= hlen) {
        snprintf(err, errlen, "%s: no host", url);
        return -1;
    }
    if (slash != NULL && strcmp(slash, "/") != 0) {
        snprintf(err, errlen,
                 "%s: the URL names the server only; the requests give the "
                 "paths",
                 url);
        return -1;
    }
    memcpy(hdr, p, n);
    hdr[n] = '\0';
    memcpy(host, p, n);
    host[n] = '\0';
    if (host[0] == '[') { /* [v6]:port */
        close = strchr(host, ']');
        if (close == NULL) {
            snprintf(err, errlen, "%s: bad IPv6 address", url);
            return -1;
        }
        *close = '\0';
        if (close[1] == ':') {
            snprintf(portbuf, sizeof(portbuf), "%s", close + 2);
            port = portbuf;
        }
        memmove(host, host + 1, strlen(host));
    } else if ((colon = strchr(host, ':')) != NULL) {
        *colon = '\0';
        snprintf(portbuf, sizeof(portbuf), "%s", colon + 1);
        port = portbuf;
    }
    if (name != NULL) {
        snprintf(name, namelen, "%s", host);
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, port, &hints, ai);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", url, gai_strerror(rc));
        return -1;
    }
    return tls;
}
