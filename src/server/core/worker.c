/*
 * Worker threads: one event loop each, one SO_REUSEPORT listening socket
 * per listen address each (the kernel spreads new connections over them),
 * commands from the master through a pipe.
 *
 * Commands: 'r' retire (a reload replaced this generation) and 'q'
 * graceful stop: stop accepting, close idle connections at once (an
 * HTTP/2 one gets GOAWAY), answer requests in progress or already sent
 * with "Connection: close", exit when the last connection is gone, as
 * nginx's old workers do; 't' stop now.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/core/nicd.h"

static void
listen_enable(nicd_worker_t *w, int on)
{
    int i;

    if (w->accepting == on) {
        return;
    }
    for (i = 0; i < w->nlisten; i++) {
        if (on) {
            nicd_ev_add(w->listen_evs[i], NULL);
        } else {
            nicd_ev_del(w->listen_evs[i]);
        }
    }
    w->accepting = on;
}

static void
resume_cb(int fd, short ev, void *arg)
{
    nicd_worker_t *w = arg;

    (void) fd;
    (void) ev;
    if (w->state == NICD_RUNNING) {
        listen_enable(w, 1);
    }
}

static void
accept_cb(int lfd, short ev, void *arg)
{
    nicd_worker_t          *w = arg;
    struct sockaddr_storage sa;
    socklen_t               len;
    struct timeval          tv = {0, 100000};
    int                     fd, i, listener = 0;

    (void) ev;
    for (i = 0; i < w->nlisten; i++) {
        if (w->listen_fds[i] == lfd) {
            listener = i;
        }
    }

    for (i = 0; i < 64; i++) {
        nicd_conn_t *victim = NULL;

        if (w->nconns >= w->cycle->conf->worker_connections) {
            /* room is made as nginx makes it (the longest idle keep-alive
             * connection, else the oldest still sending its head), once
             * there is a connection to make it for */
            victim = nicd_conn_reusable(w);
            if (victim == NULL) {
                log_error_limited(&w->lim_full, nicd_worker_now_ms(w), LOG_WARN,
                                  0,
                                  "%d worker_connections are not enough, "
                                  "not accepting until one closes",
                                  w->cycle->conf->worker_connections);
                listen_enable(w, 0);
                return;
            }
        }

        len = sizeof(sa);
        fd = accept4(lfd, (struct sockaddr *) &sa, &len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd == -1) {
            switch (errno) {
            case EAGAIN: return;
            case EINTR:
            case ECONNABORTED:
            case EPROTO: continue;
            case EMFILE:
            case ENFILE:
                /* out of descriptors: free one by closing a connection
                 * that waits for a request, and try again */
                victim = nicd_conn_reusable(w);
                if (victim != NULL) {
                    log_error_limited(&w->lim_accept, nicd_worker_now_ms(w),
                                      LOG_CRIT, errno,
                                      "accept4() failed, reusing "
                                      "connections");
                    nicd_conn_close(victim);
                    continue;
                }
                /* fall through */
            case ENOBUFS:
            case ENOMEM:
                /* the connection stays in the backlog; accepting again at
                 * once would spin on the same error */
                log_error_limited(&w->lim_accept, nicd_worker_now_ms(w),
                                  LOG_CRIT, errno,
                                  "accept4() failed, not accepting "
                                  "new connections for 100 ms");
                listen_enable(w, 0);
                nicd_ev_add(w->resume_ev, &tv);
                return;
            default:
                log_error_limited(&w->lim_accept, nicd_worker_now_ms(w),
                                  LOG_ERR, errno, "accept4() failed");
                return;
            }
        }
        if (victim != NULL) {
            log_error_limited(&w->lim_reuse, nicd_worker_now_ms(w), LOG_WARN, 0,
                              "%d worker_connections are not enough, "
                              "reusing connections",
                              w->cycle->conf->worker_connections);
            nicd_conn_close(victim);
        }
        NICD_STAT_ADD(w->stats->accepted, 1);
        NICD_STAT_ADD(w->stats->handled, 1);
        nicd_conn_accept(w, fd, listener, (struct sockaddr *) &sa);
    }
}

/* a connection of w closed (w->conn_closed): stop when draining, take
 * new ones again when slots were short */
static void
conn_closed(nicd_worker_t *w)
{
    if (w->state != NICD_RUNNING) {
        if (w->nconns == 0) {
            nicd_loop_exit(w->loop);
        }
        return;
    }
    if (!w->accepting && !nicd_ev_pending(w->resume_ev, NICD_EV_TIMEOUT)
        && w->nconns < w->cycle->conf->worker_connections) {
        listen_enable(w, 1);
    }
}

void
nicd_worker_setup(nicd_worker_t *w)
{
    w->conn_closed = conn_closed;
    /* the pools connections borrow from: spares kept, enough for a busy
     * moment of a worker's connections, a few hundred KiB in all */
    nicd_pool_init(&w->pools[NICD_POOL_REQ], w->cycle->http1->req_size, 64, 0);
    nicd_pool_init(&w->pools[NICD_POOL_IN],
                   w->cycle->conf->client_header_buffer_size, 64, 0);
    nicd_pool_init(&w->pools[NICD_POOL_BUF], NICD_POOL_BUF_SIZE, 128, 0);
    nicd_pool_init(&w->pools[NICD_POOL_GATHER], NICD_POOL_GATHER_SIZE, 8, 1);
}

static void
nicd_worker_pools_free(nicd_worker_t *w)
{
    int i;

    for (i = 0; i < 4; i++) {
        nicd_pool_drain(&w->pools[i]);
    }
}

static void
stop(nicd_worker_t *w, int state)
{
    nicd_conn_t *c, *next;

    w->state = state;
    listen_enable(w, 0);
    for (c = w->conns; c != NULL; c = next) {
        next = c->next;
        nicd_conn_shutdown(c);
    }
    if (w->nconns == 0) {
        nicd_loop_exit(w->loop);
    }
}

static void
cmd_cb(int fd, short ev, void *arg)
{
    nicd_worker_t *w = arg;
    char           cmd[16];
    ssize_t        n, i;

    (void) ev;
    n = read(fd, cmd, sizeof(cmd));
    for (i = 0; i < n; i++) {
        switch (cmd[i]) {
        case 'r':
        case 'q': stop(w, NICD_STOPPING); break;
        case 't': nicd_loop_break(w->loop); break;
        }
    }
}

static void
tick_cb(int fd, short ev, void *arg)
{
    nicd_worker_t *w = arg;
    int            i;

    (void) fd;
    (void) ev;
    for (i = 0; i < w->nlogs; i++) {
        if (w->logs[i].len > 0) {
            log_buf_flush(&w->logs[i]);
        }
    }
    nicd_ofc_expire(&w->ofc, nicd_worker_now_ms(w));
}

static void *
worker_main(void *arg)
{
    nicd_worker_t     *w = arg;
    const nicd_conf_t *cf = w->cycle->conf;
    nicd_conn_t       *c;
    long               flush = cf->access_log_flush;
    struct timeval     tick;
    int                i;
    ssize_t            unused;

    tick.tv_sec = flush >= 1000 ? 1 : 0;
    tick.tv_usec = flush >= 1000 ? 0 : (flush > 0 ? flush : 100) * 1000;

    w->tv_header = nicd_loop_common_tv(w->loop, cf->client_header_timeout);
    w->tv_body = nicd_loop_common_tv(w->loop, cf->client_body_timeout);
    w->tv_send = nicd_loop_common_tv(w->loop, cf->send_timeout);
    w->tv_linger = nicd_loop_common_tv(w->loop, cf->lingering_timeout);

    nicd_ev_add(w->cmd_ev, NULL);
    nicd_ev_add(w->tick_ev, &tick);
    if (w->cycle->worker_init != NULL) {
        w->cycle->worker_init(w); /* Lua's scripts, before the first request */
    }
    listen_enable(w, 1);

    nicd_loop_run(w->loop);

    /* a fast stop leaves connections open: close them now */
    while ((c = w->conns) != NULL) {
        nicd_conn_close(c);
    }
    for (i = 0; i < w->nlogs; i++) {
        log_buf_free(&w->logs[i]);
    }
    free(w->logs);
    nicd_ofc_free(&w->ofc);
    nicd_buf_free(&w->path);
    if (w->cycle->worker_free != NULL) {
        w->cycle->worker_free(w);
    }
    nicd_tls_worker_free(w);
    nicd_buf_free(&w->scratch);
    nicd_buf_free(&w->logline);
    nicd_buf_free(&w->uri);
    nicd_buf_free(&w->reqpath);
    nicd_buf_free(&w->expand);
    nicd_buf_free(&w->hexpand);
    nicd_worker_pools_free(w);

    for (i = 0; i < w->nlisten; i++) {
        nicd_ev_free(w->listen_evs[i]);
    }
    nicd_ev_free(w->cmd_ev);
    nicd_ev_free(w->tick_ev);

    nicd_ev_free(w->resume_ev);
    nicd_loop_free(w->loop);
    w->loop = NULL;

    unused = write(w->notify_fd, &w, sizeof(w));
    (void) unused;
    return NULL;
}

/* a buffer for each access log file of the configuration */
static int
logs_init(nicd_worker_t *w)
{
    const nicd_conf_t *cf = w->cycle->conf;
    int                i;

    if (cf->naccess_paths == 0) {
        return 0;
    }
    w->logs = calloc((size_t) cf->naccess_paths, sizeof(nicd_logbuf_t));
    if (w->logs == NULL) {
        return -1;
    }
    w->nlogs = cf->naccess_paths;
    for (i = 0; i < w->nlogs; i++) {
        if (log_buf_init(&w->logs[i], w->cycle->access_logs[i],
                         cf->access_log_buffer)
            != 0) {
            return -1;
        }
        w->logs[i].gzip = cf->access_gzip[i];
    }
    return 0;
}

/*
 * Set up w (cycle, id, listen_fds, nlisten, notify_fd are set by the
 * caller) and start its thread with every signal blocked, so that signals
 * reach the master only.  Returns 0 or -1 (logged).
 */
int
nicd_worker_start(nicd_worker_t *w)
{
    const nicd_conf_t *cf = w->cycle->conf;
    sigset_t           all, old;
    int                i, rc, precise = snic_paces(&w->cycle->backend);
    char               why[160];

    w->cmd_fd[0] = w->cmd_fd[1] = -1;
    nicd_worker_setup(w);
    /* precise timers when the backend paces (event.c says why) */
    w->loop = nicd_loop_new(cf->event_loop, cf->event_method, precise, why,
                            sizeof(why));
    if (w->loop == NULL && cf->event_loop != NICD_LOOP_LIBEVENT) {
        if (w->id == 0) {
            log_error(LOG_WARN, 0,
                      "the %s event loop is not available (%s): "
                      "libevent's is used",
                      nicd_loop_name(cf->event_loop), why);
        }
        w->loop =
            nicd_loop_new(NICD_LOOP_LIBEVENT, NULL, precise, why, sizeof(why));
    }
    if (w->loop == NULL) {
        log_error(LOG_EMERG, 0, "%s", why);
        return -1;
    }
    if (w->id == 0) {
        log_error(LOG_INFO, 0, "event loop: %s", nicd_loop_method(w->loop));
    }
    if (pipe2(w->cmd_fd, O_CLOEXEC | O_NONBLOCK) != 0) {
        log_error(LOG_EMERG, errno, "pipe2() failed");
        goto err;
    }
    w->cmd_ev = nicd_ev_new(w->loop, w->cmd_fd[0],
                            NICD_EV_READ | NICD_EV_PERSIST, cmd_cb, w);
    w->tick_ev = nicd_ev_new(w->loop, -1, NICD_EV_PERSIST, tick_cb, w);
    w->resume_ev = nicd_ev_new(w->loop, -1, 0, resume_cb, w);
    w->listen_evs = calloc((size_t) w->nlisten, sizeof(nicd_ev_t *));
    if (w->cmd_ev == NULL || w->tick_ev == NULL || w->resume_ev == NULL
        || w->listen_evs == NULL) {
        log_error(LOG_EMERG, 0, "out of memory");
        goto err;
    }
    for (i = 0; i < w->nlisten; i++) {
        w->listen_evs[i] =
            nicd_ev_new(w->loop, w->listen_fds[i],
                        NICD_EV_READ | NICD_EV_PERSIST, accept_cb, w);
        if (w->listen_evs[i] == NULL) {
            log_error(LOG_EMERG, 0, "out of memory");
            goto err;
        }
    }
    w->stats =
        w->cycle->stats != NULL ? &w->cycle->stats[w->id] : &w->own_stats;
    if (nicd_ofc_init(&w->ofc, cf) != 0 || logs_init(w) != 0) {
        log_error(LOG_EMERG, 0, "out of memory");
        goto err;
    }

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = pthread_create(&w->thread, NULL, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        log_error(LOG_EMERG, rc, "pthread_create() failed");
        goto err;
    }
    return 0;

err:
    /* the events, then their loop; the caller frees w */
    for (i = 0; w->listen_evs != NULL && i < w->nlisten; i++) {
        nicd_ev_free(w->listen_evs[i]);
    }
    free(w->listen_evs);
    w->listen_evs = NULL;
    nicd_ev_free(w->cmd_ev);
    nicd_ev_free(w->tick_ev);
    nicd_ev_free(w->resume_ev);
    w->cmd_ev = w->tick_ev = w->resume_ev = NULL;
    nicd_loop_free(w->loop);
    w->loop = NULL;
    if (w->cmd_fd[0] != -1) {
        close(w->cmd_fd[0]);
        close(w->cmd_fd[1]);
    }
    return -1;
}

void
nicd_worker_command(nicd_worker_t *w, char cmd)
{
    ssize_t unused = write(w->cmd_fd[1], &cmd, 1);

    (void) unused;
}
