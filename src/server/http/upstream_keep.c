/*
 * The connections kept to upstream servers (upstream.h:
 * nicd_upstream_sock_t): a group's idle ones in a list every worker
 * thread takes from (keepalive N of them in all), each still registered
 * for reading in the event loop of the thread that made it, which hears
 * of a server's close (or bytes it was not asked for) and of the end of
 * keepalive_timeout.  That thread takes its own first, at no cost;
 * another takes one by a dup() of its socket under the group's lock, and
 * the first thread, hearing of the socket next (its response, or the
 * timer), lets go of its descriptor (epoll_ctl(DEL) by hand, then close:
 * the socket lives on in the taker's).
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/log.h"
#include "server/http/upstream.h"

/* a kept connection idle this long is checked before use (its close may
 * not yet have been read) */
#define IDLE_CHECK_MS 1000

/* the idle connections this thread registered (the pool's, and those
 * another thread took and this one has not yet let go of): a worker
 * thread's own, which it lets go of when it ends */
static __thread nicd_upstream_sock_t *local_head;

/* a group's idle connections, oldest first */
typedef struct {
    pthread_mutex_t        lock;
    nicd_upstream_sock_t **idle;
    int                    n, cap;
} keep_t;

static void
keep_free(void *data)
{
    keep_t *k = data;
    int     i;

    for (i = 0; i < k->n; i++) {
        /* (their threads have ended: their loops are gone) */
        close(k->idle[i]->fd);
        free(k->idle[i]);
    }
    pthread_mutex_destroy(&k->lock);
    free(k->idle);
    free(k);
}

void *
nicd_upstream_keep_new(nicd_conf_t *c, const nicd_upstream_t *u)
{
    keep_t *k = calloc(1, sizeof(*k));

    if (k == NULL
        || (k->idle = calloc((size_t) u->keepalive, sizeof(*k->idle)))
               == NULL) {
        free(k);
        return NULL;
    }
    k->cap = u->keepalive;
    pthread_mutex_init(&k->lock, NULL);
    if (nicd_conf_cleanup(c, keep_free, k) != 0) {
        keep_free(k);
        return NULL;
    }
    return k;
}

/* ---- a connection ---- */

static void
trampoline(int fd, short what, void *arg)
{
    nicd_upstream_sock_t *s = arg;

    (void) fd;
    s->on_read(s->owner, what); /* (which may close s) */
}

nicd_upstream_sock_t *
nicd_upstream_sock_new(nicd_worker_t *w, int fd)
{
    nicd_upstream_sock_t *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        return NULL;
    }
    s->fd = fd;
    s->w = w;
    s->server = -1;
    nicd_ev_set(&s->ev, w->loop, fd, NICD_EV_READ | NICD_EV_PERSIST, trampoline,
                s);
    return s;
}

void
nicd_upstream_sock_read(nicd_upstream_sock_t *s, long                   ms,
                        void (*on_read)(void *owner, short what), void *owner)
{
    struct timeval tv = nicd_tv_ms(ms);

    s->on_read = on_read;
    s->owner = owner;
    if (ms <= 0 && s->reading) {
        /* (a timeout set before stays: no way to clear it but a
         * removal, which would cost the epoll_ctl() this saves) */
        return;
    }
    /* registered the first time; after that only its timer moves */
    nicd_ev_add(&s->ev, ms > 0 ? &tv : NULL);
    s->reading = 1;
}

void
nicd_upstream_sock_pause(nicd_upstream_sock_t *s)
{
    if (s->reading) {
        nicd_ev_del(&s->ev);
        s->reading = 0;
    }
}

void
nicd_upstream_sock_close(nicd_upstream_sock_t *s)
{
    nicd_upstream_sock_pause(s);
    close(s->fd);
    free(s);
}

/* ---- idle ---- */

static void
local_remove(nicd_upstream_sock_t *s)
{
    if (s->prev != NULL) {
        s->prev->next = s->next;
    } else {
        local_head = s->next;
    }
    if (s->next != NULL) {
        s->next->prev = s->prev;
    }
    s->prev = s->next = NULL;
}

/* entry i of k removed (k locked) */
static void
pool_remove(keep_t *k, int i)
{
    memmove(&k->idle[i], &k->idle[i + 1],
            (size_t) (k->n - i - 1) * sizeof(*k->idle));
    k->n--;
}

/* s, registered by this thread, out of the pool (unless another thread
 * took it: then only this thread's descriptor goes) and closed */
static void
let_go(nicd_upstream_sock_t *s)
{
    keep_t *k = s->u->keep;
    int     i;

    pthread_mutex_lock(&k->lock);
    for (i = 0; !s->handed && i < k->n; i++) {
        if (k->idle[i] == s) {
            pool_remove(k, i);
            break;
        }
    }
    pthread_mutex_unlock(&k->lock);
    local_remove(s);
    nicd_upstream_sock_close(s);
}

/* an idle connection read: the server closed it, sent what it was not
 * asked for, keepalive_timeout passed, or (handed) the thread that took
 * it is using it */
static void
idle_read(void *owner, short what)
{
    (void) what;
    let_go(owner);
}

/* the most recent idle connection of k to server, this thread's first
 * (k locked): its index, or -1 */
static int
pick(const keep_t *k, const nicd_worker_t *w, int server)
{
    int i, other = -1;

    for (i = k->n - 1; i >= 0; i--) {
        if (k->idle[i]->server != server) {
            continue;
        }
        if (k->idle[i]->w == w) {
            return i;
        }
        if (other < 0) {
            other = i;
        }
    }
    return other;
}

/* k's entry i, another thread's, as a connection of w (k locked): a
 * descriptor of its own; NULL when out of descriptors or memory */
static nicd_upstream_sock_t *
take_over(keep_t *k, int i, nicd_worker_t *w)
{
    nicd_upstream_sock_t *o = k->idle[i], *s;
    int                   fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);

    if (fd < 0 || (s = nicd_upstream_sock_new(w, fd)) == NULL) {
        if (fd >= 0) {
            close(fd);
        }
        return NULL; /* (it stays in the pool) */
    }
    pool_remove(k, i);
    o->handed = 1; /* (its thread lets go when it next hears of it) */
    s->requests = o->requests;
    s->born = o->born;
    s->since = o->since;
    return s;
}

nicd_upstream_sock_t *
nicd_upstream_idle_get(nicd_worker_t *w, nicd_upstream_pick_t *pk)
{
    keep_t               *k = pk->u->keep;
    nicd_upstream_sock_t *s;
    long                  now = nicd_worker_now_ms(w);
    int                   i, own;
    char                  b;

    while (k != NULL) {
        pthread_mutex_lock(&k->lock);
        i = pick(k, w, pk->server);
        if (i < 0) {
            pthread_mutex_unlock(&k->lock);
            return NULL;
        }
        s = k->idle[i];
        own = s->w == w;
        if (own) {
            pool_remove(k, i);
        } else {
            s = take_over(k, i, w);
        }
        pthread_mutex_unlock(&k->lock);
        if (s == NULL) {
            return NULL;
        }
        if (own) {
            local_remove(s); /* (still registered: no cost) */
        }
        if (now - s->since > pk->u->keepalive_timeout
            || (now - s->since >= IDLE_CHECK_MS
                && (recv(s->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) >= 0
                    || errno != EAGAIN))) {
            /* idle too long, closed by the server, or it sent something
             * unasked: no use (one idle a moment only is taken as it is:
             * a close in between is retried on another connection, as
             * nginx's kept connections are) */
            nicd_upstream_sock_close(s);
            continue;
        }
        return s;
    }
    return NULL;
}

void
nicd_upstream_idle_put(nicd_worker_t *w, nicd_upstream_pick_t *pk,
                       nicd_upstream_sock_t *s)
{
    const nicd_upstream_t *u = pk->u;
    keep_t                *k = u->keep;
    nicd_upstream_sock_t  *out = NULL;
    long                   now = nicd_worker_now_ms(w);

    if (k == NULL || s->requests >= u->keepalive_requests
        || now - s->born > u->keepalive_time || w->state != NICD_RUNNING) {
        nicd_upstream_sock_close(s);
        return;
    }
    s->u = u;
    s->server = pk->server;
    s->since = now;
    s->handed = 0;
    pthread_mutex_lock(&k->lock);
    if (k->n == k->cap) {
        /* the one idle longest makes room: its thread lets go of it
         * (another's, when it hears of the socket's end) */
        out = k->idle[0];
        pool_remove(k, 0);
        out->handed = 1;
        if (out->w != w) {
            (void) shutdown(out->fd, SHUT_RDWR);
            out = NULL;
        }
    }
    k->idle[k->n++] = s;
    pthread_mutex_unlock(&k->lock);
    if (out != NULL) {
        let_go(out);
    }
    s->prev = NULL;
    s->next = local_head;
    if (s->next != NULL) {
        s->next->prev = s;
    }
    local_head = s;
    nicd_upstream_sock_read(s, u->keepalive_timeout, idle_read, s);
}

void
nicd_upstream_idle_close_all(nicd_worker_t *w)
{
    nicd_upstream_sock_t *s;

    (void) w; /* (called in its thread: the list is the thread's) */
    while ((s = local_head) != NULL) {
        let_go(s);
    }
}
