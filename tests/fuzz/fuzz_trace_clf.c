/*
 * Fuzz target: one Common/Combined log line.  Whatever the bytes, the
 * parser returns a result; a parsed URL lies inside the line.
 */

#include <stdint.h>
#include <stdlib.h>

#include "lib/formats/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *line = (const char *) data;
    trace_req_t r;

    if (trace_clf_parse(line, size, &r) == TRACE_OK
        && (r.url < line || r.url + r.url_len > line + size || r.status < 100
            || r.status > 599)) {
        abort();
    }
    return 0;
}
