/*
 * Reading traces: one reader per format behind one interface, streaming
 * (bounded memory whatever the trace's length), from a plain or gzip file
 * or standard input ("-").  Lines or records that do not parse are
 * counted, and the first few are kept with their numbers and reasons.
 */

#ifndef TRACE_READER_H
#define TRACE_READER_H

#include <stdint.h>

#include "trace.h"

#define TRACE_ERRORS_KEPT 10

typedef struct {
    uint64_t line; /* line (text) or record (binary) number, from 1 */
    int      err;  /* TRACE_ERR_* */
} trace_bad_t;

typedef struct trace_reader_s trace_reader_t;

/*
 * Open path ("-": standard input) as format ("auto", "clf", "wc98",
 * "nic"; "combined" is a synonym of "clf", whose parser reads both).  mapping:
 * the WorldCup98 object mapping, or NULL (URLs are then "/object/ID").
 * NULL with err set on failure.
 */
trace_reader_t *trace_open(const char *path, const char *format,
                           const char *mapping, char *err, size_t errlen);

/*
 * The next request.  Returns 1, 0 at the end, or -1 on a read error (err
 * set).  r->url stays valid until the next call.
 */
int trace_next(trace_reader_t *t, trace_req_t *r, char *err, size_t errlen);

/* The format in use ("clf", "wc98"). */
const char *trace_format(const trace_reader_t *t);

/*
 * How far through its input the reader is (0..1, by bytes of the file as
 * stored, so of the compressed file for gzip), or -1 when the input is
 * not a regular file.
 */
double trace_progress(const trace_reader_t *t);

/* Lines or records that did not parse, and the first few of them. */
uint64_t           trace_bad_count(const trace_reader_t *t);
const trace_bad_t *trace_bad_first(const trace_reader_t *t, int *n);

void trace_close(trace_reader_t *t);

#endif /* TRACE_READER_H */
