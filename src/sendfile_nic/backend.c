/*
 * The backend table and the thin layer the server calls through.
 *
 * Backends register in snic_backends[] (NULL-terminated, default first) and
 * are chosen by name; the server never includes a backend's file.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "sendfile_nic/snic.h"

extern const snic_backend_t snic_backend_sendfile;
extern const snic_backend_t snic_backend_copy;
extern const snic_backend_t snic_backend_nic;
#if defined(HAVE_LIBURING)
extern const snic_backend_t snic_backend_uring;
#endif

const snic_backend_t *const snic_backends[] = {
    &snic_backend_sendfile,
    &snic_backend_copy,
    &snic_backend_nic,
#if defined(HAVE_LIBURING)
    &snic_backend_uring,
#endif
    NULL,
};

const snic_backend_t *
snic_backend_find(const char *name)
{
    const snic_backend_t *const *b;

    for (b = snic_backends; *b != NULL; b++) {
        if (strcmp((*b)->name, name) == 0) {
            return *b;
        }
    }
    return NULL;
}

const snic_backend_t *
snic_backend_default(void)
{
    return snic_backends[0];
}

int
snic_backend_accepts(const snic_backend_t *b, const char *name)
{
    const char *const *d;

    if (b->directives == NULL) {
        return 0;
    }
    for (d = b->directives; *d != NULL; d++) {
        if (strcmp(*d, name) == 0) {
            return 1;
        }
    }
    return 0;
}

int
snic_backend_report_format(const char *name)
{
    const snic_backend_t *const *b;
    size_t                       n;

    for (b = snic_backends; *b != NULL; b++) {
        n = strlen((*b)->name);
        if ((*b)->report == NULL || strncmp(name, (*b)->name, n) != 0) {
            continue;
        }
        if (strcmp(name + n, "_metrics") == 0) {
            return SNIC_REPORT_PROMETHEUS;
        }
        if (strcmp(name + n, "_status") == 0) {
            return SNIC_REPORT_JSON;
        }
    }
    return -1;
}

int
snic_backend_claims(const char *directive)
{
    const snic_backend_t *const *b;

    for (b = snic_backends; *b != NULL; b++) {
        if (snic_backend_accepts(*b, directive)) {
            return 1;
        }
    }
    return 0;
}

/*
 * Returns 0, or -1 with err set: a parameter the backend does not accept
 * is an error here, so a directive meant for another backend is not
 * silently ignored.
 */
int
snic_instance_start(snic_instance_t *in, const snic_backend_t *b,
                    const snic_options_t *opt, char *err, size_t errlen)
{
    int i;

    for (i = 0; i < opt->nparams; i++) {
        if (!snic_backend_accepts(b, opt->params[i].name)) {
            snprintf(err, errlen,
                     "\"%s\" is not a directive of send "
                     "backend \"%s\"",
                     opt->params[i].name, b->name);
            return -1;
        }
    }

    in->ops = b;
    in->state = NULL;

    if (b->init != NULL && b->init(opt, &in->state, err, errlen) != 0) {
        return -1;
    }
    return 0;
}

void
snic_instance_stop(snic_instance_t *in)
{
    if (in->ops != NULL && in->ops->fini != NULL) {
        in->ops->fini(in->state);
    }
    in->ops = NULL;
    in->state = NULL;
}

int
snic_send(snic_instance_t *in, snic_conn_t *c, const snic_send_t *req,
          size_t *sent)
{
    return in->ops->send(in->state, c, req, sent);
}

void
snic_conn_open(snic_instance_t *in, snic_conn_t *c)
{
    c->corked = 0;
    c->backend_data = NULL;
    if (in->ops->conn_open != NULL) {
        in->ops->conn_open(in->state, c);
    }
}

void
snic_conn_close(snic_instance_t *in, snic_conn_t *c)
{
    if (in->ops->conn_close != NULL) {
        in->ops->conn_close(in->state, c);
    }
    c->backend_data = NULL;
}

int
snic_paces(const snic_instance_t *in)
{
    return in->ops != NULL && in->ops->paces != NULL
           && in->ops->paces(in->state);
}

const char *
snic_notice(const snic_instance_t *in)
{
    return in->ops != NULL && in->ops->notice != NULL
               ? in->ops->notice(in->state)
               : NULL;
}
