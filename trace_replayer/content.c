/*
 * Materialised file contents (see content.h for the definition).
 */

#include "../src/util/hash.h"
#include "content.h"

uint64_t
trace_content_seed(const char *path, size_t len)
{
    return nicache_fnv1a64(path, len);
}

static uint64_t
splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9e3779b97f4a7c15ULL;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void
trace_content(uint64_t seed, uint64_t off, unsigned char *buf, size_t len)
{
    uint64_t w, word = off / 8;
    unsigned k = (unsigned) (off % 8);
    size_t   i = 0;

    while (i < len) {
        w = splitmix64(seed + word) >> (8 * k);
        for (; k < 8 && i < len; k++) {
            buf[i++] = (unsigned char) (w & 0xff);
            w >>= 8;
        }
        k = 0;
        word++;
    }
}
