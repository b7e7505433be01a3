/*
 * The command line as every trace tool reads it (nictrace, nicsim,
 * nicreplay, niccompare, nicload): durations with units, counts, one line
 * for a bad option with the hint to --help (as getopt_long's users
 * expect, never a page of usage), and --json FILE with "-" for standard
 * output.
 */

#ifndef TRACE_CLI_H
#define TRACE_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A duration in seconds: a number with a unit (us, ms, s, m, h, d; none:
 * seconds), several adding up ("1m30s", "1h 30m"), fractions allowed
 * ("1.5", "0.25s").  0, or -1 for anything else (a sign, nothing, an
 * unknown unit, more than 100 years).
 */
int cli_seconds(const char *s, double *out);

/* A count: decimal digits only.  0, or -1. */
int cli_count(const char *s, uint64_t *out);

/*
 * getopt_long with the tool's own message for a bad option, one line on
 * stderr: "TOOL: unknown option --jsn (TOOL --help lists the options)",
 * "TOOL: --json wants a value (...)", "TOOL: --quiet takes no value
 * (...)".  Returns what getopt_long returns; '?' after the message.
 */
int cli_getopt(const char *tool, int argc, char **argv, const char *shortopts,
               const struct option *longopts);

/* One line "TOOL: WHAT (TOOL --help lists the options)" on stderr;
 * returns 2, the exit status of a bad command line. */
int cli_usage(const char *tool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A bad value, one line: "TOOL: OPTION: "VALUE" is not WANT"; returns 2. */
int cli_bad_value(const char *tool, const char *option, const char *value,
                  const char *want);

/* --json FILE and the like: "-" is standard output.  The stream, or NULL
 * after "TOOL: PATH: reason" on stderr.  cli_close_out() closes what
 * cli_open_out() opened (not stdout, which it flushes): 0, or -1 after
 * saying why. */
FILE *cli_open_out(const char *tool, const char *path);
int   cli_close_out(const char *tool, const char *path, FILE *f);

/* --json FILE of a tool that writes its JSON to standard output:
 * standard output goes to path ("-": stays).  0, or -1 after "TOOL:
 * PATH: reason" (before the work: a bad path costs nothing). */
int cli_stdout_to(const char *tool, const char *path);

#endif /* TRACE_CLI_H */
