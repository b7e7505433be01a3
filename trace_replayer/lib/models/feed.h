/*
 * The replayer's supply of work: a trace read on demand and cut into
 * sessions (persistent connections) and pipeline groups exactly as
 * trace_session() forms them (the paper's section 5.2), handed out in
 * trace order, the order in which sessions open.
 *
 * Reading is lazy: a user asking for its session's next group makes the
 * feed read just far enough to know the group is complete (a later request
 * of the session starts a new group, or the trace has moved on by a
 * pipeline gap, or the session is over), buffering what it reads for
 * other sessions on the way.  Memory is what those buffers hold: the
 * requests of the sessions open at once in the stretch of trace being
 * replayed, not the trace.
 */

#ifndef TRACE_FEED_H
#define TRACE_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "lib/formats/reader.h"

typedef struct feed_req_s {
    struct feed_req_s *next;
    uint32_t           url;     /* feed_url() */
    uint8_t            method;  /* TRACE_GET or TRACE_HEAD */
    uint16_t           status;  /* as logged */
    uint64_t           bytes;   /* as logged (0: none or unknown) */
    int64_t            time_us; /* as logged, microseconds; later passes
                                   of --loop continue the clock */
} feed_req_t;

typedef struct feed_sess_s feed_sess_t;

typedef struct {
    trace_src_t src; /* path "-": standard input */
    int64_t     conn_gap, pipeline_gap;
    int         no_pipeline;   /* every group is one request */
    int         only_ok;       /* keep requests logged with status < 400 */
    uint64_t    shard, shards; /* keep sessions with id % shards == shard */
    int         loop;          /* start the trace again at its end */
    const char *manifest;      /* objects.h: send each target to its object's
                             URL in the docroot; NULL: as logged */
} feed_opts_t;

typedef struct {
    uint64_t records;       /* requests read from the trace (every pass) */
    uint64_t kept;          /* GET and HEAD requests queued for replay */
    uint64_t other_methods; /* skipped: not GET or HEAD */
    uint64_t not_ok;        /* skipped by only_ok */
    uint64_t other_shards;  /* skipped: another shard's session */
    uint64_t sessions;      /* sessions of this shard */
    uint64_t passes;        /* times the trace was read to its end */
} feed_stats_t;

typedef struct feed_s feed_t;

feed_t *feed_open(const feed_opts_t *o, char *err, size_t errlen);
void    feed_close(feed_t *f);

/*
 * The next session in trace order, or NULL at the end of the trace (or
 * on a read error: feed_error() then says what).
 */
feed_sess_t *feed_take(feed_t *f);

/* The session's number (sessions of all shards count). */
uint64_t feed_session_id(const feed_sess_t *s);

/*
 * Detach the next pipeline group of s (at most max requests) as a list
 * linked through next: returns its length, 0 when the session has no more
 * (read error: 0, and feed_error() says).  A group longer than max goes
 * out in pieces.
 */
size_t feed_group(feed_t *f, feed_sess_t *s, feed_req_t **out, size_t max);

/* Give back requests (a list) and a finished session. */
void feed_free_reqs(feed_t *f, feed_req_t *list);
void feed_release(feed_t *f, feed_sess_t *s);

/*
 * URL id -> the request target to send (bytes a request line cannot
 * carry are percent-encoded) and the content seed of its path.
 */
const char *feed_target(const feed_t *f, uint32_t url, size_t *len);
uint64_t    feed_seed(const feed_t *f, uint32_t url);

/* The time of the trace's first record (microseconds), once read. */
int64_t feed_first_time_us(const feed_t *f);

/* Progress through the input (0..1), or -1 when it cannot be known. */
double feed_progress(const feed_t *f);

const feed_stats_t *feed_stats(const feed_t *f);
const char         *feed_error(const feed_t *f);
trace_reader_t     *feed_reader(const feed_t *f);

#endif /* TRACE_FEED_H */
