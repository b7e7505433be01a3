/*
 * --sort: a trace in time order whatever the order of its lines, in
 * bounded memory, as sort(1) does it: runs of at most max_held records
 * sorted in memory and written as compact temporary files (trace_nic.c),
 * then merged into one compact file in time order (ties in the log's
 * order), which the tools read as they read any trace.
 */

#ifndef TRACE_SORT_H
#define TRACE_SORT_H

#include <stddef.h>

#include "lib/formats/reader.h"

/*
 * Sort s's trace into a new temporary file (in $TMPDIR, else /tmp), its
 * path into out (len bytes); *raw is the reader the trace was read with,
 * for its counts of lines that did not parse (the caller closes it).  0,
 * or -1 with the reason in err (nothing left behind).
 */
int trace_sort(const trace_src_t *s, char *out, size_t len,
               trace_reader_t **raw, char *err, size_t errlen);

#endif /* TRACE_SORT_H */
