/*
 * The one hexadecimal digit decoder (percent-escapes, chunk sizes, the
 * trace formats' \xHH).
 */

#ifndef NICACHE_HEX_H
#define NICACHE_HEX_H

/* The value of hex digit c (either case), or -1. */
static inline int
nicache_hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

#endif /* NICACHE_HEX_H */
