/*
 * geo [$ADDRESS] $NAME { ... }  (http) as nginx's ngx_http_geo_module:
 * $NAME is the value of the network the client's address (realip's
 * $remote_addr; or ADDRESS's value, 255.255.255.255 when that is no
 * address) belongs to, the longest prefix winning:
 *
 *   default VALUE;            when none does (else "")
 *   NET VALUE;                "192.0.2.0/24", "2001:db8::/32", an address
 *   delete NET;               a network written before taken out
 *   ranges;                   then "FROM-TO VALUE" lines (IPv4), a later
 *                             range winning where they overlap; delete
 *                             takes out a range written just so
 *   proxy NET; proxy_recursive;  a request from NET is placed by the last
 *                             address of X-Forwarded-For (recursive: the
 *                             last one not itself a proxy)
 *   include FILE;             its lines here
 *
 * Values are text; the variable is evaluated once a request.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "util/cidr.h"
#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/variables.h"

typedef struct {
    int         family;
    uint8_t     addr[16]; /* masked */
    int         bits;
    const char *value; /* NULL: deleted */
} geo_net_t;

typedef struct {
    uint32_t    start, end;
    const char *value;
} geo_range_t;

typedef struct {
    const nicd_cv_t *source; /* NULL: the client's address */
    const char      *deflt;
    int              ranges;
    geo_net_t       *nets; /* as written, then sorted: longest first */
    int              nnets;
    geo_range_t     *rs; /* as written, then flattened and sorted */
    int              nrs;
    nicache_cidr_t  *proxies;
    int              nproxies;
    int              proxy_recursive;
} geo_t;

typedef struct {
    geo_t **geos; /* the http level's: every geo block, to finish */
    int     ngeos;
} geo_conf_t;

nicd_module_t nicd_geo_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(geo_conf_t));
}

/* ---- looking up ---- */

/* the entry order: longest networks first, then by family and address
 * (so each length's are one sorted run) */
static int
net_cmp(const geo_net_t *x, int family, const uint8_t *addr, int bits)
{
    if (x->bits != bits) {
        return x->bits > bits ? -1 : 1;
    }
    if (x->family != family) {
        return x->family < family ? -1 : 1;
    }
    return memcmp(x->addr, addr, 16);
}

/* a masked to its first bits bits */
static void
mask(uint8_t out[16], const uint8_t *a, int bits)
{
    int i;

    memset(out, 0, 16);
    for (i = 0; i < 16 && bits > 0; i++, bits -= 8) {
        out[i] = (uint8_t) (a[i] & (bits >= 8 ? 0xff : 0xff << (8 - bits)));
    }
}

/* the longest network holding (family, a): a binary search in each
 * length's run, longest first */
static const char *
find_net(const geo_t *g, int family, const uint8_t *a)
{
    uint8_t key[16];
    int     i = 0, end, lo, hi, mid, c, bits;

    while (i < g->nnets) {
        bits = g->nets[i].bits;
        for (end = i; end < g->nnets && g->nets[end].bits == bits; end++) {
        }
        mask(key, a, bits);
        lo = i;
        hi = end - 1;
        while (lo <= hi) {
            mid = (lo + hi) / 2;
            c = net_cmp(&g->nets[mid], family, key, bits);
            if (c == 0) {
                /* (a deleted network leaves the shorter ones holding it) */
                if (g->nets[mid].value != NULL) {
                    return g->nets[mid].value;
                }
                break;
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        i = end;
    }
    return g->deflt;
}

static const char *
find_range(const geo_t *g, int family, const uint8_t *a)
{
    uint32_t v;
    int      lo = 0, hi = g->nrs - 1, mid;

    if (family != AF_INET) {
        return g->deflt;
    }
    v = (uint32_t) a[0] << 24 | (uint32_t) a[1] << 16 | (uint32_t) a[2] << 8
        | a[3];
    while (lo <= hi) {
        mid = (lo + hi) / 2;
        if (v < g->rs[mid].start) {
            hi = mid - 1;
        } else if (v > g->rs[mid].end) {
            lo = mid + 1;
        } else {
            return g->rs[mid].value != NULL ? g->rs[mid].value : g->deflt;
        }
    }
    return g->deflt;
}

/* text as an address (IPv4-mapped IPv6 as IPv4): its family, or 0 */
static int
address(const char *text, size_t len, uint8_t a[16])
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
                                       0, 0, 0, 0, 0xff, 0xff};
    int                  family = nicache_addr_parse(text, len, a);

    if (family == AF_INET6 && memcmp(a, mapped, 12) == 0) {
        memmove(a, a + 12, 4);
        family = AF_INET;
    }
    return family;
}

static int
is_proxy(const geo_t *g, int family, const uint8_t *a)
{
    int i;

    for (i = 0; i < g->nproxies; i++) {
        if (nicache_cidr_match(&g->proxies[i], family, a)) {
            return 1;
        }
    }
    return 0;
}

/* a client from a trusted proxy: the address X-Forwarded-For gives (the
 * last; recursive: the last not itself a proxy) */
static int
forwarded(nicd_conn_t *c, const geo_t *g, int family, uint8_t a[16])
{
    const nicd_request_t *r = c->r->in;
    const char           *p, *end, *s;
    uint8_t               b[16];
    int                   i, f;

    for (i = 0; r != NULL && i < r->nheaders; i++) {
        if (!nicd_req_field_is(r, i, "X-Forwarded-For", 15)) {
            continue;
        }
        p = r->hvalue[i].p;
        end = p + r->hvalue[i].len;
        while (end > p) {
            for (s = end; s > p && s[-1] != ','; s--) {
            }
            while (s < end && (*s == ' ' || *s == '\t')) {
                s++;
            }
            f = address(s, (size_t) (end - s), b);
            if (f == 0) {
                return family;
            }
            memcpy(a, b, 16);
            family = f;
            if (!g->proxy_recursive || !is_proxy(g, f, b)) {
                return family;
            }
            end = s > p ? s - 1 : p;
            while (end > p && (end[-1] == ' ' || end[-1] == ',')) {
                end--;
            }
        }
    }
    return family;
}

static int
geo_get(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
        const char *s, size_t slen, nicd_buf_t *b)
{
    const geo_t *g = v->data;
    const char  *value;
    nicd_buf_t   src = {0};
    uint8_t      a[16];
    int          family;

    (void) s;
    (void) slen;
    if (g->source != NULL) {
        if (nicd_cv_eval(c, g->source, x, &src) != 0) {
            nicd_buf_free(&src);
            return -1;
        }
        family = address(src.data, src.len, a);
        nicd_buf_free(&src);
    } else {
        const char *t = nicd_client(c);

        family = address(t, strlen(t), a);
        if (family != 0 && g->nproxies > 0 && is_proxy(g, family, a)) {
            family = forwarded(c, g, family, a);
        }
    }
    if (family == 0) {
        family = AF_INET; /* nginx's: 255.255.255.255 */
        memset(a, 0xff, 4);
    }
    value = g->ranges ? find_range(g, family, a) : find_net(g, family, a);
    nicd_buf_adds(b, value != NULL ? value : "");
    return 0;
}

/* ---- reading ---- */

static const char *
add_range(parse_t *ps, geo_t *g, const char *text, const char *value)
{
    const char *dash = strchr(text, '-');
    char        from[64];
    uint8_t     a[16], z[16];

    if (dash == NULL || (size_t) (dash - text) >= sizeof(from)) {
        return nicd_conf_msg("invalid range \"%s\"", text);
    }
    memcpy(from, text, (size_t) (dash - text));
    from[dash - text] = '\0';
    if (nicache_addr_parse(from, strlen(from), a) != AF_INET
        || nicache_addr_parse(dash + 1, strlen(dash + 1), z) != AF_INET) {
        return nicd_conf_msg("invalid range \"%s\"", text);
    }
    g->rs = nicd_conf_grow(ps->conf, g->rs, g->nrs, sizeof(*g->rs));
    if (g->rs == NULL) {
        return "out of memory";
    }
    g->rs[g->nrs].start = (uint32_t) a[0] << 24 | (uint32_t) a[1] << 16
                          | (uint32_t) a[2] << 8 | a[3];
    g->rs[g->nrs].end = (uint32_t) z[0] << 24 | (uint32_t) z[1] << 16
                        | (uint32_t) z[2] << 8 | z[3];
    if (g->rs[g->nrs].end < g->rs[g->nrs].start) {
        return nicd_conf_msg("invalid range \"%s\"", text);
    }
    if (value == NULL) {
        /* delete: as nginx, the range written just so goes; another
         * range is left as it is, with a warning */
        int i;

        for (i = g->nrs - 1; i >= 0; i--) {
            if (g->rs[i].start == g->rs[g->nrs].start
                && g->rs[i].end == g->rs[g->nrs].end) {
                memmove(&g->rs[i], &g->rs[i + 1],
                        sizeof(*g->rs) * (size_t) (g->nrs - 1 - i));
                g->nrs--;
                return NULL;
            }
        }
        log_error(LOG_WARN, 0, "no address range \"%s\" to delete in %s:%d",
                  text, ps->name, ps->line);
        return NULL;
    }
    g->rs[g->nrs++].value = value;
    return NULL;
}

static const char *
add_net(parse_t *ps, geo_t *g, const char *text, const char *value)
{
    nicache_cidr_t c;
    geo_net_t      n;
    const char    *slash = strchr(text, '/');
    int            i;

    if (nicache_cidr_parse(text, &c) != 0) {
        return nicd_conf_msg("invalid network \"%s\"", text);
    }
    memset(&n, 0, sizeof(n));
    n.family = c.family;
    memcpy(n.addr, c.addr, 16);
    n.bits = slash != NULL ? atoi(slash + 1) : (c.family == AF_INET ? 32 : 128);
    n.value = value;
    for (i = 0; i < g->nnets; i++) {
        if (g->nets[i].family == n.family && g->nets[i].bits == n.bits
            && memcmp(g->nets[i].addr, n.addr, 16) == 0) {
            g->nets[i].value = value; /* nginx warns, and takes the last */
            return NULL;
        }
    }
    g->nets = nicd_conf_grow(ps->conf, g->nets, g->nnets, sizeof(n));
    if (g->nets == NULL) {
        return "out of memory";
    }
    g->nets[g->nnets++] = n;
    return NULL;
}

static const char *
geo_line(parse_t *ps, const char **a, int n)
{
    geo_t      *g = ps->lines_data;
    const char *value;

    if (n == 1 && strcmp(a[0], "ranges") == 0) {
        if (g->nnets > 0) {
            return "\"ranges\" must come before the networks";
        }
        g->ranges = 1;
        return NULL;
    }
    if (n == 1 && strcmp(a[0], "proxy_recursive") == 0) {
        g->proxy_recursive = 1;
        return NULL;
    }
    if (n != 2) {
        return "invalid number of the geo parameters";
    }
    if (strcmp(a[0], "proxy") == 0) {
        g->proxies = nicd_conf_grow(ps->conf, g->proxies, g->nproxies,
                                    sizeof(*g->proxies));
        if (g->proxies == NULL) {
            return "out of memory";
        }
        if (nicache_cidr_parse(a[1], &g->proxies[g->nproxies]) != 0) {
            return nicd_conf_msg("invalid network \"%s\"", a[1]);
        }
        g->nproxies++;
        return NULL;
    }
    if (strcmp(a[0], "delete") == 0) {
        value = NULL;
    } else if ((value = nicd_conf_strdup(ps->conf, a[1])) == NULL) {
        return "out of memory";
    }
    if (strcmp(a[0], "default") == 0) {
        g->deflt = value;
        return NULL;
    }
    if (strcmp(a[0], "delete") == 0) {
        a++;
    }
    return g->ranges ? add_range(ps, g, a[0], value)
                     : add_net(ps, g, a[0], value);
}

static const char *
set_geo(parse_t *ps, const char **a, int n)
{
    geo_conf_t *h = NICD_LOC_CONF(ps->conf->http, nicd_geo_module);
    geo_t      *g = nicd_conf_alloc(ps->conf, sizeof(*g));
    const char *var = a[n - 1], *msg;
    nicd_var_t  v;
    char       *name;
    size_t      i;

    if (g == NULL) {
        return "out of memory";
    }
    if (var[0] != '$' || var[1] == '\0') {
        return nicd_conf_msg("invalid variable name \"%s\"", var);
    }
    if (n == 2 && (g->source = nicd_conf_cv(ps, a[0], &msg)) == NULL) {
        return msg;
    }
    name = nicd_conf_strdup(ps->conf, var + 1);
    h->geos = nicd_conf_grow(ps->conf, h->geos, h->ngeos, sizeof(geo_t *));
    if (name == NULL || h->geos == NULL) {
        return "out of memory";
    }
    h->geos[h->ngeos++] = g;
    for (i = 0; name[i] != '\0'; i++) {
        name[i] =
            (char) (name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    }
    memset(&v, 0, sizeof(v));
    v.name = name;
    v.get = geo_get;
    v.data = g;
    if ((msg = nicd_var_add(ps->conf, &v, NULL)) != NULL) {
        return strncmp(msg, "the duplicate", 13) == 0
                   ? nicd_conf_msg("duplicate \"%s\" variable", var)
                   : msg;
    }
    ps->lines = geo_line;
    ps->lines_data = g;
    return NULL;
}

/* ---- finishing ---- */

static int
longer_first(const void *x, const void *y)
{
    const geo_net_t *b = y;

    return net_cmp(x, b->family, b->addr, b->bits);
}

static int
cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;

    return a < b ? -1 : a > b;
}

static const geo_range_t *sort_rs; /* (the main thread reads configurations) */

static int
by_start(const void *x, const void *y)
{
    uint32_t a = sort_rs[*(const int *) x].start;
    uint32_t b = sort_rs[*(const int *) y].start;

    return a < b ? -1 : a > b;
}

/* the heap of the ranges holding the point swept, the last written on
 * top */
static void
heap_push(int *heap, int *n, int v)
{
    int i = (*n)++, up;

    heap[i] = v;
    while (i > 0 && heap[up = (i - 1) / 2] < heap[i]) {
        heap[i] = heap[up];
        heap[up] = v;
        i = up;
    }
}

static void
heap_pop(int *heap, int *n)
{
    int i = 0, l, big, t;

    heap[0] = heap[--*n];
    for (;;) {
        l = 2 * i + 1;
        if (l >= *n) {
            return;
        }
        big = l + 1 < *n && heap[l + 1] > heap[l] ? l + 1 : l;
        if (heap[i] >= heap[big]) {
            return;
        }
        t = heap[i];
        heap[i] = heap[big];
        heap[big] = t;
        i = big;
    }
}

/*
 * Every address the ranges name gets the value of the last range written
 * that holds it (a "delete" range: the default): the ranges cut where
 * any starts or ends, swept in order with the ranges holding the point
 * in a heap, into pieces that do not overlap, sorted for the lookup.
 */
static const char *
flatten(nicd_conf_t *c, geo_t *g)
{
    uint64_t    *cut = calloc((size_t) g->nrs * 2 + 1, sizeof(*cut));
    int         *order = calloc((size_t) g->nrs + 1, sizeof(int));
    int         *heap = calloc((size_t) g->nrs + 1, sizeof(int));
    geo_range_t *out =
        nicd_conf_alloc(c, sizeof(*out) * ((size_t) g->nrs * 2 + 1));
    const char *value;
    int         i, k = 0, m = 0, next = 0, nheap = 0;

    if (cut == NULL || order == NULL || heap == NULL || out == NULL) {
        free(cut);
        free(order);
        free(heap);
        return "out of memory";
    }
    for (i = 0; i < g->nrs; i++) {
        cut[k++] = g->rs[i].start;
        cut[k++] = (uint64_t) g->rs[i].end + 1;
        order[i] = i;
    }
    qsort(cut, (size_t) k, sizeof(*cut), cmp_u64);
    sort_rs = g->rs;
    qsort(order, (size_t) g->nrs, sizeof(int), by_start);
    for (i = 0; i + 1 < k; i++) {
        if (cut[i] == cut[i + 1]) {
            continue;
        }
        while (next < g->nrs && g->rs[order[next]].start <= cut[i]) {
            heap_push(heap, &nheap, order[next++]);
        }
        while (nheap > 0 && g->rs[heap[0]].end < cut[i]) {
            heap_pop(heap, &nheap);
        }
        value = nheap > 0 ? g->rs[heap[0]].value : NULL;
        if (value == NULL) {
            continue; /* no range, or a deleted one: the default */
        }
        if (m > 0 && out[m - 1].value == value
            && (uint64_t) out[m - 1].end + 1 == cut[i]) {
            out[m - 1].end = (uint32_t) (cut[i + 1] - 1);
        } else {
            out[m].start = (uint32_t) cut[i];
            out[m].end = (uint32_t) (cut[i + 1] - 1);
            out[m++].value = value;
        }
    }
    free(cut);
    free(order);
    free(heap);
    g->rs = out;
    g->nrs = m;
    return NULL;
}

static const char *
geo_postconfiguration(nicd_conf_t *c)
{
    geo_conf_t *h = NICD_LOC_CONF(c->http, nicd_geo_module);
    const char *msg;
    int         i;

    for (i = 0; i < h->ngeos; i++) {
        if (h->geos[i]->nnets > 0) {
            qsort(h->geos[i]->nets, (size_t) h->geos[i]->nnets,
                  sizeof(geo_net_t), longer_first);
        }
        if ((msg = flatten(c, h->geos[i])) != NULL) {
            return msg;
        }
    }
    return NULL;
}

static const directive_t geo_directives[] = {
    {"geo", CTX_HTTP, 1, 2, set_geo, 0, CTX_LINES},
    {NULL, 0, 0, 0, NULL, 0, 0},
};

nicd_module_t nicd_geo_module = {
    .name = "geo",
    .directives = geo_directives,
    .create_loc_conf = create_conf,
    .postconfiguration = geo_postconfiguration,
};
