/*
 * "listen": its address and options, and at the end of the reading each
 * address's servers, the default first (nginx's ngx_http_add_listen).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "server/conf/directive.h"
#include "config.h"
#include "server/http/listen.h"

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

    if (strncmp(text, "unix:", 5) == 0) {
        /* a UNIX-domain socket: "unix:PATH" (nginx's) */
        struct sockaddr_un *sun = (struct sockaddr_un *) &l->addr;
        size_t              plen = strlen(text + 5);

        if (plen == 0 || plen >= sizeof(sun->sun_path)) {
            return -1; /* no path, or longer than the kernel takes */
        }
        sun->sun_family = AF_UNIX;
        memcpy(sun->sun_path, text + 5, plen + 1);
        l->addrlen =
            (socklen_t) (offsetof(struct sockaddr_un, sun_path) + plen + 1);
        return 0;
    }
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

static const char *listen_one(parse_t *ps, const char **a, int n);

/* "ADDR:FROM-TO": a listen for each port of the range, as nginx's */
const char *
nicd_listen_set(parse_t *ps, const char **a, int n)
{
    const char *colon = strrchr(a[0], ':'), *dash, *msg, *one[MAX_ARGS];
    char        text[256], *e;
    long        from, to, p;
    int         i;

    if (colon == NULL || (dash = strchr(colon, '-')) == NULL
        || strncmp(a[0], "unix:", 5) == 0) {
        return listen_one(ps, a, n);
    }
    from = strtol(colon + 1, &e, 10);
    to = e == dash ? strtol(dash + 1, &e, 10) : -1;
    if (e == dash + 1 || *e != '\0' || from < 1 || to > 65535 || to < from
        || (size_t) (colon - a[0]) + 8 > sizeof(text)) {
        return nicd_conf_msg("invalid port range in \"%s\"", a[0]);
    }
    for (i = 1; i < n && i < MAX_ARGS; i++) {
        one[i] = a[i];
    }
    for (p = from; p <= to; p++) {
        snprintf(text, sizeof(text), "%.*s:%ld", (int) (colon - a[0]), a[0], p);
        one[0] = text;
        if ((msg = listen_one(ps, one, n)) != NULL) {
            return msg;
        }
    }
    return NULL;
}

static const char *
listen_one(parse_t *ps, const char **a, int n)
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
        if (strncmp(a[0], "unix:", 5) == 0) {
            return nicd_conf_msg("%s path in the unix domain socket \"%s\"",
                                 a[0][5] == '\0' ? "no" : "too long", a[0]);
        }
        return nicd_conf_msg("invalid address \"%s\"", a[0]);
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
            if ((err = nicd_conf_positive(a[i] + 8, &l.backlog)) != NULL) {
                return err;
            }
        } else if (strncmp(a[i], "sndbuf=", 7) == 0) {
            size_t sz = 0;

            if ((err = nicd_conf_size(a[i] + 7, &sz)) != NULL) {
                return err;
            }
            if (sz == 0 || sz > INT_MAX / 2) {
                return nicd_conf_msg("invalid \"%s\"", a[i]);
            }
            l.sndbuf = (int) sz;
        } else if (strcmp(a[i], "notsent_lowat=off") == 0) {
            l.lowat = 0;
        } else if (strncmp(a[i], "notsent_lowat=", 14) == 0) {
            size_t sz = 0;

            if ((err = nicd_conf_size(a[i] + 14, &sz)) != NULL) {
                return err;
            }
            if (sz == 0 || sz > INT_MAX) {
                return nicd_conf_msg("invalid \"%s\"", a[i]);
            }
            l.lowat = (int) sz;
        } else if (strncmp(a[i], "nic=", 4) == 0) {
            char *end;
            long  v = strtol(a[i] + 4, &end, 10);
            if (a[i][4] == '\0' || *end != '\0' || v < 0 || v > 255) {
                return nicd_conf_msg("invalid \"%s\"", a[i]);
            }
            l.nic = (int) v;
        } else if (strcmp(a[i], "ssl") == 0) {
            l.ssl = 1;
        } else if (strcmp(a[i], "http2") == 0) {
            l.http2 = 1;
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[i]);
        }
    }

    srv = nicd_conf_server(ps);
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
                return nicd_conf_msg("duplicate listen %s", a[0]);
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
            return nicd_conf_msg("a duplicate default server for %s", a[0]);
        }
        c->listens[i].default_srv = srv->index;
    }
    srv->listens = nicd_conf_grow(c, srv->listens, srv->nlistens, sizeof(int));
    if (srv->listens == NULL) {
        return "out of memory";
    }
    srv->listens[srv->nlistens++] = i;
    return NULL;
}

/* a server without listen: the implicit server's addresses, else the
 * default one (nginx's is *:80; nicd's is 127.0.0.1:8080) */
int
nicd_listen_finish(nicd_conf_t *c, char *err, size_t errlen)
{
    nicd_server_conf_t *sv, *imp = NULL;
    parse_t             ps;
    const char         *a[1];
    int                 i, k, li;

    if (c->nservers == 0 || c->listen_override != NULL) {
        nicd_conf_parse_init(&ps, c, err, errlen);
        if (c->nservers == 0 && nicd_conf_server(&ps) == NULL) {
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
        nicd_conf_parse_init(&ps, c, err, errlen);
        ps.srv = sv;
        a[0] =
            c->listen_override != NULL ? c->listen_override : "127.0.0.1:8080";
        if (nicd_conf_apply(&ps, "listen", a, 1) != 0) {
            return -1;
        }
        if (imp == NULL && sv->implicit) {
            imp = sv;
        }
    }
    /* per address, its servers with the default first */
    c->listen_servers =
        nicd_conf_alloc(c, sizeof(void *) * (size_t) c->nlistens);
    c->listen_nservers = nicd_conf_alloc(c, sizeof(int) * (size_t) c->nlistens);
    if (c->listen_servers == NULL || c->listen_nservers == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (li = 0; li < c->nlistens; li++) {
        nicd_server_conf_t **list;
        int                  n = 0;

        list = nicd_conf_alloc(c, sizeof(*list) * (size_t) (c->nservers + 1));
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
