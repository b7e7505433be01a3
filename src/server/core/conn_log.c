/*
 * A connection's access log records (nicd.h): written when their
 * response has gone, with what was known only then filled in.
 */

#include <string.h>

#include "server/core/nicd.h"

/* Write the access log records of a finished (or abandoned) response:
 * one per log it goes to (nicd_logrec_t), each filled in and handed to
 * its file's buffer. */
void
nicd_conn_log_response(nicd_conn_t *c, const nicd_out_t *it)
{
    nicd_buf_t   *b = &c->w->logline;
    const char   *p = c->logb.data, *end;
    nicd_logrec_t h;
    double        t;

    if (it->log_len == 0) {
        return;
    }
    p += it->log_off;
    end = p + it->log_len;
    t = (uint32_t) ((uint32_t) nicd_worker_now_ms(c->w) - it->log_t0) / 1000.0;
    while (p + sizeof(h) <= end) {
        memcpy(&h, p, sizeof(h));
        p += sizeof(h);
        if (h.len > (size_t) (end - p) || (int) h.file >= c->w->nlogs) {
            return;
        }
        b->len = 0;
        /* the status, bytes and time it was waiting for (log_format.c) */
        nicd_log_fill(b, p, h.len, it->status, c->body_sent, t);
        if (!nicd_buf_failed(b)) {
            log_buf_write(&c->w->logs[h.file], b->data, b->len);
        } else {
            b->len = 0;
        }
        p += h.len;
    }
}
