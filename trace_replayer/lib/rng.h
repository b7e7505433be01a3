/*
 * The trace library's one random generator: splitmix64 (Steele, Lea and
 * Flood, 2014), one word of state, good enough for workloads and
 * schedules, and the mixing of the docroot's bytes (content.c), whose
 * values tests know: they must not change.
 */

#ifndef TRACE_RNG_H
#define TRACE_RNG_H

#include <stdint.h>

/* the value of state x (its next output is trace_rng_mix(x + gamma)) */
static inline uint64_t
trace_rng_mix(uint64_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15ULL;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* the next 64 bits */
static inline uint64_t
trace_rng_next(uint64_t *state)
{
    uint64_t x = *state;

    *state = x + 0x9e3779b97f4a7c15ULL;
    return trace_rng_mix(x);
}

/* uniform in (0, 1] (never 0: a log of it is finite) */
static inline double
trace_rng_uniform(uint64_t *state)
{
    return ((double) (trace_rng_next(state) >> 11) + 1) / 9007199254740992.0;
}

#endif /* TRACE_RNG_H */
