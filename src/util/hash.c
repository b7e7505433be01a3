/*
 * FNV-1a, 64-bit: cheap, byte at a time, and well enough spread for
 * open-addressing tables of paths.  Also the seed of materialised file
 * contents (docs/traces.md), so it must not change.
 */

#include "util/hash.h"

uint64_t
nicache_fnv1a64(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t             h = 14695981039346656037ULL;
    size_t               i;

    for (i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}
