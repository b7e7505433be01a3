/*
 * The one way the trace tools stop on a signal: SIGINT and SIGTERM set a
 * flag the run polls, so it ends where it is and still writes what it
 * has (partial results say so); SIGPIPE is ignored, so a peer that
 * closed shows as EPIPE where it happens.  The flag is the one piece of
 * mutable state at file scope a program keeps: a signal handler can
 * reach nothing else.
 */

#ifndef NICACHE_STOP_H
#define NICACHE_STOP_H

/* Install the handlers (without SA_RESTART: a blocking wait returns
 * EINTR and the loop looks at the flag). */
void nicache_catch_stop(void);

/* 1 once SIGINT or SIGTERM came. */
int nicache_stopping(void);

#endif /* NICACHE_STOP_H */
