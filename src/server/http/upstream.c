/*
 * Upstream groups and the choice of a server (upstream.h).
 */

#include <errno.h>
#include <pthread.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include <arpa/inet.h>
#include <sys/un.h>

#include "util/log.h"
#include "server/http/upstream.h"
#include "server/http/variables.h"

typedef struct {
    nicd_upstream_t **list; /* the http level's: every group */
    int               n;
} up_conf_t;

/* a server's counts in one worker (nginx's, without a zone) */
typedef struct {
    int  current, effective; /* smooth weighted round robin */
    int  fails, conns;
    long checked, accessed; /* ms */
} up_state_t;

/* a group's counts, shared by the worker threads (as nginx's counts
 * with a zone: every thread sees a server fail) */
typedef struct {
    pthread_mutex_t lock;
    up_state_t     *s;
    uint32_t       *points; /* hash consistent: the ring, sorted */
    int            *owner;  /* ... and whose each point is */
    int             npoints;
} up_shared_t;

nicd_module_t nicd_http_upstream_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(up_conf_t));
}

static up_conf_t *
http_conf(const nicd_conf_t *c)
{
    return NICD_LOC_CONF(c->http, nicd_http_upstream_module);
}

nicd_upstream_t *
nicd_upstream_add(parse_t *ps, const char *host, size_t hlen, unsigned port)
{
    up_conf_t       *uc = http_conf(ps->conf);
    nicd_upstream_t *u, **all;
    char             where[512];
    int              i;

    for (i = 0; i < uc->n; i++) {
        u = uc->list[i];
        if (u->port == port && strlen(u->name) == hlen
            && strncasecmp(u->name, host, hlen) == 0) {
            return u;
        }
    }
    u = nicd_conf_alloc(ps->conf, sizeof(*u));
    all = nicd_conf_grow(ps->conf, uc->list, uc->n, sizeof(*all));
    if (u == NULL || all == NULL
        || (u->name = nicd_conf_alloc(ps->conf, hlen + 1)) == NULL) {
        return NULL;
    }
    memcpy(u->name, host, hlen);
    u->port = port;
    u->implicit = 1;
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    u->where = nicd_conf_strdup(ps->conf, where);
    u->keepalive_timeout = 60000;
    u->keepalive_time = 3600000;
    u->keepalive_requests = 1000;
    u->index = uc->n;
    all[uc->n++] = u;
    uc->list = all;
    return u;
}

nicd_upstream_t *
nicd_upstream_find(const nicd_conf_t *c, const char *name, size_t len,
                   unsigned port)
{
    up_conf_t *uc = http_conf(c);
    int        i;

    for (i = 0; i < uc->n; i++) {
        const nicd_upstream_t *u = uc->list[i];

        if (strlen(u->name) != len || strncasecmp(u->name, name, len) != 0) {
            continue;
        }
        if (u->defined ? port == 0
                       : (u->port ? u->port : 80) == (port ? port : 80)) {
            return uc->list[i];
        }
    }
    return NULL;
}

/* ---- reading the configuration ---- */

/* "host[:port]" into host (cap bytes) and *port (dflt when none); a
 * message or NULL */
static const char *
split_host(const char *a, char *host, size_t cap, unsigned *port, unsigned dflt)
{
    const char *colon, *end = a + strlen(a);
    char       *e;
    long        p;

    if (a[0] == '[') { /* [v6]:port */
        const char *close = strchr(a, ']');

        if (close == NULL || (size_t) (close - a - 1) >= cap) {
            return "invalid IPv6 address";
        }
        memcpy(host, a + 1, (size_t) (close - a - 1));
        host[close - a - 1] = '\0';
        colon = close[1] == ':' ? close + 1 : NULL;
        if (close[1] != '\0' && colon == NULL) {
            return "invalid host";
        }
    } else {
        colon = strrchr(a, ':');
        if ((size_t) ((colon != NULL ? colon : end) - a) >= cap) {
            return "host name too long";
        }
        memcpy(host, a, (size_t) ((colon != NULL ? colon : end) - a));
        host[(colon != NULL ? colon : end) - a] = '\0';
    }
    *port = dflt;
    if (colon != NULL) {
        errno = 0;
        p = strtol(colon + 1, &e, 10);
        if (e == colon + 1 || *e != '\0' || p < 1 || p > 65535 || errno) {
            return "invalid port";
        }
        *port = (unsigned) p;
    }
    if (host[0] == '\0') {
        return "no host";
    }
    return NULL;
}

/* "unix:PATH" as a server of u, like proto */
static const char *
unix_server(nicd_conf_t *c, nicd_upstream_t *u, const char *host,
            const nicd_upstream_server_t *proto)
{
    nicd_upstream_server_t *s;
    struct sockaddr_un     *un;

    if (strlen(host + 5) == 0 || strlen(host + 5) >= sizeof(un->sun_path)) {
        return nicd_conf_msg("invalid unix socket path \"%s\"", host);
    }
    s = nicd_conf_grow(c, u->servers, u->nservers, sizeof(*s));
    if (s == NULL) {
        return "out of memory";
    }
    u->servers = s;
    s += u->nservers++;
    *s = *proto;
    memset(&s->sa, 0, sizeof(s->sa));
    un = (struct sockaddr_un *) &s->sa;
    un->sun_family = AF_UNIX;
    memcpy(un->sun_path, host + 5, strlen(host + 5) + 1);
    s->salen = (socklen_t) sizeof(*un);
    s->name = nicd_conf_strdup(c, host);
    s->host = nicd_conf_strdup(c, "localhost");
    return s->name == NULL || s->host == NULL ? "out of memory" : NULL;
}

/* every address of host:port as servers of u, each like proto */
static const char *
resolve(nicd_conf_t *c, nicd_upstream_t *u, const char *host, unsigned port,
        const nicd_upstream_server_t *proto)
{
    struct addrinfo         hints, *res, *ai;
    char                    ip[INET6_ADDRSTRLEN], name[INET6_ADDRSTRLEN + 8];
    nicd_upstream_server_t *s;
    int                     rc;

    char   literal[INET6_ADDRSTRLEN];
    size_t hlen = strlen(host);

    if (strncmp(host, "unix:", 5) == 0) {
        return unix_server(c, u, host, proto);
    }
    if (host[0] == '[' && hlen > 2 && host[hlen - 1] == ']'
        && hlen - 2 < sizeof(literal)) {
        /* an IPv6 literal of a URL ("http://[::1]:8081/") */
        memcpy(literal, host + 1, hlen - 2);
        literal[hlen - 2] = '\0';
        host = literal;
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0) {
        return nicd_conf_msg("host not found in upstream \"%s\"", host);
    }
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) {
            continue;
        }
        s = nicd_conf_grow(c, u->servers, u->nservers, sizeof(*s));
        if (s == NULL) {
            freeaddrinfo(res);
            return "out of memory";
        }
        u->servers = s;
        s += u->nservers++;
        *s = *proto;
        memcpy(&s->sa, ai->ai_addr, ai->ai_addrlen);
        s->salen = ai->ai_addrlen;
        if (ai->ai_family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *) &s->sa;

            in->sin_port = htons((uint16_t) port);
            inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
            snprintf(name, sizeof(name), "%s:%u", ip, port);
        } else {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &s->sa;

            in6->sin6_port = htons((uint16_t) port);
            inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
            snprintf(name, sizeof(name), "[%s]:%u", ip, port);
        }
        s->name = nicd_conf_strdup(c, name);
        s->host = nicd_conf_strdup(c, host);
        if (s->name == NULL || s->host == NULL) {
            freeaddrinfo(res);
            return "out of memory";
        }
    }
    freeaddrinfo(res);
    return NULL;
}

/* "server ADDRESS [parameters]" */
static const char *
server_line(parse_t *ps, nicd_upstream_t *u, const char **a, int n)
{
    nicd_upstream_server_t proto;
    char                   host[256];
    unsigned               port;
    const char            *msg;
    long                   t = 0;
    int                    i, v;

    memset(&proto, 0, sizeof(proto));
    proto.weight = 1;
    proto.max_fails = 1;
    proto.fail_timeout = 10000;
    if (n < 2) {
        return "invalid number of arguments in \"server\"";
    }
    for (i = 2; i < n; i++) {
        if (strncmp(a[i], "weight=", 7) == 0) {
            if (nicd_conf_positive(a[i] + 7, &v) != NULL) {
                return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
            }
            proto.weight = v;
        } else if (strncmp(a[i], "max_fails=", 10) == 0) {
            char *e;

            errno = 0;
            t = strtol(a[i] + 10, &e, 10);
            if (e == a[i] + 10 || *e != '\0' || t < 0 || t > 1000000) {
                return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
            }
            proto.max_fails = (int) t;
        } else if (strncmp(a[i], "max_conns=", 10) == 0) {
            char *e;

            t = strtol(a[i] + 10, &e, 10);
            if (e == a[i] + 10 || *e != '\0' || t < 0 || t > 1000000) {
                return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
            }
            proto.max_conns = (int) t;
        } else if (strncmp(a[i], "fail_timeout=", 13) == 0) {
            if (nicd_conf_time(a[i] + 13, &t) != NULL) {
                return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
            }
            proto.fail_timeout = t;
        } else if (strcmp(a[i], "backup") == 0) {
            if (u->balance == NICD_UB_HASH) {
                return "balancing method does not support parameter "
                       "\"backup\"";
            }
            proto.backup = 1;
        } else if (strcmp(a[i], "down") == 0) {
            proto.down = 1;
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
        }
    }
    if (strncmp(a[1], "unix:", 5) == 0) {
        return resolve(ps->conf, u, a[1], 0, &proto);
    }
    if ((msg = split_host(a[1], host, sizeof(host), &port, 80)) != NULL) {
        return nicd_conf_msg("%s in upstream \"%s\"", msg, a[1]);
    }
    return resolve(ps->conf, u, host, port, &proto);
}

static const char *
upstream_line(parse_t *ps, const char **a, int n)
{
    nicd_upstream_t *u = ps->lines_data;
    const char      *msg;
    long             t = 0;
    int              v, i;

    if (strcmp(a[0], "server") == 0) {
        return server_line(ps, u, a, n);
    }
    if (strcmp(a[0], "least_conn") == 0 && n == 1) {
        u->balance = NICD_UB_LEAST_CONN;
    } else if (strcmp(a[0], "random") == 0 && n == 1) {
        u->balance = NICD_UB_RANDOM;
    } else if (strcmp(a[0], "hash") == 0 && (n == 2 || n == 3)) {
        if (n == 3 && strcmp(a[2], "consistent") != 0) {
            return nicd_conf_msg("invalid parameter \"%s\"", a[2]);
        }
        for (i = 0; i < u->nservers; i++) {
            if (u->servers[i].backup) {
                return "balancing method does not support parameter "
                       "\"backup\"";
            }
        }
        u->balance = NICD_UB_HASH;
        u->consistent = n == 3;
        if ((u->hash = nicd_conf_cv(ps, a[1], &msg)) == NULL) {
            return msg;
        }
    } else if (strcmp(a[0], "keepalive") == 0 && n == 2) {
        if (nicd_conf_positive(a[1], &v) != NULL) {
            return nicd_conf_msg("invalid value \"%s\"", a[1]);
        }
        u->keepalive = v;
    } else if (strcmp(a[0], "keepalive_timeout") == 0 && n == 2) {
        if (nicd_conf_time(a[1], &t) != NULL) {
            return nicd_conf_msg("invalid value \"%s\"", a[1]);
        }
        u->keepalive_timeout = t;
    } else if (strcmp(a[0], "keepalive_requests") == 0 && n == 2) {
        if (nicd_conf_positive(a[1], &v) != NULL) {
            return nicd_conf_msg("invalid value \"%s\"", a[1]);
        }
        u->keepalive_requests = v;
    } else if (strcmp(a[0], "keepalive_time") == 0 && n == 2) {
        if (nicd_conf_time(a[1], &t) != NULL) {
            return nicd_conf_msg("invalid value \"%s\"", a[1]);
        }
        u->keepalive_time = t;
    } else if (strcmp(a[0], "zone") == 0 && (n == 2 || n == 3)) {
        /* the counts stay each worker's (upstream.h) */
    } else {
        return nicd_conf_msg("unknown directive \"%s\"", a[0]);
    }
    return NULL;
}

static const char *
set_upstream(parse_t *ps, const char **a, int n)
{
    nicd_upstream_t *u;
    char             where[512];

    (void) n;
    u = nicd_upstream_add(ps, a[0], strlen(a[0]), 0);
    if (u == NULL) {
        return "out of memory";
    }
    if (u->defined) {
        return nicd_conf_msg("duplicate upstream \"%s\"", a[0]);
    }
    u->defined = 1;
    u->implicit = 0;
    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    u->where = nicd_conf_strdup(ps->conf, where);
    ps->lines = upstream_line;
    ps->lines_data = u;
    return NULL;
}

/* u's servers, primary ones first, then backups, each as written */
static const char *
backups_last(nicd_conf_t *c, nicd_upstream_t *u)
{
    nicd_upstream_server_t *s =
        nicd_conf_alloc(c, (size_t) u->nservers * sizeof(*s));
    int i, k = 0, pass;

    if (s == NULL) {
        return "out of memory";
    }
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < u->nservers; i++) {
            if ((int) u->servers[i].backup == pass) {
                s[k++] = u->servers[i];
            }
        }
    }
    u->servers = s;
    for (u->nprimary = 0;
         u->nprimary < u->nservers && !u->servers[u->nprimary].backup;
         u->nprimary++) {
    }
    return NULL;
}

static void
shared_free(void *p)
{
    up_shared_t *g = p;

    pthread_mutex_destroy(&g->lock);
    free(g->s);
    free(g->points);
    free(g->owner);
    free(g);
}

static int ring(const nicd_upstream_t *u, up_shared_t *g);

/* the counts every worker thread shares for u */
static const char *
shared_new(nicd_conf_t *c, nicd_upstream_t *u)
{
    up_shared_t *g = calloc(1, sizeof(*g));
    int          i;

    if (g == NULL
        || (g->s = calloc((size_t) u->nservers, sizeof(*g->s))) == NULL) {
        free(g);
        return "out of memory";
    }
    pthread_mutex_init(&g->lock, NULL);
    for (i = 0; i < u->nservers; i++) {
        g->s[i].effective = u->servers[i].weight;
    }
    if (nicd_conf_cleanup(c, shared_free, g) != 0) {
        shared_free(g);
        return "out of memory";
    }
    u->shared = g;
    if (u->keepalive > 0 && (u->keep = nicd_upstream_keep_new(c, u)) == NULL) {
        return "out of memory";
    }
    if (u->balance == NICD_UB_HASH && u->consistent && ring(u, g) != 0) {
        return "out of memory";
    }
    return NULL;
}

static const char *
upstream_postconfiguration(nicd_conf_t *c)
{
    up_conf_t             *uc = http_conf(c);
    nicd_upstream_t       *u;
    nicd_upstream_server_t proto;
    const char            *msg;
    int                    i;

    memset(&proto, 0, sizeof(proto));
    proto.weight = 1;
    proto.max_fails = 1;
    proto.fail_timeout = 10000;
    for (i = 0; i < uc->n; i++) {
        u = uc->list[i];
        if (!u->defined) {
            /* a host that no upstream{} names: its addresses */
            msg = resolve(c, u, u->name, u->port ? u->port : 80, &proto);
            /* (a "unix:PATH" host is its socket) */
            if (msg != NULL) {
                char why[256]; /* (msg may be nicd_conf_msg's own text) */

                snprintf(why, sizeof(why), "%s", msg);
                return nicd_conf_msg("%s in %s", why, u->where);
            }
        }
        if (u->nservers == 0) {
            return nicd_conf_msg("no servers are inside upstream in %s",
                                 u->where);
        }
        if (u->nservers > NICD_UPSTREAM_MAX_SERVERS) {
            return nicd_conf_msg("more than %d servers in upstream in %s",
                                 NICD_UPSTREAM_MAX_SERVERS, u->where);
        }
        if ((msg = backups_last(c, u)) != NULL
            || (msg = shared_new(c, u)) != NULL) {
            return msg;
        }
    }
    return NULL;
}

static const directive_t upstream_directives[] = {
    {"upstream", CTX_HTTP, 1, 1, set_upstream, 0, CTX_LINES},
    {NULL, 0, 0, 0, NULL, 0, 0},
};

/* ---- each worker's counts ---- */

/* ---- choosing a server ---- */

#define TRIED(pk, i) ((pk)->tried[(i) / 64] & ((uint64_t) 1 << ((i) % 64)))

int
nicd_upstream_pick_init(nicd_conn_t *c, nicd_upstream_pick_t *pk,
                        nicd_upstream_t *u)
{
    memset(pk, 0, sizeof(*pk));
    pk->u = u;
    pk->server = -1;
    pk->tries = 0;
    for (int i = 0; i < u->nservers; i++) {
        pk->tries += !u->servers[i].down;
    }
    if (u->balance == NICD_UB_HASH) {
        nicd_buf_t *b = &c->w->expand;

        if (nicd_cv_eval(c, u->hash, NULL, b) != 0) {
            return -1;
        }
        pk->hash = (uint32_t) crc32(0L, (const Bytef *) b->data, (uInt) b->len);
    }
    return 0;
}

void
nicd_upstream_pick_single(nicd_upstream_pick_t *pk, const struct sockaddr *sa,
                          socklen_t salen, const char *name)
{
    memset(pk, 0, sizeof(*pk));
    memcpy(&pk->one.sa, sa, salen);
    pk->one.salen = salen;
    pk->one.name = (char *) name;
    pk->one.weight = 1;
    pk->single.servers = &pk->one;
    pk->single.nservers = pk->single.nprimary = 1;
    pk->single.index = -1;
    pk->single.keepalive_timeout = 60000;
    pk->u = &pk->single;
    pk->server = -1;
    pk->tries = 1;
}

/* may server i of u take the request now? */
static int
usable(const nicd_upstream_t *u, const up_state_t *st, int i, long now)
{
    const nicd_upstream_server_t *s = &u->servers[i];

    if (s->down) {
        return 0;
    }
    if (s->max_fails > 0 && st->fails >= s->max_fails
        && now - st->checked <= s->fail_timeout) {
        return 0;
    }
    return s->max_conns == 0 || st->conns < s->max_conns;
}

/* the smooth weighted round robin (nginx's) among the usable servers of
 * [from, to) not yet tried; with least_conn only those with the fewest
 * connections for their weight: -1 when there is none */
static int
round_robin(nicd_upstream_pick_t *pk, up_shared_t *g, int from, int to,
            long now)
{
    const nicd_upstream_t *u = pk->u;
    int                    i, best = -1, total = 0, least = -1;

    if (u->balance == NICD_UB_LEAST_CONN) {
        for (i = from; i < to; i++) {
            if (!TRIED(pk, i) && usable(u, &g->s[i], i, now)
                && (least < 0
                    || (long) g->s[i].conns * u->servers[least].weight
                           < (long) g->s[least].conns * u->servers[i].weight)) {
                least = i;
            }
        }
        if (least < 0) {
            return -1;
        }
    }
    for (i = from; i < to; i++) {
        up_state_t *st = &g->s[i];

        if (TRIED(pk, i) || !usable(u, st, i, now)) {
            continue;
        }
        if (least >= 0
            && (long) st->conns * u->servers[least].weight
                   != (long) g->s[least].conns * u->servers[i].weight) {
            continue;
        }
        st->current += st->effective;
        total += st->effective;
        if (st->effective < u->servers[i].weight) {
            st->effective++;
        }
        if (best < 0 || st->current > g->s[best].current) {
            best = i;
        }
    }
    if (best >= 0) {
        g->s[best].current -= total;
    }
    return best;
}

static int
by_point(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;

    return (*x >> 32) < (*y >> 32) ? -1 : (*x >> 32) > (*y >> 32);
}

/* hash consistent's ring: 160 points a unit of weight, each the crc32
 * of the server's name and the point's number */
static int
ring(const nicd_upstream_t *u, up_shared_t *g)
{
    uint64_t *p;
    int       i, k, n = 0, total = 0;
    char      key[512];

    for (i = 0; i < u->nservers; i++) {
        total += 160 * u->servers[i].weight;
    }
    p = malloc((size_t) total * sizeof(*p));
    g->points = malloc((size_t) total * sizeof(*g->points));
    g->owner = malloc((size_t) total * sizeof(*g->owner));
    if (p == NULL || g->points == NULL || g->owner == NULL) {
        free(p);
        free(g->points);
        free(g->owner);
        g->points = NULL;
        g->owner = NULL;
        return -1;
    }
    for (i = 0; i < u->nservers; i++) {
        for (k = 0; k < 160 * u->servers[i].weight; k++) {
            int len =
                snprintf(key, sizeof(key), "%s-%d", u->servers[i].name, k);

            p[n++] =
                ((uint64_t) crc32(0L, (const Bytef *) key, (uInt) len) << 32)
                | (uint64_t) i;
        }
    }
    qsort(p, (size_t) n, sizeof(*p), by_point);
    for (i = 0; i < n; i++) {
        g->points[i] = (uint32_t) (p[i] >> 32);
        g->owner[i] = (int) (p[i] & 0xffffffffu);
    }
    g->npoints = n;
    free(p);
    return 0;
}

/* hash: the server the key's hash (and its rehashes, 20 at most, as
 * nginx's) lands on; -1: fall back to round robin */
static int
by_hash(nicd_upstream_pick_t *pk, up_shared_t *g, long now)
{
    const nicd_upstream_t *u = pk->u;
    int                    i, total = 0, w;
    uint32_t               h;

    for (i = 0; i < u->nservers; i++) {
        total += u->servers[i].weight;
    }
    for (; pk->rehash < 20; pk->rehash++) {
        char key[32];
        int  len = snprintf(key, sizeof(key), "%d%u", pk->rehash, pk->hash);

        h = pk->rehash == 0
                ? pk->hash
                : (uint32_t) crc32(0L, (const Bytef *) key, (uInt) len);
        if (u->consistent) {
            int lo = 0, hi;

            if (g->points == NULL) {
                return -1;
            }
            hi = g->npoints;
            while (lo < hi) { /* the first point at or after h */
                int mid = (lo + hi) / 2;

                if (g->points[mid] < h) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            i = g->owner[lo == g->npoints ? 0 : lo];
        } else {
            w = (int) (h % (uint32_t) total);
            for (i = 0; w >= u->servers[i].weight; i++) {
                w -= u->servers[i].weight;
            }
        }
        if (!TRIED(pk, i) && usable(u, &g->s[i], i, now)) {
            return i;
        }
    }
    return -1;
}

/* random: a usable untried server, drawn by weight */
static int
by_random(nicd_upstream_pick_t *pk, up_shared_t *g, long now)
{
    const nicd_upstream_t *u = pk->u;
    int                    i, total = 0, w;

    for (i = 0; i < u->nprimary; i++) {
        if (!TRIED(pk, i) && usable(u, &g->s[i], i, now)) {
            total += u->servers[i].weight;
        }
    }
    if (total == 0) {
        return -1;
    }
    w = (int) ((unsigned) random() % (unsigned) total);
    for (i = 0; i < u->nprimary; i++) {
        if (!TRIED(pk, i) && usable(u, &g->s[i], i, now)) {
            if (w < u->servers[i].weight) {
                return i;
            }
            w -= u->servers[i].weight;
        }
    }
    return -1;
}

/* the next server of pk (g locked): its index, or -1 */
static int
choose(nicd_upstream_pick_t *pk, up_shared_t *g, long now)
{
    const nicd_upstream_t *u = pk->u;
    int                    i = -1;

    if (!pk->backups) {
        i = u->balance == NICD_UB_HASH     ? by_hash(pk, g, now)
            : u->balance == NICD_UB_RANDOM ? by_random(pk, g, now)
                                           : -1;
        if (i < 0) {
            i = round_robin(pk, g, 0, u->nprimary, now);
        }
        if (i < 0 && u->nprimary < u->nservers) {
            pk->backups = 1;
        }
    }
    if (i < 0 && pk->backups) {
        i = round_robin(pk, g, u->nprimary, u->nservers, now);
    }
    if (i < 0) {
        /* every one failed: live again at once for the next requests
         * (nginx's quick recovery) */
        for (i = 0; i < u->nservers; i++) {
            g->s[i].fails = 0;
        }
        return -1;
    }
    if (now - g->s[i].checked > u->servers[i].fail_timeout) {
        g->s[i].checked = now;
    }
    return i;
}

int
nicd_upstream_next(nicd_worker_t *w, nicd_upstream_pick_t *pk)
{
    nicd_upstream_t *u = pk->u;
    up_shared_t     *g = u->shared;
    int              i;

    pk->server = -1;
    if (u->nservers == 1) {
        /* one server: tried whatever its failures (nginx's "single") */
        if (TRIED(pk, 0) || u->servers[0].down) {
            return -1;
        }
        i = 0;
    } else {
        if (g == NULL) {
            return -1;
        }
        pthread_mutex_lock(&g->lock);
        i = choose(pk, g, nicd_worker_now_ms(w));
        pthread_mutex_unlock(&g->lock);
        if (i < 0) {
            return -1;
        }
    }
    if (g != NULL) {
        __atomic_add_fetch(&g->s[i].conns, 1, __ATOMIC_RELAXED);
    }
    pk->server = i;
    return 0;
}

void
nicd_upstream_free(nicd_worker_t *w, nicd_upstream_pick_t *pk, int failed)
{
    nicd_upstream_t *u = pk->u;
    up_shared_t     *g = u->shared;
    up_state_t      *st;
    int              i = pk->server;
    long             now = nicd_worker_now_ms(w);

    if (i < 0) {
        return;
    }
    pk->tried[i / 64] |= (uint64_t) 1 << (i % 64);
    pk->tries--;
    pk->server = -1;
    if (g == NULL) {
        return;
    }
    st = &g->s[i];
    __atomic_sub_fetch(&st->conns, 1, __ATOMIC_RELAXED);
    if (u->nservers == 1) {
        return; /* (no failures counted for one server) */
    }
    pthread_mutex_lock(&g->lock);
    if (failed) {
        st->fails++;
        st->checked = st->accessed = now;
        if (u->servers[i].max_fails > 0) {
            st->effective -= u->servers[i].weight / u->servers[i].max_fails;
            if (st->effective < 0) {
                st->effective = 0;
            }
        }
    } else if (st->accessed < st->checked) {
        st->fails = 0;
    }
    pthread_mutex_unlock(&g->lock);
}

static void
upstream_worker_free(nicd_worker_t *w)
{
    nicd_upstream_idle_close_all(w);
}

nicd_module_t nicd_http_upstream_module = {
    .name = "upstream",
    .variables = nicd_upstream_vars,
    .directives = upstream_directives,
    .create_loc_conf = create_conf,
    .postconfiguration = upstream_postconfiguration,
    .worker_free = upstream_worker_free,
};
