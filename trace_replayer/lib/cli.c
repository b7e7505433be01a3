/*
 * The trace tools' command line (cli.h).
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "util/duration.h"

int
cli_seconds(const char *s, double *out)
{
    return nicache_parse_seconds(s, out);
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

/* the long option arg names ("--name" or "--name=value"; a prefix of
 * one name only, as getopt_long takes it), or NULL */
static const struct option *
long_named(const struct option *longopts, const char *arg)
{
    const struct option *found = NULL;
    size_t               n = strcspn(arg + 2, "=");

    for (; longopts->name != NULL; longopts++) {
        if (strncmp(longopts->name, arg + 2, n) != 0) {
            continue;
        }
        if (strlen(longopts->name) == n) {
            return longopts; /* exact */
        }
        if (found != NULL && found->val != longopts->val) {
            return NULL; /* a prefix of several */
        }
        found = longopts;
    }
    return found;
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
