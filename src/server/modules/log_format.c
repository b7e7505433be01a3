/*
 * log_format NAME [escape=default|json|none] STRING ...;  and the access
 * log lines it shapes (nginx's ngx_http_log_module).  "combined" is
 * built in, as nginx's.
 *
 * A format is compiled once into literal pieces and variables.  A line
 * is rendered when its response is answered: what the request says then
 * (address, time, request line, headers) goes in at once; what is known
 * only once the response has gone (status, body bytes, request time)
 * goes in as a marker, a byte 0x01 and the variable's letter (escaped
 * values never hold a 0x01), filled in by nicd_log_fill() when the last
 * byte is sent (HTTP/1.1), or at once where the protocol knows them
 * already (HTTP/2 logs a stream when it closes).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/logcache.h"
#include "server/conf/directive.h"
#include "server/http/lookup.h"
#include "server/http/handler.h"
#include "server/http/variables.h"
#include "server/http/http.h"
#include "server/http/phases.h"

enum {
    V_LITERAL = 0,
    V_REMOTE_ADDR,
    V_REMOTE_USER,
    V_TIME_LOCAL,
    V_TIME_ISO8601,
    V_MSEC,
    V_REQUEST,
    V_REQUEST_METHOD,
    V_REQUEST_URI,
    V_URI,
    V_ARGS,
    V_SERVER_PROTOCOL,
    V_HOST,
    V_SERVER_NAME,
    V_SCHEME,
    V_HTTP,      /* $http_NAME: a request header */
    V_SENT_HTTP, /* $sent_http_NAME: a response header */
    V_VAR,       /* any other: the registry's (a map's, $cookie_NAME...) */
    /* known once the response is sent: markers */
    V_STATUS,
    V_BODY_BYTES,
    V_BYTES_SENT,
    V_REQUEST_TIME
};

#define MARK NICD_LOG_MARK

typedef struct {
    int              var;
    const char      *text; /* V_LITERAL: the text; V_HTTP: the header name */
    size_t           len;
    const nicd_cv_t *cv; /* V_VAR: the variable, as a template */
} piece_t;

struct nicd_log_format_s {
    char    *name;
    int      escape; /* 0 default, 1 json, 2 none */
    piece_t *pieces;
    int      npieces;
};

static const struct {
    const char *name;
    int         var;
} vars[] = {
    {"remote_addr", V_REMOTE_ADDR},
    {"remote_user", V_REMOTE_USER},
    {"time_local", V_TIME_LOCAL},
    {"time_iso8601", V_TIME_ISO8601},
    {"msec", V_MSEC},
    {"request", V_REQUEST},
    {"request_method", V_REQUEST_METHOD},
    {"request_uri", V_REQUEST_URI},
    {"uri", V_URI},
    {"document_uri", V_URI},
    {"args", V_ARGS},
    {"query_string", V_ARGS},
    {"server_protocol", V_SERVER_PROTOCOL},
    {"host", V_HOST},
    {"server_name", V_SERVER_NAME},
    {"scheme", V_SCHEME},
    {"status", V_STATUS},
    {"body_bytes_sent", V_BODY_BYTES},
    {"bytes_sent", V_BYTES_SENT},
    {"request_time", V_REQUEST_TIME},
};

/* the marker letters of the late variables, by var - V_STATUS */
static const char late_letter[] = "sbBt";

/* a variable of the registry, as a template of itself ("${name}"): its
 * name is looked up once the whole configuration is read (a map may come
 * after the log_format), an unknown one failing it, as nginx's */
static const nicd_cv_t *
var_of(nicd_conf_t *c, const char *name, size_t n, const char *where)
{
    char        tmpl[256];
    const char *err = NULL;

    if (n + 4 > sizeof(tmpl)) {
        return NULL;
    }
    snprintf(tmpl, sizeof(tmpl), "${%.*s}", (int) n, name);
    return nicd_cv_compile(c, tmpl, where, &err);
}

static const char *
compile(nicd_conf_t *c, nicd_log_format_t *f, const char *s, const char *where)
{
    const char *p = s, *q;
    piece_t     pc;
    size_t      n, i;

    while (*p != '\0') {
        memset(&pc, 0, sizeof(pc));
        if (*p != '$') {
            q = strchr(p, '$');
            n = q == NULL ? strlen(p) : (size_t) (q - p);
            pc.var = V_LITERAL;
            pc.text = p;
            pc.len = n;
            p += n;
        } else {
            int brace = p[1] == '{';

            p += 1 + brace;
            for (n = 0; (p[n] >= 'a' && p[n] <= 'z') || p[n] == '_'
                        || (p[n] >= '0' && p[n] <= '9');
                 n++) {
            }
            if (n == 0 || (brace && p[n] != '}')) {
                return nicd_conf_msg("invalid variable name in \"%s\"", s);
            }
            if (n > 5 && strncmp(p, "http_", 5) == 0) {
                pc.var = V_HTTP;
                pc.text = p + 5;
                pc.len = n - 5;
            } else if (n > 10 && strncmp(p, "sent_http_", 10) == 0) {
                pc.var = V_SENT_HTTP;
                pc.text = p + 10;
                pc.len = n - 10;
                /* so responses keep their fields (variables.c) */
                if (nicd_var_index(c, p, n) < 0) {
                    return "out of memory";
                }
            } else {
                for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
                    if (strlen(vars[i].name) == n
                        && strncmp(vars[i].name, p, n) == 0) {
                        pc.var = vars[i].var;
                        break;
                    }
                }
                if (pc.var == V_LITERAL) {
                    /* the registry's: its name is looked up at the end */
                    pc.var = V_VAR;
                    if ((pc.cv = var_of(c, p, n, where)) == NULL) {
                        return "out of memory";
                    }
                }
            }
            p += n + (size_t) brace;
        }
        f->pieces = nicd_conf_grow(c, f->pieces, f->npieces, sizeof(pc));
        if (f->pieces == NULL) {
            return "out of memory";
        }
        f->pieces[f->npieces++] = pc;
    }
    return NULL;
}

static const char combined[] =
    "$remote_addr - $remote_user [$time_local] \"$request\" $status "
    "$body_bytes_sent \"$http_referer\" \"$http_user_agent\"";

/* the log format NAME (defined earlier, or "combined"), or NULL */
static const struct nicd_log_format_s *
nicd_log_format_find(nicd_conf_t *c, const char *name)
{
    int i;

    for (i = 0; i < c->nlog_formats; i++) {
        if (strcmp(c->log_formats[i]->name, name) == 0) {
            return c->log_formats[i];
        }
    }
    if (strcmp(name, "combined") == 0) {
        /* made on first use, as if the file had said it */
        nicd_log_format_t  *f = nicd_conf_alloc(c, sizeof(*f));
        nicd_log_format_t **all;

        all = nicd_conf_grow(c, c->log_formats, c->nlog_formats, sizeof(f));
        if (f == NULL || all == NULL
            || (f->name = nicd_conf_strdup(c, "combined")) == NULL
            || compile(c, f, combined, "log_format") != NULL) {
            return NULL;
        }
        all[c->nlog_formats++] = f;
        c->log_formats = all;
        return f;
    }
    return NULL;
}

static const char *
set_log_format(parse_t *ps, const char **a, int n)
{
    nicd_conf_t       *c = ps->conf;
    nicd_log_format_t *f, **all;
    const char        *msg;
    char              *text, where[512];
    int                i = 1;
    size_t             len = 0;

    if (strcmp(a[0], "combined") == 0) {
        return "duplicate \"log_format\" name \"combined\"";
    }
    for (i = 0; i < c->nlog_formats; i++) {
        if (strcmp(c->log_formats[i]->name, a[0]) == 0) {
            return nicd_conf_msg("duplicate \"log_format\" name \"%s\"", a[0]);
        }
    }
    f = nicd_conf_alloc(c, sizeof(*f));
    if (f == NULL || (f->name = nicd_conf_strdup(c, a[0])) == NULL) {
        return "out of memory";
    }
    i = 1;
    if (n > 2 && strncmp(a[1], "escape=", 7) == 0) {
        if (strcmp(a[1] + 7, "default") == 0) {
            f->escape = 0;
        } else if (strcmp(a[1] + 7, "json") == 0) {
            f->escape = 1;
        } else if (strcmp(a[1] + 7, "none") == 0) {
            f->escape = 2;
        } else {
            return nicd_conf_msg("unknown log format escaping \"%s\"",
                                 a[1] + 7);
        }
        i = 2;
    }
    /* the strings run together, as nginx joins them */
    for (int k = i; k < n; k++) {
        len += strlen(a[k]);
    }
    text = nicd_conf_alloc(c, len + 1);
    if (text == NULL) {
        return "out of memory";
    }
    text[0] = '\0';
    for (; i < n; i++) {
        strcat(text, a[i]);
    }
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    if ((msg = compile(c, f, text, where)) != NULL) {
        return msg;
    }
    all = nicd_conf_grow(c, c->log_formats, c->nlog_formats, sizeof(f));
    if (all == NULL) {
        return "out of memory";
    }
    all[c->nlog_formats++] = f;
    c->log_formats = all;
    return NULL;
}

static void
add_value(nicd_buf_t *b, int escape, const char *p, size_t len)
{
    if (p == NULL || len == 0) {
        if (escape == 0) { /* json and none: nothing, as nginx's */
            nicd_buf_add(b, "-", 1);
        }
        return;
    }
    switch (escape) {
    case 2: nicd_buf_add(b, p, len); return;
    case 1: nicd_buf_add_json(b, p, len); return;
    }
    nicd_buf_add_escaped(b, p, len);
}

/* a request header by name (len bytes, '_' for '-', any case) */
static const nicd_str_t *
header(const nicd_log_view_t *v, const char *name, size_t len)
{
    size_t i;
    int    k;

    for (k = 0; k < v->nheaders; k++) {
        if (v->hname[k].len != len) {
            continue;
        }
        for (i = 0; i < len; i++) {
            char a = v->hname[k].p[i], b = name[i];

            if (a == '-') {
                a = '_';
            }
            if ((a | 0x20) != (b | 0x20)) {
                break;
            }
        }
        if (i == len) {
            return &v->hvalue[k];
        }
    }
    return NULL;
}

/* $remote_user: the user of an Authorization: Basic header */
static void
remote_user(const nicd_log_view_t *v, nicd_buf_t *b, int escape)
{
    const nicd_str_t *h = header(v, "authorization", 13);
    unsigned char     dec[256];
    size_t            i = 6;
    int               n;
    char             *colon;

    if (h == NULL || h->len < 7 || strncasecmp(h->p, "Basic ", 6) != 0
        || (h->len - i) % 4 != 0 || (h->len - i) / 4 * 3 >= sizeof(dec)) {
        add_value(b, escape, NULL, 0);
        return;
    }
    n = nicd_base64_decode(dec, h->p + i, h->len - i);
    colon = n > 0 ? memchr(dec, ':', (size_t) n) : NULL;
    add_value(b, escape, (const char *) dec,
              colon != NULL ? (size_t) (colon - (char *) dec) : 0);
}

static void
late(nicd_buf_t *b, int var, const nicd_log_view_t *v, int escape)
{
    char num[32];
    int  n;

    if (!v->late_known) {
        char mark[3] = {MARK, late_letter[var - V_STATUS], '\0'};

        nicd_buf_add(b, mark, 2);
        return;
    }
    switch (var) {
    case V_STATUS: n = snprintf(num, sizeof(num), "%d", v->status); break;
    case V_REQUEST_TIME:
        n = snprintf(num, sizeof(num), "%.3f", v->request_time);
        break;
    case V_BYTES_SENT:
        n = snprintf(num, sizeof(num), "%" PRIu64, v->bytes);
        break;
    default: n = snprintf(num, sizeof(num), "%" PRIu64, v->body_bytes);
    }
    add_value(b, escape, num, (size_t) n);
}

nicd_module_t nicd_log_format_module;

/* a registry variable's value for the request the view is of (none for
 * a request that did not parse: "-"), through the worker's buffer of the
 * module (made on first use) */
static void
registry_value(nicd_buf_t *b, int escape, const nicd_log_view_t *v,
               const nicd_cv_t *cv)
{
    nicd_buf_t *val = NULL;

    if (v->c != NULL && v->c->r != NULL && v->c->r->in != NULL) {
        val = NICD_WORKER_CTX(v->c->w, nicd_log_format_module);
        if (val == NULL) {
            val = calloc(1, sizeof(*val));
            NICD_WORKER_CTX(v->c->w, nicd_log_format_module) = val;
        }
    }
    if (val != NULL) {
        val->len = 0;
        if (nicd_cv_eval(v->c, cv, NULL, val) == 0 && val->len > 0) {
            add_value(b, escape, val->data, val->len);
            return;
        }
    }
    add_value(b, escape, NULL, 0);
}

static void
log_worker_free(nicd_worker_t *w)
{
    nicd_buf_t *val = NICD_WORKER_CTX(w, nicd_log_format_module);

    if (val != NULL) {
        nicd_buf_free(val);
        free(val);
        NICD_WORKER_CTX(w, nicd_log_format_module) = NULL;
    }
}

static void
nicd_log_render(const nicd_log_format_t *f, const nicd_log_view_t *v,
                nicd_buf_t *b)
{
    const piece_t    *pc;
    char              t[64];
    struct tm         tm;
    struct timespec   ts;
    int               i, n;
    const nicd_str_t *h;

    for (i = 0; i < f->npieces; i++) {
        pc = &f->pieces[i];
        switch (pc->var) {
        case V_LITERAL: nicd_buf_add(b, pc->text, pc->len); break;
        case V_REMOTE_ADDR:
            add_value(b, f->escape, v->addr, strlen(v->addr));
            break;
        case V_REMOTE_USER: remote_user(v, b, f->escape); break;
        case V_TIME_LOCAL:
            nicd_buf_add(b, nicd_date_log(), NICD_LOG_DATE_LEN);
            break;
        case V_TIME_ISO8601:
            clock_gettime(CLOCK_REALTIME, &ts);
            localtime_r(&ts.tv_sec, &tm);
            n = (int) strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S%z", &tm);
            if (n == 24) { /* +hhmm -> +hh:mm */
                memmove(t + 23, t + 22, 3);
                t[22] = ':';
                n = 25;
            }
            nicd_buf_add(b, t, (size_t) n);
            break;
        case V_MSEC:
            clock_gettime(CLOCK_REALTIME, &ts);
            nicd_buf_addf(b, "%lld.%03ld", (long long) ts.tv_sec,
                          ts.tv_nsec / 1000000);
            break;
        case V_REQUEST:
            if (v->line.p != NULL || v->path.p == NULL) {
                /* as sent; none (a request that did not parse): "-" */
                add_value(b, f->escape, v->line.p, v->line.len);
                break;
            }
            add_value(b, f->escape, v->method, strlen(v->method));
            nicd_buf_add(b, " ", 1);
            add_value(b, f->escape, v->path.p, v->path.len);
            if (v->query.len > 0) {
                nicd_buf_add(b, "?", 1);
                add_value(b, f->escape, v->query.p, v->query.len);
            }
            nicd_buf_add(b, " ", 1);
            nicd_buf_adds(b, v->protocol);
            break;
        case V_REQUEST_METHOD:
            add_value(b, f->escape, v->method, strlen(v->method));
            break;
        case V_REQUEST_URI:
            add_value(b, f->escape, v->path.p, v->path.len);
            if (v->query.len > 0) {
                nicd_buf_add(b, "?", 1);
                add_value(b, f->escape, v->query.p, v->query.len);
            }
            break;
        case V_URI:
            if (v->uri.p != NULL && v->uri.len == 0) {
                break; /* empty, not unknown (a path that did not parse):
                          nothing, as nginx */
            }
            if (v->uri.p != NULL) {
                add_value(b, f->escape, v->uri.p, v->uri.len);
            } else {
                add_value(b, f->escape, v->path.p, v->path.len);
            }
            break;
        case V_ARGS: {
            const nicd_str_t *a = &v->query;

            if (v->c != NULL && v->c->r != NULL && v->c->r->args_set) {
                a = &v->c->r->args; /* a rewrite's (nginx logs those) */
            }
            add_value(b, f->escape, a->p, a->len);
            break;
        }
        case V_SERVER_PROTOCOL: nicd_buf_adds(b, v->protocol); break;
        case V_HOST:
            h = header(v, "host", 4);
            add_value(b, f->escape, h != NULL ? h->p : v->server_name,
                      h != NULL ? h->len : strlen(v->server_name));
            break;
        case V_SERVER_NAME:
            add_value(b, f->escape, v->server_name, strlen(v->server_name));
            break;
        case V_SCHEME: nicd_buf_adds(b, v->tls ? "https" : "http"); break;
        case V_HTTP:
            h = header(v, pc->text, pc->len);
            add_value(b, f->escape, h != NULL ? h->p : NULL,
                      h != NULL ? h->len : 0);
            break;
        case V_VAR: registry_value(b, f->escape, v, pc->cv); break;
        case V_SENT_HTTP: {
            nicd_buf_t all = {0};

            if (nicd_sent_headers(v->sent, pc->text, pc->len, &all) > 0) {
                add_value(b, f->escape, all.data, all.len);
            } else {
                add_value(b, f->escape, NULL, 0);
            }
            nicd_buf_free(&all);
            break;
        }
        default: late(b, pc->var, v, f->escape);
        }
    }
    nicd_buf_add(b, "\n", 1);
}

/* "access_log PATH [FORMAT] [buffer=] [flush=] [if=COND];" */
typedef struct {
    int                      file;   /* in nicd_conf_t.access_paths */
    const nicd_log_format_t *format; /* "combined" unless named */
    const nicd_cv_t         *cond;   /* if=: a template, NULL: none */
    const nicd_cv_t *path; /* a path with variables (file -1), or NULL */
} access_log_t;

/* the module's settings of a level: where its responses are logged
 * (none: off), taken whole from the enclosing level when a level has no
 * access_log, as in nginx */
typedef struct {
    access_log_t *logs;
    int           nlogs;
    int           set; /* access_log written here (off too) */
    /* open_log_file_cache: files of paths with variables kept open (NULL:
     * each line opens its file); cache_set: written here (off too) */
    log_fcache_t *cache;
    int           cache_set;
} log_conf_t;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(log_conf_t));
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const log_conf_t *p = prev;
    log_conf_t       *lg = conf;

    (void) c;
    if (!lg->set && p != NULL) {
        lg->logs = p->logs;
        lg->nlogs = p->nlogs;
        lg->set = 1;
    }
    if (!lg->cache_set && p != NULL) {
        lg->cache = p->cache;
        lg->cache_set = 1;
    }
    return NULL;
}

static uint32_t
nicd_log_select(nicd_conn_t *c, const nicd_loc_conf_t **out)
{
    const nicd_loc_conf_t *lc = c->r->loc;
    const nicd_request_t  *r = c->r->in;
    nicd_buf_t            *b = &c->w->hexpand;
    const log_conf_t      *lg;
    uint32_t               mask = 0;
    int                    i;

    if (lc == NULL) {
        lc = c->r->srv != NULL
                 ? c->r->srv->loc
                 : nicd_conf_find_server(c->w->cycle->conf, c->sc.listener,
                                         NULL, 0, NULL)
                       ->loc;
    }
    *out = lc;
    lg = NICD_LOC_CONF(lc, nicd_log_format_module);
    for (i = 0; i < lg->nlogs && i < 32; i++) {
        const access_log_t *log = &lg->logs[i];

        if (log->cond != NULL && r != NULL) {
            /* logged unless it comes to "" or "0" (nginx); a condition
             * that cannot be evaluated logs (and says why) */
            if (nicd_cv_eval(c, log->cond, NULL, b) == 0
                && (b->len == 0 || (b->len == 1 && b->data[0] == '0'))) {
                continue;
            }
        }
        mask |= 1u << i;
    }
    return mask;
}

/* the path log names for the request of v, and its NUL, appended to b:
 * 0, or -1 (logged) when it cannot be made or names nothing */
static int
path_of(const nicd_log_view_t *v, const access_log_t *log, nicd_buf_t *b)
{
    nicd_buf_t p = {0};
    int        rc = -1;

    if (v->c == NULL || v->c->r == NULL) {
        return -1; /* a request that did not parse: no variables */
    }
    if (nicd_cv_eval(v->c, log->path, NULL, &p) == 0) {
        if (p.len == 0 || memchr(p.data, '\0', p.len) != NULL) {
            log_error(LOG_ERR, 0,
                      "the access log \"%s\" names no file here, client: %s",
                      nicd_cv_source(log->path), nicd_client(v->c));
        } else {
            nicd_buf_add(b, p.data, p.len + 1); /* (and its NUL) */
            rc = nicd_buf_failed(b) ? -1 : 0;
        }
    }
    nicd_buf_free(&p);
    return rc;
}

static void
nicd_log_records(const nicd_loc_conf_t *lc, uint32_t mask,
                 const nicd_log_view_t *v, nicd_buf_t *b)
{
    const log_conf_t *lg = NICD_LOC_CONF(lc, nicd_log_format_module);
    nicd_logrec_t     h;
    size_t            at;
    int               i;

    for (i = 0; i < lg->nlogs && i < 32; i++) {
        if (!(mask & (1u << i))) {
            continue;
        }
        h.file = lg->logs[i].path != NULL ? NICD_LOG_BY_PATH
                                          : (uint32_t) lg->logs[i].file;
        h.len = 0;
        at = b->len;
        nicd_buf_add(b, &h, sizeof(h));
        if (lg->logs[i].path != NULL) {
            /* the file it names now, and the cache that keeps it open */
            nicd_buf_add(b, &lg->cache, sizeof(lg->cache));
            if (path_of(v, &lg->logs[i], b) != 0) {
                b->len = at;
                continue;
            }
        }
        nicd_log_render(lg->logs[i].format, v, b);
        if (nicd_buf_failed(b)) {
            return;
        }
        h.len = (uint32_t) (b->len - at - sizeof(h));
        memcpy(b->data + at, &h, sizeof(h));
    }
}

static void
nicd_log_write(nicd_worker_t *w, const nicd_loc_conf_t *lc, uint32_t mask,
               const nicd_log_view_t *v)
{
    const log_conf_t *lg = NICD_LOC_CONF(lc, nicd_log_format_module);
    nicd_buf_t       *b = &w->logline;
    int               i;

    for (i = 0; i < lg->nlogs && i < 32; i++) {
        const access_log_t *log = &lg->logs[i];
        size_t              at = 0;

        if (!(mask & (1u << i))
            || (log->path == NULL && log->file >= w->nlogs)) {
            continue;
        }
        b->len = 0;
        if (log->path != NULL && path_of(v, log, b) != 0) {
            continue;
        }
        at = b->len;
        nicd_log_render(log->format, v, b);
        if (nicd_buf_failed(b)) {
            b->len = 0;
        } else if (log->path == NULL) {
            nicd_worker_log_write(w, (int) log->file, b->data, b->len);
        } else if (log_path_write(lg->cache, b->data, b->data + at, b->len - at,
                                  nicd_worker_now_ms(w))
                   != 0) {
            log_error(LOG_ERR, errno, "write to the access log \"%s\" failed",
                      b->data);
        }
    }
}

/* log added to the level's list (a level's first access_log, or -g's,
 * begins its own list) */
static const char *
add_log(parse_t *ps, log_conf_t *l, const access_log_t *log)
{
    if (!l->set || ps->override) {
        l->logs = NULL;
        l->nlogs = 0;
        l->set = 1;
    }
    l->logs = nicd_conf_grow(ps->conf, l->logs, l->nlogs, sizeof(*log));
    if (l->logs == NULL) {
        return "out of memory";
    }
    l->logs[l->nlogs++] = *log;
    return NULL;
}

/*
 * access_log PATH [FORMAT] [buffer=SIZE] [flush=TIME] [if=COND] | off, in
 * http, server or location, as nginx's: several at one level all log; a
 * level without any takes its enclosing level's.  FORMAT is defined
 * before (nginx's rule), "combined" by default.  if=COND: the response is
 * logged unless COND (a template: "$loggable") expands to "" or "0".
 * Each distinct PATH is one file (nicd_conf_t.access_paths).  buffer= and
 * flush= apply to every log (each worker keeps one buffer a file).
 */
static const char *
set_access_log(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    log_conf_t  *l = nicd_conf_module_loc(ps);
    access_log_t log;
    const char  *err, *lit;
    size_t       litlen;
    int          i, gzip = 0;

    if (strcmp(a[0], "off") == 0) {
        if (n > 1) {
            return "invalid parameter after \"off\"";
        }
        l->logs = NULL;
        l->nlogs = 0;
        l->set = 1;
        return NULL;
    }
    memset(&log, 0, sizeof(log));
    if (strchr(a[0], '$') != NULL) {
        /* opened as each line is written (open_log_file_cache keeps some
         * open), as nginx's */
        if ((log.path = nicd_conf_cv(ps, a[0], &err)) == NULL) {
            return err;
        }
        if (!nicd_cv_literal(log.path, &lit, &litlen)) {
            for (i = 1; i < n; i++) {
                if (strncmp(a[i], "buffer=", 7) == 0
                    || strncmp(a[i], "gzip", 4) == 0) {
                    return "buffered logs cannot have variables in name";
                }
            }
        } else {
            log.path = NULL; /* "$" escaped away: a plain path */
        }
    }
    for (i = 1; i < n; i++) {
        if (strcmp(a[i], "gzip") == 0 || strncmp(a[i], "gzip=", 5) == 0) {
            gzip = 1; /* nginx's default level */
            c->access_log_buffered = 1;
            if (a[i][4] == '=') {
                if (a[i][5] < '1' || a[i][5] > '9' || a[i][6] != '\0') {
                    return nicd_conf_msg("invalid compression level \"%s\"",
                                         a[i] + 5);
                }
                gzip = a[i][5] - '0';
            }
            continue;
        }
        if (strncmp(a[i], "buffer=", 7) == 0) {
            c->access_log_buffered = 1;
            if ((err = nicd_conf_size(a[i] + 7, &c->access_log_buffer))
                != NULL) {
                return err;
            }
            if (c->access_log_buffer < 512) {
                c->access_log_buffer = 512;
            }
        } else if (strncmp(a[i], "flush=", 6) == 0) {
            if ((err = nicd_conf_time(a[i] + 6, &c->access_log_flush))
                != NULL) {
                return err;
            }
        } else if (strncmp(a[i], "if=", 3) == 0) {
            if (a[i][3] == '\0') {
                return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
            }
            log.cond = nicd_conf_cv(ps, a[i] + 3, &err);
            if (log.cond == NULL) {
                return err;
            }
        } else if (strchr(a[i], '=') != NULL) {
            return nicd_conf_msg("invalid parameter \"%s\" (buffer=, "
                                 "flush=, gzip and if= are supported; "
                                 "syslog is not)",
                                 a[i]);
        } else if (i == 1) {
            log.format = nicd_log_format_find(c, a[i]);
            if (log.format == NULL) {
                return nicd_conf_msg("unknown log format \"%s\"", a[i]);
            }
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
        }
    }
    if (log.format == NULL
        && (log.format = nicd_log_format_find(c, "combined")) == NULL) {
        return "out of memory";
    }
    if (log.path != NULL) {
        log.file = -1;
        return add_log(ps, l, &log);
    }
    for (i = 0; i < c->naccess_paths; i++) {
        if (strcmp(c->access_paths[i], a[0]) == 0) {
            break;
        }
    }
    if (i == c->naccess_paths) {
        c->access_paths = nicd_conf_grow(c, c->access_paths, c->naccess_paths,
                                         sizeof(char *));
        c->access_gzip =
            nicd_conf_grow(c, c->access_gzip, c->naccess_paths, sizeof(int));
        if (c->access_paths == NULL || c->access_gzip == NULL
            || (c->access_paths[i] = nicd_conf_strdup(c, a[0])) == NULL) {
            return "out of memory";
        }
        c->access_gzip[i] = 0;
        c->naccess_paths++;
    }
    if (gzip > 0) {
        /* one file, one encoding: a plain line in a compressed file would
         * spoil it */
        c->access_gzip[i] = gzip;
    }
    log.file = i;
    return add_log(ps, l, &log);
}

/*
 * open_log_file_cache max=N [inactive=TIME] [min_uses=N] [valid=TIME] |
 * off;  (nginx's: inactive 10s, min_uses 1, valid 60s) the files of
 * access logs whose paths hold variables kept open, shared by the
 * worker threads
 */
static const char *
set_log_cache(parse_t *ps, const char **a, int n)
{
    log_conf_t *l = nicd_conf_module_loc(ps);
    long        inactive = 10000, valid = 60000, v = 0;
    int         max = 0, min_uses = 1, i;
    const char *err;

    if (l->cache_set) {
        return "is duplicate";
    }
    l->cache_set = 1;
    if (n == 1 && strcmp(a[0], "off") == 0) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        if (strncmp(a[i], "max=", 4) == 0
            || strncmp(a[i], "min_uses=", 9) == 0) {
            int *to = a[i][1] == 'a' ? &max : &min_uses;

            if ((err = nicd_conf_positive(strchr(a[i], '=') + 1, to)) != NULL) {
                return nicd_conf_msg("invalid \"%s\" value", a[i]);
            }
        } else if (strncmp(a[i], "inactive=", 9) == 0
                   || strncmp(a[i], "valid=", 6) == 0) {
            if (nicd_conf_time(strchr(a[i], '=') + 1, &v) != NULL) {
                return nicd_conf_msg("invalid \"%s\" value", a[i]);
            }
            *(a[i][0] == 'i' ? &inactive : &valid) = v;
        } else {
            return nicd_conf_msg("invalid \"open_log_file_cache\" parameter "
                                 "\"%s\"",
                                 a[i]);
        }
    }
    if (max == 0) {
        return "\"open_log_file_cache\" must have \"max\" parameter";
    }
    l->cache = log_fcache_new(max, inactive, valid, min_uses);
    if (l->cache == NULL
        || nicd_conf_cleanup(ps->conf, log_fcache_free, l->cache) != 0) {
        log_fcache_free(l->cache);
        l->cache = NULL;
        return "out of memory";
    }
    return NULL;
}

static const directive_t nicd_log_format_directives[] = {
    {"log_format", CTX_HTTP, 2, MAX_ARGS, set_log_format, 0},
    {"access_log", CTX_MAIN | CTX_HSL, 1, 5, set_access_log, 0},
    {"open_log_file_cache", CTX_HSL, 1, 4, set_log_cache, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

/* the log phase's handler: this module's access logs */
static const nicd_log_handler_t log_handler = {
    nicd_log_select,
    nicd_log_records,
    nicd_log_write,
};

static const char *
log_postconfiguration(nicd_conf_t *c)
{
    return nicd_log_handler_add(c, &log_handler);
}

nicd_module_t nicd_log_format_module = {
    .name = "log",
    .directives = nicd_log_format_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = log_postconfiguration,
    .worker_free = log_worker_free,
};
