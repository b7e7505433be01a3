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
#include "server/http/filter.h"
#include "server/http/phases.h"
#include "server/http/rate.h"
#include "server/http/redirect.h"
#include "server/http/stream.h"
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

/* what nginx does with an upstream's field of these names: never pass
 * it on (HOP: its own framing and connection; Content-Type goes through
 * charset), hide it unless proxy_pass_header names it (HIDDEN), take it
 * once, a later one ignored with a warning (SINGLE) */
enum { HOP = 1, HIDDEN = 2, SINGLE = 4, LOCATION = 8, REFRESH = 16, TYPE = 32 };

#define F(name, kind)                                                          \
    {                                                                          \
        name, sizeof(name) - 1, kind                                           \
    }
static const struct {
    const char *name;
    size_t      len;
    unsigned    kind;
} fields[] = {
    F("Connection", HOP),
    F("Keep-Alive", HOP),
    F("Transfer-Encoding", HOP),
    F("Upgrade", HOP),
    F("Content-Length", HOP),
    F("Content-Type", HOP | SINGLE | TYPE),
    F("Date", HIDDEN | SINGLE),
    F("Server", HIDDEN | SINGLE),
    F("X-Pad", HIDDEN),
    F("X-Accel-Expires", HIDDEN | SINGLE),
    F("X-Accel-Redirect", HIDDEN | SINGLE),
    F("X-Accel-Limit-Rate", HIDDEN | SINGLE),
    F("X-Accel-Buffering", HIDDEN | SINGLE),
    F("X-Accel-Charset", HIDDEN | SINGLE),
    F("Last-Modified", SINGLE),
    F("ETag", SINGLE),
    F("Location", SINGLE | LOCATION),
    F("Refresh", SINGLE | REFRESH),
    F("Expires", SINGLE),
};
#undef F

/* the index of name (len bytes, any case) in fields, or -1 */
static int
field_of(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (fields[i].len == len
            && strncasecmp(fields[i].name, name, len) == 0) {
            return (int) i;
        }
    }
    return -1;
}

/* field i of the head (fields' k) seen before, a single one: logged */
static int
duplicate(const nicd_upstream_head_t *h, int i, int k, uint32_t *seen)
{
    const nicd_resp_t *rp = h->resp;

    if (k < 0 || !(fields[k].kind & SINGLE) || !(*seen & (1u << k))) {
        if (k >= 0) {
            *seen |= 1u << k;
        }
        return 0;
    }
    log_error(LOG_WARN, 0,
              "upstream sent duplicate header line: \"%.*s: %.*s\", "
              "ignored, client: %s, upstream: \"%s\"",
              (int) rp->h[i].nlen, h->head + rp->h[i].noff, (int) rp->h[i].vlen,
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

/* the stream filters' say on the head (stream.h): what the response
 * is, for them to choose; in sh what they change */
static void
stream_head(nicd_conn_t *c, const nicd_upstream_head_t *h,
            nicd_stream_head_t *sh)
{
    const nicd_resp_t *rp = h->resp;
    int                i;

    memset(sh, 0, sizeof(*sh));
    for (i = 0; i < rp->nheaders; i++) {
        const char *n = h->head + rp->h[i].noff;
        nicd_str_t  v = {h->head + rp->h[i].voff, rp->h[i].vlen};
        size_t      nl = rp->h[i].nlen;

        if (nl == 12 && strncasecmp(n, "Content-Type", 12) == 0
            && sh->type == NULL) {
            sh->type = v.p;
            sh->tlen = v.len;
        } else if (nl == 16 && strncasecmp(n, "Content-Encoding", 16) == 0
                   && v.len > 0) {
            sh->encoded = 1;
        } else if (nl == 7 && strncasecmp(n, "Expires", 7) == 0) {
            sh->expires = v;
        } else if (nl == 13 && strncasecmp(n, "Cache-Control", 13) == 0) {
            sh->cache_control = v;
        } else if (nl == 4 && strncasecmp(n, "Date", 4) == 0) {
            sh->date = v;
        } else if (nl == 13 && strncasecmp(n, "Last-Modified", 13) == 0) {
            sh->last_modified = 1;
        } else if (nl == 4 && strncasecmp(n, "ETag", 4) == 0) {
            sh->etag = 1;
        }
    }
    sh->status = rp->status;
    sh->length = rp->status == 204 ? 0 : rp->content_length;
    sh->nobody = h->method == NICD_M_HEAD || rp->status == 204
                 || rp->status == 304 || rp->status < 200;
    nicd_stream_head_next(c, NICD_FILTER_TOP, sh);
}

/* an upstream's field the stream filters drop or change (sh): 1 when
 * it is not relayed as it is */
static int
stream_changed(nicd_conn_t *c, const nicd_stream_head_t *sh, const char *n,
               size_t nl, const char *v, size_t vl)
{
    nicd_buf_t weak = {0};

    if (nl == 13 && strncasecmp(n, "Accept-Ranges", 13) == 0) {
        return sh->no_ranges;
    }
    if (nl == 13 && strncasecmp(n, "Last-Modified", 13) == 0) {
        return sh->no_validators;
    }
    if (nl != 4 || strncasecmp(n, "ETag", 4) != 0) {
        return 0;
    }
    if (sh->no_validators) {
        return 1;
    }
    if (!sh->weak_etag || (vl > 0 && v[0] == 'W')) {
        return 0;
    }
    NICD_BUF_LIT(&weak, "W/");
    nicd_buf_add(&weak, v, vl);
    if (!nicd_buf_failed(&weak)) {
        nicd_resp_header(c, "ETag", 4, weak.data, weak.len);
    }
    nicd_buf_free(&weak);
    return 1;
}

/* the head to the client: the upstream's fields, less hop-by-hop and
 * hidden ones, Location and Refresh through proxy_redirect, those the
 * stream filters change as they say */
void
nicd_upstream_relay_head(nicd_conn_t *c, const nicd_upstream_head_t *h)
{
    const nicd_resp_t          *rp = h->resp;
    const char                 *hb = h->head;
    const nicd_upstream_conf_t *pc = h->uc;
    nicd_stream_head_t          sh;
    int                         i;
    uint32_t                    seen = 0;

    c->r->own_server = nicd_upstream_listed(pc->pass, pc->npass, "Server", 6);
    c->r->own_date = nicd_upstream_listed(pc->pass, pc->npass, "Date", 4);
    nicd_resp_start(c, rp->status);
    stream_head(c, h, &sh);
    for (i = 0; i < rp->nheaders; i++) {
        const char *n = hb + rp->h[i].noff, *v = hb + rp->h[i].voff;
        size_t      nl = rp->h[i].nlen, vl = rp->h[i].vlen;
        int         k = field_of(n, nl);
        unsigned    kind = k >= 0 ? fields[k].kind : 0;

        if (duplicate(h, i, k, &seen)
            || nicd_resp_replaced(c, c->r->status, n, nl, NULL)
            || stream_changed(c, &sh, n, nl, v, vl)) {
            continue;
        }
        if (rp->status == 101 && nl == 7) {
            kind &= ~HOP; /* an upgrade's Upgrade goes to the client */
        }
        if ((kind & HOP)
            || (pc->nhide > 0
                && nicd_upstream_listed(pc->hide, pc->nhide, n, nl))
            || ((kind & HIDDEN)
                && !nicd_upstream_listed(pc->pass, pc->npass, n, nl))) {
            if (kind & TYPE) {
                nicd_resp_content_type(c, v, vl);
            }
            continue;
        }
        if (kind & LOCATION) {
            relay_location(h, c, v, vl);
        } else if (kind & REFRESH) {
            relay_refresh(h, c, v, vl);
        } else {
            nicd_resp_header(c, n, nl, v, vl);
        }
    }
    if (sh.length >= 0 && rp->status != 204) {
        nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) sh.length);
    } else if (!sh.nobody) {
        c->r->chunked = 1; /* (the protocol frames it) */
    }
    nicd_resp_end_headers(c);
}

/* may status go to the next server (proxy_next_upstream http_*)? */
int
nicd_upstream_status_ft(int status)
{
    switch (status) {
    case 500: return NICD_FT_HTTP_500;
    case 502: return NICD_FT_HTTP_502;
    case 503: return NICD_FT_HTTP_503;
    case 504: return NICD_FT_HTTP_504;
    case 403: return NICD_FT_HTTP_403;
    case 404: return NICD_FT_HTTP_404;
    case 429: return NICD_FT_HTTP_429;
    default: return 0;
    }
}

/* X-Accel-Limit-Rate (unless ignored): the response's rate, over
 * limit_rate (a redirect's too) */
void
nicd_upstream_accel_rate(nicd_conn_t *c, const nicd_upstream_conf_t *uc,
                         const nicd_resp_t *rp, const char *head)
{
    int      i;
    uint64_t v = 0;
    size_t   k;

    if (uc->ignore_headers & NICD_IGNORE_ACCEL_LIMIT_RATE) {
        return;
    }
    for (i = 0; i < rp->nheaders; i++) {
        const char *s = head + rp->h[i].voff;

        if (!nicd_resp_is(rp, head, i, "X-Accel-Limit-Rate", 18)) {
            continue;
        }
        for (k = 0;
             k < rp->h[i].vlen && s[k] >= '0' && s[k] <= '9' && v < UINT32_MAX;
             k++) {
            v = v * 10 + (uint64_t) (s[k] - '0');
        }
        if (k == rp->h[i].vlen && k > 0) {
            nicd_rate_set(c, v > UINT32_MAX ? UINT32_MAX : (uint32_t) v);
        }
        return;
    }
}
