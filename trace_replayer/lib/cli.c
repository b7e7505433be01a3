/*
 * The trace tools' command line (cli.h).
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"

int
cli_seconds(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double      s;
    } units[] = {
        {"us", 1e-6}, {"ms", 1e-3}, {"s", 1},
        {"m", 60},    {"h", 3600},  {"d", 86400},
    };
    double total = 0, v;
    char  *end;
    size_t i, n, best;
    int    any = 0;

    while (*s != '\0') {
        while (*s == ' ') {
            s++;
        }
        if (*s == '\0') {
            break;
        }
        if (!isdigit((unsigned char) *s) && *s != '.') {
            return -1; /* no sign, no "inf", no hex */
        }
        errno = 0;
        v = strtod(s, &end);
        if (end == s || errno != 0
            || strspn(s, "0123456789.") < (size_t) (end - s)
            || (end - s == 1 && *s == '.')) {
            return -1; /* no exponent, no hex */
        }
        for (s = end, i = 0, n = 0, best = 0;
             i < sizeof(units) / sizeof(units[0]); i++) {
            size_t l = strlen(units[i].unit);

            if (strncmp(s, units[i].unit, l) == 0 && l > n) {
                n = l;
                best = i;
            }
        }
        total += n > 0 ? v * units[best].s : v;
        s += n;
        any = 1;
        if (*s != '\0' && *s != ' ' && !isdigit((unsigned char) *s)) {
            return -1;
        }
    }
    if (!any || !(total >= 0) || total > 100 * 365 * 86400.0) {
        return -1;
    }
    *out = total;
    return 0;
}

int
cli_count(const char *s, uint64_t *out)
{
    char              *end;
    unsigned long long v;

    if (!isdigit((unsigned char) s[0])) {
        return -1;
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') {
        return -1;
    }
    *out = v;
    return 0;
}

int
cli_usage(const char *tool, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", tool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (%s --help lists the options)\n", tool);
    return 2;
}

int
cli_bad_value(const char *tool, const char *option, const char *value,
              const char *want)
{
    fprintf(stderr, "%s: %s: \"%s\" is not %s\n", tool, option, value, want);
    return 2;
}

/* the long option named by arg ("--name" or "--name=value"), or NULL */
static const struct option *
long_named(const struct option *longopts, const char *arg)
{
    size_t n = strcspn(arg + 2, "=");

    for (; longopts->name != NULL; longopts++) {
        if (strlen(longopts->name) == n
            && strncmp(longopts->name, arg + 2, n) == 0) {
            return longopts;
        }
    }
    return NULL;
}

int
cli_getopt(const char *tool, int argc, char **argv, const char *shortopts,
           const struct option *longopts)
{
    const struct option *o;
    const char          *arg, *p;
    int                  ch;

    opterr = 0;
    ch = getopt_long(argc, argv, shortopts, longopts, NULL);
    if (ch != '?') {
        return ch;
    }
    arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    if (strncmp(arg, "--", 2) == 0) {
        o = long_named(longopts, arg);
        if (o == NULL) {
            /* unknown, or a prefix of several */
            cli_usage(tool, "unknown option %.*s", (int) strcspn(arg, "="),
                      arg);
        } else if (o->has_arg == no_argument) {
            cli_usage(tool, "--%s takes no value", o->name);
        } else {
            cli_usage(tool, "--%s wants a value", o->name);
        }
    } else if (optopt != 0 && (p = strchr(shortopts, optopt)) != NULL
               && p[1] == ':') {
        cli_usage(tool, "-%c wants a value", optopt);
    } else {
        cli_usage(tool, "unknown option -%c", optopt ? optopt : '?');
    }
    return '?';
}

FILE *
cli_open_out(const char *tool, const char *path)
{
    FILE *f;

    if (strcmp(path, "-") == 0) {
        return stdout;
    }
    f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
    }
    return f;
}

int
cli_close_out(const char *tool, const char *path, FILE *f)
{
    int bad;

    if (f == NULL) {
        return 0;
    }
    bad = f == stdout ? fflush(f) != 0 || ferror(f) : fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
        return -1;
    }
    return 0;
}

int
cli_stdout_to(const char *tool, const char *path)
{
    if (strcmp(path, "-") == 0) {
        return 0;
    }
    if (freopen(path, "w", stdout) == NULL) {
        fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
        return -1;
    }
    return 0;
}
