/*
 * Sizes as people write them in configs and on command lines: "1000",
 * "4k", "16m", "1g" (powers of 1024; either case).  One parser for the
 * nic backend's directives and the trace tools' options.
 */

#ifndef NICACHE_SIZE_H
#define NICACHE_SIZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse s into *out: 0 on success, -1 when s is not a size (empty, a
 * sign, a unit other than k, m or g, anything after it, or more than
 * 1 TiB).  Zero is a size; callers that refuse it say so.
 */
int nicache_parse_size(const char *s, uint64_t *out);

/* v as the shortest exact form ("16m", "4k", "1000") into buf. */
void nicache_size_str(uint64_t v, char *buf, size_t len);

#endif /* NICACHE_SIZE_H */
