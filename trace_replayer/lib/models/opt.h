/*
 * Belady's OPT for nicsim: the most block hits any replacement policy
 * could have had on a recorded sequence of block accesses (it needs the
 * future, so the server never runs it).  A block whose next use is
 * farther away than that of every resident block is not inserted, so
 * this is the optimum when a cache may also decline a block, an upper
 * bound for every policy of src/sendfile_nic/policy/.
 */

#ifndef TRACE_OPT_H
#define TRACE_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t key;   /* the block */
    uint32_t used;  /* bytes of the transfer in this block */
    uint64_t fsize; /* its file's size: larger than the cache bypasses */
} opt_access_t;

/*
 * Replay acc[0..n) through a cache of nslots blocks (cache_bytes for the
 * bypass rule).  Sets *hits and *cached (bytes served from the cache).
 * Returns 0, or -1 when out of memory.
 */
int trace_opt(const opt_access_t *acc, size_t n, uint32_t nslots,
              uint64_t cache_bytes, uint64_t *hits, uint64_t *cached);

/*
 * acc[0..n) as libCacheSim's oracleGeneral trace: per access 24 bytes,
 * little-endian: u32 time (0), u64 object (the block's key), u32 size
 * (block), i64 the index of the block's next access (-1: none).  So
 * libCacheSim simulates exactly the block stream nicsim does.  0, or -1
 * (out of memory or a write error).
 */
int trace_opt_write_oracle(const opt_access_t *acc, size_t n, uint32_t block,
                           FILE *f);

#endif /* TRACE_OPT_H */
