/*
 * Keep-alive, as nginx's core module sets it, at every level (http,
 * server, location):
 *
 *   keepalive_timeout T [HEADER_T];  (75s) idle time between requests;
 *       0: none.  HEADER_T: "Keep-Alive: timeout=HEADER_T" is sent.
 *   keepalive_requests N;            (1000) requests on a connection
 *   keepalive_time T;                (1h) how long it may serve them
 *   keepalive_disable none | msie6 | safari ...;   (msie6)
 *       msie6: not after a POST from MSIE 4 to 6 (not 6 "SV1"); safari:
 *       not for Safari on Mac OS X.
 *
 * An HTTP/1.x request is kept alive when its client asks for it and the
 * settings of the location that answers it allow it (its server's when
 * it has none); the connection then waits that location's
 * keepalive_timeout.  An HTTP/2 connection follows the settings of its
 * address's default server, as nginx's.
 */

#include <stdlib.h>
#include <string.h>

#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "server/http/keepalive.h"

enum { KA_MSIE6 = 1, KA_SAFARI = 2 };

nicd_module_t nicd_http_keepalive_module;

static void *
create_conf(nicd_conf_t *c)
{
    nicd_keepalive_conf_t *k = nicd_conf_alloc(c, sizeof(*k));

    if (k != NULL) {
        k->timeout = NICD_UNSET;
        k->header = NICD_UNSET;
        k->requests = NICD_UNSET;
        k->time = NICD_UNSET;
        k->disable = NICD_UNSET;
    }
    return k;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const nicd_keepalive_conf_t *p = prev;
    nicd_keepalive_conf_t       *k = conf;

    (void) c;
    if (k->timeout == NICD_UNSET) {
        k->timeout = p != NULL ? p->timeout : 75000;
        k->header = p != NULL ? p->header : -1;
    }
    NICD_MERGE(k, p, requests, 1000);
    NICD_MERGE(k, p, time, 3600 * 1000);
    NICD_MERGE(k, p, disable, KA_MSIE6);
    return NULL;
}

static const char *
set_timeout(parse_t *ps, const char **a, int n)
{
    nicd_keepalive_conf_t *k = nicd_conf_module_loc(ps);
    const char            *err;

    if (k->timeout != NICD_UNSET) {
        return "is duplicate";
    }
    if ((err = nicd_conf_time(a[0], &k->timeout)) != NULL) {
        return err;
    }
    k->header = -1;
    if (n == 2) {
        if ((err = nicd_conf_time(a[1], &k->header)) != NULL) {
            return err;
        }
        k->header /= 1000; /* seconds, as the header says it */
    }
    return NULL;
}

static const char *
set_disable(parse_t *ps, const char **a, int n)
{
    nicd_keepalive_conf_t *k = nicd_conf_module_loc(ps);
    int                    i;

    if (k->disable != NICD_UNSET) {
        return "is duplicate";
    }
    k->disable = 0;
    for (i = 0; i < n; i++) {
        if (strcmp(a[i], "none") == 0) {
            k->disable = 0;
        } else if (strcmp(a[i], "msie6") == 0) {
            k->disable |= KA_MSIE6;
        } else if (strcmp(a[i], "safari") == 0) {
            k->disable |= KA_SAFARI;
        } else {
            return nicd_conf_msg("invalid value \"%s\"", a[i]);
        }
    }
    return NULL;
}

const nicd_keepalive_conf_t *
nicd_keepalive_conf(const nicd_loc_conf_t *lc)
{
    return NICD_LOC_CONF(lc, nicd_http_keepalive_module);
}

/* is ua MSIE 4 to 6 (nginx's msie6), or Safari on Mac OS X (safari)? */
static int
browser(const nicd_str_t *ua, int which)
{
    const char *m = memmem(ua->p, ua->len, "MSIE ", 5);
    int         msie = m != NULL && m + 7 < ua->p + ua->len;

    if (memmem(ua->p, ua->len, "Opera", 5) != NULL) {
        return 0; /* neither, as nginx reads it */
    }
    if (which == KA_MSIE6) {
        return msie && m[6] == '.'
               && (m[5] == '4' || m[5] == '5'
                   || (m[5] == '6'
                       && memmem(m + 8, (size_t) (ua->p + ua->len - m - 8),
                                 "SV1", 3)
                              == NULL));
    }
    return !msie && memmem(ua->p, ua->len, "Gecko/", 6) == NULL
           && memmem(ua->p, ua->len, "Chrome/", 7) == NULL
           && memmem(ua->p, ua->len, "Safari/", 7) != NULL
           && memmem(ua->p, ua->len, "Mac OS X", 8) != NULL;
}

int
nicd_keepalive_allows(nicd_conn_t *c, const nicd_keepalive_conf_t *k)
{
    const nicd_request_t *r = c->r != NULL ? c->r->in : NULL;
    const nicd_str_t     *ua;

    if (c->w->state != NICD_RUNNING || k->timeout == 0
        || c->nrequests >= k->requests
        || nicd_worker_now_ms(c->w) - c->start_ms > k->time) {
        return 0;
    }
    /* the common case (msie6 alone, not a POST) reads no header */
    if (r == NULL || k->disable == 0
        || (k->disable == KA_MSIE6 && r->method != NICD_M_POST)
        || (ua = nicd_req_field(r, "user-agent", 10)) == NULL) {
        return 1;
    }
    return !((k->disable & KA_MSIE6) && r->method == NICD_M_POST
             && browser(ua, KA_MSIE6))
           && !((k->disable & KA_SAFARI) && browser(ua, KA_SAFARI));
}

static const directive_t keepalive_directives[] = {
    {"keepalive_timeout", CTX_HSL, 1, 2, set_timeout, 0},
    {"keepalive_requests", CTX_HSL, 1, 1, nicd_conf_slot_positive,
     offsetof(nicd_keepalive_conf_t, requests)},
    {"keepalive_time", CTX_HSL, 1, 1, nicd_conf_slot_msec,
     offsetof(nicd_keepalive_conf_t, time)},
    {"keepalive_disable", CTX_HSL, 1, 3, set_disable, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_keepalive_module = {
    .name = "keepalive",
    .directives = keepalive_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
};
