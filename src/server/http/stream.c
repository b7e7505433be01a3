/*
 * The stream filters' chain and the stages of a response (stream.h).
 */

#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "server/http/stream.h"

#define NICD_STREAM_STAGES 8

typedef struct {
    nicd_stream_run_pt run;
    void (*done)(void *ctx);
    void *ctx;
} stage_t;

struct nicd_stream_s {
    stage_t    st[NICD_STREAM_STAGES];
    int        n;
    int        failed;
    nicd_buf_t buf[2]; /* what the stages give, in turn */
    /* the end came while a stage waited: what finishes the response */
    unsigned ending : 1;
    int      status;
    void (*done)(void *data);
    void *data;
};

static void
stream_free(void *data)
{
    struct nicd_stream_s *s = data;
    int                   i;

    for (i = 0; i < s->n; i++) {
        s->st[i].done(s->st[i].ctx);
    }
    nicd_buf_free(&s->buf[0]);
    nicd_buf_free(&s->buf[1]);
    free(s);
}

int
nicd_stream_add(nicd_conn_t *c, nicd_stream_head_t *h, nicd_stream_run_pt run,
                void (*done)(void *ctx), void *ctx)
{
    struct nicd_stream_s *s = c->r->stream;

    if (h->nobody) {
        done(ctx);
        return 0;
    }
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        if (s == NULL || nicd_req_cleanup(c->r, stream_free, s) != 0) {
            free(s);
            done(ctx);
            return -1;
        }
        c->r->stream = s;
    }
    if (s->n == NICD_STREAM_STAGES) {
        done(ctx); /* (more modules than stages: a build's mistake) */
        return -1;
    }
    s->st[s->n].run = run;
    s->st[s->n].done = done;
    s->st[s->n].ctx = ctx;
    s->n++;
    return 0;
}

/* p (len bytes) through the stages from the one at from on, to the
 * protocol: 0, -1 (a stage failed: the response is cut short) or
 * NICD_STREAM_WAIT (a stage waits) */
static int
run_from(nicd_conn_t *c, struct nicd_stream_s *s, int from, const char *p,
         size_t len, int last)
{
    nicd_buf_t *out;
    int         i, rc;

    if (s->failed) {
        return -1;
    }
    for (i = from; i < s->n; i++) {
        out = &s->buf[i & 1];
        out->len = 0;
        rc = s->st[i].run(c, s->st[i].ctx, p, len, last, out);
        if (rc == -1 || nicd_buf_failed(out)) {
            /* cut short: no last chunk, the connection ends (HTTP/2:
             * the stream ends as it is) */
            log_error(LOG_ERR, 0, "a body filter failed, client: %s",
                      nicd_client(c));
            s->failed = 1;
            c->keepalive = 0;
            c->r->chunked = 0;
            return -1;
        }
        p = out->data != NULL ? out->data : "";
        len = out->len;
        if (rc == NICD_STREAM_WAIT) {
            if (len > 0) {
                /* what it gave before it waits goes on */
                if (run_from(c, s, i + 1, p, len, 0) == -1) {
                    return -1;
                }
            }
            return NICD_STREAM_WAIT;
        }
        if (len == 0 && !last) {
            return 0; /* nothing yet for the stages below */
        }
    }
    if (len > 0) {
        nicd_resp_body_mem(c, p, len);
    }
    return 0;
}

void
nicd_stream_body(nicd_conn_t *c, const char *p, size_t len)
{
    struct nicd_stream_s *s = c->r->stream;

    if (s == NULL) {
        if (len > 0) {
            nicd_resp_body_mem(c, p, len);
        }
        return;
    }
    (void) run_from(c, s, 0, p != NULL ? p : "", len, 0);
}

void
nicd_stream_end(nicd_conn_t *c, int status, void (*done)(void *data),
                void *data)
{
    struct nicd_stream_s *s = c->r->stream;

    if (s != NULL && run_from(c, s, 0, "", 0, 1) == NICD_STREAM_WAIT) {
        s->ending = 1;
        s->status = status;
        s->done = done;
        s->data = data;
        return;
    }
    nicd_resp_finish(c, status);
    done(data);
}

void
nicd_stream_go_on(nicd_conn_t *c, void *ctx)
{
    struct nicd_stream_s *s = c->r->stream;
    int                   i;

    for (i = 0; s != NULL && i < s->n && s->st[i].ctx != ctx; i++) {
        /* the waiting stage */
    }
    if (s == NULL || i == s->n) {
        return;
    }
    if (run_from(c, s, i, "", 0, s->ending) == NICD_STREAM_WAIT) {
        return;
    }
    if (s->ending) {
        s->ending = 0;
        nicd_resp_finish(c, s->status);
        s->done(s->data); /* (s may be gone after this) */
        return;
    }
    (void) nicd_req_flush(c->r); /* (what it held, sent) */
}
