/*
 * nicreplay's per-URL and per-size-class statistics (--by-url, --by-size).
 *
 * Per URL: requests, body bytes, total latency and a coarse latency
 * histogram (4 buckets per power of two, within 19 %; 672 bytes, made
 * only for URLs that were answered, only when asked).  Per size class:
 * requests, bytes and a full trace_hist_t.  Classes are SPECweb99's
 * (bodies below 1 KiB, 1-10 KiB, 10-100 KiB, 100 KiB-1 MiB, then 1 MiB
 * and more) or powers of two.
 */

#ifndef TRACE_BREAKDOWN_H
#define TRACE_BREAKDOWN_H

#include <stdint.h>
#include <stdio.h>

#include "lib/models/feed.h"
#include "lib/json.h"

enum { BY_SIZE_NONE = 0, BY_SIZE_SPECWEB, BY_SIZE_POW2 };

typedef struct breakdown_s breakdown_t;

/* top: URLs to list (0: none); by_size: BY_SIZE_*.  NULL: no memory. */
breakdown_t *breakdown_new(unsigned top, int by_size);
void         breakdown_free(breakdown_t *b);

/* One response: 0, or -1 when out of memory. */
int breakdown_add(breakdown_t *b, uint32_t url, uint64_t body,
                  uint64_t latency_us);

/* The tables, and the same as JSON members ("by_url", "by_size") each
 * followed by ",\n". */
void breakdown_print(const breakdown_t *b, const feed_t *feed, double elapsed,
                     FILE *out);
void breakdown_json(const breakdown_t *b, const feed_t *feed, double elapsed,
                    FILE *out);

/*
 * Add one result's "by_url" and "by_size" members (breakdown_json's, whose
 * "every_url" lists every answered URL) into b, made by breakdown_new(0,
 * BY_SIZE_NONE): URLs matched by target, counters and histograms added,
 * so the merged tables are those of one process that saw every response.
 * b then names its URLs itself: print and json take feed NULL.
 * 0, or -1 with *why set.
 */
int breakdown_merge_json(breakdown_t *b, const json_t *root, const char **why);

#endif /* TRACE_BREAKDOWN_H */
