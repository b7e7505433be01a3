/*
 * Range header parsing, as nginx's ngx_http_range_parse reads it (RFC
 * 9110, 14.2 lets a server ignore or refuse what it cannot use): another
 * unit is ignored (the whole file, 200); a ranges-specifier that does
 * not parse is refused (416), as nginx does.
 *
 * Ranges that add up to more than the file are ignored too (nginx's rule):
 * "bytes=0-,0-,..." would otherwise make a request of a few hundred bytes
 * cost the file's size once per range, the amplification of Apache's
 * CVE-2011-3192.  RFC 9110, 14.2 allows it: a server MAY ignore or reject
 * overlapping ranges or many small ones.
 */

#include <stdint.h>
#include <strings.h>

#include "server/http/range.h"

/* Digits at v[*i..]; 0 with *out, or -1 (none, or overflow). */
static int
number(const char *v, size_t len, size_t *i, off_t *out)
{
    uint64_t n = 0;
    size_t   start = *i;

    while (*i < len && v[*i] >= '0' && v[*i] <= '9') {
        if (n > ((uint64_t) INT64_MAX - 9) / 10) {
            return -1;
        }
        n = n * 10 + (uint64_t) (v[*i] - '0');
        (*i)++;
    }
    if (*i == start) {
        return -1;
    }
    *out = (off_t) n;
    return 0;
}

static void
spaces(const char *v, size_t len, size_t *i)
{
    while (*i < len && v[*i] == ' ') {
        (*i)++;
    }
}

/* one range-spec at v[*i..] as [*a, *b) of a file of size bytes (*b at
 * most size): 0, or -1 when it does not parse */
static int
spec(const char *v, size_t len, size_t *i, off_t size, off_t *a, off_t *b)
{
    spaces(v, len, i);
    if (*i < len && v[*i] == '-') {
        (*i)++;
        if (number(v, len, i, b) != 0) {
            return -1;
        }
        *a = *b < size ? size - *b : 0; /* the last *b bytes */
        *b = size;
    } else {
        if (number(v, len, i, a) != 0) {
            return -1;
        }
        spaces(v, len, i);
        if (*i == len || v[(*i)++] != '-') {
            return -1;
        }
        spaces(v, len, i);
        if (*i == len || v[*i] == ',') {
            *b = size;
            return 0;
        }
        if (number(v, len, i, b) != 0) {
            return -1;
        }
        *b = *b >= size ? size : *b + 1;
    }
    spaces(v, len, i);
    return *i == len || v[*i] == ',' ? 0 : -1;
}

int
nicd_range_parse(const char *v, size_t len, off_t size, int max,
                 nicd_range_t *out, int *n)
{
    size_t   i = 6;
    int      count = 0;
    uint64_t total = 0;
    off_t    a, b;

    *n = 0;

    /* "bytes" is case-insensitive (range-unit is a token) */
    if (len < 7 || strncasecmp(v, "bytes=", 6) != 0) {
        return NICD_RANGE_IGNORE;
    }
    for (;;) {
        if (spec(v, len, &i, size, &a, &b) != 0) {
            return NICD_RANGE_UNSATISFIABLE;
        }
        if (a < b) { /* satisfiable; else left out, unless the file is empty */
            if (count == max) {
                return NICD_RANGE_IGNORE; /* more than max_ranges */
            }
            out[count].start = a;
            out[count].end = b - 1;
            total += (uint64_t) (b - a);
            count++;
        } else if (a == 0) {
            return NICD_RANGE_IGNORE; /* an empty file: the whole of it */
        }
        if (i == len) {
            break;
        }
        i++; /* the comma */
    }
    if (count == 0) {
        return NICD_RANGE_UNSATISFIABLE;
    }
    if (count > 1 && total > (uint64_t) size) {
        return NICD_RANGE_IGNORE;
    }
    *n = count;
    return NICD_RANGE_OK;
}
