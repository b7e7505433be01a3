/*
 * What a trace format gives the reader (reader.c) and what the reader
 * gives it; for the files of lib/formats/ alone.  Each format's file
 * exports one trace_format_t: how to recognise its first bytes, the
 * state it keeps for one trace (made by open, freed by close), and how to
 * read the next record from the input the reader owns.
 */

#ifndef TRACE_FORMAT_H
#define TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "lib/formats/trace.h"

/* the input of one trace: a plain or gzip file, or standard input */
typedef struct {
    gzFile   f;
    char    *line;   /* text formats: the line last read (a bad one's
                        text is shown from it) */
    size_t   size;   /* of line */
    uint64_t lineno; /* lines or records read */
} trace_input_t;

/* The next line without its newline, of any length, into in->line (NUL
 * at *len): 1, 0 at the end, -1 a read error or a damaged gzip stream. */
int trace_input_line(trace_input_t *in, size_t *len);

/* One fixed-size binary record into rec: 1, 0 at the end, -1 a read
 * error, -2 a truncated last record (*bad set). */
int trace_input_record(trace_input_t *in, unsigned char *rec, int size,
                       int *bad);

/* what a format may need to open a trace */
typedef struct {
    const char *path;    /* for messages */
    const char *layout;  /* log_format: the string with $ */
    const char *mapping; /* wc98: the object mappings file, or NULL */
} trace_format_args_t;

typedef struct trace_format_s {
    const char *name;
    /* do these first bytes look like this format?  NULL: named only */
    int (*probe)(const unsigned char *p, size_t n);
    /* the format's state for one trace, the input at its start: NULL
     * with err set on failure.  NULL: the format keeps no state (next
     * gets NULL) */
    void *(*open)(trace_input_t *in, const trace_format_args_t *a, char *err,
                  size_t errlen);
    /* 1, 0 at the end, -1 a read error or a damaged trace, -2 this line
     * or record is bad (*bad set); r->url stays valid until the next
     * call */
    int (*next)(void *state, trace_input_t *in, trace_req_t *r, int *bad);
    void (*close)(void *state); /* NULL state allowed */
    unsigned text : 1;          /* read a line at a time */
    unsigned ordered : 1;       /* records in time order by construction */
} trace_format_t;

extern const trace_format_t trace_format_clf;        /* trace_clf.c */
extern const trace_format_t trace_format_json;       /* trace_fmt.c */
extern const trace_format_t trace_format_log_format; /* trace_fmt.c */
extern const trace_format_t trace_format_wc98;       /* trace_wc98.c */
extern const trace_format_t trace_format_nic;        /* trace_nic.c */
extern const trace_format_t trace_format_oracle;     /* trace_lcs.c */
extern const trace_format_t trace_format_lcs_csv;    /* trace_lcs.c */

#endif
