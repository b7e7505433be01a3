/*
 * Times as nginx writes them (duration.h): one parser for nicd's
 * directives and the trace tools' options.
 */

#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "util/duration.h"

int
nicache_parse_time(const char *s, int seconds, long long *out)
{
    static const struct {
        const char *unit;
        long long   ms;
    } units[] = {
        {"ms", 1},           {"s", 1000},          {"m", 60000},
        {"h", 3600000},      {"d", 86400000},      {"w", 604800000},
        {"M", 2592000000LL}, {"y", 31536000000LL},
    };
    long long total = 0, v;
    size_t    i, n;
    int       any = 0;

    while (*s != '\0') {
        while (*s == ' ') {
            s++;
        }
        if (*s == '\0') {
            break;
        }
        if (!isdigit((unsigned char) *s)) {
            return -1;
        }
        for (v = 0; isdigit((unsigned char) *s); s++) {
            if (v > (LLONG_MAX - 9) / 10) {
                return -1;
            }
            v = v * 10 + (*s - '0');
        }
        /* the longest unit that follows; none: seconds */
        for (i = 0, n = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t l = strlen(units[i].unit);

            if (strncmp(s, units[i].unit, l) == 0 && l > n) {
                n = l;
                v = v > LLONG_MAX / units[i].ms ? -1 : v * units[i].ms;
            }
        }
        if (n == 0) {
            v = v > LLONG_MAX / 1000 ? -1 : v * 1000;
        }
        if (v < 0 || total > LLONG_MAX - v) {
            return -1;
        }
        total += v;
        s += n;
        any = 1;
        if (*s != '\0' && *s != ' ' && !isdigit((unsigned char) *s)) {
            return -1;
        }
    }
    if (!any) {
        return -1;
    }
    *out = seconds ? total / 1000 : total;
    return 0;
}
