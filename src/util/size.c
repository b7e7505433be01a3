/* Sizes as people write them: see size.h. */

#include <stdio.h>
#include <stdlib.h>

#include "util/size.h"

int
nicache_parse_size(const char *s, uint64_t *out)
{
    char              *end;
    unsigned long long n, mult = 1;

    if (*s < '0' || *s > '9') {
        return -1; /* strtoull would take a sign or white space */
    }
    n = strtoull(s, &end, 10);
    switch (*end) {
    case 'k':
    case 'K':
        mult = 1024;
        end++;
        break;
    case 'm':
    case 'M':
        mult = 1024 * 1024;
        end++;
        break;
    case 'g':
    case 'G':
        mult = 1024ull * 1024 * 1024;
        end++;
        break;
    }
    if (*end != '\0' || n > (1ull << 40) / mult) {
        return -1;
    }
    *out = (uint64_t) (n * mult);
    return 0;
}

void
nicache_size_str(uint64_t v, char *buf, size_t len)
{
    if (v != 0 && v % (1 << 20) == 0) {
        snprintf(buf, len, "%llum", (unsigned long long) (v >> 20));
    } else if (v != 0 && v % 1024 == 0) {
        snprintf(buf, len, "%lluk", (unsigned long long) (v >> 10));
    } else {
        snprintf(buf, len, "%llu", (unsigned long long) v);
    }
}
