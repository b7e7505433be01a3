/*
 * Calendar arithmetic shared by the server (HTTP dates) and the trace
 * tools (log dates).
 */

#ifndef NICACHE_CIVIL_H
#define NICACHE_CIVIL_H

#include <stdint.h>

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, m 1..12). */
int64_t nicache_days_from_civil(int64_t y, int m, int d);

#endif /* NICACHE_CIVIL_H */
