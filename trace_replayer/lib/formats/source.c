/*
 * Where a tool's trace comes from (reader.h: trace_src_t): the trace
 * options every tool takes, and the reader they open, sorted first when
 * --sort asks (sort.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/formats/reader.h"
#include "lib/formats/sort.h"

int
trace_src_option(trace_src_t *s, int c, const char *arg, char *err,
                 size_t errlen)
{
    char  *end;
    double w;

    switch (c) {
    case 'f': s->format = arg; return 1;
    case 'm': s->mapping = arg; return 1;
    case 'W':
        if (cli_seconds(arg, &w) != 0 || w > 86400) {
            snprintf(err, errlen,
                     "--reorder-window: \"%s\" is not a duration from 0 to "
                     "1d (60, 1m, 500ms)",
                     arg);
            return -1;
        }
        s->window = w;
        return 1;
    case TRACE_OPT_HELD:
        errno = 0;
        s->held_max = strtoull(arg, &end, 10);
        if (end == arg || *end != '\0' || errno != 0 || s->held_max == 0
            || arg[0] == '-' || s->held_max > (uint64_t) SIZE_MAX / 256) {
            snprintf(err, errlen,
                     "--reorder-max: \"%s\" is not a positive number of "
                     "records",
                     arg);
            return -1;
        }
        return 1;
    case TRACE_OPT_TRUNC: s->allow_truncated = 1; return 1;
    case TRACE_OPT_LATE: s->allow_late = 1; return 1;
    case TRACE_OPT_SORT: s->sort = 1; return 1;
    }
    return 0;
}

trace_reader_t *
trace_src_open(const trace_src_t *s, char *err, size_t errlen)
{
    trace_reader_t *t, *raw;
    char            sorted[4096];

    if (!s->sort) {
        t = trace_open(s->path, s->format, s->mapping, err, errlen);
    } else {
        /* sorted into a compact file first; read as the trace, with the
         * counts of lines that did not parse the sort's pass found */
        if (trace_sort(s, sorted, sizeof(sorted), &raw, err, errlen) != 0) {
            return NULL;
        }
        t = trace_open(sorted, "nic", NULL, err, errlen);
        unlink(sorted); /* gone when closed */
        if (t != NULL) {
            trace_adopt_bad(t, raw);
        }
        trace_close(raw);
    }
    if (t != NULL && s->window >= 0) {
        trace_set_window(t, s->window);
    }
    if (t != NULL) {
        trace_set_held_max(t, s->held_max);
        trace_allow_truncated(t, s->allow_truncated);
        trace_allow_late(t, s->allow_late);
    }
    return t;
}
