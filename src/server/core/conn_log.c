/*
 * A connection's access log records (nicd.h): written when their
 * response has gone, with what was known only then filled in.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/logcache.h"
#include "server/core/nicd.h"

/* the line b of a record of a log whose path holds variables (p: its
 * cache and path), written to the file it names */
static void
log_by_path(nicd_conn_t *c, const char *p, const nicd_buf_t *b)
{
    log_fcache_t *fc;

    memcpy(&fc, p, sizeof(fc));
    p += sizeof(fc);
    if (log_path_write(fc, p, b->data, b->len, nicd_worker_now_ms(c->w)) != 0) {
        log_error(LOG_ERR, errno,
                  "write to the access log \"%s\" failed, client: %s", p,
                  c->addr);
    }
}

void
nicd_cleanup_run(nicd_cleanup_t *cl)
{
    nicd_cleanup_t *next;

    for (; cl != NULL; cl = next) {
        next = cl->next;
        cl->fn(cl->data);
        free(cl);
    }
}

void
nicd_conn_out_cleanup(nicd_conn_t *c, nicd_cleanup_t *cl)
{
    nicd_cleanup_t **end;

    if (c->nitems == c->ihead) {
        nicd_cleanup_run(cl); /* nothing to wait for */
        return;
    }
    for (end = &c->items[c->nitems - 1].cleanup; *end != NULL;
         end = &(*end)->next) {
    }
    *end = cl;
}

void
nicd_conn_log_response(nicd_conn_t *c, const nicd_out_t *it)
{
    nicd_buf_t   *b = &c->w->logline;
    const char   *p = c->logb.data, *end, *line;
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
        if (h.len > (size_t) (end - p)
            || (h.file != NICD_LOG_BY_PATH && (int) h.file >= c->w->nlogs)) {
            return;
        }
        line = h.file != NICD_LOG_BY_PATH
                   ? p
                   : p + sizeof(void *) + strlen(p + sizeof(void *)) + 1;
        b->len = 0;
        /* the status, bytes and time it was waiting for (log_format.c) */
        nicd_log_fill(b, line, h.len - (size_t) (line - p), it->status,
                      c->body_sent, c->head_sent + c->body_sent, t);
        if (nicd_buf_failed(b)) {
            b->len = 0;
        } else if (h.file != NICD_LOG_BY_PATH) {
            nicd_worker_log_write(c->w, (int) h.file, b->data, b->len);
        } else {
            log_by_path(c, p, b);
        }
        p += h.len;
    }
}

void
nicd_conn_gone_item(nicd_conn_t *c, nicd_out_t *it, int status,
                    uint32_t log_off, uint32_t log_len)
{
    memset(it, 0, sizeof(*it));
    it->type = OUT_MEM;
    it->last = 1;
    it->status = status;
    it->log_off = log_off;
    it->log_len = log_len;
    it->log_t0 = (uint32_t) nicd_worker_now_ms(c->w);
}

void
nicd_conn_log_abandoned(nicd_conn_t *c, int status, uint32_t log_off,
                        uint32_t log_len)
{
    nicd_out_t gone;

    nicd_conn_gone_item(c, &gone, status, log_off, log_len);
    nicd_conn_log_response(c, &gone);
}

void
nicd_worker_log_write(nicd_worker_t *w, int i, const char *line, size_t len)
{
    log_buf_write(&w->logs[i], line, len);
    if (!w->cycle->conf->access_log_buffered) {
        log_buf_flush(&w->logs[i]); /* at once, as nginx without buffer= */
    }
}
