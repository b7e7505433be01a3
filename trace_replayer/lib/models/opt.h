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

/*
 * The sequence of block accesses OPT replays, recorded as it happens.
 * Each block is numbered densely at its first access (one hash lookup an
 * access, then everything indexes arrays); an access keeps its block's
 * number and the bytes used, 8 bytes, and the next uses, computed once
 * for every cache size, 4 more: a run of n accesses holds about 12n
 * bytes.
 */
typedef struct trace_opt_seq_s trace_opt_seq_t;

trace_opt_seq_t *trace_opt_seq_new(void); /* NULL when out of memory */
void             trace_opt_seq_free(trace_opt_seq_t *q);

/*
 * One access to block key, used bytes of it, its file of fsize bytes (a
 * file larger than a cache bypasses it; a block's first fsize is kept).
 * 0, or -1 with errno: ENOMEM, or EOVERFLOW past 4,294,967,294 accesses
 * or 2^31 blocks.
 */
int trace_opt_seq_add(trace_opt_seq_t *q, uint64_t key, uint32_t used,
                      uint64_t fsize);

size_t trace_opt_seq_count(const trace_opt_seq_t *q); /* accesses */

/*
 * Replay the sequence through a cache of nslots blocks (cache_bytes for
 * the bypass rule).  Sets *hits, *cached (bytes served from the cache)
 * and *accesses (those that did not bypass it).  Returns 0, or -1 when
 * out of memory.
 */
int trace_opt(trace_opt_seq_t *q, uint32_t nslots, uint64_t cache_bytes,
              uint64_t *hits, uint64_t *cached, uint64_t *accesses);

/*
 * The sequence as libCacheSim's oracleGeneral trace: per access 24 bytes,
 * little-endian: u32 time (0), u64 object (the block's key), u32 size
 * (block), i64 the index of the block's next access (-1: none).  So
 * libCacheSim's Belady and policies see exactly the accesses nicsim saw.
 * Returns 0, or -1 on a write error (errno) or out of memory.
 */
int trace_opt_write_oracle(trace_opt_seq_t *q, uint32_t block, FILE *f);

#endif /* TRACE_OPT_H */
