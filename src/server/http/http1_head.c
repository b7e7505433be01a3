/*
 * HTTP/1.1's response head, around the fields the handlers and the header
 * filters add: the status line, Server and Date first; Connection (and
 * Keep-Alive) and the empty line last, where whether the connection stays
 * is decided.
 */

#include <stdio.h>

#include "server/http/http.h"
#include "server/http/http1.h"
#include "server/http/keepalive.h"
#include "server/http/tokens.h"

/* the keep-alive settings of the request at hand: its location's, else
 * its server's, else the http level's */
static const nicd_keepalive_conf_t *
keepalive_of(nicd_conn_t *c)
{
    const nicd_loc_conf_t *lc = c->r == NULL        ? NULL
                                : c->r->loc != NULL ? c->r->loc
                                : c->r->srv != NULL ? c->r->srv->loc
                                                    : NULL;

    return nicd_keepalive_conf(lc != NULL ? lc : c->w->cycle->conf->http);
}

/* "HTTP/1.1 200 OK", Server and Date */
void
nicd_h1_begin_head(nicd_conn_t *c, int status)
{
    nicd_buf_t *b = &c->out;
    const char *line;
    size_t      len;

    if (status == 200) {
        NICD_BUF_LIT(b, "HTTP/1.1 200 OK\r\n"); /* (most answers) */
    } else {
        NICD_BUF_LIT(b, "HTTP/1.1 ");
        nicd_buf_add_u64(b, (uint64_t) status);
        NICD_BUF_LIT(b, " ");
        nicd_buf_adds(b, nicd_status_reason(status));
        NICD_BUF_LIT(b, "\r\n");
    }
    if (c->r == NULL || !c->r->own_server) {
        line = nicd_server_line(c, &len);
        nicd_buf_add(b, line, len);
    }
    if (c->r == NULL || !c->r->own_date) {
        NICD_BUF_LIT(b, "Date: ");
        nicd_buf_add(b, nicd_date_http(), NICD_HTTP_DATE_LEN);
        NICD_BUF_LIT(b, "\r\n");
    }
}

/* Connection (and Keep-Alive) and the empty line: whether the connection
 * stays is decided here, by the settings of the location that answered
 * (nginx's), and how long it then waits for the next request. */
void
nicd_h1_end_head(nicd_conn_t *c)
{
    const nicd_keepalive_conf_t *k = NULL;
    char                         v[32];
    int                          n;

    if (c->r != NULL && c->r->upgrade) {
        c->keepalive = 0; /* (a tunnel now, until either side closes) */
        NICD_RESP_HEADER(c, "Connection", "upgrade", 7);
        NICD_BUF_LIT(&c->out, "\r\n");
        return;
    }
    if (c->keepalive) {
        k = keepalive_of(c);
        c->keepalive = nicd_keepalive_allows(c, k);
        c->keepalive_ms = (uint32_t) k->timeout;
    }
    if (c->w->cycle->conf->keep_sent) {
        /* the fields go through the protocol, which keeps them for
         * $sent_http_* */
        if (!c->keepalive) {
            NICD_RESP_HEADER(c, "Connection", "close", 5);
        } else {
            NICD_RESP_HEADER(c, "Connection", "keep-alive", 10);
        }
    } else if (!c->keepalive) {
        NICD_BUF_LIT(&c->out, "Connection: close\r\n");
    } else {
        /* (the common case: straight into the head) */
        NICD_BUF_LIT(&c->out, "Connection: keep-alive\r\n");
    }
    if (c->keepalive && k->header >= 0) {
        n = snprintf(v, sizeof(v), "timeout=%ld", k->header);
        NICD_RESP_HEADER(c, "Keep-Alive", v, (size_t) n);
    }
    NICD_BUF_LIT(&c->out, "\r\n");
}
