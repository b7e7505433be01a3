/*
 * Miss-ratio curves in one pass: the exact LRU result for every cache size
 * from one reading of the block accesses (Mattson et al.'s stack
 * algorithm, 1970), or an estimate from a spatial sample of the blocks
 * (SHARDS: Waldspurger et al., FAST'15).
 *
 * LRU has the inclusion property: a cache of K blocks holds the K most
 * recently used, so an access hits every cache larger than its stack
 * distance (the number of distinct blocks used since the block's last
 * access).  nicsim adds one rule: a file larger than a cache bypasses it,
 * so the cache of size S sees only the blocks of files of at most S
 * bytes.  The files fall into classes by the smallest size they fit; the
 * distance for size j counts the distinct blocks of classes up to j, so
 * each class keeps its own Fenwick tree over the time of last use, and a
 * distance is a sum of per-class counts.  The curve then equals nicsim's
 * per-size LRU simulation at every size, hit for hit (a test).
 *
 * Time is the index of an access.  A Fenwick tree over all of time would
 * grow with the trace, so the live positions (each block's last access)
 * are renumbered in order whenever the axis fills: memory follows the
 * distinct blocks, not the requests.  Cost per access: one query of the
 * tree of all classes, and per-class queries only when that one does not
 * settle every size (a distance between the smallest and largest cache).
 *
 * With a sampling rate R < 1 a block is followed when hash(block) < R of
 * the hash space, its distance counted among followed blocks and scaled by
 * 1/R (SHARDS' fixed rate).  A size's misses are the sample's scaled by
 * 1/R; its accesses and bytes are counted whole and the rest are hits
 * (SHARDS_adj: a sample's excess or shortfall of references to the
 * hottest blocks goes to the shortest distances).  The estimate is coarse
 * where a cache holds only a few sampled blocks (K * R small: a distance
 * is known to 1/R blocks); trace_mrc_coarse() names those sizes.  A
 * request counts when a block of it was followed, and misses when a
 * followed block missed.
 */

#ifndef TRACE_MRC_H
#define TRACE_MRC_H

#include <stdint.h>

typedef struct trace_mrc_s trace_mrc_t;

/* What one cache size saw (nicsim's counters). */
typedef struct {
    uint64_t hits, misses; /* block accesses */
    uint64_t cached;       /* content bytes served from the cache */
    uint64_t bypassed;     /* content bytes of files larger than it */
    uint64_t requests;     /* counted requests with content */
    uint64_t req_misses;   /* ... with a block missed, or bypassing */
} trace_mrc_result_t;

/*
 * A curve for nsizes cache sizes (bytes, any order, each at least one
 * block), blocks of block bytes, following a share rate (0 < rate <= 1)
 * of the blocks; max_blocks > 0: at most that many followed blocks, the
 * rate falling as more come (SHARDS' fixed size: the block of largest
 * hash leaves, and the threshold with it).  NULL when out of memory.
 */
trace_mrc_t *trace_mrc_new(const uint64_t *sizes, int nsizes, uint64_t block,
                           double rate, uint64_t max_blocks);
void         trace_mrc_free(trace_mrc_t *m);

/*
 * One transfer of the first bytes bytes of file (a number below 2^32)
 * whose size is fsize: its blocks in order.  counting 0: the caches fill
 * but nothing is counted (warm-up).  0, or -1 when out of memory.
 */
int trace_mrc_request(trace_mrc_t *m, uint32_t file, uint64_t fsize,
                      uint64_t bytes, int counting);

/* The counters of sizes[i] as given to trace_mrc_new(). */
void trace_mrc_result(const trace_mrc_t *m, int i, trace_mrc_result_t *out);

/* 1 when sizes[i]'s cache holds fewer than 32 sampled blocks (its
 * sampled estimate is coarse); 0 for an exact curve. */
int trace_mrc_coarse(const trace_mrc_t *m, int i);

/* The sampling rate now (it falls under a fixed size). */
double trace_mrc_rate(const trace_mrc_t *m);

/* Distinct blocks followed so far, and the bytes the curve holds. */
uint64_t trace_mrc_blocks(const trace_mrc_t *m);
uint64_t trace_mrc_memory(const trace_mrc_t *m);

#endif /* TRACE_MRC_H */
