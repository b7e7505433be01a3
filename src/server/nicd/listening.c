/*
 * The listening sockets, kept across generations: a reload's workers
 * take the same descriptors (no connection waiting in a backlog is
 * lost), one socket per address and worker slot (SO_REUSEPORT; a
 * UNIX-domain socket's slots share one).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/nicd/listening.h"
#include "server/core/nicd.h"

static uint16_t
sockaddr_port(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_UNIX) {
        return 0;
    }
    if (ss->ss_family == AF_INET6) {
        return ntohs(((const struct sockaddr_in6 *) ss)->sin6_port);
    }
    return ntohs(((const struct sockaddr_in *) ss)->sin_port);
}

static nicd_listener_t *
listener_find(const nicd_listeners_t *ls, const char *text, int idx)
{
    int i;

    for (i = 0; i < ls->n; i++) {
        if (ls->v[i].fd != -1 && ls->v[i].idx == idx
            && strcmp(ls->v[i].text, text) == 0) {
            return &ls->v[i];
        }
    }
    return NULL;
}

/* sndbuf= and notsent_lowat=: accepted connections inherit the listening
 * socket's (a failure is logged; the OS's setting stays) */
static void
listener_options(int fd, const nicd_listen_conf_t *l)
{
    if (l->sndbuf > 0
        && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &l->sndbuf, sizeof(l->sndbuf))
               != 0) {
        log_error(LOG_WARN, errno, "setsockopt(SO_SNDBUF) on %s failed",
                  l->text);
    }
    /* 0 (off) is the system's default (net.ipv4.tcp_notsent_lowat), so a
     * reload that turns it off takes effect on a kept socket too */
    if (l->addr.ss_family != AF_UNIX
        && setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &l->lowat,
                      sizeof(l->lowat))
               != 0) {
        log_error(LOG_WARN, errno, "setsockopt(TCP_NOTSENT_LOWAT) on %s failed",
                  l->text);
    }
}

/*
 * Is l's address free of other processes?  Our workers share a port
 * through SO_REUSEPORT, and so could another nicd (or anything else that
 * sets it), which would then split the clients with us: a bind without
 * SO_REUSEPORT fails if anyone listens there, reuseport or not.  Asked
 * only when this process has no socket of the address yet (a reload
 * keeps its own).  1 when free; 0 with err.
 */
static int
address_free(const nicd_listen_conf_t *l, char *err, size_t errlen)
{
    int fd, one = 1, rc = 1;

    fd = socket(l->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd == -1) {
        return 1; /* the real socket() will say why */
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (l->addr.ss_family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    if (bind(fd, (const struct sockaddr *) &l->addr, l->addrlen) != 0
        && errno == EADDRINUSE) {
        snprintf(err, errlen,
                 "bind() to %s failed (%d: %s): another process listens "
                 "there",
                 l->text, errno, strerror(errno));
        rc = 0;
    }
    close(fd);
    return rc;
}

/* fd becomes the socket of slot idx of the address text: 0, or -1 (fd
 * closed) */
static int
listener_add(nicd_listeners_t *ls, const char *text, int idx, int fd, int gen,
             char *err, size_t errlen)
{
    nicd_listener_t *v = realloc(ls->v, sizeof(*v) * (size_t) (ls->n + 1));

    if (v == NULL) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return -1;
    }
    ls->v = v;
    v[ls->n].text = strdup(text);
    v[ls->n].idx = idx;
    v[ls->n].fd = fd;
    v[ls->n].gen = gen;
    ls->n++;
    return 0;
}

/*
 * A UNIX-domain socket: one for every slot (the other slots' are copies of
 * slot 0's descriptor: SO_REUSEPORT does not spread them), its file made
 * readable and writable by all (nginx's), a file already there refused
 * (bind: "Address already in use", as nginx).  Returns fd or -1.
 */
static int
unix_listener(nicd_listeners_t *ls, const nicd_listen_conf_t *l, int idx,
              int gen, char *err, size_t errlen)
{
    const nicd_listener_t *first = listener_find(ls, l->text, 0);
    const char            *failed = "bind"; /* the call that failed */
    int                    fd, e;

    if (idx > 0 && first != NULL) {
        fd = fcntl(first->fd, F_DUPFD_CLOEXEC, 0);
    } else {
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd != -1
            && bind(fd, (const struct sockaddr *) &l->addr, l->addrlen) == 0) {
            failed = chmod(l->text + 5, 0666) != 0 ? "chmod"
                     : listen(fd, l->backlog) != 0 ? "listen"
                                                   : NULL;
            e = errno;
            if (failed != NULL) {
                unlink(l->text + 5); /* (the file the bind made) */
            }
            errno = e;
        }
        if (fd != -1 && failed != NULL) {
            snprintf(err, errlen, "%s() to %s failed (%d: %s)", failed, l->text,
                     errno, strerror(errno));
            close(fd);
            return -1;
        }
    }
    if (fd == -1) {
        snprintf(err, errlen, "socket() failed: %s", strerror(errno));
        return -1;
    }
    listener_options(fd, l);
    return listener_add(ls, l->text, idx, fd, gen, err, errlen) == 0 ? fd : -1;
}

/*
 * The socket of worker slot idx for listen address l, reused when an
 * earlier generation had it.  With port 0, slot 0 gets a port from the
 * kernel and the other slots bind the same one.  Returns fd or -1.
 */
int
nicd_listener_get(nicd_listeners_t *ls, const nicd_listen_conf_t *l, int idx,
                  int gen, char *err, size_t errlen)
{
    struct sockaddr_storage ss = l->addr;
    socklen_t               len;
    nicd_listener_t        *lp;
    int                     fd, one = 1;

    lp = listener_find(ls, l->text, idx);
    if (lp != NULL) {
        lp->gen = gen;
        listener_options(lp->fd, l);
        return lp->fd;
    }
    if (l->addr.ss_family == AF_UNIX) {
        return unix_listener(ls, l, idx, gen, err, errlen);
    }

    if (sockaddr_port(&ss) == 0 && idx > 0) {
        lp = listener_find(ls, l->text, 0);
        if (lp != NULL) {
            len = sizeof(ss);
            getsockname(lp->fd, (struct sockaddr *) &ss, &len);
        }
    }

    if (sockaddr_port(&ss) != 0 && idx == 0 && !address_free(l, err, errlen)) {
        return -1;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1) {
        snprintf(err, errlen, "socket() failed: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
        snprintf(err, errlen, "setsockopt(SO_REUSEPORT) failed: %s",
                 strerror(errno));
        close(fd);
        return -1;
    }
    if (ss.ss_family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    listener_options(fd, l);
    if (bind(fd, (struct sockaddr *) &ss, l->addrlen) != 0) {
        snprintf(err, errlen, "bind() to %s failed: %s", l->text,
                 strerror(errno));
        close(fd);
        return -1;
    }
    if (listen(fd, l->backlog) != 0) {
        snprintf(err, errlen, "listen() to %s failed: %s", l->text,
                 strerror(errno));
        close(fd);
        return -1;
    }

    return listener_add(ls, l->text, idx, fd, gen, err, errlen) == 0 ? fd : -1;
}

/* Close the sockets that no running generation uses. */
void
nicd_listeners_prune(nicd_listeners_t *ls, int oldest_alive)
{
    int i;

    for (i = 0; i < ls->n; i++) {
        if (ls->v[i].fd != -1 && ls->v[i].gen < oldest_alive) {
            if (ls->v[i].idx == 0 && strncmp(ls->v[i].text, "unix:", 5) == 0) {
                unlink(ls->v[i].text + 5); /* (nginx removes it too) */
            }
            close(ls->v[i].fd);
            ls->v[i].fd = -1;
            free(ls->v[i].text);
            ls->v[i].text = NULL;
        }
    }
}

/* Does the kernel offer the "tls" upper layer protocol (kernel TLS)? */
static int
ktls_offered(void)
{
    char  buf[256];
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_ulp", "r");
    int   yes = 0;

    if (f != NULL) {
        yes = fgets(buf, sizeof(buf), f) != NULL && strstr(buf, "tls") != NULL;
        fclose(f);
    }
    return yes;
}

void
nicd_listeners_say(const nicd_listeners_t *ls, const nicd_cycle_t *cy)
{
    struct sockaddr_storage ss;
    socklen_t               len;
    char                    host[INET6_ADDRSTRLEN];
    const nicd_listener_t  *lp;
    const char             *scheme;
    int                     i;

    if (cy->conf->nssl > 0 && !ktls_offered()) {
        log_error(LOG_NOTICE, 0,
                  "kernel TLS is not loaded (no \"tls\" in "
                  "/proc/sys/net/ipv4/tcp_available_ulp): unless the kernel "
                  "loads it when asked, bodies over TLS are read and "
                  "encrypted in user space");
    }
    for (i = 0; i < cy->conf->nlistens; i++) {
        lp = listener_find(ls, cy->conf->listens[i].text, 0);
        len = sizeof(ss);
        if (lp == NULL
            || getsockname(lp->fd, (struct sockaddr *) &ss, &len) != 0) {
            continue;
        }
        scheme = cy->conf->listens[i].ssl ? "https" : "http";
        if (ss.ss_family == AF_UNIX) {
            log_error(LOG_NOTICE, 0, "listening on %s (%s)",
                      cy->conf->listens[i].text, scheme);
        } else if (ss.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *) &ss)->sin6_addr, host,
                      sizeof(host));
            log_error(LOG_NOTICE, 0, "listening on %s://[%s]:%u/", scheme, host,
                      sockaddr_port(&ss));
        } else {
            inet_ntop(AF_INET, &((struct sockaddr_in *) &ss)->sin_addr, host,
                      sizeof(host));
            log_error(LOG_NOTICE, 0, "listening on %s://%s:%u/", scheme, host,
                      sockaddr_port(&ss));
        }
    }
}

void
nicd_listeners_free(nicd_listeners_t *ls)
{
    nicd_listeners_prune(ls, ls->n > 0 ? 1 << 30 : 0);
    free(ls->v);
    ls->v = NULL;
    ls->n = 0;
}
