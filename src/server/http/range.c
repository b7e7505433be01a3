/*
 * Range header parsing.  A server MAY ignore Range (RFC 9110, 14.2), so
 * anything we do not understand is ignored rather than refused: the
 * client then gets the whole file with 200, never wrong bytes.
 *
 * Ranges that add up to more than the file are ignored too (nginx's rule
 * in ngx_http_range_parse): "bytes=0-,0-,..." would otherwise make a
 * request of a few hundred bytes cost the file's size once per range, the
 * amplification of Apache's CVE-2011-3192.  RFC 9110, 14.2 allows it: a
 * server MAY ignore or reject overlapping ranges or many small ones.
 */

#include <stdint.h>

#include "server/http/range.h"

static int
is_ows(char c)
{
    return c == ' ' || c == '\t';
}

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

int
nicd_range_parse(const char *v, size_t len, off_t size, int max,
                 nicd_range_t *out, int *n)
{
    size_t   i = 0;
    int      specs = 0, count = 0;
    uint64_t total = 0;
    off_t    a, b;
    int      suffix, open_end;

    *n = 0;

    /* "bytes" is case-insensitive (range-unit is a token) */
    if (len < 6 || (v[0] | 0x20) != 'b' || (v[1] | 0x20) != 'y'
        || (v[2] | 0x20) != 't' || (v[3] | 0x20) != 'e' || (v[4] | 0x20) != 's'
        || v[5] != '=') {
        return NICD_RANGE_IGNORE;
    }
    i = 6;

    for (;;) {
        while (i < len && (is_ows(v[i]) || v[i] == ',')) {
            i++;
        }
        if (i == len) {
            break;
        }
        if (++specs > max) {
            return NICD_RANGE_IGNORE;
        }

        suffix = 0;
        open_end = 0;
        a = b = 0;

        if (v[i] == '-') {
            i++;
            suffix = 1;
            if (number(v, len, &i, &b) != 0) {
                return NICD_RANGE_IGNORE;
            }
        } else {
            if (number(v, len, &i, &a) != 0 || i == len || v[i] != '-') {
                return NICD_RANGE_IGNORE;
            }
            i++;
            if (i < len && v[i] >= '0' && v[i] <= '9') {
                if (number(v, len, &i, &b) != 0 || b < a) {
                    return NICD_RANGE_IGNORE;
                }
            } else {
                open_end = 1;
            }
        }

        while (i < len && is_ows(v[i])) {
            i++;
        }
        if (i < len && v[i] != ',') {
            return NICD_RANGE_IGNORE;
        }

        /* satisfiable? (RFC 9110, 14.1.1) */
        if (suffix) {
            if (b == 0 || size == 0) {
                continue;
            }
            out[count].start = b >= size ? 0 : size - b;
            out[count].end = size - 1;
        } else {
            if (a >= size) {
                continue;
            }
            out[count].start = a;
            out[count].end = (open_end || b >= size) ? size - 1 : b;
        }
        total += (uint64_t) (out[count].end - out[count].start + 1);
        if (total > (uint64_t) size) {
            return NICD_RANGE_IGNORE;
        }
        count++;
    }

    if (specs == 0) {
        return NICD_RANGE_IGNORE;
    }
    if (count == 0) {
        return NICD_RANGE_UNSATISFIABLE;
    }
    *n = count;
    return NICD_RANGE_OK;
}
