/*
 * The input of a trace as its format reads it (format.h): lines of any
 * length, or fixed-size binary records, through zlib's gz* calls, which
 * read gzip and plain files alike.
 */

#include <string.h>
#include <zlib.h>

#include "lib/formats/format.h"
#include "lib/grow.h"

int
trace_input_line(trace_input_t *in, size_t *len)
{
    size_t n = 0;

    for (;;) {
        if (trace_grow(&in->line, &in->size, n + 2, 1, 4096) != 0) {
            return -1;
        }
        if (gzgets(in->f, in->line + n, (int) (in->size - n)) == NULL) {
            int zerr;

            /* a gzip stream that stops short ("unexpected end of file")
             * or is damaged: an error, never the end of the trace (the
             * partial line before it is not a record) */
            (void) gzerror(in->f, &zerr);
            if (zerr != Z_OK && zerr != Z_STREAM_END) {
                return -1;
            }
            if (n > 0) {
                break; /* a last line without a newline */
            }
            return gzeof(in->f) ? 0 : -1;
        }
        n += strlen(in->line + n);
        if (n > 0 && in->line[n - 1] == '\n') {
            n--;
            break;
        }
    }
    in->lineno++;
    *len = n;
    return 1;
}

int
trace_input_record(trace_input_t *in, unsigned char *rec, int size, int *bad)
{
    int n = gzread(in->f, rec, (unsigned) size);

    if (n == 0) {
        return 0;
    }
    in->lineno++;
    if (n < 0) {
        return -1;
    }
    if (n < size) {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    return 1;
}
