/*
 * What a proxied request did upstream, as variables (upstream.h):
 * $upstream_addr, $upstream_status, $upstream_response_time,
 * $upstream_connect_time, $upstream_header_time,
 * $upstream_response_length, $upstream_bytes_received,
 * $upstream_bytes_sent (one value a server tried, ", " between, as
 * nginx's) and $upstream_http_NAME (the last response's field).
 */

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "server/http/upstream.h"
#include "server/http/variables.h"

void
nicd_upstream_req_end(nicd_worker_t *w, nicd_upstream_req_t *ur)
{
    nicd_upstream_try_t *t = &ur->tries[ur->ntries > 0 ? ur->ntries - 1 : 0];

    if (ur->ntries > 0 && t->response_ms < 0 && t->start_ms > 0) {
        t->response_ms = nicd_worker_now_ms(w) - t->start_ms;
    }
}

/* ---- the $upstream_* variables ---- */

enum {
    V_ADDR,
    V_STATUS,
    V_RESPONSE,
    V_CONNECT,
    V_HEADER,
    V_LENGTH,
    V_RECEIVED,
    V_SENT
};

static void
add_ms(nicd_buf_t *b, long ms)
{
    if (ms < 0) {
        NICD_BUF_LIT(b, "-");
        return;
    }
    nicd_buf_add_u64(b, (uint64_t) ms / 1000);
    nicd_buf_add(b, ".", 1);
    nicd_buf_add(b,
                 (const char[]){(char) ('0' + ms % 1000 / 100),
                                (char) ('0' + ms % 100 / 10),
                                (char) ('0' + ms % 10)},
                 3);
}

/* one value a server tried, ", " between (nginx's lists) */
static int
tries_var(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
          const char *suffix, size_t slen, nicd_buf_t *b)
{
    const nicd_upstream_req_t *ur = c->r != NULL ? c->r->upstream : NULL;
    int                        i, what = (int) (intptr_t) v->data;

    (void) x;
    (void) suffix;
    (void) slen;
    if (ur == NULL || ur->ntries == 0) {
        return 0;
    }
    for (i = 0; i < ur->ntries; i++) {
        const nicd_upstream_try_t *t = &ur->tries[i];

        if (i > 0) {
            NICD_BUF_LIT(b, ", ");
        }
        switch (what) {
        case V_ADDR: nicd_buf_adds(b, t->addr); break;
        case V_STATUS:
            if (t->status > 0) {
                nicd_buf_add_u64(b, (uint64_t) t->status);
            } else {
                NICD_BUF_LIT(b, "-");
            }
            break;
        case V_RESPONSE: add_ms(b, t->response_ms); break;
        case V_CONNECT: add_ms(b, t->connect_ms); break;
        case V_HEADER: add_ms(b, t->header_ms); break;
        case V_LENGTH: nicd_buf_add_u64(b, t->length); break;
        case V_RECEIVED: nicd_buf_add_u64(b, t->received); break;
        default: nicd_buf_add_u64(b, t->sent); break;
        }
    }
    return 0;
}

/* $upstream_http_NAME: the last response's field ('_' for '-') */
static int
header_var(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
           const char *suffix, size_t slen, nicd_buf_t *b)
{
    const nicd_upstream_req_t *ur = c->r != NULL ? c->r->upstream : NULL;
    int                        i;

    (void) x;
    (void) v;
    if (ur == NULL || ur->resp == NULL) {
        return 0;
    }
    for (i = 0; i < ur->resp->nheaders; i++) {
        if (nicd_header_is(ur->head + ur->resp->h[i].noff, ur->resp->h[i].nlen,
                           suffix, slen)) {
            nicd_buf_add(b, ur->head + ur->resp->h[i].voff,
                         ur->resp->h[i].vlen);
            return 0;
        }
    }
    return 0;
}

/* $upstream_cookie_NAME: the value NAME has in the first pair of one of
 * the last response's Set-Cookie fields ("NAME=value; Path=/"), as
 * nginx's ngx_http_parse_set_cookie_lines reads them */
static int
cookie_var(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
           const char *suffix, size_t slen, nicd_buf_t *b)
{
    const nicd_upstream_req_t *ur = c->r != NULL ? c->r->upstream : NULL;
    const char                *p, *end, *e;
    int                        i;

    (void) x;
    (void) v;
    for (i = 0; ur != NULL && ur->resp != NULL && i < ur->resp->nheaders; i++) {
        if (ur->resp->h[i].nlen != 10
            || strncasecmp(ur->head + ur->resp->h[i].noff, "set-cookie", 10)
                   != 0) {
            continue;
        }
        p = ur->head + ur->resp->h[i].voff;
        end = p + ur->resp->h[i].vlen;
        if ((size_t) (end - p) < slen || strncasecmp(p, suffix, slen) != 0) {
            continue;
        }
        for (p += slen; p < end && *p == ' '; p++) {
        }
        if (p == end || *p++ != '=') {
            continue;
        }
        for (; p < end && *p == ' '; p++) {
        }
        for (e = p; e < end && *e != ';'; e++) {
        }
        nicd_buf_add(b, p, (size_t) (e - p));
        return 0;
    }
    return 0;
}

#define TRIES_VAR(name, what)                                                  \
    {                                                                          \
        name, tries_var, NICD_VAR_VOLATILE, (const void *) (intptr_t) (what)   \
    }

const nicd_var_t nicd_upstream_vars[] = {
    TRIES_VAR("upstream_addr", V_ADDR),
    TRIES_VAR("upstream_status", V_STATUS),
    TRIES_VAR("upstream_response_time", V_RESPONSE),
    TRIES_VAR("upstream_connect_time", V_CONNECT),
    TRIES_VAR("upstream_header_time", V_HEADER),
    TRIES_VAR("upstream_response_length", V_LENGTH),
    TRIES_VAR("upstream_bytes_received", V_RECEIVED),
    TRIES_VAR("upstream_bytes_sent", V_SENT),
    /* nicd keeps no cache of proxied responses (proxy_cache is accepted
     * and caches nothing): no lookup has a status, as nginx's where no
     * cache was asked */
    {"upstream_cache_status", nicd_var_empty, NICD_VAR_VOLATILE, NULL},
    {"upstream_http_", header_var, NICD_VAR_PREFIX | NICD_VAR_VOLATILE, NULL},
    {"upstream_cookie_", cookie_var, NICD_VAR_PREFIX | NICD_VAR_VOLATILE, NULL},
    {NULL, NULL, 0, NULL},
};
