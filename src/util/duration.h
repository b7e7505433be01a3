/*
 * Times as people write them in nginx configurations and on command
 * lines: numbers with units ms, s, m, h, d, w, M (30 days), y (365 days),
 * none meaning seconds, several adding up ("1h 30m", "1d12h").
 */

#ifndef NICACHE_DURATION_H
#define NICACHE_DURATION_H

/* In milliseconds, or in seconds with seconds set: 0, or -1 when s is
 * malformed or too large. */
int nicache_parse_time(const char *s, int seconds, long long *out);

/* The command line's: a number of seconds with fractions and units us,
 * ms, s, m, h, d ("1.5", "250ms", "1m30s"), at most 100 years.  0, or
 * -1. */
int nicache_parse_seconds(const char *s, double *out);

#endif /* NICACHE_DURATION_H */
