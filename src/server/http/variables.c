/*
 * The nginx variables static sites use ($uri, $request_uri, $args, $host,
 * $scheme, $remote_addr, $http_NAME, $arg_NAME, $document_root,
 * $request_filename, captures), and templates that hold them: what
 * rewrite, return, if, try_files and error_page expand.  Regex matching
 * with the worker's match data.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "handler.h"
#include "variables.h"

#define MATCH_PAIRS 10 /* $0..$9 */

/* the Host a request names, without a port or a trailing dot */
void
nicd_request_host(const nicd_request_t *r, const char **host, size_t *len)
{
    const char *h = r->hdr[NICD_HDR_HOST].p;
    size_t      n = r->hdr[NICD_HDR_HOST].len, i;

    if (h == NULL) {
        *host = NULL;
        *len = 0;
        return;
    }
    if (n > 0 && h[0] != '[') {
        for (i = 0; i < n && h[i] != ':'; i++) {
        }
        n = i;
    }
    if (n > 0 && h[n - 1] == '.') {
        n--;
    }
    *host = h;
    *len = n;
}

void *
nicd_match_data(nicd_worker_t *w)
{
    if (w->match == NULL) {
        w->match = pcre2_match_data_create(MATCH_PAIRS, NULL);
    }
    return w->match;
}

void *
nicd_regex_match(nicd_worker_t *w, void *re, const char *s, size_t len)
{
    pcre2_match_data *md = nicd_match_data(w);

    if (md == NULL
        || pcre2_match(re, (PCRE2_SPTR) s, len, 0, 0, md, NULL) < 0) {
        return NULL;
    }
    return md;
}

int
nicd_expand_captures(nicd_conn_t *c, const char *tmpl, void *md,
                     const char *subject, nicd_buf_t *b)
{
    if (nicd_expand(c, c->cur_request, subject, strlen(subject), tmpl, b, subject,
               pcre2_get_ovector_pointer(md), (int) pcre2_get_ovector_count(md))
        != 0) {
        return -1;
    }
    nicd_buf_add(b, "", 1);
    b->len--;
    return nicd_buf_failed(b) ? -1 : 0;
}

/* the port of the address the connection came to */
unsigned
nicd_local_port(nicd_conn_t *c)
{
    struct sockaddr_storage ss;
    socklen_t               len = sizeof(ss);

    if (getsockname(c->sc.fd, (struct sockaddr *) &ss, &len) != 0) {
        return 0;
    }
    return ss.ss_family == AF_INET6
               ? ntohs(((struct sockaddr_in6 *) &ss)->sin6_port)
               : ntohs(((struct sockaddr_in *) &ss)->sin_port);
}

/*
 * Append the value of variable name (len bytes) to b: the nginx
 * variables static sites use.  $1..$9 come from the last regex match
 * (caps: its pairs, n of them).  0, or -1 for an unknown variable.
 */
static int
variable(nicd_conn_t *c, const nicd_request_t *r, const char *uri, size_t ulen,
         const char *name, size_t len, nicd_buf_t *b, const char *subject,
         const PCRE2_SIZE *caps, int ncaps)
{
    const char *host;
    size_t      hlen;

#define IS(lit) (len == sizeof(lit) - 1 && memcmp(name, lit, len) == 0)
    if (len == 1 && name[0] >= '0' && name[0] <= '9') {
        int k = name[0] - '0';

        if (caps != NULL && k < ncaps && caps[2 * k] != PCRE2_UNSET) {
            nicd_buf_add(b, subject + caps[2 * k],
                         caps[2 * k + 1] - caps[2 * k]);
        }
        return 0;
    }
    if (IS("uri") || IS("document_uri")) {
        nicd_buf_add(b, uri, ulen);
    } else if (IS("request_uri")) {
        const nicd_str_t *t = &r->path;

        nicd_buf_add(b, t->p, t->len);
        if (r->query.len > 0) {
            nicd_buf_add(b, "?", 1);
            nicd_buf_add(b, r->query.p, r->query.len);
        }
    } else if (IS("args") || IS("query_string")) {
        nicd_buf_add(b, r->query.p, r->query.len);
    } else if (IS("is_args")) {
        if (r->query.len > 0) {
            nicd_buf_add(b, "?", 1);
        }
    } else if (IS("host")) {
        nicd_request_host(r, &host, &hlen);
        if (host == NULL || hlen == 0) {
            host = c->srv->nnames > 0 ? c->srv->names[0] : "";
            hlen = strlen(host);
        }
        nicd_buf_add(b, host, hlen);
    } else if (IS("http_host")) {
        nicd_buf_add(b, r->hdr[NICD_HDR_HOST].p, r->hdr[NICD_HDR_HOST].len);
    } else if (IS("server_name")) {
        host = c->srv->nnames > 0 ? c->srv->names[0] : "";
        nicd_buf_add(b, host, strlen(host));
    } else if (IS("scheme")) {
        nicd_buf_addf(b, "%s", c->tp == &nicd_transport_tls ? "https" : "http");
    } else if (IS("remote_addr")) {
        nicd_buf_add(b, c->addr, strlen(c->addr));
    } else if (IS("server_port")) {
        nicd_buf_addf(b, "%u", nicd_local_port(c));
    } else if (IS("request_method")) {
        nicd_buf_addf(b, "%s", nicd_http_method_name(r->method));
    } else if (len > 5 && memcmp(name, "http_", 5) == 0) {
        /* a request header, "-" written "_", any case */
        int    k;
        size_t i;

        for (k = 0; k < r->nheaders; k++) {
            if (r->hname[k].len != len - 5) {
                continue;
            }
            for (i = 0; i < len - 5; i++) {
                char a = r->hname[k].p[i] == '-' ? '_' : r->hname[k].p[i];

                if ((a | 0x20) != (name[5 + i] | 0x20)) {
                    break;
                }
            }
            if (i == len - 5) {
                nicd_buf_add(b, r->hvalue[k].p, r->hvalue[k].len);
                break;
            }
        }
    } else if (len > 4 && memcmp(name, "arg_", 4) == 0) {
        /* an argument of the query: NAME=VALUE, the first one */
        const char *q = r->query.p, *end = q + r->query.len, *e, *amp;

        while (q != NULL && q < end) {
            amp = memchr(q, '&', (size_t) (end - q));
            e = amp != NULL ? amp : end;
            if ((size_t) (e - q) > len - 4 && memcmp(q, name + 4, len - 4) == 0
                && q[len - 4] == '=') {
                nicd_buf_add(b, q + len - 3, (size_t) (e - q) - (len - 3));
                break;
            }
            q = amp != NULL ? amp + 1 : NULL;
        }
    } else if (IS("request_filename")) {
        const nicd_loc_conf_t *lc = c->loc;

        nicd_buf_add(b, lc->root, strlen(lc->root));
        if (lc->alias && lc->name_len <= ulen
            && (lc->kind == NICD_LOC_PREFIX || lc->kind == NICD_LOC_NOREGEX
                || lc->kind == NICD_LOC_EXACT)) {
            nicd_buf_add(b, uri + lc->name_len, ulen - lc->name_len);
        } else if (!lc->alias) {
            nicd_buf_add(b, uri, ulen);
        }
    } else if (IS("document_root")) {
        nicd_buf_add(b, c->loc->root, strlen(c->loc->root));
    } else {
        return -1;
    }
#undef IS
    return 0;
}

/*
 * Expand the variables of tmpl into b (cleared first).  0, or -1 (logged)
 * for an unknown variable.
 */
int
nicd_expand(nicd_conn_t *c, const nicd_request_t *r, const char *uri, size_t ulen,
       const char *tmpl, nicd_buf_t *b, const char *subject,
       const PCRE2_SIZE *caps, int ncaps)
{
    const char *p = tmpl, *s;
    size_t      n;

    b->len = 0;
    while (*p != '\0') {
        if (*p != '$') {
            s = strchr(p, '$');
            n = s == NULL ? strlen(p) : (size_t) (s - p);
            nicd_buf_add(b, p, n);
            p += n;
            continue;
        }
        p++;
        if (*p == '{') {
            s = strchr(p, '}');
            if (s == NULL) {
                return -1;
            }
            n = (size_t) (s - p - 1);
            if (variable(c, r, uri, ulen, p + 1, n, b, subject, caps, ncaps)
                != 0) {
                goto unknown;
            }
            p = s + 1;
            continue;
        }
        if (*p >= '0' && *p <= '9') {
            n = 1;
        } else {
            for (n = 0; (p[n] >= 'a' && p[n] <= 'z') || p[n] == '_'
                        || (p[n] >= '0' && p[n] <= '9');
                 n++) {
            }
        }
        if (n == 0) {
            nicd_buf_add(b, "$", 1);
            continue;
        }
        if (variable(c, r, uri, ulen, p, n, b, subject, caps, ncaps) != 0) {
            goto unknown;
        }
        p += n;
    }
    return nicd_buf_failed(b) ? -1 : 0;

unknown:
    log_error(LOG_ERR, 0, "unknown variable in \"%s\", client: %s", tmpl,
              c->addr);
    return -1;
}
