/*
 * The limits of a request's head, per server (http and server levels), as
 * nginx's core module has them:
 *
 *   large_client_header_buffers NUMBER SIZE;  (4 8k) the request line and
 *       each header line must fit in SIZE (else 414 and 431), the whole
 *       head in NUMBER x SIZE (431);
 *   max_headers N;                            (1000) header lines (400);
 *   ignore_invalid_headers on | off;          (on) a header line whose name
 *       has a byte other than a letter, a digit, '-' (and '_' with
 *   underscores_in_headers on | off;          (off) on) is ignored, with an
 *       info line, else kept as it is.
 *
 * The head is read before its server is known: the parser takes the
 * largest of every server's limits (conf->large_header_buffer_size and
 * _buffers, for the buffers and the parser), and the server chosen by
 * Host holds the request to its own (nicd_head_status).  An HTTP/2
 * request is held to max_headers; its sizes are http2_max_header_size's.
 */

#include <stddef.h>
#include <stdint.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/head.h"
#include "server/http/lookup.h"
#include "server/http/variables.h"

typedef struct {
    size_t size;   /* one line */
    int    number; /* size x number: the whole head */
    int    max_headers;
    int    ignore_invalid, underscores;
} head_conf_t;

nicd_module_t nicd_http_head_module;

static void *
create_conf(nicd_conf_t *c)
{
    head_conf_t *h = nicd_conf_alloc(c, sizeof(*h));

    if (h != NULL) {
        h->number = NICD_UNSET;
        h->max_headers = NICD_UNSET;
        h->ignore_invalid = NICD_UNSET;
        h->underscores = NICD_UNSET;
    }
    return h;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const head_conf_t *p = prev;
    head_conf_t       *h = conf;

    (void) c;
    if (h->number == NICD_UNSET) {
        h->number = p != NULL ? p->number : 4;
        h->size = p != NULL ? p->size : 8192;
    }
    NICD_MERGE(h, p, max_headers, 1000);
    NICD_MERGE(h, p, ignore_invalid, 1);
    NICD_MERGE(h, p, underscores, 0);
    return NULL;
}

static const char *
set_buffers(parse_t *ps, const char **a, int n)
{
    head_conf_t *h = nicd_conf_module_loc(ps);
    const char  *err;

    (void) n;
    if (h->number != NICD_UNSET) {
        return "is duplicate";
    }
    if ((err = nicd_conf_positive(a[0], &h->number)) != NULL
        || (err = nicd_conf_size(a[1], &h->size)) != NULL) {
        return err;
    }
    if (h->size < 128 || h->size * (size_t) h->number > 16 * 1024 * 1024) {
        return "buffers must be between 128 bytes and 16m in all";
    }
    return NULL;
}

static const char *
set_max_headers(parse_t *ps, const char **a, int n)
{
    head_conf_t *h = nicd_conf_module_loc(ps);

    (void) n;
    if (h->max_headers != NICD_UNSET) {
        return "is duplicate";
    }
    return nicd_conf_positive(a[0], &h->max_headers);
}

/* an on/off of the server level's settings (a generic slot would write
 * nicd_conf_t's: these are not location settings) */
static const char *
set_flag(parse_t *ps, const char **a, int n)
{
    int *f = (int *) ((char *) nicd_conf_module_loc(ps) + ps->d->offset);

    (void) n;
    if (*f != NICD_UNSET) {
        return "is duplicate";
    }
    return nicd_conf_flag(a[0], f);
}

static const head_conf_t *
conf_of(const nicd_server_conf_t *srv)
{
    return NICD_LOC_CONF(srv->loc, nicd_http_head_module);
}

/* the parser reads to the largest limits of all servers */
static const char *
head_postconfiguration(nicd_conf_t *c)
{
    const head_conf_t *h = NICD_LOC_CONF(c->http, nicd_http_head_module);
    size_t             size = h->size, all = h->size * (size_t) h->number;
    int                i;

    for (i = 0; i < c->nservers; i++) {
        h = conf_of(c->servers[i]);
        if (h->size > size) {
            size = h->size;
        }
        if (h->size * (size_t) h->number > all) {
            all = h->size * (size_t) h->number;
        }
    }
    c->large_header_buffer_size = size;
    c->large_header_buffers = (int) ((all + size - 1) / size);
    if (c->client_header_buffer_size < 128) {
        c->client_header_buffer_size = 128; /* 0 would never read */
    }
    if (c->client_header_buffer_size > all) {
        c->client_header_buffer_size = all;
    }
    return NULL;
}

int
nicd_head_status(const nicd_request_t *r, const nicd_server_conf_t *srv)
{
    const head_conf_t *h = conf_of(srv);

    if (r->nheaders > h->max_headers) {
        return 400;
    }
    if (r->line_len >= h->size) {
        return 414;
    }
    if (r->field_max >= h->size
        || (r->head_len > 0 && r->head_len > h->size * (size_t) h->number)) {
        return 431;
    }
    return 0;
}

int
nicd_head_filter(nicd_conn_t *c, const nicd_request_t *q, nicd_str_t *hname,
                 nicd_str_t *hvalue, int n)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    const head_conf_t *h;
    const char        *host;
    size_t             hlen;
    int                i, k = 0;

    nicd_request_host(q, &host, &hlen);
    h = conf_of(nicd_conf_find_server(cf, c->sc.listener, host, hlen,
                                      nicd_match_data(c->w)));
    for (i = 0; i < n; i++) {
        if (h->ignore_invalid
            && nicd_http_name_odd(hname[i].p, hname[i].len, h->underscores)) {
            log_error(LOG_INFO, 0,
                      "client sent invalid header line: \"%.*s\", client: "
                      "%s",
                      (int) hname[i].len, hname[i].p, nicd_client(c));
            continue;
        }
        hname[k] = hname[i];
        hvalue[k++] = hvalue[i];
    }
    return k;
}

void
nicd_head_h2_limits(nicd_conn_t *c, size_t *field, size_t *all)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    const head_conf_t *h = conf_of(cf->listen_servers[c->sc.listener][0]);

    *field = h->size;
    *all = h->size * (size_t) h->number;
}

static const directive_t head_directives[] = {
    {"large_client_header_buffers", CTX_HTTP | CTX_SRV, 2, 2, set_buffers, 0},
    {"max_headers", CTX_HTTP | CTX_SRV, 1, 1, set_max_headers, 0},
    {"ignore_invalid_headers", CTX_HTTP | CTX_SRV, 1, 1, set_flag,
     offsetof(head_conf_t, ignore_invalid)},
    {"underscores_in_headers", CTX_HTTP | CTX_SRV, 1, 1, set_flag,
     offsetof(head_conf_t, underscores)},
    {"connection_pool_size", CTX_HTTP | CTX_SRV, 1, 1, nicd_conf_housekeeping,
     0},
    {"request_pool_size", CTX_HTTP | CTX_SRV, 1, 1, nicd_conf_housekeeping, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_head_module = {
    .name = "head",
    .directives = head_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = head_postconfiguration,
};
