/*
 * The stream filters: a body that comes in pieces, its length perhaps not
 * known (a proxied response), through the body filters as nginx runs
 * them on a chain of buffers.
 *
 * When the head's fields are being relayed (after nicd_resp_start, before
 * the upstream's own fields), the stream chain (filter.h:
 * nicd_stream_head_next) asks each module's head filter that the level
 * uses, in the body filters' order, whether it is to change this
 * response's body.  One that is adds a stage to the
 * request (nicd_stream_add), adds the fields it sets (nicd_resp_header:
 * gzip's Content-Encoding) and says in the head what becomes of the
 * others: the length no longer known, no Accept-Ranges, a weak ETag, no
 * validators.  Then every piece of the body (nicd_stream_body) runs
 * through the stages in the order they were added, the last call with
 * last set (and perhaps no bytes), and what the last stage gives goes to
 * the protocol.  A response without a body (HEAD, 204, 304) gets the
 * head's changes and no stage.
 */

#ifndef NICD_STREAM_H
#define NICD_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "server/http/handler.h"

typedef struct {
    const char *type; /* the Content-Type as relayed, parameters and all
                         (NULL: none) */
    size_t      tlen;
    int         status;
    int64_t     length;            /* the body's; -1: not known (a filter that
                             changes the length sets it so) */
    unsigned    encoded : 1;       /* the body has a Content-Encoding */
    unsigned    nobody : 1;        /* HEAD, 204, 304: no stage is added */
    unsigned    no_ranges : 1;     /* Accept-Ranges is dropped */
    unsigned    weak_etag : 1;     /* a strong ETag goes weak (W/) */
    unsigned    no_validators : 1; /* Last-Modified and ETag dropped */
    /* the response's fields a filter may judge by (gzip_proxied; p
     * NULL: none), and whether it has Last-Modified and ETag */
    nicd_str_t expires, cache_control, date;
    unsigned   last_modified : 1;
    unsigned   etag : 1;
} nicd_stream_head_t;

/* a stream filter (filter.h's NICD_FILTER_STREAM chain): the head of
 * the response about to be relayed, a stage added where it changes it */
typedef void (*nicd_stream_head_pt)(nicd_conn_t *c, nicd_stream_head_t *h);

/*
 * A stage: in (len bytes) and, last set, the end of the body, appended to
 * out (what goes on to the next stage): 0, or -1 (out of memory or the
 * like, logged by the stage: the response is cut short there), or
 * NICD_STREAM_WAIT: it waits for something of its own (addition's
 * subrequest), keeping what it was given, until it calls
 * nicd_stream_go_on(); what it put in out goes on meanwhile.  done frees
 * ctx when the response has gone (or never ran).
 */
#define NICD_STREAM_WAIT 1
typedef int (*nicd_stream_run_pt)(nicd_conn_t *c, void *ctx, const char *in,
                                  size_t len, int last, nicd_buf_t *out);

/* stage run (its ctx freed by done) on the body of the request at hand:
 * 0, or -1 (out of memory: ctx freed, the body goes without it) */
int nicd_stream_add(nicd_conn_t *c, nicd_stream_head_t *h,
                    nicd_stream_run_pt run, void (*done)(void *ctx), void *ctx);

/* a piece of the body (p, len bytes) through the stages to the
 * protocol (not the last: nicd_stream_end) */
void nicd_stream_body(nicd_conn_t *c, const char *p, size_t len);

/*
 * The body ends: the stages' last bytes, the response finished with
 * status, then done(data), at once or, a stage waiting, once it has gone
 * on (the client going first: never, the request's cleanups run).
 */
void nicd_stream_end(nicd_conn_t *c, int status, void (*done)(void *data),
                     void *data);

/* the waiting stage whose ctx this is goes on, with c its request's
 * connection (nicd_req_resume): it runs again with no bytes (and last,
 * if the end came while it waited), then what follows as above */
void nicd_stream_go_on(nicd_conn_t *c, void *ctx);

#endif /* NICD_STREAM_H */
