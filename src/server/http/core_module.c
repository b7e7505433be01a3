/*
 * The core module (nginx's ngx_http_core_module with the main and events
 * levels): its blocks ("http", "events", "server", "location"), roots,
 * server names, the worker and connection limits, and the send
 * backend's settings.  Its settings are the fields of nicd_conf_t and the
 * core's of nicd_loc_conf_t (conf.h); "listen" is listen.c's.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/size.h"
#include "server/conf/directive.h"
#include "server/conf/mime.h"
#include "server/core/event.h"
#include "server/http/listen.h"
#include "server/http/upstream.h"

static const char *
set_worker_threads(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;
    if (strcmp(a[0], "auto") == 0) {
        c->worker_threads = 0;
        return NULL;
    }
    return nicd_conf_positive(a[0], &c->worker_threads);
}

/*
 * events { use METHOD; }: io_uring (event_uring.c), or one of libevent's
 * methods on Linux (epoll, poll, select).  nginx's other methods are
 * other systems'.
 */
static const char *
use_method(nicd_conf_t *c, const char *m)
{
    static const char *const libevent_methods[] = {"epoll", "poll", "select"};
    size_t                   i;

    if (strcmp(m, "io_uring") == 0) {
        c->event_loop = NICD_LOOP_URING;
        c->event_method[0] = '\0';
        return NULL;
    }
    for (i = 0; i < sizeof(libevent_methods) / sizeof(*libevent_methods); i++) {
        if (strcmp(m, libevent_methods[i]) == 0) {
            c->event_loop = NICD_LOOP_LIBEVENT;
            snprintf(c->event_method, sizeof(c->event_method), "%s", m);
            return NULL;
        }
    }
    return nicd_conf_msg("invalid event type \"%s\"", m);
}

static const char *
set_use(parse_t *ps, const char **a, int n)
{
    (void) n;
    if (ps->conf->event_loop != -1) {
        return "is duplicate";
    }
    return use_method(ps->conf, a[0]);
}

static const char *
set_h2_recv_buffer(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;
    if (nicd_conf_size(a[0], &c->http2_recv_buffer_size) != NULL
        || c->http2_recv_buffer_size < 1024
        || c->http2_recv_buffer_size > 16 * 1024 * 1024) {
        return nicd_conf_msg("invalid value \"%s\" (1k to 16m)", a[0]);
    }
    return NULL;
}

static const char *
set_backend(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;
    if (snic_backend_find(a[0]) == NULL) {
        return nicd_conf_msg("unknown send backend \"%s\" (nicd -V lists them)",
                             a[0]);
    }
    return nicd_conf_str(&c->backend, a[0]);
}

/* nginx's "sendfile on|off": off means the copy backend */
static const char *
set_sendfile(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    int          on;
    const char  *err;

    (void) n;
    if ((err = nicd_conf_flag(a[0], &on)) != NULL) {
        return err;
    }
    return nicd_conf_str(&c->backend, on ? "sendfile" : "copy");
}

static const char *
set_open_file_cache(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    int          i;
    const char  *err;

    if (strcmp(a[0], "off") == 0) {
        c->open_file_cache_max = 0;
        return n > 1 ? "invalid parameter after \"off\"" : NULL;
    }
    c->open_file_cache_max = 0;
    for (i = 0; i < n; i++) {
        if (strncmp(a[i], "max=", 4) == 0) {
            if ((err = nicd_conf_positive(a[i] + 4, &c->open_file_cache_max))) {
                return err;
            }
        } else if (strncmp(a[i], "valid=", 6) == 0) {
            if ((err = nicd_conf_time(a[i] + 6, &c->open_file_cache_valid))) {
                return err;
            }
        } else if (strncmp(a[i], "inactive=", 9) == 0) {
            if ((err =
                     nicd_conf_time(a[i] + 9, &c->open_file_cache_inactive))) {
                return err;
            }
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
        }
    }
    if (c->open_file_cache_max == 0) {
        return "\"max\" parameter is required";
    }
    return NULL;
}

static const char *
set_pid(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;
    if (strcmp(a[0], "off") == 0) {
        free(c->pid);
        c->pid = NULL;
        return NULL;
    }
    return nicd_conf_str(&c->pid, a[0]);
}

/* "load_module FILE": nginx's dynamic modules are nginx's; nicd has its
 * own modules built in, so the line is taken with a notice, and a
 * directive of such a module is refused by name, as any unknown one */
static const char *
set_load_module(parse_t *ps, const char **a, int n)
{
    (void) n;
    log_error(LOG_NOTICE, 0,
              "load_module \"%s\" in %s:%d: nicd loads no nginx module; "
              "ignored",
              a[0], ps->name, ps->line);
    return NULL;
}

/* "env NAME[=VALUE]": VALUE is set before the workers start; a NAME alone
 * is kept, as nicd keeps its whole environment (docs/config.md) */
static const char *
set_env(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;

    if (a[0][0] == '\0' || a[0][0] == '=') {
        return nicd_conf_msg("invalid variable name \"%s\"", a[0]);
    }
    if (strchr(a[0], '=') == NULL) {
        return NULL;
    }
    c->env = nicd_conf_grow(c, c->env, c->nenv, sizeof(char *));
    if (c->env == NULL
        || (c->env[c->nenv] = nicd_conf_strdup(c, a[0])) == NULL) {
        return "out of memory";
    }
    c->nenv++;
    return NULL;
}

static const nicd_conf_enum_t ims_values[] = {{"off", NICD_IMS_OFF},
                                              {"exact", NICD_IMS_EXACT},
                                              {"before", NICD_IMS_BEFORE},
                                              {NULL, 0}};
static const nicd_conf_enum_t linger_modes[] = {{"off", NICD_LINGER_OFF},
                                                {"on", NICD_LINGER_ON},
                                                {"always", NICD_LINGER_ALWAYS},
                                                {NULL, 0}};

static const char *
set_root(parse_t *ps, const char **a, int n)
{
    nicd_loc_conf_t *l = ps->loc;
    int              alias = strcmp(ps->d->name, "alias") == 0;

    (void) n;
    if (l->root != NULL && !ps->override) {
        return l->alias == alias
                   ? "is duplicate"
                   : nicd_conf_msg("\"%s\" directive is duplicate, "
                                   "\"%s\" was specified earlier",
                                   ps->d->name, alias ? "root" : "alias");
    }
    if (alias && (l->kind == NICD_LOC_SERVER || l->kind == NICD_LOC_NAMED)) {
        return "is not allowed here";
    }
    if (strchr(a[0], '$') != NULL
        && !(alias
             && (l->kind == NICD_LOC_REGEX || l->kind == NICD_LOC_REGEX_CI))) {
        return nicd_conf_msg(
            "variables in \"%s\" are not supported (only regex "
            "captures in an alias of a regex location)",
            a[0]);
    }
    l->root = nicd_conf_strdup(ps->conf, a[0]);
    l->alias = alias;
    l->root_vars = strchr(a[0], '$') != NULL;
    return l->root == NULL ? "out of memory" : NULL;
}

/* server_name names a server (several add up, as in nginx); "~" makes a
 * regex; "" (no name) is accepted and matches requests without Host */
static const char *
set_server_name(parse_t *ps, const char **a, int n)
{
    nicd_server_conf_t *sv = nicd_conf_server(ps);
    int                 i;
    char                err[512];

    if (sv == NULL) {
        return "out of memory";
    }
    for (i = 0; i < n; i++) {
        sv->names =
            nicd_conf_grow(ps->conf, sv->names, sv->nnames, sizeof(char *));
        sv->name_re =
            nicd_conf_grow(ps->conf, sv->name_re, sv->nnames, sizeof(void *));
        if (sv->names == NULL || sv->name_re == NULL
            || (sv->names[sv->nnames] = nicd_conf_strdup(ps->conf, a[i]))
                   == NULL) {
            return "out of memory";
        }
        sv->name_re[sv->nnames] = NULL;
        if (a[i][0] == '~') {
            sv->name_re[sv->nnames] =
                nicd_conf_regex(ps->conf, a[i] + 1, 1, err, sizeof(err));
            if (sv->name_re[sv->nnames] == NULL) {
                return nicd_conf_msg("%s", err);
            }
        }
        sv->nnames++;
    }
    return NULL;
}

static const char *
set_max_ranges(parse_t *ps, const char **a, int n)
{
    char *end;
    long  v;

    (void) n;
    errno = 0;
    v = strtol(a[0], &end, 10);
    if (*a[0] == '\0' || *end != '\0' || errno != 0 || v < 0 || v > 1 << 16) {
        return nicd_conf_msg("invalid number \"%s\"", a[0]);
    }
    ps->loc->max_ranges = (int) v;
    return NULL;
}

static const char *
set_internal(parse_t *ps, const char **a, int n)
{
    (void) a;
    (void) n;
    if (ps->loc->kind == NICD_LOC_SERVER) {
        return "is not allowed here";
    }
    ps->loc->internal = 1;
    return NULL;
}

/* "types { TYPE EXT ...; }": one table for every server */
static const char *
types_line(parse_t *ps, const char **a, int n)
{
    int i;

    if (n < 2) {
        return nicd_conf_msg("a type without extensions (\"%s\")", a[0]);
    }
    for (i = 1; i < n; i++) {
        if (nicd_mime_add(ps->conf->types, a[i], a[0]) != 0) {
            return "out of memory";
        }
    }
    return NULL;
}

static const char *
set_types(parse_t *ps, const char **a, int n)
{
    (void) a;
    (void) n;
    if (ps->conf->types == NULL) {
        ps->conf->types = nicd_mime_new();
        if (ps->conf->types == NULL) {
            return "out of memory";
        }
    }
    ps->lines = types_line;
    return NULL;
}

/* "http {" and "events {": at the top level only */
static const char *
set_top_block(parse_t *ps, const char **a, int n)
{
    (void) a;
    (void) n;
    return ps->ctx == CTX_TOP ? NULL : "is not allowed here";
}

/* "location [=|~|~*|^~] PATH {" or "location @NAME {": its block's
 * directives go to a location of its own, inside the one at hand */
static const char *
set_location(parse_t *ps, const char **a, int n)
{
    nicd_conf_t     *c = ps->conf;
    nicd_loc_conf_t *l, *outer = ps->loc;
    const char      *mod = n == 2 ? a[0] : "";
    const char      *name = a[n - 1];
    char             where[512], err[512];
    int              kind;

    if (strcmp(mod, "") == 0) {
        kind = name[0] == '@' ? NICD_LOC_NAMED : NICD_LOC_PREFIX;
    } else if (strcmp(mod, "=") == 0) {
        kind = NICD_LOC_EXACT;
    } else if (strcmp(mod, "^~") == 0) {
        kind = NICD_LOC_NOREGEX;
    } else if (strcmp(mod, "~") == 0) {
        kind = NICD_LOC_REGEX;
    } else if (strcmp(mod, "~*") == 0) {
        kind = NICD_LOC_REGEX_CI;
    } else {
        return nicd_conf_error(ps, "invalid location modifier \"%s\"", mod);
    }
    if (outer->kind == NICD_LOC_EXACT || outer->kind == NICD_LOC_NAMED) {
        return nicd_conf_error(
            ps, "location \"%s\" cannot be inside the %s location \"%s\"", name,
            outer->kind == NICD_LOC_EXACT ? "exact" : "named", outer->name);
    }
    if (kind == NICD_LOC_NAMED && outer->kind != NICD_LOC_SERVER) {
        return nicd_conf_error(
            ps, "named location \"%s\" can be on the server level only", name);
    }
    if ((kind == NICD_LOC_PREFIX || kind == NICD_LOC_NOREGEX
         || kind == NICD_LOC_EXACT)
        && outer->kind != NICD_LOC_SERVER && outer->kind != NICD_LOC_REGEX
        && outer->kind != NICD_LOC_REGEX_CI
        && strncmp(name, outer->name, outer->name_len) != 0) {
        return nicd_conf_error(ps, "location \"%s\" is outside location \"%s\"",
                               name, outer->name);
    }
    l = nicd_conf_loc_new(c, kind);
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    if (l == NULL || (l->name = nicd_conf_strdup(c, name)) == NULL
        || (l->where = nicd_conf_strdup(c, where)) == NULL) {
        return "out of memory";
    }
    l->name_len = strlen(name);
    if (kind == NICD_LOC_REGEX || kind == NICD_LOC_REGEX_CI) {
        l->re = nicd_conf_regex(c, name, kind == NICD_LOC_REGEX_CI, err,
                                sizeof(err));
        if (l->re == NULL) {
            return nicd_conf_error(ps, "%s", err);
        }
    }
    l->parent = outer;
    l->srv = outer->srv;
    if (l->srv == NULL) {
        /* a location at the top level belongs to the implicit server */
        l->srv = nicd_conf_server(ps);
        if (l->srv == NULL) {
            return "out of memory";
        }
    }
    outer->locs = nicd_conf_grow(c, outer->locs, outer->nlocs, sizeof(l));
    if (outer->locs == NULL) {
        return "out of memory";
    }
    outer->locs[outer->nlocs++] = l;
    if (kind == NICD_LOC_NAMED) {
        nicd_server_conf_t *sv = l->srv;

        sv->named = nicd_conf_grow(c, sv->named, sv->nnamed, sizeof(l));
        if (sv->named == NULL) {
            return "out of memory";
        }
        sv->named[sv->nnamed++] = l;
    }
    ps->loc = l;
    return NULL;
}

/* "server {": a site of its own, its block's directives its settings */
static const char *
set_server(parse_t *ps, const char **a, int n)
{
    nicd_conf_t        *c = ps->conf;
    nicd_server_conf_t *sv;
    nicd_loc_conf_t    *l;
    char                where[512];

    (void) a;
    (void) n;
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    l = nicd_conf_loc_new(c, NICD_LOC_SERVER);
    sv = l == NULL ? NULL : nicd_conf_server_new(c, l, where);
    if (sv == NULL || (l->name = nicd_conf_strdup(c, "")) == NULL) {
        return "out of memory";
    }
    l->parent = c->http;
    l->where = sv->where;
    ps->srv = sv;
    ps->loc = l;
    return NULL;
}

static int
add_param(nicd_conf_t *c, const char *name, const char *value,
          const char *where)
{
    snic_param_t *p;
    char        **w;
    int           i;

    for (i = 0; i < c->nparams; i++) {
        if (strcmp(c->params[i].name, name) == 0) {
            /* a later setting wins */
            free((char *) c->params[i].value);
            free(c->param_where[i]);
            c->params[i].value = strdup(value);
            c->param_where[i] = strdup(where);
            return 0;
        }
    }
    p = realloc(c->params, sizeof(*p) * (size_t) (c->nparams + 1));
    if (p == NULL) {
        return -1;
    }
    c->params = p;
    w = realloc(c->param_where, sizeof(*w) * (size_t) (c->nparams + 1));
    if (w == NULL) {
        return -1;
    }
    c->param_where = w;
    c->params[c->nparams].name = strdup(name);
    c->params[c->nparams].value = strdup(value);
    c->param_where[c->nparams] = strdup(where);
    c->nparams++;
    return 0;
}

/* a send backend's setting ("nic_cache_size 4m"): a name the backends
 * make, so no table lists it; kept for the backend, with where it was
 * set, in the order read (a later one wins) */
static int
backend_param(parse_t *ps, const char *name, const char **a, int n,
              const char **msg)
{
    char where[512];

    if (!snic_backend_claims(name)) {
        return 0;
    }
    if (!(ps->ctx & (CTX_MAIN | CTX_HTTP))) {
        *msg = "is not allowed here (a send backend's settings apply to every "
               "server: put it in http {})";
        return 1;
    }
    if (n != 1) {
        *msg = "invalid number of arguments";
        return 1;
    }
    if (ps->line > 0) {
        snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    } else {
        snprintf(where, sizeof(where), "%s", ps->name);
    }
    if (add_param(ps->conf, name, a[0], where) != 0) {
        *msg = "out of memory";
    }
    return 1;
}

/* once read: each server's addresses, and what nothing set */
static const char *
core_postconfiguration(nicd_conf_t *c)
{
    static char err[512];

    if (nicd_listen_finish(c, err, sizeof(err)) != 0) {
        return err;
    }
    /* no "use": libevent's loop, or the one NICD_EVENTS names (a test
     * suite run on the other loop: docs/config.md) */
    if (c->event_loop == -1) {
        const char *env = getenv("NICD_EVENTS"), *bad;

        c->event_loop = NICD_LOOP_LIBEVENT;
        if (env != NULL && *env != '\0' && (bad = use_method(c, env)) != NULL) {
            snprintf(err, sizeof(err), "NICD_EVENTS: %s", bad);
            return err;
        }
    }
    if (c->backend == NULL) {
        c->backend = strdup(snic_backend_default()->name);
    }
    if (c->types == NULL) {
        c->types = nicd_mime_builtin();
    }
    if (c->backend == NULL || c->types == NULL) {
        return "out of memory";
    }
    return NULL;
}

#define CONF(f) offsetof(nicd_conf_t, f)
#define LOC(f)  offsetof(nicd_loc_conf_t, f)
#define MH      (CTX_MAIN | CTX_HTTP)
/* nicd keeps one value of these for every server: allowed in server {}
 * and location {} as nginx allows them, with a warning (docs/config.md) */
#define MHS (CTX_MAIN | CTX_HTTP | CTX_SRV | CTX_LOC | CTX_ONE)

/* the core's directives, its blocks among them */
static const directive_t core_directives[] = {
    {"worker_threads", CTX_MAIN, 1, 1, set_worker_threads, 0},
    {"worker_processes", CTX_MAIN, 1, 1, set_worker_threads, 0},
    {"worker_connections", CTX_MAIN, 1, 1, nicd_conf_slot_positive,
     CONF(worker_connections)},
    {"worker_rlimit_nofile", CTX_MAIN, 1, 1, nicd_conf_slot_positive,
     CONF(worker_rlimit_nofile)},
    {"http", CTX_MAIN, 0, 0, set_top_block, 0, CTX_HTTP},
    {"events", CTX_MAIN, 0, 0, set_top_block, 0, CTX_MAIN},
    {"server", CTX_HTTP, 0, 0, set_server, 0, CTX_SRV},
    {"location", CTX_SRV | CTX_LOC, 1, 2, set_location, 0, CTX_LOC},
    {"listen", CTX_SRV, 1, 8, nicd_listen_set, 0},
    {"server_name", CTX_SRV, 1, MAX_ARGS, set_server_name, 0},
    {"root", CTX_HSL, 1, 1, set_root, 0},
    {"alias", CTX_LOC, 1, 1, set_root, 0},
    {"default_type", CTX_HSL, 1, 1, nicd_conf_slot_str, LOC(default_type)},
    {"if_modified_since", CTX_HSL, 1, 1, nicd_conf_slot_enum,
     LOC(if_modified_since), 0, ims_values},
    {"etag", CTX_HSL, 1, 1, nicd_conf_slot_flag, LOC(etag)},
    {"max_ranges", CTX_HSL, 1, 1, set_max_ranges, 0},
    {"internal", CTX_LOC, 0, 0, set_internal, 0},
    {"gzip_vary", CTX_HSL, 1, 1, nicd_conf_slot_flag, LOC(gzip_vary)},
    {"send_backend", MH, 1, 1, set_backend, 0},
    {"sendfile", MHS, 1, 1, set_sendfile, 0},
    {"sendfile_max_chunk", MHS, 1, 1, nicd_conf_slot_size,
     CONF(sendfile_max_chunk)},
    {"client_header_timeout", MHS, 1, 1, nicd_conf_slot_msec,
     CONF(client_header_timeout)},
    {"client_body_timeout", MHS, 1, 1, nicd_conf_slot_msec,
     CONF(client_body_timeout)},
    {"send_timeout", MHS, 1, 1, nicd_conf_slot_msec, CONF(send_timeout)},
    {"lingering_close", MHS, 1, 1, nicd_conf_slot_enum, CONF(lingering_close),
     0, linger_modes},
    {"lingering_time", MHS, 1, 1, nicd_conf_slot_msec, CONF(lingering_time)},
    {"lingering_timeout", MHS, 1, 1, nicd_conf_slot_msec,
     CONF(lingering_timeout)},
    {"client_header_buffer_size", MHS, 1, 1, nicd_conf_slot_size,
     CONF(client_header_buffer_size)},
    {"client_max_body_size", MHS, 1, 1, nicd_conf_slot_size,
     CONF(client_max_body_size)},
    {"open_file_cache", MHS, 1, 3, set_open_file_cache, 0},
    {"open_file_cache_valid", MHS, 1, 1, nicd_conf_slot_msec,
     CONF(open_file_cache_valid)},
    {"open_file_cache_min_uses", MHS, 1, 1, nicd_conf_slot_positive,
     CONF(open_file_cache_min_uses)},
    {"open_file_cache_errors", MHS, 1, 1, nicd_conf_slot_flag,
     CONF(open_file_cache_errors)},
    {"merge_slashes", CTX_MAIN | CTX_HTTP | CTX_SRV | CTX_ONE, 1, 1,
     nicd_conf_slot_flag, CONF(merge_slashes)},
    {"pid", CTX_MAIN, 1, 1, set_pid, 0},
    {"http2_max_header_size", MH, 1, 1, nicd_conf_slot_size,
     CONF(http2_max_header_size)},
    {"http2_max_field_size", MH, 1, 1, nicd_conf_slot_size,
     CONF(http2_max_header_size)},
    {"http2_recv_buffer_size", MH, 1, 1, set_h2_recv_buffer, 0},
    /* nginx's housekeeping: nothing to do for nicd (docs/config.md) */
    {"tcp_nopush", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"tcp_nodelay", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"user", CTX_MAIN, 1, 2, nicd_conf_housekeeping, 0},
    {"daemon", CTX_MAIN, 1, 1, nicd_conf_slot_flag, CONF(daemon)},
    {"load_module", CTX_MAIN, 1, 1, set_load_module, 0},
    {"env", CTX_MAIN, 1, 1, set_env, 0},
    {"client_body_temp_path", CTX_HSL, 1, 4, nicd_upstream_slot_temp_path, 0},
    {"fastcgi_temp_path", CTX_HSL, 1, 4, nicd_upstream_slot_temp_path, 0},
    {"uwsgi_temp_path", CTX_HSL, 1, 4, nicd_upstream_slot_temp_path, 0},
    {"scgi_temp_path", CTX_HSL, 1, 4, nicd_upstream_slot_temp_path, 0},
    {"master_process", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"multi_accept", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"use", CTX_MAIN, 1, 1, set_use, 0},
    {"accept_mutex", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"pcre_jit", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"types_hash_max_size", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping,
     0},
    {"types_hash_bucket_size", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping,
     0},
    {"server_names_hash_bucket_size", MH, 1, 1, nicd_conf_housekeeping, 0},
    {"server_names_hash_max_size", MH, 1, 1, nicd_conf_housekeeping, 0},
    /* how nginx buffers and reads: nicd's send backends decide, and it
     * keeps no request body (docs/config.md) */
    {"aio", CTX_HSL, 1, 1, nicd_conf_housekeeping, 0},
    {"directio", CTX_HSL, 1, 1, nicd_conf_housekeeping, 0},
    {"output_buffers", CTX_HSL, 2, 2, nicd_conf_housekeeping, 0},
    {"postpone_output", CTX_HSL, 1, 1, nicd_conf_housekeeping, 0},
    {"client_body_buffer_size", CTX_HSL, 1, 1, nicd_conf_housekeeping, 0},
    {"types", MHS, 0, 0, set_types, 0, CTX_LINES},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_core_module = {
    .name = "core",
    .directives = core_directives,
    .unknown = backend_param,
    .postconfiguration = core_postconfiguration,
};
