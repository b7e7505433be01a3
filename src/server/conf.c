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

#include "buf.h"
#include "conf.h"
#include "config.h"
#include "log.h"

#define MAX_ARGS  16
#define MAX_DEPTH 8

/* MIME types: an open-addressing table of lowercase extensions */

typedef struct {
    char *ext;
    char *type;
} mime_slot_t;

struct nicd_mime_s {
    mime_slot_t *slots;
    size_t       size; /* power of two */
    size_t       used;
};

static uint32_t
hash_lower(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    size_t   i;

    for (i = 0; i < len; i++) {
        h ^= (uint32_t) tolower((unsigned char) s[i]);
        h *= 16777619u;
    }
    return h;
}

static int
mime_add(nicd_mime_t *m, const char *ext, const char *type)
{
    size_t       i, len = strlen(ext);
    mime_slot_t *old;
    size_t       oldsize, k;

    if ((m->used + 1) * 2 > m->size) {
        old = m->slots;
        oldsize = m->size;
        m->size = m->size ? m->size * 2 : 64;
        m->slots = calloc(m->size, sizeof(mime_slot_t));
        if (m->slots == NULL) {
            m->slots = old;
            m->size = oldsize;
            return -1;
        }
        m->used = 0;
        for (k = 0; k < oldsize; k++) {
            if (old[k].ext != NULL) {
                i = hash_lower(old[k].ext, strlen(old[k].ext)) & (m->size - 1);
                while (m->slots[i].ext != NULL) {
                    i = (i + 1) & (m->size - 1);
                }
                m->slots[i] = old[k];
                m->used++;
            }
        }
        free(old);
    }

    i = hash_lower(ext, len) & (m->size - 1);
    while (m->slots[i].ext != NULL) {
        if (strcasecmp(m->slots[i].ext, ext) == 0) {
            free(m->slots[i].type); /* a later mapping wins, as in nginx */
            m->slots[i].type = strdup(type);
            return m->slots[i].type == NULL ? -1 : 0;
        }
        i = (i + 1) & (m->size - 1);
    }
    m->slots[i].ext = strdup(ext);
    m->slots[i].type = strdup(type);
    m->used++;
    return (m->slots[i].ext == NULL || m->slots[i].type == NULL) ? -1 : 0;
}

static void
mime_free(nicd_mime_t *m)
{
    size_t i;

    if (m == NULL) {
        return;
    }
    for (i = 0; i < m->size; i++) {
        free(m->slots[i].ext);
        free(m->slots[i].type);
    }
    free(m->slots);
    free(m);
}

const char *
nicd_conf_mime(const nicd_conf_t *c, const char *name, size_t len)
{
    const nicd_mime_t *m = c->types;
    const char        *ext = NULL;
    size_t             i, elen;

    for (i = len; i > 0; i--) {
        if (name[i - 1] == '.') {
            ext = name + i;
            break;
        }
        if (name[i - 1] == '/') {
            break;
        }
    }
    if (ext == NULL || m == NULL || m->size == 0) {
        return c->default_type;
    }
    elen = (size_t) (name + len - ext);
    i = hash_lower(ext, elen) & (m->size - 1);
    while (m->slots[i].ext != NULL) {
        if (strlen(m->slots[i].ext) == elen
            && strncasecmp(m->slots[i].ext, ext, elen) == 0) {
            return m->slots[i].type;
        }
        i = (i + 1) & (m->size - 1);
    }
    return c->default_type;
}

/* defaults */

nicd_conf_t *
nicd_conf_new(void)
{
    nicd_conf_t *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        return NULL;
    }
    c->worker_threads = 0;
    c->worker_connections = 4096;
    c->worker_rlimit_nofile = 0;
    c->autoindex = 0;
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
    c->if_modified_since = NICD_IMS_EXACT;
    c->etag = 1;
    c->server_tokens = 1;
    c->max_ranges = 64;
    c->default_type = strdup("text/plain");
    c->ssl_protocols = NICD_TLS_1_2 | NICD_TLS_1_3;
    c->ssl_ciphers = strdup("HIGH:!aNULL:!MD5");
    c->ssl_session_timeout = 300000;
    c->ssl_session_tickets = 1;
    c->cur_server = -1;
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
    }
    free(c->listens);
    free(c->root);
    for (i = 0; i < c->nindex; i++) {
        free(c->index[i]);
    }
    free(c->index);
    free(c->access_log);
    free(c->error_log);
    free(c->backend);
    for (i = 0; i < c->nparams; i++) {
        free((char *) c->params[i].name);
        free((char *) c->params[i].value);
        free(c->param_where[i]);
    }
    free(c->params);
    free(c->param_where);
    mime_free(c->types);
    for (i = 0; i < c->nlocations; i++) {
        free(c->locations[i].path);
        free(c->locations[i].handler);
        free(c->locations[i].lua);
    }
    free(c->locations);
    free(c->default_type);
    free(c->pid);
    free(c->ssl_certificate);
    free(c->ssl_certificate_key);
    free(c->ssl_ciphers);
    free(c->ssl_dhparam);
    for (i = 0; i < c->nservers; i++) {
        int k;

        for (k = 0; k < c->servers[i].nnames; k++) {
            free(c->servers[i].names[k]);
        }
        free(c->servers[i].names);
        free(c->servers[i].cert);
        free(c->servers[i].key);
        free(c->servers[i].where);
    }
    free(c->servers);
    free(c);
}

/* directive setters: return NULL, or an error message */

static char msgbuf[512];

static const char *msgf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static const char *
msgf(const char *fmt, ...)
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

static const char *
flag(const char *v, int *out)
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

typedef const char *(*set_pt)(nicd_conf_t *c, const char **a, int n);

static const char *
set_lua_time_limit(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    if (time_val(a[0], &c->lua_time_limit) != NULL || c->lua_time_limit <= 0) {
        return msgf("invalid time \"%s\"", a[0]);
    }
    return NULL;
}

static const char *
set_worker_threads(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    if (strcmp(a[0], "auto") == 0) {
        c->worker_threads = 0;
        return NULL;
    }
    return positive_int(a[0], &c->worker_threads);
}

static const char *
set_worker_connections(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return positive_int(a[0], &c->worker_connections);
}

static const char *
set_rlimit_nofile(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return positive_int(a[0], &c->worker_rlimit_nofile);
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

static const char *
set_listen(nicd_conf_t *c, const char **a, int n)
{
    nicd_listen_conf_t l, *ls;
    int                i;
    const char        *err;

    memset(&l, 0, sizeof(l));
    l.backlog = 511;
    l.lowat = NICD_NOTSENT_LOWAT;
    l.nic = -1;
    if (nicd_listen_parse(&l, a[0]) != 0) {
        return msgf("invalid address \"%s\"", a[0]);
    }

    for (i = 1; i < n; i++) {
        if (strcmp(a[i], "reuseport") == 0
            || strcmp(a[i], "default_server") == 0) {
            /* every worker has its own SO_REUSEPORT socket anyway */
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
            long  k = strtol(a[i] + 4, &end, 10);
            if (a[i][4] == '\0' || *end != '\0' || k < 0 || k > 255) {
                return msgf("invalid \"%s\"", a[i]);
            }
            l.nic = (int) k;
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

    for (i = 0; i < c->nlistens; i++) {
        if (strcmp(c->listens[i].text, a[0]) == 0) {
            return msgf("duplicate listen %s", a[0]);
        }
    }

    ls = realloc(c->listens, sizeof(*ls) * (size_t) (c->nlistens + 1));
    if (ls == NULL) {
        return "out of memory";
    }
    c->listens = ls;
    l.text = strdup(a[0]);
    if (l.text == NULL) {
        return "out of memory";
    }
    c->listens[c->nlistens++] = l;
    c->nssl += l.ssl;
    return NULL;
}

/* in a server {} block: that block's certificate (SNI); elsewhere the
 * http-level one, which blocks without their own inherit */
static const char *
set_ssl_certificate(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return set_str(c->cur_server >= 0 ? &c->servers[c->cur_server].cert
                                      : &c->ssl_certificate,
                   a[0]);
}

static const char *
set_ssl_certificate_key(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return set_str(c->cur_server >= 0 ? &c->servers[c->cur_server].key
                                      : &c->ssl_certificate_key,
                   a[0]);
}

static const char *
set_ssl_protocols(nicd_conf_t *c, const char **a, int n)
{
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

static const char *
set_ssl_ciphers(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return set_str(&c->ssl_ciphers, a[0]);
}

static const char *
set_ssl_prefer_server_ciphers(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return flag(a[0], &c->ssl_prefer_server_ciphers);
}

/*
 * ssl_session_cache off | none | builtin[:SIZE] | shared:NAME:SIZE ...
 * One SSL_CTX serves every worker thread, so OpenSSL's own cache is
 * already shared: "builtin" and "shared" both size it (shared's SIZE in
 * bytes, about 4,000 sessions a megabyte as in nginx).
 */
static const char *
set_ssl_session_cache(nicd_conf_t *c, const char **a, int n)
{
    int         i;
    long        sessions = 0, v;
    char       *end;
    const char *colon;
    size_t      bytes;

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
set_ssl_session_timeout(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return time_val(a[0], &c->ssl_session_timeout);
}

static const char *
set_ssl_session_tickets(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return flag(a[0], &c->ssl_session_tickets);
}

static const char *
set_h2_streams(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return positive_int(a[0], &c->http2_max_concurrent_streams);
}

static const char *
set_h2_header_size(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return size_val(a[0], &c->http2_max_header_size);
}

static const char *
set_h2_recv_buffer(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    if (size_val(a[0], &c->http2_recv_buffer_size) != NULL
        || c->http2_recv_buffer_size < 1024
        || c->http2_recv_buffer_size > 16 * 1024 * 1024) {
        return msgf("invalid value \"%s\" (1k to 16m)", a[0]);
    }
    return NULL;
}

static const char *
set_ssl_dhparam(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return set_str(&c->ssl_dhparam, a[0]);
}

static const char *
set_root(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return set_str(&c->root, a[0]);
}

static const char *
set_index(nicd_conf_t *c, const char **a, int n)
{
    int    i;
    char **idx;

    for (i = 0; i < n; i++) {
        if (a[i][0] == '\0' || strchr(a[i], '/') != NULL) {
            return msgf("index \"%s\" must be a file name", a[i]);
        }
    }
    for (i = 0; i < c->nindex; i++) {
        free(c->index[i]);
    }
    idx = realloc(c->index, sizeof(char *) * (size_t) n);
    if (idx == NULL) {
        return "out of memory";
    }
    c->index = idx;
    c->nindex = 0;
    for (i = 0; i < n; i++) {
        c->index[i] = strdup(a[i]);
        if (c->index[i] == NULL) {
            return "out of memory";
        }
        c->nindex++;
    }
    return NULL;
}

/* server_name in a server {} block names it for SNI (several add up, as
 * in nginx); elsewhere (nicd serves one site) it has no effect */
static const char *
set_server_name(nicd_conf_t *c, const char **a, int n)
{
    nicd_server_conf_t *sv;
    char              **w;
    int                 i;

    if (c->cur_server < 0) {
        return NULL;
    }
    sv = &c->servers[c->cur_server];
    w = realloc(sv->names, sizeof(char *) * (size_t) (sv->nnames + n));
    if (w == NULL) {
        return "out of memory";
    }
    sv->names = w;
    for (i = 0; i < n; i++) {
        if (a[i][0] == '~') {
            return msgf("regular expression server names (\"%s\") are not "
                        "supported",
                        a[i]);
        }
        if ((w[sv->nnames] = strdup(a[i])) == NULL) {
            return "out of memory";
        }
        sv->nnames++;
    }
    return NULL;
}

static const char *
set_autoindex(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return flag(a[0], &c->autoindex);
}

static const char *
set_disable_symlinks(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    if (strcmp(a[0], "off") == 0) {
        c->disable_symlinks = NICD_SYMLINKS_OFF;
    } else if (strcmp(a[0], "on") == 0) {
        c->disable_symlinks = NICD_SYMLINKS_ON;
    } else if (strcmp(a[0], "outside") == 0) {
        c->disable_symlinks = NICD_SYMLINKS_OUTSIDE;
    } else {
        return msgf("invalid value \"%s\", it must be \"off\", \"outside\" "
                    "or \"on\"",
                    a[0]);
    }
    return NULL;
}

static const char *
set_access_log(nicd_conf_t *c, const char **a, int n)
{
    int         i;
    const char *err;

    if (strcmp(a[0], "off") == 0) {
        if (n > 1) {
            return "invalid parameter after \"off\"";
        }
        free(c->access_log);
        c->access_log = NULL;
        return NULL;
    }
    for (i = 1; i < n; i++) {
        if (strcmp(a[i], "combined") == 0) {
            continue;
        } else if (strncmp(a[i], "buffer=", 7) == 0) {
            if ((err = size_val(a[i] + 7, &c->access_log_buffer)) != NULL) {
                return err;
            }
            if (c->access_log_buffer < 512) {
                c->access_log_buffer = 512;
            }
        } else if (strncmp(a[i], "flush=", 6) == 0) {
            if ((err = time_val(a[i] + 6, &c->access_log_flush)) != NULL) {
                return err;
            }
        } else {
            return msgf("invalid parameter \"%s\" (only the combined "
                        "format is supported)",
                        a[i]);
        }
    }
    return set_str(&c->access_log, a[0]);
}

static const char *
set_error_log(nicd_conf_t *c, const char **a, int n)
{
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
set_backend(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    if (snic_backend_find(a[0]) == NULL) {
        return msgf("unknown send backend \"%s\" (nicd -V lists them)", a[0]);
    }
    return set_str(&c->backend, a[0]);
}

/* nginx's "sendfile on|off": off means the copy backend */
static const char *
set_sendfile(nicd_conf_t *c, const char **a, int n)
{
    int         on;
    const char *err;

    (void) n;
    if ((err = flag(a[0], &on)) != NULL) {
        return err;
    }
    return set_str(&c->backend, on ? "sendfile" : "copy");
}

static const char *
set_max_chunk(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return size_val(a[0], &c->sendfile_max_chunk);
}

static const char *
set_header_timeout(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return time_val(a[0], &c->client_header_timeout);
}

static const char *
set_keepalive_timeout(nicd_conf_t *c, const char **a, int n)
{
    /* a second argument (the Keep-Alive: timeout= header) is accepted
     * for nginx compatibility and not sent */
    (void) n;
    return time_val(a[0], &c->keepalive_timeout);
}

static const char *
set_send_timeout(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return time_val(a[0], &c->send_timeout);
}

static const char *
set_keepalive_requests(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return positive_int(a[0], &c->keepalive_requests);
}

static const char *
set_header_buffer(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return size_val(a[0], &c->client_header_buffer_size);
}

static const char *
set_large_buffers(nicd_conf_t *c, const char **a, int n)
{
    const char *err;

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
set_max_body(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return size_val(a[0], &c->client_max_body_size);
}

static const char *
set_open_file_cache(nicd_conf_t *c, const char **a, int n)
{
    int         i;
    const char *err;

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
set_ofc_valid(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return time_val(a[0], &c->open_file_cache_valid);
}

static const char *
set_default_type(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return set_str(&c->default_type, a[0]);
}

static const char *
set_ims(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    if (strcmp(a[0], "off") == 0) {
        c->if_modified_since = NICD_IMS_OFF;
    } else if (strcmp(a[0], "exact") == 0) {
        c->if_modified_since = NICD_IMS_EXACT;
    } else if (strcmp(a[0], "before") == 0) {
        c->if_modified_since = NICD_IMS_BEFORE;
    } else {
        return msgf("invalid value \"%s\", it must be \"off\", \"exact\" "
                    "or \"before\"",
                    a[0]);
    }
    return NULL;
}

static const char *
set_etag(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return flag(a[0], &c->etag);
}

static const char *
set_server_tokens(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    return flag(a[0], &c->server_tokens);
}

static const char *
set_max_ranges(nicd_conf_t *c, const char **a, int n)
{
    char *end;
    long  v;

    (void) n;
    v = strtol(a[0], &end, 10);
    if (a[0][0] == '\0' || *end != '\0' || v < 0 || v > 65535) {
        return msgf("invalid number \"%s\"", a[0]);
    }
    c->max_ranges = (int) v;
    return NULL;
}

static const char *
set_pid(nicd_conf_t *c, const char **a, int n)
{
    (void) n;
    if (strcmp(a[0], "off") == 0) {
        free(c->pid);
        c->pid = NULL;
        return NULL;
    }
    return set_str(&c->pid, a[0]);
}

/* accepted for nginx compatibility, with no effect (see docs/config.md) */
static const char *
set_ignored(nicd_conf_t *c, const char **a, int n)
{
    (void) c;
    (void) a;
    (void) n;
    return NULL;
}

typedef struct {
    const char *name;
    int         min, max; /* argument counts */
    set_pt      set;
} directive_t;

static const directive_t directives[] = {
    {"worker_threads", 1, 1, set_worker_threads},
    {"worker_processes", 1, 1, set_worker_threads},
    {"worker_connections", 1, 1, set_worker_connections},
    {"worker_rlimit_nofile", 1, 1, set_rlimit_nofile},
    {"listen", 1, 6, set_listen},
    {"root", 1, 1, set_root},
    {"index", 1, MAX_ARGS, set_index},
    {"autoindex", 1, 1, set_autoindex},
    {"disable_symlinks", 1, 1, set_disable_symlinks},
    {"access_log", 1, 4, set_access_log},
    {"error_log", 1, 2, set_error_log},
    {"send_backend", 1, 1, set_backend},
    {"sendfile", 1, 1, set_sendfile},
    {"sendfile_max_chunk", 1, 1, set_max_chunk},
    {"client_header_timeout", 1, 1, set_header_timeout},
    {"keepalive_timeout", 1, 2, set_keepalive_timeout},
    {"send_timeout", 1, 1, set_send_timeout},
    {"keepalive_requests", 1, 1, set_keepalive_requests},
    {"client_header_buffer_size", 1, 1, set_header_buffer},
    {"large_client_header_buffers", 2, 2, set_large_buffers},
    {"client_max_body_size", 1, 1, set_max_body},
    {"lua_time_limit", 1, 1, set_lua_time_limit},
    {"open_file_cache", 1, 3, set_open_file_cache},
    {"open_file_cache_valid", 1, 1, set_ofc_valid},
    {"default_type", 1, 1, set_default_type},
    {"if_modified_since", 1, 1, set_ims},
    {"etag", 1, 1, set_etag},
    {"server_tokens", 1, 1, set_server_tokens},
    {"max_ranges", 1, 1, set_max_ranges},
    {"pid", 1, 1, set_pid},
    {"server_name", 1, MAX_ARGS, set_server_name},
    {"ssl_certificate", 1, 1, set_ssl_certificate},
    {"ssl_certificate_key", 1, 1, set_ssl_certificate_key},
    {"ssl_protocols", 1, 4, set_ssl_protocols},
    {"ssl_ciphers", 1, 1, set_ssl_ciphers},
    {"ssl_prefer_server_ciphers", 1, 1, set_ssl_prefer_server_ciphers},
    {"ssl_session_cache", 1, 3, set_ssl_session_cache},
    {"ssl_session_timeout", 1, 1, set_ssl_session_timeout},
    {"ssl_session_tickets", 1, 1, set_ssl_session_tickets},
    {"ssl_dhparam", 1, 1, set_ssl_dhparam},
    {"http2_max_concurrent_streams", 1, 1, set_h2_streams},
    {"http2_max_header_size", 1, 1, set_h2_header_size},
    {"http2_max_field_size", 1, 1, set_h2_header_size},
    {"http2_recv_buffer_size", 1, 1, set_h2_recv_buffer},
    {"tcp_nopush", 1, 1, set_ignored},
    {"tcp_nodelay", 1, 1, set_ignored},
    {NULL, 0, 0, NULL},
};

static const directive_t *
directive_find(const char *name)
{
    const directive_t *d;

    for (d = directives; d->name != NULL; d++) {
        if (strcmp(d->name, name) == 0) {
            return d;
        }
    }
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

int
nicd_conf_set(nicd_conf_t *c, const char *name, const char **args, int nargs,
              char *err, size_t errlen)
{
    const directive_t *d = directive_find(name);
    const char        *msg;

    if (d == NULL) {
        if (snic_backend_claims(name)) {
            if (nargs != 1) {
                snprintf(err, errlen,
                         "invalid number of arguments in "
                         "\"%s\" directive",
                         name);
                return -1;
            }
            if (add_param(c, name, args[0], "command line") != 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            return 0;
        }
        snprintf(err, errlen, "unknown directive \"%s\"", name);
        return -1;
    }
    if (nargs < d->min || nargs > d->max) {
        snprintf(err, errlen,
                 "invalid number of arguments in \"%s\" "
                 "directive",
                 name);
        return -1;
    }
    msg = d->set(c, args, nargs);
    if (msg != NULL) {
        snprintf(err, errlen, "%s in \"%s\" directive", msg, name);
        return -1;
    }
    return 0;
}

/* the tokenizer */

typedef struct {
    nicd_conf_t *conf;
    const char  *name; /* file name for messages */
    const char  *dir;  /* directory for include */
    const char  *p;
    const char  *end;
    int          line;
    char        *err;
    size_t       errlen;
    int          depth;
    char        *words[MAX_ARGS + 2];
    int          nwords;
} parse_t;

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
                ps->p++;
                switch (*ps->p) {
                case 'n': nicd_buf_add(&b, "\n", 1); break;
                case 't': nicd_buf_add(&b, "\t", 1); break;
                case 'r': nicd_buf_add(&b, "\r", 1); break;
                default: nicd_buf_add(&b, ps->p, 1);
                }
                ps->p++;
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
                ps->p++;
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

static int parse_block(parse_t *ps, const char *block);
static int parse_server(parse_t *ps);
static int parse_text(nicd_conf_t *c, const char *text, size_t len,
                      const char *name, const char *dir, int depth, char *err,
                      size_t errlen);

static int
do_include(parse_t *ps, const char *path)
{
    char        full[4096];
    char        dir[4096];
    char       *text = NULL, *slash;
    struct stat st;
    int         fd, rc = -1;
    ssize_t     n;

    if (path[0] == '/' || ps->dir == NULL) {
        snprintf(full, sizeof(full), "%s", path);
    } else {
        snprintf(full, sizeof(full), "%s/%s", ps->dir, path);
    }
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
    rc = parse_text(ps->conf, text, (size_t) n, full, dir, ps->depth + 1,
                    ps->err, ps->errlen);

err:
    free(text);
    if (fd != -1) {
        close(fd);
    }
    return rc;
}

/* "types { text/html html htm; ... }" */
const nicd_location_t *
nicd_conf_location(const nicd_conf_t *c, const char *path, size_t len)
{
    const nicd_location_t *best = NULL;
    size_t                 best_len = 0, l;
    int                    i;

    for (i = 0; i < c->nlocations; i++) {
        const nicd_location_t *loc = &c->locations[i];

        l = strlen(loc->path);
        if (loc->exact) {
            if (l == len && memcmp(loc->path, path, len) == 0) {
                return loc;
            }
        } else if (l <= len && memcmp(loc->path, path, l) == 0
                   && (best == NULL || l > best_len)) {
            best = loc;
            best_len = l;
        }
    }
    return best;
}

/* "location [=] PATH {" seen: the block's one handler directive. */
static int
parse_location(parse_t *ps)
{
    nicd_location_t loc, *nl;
    char           *w;
    int             t, exact = ps->nwords == 3;

    if ((ps->nwords != 2 && ps->nwords != 3)
        || (exact && strcmp(ps->words[1], "=") != 0)) {
        free_words(ps);
        fail(ps, "\"location\" takes [=] PATH (regular expressions and "
                 "other modifiers are not supported)");
        return -1;
    }
    memset(&loc, 0, sizeof(loc));
    loc.exact = exact;
    loc.format = -1;
    loc.path = strdup(ps->words[ps->nwords - 1]);
    free_words(ps);
    if (loc.path == NULL || loc.path[0] != '/') {
        free(loc.path);
        fail(ps, "a location's path must start with \"/\"");
        return -1;
    }
    for (;;) {
        t = next_token(ps, &w);
        if (t == T_WORD) {
            if (ps->nwords == MAX_ARGS + 1) {
                free(w);
                break;
            }
            ps->words[ps->nwords++] = w;
            continue;
        }
        if (t == T_SEMI && ps->nwords == 1 && loc.handler == NULL
            && (loc.format = snic_backend_report_format(ps->words[0])) >= 0) {
            loc.handler = strdup(ps->words[0]);
            free_words(ps);
            continue;
        }
        if (t == T_SEMI && ps->nwords == 2 && loc.handler == NULL
            && strcmp(ps->words[0], "lua_content_handler") == 0) {
            char err[512];

            if (nicd_lua_check(ps->words[1], err, sizeof(err)) != 0) {
                free_words(ps);
                free(loc.path);
                fail(ps, "lua_content_handler: %s", err);
                return -1;
            }
            loc.format = -1;
            loc.handler = strdup(ps->words[0]);
            loc.lua = strdup(ps->words[1]);
            free_words(ps);
            if (loc.lua == NULL) {
                break;
            }
            continue;
        }
        if (t == T_CLOSE && ps->nwords == 0 && loc.handler != NULL) {
            nl = realloc(ps->conf->locations,
                         (size_t) (ps->conf->nlocations + 1) * sizeof(*nl));
            if (nl == NULL || loc.handler == NULL) {
                break;
            }
            ps->conf->locations = nl;
            nl[ps->conf->nlocations++] = loc;
            return 0;
        }
        break;
    }
    if (t != T_ERROR) {
        fail(ps, "a location holds exactly one handler: a report (such as "
                 "\"nic_metrics;\" or \"nic_status;\") or "
                 "\"lua_content_handler FILE;\"; files are served from the "
                 "root");
    }
    free_words(ps);
    free(loc.path);
    free(loc.handler);
    free(loc.lua);
    return -1;
}

static int
parse_types(parse_t *ps)
{
    char *w;
    int   t, i;

    if (ps->conf->types == NULL) {
        ps->conf->types = calloc(1, sizeof(nicd_mime_t));
        if (ps->conf->types == NULL) {
            return fail(ps, "out of memory");
        }
    }
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
                fail(ps, "too many extensions in \"types\"");
                return -1;
            }
            ps->words[ps->nwords++] = w;
            continue;
        }
        if (t == T_CLOSE && ps->nwords == 0) {
            return 0;
        }
        if (t != T_SEMI || ps->nwords < 2) {
            free_words(ps);
            fail(ps, "unexpected %s in \"types\"",
                 t == T_EOF ? "end of file" : "\";\" or \"}\"");
            return -1;
        }
        for (i = 1; i < ps->nwords; i++) {
            if (mime_add(ps->conf->types, ps->words[i], ps->words[0]) != 0) {
                free_words(ps);
                fail(ps, "out of memory");
                return -1;
            }
        }
        free_words(ps);
    }
}

static int
directive(parse_t *ps)
{
    const char        *name = ps->words[0];
    const directive_t *d;
    const char        *msg;
    char               where[512];

    if (strcmp(name, "include") == 0) {
        if (ps->nwords != 2) {
            fail(ps, "invalid number of arguments in \"include\" directive");
            return -1;
        }
        return do_include(ps, ps->words[1]);
    }

    d = directive_find(name);
    if (d == NULL) {
        if (snic_backend_claims(name)) {
            if (ps->nwords != 2) {
                fail(ps, "invalid number of arguments in \"%s\" directive",
                     name);
                return -1;
            }
            snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
            if (add_param(ps->conf, name, ps->words[1], where) != 0) {
                fail(ps, "out of memory");
                return -1;
            }
            return 0;
        }
        fail(ps, "unknown directive \"%s\"", name);
        return -1;
    }
    if (ps->nwords - 1 < d->min || ps->nwords - 1 > d->max) {
        fail(ps, "invalid number of arguments in \"%s\" directive", name);
        return -1;
    }
    msg = d->set(ps->conf, (const char **) ps->words + 1, ps->nwords - 1);
    if (msg != NULL) {
        fail(ps, "%s in \"%s\" directive", msg, name);
        return -1;
    }
    return 0;
}

/* "server {" seen: a block of its own for server_name and certificates
 * (SNI), its other directives applying to the whole */
static int
parse_server(parse_t *ps)
{
    nicd_conf_t        *c = ps->conf;
    nicd_server_conf_t *sv;
    char                where[512];
    int                 rc, outer = c->cur_server;

    if (outer >= 0) {
        fail(ps, "\"server\" blocks cannot be nested");
        return -1;
    }
    sv = realloc(c->servers, sizeof(*sv) * (size_t) (c->nservers + 1));
    if (sv == NULL) {
        fail(ps, "out of memory");
        return -1;
    }
    c->servers = sv;
    sv = &c->servers[c->nservers];
    memset(sv, 0, sizeof(*sv));
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    sv->where = strdup(where);
    c->cur_server = c->nservers++;
    ps->depth++;
    rc = parse_block(ps, "server");
    ps->depth--;
    c->cur_server = outer;
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
            if (strcmp(ps->words[0], "types") == 0 && ps->nwords == 1) {
                free_words(ps);
                if (parse_types(ps) != 0) {
                    return -1;
                }
                break;
            }
            if (strcmp(ps->words[0], "location") == 0) {
                if (parse_location(ps) != 0) {
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
                && ps->nwords == 1) {
                char name[16];

                snprintf(name, sizeof(name), "%s", ps->words[0]);
                free_words(ps);
                ps->depth++;
                rc = parse_block(ps, name);
                ps->depth--;
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

static int
parse_text(nicd_conf_t *c, const char *text, size_t len, const char *name,
           const char *dir, int depth, char *err, size_t errlen)
{
    parse_t ps;

    if (depth > MAX_DEPTH) {
        snprintf(err, errlen, "includes nested too deeply in %s", name);
        return -1;
    }
    memset(&ps, 0, sizeof(ps));
    ps.conf = c;
    ps.name = name;
    ps.dir = dir;
    ps.p = text;
    ps.end = text + len;
    ps.line = 1;
    ps.err = err;
    ps.errlen = errlen;
    ps.depth = depth;
    return parse_block(&ps, NULL);
}

int
nicd_conf_parse_file(nicd_conf_t *c, const char *path, char *err, size_t errlen)
{
    parse_t ps;

    memset(&ps, 0, sizeof(ps));
    ps.conf = c;
    ps.name = "command line";
    ps.err = err;
    ps.errlen = errlen;
    if (set_str(&c->file, path) != NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return do_include(&ps, path);
}

int
nicd_conf_parse_string(nicd_conf_t *c, const char *text, const char *name,
                       char *err, size_t errlen)
{
    return parse_text(c, text, strlen(text), name, ".", 0, err, errlen);
}

static const char *const builtin_types[][2] = {
    {"html", "text/html"},        {"htm", "text/html"},
    {"css", "text/css"},          {"js", "text/javascript"},
    {"txt", "text/plain"},        {"json", "application/json"},
    {"png", "image/png"},         {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},       {"gif", "image/gif"},
    {"svg", "image/svg+xml"},     {"ico", "image/x-icon"},
    {"pdf", "application/pdf"},   {"xml", "text/xml"},
    {"wasm", "application/wasm"}, {"woff2", "font/woff2"},
};

/*
 * server {} blocks inherit the http-level certificate and key they do not
 * set; with none at http level, the first block with a certificate gives
 * the default one (clients without SNI, or naming no block), as nginx's
 * first server is the default of its listen.  0, or -1 with err.
 */
static int
finish_servers(nicd_conf_t *c, char *err, size_t errlen)
{
    nicd_server_conf_t *sv;
    int                 i;

    for (i = 0; i < c->nservers; i++) {
        sv = &c->servers[i];
        if ((sv->cert == NULL && c->ssl_certificate != NULL
             && set_str(&sv->cert, c->ssl_certificate) != NULL)
            || (sv->key == NULL && c->ssl_certificate_key != NULL
                && set_str(&sv->key, c->ssl_certificate_key) != NULL)) {
            snprintf(err, errlen, "out of memory");
            return -1;
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
        sv = &c->servers[i];
        if (sv->cert != NULL && sv->key != NULL
            && (set_str(&c->ssl_certificate, sv->cert) != NULL
                || set_str(&c->ssl_certificate_key, sv->key) != NULL)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

int
nicd_conf_finish(nicd_conf_t *c, char *err, size_t errlen)
{
    size_t      i;
    const char *a[1];

    if (c->nlistens == 0) {
        a[0] = "127.0.0.1:8080";
        if (nicd_conf_set(c, "listen", a, 1, err, errlen) != 0) {
            return -1;
        }
    }
    if (c->root == NULL) {
        c->root = strdup("html");
    }
    if (c->nindex == 0) {
        a[0] = "index.html";
        if (nicd_conf_set(c, "index", a, 1, err, errlen) != 0) {
            return -1;
        }
    }
    if (c->backend == NULL) {
        c->backend = strdup(snic_backend_default()->name);
    }
    if (c->types == NULL) {
        c->types = calloc(1, sizeof(nicd_mime_t));
        for (i = 0; c->types != NULL
                    && i < sizeof(builtin_types) / sizeof(builtin_types[0]);
             i++) {
            mime_add(c->types, builtin_types[i][0], builtin_types[i][1]);
        }
    }
    if (c->root == NULL || c->backend == NULL || c->types == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (finish_servers(c, err, errlen) != 0) {
        return -1;
    }
    if (c->nssl > 0
        && (c->ssl_certificate == NULL || c->ssl_certificate_key == NULL)) {
        for (i = 0; !c->listens[i].ssl; i++) {
        }
        snprintf(err, errlen,
                 "no \"ssl_certificate%s\" is defined for the \"listen %s "
                 "ssl\" directive",
                 c->ssl_certificate == NULL ? "" : "_key", c->listens[i].text);
        return -1;
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
