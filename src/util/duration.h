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

#endif /* NICACHE_DURATION_H */
