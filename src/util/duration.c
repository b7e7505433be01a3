/*
 * Times as people write them (duration.h): one reader of numbers with
 * units for nicd's directives (nginx's units, whole numbers) and the
 * trace tools' options (fractions, microseconds).
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/duration.h"

typedef struct {
    const char *unit;
    double      ms;
} unit_t;

/* nginx's (ngx_parse_time) */
static const unit_t nginx_units[] = {
    {"ms", 1},       {"s", 1000},      {"m", 60000},       {"h", 3600000},
    {"d", 86400000}, {"w", 604800000}, {"M", 2592000000.}, {"y", 31536000000.},
};

/* the command line's */
static const unit_t cli_units[] = {
    {"us", 0.001}, {"ms", 1},        {"s", 1000},
    {"m", 60000},  {"h", 3600000.0}, {"d", 86400000.0},
};

/*
 * s as numbers each with a unit of units[] (none: seconds), summed into
 * *ms; fractions: "1.5" and ".5" allowed, else digits only.  No sign,
 * exponent or hex; at most max_ms.  0, or -1.
 */
static int
sum_units(const char *s, const unit_t *units, size_t nunits, int fractions,
          double max_ms, double *ms)
{
    double total = 0, v;
    char  *end;
    size_t i, n, best, digits;
    int    any = 0;

    while (*s != '\0') {
        while (*s == ' ') {
            s++;
        }
        if (*s == '\0') {
            break;
        }
        digits = strspn(s, fractions ? "0123456789." : "0123456789");
        if (digits == 0 || (digits == 1 && *s == '.')) {
            return -1;
        }
        errno = 0;
        v = strtod(s, &end);
        if (errno != 0 || end != s + digits) {
            return -1; /* "1.2.3", or an exponent strtod took */
        }
        for (s = end, i = 0, n = 0, best = 0; i < nunits; i++) {
            size_t l = strlen(units[i].unit);

            if (strncmp(s, units[i].unit, l) == 0 && l > n) {
                n = l;
                best = i;
            }
        }
        total += v * (n > 0 ? units[best].ms : 1000);
        if (!(total <= max_ms)) {
            return -1;
        }
        s += n;
        any = 1;
        if (*s != '\0' && *s != ' ' && !isdigit((unsigned char) *s)
            && !(fractions && *s == '.')) {
            return -1;
        }
    }
    if (!any) {
        return -1;
    }
    *ms = total;
    return 0;
}

int
nicache_parse_time(const char *s, int seconds, long long *out)
{
    double ms;

    /* below 2^63 and exact in a double: whole milliseconds to 2^53 */
    if (sum_units(s, nginx_units, sizeof(nginx_units) / sizeof(nginx_units[0]),
                  0, 9007199254740992.0, &ms)
        != 0) {
        return -1;
    }
    *out = seconds ? (long long) ms / 1000 : (long long) ms;
    return 0;
}

int
nicache_parse_seconds(const char *s, double *out)
{
    double ms;

    if (sum_units(s, cli_units, sizeof(cli_units) / sizeof(cli_units[0]), 1,
                  100 * 365 * 86400000.0, &ms)
        != 0) {
        return -1;
    }
    *out = ms / 1000;
    return 0;
}
