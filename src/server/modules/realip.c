/*
 * The client's address from a header a trusted proxy sets, as nginx's
 * ngx_http_realip_module:
 *
 *   set_real_ip_from ADDR[/BITS] | unix:;   (http, server, location;
 *       several) the proxies trusted
 *   real_ip_header X-Real-IP | X-Forwarded-For | FIELD;  (X-Real-IP)
 *   real_ip_recursive on | off;   (off)
 *   $realip_remote_addr, $realip_remote_port: the connection's own
 *
 * A request from a trusted address takes the address (and port, when
 * the field gives one: "192.0.2.1:8080", "[2001:db8::1]:8080") the
 * field names: X-Forwarded-For's last, or with real_ip_recursive the
 * last that is not itself trusted, reading its fields from the last.
 * From then on $remote_addr, $binary_remote_addr, $remote_port, allow
 * and deny, limit_req's keys, the access log and the error lines of the
 * request use it.  It is decided once a request: in its server before
 * anything else (nginx's post-read phase), or, where only the location
 * says set_real_ip_from, as its location's phases begin (preaccess).
 * Not for proxy_protocol (nicd reads no PROXY header).
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "util/cidr.h"
#include "server/conf/directive.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

typedef struct {
    nicache_cidr_t *from; /* NULL: unset at this level */
    int             nfrom;
    int             unix_from; /* "unix:" among them */
    char           *header;    /* NULL: unset; X-Real-IP by default */
    int             recursive;
} realip_conf_t;

nicd_module_t nicd_realip_module;

static void *
create_conf(nicd_conf_t *c)
{
    realip_conf_t *l = nicd_conf_alloc(c, sizeof(*l));

    if (l != NULL) {
        memset(l, 0, sizeof(*l));
        l->recursive = NICD_UNSET;
    }
    return l;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const realip_conf_t *p = prev;
    realip_conf_t       *l = conf;

    (void) c;
    if (l->from == NULL && !l->unix_from && p != NULL) {
        l->from = p->from;
        l->nfrom = p->nfrom;
        l->unix_from = p->unix_from;
    }
    NICD_MERGE_PTR(l, p, header, "X-Real-IP");
    NICD_MERGE(l, p, recursive, 0);
    return NULL;
}

static const char *
set_from(parse_t *ps, const char **a, int n)
{
    realip_conf_t *l = nicd_conf_module_loc(ps);
    nicache_cidr_t b;

    (void) n;
    if (strcmp(a[0], "unix:") == 0) {
        l->unix_from = 1;
        return NULL;
    }
    if (nicache_cidr_parse(a[0], &b) != 0) {
        return nicd_conf_msg("invalid parameter \"%s\"", a[0]);
    }
    l->from = nicd_conf_grow(ps->conf, l->from, l->nfrom, sizeof(b));
    if (l->from == NULL) {
        return "out of memory";
    }
    l->from[l->nfrom++] = b;
    return NULL;
}

static const char *
set_header(parse_t *ps, const char **a, int n)
{
    realip_conf_t *l = nicd_conf_module_loc(ps);

    (void) n;
    if (strcmp(a[0], "proxy_protocol") == 0) {
        return "\"proxy_protocol\" is not supported (nicd reads no PROXY "
               "protocol header)";
    }
    l->header = nicd_conf_strdup(ps->conf, a[0]);
    return l->header == NULL ? "out of memory" : NULL;
}

/* is the address text (len bytes) one of l's trusted ones? */
static int
trusted(const realip_conf_t *l, const char *text, size_t len)
{
    uint8_t bin[16];
    int     i, family = nicache_addr_parse(text, len, bin);

    if (family == 0) {
        return len >= 5 && strncmp(text, "unix:", 5) == 0 && l->unix_from;
    }
    for (i = 0; i < l->nfrom; i++) {
        if (nicache_cidr_match(&l->from[i], family, bin)) {
            return 1;
        }
    }
    return 0;
}

/* "ADDR", "ADDR:PORT", "[V6]:PORT" (len bytes) into peer: 0 or -1 */
static int
parse_peer(const char *p, size_t len, nicd_peer_t *peer)
{
    const char *a = p, *colon;
    size_t      alen = len;
    long        port = 0;
    uint8_t     bin[16];
    int         family;
    char       *end;

    if (len > 0 && p[0] == '[') {
        const char *rb = memchr(p, ']', len);

        if (rb == NULL) {
            return -1;
        }
        a = p + 1;
        alen = (size_t) (rb - a);
        colon = rb + 1 < p + len ? rb + 1 : NULL;
        if (colon != NULL && *colon != ':') {
            return -1;
        }
    } else {
        colon = memchr(p, ':', len);
        if (colon != NULL
            && memchr(colon + 1, ':', len - (size_t) (colon - p) - 1) != NULL) {
            colon = NULL; /* a bare IPv6 address */
        }
        if (colon != NULL) {
            alen = (size_t) (colon - p);
        }
    }
    if (colon != NULL) {
        port = strtol(colon + 1, &end, 10);
        if (end != p + len || colon + 1 == end || port < 1 || port > 65535) {
            return -1;
        }
    }
    family = nicache_addr_parse(a, alen, bin);
    if (family == 0) {
        return -1;
    }
    memset(&peer->sa, 0, sizeof(peer->sa));
    if (family == AF_INET) {
        struct sockaddr_in *sin = (struct sockaddr_in *) &peer->sa;

        sin->sin_family = AF_INET;
        sin->sin_port = htons((uint16_t) port);
        memcpy(&sin->sin_addr, bin, 4);
    } else {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) &peer->sa;

        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons((uint16_t) port);
        memcpy(&sin6->sin6_addr, bin, 16);
    }
    inet_ntop(family, bin, peer->text, sizeof(peer->text));
    return 0;
}

/* the address X-Forwarded-For gives (its fields read from the last, each
 * from its end): the last, or with recursive the last untrusted */
static int
forwarded(const realip_conf_t *l, const nicd_request_t *r, const char **out,
          size_t *olen)
{
    int i, found = 0;

    for (i = r->nheaders - 1; i >= 0; i--) {
        const char *v = r->hvalue[i].p, *e = v + r->hvalue[i].len, *s;

        if (!nicd_req_field_is(r, i, "X-Forwarded-For", 15)) {
            continue;
        }
        while (e > v) {
            while (e > v && (e[-1] == ' ' || e[-1] == ',')) {
                e--;
            }
            for (s = e; s > v && s[-1] != ',' && s[-1] != ' '; s--) {
            }
            if (s == e) {
                break;
            }
            *out = s;
            *olen = (size_t) (e - s);
            found = 1;
            if (!l->recursive || !trusted(l, s, *olen)) {
                return 1;
            }
            e = s;
        }
    }
    return found;
}

static int
realip_handler(nicd_conn_t *c, const nicd_request_t *r,
               const nicd_loc_conf_t *lc, const char *uri, size_t len)
{
    const realip_conf_t *l = NICD_LOC_CONF(lc, nicd_realip_module);
    const char          *v = NULL;
    size_t               vlen = 0;
    nicd_peer_t          peer;

    (void) uri;
    (void) len;
    if (c->r->peer != NULL || (l->nfrom == 0 && !l->unix_from)
        || !trusted(l, c->addr, strlen(c->addr))) {
        return NICD_DECLINED;
    }
    if (strcasecmp(l->header, "X-Forwarded-For") == 0) {
        if (!forwarded(l, r, &v, &vlen)) {
            return NICD_DECLINED;
        }
    } else {
        const nicd_str_t *h = nicd_req_field(r, l->header, strlen(l->header));

        if (h != NULL) {
            v = h->p;
            vlen = h->len;
        }
        while (vlen > 0 && v[vlen - 1] == ' ') {
            vlen--;
        }
    }
    if (v == NULL || parse_peer(v, vlen, &peer) != 0
        || (c->r->peer = malloc(sizeof(peer))) == NULL) {
        return NICD_DECLINED; /* no address there: the connection's */
    }
    *c->r->peer = peer;
    return NICD_DECLINED;
}

static int
uses(const nicd_loc_conf_t *lc, const void *arg)
{
    const realip_conf_t *l = NICD_LOC_CONF(lc, nicd_realip_module);

    (void) arg;
    return l != NULL && (l->nfrom > 0 || l->unix_from);
}

static const char *
realip_postconfiguration(nicd_conf_t *c)
{
    const char *err;

    if (!nicd_conf_any_level(c, uses, NULL)) {
        return NULL;
    }
    err = nicd_phase_add(c, NICD_PHASE_POST_READ, realip_handler);
    return err != NULL
               ? err
               : nicd_phase_add(c, NICD_PHASE_PREACCESS, realip_handler);
}

/* $realip_remote_addr, $realip_remote_port: the connection's peer */
static int
get_remote(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
           const char *s, size_t slen, nicd_buf_t *b)
{
    struct sockaddr_storage ss;
    socklen_t               sl = sizeof(ss);

    (void) x;
    (void) s;
    (void) slen;
    if (v->data == NULL) {
        nicd_buf_add(b, c->addr, strlen(c->addr));
    } else if (getpeername(c->sc.fd, (struct sockaddr *) &ss, &sl) == 0
               && (ss.ss_family == AF_INET || ss.ss_family == AF_INET6)) {
        nicd_buf_addf(b, "%u",
                      ntohs(ss.ss_family == AF_INET
                                ? ((struct sockaddr_in *) &ss)->sin_port
                                : ((struct sockaddr_in6 *) &ss)->sin6_port));
    }
    return 0;
}

static const nicd_var_t realip_vars[] = {
    {"realip_remote_addr", get_remote, 0, NULL},
    {"realip_remote_port", get_remote, 0, "port"},
    {NULL, NULL, 0, NULL},
};

static const directive_t realip_directives[] = {
    {"set_real_ip_from", CTX_HSL, 1, 1, set_from, 0},
    {"real_ip_header", CTX_HSL, 1, 1, set_header, 0},
    {"real_ip_recursive", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(realip_conf_t, recursive)},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_realip_module = {
    .name = "realip",
    .directives = realip_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = realip_postconfiguration,
    .variables = realip_vars,
};
