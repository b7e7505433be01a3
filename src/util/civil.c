/*
 * Days from the civil date: the era-based count that needs no tables and
 * no loops (400-year eras of 146,097 days, March-based years so that the
 * leap day is the last day of a year).
 */

#include "util/civil.h"

int64_t
nicache_days_from_civil(int64_t y, int m, int d)
{
    int64_t  era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned) (y - era * 400);
    doy = (unsigned) ((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t) doe - 719468;
}
