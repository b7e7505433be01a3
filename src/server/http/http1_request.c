/*
 * HTTP/1.1: the view the handlers read (nicd_request_t) of a parsed head
 * (http1.h).
 */

#include <string.h>

#include "server/http/head.h"
#include "server/http/http1.h"

void
nicd_h1_fill_request(nicd_conn_t *c, const char *base, nicd_request_t *q,
                     nicd_str_t *hname, nicd_str_t *hvalue)
{
    const nicd_http_req_t *r = H1_REQ(c);
    const int              idx[NICD_NHDR] = {
                     r->h_range,         r->h_if_range,          r->h_if_match,
                     r->h_if_none_match, r->h_if_modified_since, r->h_if_unmodified_since,
                     r->h_host,          r->h_accept_encoding,   r->h_authorization};
    int i;

    memset(q, 0, sizeof(*q));
    q->method = r->method;
    q->path.p = base + r->path.off;
    q->path.len = r->path.len;
    q->query.p = base + r->query.off;
    q->query.len = r->query.len;
    for (i = 0; i < NICD_NHDR; i++) {
        if (idx[i] >= 0) {
            q->hdr[i].p = base + r->headers[idx[i]].value.off;
            q->hdr[i].len = r->headers[idx[i]].value.len;
        }
    }
    for (i = 0; i < r->nheaders; i++) {
        uint32_t line = r->headers[i].value.off + r->headers[i].value.len
                        - r->headers[i].name.off;

        hname[i].p = base + r->headers[i].name.off;
        hname[i].len = r->headers[i].name.len;
        hvalue[i].p = base + r->headers[i].value.off;
        hvalue[i].len = r->headers[i].value.len;
        q->field_max = line > q->field_max ? line : q->field_max;
    }
    q->line.p = base + r->line.off;
    q->line.len = r->line.len;
    q->line_len = r->line.len;
    q->head_len = r->head_len;
    if (r->authority.len > 0) {
        /* an absolute-form target's host wins over Host (RFC 9112) */
        q->hdr[NICD_HDR_HOST].p = base + r->authority.off;
        q->hdr[NICD_HDR_HOST].len = r->authority.len;
    }
    q->hname = hname;
    q->hvalue = hvalue;
    q->nheaders = r->odd_names
                      ? nicd_head_filter(c, q, hname, hvalue, r->nheaders)
                      : r->nheaders;
    q->protocol = r->version == 10 ? "HTTP/1.0" : "HTTP/1.1";
    q->length = r->head_len + (r->chunked ? 0 : r->content_length);
    q->start_ms = nicd_worker_now_ms(c->w);
}
