/*
 * Reading traces: one reader per format behind one interface, streaming
 * (bounded memory whatever the trace's length), from a plain or gzip file
 * or standard input ("-").  Lines or records that do not parse are
 * counted, and the first few are kept with their numbers and reasons.
 */

#ifndef TRACE_READER_H
#define TRACE_READER_H

#include <stdint.h>

#include "lib/formats/trace.h"

#define TRACE_ERRORS_KEPT 10

typedef struct {
    uint64_t line;      /* line (text) or record (binary) number, from 1 */
    int      err;       /* TRACE_ERR_* */
    char     text[100]; /* a text line's beginning ("": binary) */
} trace_bad_t;

typedef struct trace_reader_s trace_reader_t;

/*
 * Open path ("-": standard input) as format ("auto", "clf", "wc98",
 * "nic"; "combined" is a synonym of "clf", whose parser reads both).  mapping:
 * the WorldCup98 object mapping, or NULL (URLs are then "/object/ID").
 * NULL with err set on failure.
 */
trace_reader_t *trace_open(const char *path, const char *format,
                           const char *mapping, char *err, size_t errlen);

/*
 * The next request.  Returns 1, 0 at the end, or -1 on a read error (err
 * set).  r->url stays valid until the next call.
 */
int trace_next(trace_reader_t *t, trace_req_t *r, char *err, size_t errlen);

/*
 * Lines in time order.  Logs are written as requests end, so their lines
 * are out of order by up to the longest request; every tool (sessions,
 * shards, simulation) must see the same sequence whatever the line order.
 * The reader therefore hands records out sorted by time within a window:
 * a record is held until the log has reached window_s seconds past it,
 * and ties keep the log's order.  A record later than that (older than
 * one already handed out) is given the time of the last record handed
 * out and counted as late, so the times handed out never go back.  The
 * window is TRACE_WINDOW_DEFAULT seconds unless set before the first
 * trace_next(); 0 keeps the log's order (times still never go back).
 */
#define TRACE_WINDOW_DEFAULT 120

/*
 * The window is also bounded in records: a burst of one timestamp (or a
 * long window over a busy log) cannot hold more than max_held records;
 * when that many are held the earliest goes out before its window ends,
 * and a later record older than it is clamped and counted as late.
 */
#define TRACE_HELD_DEFAULT 262144

void trace_set_window(trace_reader_t *t, double window_s);
/* Records as the log has them: no window, no clamping (--sort's pass). */
void trace_set_raw(trace_reader_t *t);
/* The lines from found bad (--sort: the pass over the log's own lines). */
void trace_adopt_bad(trace_reader_t *t, const trace_reader_t *from);
void trace_set_held_max(trace_reader_t *t, uint64_t max_held);

/*
 * A gzip stream that stops short (or is damaged) is a read error naming
 * the line it stopped after.  With allow set, it is instead the end of
 * the trace, and one warning line naming the file and the line goes to
 * standard error (the tool's exit status no longer says it).
 */
void trace_allow_truncated(trace_reader_t *t, int allow);
/* More than 1 % late is not a failure (--allow-late; trace_late_failure). */
void     trace_allow_late(trace_reader_t *t, int allow);
uint64_t trace_late_count(const trace_reader_t *t);

/*
 * A log out of order: more than 1 % of its records came later than the
 * reorder window allows (and were clamped), which changes sessions,
 * gaps and any replay's schedule.  Unless allowed (--allow-late), the
 * reason in one line into buf ("N of M records of PATH (P %) ..."), else
 * NULL.  trace_late_why works on counts (several traces added up).
 */
const char *trace_late_failure(const trace_reader_t *t, const char *path,
                               char *buf, size_t len);
const char *trace_late_why(uint64_t late, uint64_t records, int allowed,
                           const char *path, char *buf, size_t len);

/*
 * Where a tool's trace comes from, as its command line says: every tool
 * takes the same options (TRACE_SRC_LONGOPTS in its getopt table, then
 * trace_src_option() for each option).  --log-format is --format under
 * the name nginx users look for: a preset or an nginx log_format string.
 */
typedef struct {
    const char *path;
    const char *format;
    const char *mapping;
    double      window;   /* < 0: TRACE_WINDOW_DEFAULT */
    uint64_t    held_max; /* 0: TRACE_HELD_DEFAULT */
    int         allow_truncated;
    int         allow_late; /* --allow-late */
    int         sort;       /* --sort: in time order first (sort.h) */
} trace_src_t;

#define TRACE_SRC_INIT                                                         \
    {                                                                          \
        NULL, "auto", NULL, -1, 0, 0, 0, 0                                     \
    }

/* getopt values of the long-only trace options (clear of any letter) */
#define TRACE_OPT_HELD  0x7001
#define TRACE_OPT_TRUNC 0x7002
#define TRACE_OPT_LATE  0x7003
#define TRACE_OPT_SORT  0x7004

#define TRACE_SRC_LONGOPTS                                                     \
    {"format", required_argument, NULL, 'f'},                                  \
        {"log-format", required_argument, NULL, 'f'},                          \
        {"mapping", required_argument, NULL, 'm'},                             \
        {"reorder-window", required_argument, NULL, 'W'},                      \
        {"reorder-max", required_argument, NULL, TRACE_OPT_HELD},              \
        {"allow-late", no_argument, NULL, TRACE_OPT_LATE},                     \
        {"sort", no_argument, NULL, TRACE_OPT_SORT},                           \
    {                                                                          \
        "allow-truncated", no_argument, NULL, TRACE_OPT_TRUNC                  \
    }

#define TRACE_SRC_USAGE                                                        \
    "      --format F        auto (default), combined, common, clf, json, "    \
    "wc98, nic,\n"                                                             \
    "                        libCacheSim's oracle (oracleGeneral) and "        \
    "lcs-csv\n"                                                                \
    "                        (time,obj_id,obj_size), or an nginx log_format\n" \
    "                        string ('$remote_addr ...')\n"                    \
    "      --log-format F    the same as --format\n"                           \
    "      --mapping FILE    WorldCup98 object mapping\n"                      \
    "      --reorder-window S  sort lines by time within S seconds "           \
    "(default 120; 0: log order)\n"                                            \
    "      --reorder-max N   hold at most N records for sorting "              \
    "(default 262144)\n"                                                       \
    "      --allow-truncated a gzip log cut short ends the trace "             \
    "(a warning),\n"                                                           \
    "                        not an error\n"                                   \
    "      --sort            put the trace in time order first, in "           \
    "--reorder-max\n"                                                          \
    "                        records of memory a run (temporary files in "     \
    "$TMPDIR)\n"                                                               \
    "      --allow-late      more than 1 %% of the records later than the "    \
    "window\n"                                                                 \
    "                        (clamped) is not an error\n"

/* 1: c was a trace option (applied), 0: not one, -1: bad value (err). */
int trace_src_option(trace_src_t *s, int c, const char *arg, char *err,
                     size_t errlen);

trace_reader_t *trace_src_open(const trace_src_t *s, char *err, size_t errlen);

/* The format in use ("clf", "wc98"). */
const char *trace_format(const trace_reader_t *t);

/*
 * How far through its input the reader is (0..1, by bytes of the file as
 * stored, so of the compressed file for gzip), or -1 when the input is
 * not a regular file.
 */
double trace_progress(const trace_reader_t *t);

/* Lines or records that did not parse, and the first few of them. */
uint64_t           trace_bad_count(const trace_reader_t *t);
const trace_bad_t *trace_bad_first(const trace_reader_t *t, int *n);

/*
 * A trace in which no record parsed, said in one line into buf: "no
 * record of PATH parsed (N lines did not; line 1 (date): \"...\"; the
 * wrong --format?)", the first failing line with the field that failed.
 * Returns buf.
 */
const char *trace_no_record_why(const trace_reader_t *t, const char *path,
                                char *buf, size_t len);

void trace_close(trace_reader_t *t);

/* --version of a trace tool: its name, the version, the compiled
 * features (gzip, through zlib) */
void trace_print_version(const char *prog);

#endif /* TRACE_READER_H */
