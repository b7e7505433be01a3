/*
 * nicd: the master thread.
 *
 * It reads the configuration, owns the listening sockets, starts worker
 * threads and handles signals as nginx does:
 *   SIGHUP   reload: a new generation of workers with the new
 *            configuration takes over the same listening sockets (the
 *            same descriptors, so no connection waiting in a backlog is
 *            lost), then the old workers close their idle connections and retire
 *            after the responses in progress;
 *   SIGUSR1  reopen the logs;
 *   SIGTERM, SIGINT  stop now;
 *   SIGQUIT  stop gracefully: in-flight responses finish.
 */

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config.h"
#include "handler.h"
#include "http2.h"
#include "modules/modules.h"
#include "nicd.h"
#include "roots.h"

typedef struct {
    char *text; /* the listen directive's address */
    int   idx;  /* the worker slot it belongs to */
    int   fd;
    int   gen; /* newest generation using it */
} listener_t;

typedef struct worker_node_s {
    nicd_worker_t        *w;
    struct worker_node_s *next;
} worker_node_t;

static struct {
    const char *conf_file;
    const char *directives; /* -g */
    const char *root;
    const char *listen;
    const char *backend;
    const char *threads;
    int         test;
} opts;

static listener_t        *listeners;
static int                nlisteners;
static worker_node_t     *workers;
static nicd_cycle_t      *current;
static int                generation;
static int                notify_pipe[2];
static struct event_base *master;
static int                stopping;

static void
usage(FILE *out)
{
    fprintf(out, "usage: nicd [-c FILE] [-g 'DIRECTIVES'] [--root DIR] "
                 "[--listen HOST:PORT]\n"
                 "            [--threads N] [--backend NAME] [-t] [-V] [-h]\n"
                 "\n"
                 "  -c FILE            read the configuration from FILE\n"
                 "  -g 'DIRECTIVES'    add top-level directives (\"root www; "
                 "listen 8080;\")\n"
                 "  --root DIR         serve DIR (overrides the file)\n"
                 "  --listen HOST:PORT listen there, instead of the file's "
                 "listen directives\n"
                 "  --threads N        worker threads (default: one per CPU)\n"
                 "  --backend NAME     send backend (nicd -V lists them)\n"
                 "  -t                 test the configuration and exit\n"
                 "  -V, --version      print version, features and send "
                 "backends\n"
                 "  -h, --help         this text\n"
                 "\n"
                 "Without -c, nicd serves the directory of --root (default: "
                 "html) on\n127.0.0.1:8080.  Signals: HUP reload, USR1 reopen "
                 "logs, QUIT graceful stop,\nTERM/INT fast stop.\n");
}

static void
version(void)
{
    const snic_backend_t *const *b;

    printf("nicd version: nicd/%s\n", NICD_VERSION);
    printf("built with libevent %s (running %s)\n", LIBEVENT_VERSION,
           event_get_version());
    printf("features:%s\n", NICD_FEATURES);
    printf("send backends:\n");
    for (b = snic_backends; *b != NULL; b++) {
        snic_instance_t in;
        snic_options_t  opt = {0, NULL, 0};
        char            err[256];
        const char     *note = NULL;

        /* probed as at start: a backend that cannot work here says so */
        if ((*b)->notice != NULL
            && snic_instance_start(&in, *b, &opt, err, sizeof(err)) == 0) {
            note = snic_notice(&in);
            printf("  %-10s %s%s%s%s\n", (*b)->name, (*b)->description,
                   *b == snic_backend_default() ? " (default)" : "",
                   note != NULL ? "; unavailable here: " : "",
                   note != NULL ? note : "");
            snic_instance_stop(&in);
            continue;
        }
        printf("  %-10s %s%s\n", (*b)->name, (*b)->description,
               *b == snic_backend_default() ? " (default)" : "");
    }
}

/* The configuration from the file, -g and the flags, in that order. */
static nicd_conf_t *
load_conf(char *err, size_t errlen)
{
    nicd_conf_t *c = nicd_conf_new(nicd_modules);
    const char  *a[1];

    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (opts.conf_file != NULL
        && nicd_conf_parse_file(c, opts.conf_file, err, errlen) != 0) {
        goto err;
    }
    if (opts.directives != NULL
        && nicd_conf_parse_override(c, opts.directives, err, errlen) != 0) {
        goto err;
    }
    /* --root and --listen replace every server's */
    if ((opts.root != NULL && (c->root_override = strdup(opts.root)) == NULL)
        || (opts.listen != NULL
            && (c->listen_override = strdup(opts.listen)) == NULL)) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    if (opts.threads != NULL) {
        a[0] = opts.threads;
        if (nicd_conf_set(c, "worker_threads", a, 1, err, errlen) != 0) {
            goto err;
        }
    }
    if (opts.backend != NULL) {
        a[0] = opts.backend;
        if (nicd_conf_set(c, "send_backend", a, 1, err, errlen) != 0) {
            goto err;
        }
    }
    if (nicd_conf_finish(c, err, errlen) != 0) {
        goto err;
    }
    return c;

err:
    nicd_conf_free(c);
    return NULL;
}

static void
cycle_destroy(nicd_cycle_t *cy)
{
    snic_instance_stop(&cy->backend);
    nicd_tls_ctx_free(cy->tls);
    nicd_conf_close_roots(cy->conf);
    if (cy->stats != NULL) {
        free(cy->stats[0].srv);
    }
    free(cy->stats);
    free(cy->access_logs); /* the files stay open, shared by path */
    nicd_conf_free(cy->conf);
    free(cy);
}

/* the index of a backend setting in conf->params (it is there) */
static int
param_index(const nicd_conf_t *conf, const char *name)
{
    int i;

    for (i = 0; strcmp(conf->params[i].name, name) != 0; i++) {
    }
    return i;
}

/* what HTTP and its modules keep per worker thread (the cycle's hooks) */
static void
http_worker_init(nicd_worker_t *w)
{
    nicd_modules_worker_init(w);
}

static void
http_worker_free(nicd_worker_t *w)
{
    nicd_modules_worker_free(w);
    nicd_h2_worker_free(w);
    nicd_phases_worker_free(w);
}

/* Everything of a configuration but the workers.  NULL with err set. */
static nicd_cycle_t *
cycle_create(nicd_conf_t *conf, char *err, size_t errlen)
{
    nicd_cycle_t         *cy;
    const snic_backend_t *b;
    snic_options_t        opt;
    snic_param_t         *params = NULL;
    uint64_t             *srv;
    int                   i, n = 0;
    long                  cpus;

    cy = calloc(1, sizeof(*cy));
    if (cy == NULL) {
        snprintf(err, errlen, "out of memory");
        nicd_conf_free(conf);
        return NULL;
    }
    cy->conf = conf;
    if (nicd_conf_open_roots(conf, err, errlen) != 0) {
        goto err;
    }

    b = snic_backend_find(conf->backend);
    if (b == NULL) {
        snprintf(err, errlen, "unknown send backend \"%s\"", conf->backend);
        goto err;
    }
    /* directives of other backends stay in the file unused, so switching
     * send_backend alone compares backends */
    params = calloc((size_t) conf->nparams + 1, sizeof(*params));
    if (params == NULL) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    for (i = 0; i < conf->nparams; i++) {
        if (snic_backend_accepts(b, conf->params[i].name)) {
            params[n++] = conf->params[i];
        }
    }
    opt.max_chunk = conf->sendfile_max_chunk;
    opt.params = params;
    opt.nparams = n;
    if (snic_instance_start(&cy->backend, b, &opt, err, errlen) != 0) {
        /* the backend names the directive it refused: say where it is */
        for (i = 0; i < n; i++) {
            char quoted[128];

            snprintf(quoted, sizeof(quoted), "\"%s\"", params[i].name);
            if (strstr(err, quoted) != NULL) {
                size_t len = strlen(err);

                snprintf(err + len, errlen - len, " in %s",
                         conf->param_where[param_index(conf, params[i].name)]);
                break;
            }
        }
        goto err;
    }
    free(params);
    params = NULL;
    if (snic_notice(&cy->backend) != NULL) {
        log_error(LOG_WARN, 0, "send_backend %s: %s", b->name,
                  snic_notice(&cy->backend));
    }

    if (conf->nssl > 0) {
        cy->tls = nicd_tls_ctx_new(conf, err, errlen);
        if (cy->tls == NULL) {
            snic_instance_stop(&cy->backend);
            goto err;
        }
    }

    if (conf->naccess_paths > 0) {
        cy->access_logs =
            calloc((size_t) conf->naccess_paths, sizeof(nicd_logfile_t *));
        if (cy->access_logs == NULL) {
            snprintf(err, errlen, "out of memory");
            snic_instance_stop(&cy->backend);
            nicd_tls_ctx_free(cy->tls);
            goto err;
        }
    }
    for (i = 0; i < conf->naccess_paths; i++) {
        cy->access_logs[i] = log_access_open(conf->access_paths[i]);
        if (cy->access_logs[i] == NULL) {
            snprintf(err, errlen, "open() \"%s\" failed: %s",
                     conf->access_paths[i], strerror(errno));
            snic_instance_stop(&cy->backend);
            nicd_tls_ctx_free(cy->tls);
            free(cy->access_logs);
            goto err;
        }
    }

    cy->server_line_len = (size_t) snprintf(
        cy->server_line, sizeof(cy->server_line), "Server: %s\r\n",
        conf->server_tokens ? "nicd/" NICD_VERSION : "nicd");

    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cy->nworkers = conf->worker_threads > 0 ? conf->worker_threads
                                            : (cpus > 0 ? (int) cpus : 1);
    cy->http1 = &nicd_http1_conn; /* the protocols the core runs */
    cy->http2 = &nicd_http2_conn;
    cy->worker_init = http_worker_init;
    cy->worker_free = http_worker_free;
    cy->generation = ++generation;
    cy->started = (uint64_t) time(NULL);
    cy->stats = calloc((size_t) cy->nworkers, sizeof(nicd_stats_t));
    srv =
        calloc((size_t) cy->nworkers * (size_t) conf->nservers * NICD_SRV_STATS,
               sizeof(uint64_t));
    if (cy->stats == NULL || srv == NULL) {
        free(srv);
        free(cy->stats);
        cy->stats = NULL; /* counted in each worker's own, unread */
    } else {
        for (i = 0; i < cy->nworkers; i++) {
            cy->stats[i].srv =
                srv + (size_t) i * (size_t) conf->nservers * NICD_SRV_STATS;
        }
    }
    return cy;

err:
    free(params);
    nicd_conf_close_roots(conf);
    nicd_conf_free(conf);
    free(cy);
    return NULL;
}

static uint16_t
sockaddr_port(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET6) {
        return ntohs(((const struct sockaddr_in6 *) ss)->sin6_port);
    }
    return ntohs(((const struct sockaddr_in *) ss)->sin_port);
}

static listener_t *
listener_find(const char *text, int idx)
{
    int i;

    for (i = 0; i < nlisteners; i++) {
        if (listeners[i].fd != -1 && listeners[i].idx == idx
            && strcmp(listeners[i].text, text) == 0) {
            return &listeners[i];
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
    if (setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &l->lowat,
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

/*
 * The socket of worker slot idx for listen address l, reused when an
 * earlier generation had it.  With port 0, slot 0 gets a port from the
 * kernel and the other slots bind the same one.  Returns fd or -1.
 */
static int
listener_get(const nicd_listen_conf_t *l, int idx, char *err, size_t errlen)
{
    struct sockaddr_storage ss = l->addr;
    socklen_t               len;
    listener_t             *lp, *ls;
    int                     fd, one = 1;

    lp = listener_find(l->text, idx);
    if (lp != NULL) {
        lp->gen = generation;
        listener_options(lp->fd, l);
        return lp->fd;
    }

    if (sockaddr_port(&ss) == 0 && idx > 0) {
        lp = listener_find(l->text, 0);
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

    ls = realloc(listeners, sizeof(*ls) * (size_t) (nlisteners + 1));
    if (ls == NULL) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return -1;
    }
    listeners = ls;
    listeners[nlisteners].text = strdup(l->text);
    listeners[nlisteners].idx = idx;
    listeners[nlisteners].fd = fd;
    listeners[nlisteners].gen = generation;
    nlisteners++;
    return fd;
}

/* Close the sockets that no running generation uses. */
static void
listeners_prune(int oldest_alive)
{
    int i;

    for (i = 0; i < nlisteners; i++) {
        if (listeners[i].fd != -1 && listeners[i].gen < oldest_alive) {
            close(listeners[i].fd);
            listeners[i].fd = -1;
            free(listeners[i].text);
            listeners[i].text = NULL;
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

static void
say_listening(nicd_cycle_t *cy)
{
    struct sockaddr_storage ss;
    socklen_t               len;
    char                    host[INET6_ADDRSTRLEN];
    listener_t             *lp;
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
        lp = listener_find(cy->conf->listens[i].text, 0);
        len = sizeof(ss);
        if (lp == NULL
            || getsockname(lp->fd, (struct sockaddr *) &ss, &len) != 0) {
            continue;
        }
        scheme = cy->conf->listens[i].ssl ? "https" : "http";
        if (ss.ss_family == AF_INET6) {
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

/* Start the workers of cy.  Returns 0, or -1 with err (none started). */
static int
cycle_start(nicd_cycle_t *cy, char *err, size_t errlen)
{
    nicd_worker_t **ws;
    worker_node_t  *node;
    int             i, j, started = 0;

    ws = calloc((size_t) cy->nworkers, sizeof(*ws));
    if (ws == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }

    for (i = 0; i < cy->nworkers; i++) {
        ws[i] = calloc(1, sizeof(nicd_worker_t));
        if (ws[i] == NULL) {
            snprintf(err, errlen, "out of memory");
            goto err;
        }
        ws[i]->id = i;
        ws[i]->cycle = cy;
        ws[i]->notify_fd = notify_pipe[1];
        ws[i]->nlisten = cy->conf->nlistens;
        ws[i]->listen_fds = calloc((size_t) cy->conf->nlistens, sizeof(int));
        if (ws[i]->listen_fds == NULL) {
            snprintf(err, errlen, "out of memory");
            goto err;
        }
        for (j = 0; j < cy->conf->nlistens; j++) {
            ws[i]->listen_fds[j] =
                listener_get(&cy->conf->listens[j], i, err, errlen);
            if (ws[i]->listen_fds[j] == -1) {
                goto err;
            }
        }
    }

    for (i = 0; i < cy->nworkers; i++) {
        if (nicd_worker_start(ws[i]) != 0) {
            snprintf(err, errlen, "a worker thread could not start");
            goto err;
        }
        started++;
        node = malloc(sizeof(*node));
        if (node == NULL) {
            abort(); /* a running thread we cannot track */
        }
        node->w = ws[i];
        node->next = workers;
        workers = node;
        cy->alive++;
    }
    free(ws);
    return 0;

err:
    /* only reachable before any thread started, or after a failed start
     * (then the started ones are told to stop) */
    for (i = 0; i < cy->nworkers; i++) {
        if (i < started) {
            nicd_worker_command(ws[i], 't');
            continue;
        }
        if (ws[i] != NULL) {
            free(ws[i]->listen_fds);
            free(ws[i]);
        }
    }
    free(ws);
    return started > 0 ? 0 : -1;
}

static void
command_all(nicd_cycle_t *only, char cmd)
{
    worker_node_t *n;

    for (n = workers; n != NULL; n = n->next) {
        if (only == NULL || n->w->cycle == only) {
            nicd_worker_command(n->w, cmd);
        }
    }
}

static void
write_pid(const nicd_conf_t *c)
{
    FILE *f;

    if (c->pid == NULL) {
        return;
    }
    f = fopen(c->pid, "w");
    if (f == NULL) {
        log_error(LOG_ERR, errno, "fopen() \"%s\" failed", c->pid);
        return;
    }
    fprintf(f, "%ld\n", (long) getpid());
    fclose(f);
}

static void
reload(void)
{
    char          err[1024];
    nicd_conf_t  *conf;
    nicd_cycle_t *cy, *old = current;

    log_error(LOG_NOTICE, 0, "reconfiguring (SIGHUP)");
    conf = load_conf(err, sizeof(err));
    if (conf == NULL) {
        log_error(LOG_EMERG, 0, "%s; the running configuration stays", err);
        return;
    }
    if (log_error_open(conf->error_log, conf->error_level) != 0) {
        log_error(LOG_EMERG, errno,
                  "error_log \"%s\" cannot be opened; the "
                  "running configuration stays",
                  conf->error_log);
        nicd_conf_free(conf);
        return;
    }
    cy = cycle_create(conf, err, sizeof(err));
    if (cy == NULL) {
        log_error(LOG_EMERG, 0, "%s; the running configuration stays", err);
        return;
    }
    if (cycle_start(cy, err, sizeof(err)) != 0) {
        log_error(LOG_EMERG, 0, "%s; the running configuration stays", err);
        generation--;
        cycle_destroy(cy);
        return;
    }
    current = cy;
    write_pid(cy->conf);
    command_all(old, 'r');
    say_listening(cy);
    log_error(LOG_NOTICE, 0,
              "configuration reloaded (generation %d, %d "
              "worker threads, send backend %s)",
              cy->generation, cy->nworkers, cy->backend.ops->name);
}

/* A worker has exited: join it, and retire its generation if it was the
 * last. */
static void
notify_cb(evutil_socket_t fd, short ev, void *arg)
{
    nicd_worker_t  *w;
    worker_node_t **pp, *n;
    nicd_cycle_t   *cy;
    int             oldest;

    (void) ev;
    (void) arg;
    while (read(fd, &w, sizeof(w)) == (ssize_t) sizeof(w)) {
        pthread_join(w->thread, NULL);
        for (pp = &workers; *pp != NULL; pp = &(*pp)->next) {
            if ((*pp)->w == w) {
                n = *pp;
                *pp = n->next;
                free(n);
                break;
            }
        }
        close(w->cmd_fd[0]);
        close(w->cmd_fd[1]);
        cy = w->cycle;
        free(w->listen_evs);
        free(w->listen_fds);
        free(w);

        if (--cy->alive == 0 && cy != current) {
            log_error(LOG_NOTICE, 0, "generation %d retired", cy->generation);
            cycle_destroy(cy);
        }
        /*
         * A socket may be closed only when no running worker can still
         * have it in its epoll set: one only an exited generation used.
         * When stopping, other workers may not have seen their command
         * yet, so the sockets are closed after the last one (in main).
         */
        if (!stopping) {
            oldest = current->generation;
            for (n = workers; n != NULL; n = n->next) {
                if (n->w->cycle->generation < oldest) {
                    oldest = n->w->cycle->generation;
                }
            }
            listeners_prune(oldest);
        }
    }
    if (workers == NULL) {
        if (!stopping) {
            log_error(LOG_ALERT, 0, "all worker threads exited");
        }
        event_base_loopbreak(master);
    }
}

static void
signal_cb(evutil_socket_t sig, short ev, void *arg)
{
    (void) ev;
    (void) arg;

    switch (sig) {
    case SIGHUP:
        if (!stopping) {
            reload();
        }
        break;
    case SIGUSR1:
        log_access_reopen_all();
        log_error_reopen();
        log_error(LOG_NOTICE, 0, "logs reopened (SIGUSR1)");
        break;
    case SIGQUIT:
        log_error(LOG_NOTICE, 0, "gracefully shutting down (SIGQUIT)");
        stopping = 1;
        command_all(NULL, 'q');
        break;
    case SIGTERM:
    case SIGINT:
        log_error(LOG_NOTICE, 0, "exiting (signal %d)", (int) sig);
        stopping = 1;
        command_all(NULL, 't');
        break;
    }
}

static void
raise_nofile(const nicd_conf_t *c)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        return;
    }
    rl.rlim_cur = c->worker_rlimit_nofile > 0 ? (rlim_t) c->worker_rlimit_nofile
                                              : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        log_error(LOG_WARN, errno, "setrlimit(RLIMIT_NOFILE, %lu) failed",
                  (unsigned long) rl.rlim_cur);
    }
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"root", required_argument, NULL, 'r'},
        {"listen", required_argument, NULL, 'l'},
        {"threads", required_argument, NULL, 'n'},
        {"backend", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    static const int signals[] = {SIGHUP, SIGUSR1, SIGQUIT, SIGTERM, SIGINT};
    struct event    *sev[5], *nev;
    char             err[1024];
    nicd_conf_t     *conf;
    nicd_cycle_t    *cy;
    int              ch, i;

    while ((ch = getopt_long(argc, argv, "c:g:tVh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c': opts.conf_file = optarg; break;
        case 'g': opts.directives = optarg; break;
        case 't': opts.test = 1; break;
        case 'V': version(); return 0;
        case 'h': usage(stdout); return 0;
        case 'r': opts.root = optarg; break;
        case 'l': opts.listen = optarg; break;
        case 'n': opts.threads = optarg; break;
        case 'b': opts.backend = optarg; break;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "nicd: unexpected argument \"%s\"\n", argv[optind]);
        usage(stderr);
        return 2;
    }

    nicd_modules_init(); /* their hooks into the phases */
    conf = load_conf(err, sizeof(err));
    if (conf == NULL) {
        fprintf(stderr, "nicd: [emerg] %s\n", err);
        if (opts.test) {
            fprintf(stderr, "nicd: configuration file %s test failed\n",
                    opts.conf_file ? opts.conf_file : "(none)");
        }
        return 1;
    }
    if (opts.test) {
        /* the same checks as a start, without starting */
        cy = cycle_create(conf, err, sizeof(err));
        if (cy == NULL) {
            fprintf(stderr, "nicd: [emerg] %s\n", err);
            fprintf(stderr, "nicd: configuration file %s test failed\n",
                    opts.conf_file ? opts.conf_file : "(none)");
            return 1;
        }
        cycle_destroy(cy);
        fprintf(stderr,
                "nicd: the configuration file %s syntax is ok\n"
                "nicd: configuration file %s test is successful\n",
                opts.conf_file ? opts.conf_file : "(none)",
                opts.conf_file ? opts.conf_file : "(none)");
        return 0;
    }

    if (log_error_open(conf->error_log, conf->error_level) != 0) {
        fprintf(stderr,
                "nicd: [emerg] error_log \"%s\" cannot be opened: "
                "%s\n",
                conf->error_log, strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    raise_nofile(conf);

    if (pipe2(notify_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        log_error(LOG_EMERG, errno, "pipe2() failed");
        return 1;
    }
    master = event_base_new();
    if (master == NULL) {
        log_error(LOG_EMERG, 0, "event_base_new() failed");
        return 1;
    }

    cy = cycle_create(conf, err, sizeof(err));
    if (cy == NULL) {
        log_error(LOG_EMERG, 0, "%s", err);
        return 1;
    }
    if (cycle_start(cy, err, sizeof(err)) != 0) {
        log_error(LOG_EMERG, 0, "%s", err);
        return 1;
    }
    current = cy;
    write_pid(cy->conf);

    for (i = 0; i < 5; i++) {
        sev[i] = evsignal_new(master, signals[i], signal_cb, NULL);
        event_add(sev[i], NULL);
    }
    nev = event_new(master, notify_pipe[0], EV_READ | EV_PERSIST, notify_cb,
                    NULL);
    event_add(nev, NULL);

    log_error(LOG_NOTICE, 0,
              "nicd/%s serving \"%s\" with %d worker threads, "
              "send backend %s",
              NICD_VERSION, cy->conf->servers[0]->loc->root, cy->nworkers,
              cy->backend.ops->name);
    say_listening(cy);

    event_base_dispatch(master);

    for (i = 0; i < 5; i++) {
        event_free(sev[i]);
    }
    event_free(nev);
    event_base_free(master);
    if (current != NULL) {
        if (current->conf->pid != NULL) {
            unlink(current->conf->pid);
        }
        cycle_destroy(current);
    }
    listeners_prune(generation + 1);
    free(listeners);
    log_error(LOG_NOTICE, 0, "exit");
    return 0;
}
