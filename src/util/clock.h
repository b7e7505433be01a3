/*
 * The one monotonic clock of the server, the send library and the trace
 * tools: CLOCK_MONOTONIC, which no settimeofday() or NTP step moves.
 */

#ifndef NICACHE_CLOCK_H
#define NICACHE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now, in nanoseconds since an arbitrary start. */
static inline uint64_t
nicache_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Now, in seconds (for elapsed times people read). */
static inline double
nicache_now_s(void)
{
    return (double) nicache_now_ns() / 1e9;
}

#endif /* NICACHE_CLOCK_H */
