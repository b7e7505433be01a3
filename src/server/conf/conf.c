/*
 * The configuration reader: a tokenizer for nginx syntax and a table of
 * directives, each with its argument count and a setter.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <glob.h>
#include <pcre2.h>

#include "../../util/buf.h"
#include "conf.h"
#include "config.h"
#include "directive.h"
#include "mime.h"
#include "../../util/log.h"

#define MAX_DEPTH 8

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

static void *
conf_alloc(nicd_conf_t *c, size_t n)
{
    return conf_alloc_cleanup(c, n, NULL, NULL);
}

static char *
conf_strdup(nicd_conf_t *c, const char *s)
{
    size_t n = strlen(s) + 1;
    char  *d = conf_alloc(c, n);

    return d == NULL ? NULL : memcpy(d, s, n);
}

/* grow an arena array by one element (the old block stays until the end:
 * configurations are read once) */
static void *
conf_grow(nicd_conf_t *c, void *arr, int n, size_t size)
{
    void *a = conf_alloc(c, size * (size_t) (n + 1));

    if (a != NULL && n > 0) {
        memcpy(a, arr, size * (size_t) n);
    }
    return a;
}

void *
nicd_conf_alloc(nicd_conf_t *c, size_t n)
{
    return conf_alloc(c, n);
}

char *
nicd_conf_strdup(nicd_conf_t *c, const char *s)
{
    return conf_strdup(c, s);
}

void *
nicd_conf_grow(nicd_conf_t *c, void *arr, int n, size_t size)
{
    return conf_grow(c, arr, n, size);
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
static void *
conf_regex(nicd_conf_t *c, const char *re, int ci, char *err, size_t errlen)
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

void *
nicd_conf_regex(nicd_conf_t *c, const char *re, int caseless, char *err,
                size_t errlen)
{
    return conf_regex(c, re, caseless, err, errlen);
}

static nicd_loc_conf_t *
loc_new(nicd_conf_t *c, int kind)
{
    nicd_loc_conf_t *l = conf_alloc(c, sizeof(*l));
    int              i;

    if (l == NULL) {
        return NULL;
    }
    /* every module's own settings of this level */
    l->mconf = conf_alloc(c, sizeof(void *) * (size_t) (c->nmodules + 1));
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
    l->limit_rate = NICD_UNSET;
    l->format = -1;
    l->gzip_vary = NICD_UNSET;
    l->absolute_redirect = NICD_UNSET;
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
    NICD_MERGE(l, p, limit_rate, 0);
    NICD_MERGE_PTR(l, p, default_type, "text/plain");
    NICD_MERGE_PTR(l, p, charset, NULL);
    NICD_MERGE(l, p, gzip_vary, 0);
    NICD_MERGE(l, p, absolute_redirect, 1);
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
    c->http = loc_new(c, NICD_LOC_SERVER);
    if (c->http == NULL) {
        free(c);
        return NULL;
    }
    c->internal_redirects = 10;
    c->worker_threads = 0;
    c->worker_connections = 4096;
    c->worker_rlimit_nofile = 0;
    c->disable_symlinks = NICD_SYMLINKS_OUTSIDE;
    c->access_log_buffer = 64 * 1024;
    c->access_log_flush = 1000;
    c->error_level = LOG_NOTICE;
    c->sendfile_max_chunk = 256 * 1024; /* docs/config.md: why not 2m */
    c->client_header_timeout = 60000;
    c->keepalive_timeout = 75000;
    c->send_timeout = 60000;
    c->keepalive_requests = 1000;
    c->client_header_buffer_size = 1024;
    c->large_header_buffer_size = 8192;
    c->large_header_buffers = 4;
    c->client_max_body_size = 1024 * 1024;
    c->lua_time_limit = 1000;
    c->open_file_cache_max = 0;
    c->open_file_cache_valid = 60000;
    c->open_file_cache_inactive = 60000;
    c->server_tokens = 1;
    c->ssl_protocols = NICD_TLS_1_2 | NICD_TLS_1_3;
    c->ssl_ciphers = strdup("HIGH:!aNULL:!MD5");
    c->ssl_session_timeout = 300000;
    c->ssl_session_tickets = 1;
    c->http2_max_concurrent_streams = 128;
    c->http2_max_header_size = 16384;
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
    free(c->ssl_ciphers);
    free(c->ssl_dhparam);
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

#define msgf nicd_conf_msg

const char *
nicd_conf_msg(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msgbuf, sizeof(msgbuf), fmt, ap);
    va_end(ap);
    return msgbuf;
}

static const char *
set_str(char **dst, const char *v)
{
    char *s = strdup(v);

    if (s == NULL) {
        return "out of memory";
    }
    free(*dst);
    *dst = s;
    return NULL;
}

#define flag nicd_conf_flag

const char *
nicd_conf_flag(const char *v, int *out)
{
    if (strcmp(v, "on") == 0) {
        *out = 1;
    } else if (strcmp(v, "off") == 0) {
        *out = 0;
    } else {
        return msgf("invalid value \"%s\", it must be \"on\" or \"off\"", v);
    }
    return NULL;
}

static const char *
positive_int(const char *v, int *out)
{
    char *end;
    long  n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno != 0 || n <= 0 || n > 1 << 30) {
        return msgf("invalid number \"%s\"", v);
    }
    *out = (int) n;
    return NULL;
}

static const char *
size_val(const char *v, size_t *out)
{
    if (nicd_parse_size(v, out) != 0) {
        return msgf("invalid size \"%s\"", v);
    }
    return NULL;
}

static const char *
time_val(const char *v, long *out)
{
    if (nicd_parse_msec(v, out) != 0) {
        return msgf("invalid time \"%s\"", v);
    }
    return NULL;
}

const char *
nicd_conf_size(const char *v, size_t *out)
{
    return size_val(v, out);
}

const char *
nicd_conf_time(const char *v, long *out)
{
    return time_val(v, out);
}

const char *
nicd_conf_str(char **dst, const char *v)
{
    return set_str(dst, v);
}

static const char *
set_worker_threads(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;
    if (strcmp(a[0], "auto") == 0) {
        c->worker_threads = 0;
        return NULL;
    }
    return positive_int(a[0], &c->worker_threads);
}

int
nicd_listen_parse(nicd_listen_conf_t *l, const char *text)
{
    struct sockaddr_in  *sin = (struct sockaddr_in *) &l->addr;
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) &l->addr;
    char                 host[128];
    const char          *port, *colon;
    char                *end;
    long                 p;
    size_t               hlen;

    memset(&l->addr, 0, sizeof(l->addr));

    if (text[0] == '[') {
        colon = strstr(text, "]:");
        if (colon == NULL) {
            return -1;
        }
        hlen = (size_t) (colon - text - 1);
        port = colon + 2;
        if (hlen >= sizeof(host)) {
            return -1;
        }
        memcpy(host, text + 1, hlen);
        host[hlen] = '\0';
    } else if ((colon = strrchr(text, ':')) != NULL) {
        hlen = (size_t) (colon - text);
        port = colon + 1;
        if (hlen >= sizeof(host)) {
            return -1;
        }
        memcpy(host, text, hlen);
        host[hlen] = '\0';
    } else {
        strcpy(host, "*");
        port = text;
    }

    errno = 0;
    p = strtol(port, &end, 10);
    if (*port == '\0' || *end != '\0' || p < 0 || p > 65535 || errno != 0) {
        return -1;
    }

    if (strcmp(host, "*") == 0 || strcmp(host, "") == 0) {
        sin->sin_family = AF_INET;
        sin->sin_addr.s_addr = htonl(INADDR_ANY);
        sin->sin_port = htons((uint16_t) p);
        l->addrlen = sizeof(*sin);
    } else if (strcmp(host, "localhost") == 0) {
        sin->sin_family = AF_INET;
        sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sin->sin_port = htons((uint16_t) p);
        l->addrlen = sizeof(*sin);
    } else if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
        sin->sin_family = AF_INET;
        sin->sin_port = htons((uint16_t) p);
        l->addrlen = sizeof(*sin);
    } else if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons((uint16_t) p);
        l->addrlen = sizeof(*sin6);
    } else {
        return -1;
    }
    return 0;
}

static nicd_server_conf_t *cur_server(parse_t *ps);

static const char *
set_listen(parse_t *ps, const char **a, int n)
{
    nicd_conf_t        *c = ps->conf;
    nicd_listen_conf_t  l, *ls;
    nicd_server_conf_t *srv;
    int                 i, k, is_default = 0;
    const char         *err;

    memset(&l, 0, sizeof(l));
    l.backlog = 511;
    l.lowat = NICD_NOTSENT_LOWAT;
    l.nic = -1;
    if (nicd_listen_parse(&l, a[0]) != 0) {
        return msgf("invalid address \"%s\"", a[0]);
    }

    for (i = 1; i < n; i++) {
        if (strcmp(a[i], "reuseport") == 0 || strcmp(a[i], "deferred") == 0
            || strncmp(a[i], "ipv6only=", 9) == 0
            || strncmp(a[i], "fastopen=", 9) == 0) {
            /* every worker has its own SO_REUSEPORT socket anyway;
             * deferred, ipv6only= and fastopen= change no answer */
        } else if (strcmp(a[i], "default_server") == 0
                   || strcmp(a[i], "default") == 0) {
            is_default = 1;
        } else if (strncmp(a[i], "backlog=", 8) == 0) {
            if ((err = positive_int(a[i] + 8, &l.backlog)) != NULL) {
                return err;
            }
        } else if (strncmp(a[i], "sndbuf=", 7) == 0) {
            size_t sz;

            if ((err = size_val(a[i] + 7, &sz)) != NULL) {
                return err;
            }
            if (sz == 0 || sz > INT_MAX / 2) {
                return msgf("invalid \"%s\"", a[i]);
            }
            l.sndbuf = (int) sz;
        } else if (strcmp(a[i], "notsent_lowat=off") == 0) {
            l.lowat = 0;
        } else if (strncmp(a[i], "notsent_lowat=", 14) == 0) {
            size_t sz;

            if ((err = size_val(a[i] + 14, &sz)) != NULL) {
                return err;
            }
            if (sz == 0 || sz > INT_MAX) {
                return msgf("invalid \"%s\"", a[i]);
            }
            l.lowat = (int) sz;
        } else if (strncmp(a[i], "nic=", 4) == 0) {
            char *end;
            long  v = strtol(a[i] + 4, &end, 10);
            if (a[i][4] == '\0' || *end != '\0' || v < 0 || v > 255) {
                return msgf("invalid \"%s\"", a[i]);
            }
            l.nic = (int) v;
        } else if (strcmp(a[i], "ssl") == 0) {
            l.ssl = 1;
        } else if (strcmp(a[i], "http2") == 0) {
#if defined(HAVE_NGHTTP2)
            l.http2 = 1;
#else
            return msgf("\"http2\" needs libnghttp2, which this nicd was "
                        "built without");
#endif
        } else {
            return msgf("invalid parameter \"%s\"", a[i]);
        }
    }

    srv = cur_server(ps);
    if (srv == NULL) {
        return "out of memory";
    }
    /* servers that name the same address share its sockets; their
     * options add up (ssl, http2 on one listen apply to the address) */
    for (i = 0; i < c->nlistens; i++) {
        if (strcmp(c->listens[i].text, a[0]) == 0) {
            break;
        }
    }
    if (i == c->nlistens) {
        ls = realloc(c->listens, sizeof(*ls) * (size_t) (c->nlistens + 1));
        if (ls == NULL) {
            return "out of memory";
        }
        c->listens = ls;
        l.text = strdup(a[0]);
        l.where = malloc(strlen(ps->name) + 16);
        if (l.text == NULL || l.where == NULL) {
            free(l.text);
            free(l.where);
            return "out of memory";
        }
        sprintf(l.where, "%s:%d", ps->name, ps->line);
        l.default_srv = -1;
        c->listens[c->nlistens++] = l;
        c->nssl += l.ssl;
    } else {
        ls = &c->listens[i];
        for (k = 0; k < srv->nlistens; k++) {
            if (srv->listens[k] == i) {
                return msgf("duplicate listen %s", a[0]);
            }
        }
        if (!ls->ssl && l.ssl) {
            ls->ssl = 1;
            c->nssl++;
        }
        ls->http2 |= l.http2;
        if (n > 1 && l.nic != -1) {
            ls->nic = l.nic;
        }
    }
    if (is_default) {
        if (c->listens[i].default_srv != -1) {
            return msgf("a duplicate default server for %s", a[0]);
        }
        c->listens[i].default_srv = srv->index;
    }
    srv->listens = conf_grow(c, srv->listens, srv->nlistens, sizeof(int));
    if (srv->listens == NULL) {
        return "out of memory";
    }
    srv->listens[srv->nlistens++] = i;
    return NULL;
}

static const char *
set_ssl_protocols(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    static const struct {
        const char *name;
        int         bit;
    } names[] = {{"TLSv1", NICD_TLS_1_0},
                 {"TLSv1.1", NICD_TLS_1_1},
                 {"TLSv1.2", NICD_TLS_1_2},
                 {"TLSv1.3", NICD_TLS_1_3}};
    int i, k, bits = 0;

    for (i = 0; i < n; i++) {
        for (k = 0; k < 4 && strcmp(a[i], names[k].name) != 0; k++) {
        }
        if (k == 4) {
            return msgf("unknown protocol \"%s\" (TLSv1, TLSv1.1, TLSv1.2, "
                        "TLSv1.3)",
                        a[i]);
        }
        bits |= names[k].bit;
    }
    c->ssl_protocols = bits;
    return NULL;
}

/*
 * ssl_session_cache off | none | builtin[:SIZE] | shared:NAME:SIZE ...
 * One SSL_CTX serves every worker thread, so OpenSSL's own cache is
 * already shared: "builtin" and "shared" both size it (shared's SIZE in
 * bytes, about 4,000 sessions a megabyte as in nginx).
 */
static const char *
set_ssl_session_cache(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    int          i;
    long         sessions = 0, v;
    char        *end;
    const char  *colon;
    size_t       bytes;

    for (i = 0; i < n; i++) {
        if (strcmp(a[i], "off") == 0 || strcmp(a[i], "none") == 0) {
            continue;
        }
        if (strcmp(a[i], "builtin") == 0) {
            sessions += 20480;
        } else if (strncmp(a[i], "builtin:", 8) == 0) {
            v = strtol(a[i] + 8, &end, 10);
            if (a[i][8] == '\0' || *end != '\0' || v <= 0) {
                return msgf("invalid session cache \"%s\"", a[i]);
            }
            sessions += v;
        } else if (strncmp(a[i], "shared:", 7) == 0
                   && (colon = strchr(a[i] + 7, ':')) != NULL
                   && colon > a[i] + 7) {
            if (size_val(colon + 1, &bytes) != NULL || bytes == 0) {
                return msgf("invalid session cache \"%s\"", a[i]);
            }
            sessions += (long) (bytes / 256);
        } else {
            return msgf("invalid session cache \"%s\"", a[i]);
        }
    }
    c->ssl_session_cache = sessions;
    return NULL;
}

static const char *
set_h2_recv_buffer(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;
    if (size_val(a[0], &c->http2_recv_buffer_size) != NULL
        || c->http2_recv_buffer_size < 1024
        || c->http2_recv_buffer_size > 16 * 1024 * 1024) {
        return msgf("invalid value \"%s\" (1k to 16m)", a[0]);
    }
    return NULL;
}

static const char *
set_error_log(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    if (n == 2) {
        c->error_level = log_level_parse(a[1]);
        if (c->error_level < 0) {
            c->error_level = LOG_NOTICE;
            return msgf("invalid log level \"%s\"", a[1]);
        }
    }
    return set_str(&c->error_log, a[0]);
}

static const char *
set_backend(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    (void) n;
    if (snic_backend_find(a[0]) == NULL) {
        return msgf("unknown send backend \"%s\" (nicd -V lists them)", a[0]);
    }
    return set_str(&c->backend, a[0]);
}

/* nginx's "sendfile on|off": off means the copy backend */
static const char *
set_sendfile(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    int          on;
    const char  *err;

    (void) n;
    if ((err = flag(a[0], &on)) != NULL) {
        return err;
    }
    return set_str(&c->backend, on ? "sendfile" : "copy");
}

static const char *
set_keepalive_timeout(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    /* a second argument (the Keep-Alive: timeout= header) is accepted
     * for nginx compatibility and not sent */
    (void) n;
    return time_val(a[0], &c->keepalive_timeout);
}

static const char *
set_large_buffers(parse_t *ps, const char **a, int n)
{
    nicd_conf_t *c = ps->conf;
    const char  *err;

    (void) n;
    if ((err = positive_int(a[0], &c->large_header_buffers)) != NULL) {
        return err;
    }
    if ((err = size_val(a[1], &c->large_header_buffer_size)) != NULL) {
        return err;
    }
    if (c->large_header_buffer_size < 128
        || c->large_header_buffer_size * (size_t) c->large_header_buffers
               > 16 * 1024 * 1024) {
        return "buffers must be between 128 bytes and 16m in all";
    }
    return NULL;
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
            if ((err = positive_int(a[i] + 4, &c->open_file_cache_max))) {
                return err;
            }
        } else if (strncmp(a[i], "valid=", 6) == 0) {
            if ((err = time_val(a[i] + 6, &c->open_file_cache_valid))) {
                return err;
            }
        } else if (strncmp(a[i], "inactive=", 9) == 0) {
            if ((err = time_val(a[i] + 9, &c->open_file_cache_inactive))) {
                return err;
            }
        } else {
            return msgf("invalid parameter \"%s\"", a[i]);
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
    return set_str(&c->pid, a[0]);
}

/* the server {} at hand; at the top level, the implicit one (made on
 * first use: nicd's one-site form, "listen" and "location" at the top) */
static nicd_server_conf_t *
server_new(nicd_conf_t *c, nicd_loc_conf_t *loc, const char *where)
{
    nicd_server_conf_t *srv = conf_alloc(c, sizeof(*srv)), **all;

    all = conf_grow(c, c->servers, c->nservers, sizeof(*all));
    if (srv == NULL || all == NULL
        || (srv->where = conf_strdup(c, where)) == NULL) {
        return NULL;
    }
    srv->loc = loc;
    srv->index = c->nservers;
    loc->srv = srv;
    all[c->nservers++] = srv;
    c->servers = all;
    return srv;
}

static nicd_server_conf_t *
cur_server(parse_t *ps)
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
    srv = server_new(c, c->http, "the top level");
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
    return flag(a[0], SLOT(ps, int));
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
    return msgf("invalid value \"%s\", it must be %s", a[0], names);
}

static const nicd_conf_enum_t ims_values[] = {{"off", NICD_IMS_OFF},
                                              {"exact", NICD_IMS_EXACT},
                                              {"before", NICD_IMS_BEFORE},
                                              {NULL, 0}};
static const nicd_conf_enum_t symlink_modes[] = {
    {"off", NICD_SYMLINKS_OFF},
    {"outside", NICD_SYMLINKS_OUTSIDE},
    {"on", NICD_SYMLINKS_ON},
    {NULL, 0}};

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
        return msgf("invalid number \"%s\"", a[0]);
    }
    if (v < b->min || v > b->max) {
        return msgf("value must be between %ld and %ld", b->min, b->max);
    }
    *SLOT(ps, int) = (int) v;
    return NULL;
}

const char *
nicd_conf_slot_msec(parse_t *ps, const char **a, int n)
{
    (void) n;
    return time_val(a[0], SLOT(ps, long));
}

const char *
nicd_conf_slot_size(parse_t *ps, const char **a, int n)
{
    (void) n;
    return size_val(a[0], SLOT(ps, size_t));
}

const char *
nicd_conf_slot_positive(parse_t *ps, const char **a, int n)
{
    (void) n;
    return positive_int(a[0], SLOT(ps, int));
}

/* a string of the location's settings (arena) or of nicd_conf_t (heap) */
const char *
nicd_conf_slot_str(parse_t *ps, const char **a, int n)
{
    char *v;

    (void) n;
    if (loc_level(ps->d)) {
        v = conf_strdup(ps->conf, a[0]);
        if (v == NULL) {
            return "out of memory";
        }
        *SLOT(ps, char *) = v;
        return NULL;
    }
    return set_str(SLOT(ps, char *), a[0]);
}

static const char *
set_root(parse_t *ps, const char **a, int n)
{
    nicd_loc_conf_t *l = ps->loc;
    int              alias = strcmp(ps->d->name, "alias") == 0;

    (void) n;
    if (l->root != NULL && !ps->override) {
        return l->alias == alias ? "is duplicate"
                                 : msgf("\"%s\" directive is duplicate, "
                                        "\"%s\" was specified earlier",
                                        ps->d->name, alias ? "root" : "alias");
    }
    if (alias && (l->kind == NICD_LOC_SERVER || l->kind == NICD_LOC_NAMED)) {
        return "is not allowed here";
    }
    if (strchr(a[0], '$') != NULL
        && !(alias
             && (l->kind == NICD_LOC_REGEX || l->kind == NICD_LOC_REGEX_CI))) {
        return msgf("variables in \"%s\" are not supported (only regex "
                    "captures in an alias of a regex location)",
                    a[0]);
    }
    l->root = conf_strdup(ps->conf, a[0]);
    l->alias = alias;
    l->root_vars = strchr(a[0], '$') != NULL;
    return l->root == NULL ? "out of memory" : NULL;
}

/* server_name names a server (several add up, as in nginx); "~" makes a
 * regex; "" (no name) is accepted and matches requests without Host */
static const char *
set_server_name(parse_t *ps, const char **a, int n)
{
    nicd_server_conf_t *sv = cur_server(ps);
    int                 i;
    char                err[512];

    if (sv == NULL) {
        return "out of memory";
    }
    for (i = 0; i < n; i++) {
        sv->names = conf_grow(ps->conf, sv->names, sv->nnames, sizeof(char *));
        sv->name_re =
            conf_grow(ps->conf, sv->name_re, sv->nnames, sizeof(void *));
        if (sv->names == NULL || sv->name_re == NULL
            || (sv->names[sv->nnames] = conf_strdup(ps->conf, a[i])) == NULL) {
            return "out of memory";
        }
        sv->name_re[sv->nnames] = NULL;
        if (a[i][0] == '~') {
            sv->name_re[sv->nnames] =
                conf_regex(ps->conf, a[i] + 1, 1, err, sizeof(err));
            if (sv->name_re[sv->nnames] == NULL) {
                return msgf("%s", err);
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
        return msgf("invalid number \"%s\"", a[0]);
    }
    ps->loc->max_ranges = (int) v;
    return NULL;
}

static const char *
set_limit_rate(parse_t *ps, const char **a, int n)
{
    size_t v;

    (void) n;
    if (nicd_parse_size(a[0], &v) != 0) {
        return msgf("invalid size \"%s\"", a[0]);
    }
    ps->loc->limit_rate = (long) v;
    return NULL;
}

/* in a server {} block: that block's certificate (SNI); elsewhere the
 * http-level one, which blocks without their own inherit */
static const char *
set_ssl_certificate(parse_t *ps, const char **a, int n)
{
    int key = strcmp(ps->d->name, "ssl_certificate_key") == 0;

    (void) n;
    if (ps->srv != NULL) {
        char **dst = key ? &ps->srv->key : &ps->srv->cert;

        *dst = conf_strdup(ps->conf, a[0]);
        return *dst == NULL ? "out of memory" : NULL;
    }
    return set_str(key ? &ps->conf->ssl_certificate_key
                       : &ps->conf->ssl_certificate,
                   a[0]);
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

/* a location's content handler: one a location */
static const char *
set_handler(parse_t *ps, nicd_content_pt h, const char *name)
{
    nicd_loc_conf_t *l = ps->loc;

    if (l->kind == NICD_LOC_SERVER) {
        return "is not allowed here (only in a location)";
    }
    if (l->handler != NULL) {
        return msgf("is duplicate: the location already has \"%s\"",
                    l->handler_name);
    }
    l->handler = h;
    l->handler_name = conf_strdup(ps->conf, name);
    return l->handler_name == NULL ? "out of memory" : NULL;
}

const char *
nicd_conf_handler(parse_t *ps, nicd_content_pt h, const char *name)
{
    return set_handler(ps, h, name);
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

#define CONF(f) offsetof(nicd_conf_t, f)
#define LOC(f)  offsetof(nicd_loc_conf_t, f)
#define MH      (CTX_MAIN | CTX_HTTP)
/* nicd keeps one value of these for every server: allowed in server {}
 * and location {} as nginx allows them, with a warning (docs/config.md) */
#define MHS (CTX_MAIN | CTX_HTTP | CTX_SRV | CTX_LOC | CTX_ONE)

/* the core's directives; modules bring their own tables (directive.h) */
static const directive_t core_directives[] = {
    {"worker_threads", CTX_MAIN, 1, 1, set_worker_threads, 0},
    {"worker_processes", CTX_MAIN, 1, 1, set_worker_threads, 0},
    {"worker_connections", CTX_MAIN, 1, 1, nicd_conf_slot_positive,
     CONF(worker_connections)},
    {"worker_rlimit_nofile", CTX_MAIN, 1, 1, nicd_conf_slot_positive,
     CONF(worker_rlimit_nofile)},
    {"listen", CTX_SRV, 1, 8, set_listen, 0},
    {"server_name", CTX_SRV, 1, MAX_ARGS, set_server_name, 0},
    {"root", CTX_HSL, 1, 1, set_root, 0},
    {"alias", CTX_LOC, 1, 1, set_root, 0},
    {"default_type", CTX_HSL, 1, 1, nicd_conf_slot_str, LOC(default_type)},
    {"charset", CTX_HSL, 1, 1, nicd_conf_slot_str, LOC(charset)},
    {"if_modified_since", CTX_HSL, 1, 1, nicd_conf_slot_enum,
     LOC(if_modified_since), 0, ims_values},
    {"etag", CTX_HSL, 1, 1, nicd_conf_slot_flag, LOC(etag)},
    {"max_ranges", CTX_HSL, 1, 1, set_max_ranges, 0},
    {"limit_rate", CTX_HSL, 1, 1, set_limit_rate, 0},
    {"internal", CTX_LOC, 0, 0, set_internal, 0},
    {"gzip_vary", CTX_HSL, 1, 1, nicd_conf_slot_flag, LOC(gzip_vary)},
    {"absolute_redirect", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     LOC(absolute_redirect)},
    {"disable_symlinks", MHS, 1, 1, nicd_conf_slot_enum, CONF(disable_symlinks),
     0, symlink_modes},
    {"error_log", MHS, 1, 2, set_error_log, 0},
    {"send_backend", MH, 1, 1, set_backend, 0},
    {"sendfile", MHS, 1, 1, set_sendfile, 0},
    {"sendfile_max_chunk", MHS, 1, 1, nicd_conf_slot_size,
     CONF(sendfile_max_chunk)},
    {"client_header_timeout", MHS, 1, 1, nicd_conf_slot_msec,
     CONF(client_header_timeout)},
    {"keepalive_timeout", MHS, 1, 2, set_keepalive_timeout, 0},
    {"send_timeout", MHS, 1, 1, nicd_conf_slot_msec, CONF(send_timeout)},
    {"keepalive_requests", MHS, 1, 1, nicd_conf_slot_positive,
     CONF(keepalive_requests)},
    {"client_header_buffer_size", MHS, 1, 1, nicd_conf_slot_size,
     CONF(client_header_buffer_size)},
    {"large_client_header_buffers", MHS, 2, 2, set_large_buffers, 0},
    {"client_max_body_size", MHS, 1, 1, nicd_conf_slot_size,
     CONF(client_max_body_size)},
    {"open_file_cache", MHS, 1, 3, set_open_file_cache, 0},
    {"open_file_cache_valid", MHS, 1, 1, nicd_conf_slot_msec,
     CONF(open_file_cache_valid)},
    {"server_tokens", MHS, 1, 1, nicd_conf_slot_flag, CONF(server_tokens)},
    {"pid", CTX_MAIN, 1, 1, set_pid, 0},
    {"ssl_certificate", CTX_TOP, 1, 1, set_ssl_certificate, 0},
    {"ssl_certificate_key", CTX_TOP, 1, 1, set_ssl_certificate, 0},
    {"ssl_protocols", MH, 1, 4, set_ssl_protocols, 0},
    {"ssl_ciphers", MH, 1, 1, nicd_conf_slot_str, CONF(ssl_ciphers)},
    {"ssl_prefer_server_ciphers", MH, 1, 1, nicd_conf_slot_flag,
     CONF(ssl_prefer_server_ciphers)},
    {"ssl_session_cache", MH, 1, 3, set_ssl_session_cache, 0},
    {"ssl_session_timeout", MH, 1, 1, nicd_conf_slot_msec,
     CONF(ssl_session_timeout)},
    {"ssl_session_tickets", MH, 1, 1, nicd_conf_slot_flag,
     CONF(ssl_session_tickets)},
    {"ssl_dhparam", MH, 1, 1, nicd_conf_slot_str, CONF(ssl_dhparam)},
    {"http2_max_concurrent_streams", MH, 1, 1, nicd_conf_slot_positive,
     CONF(http2_max_concurrent_streams)},
    {"http2_max_header_size", MH, 1, 1, nicd_conf_slot_size,
     CONF(http2_max_header_size)},
    {"http2_max_field_size", MH, 1, 1, nicd_conf_slot_size,
     CONF(http2_max_header_size)},
    {"http2_recv_buffer_size", MH, 1, 1, set_h2_recv_buffer, 0},
    /* nginx's housekeeping: nothing to do for nicd (docs/config.md) */
    {"tcp_nopush", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"tcp_nodelay", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"user", CTX_MAIN, 1, 2, nicd_conf_housekeeping, 0},
    {"daemon", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"master_process", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"multi_accept", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"use", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"accept_mutex", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"pcre_jit", CTX_MAIN, 1, 1, nicd_conf_housekeeping, 0},
    {"types_hash_max_size", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping,
     0},
    {"types_hash_bucket_size", CTX_HSL | CTX_MAIN, 1, 1, nicd_conf_housekeeping,
     0},
    {"server_names_hash_bucket_size", MH, 1, 1, nicd_conf_housekeeping, 0},
    {"server_names_hash_max_size", MH, 1, 1, nicd_conf_housekeeping, 0},
    {"ssl_session_ticket_key", MH, 1, 1, nicd_conf_housekeeping, 0},
    {"ssl_stapling", CTX_TOP, 1, 1, nicd_conf_housekeeping, 0},
    {"ssl_stapling_verify", CTX_TOP, 1, 1, nicd_conf_housekeeping, 0},
    {"server_name_in_redirect", CTX_HSL, 1, 1, nicd_conf_housekeeping, 0},
    {"port_in_redirect", CTX_HSL, 1, 1, nicd_conf_housekeeping, 0},
    {"types", MHS, 0, 0, set_types, 0, CTX_LINES},
    {NULL, 0, 0, 0, NULL, 0},
};

static const directive_t *
table_find(const directive_t *d, const char *name)
{
    for (; d != NULL && d->name != NULL; d++) {
        if (strcmp(d->name, name) == 0) {
            return d;
        }
    }
    return NULL;
}

/* the core's directive name, else a module's (*m, unless m is NULL: its
 * module, NULL for the core's) */
static const directive_t *
directive_find(const nicd_conf_t *c, const char *name, const nicd_module_t **m)
{
    const directive_t   *d = table_find(core_directives, name);
    const nicd_module_t *owner = NULL;
    int                  i;

    for (i = 0; d == NULL && i < c->nmodules; i++) {
        d = table_find(c->modules[i]->directives, name);
        owner = c->modules[i];
    }
    if (m != NULL) {
        *m = owner;
    }
    return d;
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

/* the tokenizer */

enum { T_WORD, T_SEMI, T_OPEN, T_CLOSE, T_EOF, T_ERROR };

static int fail(parse_t *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(parse_t *ps, const char *fmt, ...)
{
    va_list ap;
    size_t  n;

    va_start(ap, fmt);
    vsnprintf(ps->err, ps->errlen, fmt, ap);
    va_end(ap);
    n = strlen(ps->err);
    snprintf(ps->err + n, ps->errlen - n, " in %s:%d", ps->name, ps->line);
    return T_ERROR;
}

/*
 * A backslash as nginx reads it: before a quote or a backslash it is
 * dropped, \n \t \r are the control characters, and before anything
 * else it stays (so "\." in a regex keeps its meaning).
 */
static void
escape(nicd_buf_t *b, const char **p)
{
    const char *q = *p + 1;

    switch (*q) {
    case '"':
    case '\'':
    case '\\': nicd_buf_add(b, q, 1); break;
    case 'n': nicd_buf_add(b, "\n", 1); break;
    case 't': nicd_buf_add(b, "\t", 1); break;
    case 'r': nicd_buf_add(b, "\r", 1); break;
    default: nicd_buf_add(b, *p, 2);
    }
    *p += 2;
}

/* Next token; a word is stored in *word (malloc'ed). */
static int
next_token(parse_t *ps, char **word)
{
    nicd_buf_t b = {0};
    char       q;

    for (;;) {
        while (ps->p < ps->end && isspace((unsigned char) *ps->p)) {
            if (*ps->p == '\n') {
                ps->line++;
            }
            ps->p++;
        }
        if (ps->p < ps->end && *ps->p == '#') {
            while (ps->p < ps->end && *ps->p != '\n') {
                ps->p++;
            }
            continue;
        }
        break;
    }

    if (ps->p == ps->end) {
        return T_EOF;
    }
    switch (*ps->p) {
    case ';': ps->p++; return T_SEMI;
    case '{': ps->p++; return T_OPEN;
    case '}': ps->p++; return T_CLOSE;
    }

    if (*ps->p == '"' || *ps->p == '\'') {
        q = *ps->p++;
        while (ps->p < ps->end && *ps->p != q) {
            if (*ps->p == '\\' && ps->p + 1 < ps->end) {
                escape(&b, &ps->p);
                continue;
            }
            if (*ps->p == '\n') {
                ps->line++;
            }
            nicd_buf_add(&b, ps->p++, 1);
        }
        if (ps->p == ps->end) {
            nicd_buf_free(&b);
            return fail(ps, "unexpected end of file, expecting %c", q);
        }
        ps->p++;
    } else {
        while (ps->p < ps->end && !isspace((unsigned char) *ps->p)
               && *ps->p != ';' && *ps->p != '{' && *ps->p != '}') {
            if (*ps->p == '\\' && ps->p + 1 < ps->end) {
                escape(&b, &ps->p);
                continue;
            }
            nicd_buf_add(&b, ps->p++, 1);
        }
    }
    nicd_buf_add(&b, "", 1);
    if (nicd_buf_failed(&b)) {
        nicd_buf_free(&b);
        return fail(ps, "out of memory");
    }
    *word = b.data;
    return T_WORD;
}

static void
free_words(parse_t *ps)
{
    int i;

    for (i = 0; i < ps->nwords; i++) {
        free(ps->words[i]);
    }
    ps->nwords = 0;
}

/* is d allowed where ps stands?  The top level is main, http and the
 * implicit server at once (nicd's one-site form). */
static int
allowed(const parse_t *ps, const directive_t *d)
{
    return (d->ctx & ps->ctx) != 0;
}

static const char *
ctx_name(unsigned ctx)
{
    switch (ctx) {
    case CTX_MAIN: return "events";
    case CTX_HTTP: return "http";
    case CTX_SRV: return "server";
    case CTX_LOC: return "location";
    case CTX_IF: return "if";
    }
    return "the top level";
}

/* Apply words[0] (args after it) where ps stands.  0, or -1 with err. */
static int
apply(parse_t *ps, const char *name, const char **args, int nargs,
      const char *where)
{
    const nicd_module_t *m;
    const directive_t   *d = directive_find(ps->conf, name, &m);
    const char          *msg;
    int                  i;

    if (d == NULL) {
        if (snic_backend_claims(name)) {
            if (!(ps->ctx & (CTX_MAIN | CTX_HTTP))) {
                fail(ps,
                     "\"%s\" directive is not allowed here (a send "
                     "backend's settings apply to every server: put it "
                     "in http {})",
                     name);
                return -1;
            }
            if (nargs != 1) {
                fail(ps, "invalid number of arguments in \"%s\" directive",
                     name);
                return -1;
            }
            if (add_param(ps->conf, name, args[0], where) != 0) {
                fail(ps, "out of memory");
                return -1;
            }
            return 0;
        }
        /* a name a module makes its own (a send backend's report,
         * "nic_status;") */
        for (i = 0; i < ps->conf->nmodules; i++) {
            m = ps->conf->modules[i];
            if (m->unknown != NULL && m->unknown(ps, name, nargs, &msg)) {
                if (msg != NULL) {
                    fail(ps, "\"%s\" %s", name, msg);
                    return -1;
                }
                return 0;
            }
        }
        fail(ps, "unknown directive \"%s\"", name);
        return -1;
    }
    if (!allowed(ps, d)) {
        fail(ps, "\"%s\" directive is not allowed in %s", name,
             ctx_name(ps->ctx));
        return -1;
    }
    if (nargs < d->min || nargs > d->max) {
        fail(ps, "invalid number of arguments in \"%s\" directive", name);
        return -1;
    }
    if ((d->ctx & CTX_ONE) && (ps->ctx & (CTX_SRV | CTX_LOC))
        && ps->ctx != CTX_TOP) {
        log_error(LOG_WARN, 0,
                  "\"%s\" in %s applies to every server of nicd, which keeps "
                  "one value of it, in %s:%d",
                  name, ctx_name(ps->ctx), ps->name, ps->line);
    }
    ps->d = d;
    ps->module = m;
    msg = d->set(ps, args, nargs);
    ps->d = NULL;
    ps->module = NULL;
    if (msg != NULL) {
        if (strncmp(msg, "is ", 3) == 0) {
            fail(ps, "\"%s\" directive %s", name, msg);
        } else {
            fail(ps, "%s in \"%s\" directive", msg, name);
        }
        return -1;
    }
    return 0;
}

int
nicd_conf_set(nicd_conf_t *c, const char *name, const char **args, int nargs,
              char *err, size_t errlen)
{
    parse_t ps;

    memset(&ps, 0, sizeof(ps));
    ps.conf = c;
    ps.name = "command line";
    ps.err = err;
    ps.errlen = errlen;
    ps.ctx = CTX_TOP;
    ps.loc = c->http;
    if (apply(&ps, name, args, nargs, "command line") != 0) {
        /* the command line has no line number */
        char *in = strstr(err, " in command line:");

        if (in != NULL) {
            *in = '\0';
        }
        return -1;
    }
    return 0;
}

static int parse_block(parse_t *ps, const char *block);
static int block_directive(parse_t *ps);
static int parse_text(parse_t *outer, const char *text, size_t len,
                      const char *name, const char *dir);

static int
include_file(parse_t *ps, const char *full)
{
    char        dir[4096];
    char       *text = NULL, *slash;
    struct stat st;
    int         fd, rc = -1;
    ssize_t     n;

    snprintf(dir, sizeof(dir), "%s", full);
    slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
    } else {
        strcpy(dir, ".");
    }

    fd = open(full, O_RDONLY | O_CLOEXEC);
    if (fd == -1 || fstat(fd, &st) != 0) {
        fail(ps, "open() \"%s\" failed (%s)", full, strerror(errno));
        goto err;
    }
    text = malloc((size_t) st.st_size + 1);
    if (text == NULL) {
        fail(ps, "out of memory");
        goto err;
    }
    n = read(fd, text, (size_t) st.st_size);
    if (n != st.st_size) {
        fail(ps, "read() \"%s\" failed", full);
        goto err;
    }
    rc = parse_text(ps, text, (size_t) n, full, dir);

err:
    free(text);
    if (fd != -1) {
        close(fd);
    }
    return rc;
}

/* "include PATH": a file, or every file a glob matches in name order (none
 * is no error, as in nginx); relative to the including file's directory */
static int
do_include(parse_t *ps, const char *path)
{
    char   full[4096];
    glob_t g;
    size_t i;
    int    rc;

    if (path[0] == '/' || ps->dir == NULL) {
        snprintf(full, sizeof(full), "%s", path);
    } else {
        snprintf(full, sizeof(full), "%s/%s", ps->dir, path);
    }
    if (strpbrk(path, "*?[") == NULL) {
        return include_file(ps, full);
    }
    rc = glob(full, GLOB_ERR, NULL, &g);
    if (rc == GLOB_NOMATCH) {
        return 0;
    }
    if (rc != 0) {
        fail(ps, "glob() \"%s\" failed", full);
        return -1;
    }
    for (i = 0; i < g.gl_pathc && rc == 0; i++) {
        rc = include_file(ps, g.gl_pathv[i]);
    }
    globfree(&g);
    return rc;
}

/* "location [=|~|~*|^~] PATH {" or "location @NAME {" seen */
static int
parse_location(parse_t *ps)
{
    nicd_conf_t     *c = ps->conf;
    nicd_loc_conf_t *l, *outer = ps->loc;
    unsigned         octx = ps->ctx;
    const char      *mod = ps->nwords == 3 ? ps->words[1] : "";
    const char      *name = ps->words[ps->nwords - 1];
    char             where[512], err[512];
    int              kind, rc;

    if (ps->nwords != 2 && ps->nwords != 3) {
        fail(ps, "invalid number of arguments in \"location\" directive");
        return -1;
    }
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
        fail(ps, "invalid location modifier \"%s\"", mod);
        return -1;
    }
    if (outer->kind == NICD_LOC_EXACT || outer->kind == NICD_LOC_NAMED) {
        fail(ps, "location \"%s\" cannot be inside the %s location \"%s\"",
             name, outer->kind == NICD_LOC_EXACT ? "exact" : "named",
             outer->name);
        return -1;
    }
    if (kind == NICD_LOC_NAMED && outer->kind != NICD_LOC_SERVER) {
        fail(ps, "named location \"%s\" can be on the server level only", name);
        return -1;
    }
    if ((kind == NICD_LOC_PREFIX || kind == NICD_LOC_NOREGEX
         || kind == NICD_LOC_EXACT)
        && outer->kind != NICD_LOC_SERVER && outer->kind != NICD_LOC_REGEX
        && outer->kind != NICD_LOC_REGEX_CI
        && strncmp(name, outer->name, outer->name_len) != 0) {
        fail(ps, "location \"%s\" is outside location \"%s\"", name,
             outer->name);
        return -1;
    }
    l = loc_new(c, kind);
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    if (l == NULL || (l->name = conf_strdup(c, name)) == NULL
        || (l->where = conf_strdup(c, where)) == NULL) {
        fail(ps, "out of memory");
        return -1;
    }
    l->name_len = strlen(name);
    if (kind == NICD_LOC_REGEX || kind == NICD_LOC_REGEX_CI) {
        l->re =
            conf_regex(c, name, kind == NICD_LOC_REGEX_CI, err, sizeof(err));
        if (l->re == NULL) {
            fail(ps, "%s", err);
            return -1;
        }
    }
    free_words(ps);
    l->parent = outer;
    l->srv = outer->srv;
    if (l->srv == NULL) {
        /* a location at the top level belongs to the implicit server */
        l->srv = cur_server(ps);
        if (l->srv == NULL) {
            fail(ps, "out of memory");
            return -1;
        }
    }
    outer->locs = conf_grow(c, outer->locs, outer->nlocs, sizeof(l));
    if (outer->locs == NULL) {
        fail(ps, "out of memory");
        return -1;
    }
    outer->locs[outer->nlocs++] = l;
    if (kind == NICD_LOC_NAMED) {
        nicd_server_conf_t *sv = l->srv;

        sv->named = conf_grow(c, sv->named, sv->nnamed, sizeof(l));
        if (sv->named == NULL) {
            fail(ps, "out of memory");
            return -1;
        }
        sv->named[sv->nnamed++] = l;
    }
    ps->loc = l;
    ps->ctx = CTX_LOC;
    ps->depth++;
    rc = parse_block(ps, "location");
    ps->depth--;
    ps->loc = outer;
    ps->ctx = octx;
    return rc;
}

/* The lines of a CTX_LINES block up to its "}": each one's words go to
 * the handler the block's directive set (ps->lines). */
static int
parse_lines(parse_t *ps, const char *block)
{
    const char *msg;
    char       *w;
    int         t;

    for (;;) {
        t = next_token(ps, &w);
        if (t == T_ERROR) {
            free_words(ps);
            return -1;
        }
        if (t == T_WORD) {
            if (ps->nwords == MAX_ARGS + 2) {
                free(w);
                free_words(ps);
                fail(ps, "too many words in a \"%s\" line", block);
                return -1;
            }
            ps->words[ps->nwords++] = w;
            continue;
        }
        if (t == T_CLOSE && ps->nwords == 0) {
            return 0;
        }
        if (t != T_SEMI || ps->nwords == 0) {
            free_words(ps);
            fail(ps, "unexpected %s in \"%s\"",
                 t == T_EOF ? "end of file" : "\";\" or \"}\"", block);
            return -1;
        }
        msg = ps->lines(ps, (const char **) ps->words, ps->nwords);
        free_words(ps);
        if (msg != NULL) {
            fail(ps, "%s in \"%s\"", msg, block);
            return -1;
        }
    }
}

/* A directive with a block of its own ("if (...) {"): its setter says
 * where the block's directives go (ps->loc), read with the context the
 * directive names, then where things were is restored. */
static int
block_directive(parse_t *ps)
{
    const directive_t *d = directive_find(ps->conf, ps->words[0], NULL);
    nicd_loc_conf_t   *loc = ps->loc;
    unsigned           ctx = ps->ctx;
    char               name[32], where[512];
    int                rc;

    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    snprintf(name, sizeof(name), "%s", ps->words[0]);
    if (apply(ps, ps->words[0], (const char **) ps->words + 1, ps->nwords - 1,
              where)
        != 0) {
        ps->loc = loc;
        return -1;
    }
    free_words(ps);
    ps->ctx = d->block;
    ps->depth++;
    rc = d->block == CTX_LINES ? parse_lines(ps, name) : parse_block(ps, name);
    ps->depth--;
    ps->loc = loc;
    ps->ctx = ctx;
    ps->lines = NULL;
    return rc;
}

static int
directive(parse_t *ps)
{
    char where[512];

    if (strcmp(ps->words[0], "include") == 0) {
        if (ps->nwords != 2) {
            fail(ps, "invalid number of arguments in \"include\" directive");
            return -1;
        }
        return do_include(ps, ps->words[1]);
    }
    if (directive_find(ps->conf, ps->words[0], NULL) != NULL
        && directive_find(ps->conf, ps->words[0], NULL)->block != 0) {
        fail(ps, "directive \"%s\" has no opening \"{\"", ps->words[0]);
        return -1;
    }
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    return apply(ps, ps->words[0], (const char **) ps->words + 1,
                 ps->nwords - 1, where);
}

/* "server {" seen: a site of its own */
static int
parse_server(parse_t *ps)
{
    nicd_conf_t        *c = ps->conf;
    nicd_server_conf_t *sv;
    nicd_loc_conf_t    *l;
    char                where[512];
    unsigned            octx = ps->ctx;
    int                 rc;

    if (!(ps->ctx & CTX_HTTP) || ps->srv != NULL) {
        fail(ps, "\"server\" directive is not allowed in %s",
             ctx_name(ps->ctx));
        return -1;
    }
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    l = loc_new(c, NICD_LOC_SERVER);
    sv = l == NULL ? NULL : server_new(c, l, where);
    if (sv == NULL || (l->name = conf_strdup(c, "")) == NULL) {
        fail(ps, "out of memory");
        return -1;
    }
    l->parent = c->http;
    l->where = sv->where;
    ps->srv = sv;
    ps->loc = l;
    ps->ctx = CTX_SRV;
    ps->depth++;
    rc = parse_block(ps, "server");
    ps->depth--;
    ps->srv = NULL;
    ps->loc = c->http;
    ps->ctx = octx;
    return rc;
}

/* Parse directives until "}" (block != NULL) or the end of the text. */
static int
parse_block(parse_t *ps, const char *block)
{
    char *w;
    int   t, rc;

    for (;;) {
        t = next_token(ps, &w);
        switch (t) {
        case T_ERROR: free_words(ps); return -1;

        case T_WORD:
            if (ps->nwords == MAX_ARGS + 1) {
                free(w);
                free_words(ps);
                fail(ps, "too many arguments");
                return -1;
            }
            ps->words[ps->nwords++] = w;
            break;

        case T_SEMI:
            if (ps->nwords == 0) {
                fail(ps, "unexpected \";\"");
                return -1;
            }
            rc = directive(ps);
            free_words(ps);
            if (rc != 0) {
                return -1;
            }
            break;

        case T_OPEN:
            if (ps->nwords == 0) {
                fail(ps, "unexpected \"{\"");
                return -1;
            }
            if (ps->depth >= MAX_DEPTH) {
                free_words(ps);
                fail(ps, "blocks nested too deeply");
                return -1;
            }
            if (strcmp(ps->words[0], "location") == 0) {
                if (!(ps->ctx & (CTX_SRV | CTX_LOC))) {
                    free_words(ps);
                    fail(ps, "\"location\" directive is not allowed in %s",
                         ctx_name(ps->ctx));
                    return -1;
                }
                if (parse_location(ps) != 0) {
                    free_words(ps); /* those of an early error */
                    return -1;
                }
                break;
            }
            if (strcmp(ps->words[0], "server") == 0 && ps->nwords == 1) {
                free_words(ps);
                if (parse_server(ps) != 0) {
                    return -1;
                }
                break;
            }
            if ((strcmp(ps->words[0], "http") == 0
                 || strcmp(ps->words[0], "events") == 0)
                && ps->nwords == 1 && ps->ctx == CTX_TOP) {
                char     name[16];
                unsigned octx = ps->ctx;

                snprintf(name, sizeof(name), "%s", ps->words[0]);
                free_words(ps);
                ps->ctx = name[0] == 'h' ? CTX_HTTP : CTX_MAIN;
                ps->depth++;
                rc = parse_block(ps, name);
                ps->depth--;
                ps->ctx = octx;
                if (rc != 0) {
                    return -1;
                }
                break;
            }
            if (directive_find(ps->conf, ps->words[0], NULL) != NULL
                && directive_find(ps->conf, ps->words[0], NULL)->block != 0) {
                rc = block_directive(ps);
                free_words(ps);
                if (rc != 0) {
                    return -1;
                }
                break;
            }
            fail(ps, "\"%s\" blocks are not supported", ps->words[0]);
            free_words(ps);
            return -1;

        case T_CLOSE:
            if (ps->nwords != 0 || block == NULL) {
                free_words(ps);
                fail(ps, "unexpected \"}\"");
                return -1;
            }
            return 0;

        case T_EOF:
            if (ps->nwords != 0) {
                free_words(ps);
                fail(ps, "unexpected end of file, expecting \";\" or \"}\"");
                return -1;
            }
            if (block != NULL) {
                fail(ps, "unexpected end of file, expecting \"}\"");
                return -1;
            }
            return 0;
        }
    }
}

/* Parse text as if it stood where outer stands (an include). */
static int
parse_text(parse_t *outer, const char *text, size_t len, const char *name,
           const char *dir)
{
    parse_t ps = *outer;
    int     rc;

    if (outer->depth >= MAX_DEPTH) {
        fail(outer, "includes nested too deeply");
        return -1;
    }
    ps.name = name;
    ps.dir = dir;
    ps.p = text;
    ps.end = text + len;
    ps.line = 1;
    ps.nwords = 0;
    ps.depth = outer->depth + 1;
    rc = parse_block(&ps, NULL);
    return rc;
}

static void
parse_init(parse_t *ps, nicd_conf_t *c, char *err, size_t errlen)
{
    memset(ps, 0, sizeof(*ps));
    ps->conf = c;
    ps->name = "command line";
    ps->err = err;
    ps->errlen = errlen;
    ps->ctx = CTX_TOP;
    ps->loc = c->http;
}

int
nicd_conf_parse_file(nicd_conf_t *c, const char *path, char *err, size_t errlen)
{
    parse_t ps;

    parse_init(&ps, c, err, errlen);
    if (set_str(&c->file, path) != NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return do_include(&ps, path);
}

static int
parse_string(nicd_conf_t *c, const char *text, const char *name, int override,
             char *err, size_t errlen)
{
    parse_t ps;

    parse_init(&ps, c, err, errlen);
    ps.dir = ".";
    ps.depth = -1;
    ps.override = override;
    return parse_text(&ps, text, strlen(text), name, ".");
}

int
nicd_conf_parse_string(nicd_conf_t *c, const char *text, const char *name,
                       char *err, size_t errlen)
{
    return parse_string(c, text, name, 0, err, errlen);
}

int
nicd_conf_parse_override(nicd_conf_t *c, const char *text, char *err,
                         size_t errlen)
{
    return parse_string(c, text, "command line", 1, err, errlen);
}

/*
 * Each server's certificate and key: its own, else the http-level ones;
 * with none at http level, the first server with a certificate gives the
 * default one (clients without SNI, or naming no server), as nginx's
 * first server is the default of its listen.  0, or -1 with err.
 */
static int
finish_certificates(nicd_conf_t *c, char *err, size_t errlen)
{
    nicd_server_conf_t *sv;
    int                 i;

    for (i = 0; i < c->nservers; i++) {
        sv = c->servers[i];
        if (sv->cert == NULL) {
            sv->cert = c->ssl_certificate;
        }
        if (sv->key == NULL) {
            sv->key = c->ssl_certificate_key;
        }
        if (c->nssl > 0 && sv->cert != NULL && sv->key == NULL) {
            snprintf(err, errlen,
                     "no \"ssl_certificate_key\" is defined for certificate "
                     "\"%s\" of the server block at %s",
                     sv->cert, sv->where != NULL ? sv->where : "?");
            return -1;
        }
    }
    for (i = 0; i < c->nservers && c->ssl_certificate == NULL; i++) {
        sv = c->servers[i];
        if (sv->cert != NULL && sv->key != NULL
            && (set_str(&c->ssl_certificate, sv->cert) != NULL
                || set_str(&c->ssl_certificate_key, sv->key) != NULL)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
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

/* a server without listen: the implicit server's addresses, else the
 * default one (nginx's is *:80; nicd's is 127.0.0.1:8080) */
static int
finish_listens(nicd_conf_t *c, char *err, size_t errlen)
{
    nicd_server_conf_t *sv, *imp = NULL;
    parse_t             ps;
    const char         *a[1];
    int                 i, k, li;

    if (c->nservers == 0 || c->listen_override != NULL) {
        parse_init(&ps, c, err, errlen);
        if (c->nservers == 0 && cur_server(&ps) == NULL) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    if (c->listen_override != NULL) {
        /* --listen: every server on that one address */
        while (c->nlistens > 0) {
            free(c->listens[--c->nlistens].text);
        }
        c->nssl = 0;
        for (i = 0; i < c->nservers; i++) {
            c->servers[i]->nlistens = 0;
        }
    }
    for (i = 0; i < c->nservers; i++) {
        if (c->servers[i]->implicit && c->servers[i]->nlistens > 0) {
            imp = c->servers[i];
        }
    }
    for (i = 0; i < c->nservers; i++) {
        sv = c->servers[i];
        if (sv->nlistens > 0) {
            continue;
        }
        if (imp != NULL && c->listen_override == NULL) {
            sv->listens = imp->listens;
            sv->nlistens = imp->nlistens;
            continue;
        }
        parse_init(&ps, c, err, errlen);
        ps.srv = sv;
        a[0] =
            c->listen_override != NULL ? c->listen_override : "127.0.0.1:8080";
        if (apply(&ps, "listen", a, 1, "default") != 0) {
            return -1;
        }
        if (imp == NULL && sv->implicit) {
            imp = sv;
        }
    }
    /* per address, its servers with the default first */
    c->listen_servers = conf_alloc(c, sizeof(void *) * (size_t) c->nlistens);
    c->listen_nservers = conf_alloc(c, sizeof(int) * (size_t) c->nlistens);
    if (c->listen_servers == NULL || c->listen_nservers == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (li = 0; li < c->nlistens; li++) {
        nicd_server_conf_t **list;
        int                  n = 0;

        list = conf_alloc(c, sizeof(*list) * (size_t) (c->nservers + 1));
        if (list == NULL) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (c->listens[li].default_srv >= 0) {
            list[n++] = c->servers[c->listens[li].default_srv];
        }
        for (i = 0; i < c->nservers; i++) {
            for (k = 0; k < c->servers[i]->nlistens; k++) {
                if (c->servers[i]->listens[k] == li
                    && i != c->listens[li].default_srv) {
                    list[n++] = c->servers[i];
                    break;
                }
            }
        }
        c->listen_servers[li] = list;
        c->listen_nservers[li] = n;
    }
    return 0;
}

int
nicd_conf_finish(nicd_conf_t *c, char *err, size_t errlen)
{
    size_t i;
    int    k;

    if (finish_listens(c, err, errlen) != 0) {
        return -1;
    }
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
    if (c->backend == NULL) {
        c->backend = strdup(snic_backend_default()->name);
    }
    if (c->types == NULL) {
        c->types = nicd_mime_builtin();
    }
    if (c->backend == NULL || c->types == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (finish_certificates(c, err, errlen) != 0) {
        return -1;
    }
    if (c->nssl > 0
        && (c->ssl_certificate == NULL || c->ssl_certificate_key == NULL)) {
        for (i = 0; !c->listens[i].ssl; i++) {
        }
        snprintf(err, errlen,
                 "no \"ssl_certificate%s\" is defined for the \"listen %s "
                 "ssl\" directive in %s",
                 c->ssl_certificate == NULL ? "" : "_key", c->listens[i].text,
                 c->listens[i].where);
        return -1;
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
    if (c->client_header_buffer_size < 128) {
        c->client_header_buffer_size = 128; /* 0 would never read */
    }
    if (c->client_header_buffer_size
        > c->large_header_buffer_size * (size_t) c->large_header_buffers) {
        c->client_header_buffer_size =
            c->large_header_buffer_size * (size_t) c->large_header_buffers;
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
