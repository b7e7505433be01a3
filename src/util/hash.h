/*
 * The one string hash of the project's tables (server and trace tools).
 */

#ifndef NICACHE_HASH_H
#define NICACHE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64 of n bytes. */
uint64_t nicache_fnv1a64(const void *p, size_t n);

#endif /* NICACHE_HASH_H */
