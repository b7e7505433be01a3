/*
 * An upstream's response head relayed to the client (upstream.h): its
 * fields but the hop-by-hop ones and those hidden, nicd's own Server and
 * Date unless passed, a single field's duplicates dropped (with a
 * warning), Location and Refresh through the module's rewrite (proxy_
 * redirect), the body's length or the protocol's framing.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/log.h"
#include "server/http/phases.h"
#include "server/http/upstream.h"

int
nicd_upstream_listed(char *const *l, int n, const char *name, size_t len)
{
    int i;

    for (i = 0; i < n; i++) {
        if (strlen(l[i]) == len && strncasecmp(l[i], name, len) == 0) {
            return 1;
        }
    }
    return 0;
}

/* the fields nginx never passes on, or hides unless proxy_pass_header */
static const char *const hop_fields[] = {
    "Connection", "Keep-Alive",     "Transfer-Encoding",
    "Upgrade",    "Content-Length", "Content-Type",
    NULL,
};
static const char *const hidden_fields[] = {
    "Date",
    "Server",
    "X-Pad",
    "X-Accel-Expires",
    "X-Accel-Redirect",
    "X-Accel-Limit-Rate",
    "X-Accel-Buffering",
    "X-Accel-Charset",
    NULL,
};

/* the fields nginx takes once: a later one is ignored, with a warning */
static const char *const single_fields[] = {
    "Content-Type",
    "Date",
    "Last-Modified",
    "ETag",
    "Server",
    "Location",
    "Refresh",
    "Expires",
    "X-Accel-Expires",
    "X-Accel-Redirect",
    "X-Accel-Limit-Rate",
    "X-Accel-Buffering",
    "X-Accel-Charset",
    NULL,
};

/* the index of name in t, or -1 */
static int
table_index(const char *const *t, const char *name, size_t len)
{
    int i;

    for (i = 0; t[i] != NULL; i++) {
        if (strlen(t[i]) == len && strncasecmp(t[i], name, len) == 0) {
            return i;
        }
    }
    return -1;
}

static int
in_table(const char *const *t, const char *name, size_t len)
{
    return table_index(t, name, len) >= 0;
}

/* field i of the head seen before (a single one's duplicate): logged */
static int
duplicate(const nicd_upstream_head_t *h, int i, uint32_t *seen)
{
    const nicd_resp_t *rp = h->resp;
    const char        *n = h->head + rp->h[i].noff;
    int                k = table_index(single_fields, n, rp->h[i].nlen);

    if (k < 0 || !(*seen & (1u << k))) {
        if (k >= 0) {
            *seen |= 1u << k;
        }
        return 0;
    }
    log_error(LOG_WARN, 0,
              "upstream sent duplicate header line: \"%.*s: %.*s\", "
              "ignored, client: %s, upstream: \"%s\"",
              (int) rp->h[i].nlen, n, (int) rp->h[i].vlen,
              h->head + rp->h[i].voff, h->client, h->server);
    return 1;
}

/* Location through proxy_redirect, then made absolute as nicd's own
 * redirects are (nginx's header filter does so) */
static void
relay_location(const nicd_upstream_head_t *h, nicd_conn_t *c, const char *v,
               size_t vl)
{
    nicd_buf_t to = {0}, abs = {0};

    if (h->uc->rewrite != NULL && h->uc->rewrite(c, h->uc->owner, v, vl, &to)) {
        v = to.data;
        vl = to.len;
    }
    if (vl > 0 && v[0] == '/') {
        nicd_absolute_location(c, c->r->in, v, vl, &abs);
        v = abs.data;
        vl = abs.len;
    }
    if (v != NULL) {
        nicd_resp_header(c, "Location", 8, v, vl);
    }
    nicd_buf_free(&to);
    nicd_buf_free(&abs);
}

/* Refresh: its "url=" part through proxy_redirect */
static void
relay_refresh(const nicd_upstream_head_t *h, nicd_conn_t *c, const char *v,
              size_t vl)
{
    nicd_buf_t to = {0}, out = {0};
    size_t     i;

    for (i = 0; i + 4 <= vl && strncasecmp(v + i, "url=", 4) != 0; i++) {
    }
    if (i + 4 > vl || h->uc->rewrite == NULL
        || !h->uc->rewrite(c, h->uc->owner, v + i + 4, vl - i - 4, &to)) {
        nicd_resp_header(c, "Refresh", 7, v, vl);
        return;
    }
    nicd_buf_add(&out, v, i + 4);
    nicd_buf_add(&out, to.data, to.len);
    if (!nicd_buf_failed(&out)) {
        nicd_resp_header(c, "Refresh", 7, out.data, out.len);
    }
    nicd_buf_free(&to);
    nicd_buf_free(&out);
}

/* the head to the client: the upstream's fields, less hop-by-hop and
 * hidden ones, Location and Refresh through proxy_redirect */
void
nicd_upstream_relay_head(nicd_conn_t *c, const nicd_upstream_head_t *h)
{
    const nicd_resp_t          *rp = h->resp;
    const char                 *hb = h->head;
    const nicd_upstream_conf_t *pc = h->uc;
    int                         i, nobody;
    uint32_t                    seen = 0;

    c->r->own_server = nicd_upstream_listed(pc->pass, pc->npass, "Server", 6);
    c->r->own_date = nicd_upstream_listed(pc->pass, pc->npass, "Date", 4);
    nicd_resp_start(c, rp->status);
    for (i = 0; i < rp->nheaders; i++) {
        const char *n = hb + rp->h[i].noff, *v = hb + rp->h[i].voff;
        size_t      nl = rp->h[i].nlen, vl = rp->h[i].vlen;

        if (duplicate(h, i, &seen)) {
            continue;
        }
        if (in_table(hop_fields, n, nl)
            || nicd_upstream_listed(pc->hide, pc->nhide, n, nl)
            || (in_table(hidden_fields, n, nl)
                && !nicd_upstream_listed(pc->pass, pc->npass, n, nl))) {
            if (nl == 12 && strncasecmp(n, "Content-Type", 12) == 0) {
                nicd_resp_content_type(c, v, vl);
            }
            continue;
        }
        if (nl == 8 && strncasecmp(n, "Location", 8) == 0) {
            relay_location(h, c, v, vl);
            continue;
        }
        if (nl == 7 && strncasecmp(n, "Refresh", 7) == 0) {
            relay_refresh(h, c, v, vl);
            continue;
        }
        nicd_resp_header(c, n, nl, v, vl);
    }
    nobody = h->method == NICD_M_HEAD || rp->status == 204 || rp->status == 304
             || rp->status < 200;
    if (rp->content_length >= 0 && rp->status != 204) {
        nicd_resp_header_u64(c, "Content-Length", 14,
                             (uint64_t) rp->content_length);
    } else if (!nobody) {
        c->r->chunked = 1; /* (the protocol frames it) */
    }
    nicd_resp_end_headers(c);
}
