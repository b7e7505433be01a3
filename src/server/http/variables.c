/*
 * The nginx variables static sites use ($uri, $request_uri, $args, $host,
 * $scheme, $remote_addr, $http_NAME, $arg_NAME, $document_root,
 * $request_filename, $status, captures), "set" variables and maps, and
 * templates that hold them: what rewrite, return, set, if, try_files,
 * error_page and access_log's if= expand.  Regex matching
 * with the worker's match data.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
    if (nicd_expand(c, c->r->in, subject, strlen(subject), tmpl, b, subject,
                    pcre2_get_ovector_pointer(md),
                    (int) pcre2_get_ovector_count(md))
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

/* "set" variables: records of [name length][value length][name][value]
 * (lengths as uint32_t), the last one of a name wins */
int
nicd_var_set(nicd_worker_t *w, const char *name, const char *value, size_t len)
{
    uint32_t n[2] = {(uint32_t) strlen(name), (uint32_t) len};

    nicd_buf_add(&w->vars, n, sizeof(n));
    nicd_buf_add(&w->vars, name, n[0]);
    nicd_buf_add(&w->vars, value, len);
    return nicd_buf_failed(&w->vars) ? -1 : 0;
}

static int
var_get(const nicd_worker_t *w, const char *name, size_t len,
        const char **value, size_t *vlen)
{
    size_t   off = 0;
    uint32_t n[2];
    int      found = 0;

    while (off + sizeof(n) <= w->vars.len) {
        memcpy(n, w->vars.data + off, sizeof(n));
        off += sizeof(n);
        if (n[0] == len && memcmp(w->vars.data + off, name, len) == 0) {
            *value = w->vars.data + off + n[0];
            *vlen = n[1];
            found = 1;
        }
        off += n[0] + n[1];
    }
    return found;
}

static const nicd_map_t *
map_of(const nicd_conf_t *cf, const char *name, size_t len)
{
    int i;

    for (i = 0; i < cf->nmaps; i++) {
        if (cf->maps[i]->name_len == len
            && memcmp(cf->maps[i]->name, name, len) == 0) {
            return cf->maps[i];
        }
    }
    return NULL;
}

#define MAP_DEPTH 8 /* a map whose value uses a map ... (a loop: an error) */

/*
 * A map's value for this request, appended to b: its source expanded,
 * then the first string equal to it (ignoring case), else the first
 * regex matching it (its captures for $1..$9 in the value), else the
 * default.  0, or -1 (logged).
 */
static int
map_value(nicd_conn_t *c, const nicd_request_t *r, const char *uri, size_t ulen,
          const nicd_map_t *m, nicd_buf_t *b)
{
    static __thread int depth;
    nicd_buf_t          src = {0}, val = {0};
    pcre2_match_data   *md;
    PCRE2_SIZE          caps[2 * MATCH_PAIRS];
    const char         *value = m->deflt != NULL ? m->deflt : "";
    int                 i, n = 0, rc = -1;

    if (depth >= MAP_DEPTH) {
        log_error(LOG_ERR, 0,
                  "map $%s: variables nested too deeply, "
                  "client: %s",
                  m->name, c->addr);
        return -1;
    }
    depth++;
    if (nicd_expand(c, r, uri, ulen, m->source, &src, NULL, NULL, 0) != 0) {
        goto done;
    }
    for (i = 0; i < m->nentries; i++) {
        if (m->entries[i].key != NULL && strlen(m->entries[i].key) == src.len
            && strncasecmp(m->entries[i].key, src.data != NULL ? src.data : "",
                           src.len)
                   == 0) {
            value = m->entries[i].value;
            goto found;
        }
    }
    if (c->w->map_match == NULL) {
        c->w->map_match = pcre2_match_data_create(MATCH_PAIRS, NULL);
        if (c->w->map_match == NULL) {
            goto done;
        }
    }
    md = c->w->map_match;
    for (i = 0; i < m->nentries; i++) {
        if (m->entries[i].re == NULL) {
            continue;
        }
        n = pcre2_match(m->entries[i].re,
                        (PCRE2_SPTR) (src.data != NULL ? src.data : ""),
                        src.len, 0, 0, md, NULL);
        if (n > 0) {
            /* a copy: the value's own maps match with the same data */
            memcpy(caps, pcre2_get_ovector_pointer(md),
                   sizeof(PCRE2_SIZE) * 2 * (size_t) n);
            value = m->entries[i].value;
            goto found;
        }
    }
    n = 0;
found:
    nicd_buf_add(&src, "", 1); /* the subject of $1..$9, NUL-terminated */
    if (nicd_expand(c, r, uri, ulen, value, &val, src.data, n > 0 ? caps : NULL,
                    n)
        == 0) {
        nicd_buf_add(b, val.data, val.len);
        /* kept for the rest of the request, as nginx caches it */
        rc = m->volatile_
                     || nicd_var_set(c->w, m->name,
                                     val.data != NULL ? val.data : "", val.len)
                            == 0
                 ? 0
                 : -1;
    }
done:
    depth--;
    nicd_buf_free(&src);
    nicd_buf_free(&val);
    return rc;
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
            host = c->r->srv->nnames > 0 ? c->r->srv->names[0] : "";
            hlen = strlen(host);
        }
        nicd_buf_add(b, host, hlen);
    } else if (IS("http_host")) {
        nicd_buf_add(b, r->hdr[NICD_HDR_HOST].p, r->hdr[NICD_HDR_HOST].len);
    } else if (IS("server_name")) {
        host = c->r->srv->nnames > 0 ? c->r->srv->names[0] : "";
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
        const nicd_loc_conf_t *lc = c->r->loc;

        nicd_buf_add(b, lc->root, strlen(lc->root));
        if (lc->alias && lc->name_len <= ulen
            && (lc->kind == NICD_LOC_PREFIX || lc->kind == NICD_LOC_NOREGEX
                || lc->kind == NICD_LOC_EXACT)) {
            nicd_buf_add(b, uri + lc->name_len, ulen - lc->name_len);
        } else if (!lc->alias) {
            nicd_buf_add(b, uri, ulen);
        }
    } else if (IS("document_root")) {
        nicd_buf_add(b, c->r->loc->root, strlen(c->r->loc->root));
    } else if (IS("status")) {
        nicd_buf_addf(b, "%03d", c->r->status);
    } else {
        const nicd_map_t *m;
        const char       *v;
        size_t            vlen;

        const nicd_conf_t *cf = c->w->cycle->conf;
        int                k;

        if (var_get(c->w, name, len, &v, &vlen)) {
            nicd_buf_add(b, v, vlen);
        } else if ((m = map_of(cf, name, len)) != NULL) {
            return map_value(c, r, uri, ulen, m, b);
        } else {
            for (k = 0; k < cf->nset_names; k++) {
                if (strlen(cf->set_names[k]) == len
                    && memcmp(cf->set_names[k], name, len) == 0) {
                    log_error(LOG_WARN, 0,
                              "using uninitialized \"%.*s\" variable, "
                              "client: %s",
                              (int) len, name, c->addr);
                    return 0; /* "set" somewhere: empty until then */
                }
            }
            return -1;
        }
    }
#undef IS
    return 0;
}

/*
 * Expand the variables of tmpl into b (cleared first).  0, or -1 (logged)
 * for an unknown variable.
 */
int
nicd_expand(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
            size_t ulen, const char *tmpl, nicd_buf_t *b, const char *subject,
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
