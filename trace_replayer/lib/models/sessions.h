/*
 * Persistent connections as the paper forms them from a trace (section
 * 5.2): a request from a client less than conn_gap seconds after that
 * client's previous request joins its connection; otherwise it opens a
 * new one.  Inside a connection, a request less than pipeline_gap seconds
 * after the previous one joins its pipeline group (the requests the
 * replayer writes back to back before reading their responses); otherwise
 * it starts a new group.  Connections are numbered in the order they open, which is
 * the order the replayer starts them and so how nicd's round-robin
 * spreads them over NICs.
 */

#ifndef TRACE_SESSIONS_H
#define TRACE_SESSIONS_H

#include <stdint.h>

#include "lib/formats/trace.h"

typedef struct trace_sessions_s trace_sessions_t;

trace_sessions_t *trace_sessions_new(int64_t conn_gap, int64_t pipeline_gap);
void              trace_sessions_free(trace_sessions_t *s);

/*
 * The connection of r (numbered from 0); *opened is 1 when r opens it,
 * *grouped 1 when r joins the pipeline group of the request before it.
 * Returns UINT64_MAX when out of memory.
 */
uint64_t trace_session(trace_sessions_t *s, const trace_req_t *r, int *opened,
                       int *grouped);

/*
 * Statistics of the grouping so far (connections and groups still open
 * count with what they hold now).
 */
typedef struct {
    uint64_t connections;
    uint64_t requests;
    uint64_t max_per_connection;
    uint64_t groups;
    uint64_t max_depth;
    uint64_t depth_hist[7]; /* groups of 1, 2, 3-4, 5-8, 9-16, 17-32, >32 */
} trace_sessions_stats_t;

void trace_sessions_stats(const trace_sessions_t *s,
                          trace_sessions_stats_t *st);

#endif /* TRACE_SESSIONS_H */
