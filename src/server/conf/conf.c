/*
 * The configuration itself: its arena, the levels (http, server,
 * location) with each module's settings, the generic setters modules
 * list in their tables (nginx's ngx_conf_set_*_slot), and the merge of
 * every level into the one inside it.  The reader is file.c; the core's
 * directives are http/core_module.c's.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "util/buf.h"
#include "server/conf/conf.h"
#include "server/conf/directive.h"
#include "server/conf/mime.h"
#include "util/log.h"

/*
 * The settings of servers and locations are many small pieces: they are
 * allocated from the configuration's arena and freed with it, each block
 * with an optional cleanup (a compiled regex).
 */
typedef struct arena_s {
    struct arena_s *next;
    void (*cleanup)(void *p);
    void       *p;
    max_align_t data[];
} arena_t;

static void *
conf_alloc_cleanup(nicd_conf_t *c, size_t n, void (*cleanup)(void *), void *p)
{
    arena_t *a = calloc(1, sizeof(arena_t) + n);

    if (a == NULL) {
        return NULL;
    }
    a->next = c->arena;
    a->cleanup = cleanup;
    a->p = p;
    c->arena = a;
    return a->data;
}

void *
nicd_conf_alloc(nicd_conf_t *c, size_t n)
{
    return conf_alloc_cleanup(c, n, NULL, NULL);
}

void *
nicd_conf_named_object(nicd_conf_t *c, void ***list, int *n, const char *name,
                       size_t len, size_t size)
{
    char **obj;
    int    i;

    for (i = 0; i < *n; i++) {
        const char *have = *(char *const *) (*list)[i];

        if (strlen(have) == len && memcmp(have, name, len) == 0) {
            return (*list)[i];
        }
    }
    obj = nicd_conf_alloc(c, size);
    *list = nicd_conf_grow(c, *list, *n, sizeof(void *));
    if (obj == NULL || *list == NULL
        || (*obj = nicd_conf_alloc(c, len + 1)) == NULL) {
        return NULL;
    }
    memcpy(*obj, name, len);
    (*obj)[len] = '\0';
    (*list)[(*n)++] = obj;
    return obj;
}

int
nicd_conf_cleanup(nicd_conf_t *c, void (*fn)(void *), void *p)
{
    return conf_alloc_cleanup(c, 0, fn, p) != NULL ? 0 : -1;
}

char *
nicd_conf_strdup(nicd_conf_t *c, const char *s)
{
    size_t n = strlen(s) + 1;
    char  *d = nicd_conf_alloc(c, n);

    return d == NULL ? NULL : memcpy(d, s, n);
}

/* grow an arena array by one element (the old block stays until the end:
 * configurations are read once) */
void *
nicd_conf_grow(nicd_conf_t *c, void *arr, int n, size_t size)
{
    void *a = nicd_conf_alloc(c, size * (size_t) (n + 1));

    if (a != NULL && n > 0) {
        memcpy(a, arr, size * (size_t) n);
    }
    return a;
}

static void
re_cleanup(void *p)
{
    pcre2_code_free(p);
}

/*
 * Compile re (caseless with ci) for the configuration's lifetime, with
 * JIT where PCRE2 has it.  NULL with the error in err.
 */
void *
nicd_conf_regex(nicd_conf_t *c, const char *re, int ci, char *err,
                size_t errlen)
{
    pcre2_code *code;
    int         ec;
    PCRE2_SIZE  off;
    char        msg[256];

    code = pcre2_compile((PCRE2_SPTR) re, PCRE2_ZERO_TERMINATED,
                         ci ? PCRE2_CASELESS : 0, &ec, &off, NULL);
    if (code == NULL) {
        pcre2_get_error_message(ec, (PCRE2_UCHAR *) msg, sizeof(msg));
        snprintf(err, errlen, "pcre2_compile() failed: %s in \"%s\" at \"%s\"",
                 msg, re, re + off);
        return NULL;
    }
    (void) pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* optional */
    if (conf_alloc_cleanup(c, 0, re_cleanup, code) == NULL) {
        pcre2_code_free(code);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return code;
}

nicd_loc_conf_t *
nicd_conf_loc_new(nicd_conf_t *c, int kind)
{
    nicd_loc_conf_t *l = nicd_conf_alloc(c, sizeof(*l));
    int              i;

    if (l == NULL) {
        return NULL;
    }
    /* every module's own settings of this level */
    l->mconf = nicd_conf_alloc(c, sizeof(void *) * (size_t) (c->nmodules + 1));
    if (l->mconf == NULL) {
        return NULL;
    }
    for (i = 0; i < c->nmodules; i++) {
        if (c->modules[i]->create_loc_conf != NULL) {
            l->mconf[i] = c->modules[i]->create_loc_conf(c);
            if (l->mconf[i] == NULL) {
                return NULL;
            }
        }
    }
    l->kind = kind;
    l->root_fd = -1;
    l->alias = NICD_UNSET;
    l->etag = NICD_UNSET;
    l->if_modified_since = NICD_UNSET;
    l->max_ranges = NICD_UNSET;
    l->gzip_vary = NICD_UNSET;
    l->internal = 0;
    return l;
}

/* l takes what it does not set from p (NULL: the defaults), the core's
 * settings and each module's: NULL, or a message */
static const char *
loc_merge(nicd_conf_t *c, nicd_loc_conf_t *l, const nicd_loc_conf_t *p)
{
    const char *msg;
    int         i;

    if (l->root == NULL) {
        l->root = p != NULL ? p->root : "html";
        l->alias = p != NULL ? p->alias : 0;
        l->root_vars = p != NULL ? p->root_vars : 0;
        l->root_default = p != NULL ? p->root_default : 1;
    }
    NICD_MERGE(l, p, alias, 0);
    NICD_MERGE(l, p, etag, 1);
    NICD_MERGE(l, p, if_modified_since, NICD_IMS_EXACT);
    NICD_MERGE(l, p, max_ranges, 64);
    NICD_MERGE_PTR(l, p, default_type, "text/plain");
    NICD_MERGE(l, p, gzip_vary, 0);
    for (i = 0; i < c->nmodules; i++) {
        if (c->modules[i]->merge_loc_conf != NULL) {
            msg = c->modules[i]->merge_loc_conf(
                c, p != NULL ? p->mconf[i] : NULL, l->mconf[i]);
            if (msg != NULL) {
                return msg;
            }
        }
    }
    return NULL;
}

/* defaults */

nicd_conf_t *
nicd_conf_new(nicd_module_t *const *modules)
{
    nicd_conf_t *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        return NULL;
    }
    c->modules = modules;
    /* a module's place in the list indexes its settings (the list is
     * the same for every configuration: numbering again changes nothing) */
    for (c->nmodules = 0; modules != NULL && modules[c->nmodules] != NULL;
         c->nmodules++) {
        modules[c->nmodules]->index = c->nmodules;
    }
    c->http = nicd_conf_loc_new(c, NICD_LOC_SERVER);
    if (c->http == NULL) {
        free(c);
        return NULL;
    }
    c->internal_redirects = 10;
    c->worker_threads = 0;
    c->worker_connections = 4096;
    c->event_loop = -1;
    c->worker_rlimit_nofile = 0;
    c->access_log_buffer = 64 * 1024;
    c->access_log_flush = 1000;
    c->error_level = LOG_NOTICE;
    c->sendfile_max_chunk = 256 * 1024; /* docs/config.md: why not 2m */
    c->client_header_timeout = 60000;
    c->client_body_timeout = 60000;
    c->send_timeout = 60000;
    c->lingering_close = NICD_LINGER_ON;
    c->lingering_time = 30000;
    c->lingering_timeout = 5000;
    c->client_header_buffer_size = 1024;
    c->large_header_buffer_size = 8192;
    c->large_header_buffers = 4;
    c->client_max_body_size = 1024 * 1024;
    c->lua_time_limit = 1000;
    c->open_file_cache_max = 0;
    c->open_file_cache_valid = 60000;
    c->open_file_cache_inactive = 60000;
    c->open_file_cache_min_uses = 1;
    c->merge_slashes = 1;
    c->ssl.protocols = NICD_TLS_1_2 | NICD_TLS_1_3;
    c->ssl.ciphers = "HIGH:!aNULL:!MD5";
    c->ssl.session_timeout = 300000;
    c->ssl.session_tickets = 1;
    c->ssl.verify_depth = 1;
    c->http2_max_header_size = 0; /* none: large_client_header_buffers */
    c->http2_recv_buffer_size = 64 * 1024;
    return c;
}

void
nicd_conf_free(nicd_conf_t *c)
{
    int i;

    if (c == NULL) {
        return;
    }
    free(c->file);
    nicd_buf_free(&c->dump_text);
    for (i = 0; i < c->nlistens; i++) {
        free(c->listens[i].text);
        free(c->listens[i].where);
    }
    free(c->listens);
    free(c->error_log);
    free(c->backend);
    for (i = 0; i < c->nparams; i++) {
        free((char *) c->params[i].name);
        free((char *) c->params[i].value);
        free(c->param_where[i]);
    }
    free(c->params);
    free(c->param_where);
    nicd_mime_free(c->types);
    free(c->pid);
    free(c->root_override);
    free(c->listen_override);
    free(c->ssl_certificate);
    free(c->ssl_certificate_key);
    while (c->arena != NULL) {
        arena_t *a = c->arena;

        c->arena = a->next;
        if (a->cleanup != NULL) {
            a->cleanup(a->p);
        }
        free(a);
    }
    free(c);
}

/* directive setters: return NULL, or an error message */

static char msgbuf[512];

const char *
nicd_conf_msg(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msgbuf, sizeof(msgbuf), fmt, ap);
    va_end(ap);
    return msgbuf;
}

const char *
nicd_conf_str(char **dst, const char *v)
{
    char *s = strdup(v);

    if (s == NULL) {
        return "out of memory";
    }
    free(*dst);
    *dst = s;
    return NULL;
}

const char *
nicd_conf_flag(const char *v, int *out)
{
    if (strcmp(v, "on") == 0) {
        *out = 1;
    } else if (strcmp(v, "off") == 0) {
        *out = 0;
    } else {
        return nicd_conf_msg(
            "invalid value \"%s\", it must be \"on\" or \"off\"", v);
    }
    return NULL;
}

const char *
nicd_conf_positive(const char *v, int *out)
{
    char *end;
    long  n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno != 0 || n <= 0 || n > 1 << 30) {
        return nicd_conf_msg("invalid number \"%s\"", v);
    }
    *out = (int) n;
    return NULL;
}

const char *
nicd_conf_size(const char *v, size_t *out)
{
    if (nicd_parse_size(v, out) != 0) {
        return nicd_conf_msg("invalid size \"%s\"", v);
    }
    return NULL;
}

const char *
nicd_conf_time(const char *v, long *out)
{
    if (nicd_parse_msec(v, out) != 0) {
        return nicd_conf_msg("invalid time \"%s\"", v);
    }
    return NULL;
}

/* the server {} at hand; at the top level, the implicit one (made on
 * first use: nicd's one-site form, "listen" and "location" at the top) */
nicd_server_conf_t *
nicd_conf_server_new(nicd_conf_t *c, nicd_loc_conf_t *loc, const char *where)
{
    nicd_server_conf_t *srv = nicd_conf_alloc(c, sizeof(*srv)), **all;

    all = nicd_conf_grow(c, c->servers, c->nservers, sizeof(*all));
    if (srv == NULL || all == NULL
        || (srv->where = nicd_conf_strdup(c, where)) == NULL) {
        return NULL;
    }
    srv->loc = loc;
    srv->index = c->nservers;
    loc->srv = srv;
    all[c->nservers++] = srv;
    c->servers = all;
    return srv;
}

nicd_server_conf_t *
nicd_conf_server(parse_t *ps)
{
    nicd_conf_t        *c = ps->conf;
    nicd_server_conf_t *srv;
    int                 i;

    if (ps->srv != NULL) {
        return ps->srv;
    }
    for (i = 0; i < c->nservers; i++) {
        if (c->servers[i]->implicit) {
            return c->servers[i];
        }
    }
    srv = nicd_conf_server_new(c, c->http, "the top level");
    if (srv != NULL) {
        srv->implicit = 1;
    }
    return srv;
}

/* the settings a CTX_LOC directive writes: the location's, the server's
 * or the http level's */
static int
loc_level(const directive_t *d)
{
    return (d->ctx & CTX_LOC) && !(d->ctx & CTX_ONE);
}

/* the settings a generic setter writes: the module's at the level being
 * read, the level's own (a core directive), or nicd_conf_t */
static void *
slot_base(parse_t *ps)
{
    if (!loc_level(ps->d)) {
        return ps->conf;
    }
    return ps->module != NULL && ps->module->create_loc_conf != NULL
               ? nicd_conf_module_loc(ps)
               : (void *) ps->loc;
}

void *
nicd_conf_module_loc(parse_t *ps)
{
    /* an if {} block holds the rewrite module's rules alone */
    return ps->loc->mconf != NULL ? ps->loc->mconf[ps->module->index] : NULL;
}

#define SLOT(ps, type) ((type *) ((char *) slot_base(ps) + (ps)->d->offset))

const char *
nicd_conf_slot_flag(parse_t *ps, const char **a, int n)
{
    (void) n;
    return nicd_conf_flag(a[0], SLOT(ps, int));
}

/* one of the names of the directive's table (post), as its value:
 * nginx's ngx_conf_set_enum_slot */
const char *
nicd_conf_slot_enum(parse_t *ps, const char **a, int n)
{
    const nicd_conf_enum_t *e = ps->d->post;
    char                    names[256];
    size_t                  len = 0;

    (void) n;
    for (; e->name != NULL; e++) {
        if (strcmp(a[0], e->name) == 0) {
            *SLOT(ps, int) = e->value;
            return NULL;
        }
    }
    for (e = ps->d->post; e->name != NULL && len < sizeof(names); e++) {
        len += (size_t) snprintf(names + len, sizeof(names) - len, "%s\"%s\"",
                                 e == ps->d->post        ? ""
                                 : (e + 1)->name == NULL ? " or "
                                                         : ", ",
                                 e->name);
    }
    return nicd_conf_msg("invalid value \"%s\", it must be %s", a[0], names);
}

/* a whole number within the directive's bounds (nginx's
 * ngx_conf_check_num_bounds) */
const char *
nicd_conf_slot_num(parse_t *ps, const char **a, int n)
{
    const nicd_conf_bounds_t *b = ps->d->post;
    char                     *end;
    long                      v;

    (void) n;
    errno = 0;
    v = strtol(a[0], &end, 10);
    if (*a[0] == '\0' || *end != '\0' || errno != 0) {
        return nicd_conf_msg("invalid number \"%s\"", a[0]);
    }
    if (v < b->min || v > b->max) {
        return nicd_conf_msg("value must be between %ld and %ld", b->min,
                             b->max);
    }
    *SLOT(ps, int) = (int) v;
    return NULL;
}

const char *
nicd_conf_slot_msec(parse_t *ps, const char **a, int n)
{
    (void) n;
    return nicd_conf_time(a[0], SLOT(ps, long));
}

const char *
nicd_conf_slot_size(parse_t *ps, const char **a, int n)
{
    (void) n;
    return nicd_conf_size(a[0], SLOT(ps, size_t));
}

const char *
nicd_conf_slot_positive(parse_t *ps, const char **a, int n)
{
    (void) n;
    return nicd_conf_positive(a[0], SLOT(ps, int));
}

/* a string of the location's settings (arena) or of nicd_conf_t (heap) */
const char *
nicd_conf_slot_str(parse_t *ps, const char **a, int n)
{
    char *v;

    (void) n;
    if (loc_level(ps->d)) {
        v = nicd_conf_strdup(ps->conf, a[0]);
        if (v == NULL) {
            return "out of memory";
        }
        *SLOT(ps, char *) = v;
        return NULL;
    }
    return nicd_conf_str(SLOT(ps, char *), a[0]);
}

const char *
nicd_conf_slot_types(parse_t *ps, const char **a, int n)
{
    nicd_types_t *l = SLOT(ps, nicd_types_t);
    char         *p;
    int           i;

    l->type = nicd_conf_alloc(ps->conf, sizeof(char *) * (size_t) n);
    if (l->type == NULL) {
        return "out of memory";
    }
    for (i = 0; i < n; i++) {
        if ((l->type[i] = p = nicd_conf_strdup(ps->conf, a[i])) == NULL) {
            return "out of memory";
        }
        for (; *p != '\0'; p++) {
            *p = (char) tolower((unsigned char) *p);
        }
    }
    l->n = n;
    return NULL;
}

int
nicd_types_has(const nicd_types_t *l, const char *t, size_t tlen)
{
    size_t len = 0;
    int    i;

    while (len < tlen && t[len] != ';' && t[len] != ' ') {
        len++;
    }
    for (i = 0; i < l->n; i++) {
        if ((l->type[i][0] == '*' && l->type[i][1] == '\0')
            || (strlen(l->type[i]) == len
                && strncasecmp(l->type[i], t, len) == 0)) {
            return 1;
        }
    }
    return 0;
}

int
nicd_types_html_or(const nicd_types_t *l, const char *t, size_t tlen)
{
    return (tlen >= 9 && strncasecmp(t, "text/html", 9) == 0
            && (tlen == 9 || t[9] == ';' || t[9] == ' '))
           || nicd_types_has(l, t, tlen);
}

/* a location's content handler: one a location */
const char *
nicd_conf_handler(parse_t *ps, nicd_content_pt h, const char *name)
{
    nicd_loc_conf_t *l = ps->loc;

    if (l->kind == NICD_LOC_SERVER) {
        return "is not allowed here (only in a location)";
    }
    if (l->handler != NULL) {
        return nicd_conf_msg("is duplicate: the location already has \"%s\"",
                             l->handler_name);
    }
    l->handler = h;
    l->handler_name = nicd_conf_strdup(ps->conf, name);
    return l->handler_name == NULL ? "out of memory" : NULL;
}

/* accepted for nginx compatibility, meaning nothing to nicd: said once
 * at info level (docs/config.md lists them) */
const char *
nicd_conf_housekeeping(parse_t *ps, const char **a, int n)
{
    (void) a;
    (void) n;
    log_error(LOG_INFO, 0, "\"%s\" means nothing to nicd, ignored in %s:%d",
              ps->d->name, ps->name, ps->line);
    return NULL;
}

/* l takes what it does not set from p (NULL: the defaults): 0, or -1
 * with err naming the level */
static int
merge_level(nicd_conf_t *c, nicd_loc_conf_t *l, const nicd_loc_conf_t *p,
            char *err, size_t errlen)
{
    const char *msg = loc_merge(c, l, p);

    if (msg == NULL) {
        return 0;
    }
    if (l->where != NULL && l->name != NULL) {
        snprintf(err, errlen, "%s in location \"%s\" in %s", msg, l->name,
                 l->where);
    } else {
        snprintf(err, errlen, "%s", msg);
    }
    return -1;
}

/* every location takes what it does not set from the one around it: 0,
 * or -1 with err */
static int
merge_tree(nicd_conf_t *c, nicd_loc_conf_t *l, const char *root_override,
           char *err, size_t errlen)
{
    int i;

    if (root_override != NULL && l->kind == NICD_LOC_SERVER) {
        l->root = (char *) root_override;
        l->alias = 0;
        l->root_vars = 0;
    }
    for (i = 0; i < l->nlocs; i++) {
        if (merge_level(c, l->locs[i], l, err, errlen) != 0
            || merge_tree(c, l->locs[i], NULL, err, errlen) != 0) {
            return -1;
        }
    }
    return 0;
}

static void
each_below(nicd_loc_conf_t *l, void (*fn)(nicd_loc_conf_t *lc, void *arg),
           void            *arg)
{
    int i;

    fn(l, arg);
    for (i = 0; i < l->nlocs; i++) {
        each_below(l->locs[i], fn, arg);
    }
}

void
nicd_conf_each_level(nicd_conf_t *c, void (*fn)(nicd_loc_conf_t *lc, void *arg),
                     void        *arg)
{
    int i;

    each_below(c->http, fn, arg);
    for (i = 0; i < c->nservers; i++) {
        if (c->servers[i]->loc != c->http) {
            each_below(c->servers[i]->loc, fn, arg);
        }
    }
}

/*
 * Every level takes what it does not set from the one around it, then
 * each module finishes what it owns (the core's listens first, as the
 * module list puts it first).
 */
int
nicd_conf_finish(nicd_conf_t *c, char *err, size_t errlen)
{
    int k;

    if (merge_level(c, c->http, NULL, err, errlen) != 0) {
        return -1;
    }
    if (c->root_override != NULL) {
        c->http->root = c->root_override;
        c->http->alias = 0;
    }
    if (merge_tree(c, c->http, c->root_override, err, errlen) != 0) {
        return -1;
    }
    for (k = 0; k < c->nservers; k++) {
        if (!c->servers[k]->implicit
            && (merge_level(c, c->servers[k]->loc, c->http, err, errlen) != 0
                || merge_tree(c, c->servers[k]->loc, c->root_override, err,
                              errlen)
                       != 0)) {
            return -1;
        }
    }
    for (k = 0; k < c->nmodules; k++) {
        const char *msg = c->modules[k]->postconfiguration != NULL
                              ? c->modules[k]->postconfiguration(c)
                              : NULL;

        if (msg != NULL) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
    }
    return 0;
}

/* finding a server and a location for a request */

size_t
nicd_server_name_match(const char *p, const char *h, size_t len)
{
    size_t plen = strlen(p);

    if (plen == len && strncasecmp(p, h, len) == 0) {
        return 3 * 256 + 255; /* exact */
    }
    if (p[0] == '*' && p[1] == '.' && len > plen - 1
        && strncasecmp(h + len - (plen - 1), p + 1, plen - 1) == 0) {
        return 2 * 256 + (plen > 255 ? 255 : plen);
    }
    if (p[0] == '.'
        && ((len == plen - 1 && strncasecmp(h, p + 1, len) == 0)
            || (len > plen && strncasecmp(h + len - plen, p, plen) == 0))) {
        return 2 * 256 + (plen > 255 ? 255 : plen);
    }
    if (plen >= 2 && p[plen - 1] == '*' && p[plen - 2] == '.' && len > plen - 1
        && strncasecmp(h, p, plen - 1) == 0) {
        return 1 * 256 + (plen > 255 ? 255 : plen);
    }
    return 0;
}
