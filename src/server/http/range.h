/*
 * Range requests (RFC 9110, section 14).
 */

#ifndef NICD_RANGE_H
#define NICD_RANGE_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    off_t start; /* first byte */
    off_t end;   /* last byte, inclusive */
} nicd_range_t;

#define NICD_RANGE_IGNORE        0  /* serve the whole representation */
#define NICD_RANGE_OK            1  /* *n satisfiable ranges in out */
#define NICD_RANGE_UNSATISFIABLE -1 /* answer 416 */

/*
 * Parse a Range value for a representation of size bytes, as nginx does.
 * Forms: "bytes=a-b", "bytes=a-", "bytes=-n", comma-separated, spaces
 * around each.  Unsatisfiable specs among satisfiable ones are dropped;
 * none satisfiable, or a specifier that does not parse, is a 416.
 * Another unit, more than max satisfiable ranges, an empty file, or
 * satisfiable ranges whose lengths add up to more than size (overlaps,
 * repeats) make the header ignored (RFC 9110 allows it; nginx's rule),
 * so a response is never larger than the file plus the multipart
 * framing.
 */
int nicd_range_parse(const char *v, size_t len, off_t size, int max,
                     nicd_range_t *out, int *n);

#endif /* NICD_RANGE_H */
