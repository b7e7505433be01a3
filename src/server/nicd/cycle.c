/*
 * A configuration generation (nginx's cycle): the configuration read
 * from the file, -g and the flags, then made a running state (roots, the
 * send backend, TLS, access logs, counters) that its workers share.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "server/nicd/cycle.h"
#include "server/http/handler.h"
#include "server/http/http2.h"
#include "server/modules/modules.h"
#include "server/core/roots.h"
#include "server/http/phases.h"
#include "server/http/http.h"

void
nicd_emerg(const char *fmt, ...)
{
    char    msg[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "nicd: [emerg] %s\n", msg);
    if (log_error_to_file()) {
        log_error(LOG_EMERG, 0, "%s", msg);
    }
}

nicd_conf_t *
nicd_conf_load(const nicd_options_t *opts, char *err, size_t errlen)
{
    nicd_conf_t *c = nicd_conf_new(nicd_modules);
    const char  *a[1];

    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->dump = opts->dump;
    if (opts->conf_file != NULL
        && nicd_conf_parse_file(c, opts->conf_file, err, errlen) != 0) {
        goto err;
    }
    if (opts->directives != NULL
        && nicd_conf_parse_override(c, opts->directives, err, errlen) != 0) {
        goto err;
    }
    /* -e names the log where the file names none */
    if (c->error_log == NULL && opts->error_log != NULL
        && nicd_conf_str(&c->error_log, opts->error_log) != NULL) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    /* --root and --listen replace every server's */
    if ((opts->root != NULL && (c->root_override = strdup(opts->root)) == NULL)
        || (opts->listen != NULL
            && (c->listen_override = strdup(opts->listen)) == NULL)) {
        snprintf(err, errlen, "out of memory");
        goto err;
    }
    if (opts->threads != NULL) {
        a[0] = opts->threads;
        if (nicd_conf_set(c, "worker_threads", a, 1, err, errlen) != 0) {
            goto err;
        }
    }
    if (opts->backend != NULL) {
        a[0] = opts->backend;
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

void
nicd_cycle_destroy(nicd_cycle_t *cy)
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

nicd_cycle_t *
nicd_cycle_create(nicd_conf_t *conf, int generation, char *err, size_t errlen)
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

    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cy->nworkers = conf->worker_threads > 0 ? conf->worker_threads
                                            : (cpus > 0 ? (int) cpus : 1);
    cy->http1 = &nicd_http1_conn; /* the protocols the core runs */
    cy->http2 = &nicd_http2_conn;
    cy->worker_init = http_worker_init;
    cy->worker_free = http_worker_free;
    cy->generation = generation;
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
