/*
 * The servers a URL names (upstream.h): its parts, and at run time (a
 * proxy_pass with variables) its group or address.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/log.h"
#include "server/http/upstream.h"

/* "http://HOST[:PORT][/URI]" of u (len bytes): its parts, 0, or -1 */
int
nicd_upstream_split_url(const char *u, size_t len, nicd_str_t *host,
                        nicd_str_t *port, nicd_str_t *uri)
{
    const char *p = u + 7, *end = u + len, *h;

    if (len < 8 || strncasecmp(u, "http://", 7) != 0) {
        return -1;
    }
    h = p;
    if (end - p > 5 && strncasecmp(p, "unix:", 5) == 0) {
        /* "unix:PATH:" then the URI (nginx's form) */
        const char *colon = memchr(p + 5, ':', (size_t) (end - p - 5));

        host->p = h;
        host->len = (size_t) ((colon != NULL ? colon : end) - h);
        port->p = NULL;
        port->len = 0;
        p = colon != NULL ? colon + 1 : end;
        uri->p = p < end ? p : NULL;
        uri->len = (size_t) (end - p);
        return host->len > 5 && (p == end || *p == '/') ? 0 : -1;
    }
    if (*p == '[') {
        while (p < end && *p != ']') {
            p++;
        }
        if (p == end) {
            return -1;
        }
        p++;
    } else {
        while (p < end && *p != ':' && *p != '/' && *p != '?') {
            p++;
        }
    }
    host->p = h;
    host->len = (size_t) (p - h);
    port->p = NULL;
    port->len = 0;
    if (p < end && *p == ':') {
        port->p = ++p;
        while (p < end && *p >= '0' && *p <= '9') {
            p++;
        }
        port->len = (size_t) (p - port->p);
        if (port->len == 0 || port->len > 5) {
            return -1;
        }
    }
    uri->p = p < end ? p : NULL;
    uri->len = (size_t) (end - p);
    if (p < end && *p != '/' && *p != '?') {
        return -1;
    }
    return host->len > 0 ? 0 : -1;
}

void
nicd_upstream_host_of(nicd_str_t host, nicd_str_t port, nicd_buf_t *hb,
                      nicd_buf_t *pb)
{
    hb->len = pb->len = 0;
    if (host.len >= 5 && strncasecmp(host.p, "unix:", 5) == 0) {
        NICD_BUF_LIT(hb, "localhost"); /* (and no port) */
    } else {
        nicd_buf_add(hb, host.p, host.len);
        if (port.p != NULL
            && !(port.len == 2 && memcmp(port.p, "80", 2) == 0)) {
            nicd_buf_add(hb, ":", 1);
            nicd_buf_add(hb, port.p, port.len);
        }
        nicd_buf_add(pb, port.p != NULL ? port.p : "80",
                     port.p != NULL ? port.len : 2);
    }
    nicd_buf_add(hb, "", 1);
    hb->len--;
    nicd_buf_add(pb, "", 1);
    pb->len--;
}

/* a URL made with variables: its group or address into pk; 0, or the
 * status to answer (logged) */
int
nicd_upstream_pick_url(nicd_conn_t *c, nicd_upstream_pick_t *pk,
                       nicd_str_t host, nicd_str_t port, char *name, size_t cap)
{
    nicd_upstream_t        *u;
    struct sockaddr_storage ss;
    char                    h[INET6_ADDRSTRLEN + 2];
    unsigned                pn = 80;
    size_t                  i;

    for (i = 0, pn = port.p != NULL ? 0 : 80; i < port.len; i++) {
        pn = pn * 10 + (unsigned) (port.p[i] - '0');
    }
    u = nicd_upstream_find(c->w->cycle->conf, host.p, host.len,
                           port.p != NULL ? pn : 0);
    if (u != NULL) {
        return nicd_upstream_pick_init(c, pk, u) == 0 ? 0 : 500;
    }
    if (host.len >= sizeof(h) || pn == 0 || pn > 65535) {
        goto no_resolver;
    }
    memcpy(h, host.p, host.len);
    h[host.len] = '\0';
    memset(&ss, 0, sizeof(ss));
    if (inet_pton(AF_INET, h, &((struct sockaddr_in *) &ss)->sin_addr) == 1) {
        ((struct sockaddr_in *) &ss)->sin_family = AF_INET;
        ((struct sockaddr_in *) &ss)->sin_port = htons((uint16_t) pn);
        snprintf(name, cap, "%s:%u", h, pn);
        nicd_upstream_pick_single(pk, (struct sockaddr *) &ss,
                                  sizeof(struct sockaddr_in), name);
        return 0;
    }
    if (h[0] == '[' && host.len > 2) {
        h[host.len - 1] = '\0';
        if (inet_pton(AF_INET6, h + 1,
                      &((struct sockaddr_in6 *) &ss)->sin6_addr)
            == 1) {
            ((struct sockaddr_in6 *) &ss)->sin6_family = AF_INET6;
            ((struct sockaddr_in6 *) &ss)->sin6_port = htons((uint16_t) pn);
            snprintf(name, cap, "[%s]:%u", h + 1, pn);
            nicd_upstream_pick_single(pk, (struct sockaddr *) &ss,
                                      sizeof(struct sockaddr_in6), name);
            return 0;
        }
    }
no_resolver:
    log_error(LOG_ERR, 0, "no resolver defined to resolve %.*s, client: %s",
              (int) host.len, host.p, nicd_client(c));
    return 502;
}
