/*
 * nictrace's parts (main.c tells the whole): main.c reads the command
 * line and calls a subcommand; scan.c reads a trace once for the others;
 * one file per subcommand: stats.c, docroot.c, sessions.c, convert.c,
 * synth.c.
 */

#ifndef NICTRACE_H
#define NICTRACE_H

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "util/version.h"
#include "util/civil.h"
#include "util/size.h"
#include "lib/models/content.h"
#include "lib/models/files.h"
#include "lib/models/objects.h"
#include "lib/formats/reader.h"
#include "lib/models/sessions.h"
#include "lib/strtab.h"
#include "lib/models/synth.h"
#include "util/clock.h"

/* the options of "nictrace synth": getopt gives 256 + SY_* */
enum {
    SY_LIKE,
    SY_REQUESTS,
    SY_FILES,
    SY_ZIPF,
    SY_SIZES,
    SY_DATA_SET,
    SY_AVG_SIZE,
    SY_MAX_SIZE,
    SY_CLIENTS,
    SY_DURATION,
    SY_LOCALITY,
    SY_START,
    SY_SEED,
    SY_N
};

/* What one pass over a trace gives every command. */
typedef struct {
    trace_reader_t *reader; /* still open: format and bad lines */
    trace_files_t  *files;
    trace_map_t    *map; /* the objects, when asked for */
    uint64_t        requests;
    uint64_t        bytes;
    int64_t         t0, t1;
} scan_t;

/* 1234567 -> "1,234,567" in buf (32 bytes) */
const char *nictrace_thousands(uint64_t v, char *buf);
/* s as a JSON string on stdout */
void nictrace_json_string(const char *s);
/* what nictrace_scan() holds */
void nictrace_scan_free(scan_t *sc);
/* one pass over src (sessions when asked; the objects with map):
 * 0, or -1 after saying why */
int nictrace_scan(const trace_src_t *src, trace_sessions_t *sessions, int map,
                  scan_t *sc);
/* one more trace into sc (its reader now src's): the figures add up as
 * over the traces' concatenation; 0, or 1 after saying why (sc freed) */
int nictrace_scan_more(const trace_src_t *src, trace_sessions_t *sessions,
                       scan_t *sc);
/* 1 after saying no record of path parsed, 0 when some did */
int nictrace_no_records(const char *path, uint64_t records,
                        const trace_reader_t *t);
/* more than 1 % of the records late (and no --allow-late): 1 after
 * saying so, else 0 */
int nictrace_late(const char *path, const trace_reader_t *t);
/* the subcommands: the exit status, having said why when not 0 */
/* stats of the traces paths[0..n) (src's options), as of their
 * concatenation; with_files: the JSON lists every file (for merge) */
int nictrace_stats(const trace_src_t *src, char **paths, int n, int json,
                   int with_files);
/* "nictrace merge": the stats --json --with-files results as one */
int nictrace_merge(char **paths, int n, int json);
int nictrace_docroot(const trace_src_t *src, const char *root, int json);
int nictrace_sessions(const trace_src_t *src, long conn_gap, long pipe_gap,
                      int json);
int nictrace_convert(const trace_src_t *src, const char *out_path, int json);
int nictrace_synth(const char *const *opt, const char *out_path,
                   const char *json);

/* the command line (options.c) */
typedef struct {
    trace_src_t src;
    const char *json, *root, *out;
    const char *synth_opt[SY_N];
    double      conn_gap, pipe_gap;
    int         with_files;
    char      **args; /* the command and its traces */
    int         nargs;
} nictrace_opts_t;

/* The command line into o: -1 to go on, else the exit status after
 * saying why (--help, --version, a bad option). */
int nictrace_options(nictrace_opts_t *o, int argc, char **argv);

#endif /* NICTRACE_H */
