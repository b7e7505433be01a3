/*
 * nicd: the master thread.
 *
 * It starts worker threads for each configuration generation and
 * handles signals as nginx does:
 *   SIGHUP   reload: a new generation of workers with the new
 *            configuration takes over the same listening sockets (the
 *            same descriptors, so no connection waiting in a backlog is
 *            lost), then the old workers close their idle connections
 *            and retire after the responses in progress;
 *   SIGUSR1  reopen the logs;
 *   SIGTERM, SIGINT  stop now;
 *   SIGQUIT  stop gracefully: in-flight responses finish.
 * Its state is one nicd_master_t, which the signal and notification
 * callbacks are given; no file-scope state.
 */

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "server/nicd/cycle.h"
#include "server/nicd/listening.h"
#include "server/nicd/master.h"

typedef struct nicd_worker_node_s {
    nicd_worker_t             *w;
    struct nicd_worker_node_s *next;
} nicd_worker_node_t;

typedef struct {
    const nicd_options_t *opts;
    nicd_listeners_t      listeners;
    nicd_worker_node_t   *workers;        /* every running worker thread */
    nicd_cycle_t         *current;        /* the newest generation */
    int                   generation;     /* its number */
    int                   notify_pipe[2]; /* a worker's exit, to the master */
    struct event_base    *base;
    int                   stopping;
} nicd_master_t;

/* Start the workers of cy.  Returns 0, or -1 with err (none started). */
static int
cycle_start(nicd_master_t *m, nicd_cycle_t *cy, char *err, size_t errlen)
{
    nicd_worker_t     **ws;
    nicd_worker_node_t *node;
    int                 i, j, started = 0;

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
        ws[i]->notify_fd = m->notify_pipe[1];
        ws[i]->nlisten = cy->conf->nlistens;
        ws[i]->listen_fds = calloc((size_t) cy->conf->nlistens, sizeof(int));
        if (ws[i]->listen_fds == NULL) {
            snprintf(err, errlen, "out of memory");
            goto err;
        }
        for (j = 0; j < cy->conf->nlistens; j++) {
            ws[i]->listen_fds[j] =
                nicd_listener_get(&m->listeners, &cy->conf->listens[j], i,
                                  cy->generation, err, errlen);
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
        node->next = m->workers;
        m->workers = node;
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
command_all(nicd_master_t *m, nicd_cycle_t *only, char cmd)
{
    nicd_worker_node_t *n;

    for (n = m->workers; n != NULL; n = n->next) {
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

/* env NAME=VALUE lines, for the workers to see */
static void
set_env(const nicd_conf_t *c)
{
    int   i;
    char *eq;

    for (i = 0; i < c->nenv; i++) {
        eq = strchr(c->env[i], '=');
        *eq = '\0';
        if (setenv(c->env[i], eq + 1, 1) != 0) {
            log_error(LOG_WARN, errno, "setenv(\"%s\") failed", c->env[i]);
        }
        *eq = '=';
    }
}

static void
reload(nicd_master_t *m)
{
    char          err[1024];
    nicd_conf_t  *conf;
    nicd_cycle_t *cy, *old = m->current;

    log_error(LOG_NOTICE, 0, "reconfiguring (SIGHUP)");
    conf = nicd_conf_load(m->opts, err, sizeof(err));
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
    set_env(conf);
    cy = nicd_cycle_create(conf, m->generation + 1, err, sizeof(err));
    if (cy == NULL) {
        log_error(LOG_EMERG, 0, "%s; the running configuration stays", err);
        return;
    }
    if (cycle_start(m, cy, err, sizeof(err)) != 0) {
        log_error(LOG_EMERG, 0, "%s; the running configuration stays", err);
        nicd_cycle_destroy(cy);
        return;
    }
    m->generation = cy->generation;
    m->current = cy;
    write_pid(cy->conf);
    command_all(m, old, 'r');
    nicd_listeners_say(&m->listeners, cy);
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
    nicd_master_t       *m = arg;
    nicd_worker_t       *w;
    nicd_worker_node_t **pp, *n;
    nicd_cycle_t        *cy;
    int                  oldest;

    (void) ev;
    while (read(fd, &w, sizeof(w)) == (ssize_t) sizeof(w)) {
        pthread_join(w->thread, NULL);
        for (pp = &m->workers; *pp != NULL; pp = &(*pp)->next) {
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

        if (--cy->alive == 0 && cy != m->current) {
            log_error(LOG_NOTICE, 0, "generation %d retired", cy->generation);
            nicd_cycle_destroy(cy);
        }
        /*
         * A socket may be closed only when no running worker can still
         * have it in its epoll set: one only an exited generation used.
         * When stopping, other workers may not have seen their command
         * yet, so the sockets are closed after the last one (in main).
         */
        if (!m->stopping) {
            oldest = m->current->generation;
            for (n = m->workers; n != NULL; n = n->next) {
                if (n->w->cycle->generation < oldest) {
                    oldest = n->w->cycle->generation;
                }
            }
            nicd_listeners_prune(&m->listeners, oldest);
        }
    }
    if (m->workers == NULL) {
        if (!m->stopping) {
            log_error(LOG_ALERT, 0, "all worker threads exited");
        }
        event_base_loopbreak(m->base);
    }
}

static void
signal_cb(evutil_socket_t sig, short ev, void *arg)
{
    nicd_master_t *m = arg;

    (void) ev;

    switch (sig) {
    case SIGHUP:
        if (!m->stopping) {
            reload(m);
        }
        break;
    case SIGUSR1:
        log_access_reopen_all();
        log_error_reopen();
        log_error(LOG_NOTICE, 0, "logs reopened (SIGUSR1)");
        break;
    case SIGQUIT:
        log_error(LOG_NOTICE, 0, "gracefully shutting down (SIGQUIT)");
        m->stopping = 1;
        command_all(m, NULL, 'q');
        break;
    case SIGTERM:
    case SIGINT:
        log_error(LOG_NOTICE, 0, "exiting (signal %d)", (int) sig);
        m->stopping = 1;
        command_all(m, NULL, 't');
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

/*
 * daemon on: the master goes on in a child of its own session, and the
 * command waits for its word, so that a start that fails (a port in use)
 * still fails the command with the message on the terminal, as nginx's.
 * Returns the descriptor to say "started" on, or -1 in the child when the
 * fork failed (then nicd stays in the foreground).
 */
static int
daemonize(void)
{
    int   p[2];
    char  c;
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) != 0) {
        nicd_emerg("pipe2() failed (%s)", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid == -1) {
        nicd_emerg("fork() failed (%s)", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid > 0) {
        close(p[1]);
        _exit(read(p[0], &c, 1) == 1 ? 0 : 1);
    }
    close(p[0]);
    setsid();
    return p[1];
}

/* the daemon has started: the waiting command exits 0, and the terminal
 * is let go (stderr too where the error log is a file) */
static void
daemon_started(int ready)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);

    if (null != -1) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        if (log_error_to_file()) {
            dup2(null, STDERR_FILENO);
        }
        close(null);
    }
    if (write(ready, "1", 1) != 1) {
        log_error(LOG_WARN, errno, "write() to the starting command failed");
    }
    close(ready);
}

int
nicd_master_run(const nicd_options_t *opts, nicd_conf_t *conf)
{
    int              ready = -1;
    static const int signals[] = {SIGHUP, SIGUSR1, SIGQUIT, SIGTERM, SIGINT};
    nicd_master_t    m;
    struct event    *sev[5], *nev;
    char             err[1024];
    nicd_cycle_t    *cy;
    int              i;

    memset(&m, 0, sizeof(m));
    m.opts = opts;
    if (log_error_open(conf->error_log, conf->error_level) != 0) {
        nicd_emerg("error_log \"%s\" cannot be opened: %s", conf->error_log,
                   strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    raise_nofile(conf);
    if (conf->daemon) {
        ready = daemonize();
    }
    set_env(conf);

    if (pipe2(m.notify_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        nicd_emerg("pipe2() failed (%s)", strerror(errno));
        return 1;
    }
    m.base = event_base_new();
    if (m.base == NULL) {
        nicd_emerg("event_base_new() failed");
        return 1;
    }

    cy = nicd_cycle_create(conf, 1, err, sizeof(err));
    if (cy == NULL) {
        nicd_emerg("%s", err);
        return 1;
    }
    if (cycle_start(&m, cy, err, sizeof(err)) != 0) {
        nicd_emerg("%s", err);
        return 1;
    }
    m.generation = cy->generation;
    m.current = cy;
    write_pid(cy->conf);
    if (ready != -1) {
        daemon_started(ready);
    }

    for (i = 0; i < 5; i++) {
        sev[i] = evsignal_new(m.base, signals[i], signal_cb, &m);
        event_add(sev[i], NULL);
    }
    nev = event_new(m.base, m.notify_pipe[0], EV_READ | EV_PERSIST, notify_cb,
                    &m);
    event_add(nev, NULL);

    log_error(LOG_NOTICE, 0,
              "nicd/%s serving \"%s\" with %d worker threads, "
              "send backend %s",
              NICD_VERSION, cy->conf->servers[0]->loc->root, cy->nworkers,
              cy->backend.ops->name);
    nicd_listeners_say(&m.listeners, cy);

    event_base_dispatch(m.base);

    for (i = 0; i < 5; i++) {
        event_free(sev[i]);
    }
    event_free(nev);
    event_base_free(m.base);
    if (m.current != NULL) {
        if (m.current->conf->pid != NULL) {
            unlink(m.current->conf->pid);
        }
        nicd_cycle_destroy(m.current);
    }
    nicd_listeners_free(&m.listeners);
    log_error(LOG_NOTICE, 0, "exit");
    return 0;
}
