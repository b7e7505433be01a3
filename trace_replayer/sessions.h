/*
 * Persistent connections as the paper forms them from a trace (section
 * 5.2): a request from a client less than conn_gap seconds after that
 * client's previous request joins its connection; otherwise it opens a
 * new one.  Connections are numbered in the order they open, which is
 * the order the replayer starts them and so how nicd's round-robin
 * spreads them over NICs.
 */

#ifndef TRACE_SESSIONS_H
#define TRACE_SESSIONS_H

#include <stdint.h>

#include "trace.h"

typedef struct trace_sessions_s trace_sessions_t;

trace_sessions_t *trace_sessions_new(int64_t conn_gap);
void              trace_sessions_free(trace_sessions_t *s);

/*
 * The connection of r (numbered from 0); *opened is 1 when r opens it.
 * Returns UINT64_MAX when out of memory.
 */
uint64_t trace_session(trace_sessions_t *s, const trace_req_t *r, int *opened);

#endif /* TRACE_SESSIONS_H */
