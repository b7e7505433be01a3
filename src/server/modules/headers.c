/*
 * add_header NAME VALUE [always] and expires (nginx's
 * ngx_http_headers_module): added to responses of status 200, 201, 204,
 * 206, 301, 302, 303, 304, 307 and 308, or of any status with "always".
 * VALUE may hold variables (a field whose value expands to nothing is left
 * out, as nginx does).
 * "expires TIME|epoch|max|off|modified TIME" sets Expires and
 * Cache-Control (max-age, or no-cache for a time in the past).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/duration.h"
#include "util/buf.h"
#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "server/http/variables.h"

enum {
    EXPIRES_OFF = 0,
    EXPIRES_EPOCH,
    EXPIRES_MAX,
    EXPIRES_ACCESS,
    EXPIRES_MODIFIED
};

/* "add_header NAME VALUE [always];" */
typedef struct {
    char            *name;
    size_t           nlen;
    const nicd_cv_t *value;
    int              always;
} add_header_t;

/* the module's settings of a level: add_header's list is taken whole
 * from the enclosing level when a level has none, as in nginx */
typedef struct {
    add_header_t *headers;
    int           nheaders;
    int           expires_kind; /* EXPIRES_*, NICD_UNSET */
    long          expires;      /* seconds */
} headers_conf_t;

nicd_module_t nicd_headers_module;

static void *
create_conf(nicd_conf_t *c)
{
    headers_conf_t *hc = nicd_conf_alloc(c, sizeof(*hc));

    if (hc != NULL) {
        hc->expires_kind = NICD_UNSET;
    }
    return hc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const headers_conf_t *p = prev;
    headers_conf_t       *hc = conf;

    (void) c;
    NICD_MERGE_LIST(hc, p, headers, nheaders);
    if (hc->expires_kind == NICD_UNSET) {
        hc->expires_kind = p != NULL ? p->expires_kind : EXPIRES_OFF;
        hc->expires = p != NULL ? p->expires : 0;
    }
    return NULL;
}

static const char *
set_add_header(parse_t *ps, const char **a, int n)
{
    headers_conf_t *l = nicd_conf_module_loc(ps);
    add_header_t    h;
    const char     *err;

    if (n == 3 && strcmp(a[2], "always") != 0) {
        return nicd_conf_msg("invalid parameter \"%s\"", a[2]);
    }
    h.value = nicd_conf_cv(ps, a[1], &err);
    if (h.value == NULL) {
        return err;
    }
    h.name = nicd_conf_strdup(ps->conf, a[0]);
    h.nlen = strlen(a[0]);
    h.always = n == 3;
    l->headers = nicd_conf_grow(ps->conf, l->headers, l->nheaders, sizeof(h));
    if (h.name == NULL || l->headers == NULL) {
        return "out of memory";
    }
    l->headers[l->nheaders++] = h;
    return NULL;
}

static const char *
set_expires(parse_t *ps, const char **a, int n)
{
    headers_conf_t *l = nicd_conf_module_loc(ps);
    const char     *t = a[n - 1];
    long long       secs;
    int             neg = 0;

    if (n == 2 && strcmp(a[0], "modified") != 0) {
        return nicd_conf_msg("invalid value \"%s\"", a[0]);
    }
    if (n == 1 && strcmp(t, "off") == 0) {
        l->expires_kind = EXPIRES_OFF;
        return NULL;
    }
    if (n == 1 && strcmp(t, "epoch") == 0) {
        l->expires_kind = EXPIRES_EPOCH;
        return NULL;
    }
    if (n == 1 && strcmp(t, "max") == 0) {
        l->expires_kind = EXPIRES_MAX;
        return NULL;
    }
    if (t[0] == '@') {
        return "\"@time\" is not supported";
    }
    if (t[0] == '-' || t[0] == '+') {
        neg = t[0] == '-';
        t++;
    }
    if (nicache_parse_time(t, 1, &secs) != 0 || secs > 0x7fffffffLL) {
        return nicd_conf_msg("invalid value \"%s\"", a[n - 1]);
    }
    l->expires = (long) (neg ? -secs : secs);
    l->expires_kind = n == 2 ? EXPIRES_MODIFIED : EXPIRES_ACCESS;
    return NULL;
}

/* the statuses add_header and expires apply to without "always" */
static int
headers_status(int s)
{
    return s == 200 || s == 201 || s == 204 || s == 206 || s == 301 || s == 302
           || s == 303 || s == 304 || s == 307 || s == 308;
}

static nicd_header_filter_pt next_header_filter;

/* expires' Expires and Cache-Control of the location at hand */
static void
expires_fields(nicd_conn_t *c, const headers_conf_t *hc)
{
    char date[NICD_HTTP_DATE_LEN + 1], cc[40];
    long secs;
    int  n;

    switch (hc->expires_kind) {
    case EXPIRES_EPOCH:
        NICD_RESP_HEADER(c, "Expires", "Thu, 01 Jan 1970 00:00:01 GMT", 29);
        NICD_RESP_HEADER(c, "Cache-Control", "no-cache", 8);
        return;
    case EXPIRES_MAX:
        NICD_RESP_HEADER(c, "Expires", "Thu, 31 Dec 2037 23:55:55 GMT", 29);
        NICD_RESP_HEADER(c, "Cache-Control", "max-age=315360000", 17);
        return;
    }
    secs = hc->expires;
    nicd_http_date(date, time(NULL) + secs);
    NICD_RESP_HEADER(c, "Expires", date, NICD_HTTP_DATE_LEN);
    if (secs < 0) {
        NICD_RESP_HEADER(c, "Cache-Control", "no-cache", 8);
    } else {
        n = snprintf(cc, sizeof(cc), "max-age=%ld", secs);
        NICD_RESP_HEADER(c, "Cache-Control", cc, (size_t) n);
    }
}

/* the header filter: expires, then add_header's fields */
static void
header_filter(nicd_conn_t *c)
{
    const headers_conf_t *hc;
    int                   i, ok;

    if (c->r->loc == NULL) {
        next_header_filter(c);
        return;
    }
    hc = NICD_LOC_CONF(c->r->loc, nicd_headers_module);
    if (hc->expires_kind == EXPIRES_OFF && hc->nheaders == 0) {
        next_header_filter(c); /* nothing here: the common case */
        return;
    }
    ok = headers_status(c->r->status);
    if (hc->expires_kind != EXPIRES_OFF && ok) {
        expires_fields(c, hc);
    }
    for (i = 0; i < hc->nheaders; i++) {
        const add_header_t *h = &hc->headers[i];
        nicd_buf_t         *b = &c->w->hexpand;
        const char         *text;
        size_t              len;

        if (!ok && !h->always) {
            continue;
        }
        if (nicd_cv_literal(h->value, &text, &len)) {
            nicd_resp_header(c, h->name, h->nlen, text, len);
            continue;
        }
        /* variables: of the request at hand (none for a request that did
         * not parse: the field is left out, as one whose value is empty) */
        if (c->r->in == NULL || nicd_cv_eval(c, h->value, NULL, b) != 0
            || b->len == 0) {
            continue;
        }
        nicd_resp_header(c, h->name, h->nlen, b->data, b->len);
    }
    next_header_filter(c);
}

static void
headers_init(void)
{
    next_header_filter = nicd_top_header_filter;
    nicd_top_header_filter = header_filter;
}

static const directive_t nicd_headers_directives[] = {
    {"add_header", CTX_HSL, 2, 3, set_add_header, 0},
    {"expires", CTX_HSL, 1, 2, set_expires, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_headers_module = {
    .name = "headers",
    .directives = nicd_headers_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .init = headers_init,
};
