/*
 * add_header NAME VALUE [always] and expires (nginx's
 * ngx_http_headers_module): added to responses of status 200, 201, 204,
 * 206, 301, 302, 303, 304, 307 and 308, or of any status with "always".
 * VALUE may hold variables (a field whose value expands to nothing is left
 * out, as nginx does).
 * "expires TIME|epoch|max|off|modified TIME" sets Expires and
 * Cache-Control (max-age, or no-cache for a time in the past).
 * add_trailer NAME VALUE [always]: the same, as a trailer field after the
 * body, its value taken when the body has gone ($sent_trailer_NAME reads
 * one added before); a response that has one goes chunked over HTTP/1.1
 * (none over HTTP/1.0, for HEAD, or with chunked_transfer_encoding off,
 * the filter module's: http/filter.c).
 */

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/duration.h"
#include "util/buf.h"
#include "server/conf/directive.h"
#include "server/http/filter.h"
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
    int replaces; /* Last-Modified or ETag: in place of the handler's */
} add_header_t;

/* the module's settings of a level: add_header's list is taken whole
 * from the enclosing level when a level has none, as in nginx */
typedef struct {
    add_header_t *headers;
    int           nheaders;
    int           nreplacing; /* of them, Last-Modified or ETag lines */
    add_header_t *trailers;   /* add_trailer's, a list of its own */
    int           ntrailers;
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
    if (hc->headers == NULL && p != NULL) {
        hc->nreplacing = p->nreplacing; /* (with the list it counts) */
    }
    NICD_MERGE_LIST(hc, p, headers, nheaders);
    NICD_MERGE_LIST(hc, p, trailers, ntrailers);
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
    add_header_t    h, **list = &l->headers;
    int            *count = &l->nheaders;
    const char     *err;

    if (strcmp(ps->d->name, "add_trailer") == 0) {
        list = &l->trailers;
        count = &l->ntrailers;
    }
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
    h.replaces =
        strcasecmp(a[0], "Last-Modified") == 0 || strcasecmp(a[0], "ETag") == 0;
    *list = nicd_conf_grow(ps->conf, *list, *count, sizeof(h));
    if (h.name == NULL || *list == NULL) {
        return "out of memory";
    }
    (*list)[(*count)++] = h;
    l->nreplacing += h.replaces && list == &l->headers;
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

/* its slots in the header, field and trailer chains (filter.h) */
static int header_slot, field_slot, trailer_slot;

/* expires' value of Expires (cc 0) or Cache-Control (cc 1) into v */
static void
expires_value(const headers_conf_t *hc, int cc, nicd_buf_t *v)
{
    char date[NICD_HTTP_DATE_LEN + 1];

    v->len = 0;
    if (hc->expires_kind == EXPIRES_EPOCH) {
        nicd_buf_adds(v, cc ? "no-cache" : "Thu, 01 Jan 1970 00:00:01 GMT");
    } else if (hc->expires_kind == EXPIRES_MAX) {
        nicd_buf_adds(v, cc ? "max-age=315360000"
                            : "Thu, 31 Dec 2037 23:55:55 GMT");
    } else if (!cc) {
        nicd_http_date(date, time(NULL) + hc->expires);
        nicd_buf_add(v, date, NICD_HTTP_DATE_LEN);
    } else if (hc->expires < 0) {
        nicd_buf_adds(v, "no-cache");
    } else {
        NICD_BUF_LIT(v, "max-age="); /* (no printf a response) */
        nicd_buf_add_u64(v, (uint64_t) hc->expires);
    }
}

/* expires' Expires and Cache-Control of the location at hand */
static void
expires_fields(nicd_conn_t *c, const headers_conf_t *hc)
{
    nicd_buf_t *v = &c->w->hexpand;

    expires_value(hc, 0, v);
    nicd_resp_header(c, "Expires", 7, v->data, v->len);
    expires_value(hc, 1, v);
    nicd_resp_header(c, "Cache-Control", 13, v->data, v->len);
}

/*
 * The add_header line that sets the field name (Last-Modified or ETag:
 * one a handler sets too) in a response whose status is ok (for lines
 * without "always") or not: the last that applies (each replaces the one
 * before, as nginx's headers filter does), or NULL.
 */
static const add_header_t *
replacing(const headers_conf_t *hc, int ok, const char *name, size_t nlen)
{
    int i;

    for (i = hc->nheaders - 1; i >= 0; i--) {
        const add_header_t *h = &hc->headers[i];

        if (h->replaces && (ok || h->always) && h->nlen == nlen
            && strncasecmp(h->name, name, nlen) == 0) {
            return h;
        }
    }
    return NULL;
}

/*
 * h's value for the request at hand: 1 with it in *text (*len bytes; b
 * holds it when it has variables), 0 when it is empty (the field is left
 * out, as nginx leaves it) or has no request to be taken from (one that
 * did not parse).
 */
static int
header_value(nicd_conn_t *c, const add_header_t *h, nicd_buf_t *b,
             const char **text, size_t *len)
{
    if (!nicd_cv_literal(h->value, text, len)) {
        if (c->r->in == NULL || nicd_cv_eval(c, h->value, NULL, b) != 0) {
            return 0;
        }
        *text = b->data;
        *len = b->len;
    }
    return *len > 0;
}

/* the header filter: expires, then add_header's fields */
static void
header_filter(nicd_conn_t *c)
{
    const headers_conf_t *hc;
    int                   i, ok;

    if (c->r->loc == NULL) {
        nicd_header_filter_next(c, header_slot);
        return;
    }
    hc = NICD_LOC_CONF(c->r->loc, nicd_headers_module);
    if (hc->expires_kind == EXPIRES_OFF && hc->nheaders == 0) {
        nicd_header_filter_next(
            c, header_slot); /* nothing here: the common case */
        return;
    }
    ok = headers_status(c->r->status);
    if (hc->expires_kind != EXPIRES_OFF && ok) {
        expires_fields(c, hc);
    }
    for (i = 0; i < hc->nheaders; i++) {
        const add_header_t *h = &hc->headers[i];
        const char         *text;
        size_t              len;

        if ((!ok && !h->always)
            || (h->replaces && replacing(hc, ok, h->name, h->nlen) != h)
            || !header_value(c, h, &c->w->hexpand, &text, &len)) {
            continue;
        }
        nicd_resp_header(c, h->name, h->nlen, text, len);
    }
    nicd_header_filter_next(c, header_slot);
}

/* ---- trailers ---- */

static const headers_conf_t *
conf_at_hand(nicd_conn_t *c)
{
    const nicd_loc_conf_t *lc = c->r->loc;

    if (lc == NULL) {
        lc = c->r->srv != NULL ? c->r->srv->loc : c->w->cycle->conf->http;
    }
    return NICD_LOC_CONF(lc, nicd_headers_module);
}

/* does the response of status end with add_trailer's fields? */
static int
trailers_for(const headers_conf_t *hc, int status)
{
    int i;

    for (i = 0; i < hc->ntrailers; i++) {
        if (hc->trailers[i].always || headers_status(status)) {
            return 1;
        }
    }
    return 0;
}

/* the field filter: Expires and Cache-Control (expires), Last-Modified
 * and ETag (add_header) set here */
static int
replaced(nicd_conn_t *c, int status, const char *name, size_t nlen,
         nicd_buf_t *value)
{
    const headers_conf_t *hc = conf_at_hand(c);
    const add_header_t   *h;
    const char           *text;
    size_t                len;
    int                   ok = headers_status(status);

    if (name == NULL) {
        /* (a handler's first, quick question) */
        return hc->nreplacing > 0
               || nicd_field_filter_next(c, field_slot, status, name, nlen,
                                         value);
    }
    if (value != NULL) {
        value->len = 0;
    }
    if (hc->expires_kind != EXPIRES_OFF && ok
        && ((nlen == 7 && strncasecmp(name, "Expires", 7) == 0)
            || (nlen == 13 && strncasecmp(name, "Cache-Control", 13) == 0))) {
        if (value != NULL) {
            expires_value(hc, nlen == 13, value);
        }
        return 1;
    }
    h = replacing(hc, ok, name, nlen);
    if (h == NULL) {
        return nicd_field_filter_next(c, field_slot, status, name, nlen, value);
    }
    if (value != NULL) {
        if (!header_value(c, h, value, &text, &len)) {
            value->len = 0; /* none: the field is removed */
        } else if (text != value->data) {
            value->len = 0;
            nicd_buf_add(value, text, len);
        }
    }
    return 1;
}

/* the trailer section being made (for $sent_trailer_NAME), a worker's */
static __thread const nicd_buf_t *made;
static __thread size_t            made_from;

/* the trailer filter: add_trailer's fields (b NULL: are there any?) */
static int
trailers(nicd_conn_t *c, int status, nicd_buf_t *b)
{
    const headers_conf_t *hc = conf_at_hand(c);
    int                   i, ok = headers_status(status);
    nicd_buf_t           *v = &c->w->hexpand;

    if (b == NULL) {
        return trailers_for(hc, status)
               || nicd_trailer_filter_next(c, trailer_slot, status, NULL);
    }
    made = b;
    made_from = b->len;
    for (i = 0; i < hc->ntrailers; i++) {
        const add_header_t *h = &hc->trailers[i];

        if ((!ok && !h->always) || nicd_cv_eval(c, h->value, NULL, v) != 0
            || v->len == 0) {
            continue; /* (an empty value: no field, as nginx) */
        }
        nicd_buf_add(b, h->name, h->nlen);
        nicd_buf_add(b, ": ", 2);
        nicd_buf_add(b, v->data, v->len);
        nicd_buf_add(b, "\r\n", 2);
    }
    made = NULL;
    return nicd_trailer_filter_next(c, trailer_slot, status, b);
}

/* $sent_trailer_NAME: a trailer field added before ('_' for '-') */
static int
sent_trailer(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *var,
             const char *s, size_t slen, nicd_buf_t *b)
{
    const char *p, *end, *colon, *eol;

    (void) c;
    (void) x;
    (void) var;
    if (made == NULL) {
        return 0;
    }
    for (p = made->data + made_from, end = made->data + made->len; p < end;
         p = eol + 2) {
        colon = memchr(p, ':', (size_t) (end - p));
        eol = memchr(p, '\r', (size_t) (end - p));
        if (colon == NULL || eol == NULL) {
            break;
        }
        if (nicd_header_is(p, (size_t) (colon - p), s, slen)) {
            nicd_buf_add(b, colon + 2, (size_t) (eol - colon - 2));
            return 0;
        }
    }
    return 0;
}

static const nicd_var_t headers_vars[] = {
    {"sent_trailer_", sent_trailer, NICD_VAR_PREFIX | NICD_VAR_VOLATILE, NULL},
    {NULL, NULL, 0, NULL},
};

/* where each of its filters has something to do */
static int
adds_fields(const nicd_loc_conf_t *lc)
{
    const headers_conf_t *hc = NICD_LOC_CONF(lc, nicd_headers_module);

    return hc->expires_kind != EXPIRES_OFF || hc->nheaders > 0;
}

static int
sets(const nicd_loc_conf_t *lc)
{
    const headers_conf_t *hc = NICD_LOC_CONF(lc, nicd_headers_module);

    return hc->expires_kind != EXPIRES_OFF || hc->nreplacing > 0;
}

static int
adds_trailers(const nicd_loc_conf_t *lc)
{
    const headers_conf_t *hc = NICD_LOC_CONF(lc, nicd_headers_module);

    return hc->ntrailers > 0;
}

static void
headers_init(void)
{
    header_slot = nicd_filter_add(
        NICD_FILTER_HEADER, (nicd_filter_fn_t) header_filter, adds_fields);
    field_slot =
        nicd_filter_add(NICD_FILTER_FIELD, (nicd_filter_fn_t) replaced, sets);
    trailer_slot = nicd_filter_add(NICD_FILTER_TRAILER,
                                   (nicd_filter_fn_t) trailers, adds_trailers);
}

static const directive_t nicd_headers_directives[] = {
    {"add_header", CTX_HSL, 2, 3, set_add_header, 0},
    {"add_trailer", CTX_HSL, 2, 3, set_add_header, 0},
    {"expires", CTX_HSL, 1, 2, set_expires, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_headers_module = {
    .name = "headers",
    .directives = nicd_headers_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .init = headers_init,
    .variables = headers_vars,
};
