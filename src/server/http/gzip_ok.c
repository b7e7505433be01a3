/*
 * May a response go compressed to the request at hand?  nginx's
 * ngx_http_gzip_ok, asked by gzip on the fly (modules/gzip.c) and
 * gzip_static (modules/static.c); its directives are the core's in nginx,
 * and this module's here:
 *
 *   gzip_http_version 1.0 | 1.1;  (1.1) a request of an older version
 *       gets no compressed response (HTTP/2 is newer than either);
 *   gzip_proxied off | expired | no-cache | no-store | private |
 *       no_last_modified | no_etag | auth | any ...;  (off) for a request
 *       that came through a proxy (it has Via): whether its response may
 *       go compressed, by the request's Authorization and the response's
 *       Expires, Cache-Control, Last-Modified and ETag, as nginx judges
 *       them;
 *   gzip_disable msie6 | REGEX ...;  no compression for a User-Agent
 *       matching a REGEX (without regard to case), or ("msie6") naming
 *       MSIE 4 to 6 (but 6 with SV1).
 *
 * The client must also take gzip (Accept-Encoding, not q=0), and only a
 * client's own request is answered compressed (not a subrequest).
 */

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/buf.h"
#include "server/conf/directive.h"
#include "server/http/gzip_ok.h"
#include "server/http/variables.h"

enum {
    PX_OFF = 1 << 0,
    PX_EXPIRED = 1 << 1,
    PX_NO_CACHE = 1 << 2,
    PX_NO_STORE = 1 << 3,
    PX_PRIVATE = 1 << 4,
    PX_NO_LM = 1 << 5,
    PX_NO_ETAG = 1 << 6,
    PX_AUTH = 1 << 7,
    PX_ANY = 1 << 8
};

typedef struct {
    int    http_version; /* 10 or 11; NICD_UNSET */
    int    proxied;      /* PX_*; NICD_UNSET */
    int    msie6;        /* NICD_UNSET */
    void **disable;      /* regexes; NULL: not set at this level */
    int    ndisable;
} gzok_conf_t;

nicd_module_t nicd_http_gzip_module;

static void *
create_conf(nicd_conf_t *c)
{
    gzok_conf_t *g = nicd_conf_alloc(c, sizeof(*g));

    if (g != NULL) {
        g->http_version = NICD_UNSET;
        g->proxied = NICD_UNSET;
        g->msie6 = NICD_UNSET;
    }
    return g;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const gzok_conf_t *p = prev;
    gzok_conf_t       *g = conf;

    (void) c;
    NICD_MERGE(g, p, http_version, 11);
    NICD_MERGE(g, p, proxied, PX_OFF);
    NICD_MERGE(g, p, msie6, 0);
    NICD_MERGE_LIST(g, p, disable, ndisable);
    return NULL;
}

static const char *
set_http_version(parse_t *ps, const char **a, int n)
{
    gzok_conf_t *g = nicd_conf_module_loc(ps);

    (void) n;
    if (g->http_version != NICD_UNSET) {
        return "is duplicate";
    }
    if (strcmp(a[0], "1.0") == 0) {
        g->http_version = 10;
    } else if (strcmp(a[0], "1.1") == 0) {
        g->http_version = 11;
    } else {
        return nicd_conf_msg("invalid value \"%s\"", a[0]);
    }
    return NULL;
}

static const char *
set_proxied(parse_t *ps, const char **a, int n)
{
    static const struct {
        const char *name;
        int         bit;
    } words[] = {
        {"off", PX_OFF},           {"expired", PX_EXPIRED},
        {"no-cache", PX_NO_CACHE}, {"no-store", PX_NO_STORE},
        {"private", PX_PRIVATE},   {"no_last_modified", PX_NO_LM},
        {"no_etag", PX_NO_ETAG},   {"auth", PX_AUTH},
        {"any", PX_ANY},
    };
    gzok_conf_t *g = nicd_conf_module_loc(ps);
    size_t       k;
    int          i;

    if (g->proxied != NICD_UNSET) {
        return "is duplicate";
    }
    g->proxied = 0;
    for (i = 0; i < n; i++) {
        for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
            if (strcmp(a[i], words[k].name) == 0) {
                break;
            }
        }
        if (k == sizeof(words) / sizeof(words[0])) {
            return nicd_conf_msg("invalid value \"%s\"", a[i]);
        }
        g->proxied |= words[k].bit;
    }
    return NULL;
}

static const char *
set_disable(parse_t *ps, const char **a, int n)
{
    gzok_conf_t *g = nicd_conf_module_loc(ps);
    char         err[256];
    void        *re;
    int          i;

    for (i = 0; i < n; i++) {
        if (strcmp(a[i], "msie6") == 0) {
            g->msie6 = 1;
            continue;
        }
        re = nicd_conf_regex(ps->conf, a[i], 1, err, sizeof(err));
        if (re == NULL) {
            return nicd_conf_msg("%s", err);
        }
        g->disable =
            nicd_conf_grow(ps->conf, g->disable, g->ndisable, sizeof(void *));
        if (g->disable == NULL) {
            return "out of memory";
        }
        g->disable[g->ndisable++] = re;
    }
    return NULL;
}

/* Does the User-Agent ua name MSIE 4, 5 or 6 (6 without SV1), not Opera?
 * (nginx's headers_in.msie6) */
static int
msie6(const nicd_str_t *ua)
{
    const char *m = memmem(ua->p, ua->len, "MSIE ", 5);
    size_t      rest;

    if (m == NULL || memmem(ua->p, ua->len, "Opera", 5) != NULL) {
        return 0;
    }
    rest = ua->len - (size_t) (m - ua->p);
    if (rest <= 7 || m[6] != '.') {
        return 0;
    }
    if (m[5] == '4' || m[5] == '5') {
        return 1;
    }
    return m[5] == '6' && memmem(m + 8, rest - 8, "SV1", 3) == NULL;
}

/* a Cache-Control value names the directive d (dlen bytes) */
static int
names(const nicd_str_t *v, const char *d, size_t dlen)
{
    size_t i;

    for (i = 0; i + dlen <= v->len; i++) {
        if (strncasecmp(v->p + i, d, dlen) == 0
            && (i == 0 || v->p[i - 1] == ',' || v->p[i - 1] == ' ')
            && (i + dlen == v->len || v->p[i + dlen] == ','
                || v->p[i + dlen] == ' ' || v->p[i + dlen] == '=')) {
            return 1;
        }
    }
    return 0;
}

/* gzip_proxied on the response to a request that came through a proxy */
static int
proxied_ok(const gzok_conf_t *g, const nicd_request_t *r,
           const nicd_gzip_resp_t *resp)
{
    time_t exp, date;

    if (g->proxied & PX_OFF) {
        return 0;
    }
    if ((g->proxied & PX_ANY)
        || ((g->proxied & PX_AUTH)
            && r->hdr[NICD_HDR_AUTHORIZATION].p != NULL)) {
        return 1;
    }
    if (resp->expires != NULL) {
        if (!(g->proxied & PX_EXPIRED)) {
            return 0;
        }
        exp = nicd_http_date_parse(resp->expires->p, resp->expires->len);
        date = resp->date != NULL
                   ? nicd_http_date_parse(resp->date->p, resp->date->len)
                   : time(NULL);
        return exp != (time_t) -1 && date != (time_t) -1 && exp < date;
    }
    if (resp->cache_control != NULL) {
        return ((g->proxied & PX_NO_CACHE)
                && names(resp->cache_control, "no-cache", 8))
               || ((g->proxied & PX_NO_STORE)
                   && names(resp->cache_control, "no-store", 8))
               || ((g->proxied & PX_PRIVATE)
                   && names(resp->cache_control, "private", 7));
    }
    return !((g->proxied & PX_NO_LM) && resp->last_modified)
           && !((g->proxied & PX_NO_ETAG) && resp->etag);
}

int
nicd_gzip_ok(nicd_conn_t *c, const nicd_gzip_resp_t *resp)
{
    static const nicd_gzip_resp_t none;

    const nicd_request_t *r = c->r->in;
    const gzok_conf_t    *g;
    const nicd_str_t     *via, *ua;
    int                   i, v;

    if (r == NULL || c->r->subdepth > 0 || c->r->loc == NULL
        || !nicd_accepts_gzip(&r->hdr[NICD_HDR_ACCEPT_ENCODING])) {
        return 0;
    }
    g = NICD_LOC_CONF(c->r->loc, nicd_http_gzip_module);
    ua = nicd_req_field(r, "User-Agent", 10);
    if (g->msie6 && ua != NULL && msie6(ua)) {
        return 0;
    }
    v = r->protocol == NULL || strncmp(r->protocol, "HTTP/", 5) != 0
            ? 9
            : (r->protocol[5] - '0') * 10
                  + (r->protocol[6] == '.' ? r->protocol[7] - '0' : 0);
    if (v < g->http_version) {
        return 0;
    }
    via = nicd_req_field(r, "Via", 3);
    if (via != NULL && !proxied_ok(g, r, resp != NULL ? resp : &none)) {
        return 0;
    }
    for (i = 0; ua != NULL && i < g->ndisable; i++) {
        if (nicd_regex_match(c->w, g->disable[i], ua->p, ua->len) != NULL) {
            return 0;
        }
    }
    return 1;
}

static const directive_t gzok_directives[] = {
    {"gzip_http_version", CTX_HSL, 1, 1, set_http_version, 0},
    {"gzip_proxied", CTX_HSL, 1, MAX_ARGS, set_proxied, 0},
    {"gzip_disable", CTX_HSL, 1, MAX_ARGS, set_disable, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_gzip_module = {
    .name = "http_gzip",
    .directives = gzok_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
};
