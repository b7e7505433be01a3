/*
 * error_log at every level, as nginx's:
 *
 *   error_log PATH | stderr [LEVEL];   (several at a level)
 *
 * At the top level it is the error log (log_error_open, in master.c),
 * as before; inside http {} it is that too when no top-level line set
 * one.  At the http, server and location levels each line is also a
 * sink of the level (LEVEL: error by default, as nginx's): a request
 * answered there logs to that level's sinks (each taking the lines at
 * its level or above) instead of the error log, and a level without any
 * takes its enclosing level's.  The same PATH twice is two sinks of one
 * file, as nginx's (each line it takes is written twice).
 */

#include <errno.h>
#include <string.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/errlog.h"
#include "server/core/nicd.h"
#include "server/http/lookup.h"

typedef struct {
    log_sink_t *sinks; /* NULL: none at this level */
    int         nsinks;
} errlog_conf_t;

nicd_module_t nicd_http_errlog_module;

static void *
create_conf(nicd_conf_t *c)
{
    errlog_conf_t *l = nicd_conf_alloc(c, sizeof(*l));

    if (l != NULL) {
        memset(l, 0, sizeof(*l));
    }
    return l;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const errlog_conf_t *p = prev;
    errlog_conf_t       *l = conf;

    (void) c;
    NICD_MERGE_LIST(l, p, sinks, nsinks);
    return NULL;
}

static const char *
set_error_log(parse_t *ps, const char **a, int n)
{
    nicd_conf_t   *c = ps->conf;
    errlog_conf_t *l;
    int            level = LOG_ERR;

    if (n == 2 && (level = log_level_parse(a[1])) < 0) {
        return nicd_conf_msg("invalid log level \"%s\"", a[1]);
    }
    if ((ps->ctx & CTX_MAIN) || (ps->ctx == CTX_HTTP && c->error_log == NULL)) {
        /* the error log (nicd's: notice unless LEVEL says) */
        if (n == 2) {
            c->error_level = level;
        }
        if (nicd_conf_str(&c->error_log, a[0]) != NULL) {
            return "out of memory";
        }
        if (ps->ctx & CTX_MAIN) {
            return NULL;
        }
    }
    l = nicd_conf_module_loc(ps);
    l->sinks = nicd_conf_grow(c, l->sinks, l->nsinks, sizeof(log_sink_t));
    if (l->sinks == NULL
        || (l->sinks[l->nsinks].path = nicd_conf_strdup(c, a[0])) == NULL) {
        return "out of memory";
    }
    l->sinks[l->nsinks++].level = level;
    return NULL;
}

/* a level's files opened as a worker starts (as nginx opens its logs at
 * start, not at the first line), so that one that cannot be is said */
static int
open_sinks(const nicd_loc_conf_t *lc, const void *arg)
{
    const errlog_conf_t *l = NICD_LOC_CONF(lc, nicd_http_errlog_module);
    int                  i;

    (void) arg;
    for (i = 0; l != NULL && i < l->nsinks; i++) {
        if (log_sink_open(l->sinks[i].path) == -1) {
            log_error(LOG_ALERT, errno, "error_log \"%s\" cannot be opened",
                      l->sinks[i].path);
        }
    }
    return 0;
}

static void
errlog_worker_init(nicd_worker_t *w)
{
    (void) nicd_conf_any_level(w->cycle->conf, open_sinks, NULL);
}

/* the location whose error_log this thread writes to, and its sinks: a
 * worker thread serves one generation's configuration, so a location's
 * address stays its own while the thread lives.  A request asks three
 * or four times, going between its location and none (NULL): the last
 * location's sinks are remembered, so as not to look in its
 * configuration again, and where they are the ones in use (none, when no
 * level has an error_log of its own) the log is left alone. */
static __thread const nicd_loc_conf_t *in_use, *last_lc;
static __thread const log_sink_t      *sinks_in_use, *last_sinks;
static __thread int                    last_n;

void
nicd_errlog_use(const nicd_loc_conf_t *lc)
{
    const errlog_conf_t *l;
    const log_sink_t    *sinks = NULL;
    int                  n = 0;

    if (lc == in_use) {
        return;
    }
    in_use = lc;
    if (lc != NULL && lc == last_lc) {
        sinks = last_sinks;
        n = last_n;
    } else if (lc != NULL) {
        l = NICD_LOC_CONF(lc, nicd_http_errlog_module);
        if (l != NULL && l->nsinks > 0) {
            sinks = l->sinks;
            n = l->nsinks;
        }
        last_lc = lc;
        last_sinks = sinks;
        last_n = n;
    }
    if (sinks == sinks_in_use) {
        return;
    }
    sinks_in_use = sinks;
    log_error_to(sinks, n);
}

static const directive_t errlog_directives[] = {
    {"error_log", CTX_MAIN | CTX_HSL, 1, 2, set_error_log, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_errlog_module = {
    .name = "errlog",
    .directives = errlog_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .worker_init = errlog_worker_init,
};
