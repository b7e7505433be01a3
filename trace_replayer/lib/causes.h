/*
 * Errors counted by cause, as wrk's "Socket errors: connect N" and
 * vegeta's error texts give them: each row a step that failed ("connect",
 * "read", "response") and why (the system's reason for errno, or a phrase
 * of the caller's), with how often.  The load tools (nicreplay, nicload)
 * keep one table a run; their summaries, progress lines and JSON print it.
 */

#ifndef TRACE_CAUSES_H
#define TRACE_CAUSES_H

#include <stdint.h>
#include <stdio.h>

#define CAUSES_MAX 16

typedef struct {
    char     what[24]; /* the step that failed */
    int      err;      /* errno, or 0 */
    char     why[96];  /* with err 0: the reason */
    uint64_t n;
} cause_t;

typedef struct {
    cause_t  row[CAUSES_MAX];
    int      n;
    uint64_t other; /* past CAUSES_MAX different causes */
    uint64_t total;
} causes_t;

/* Count one: what failed, with errno err (0: why says it); the texts
 * are copied (cut to the row's room). */
const cause_t *causes_add(causes_t *c, const char *what, int err,
                          const char *why);
/* ... n of them (a merge of runs' tables).  Both return the row counted
 * (NULL: past CAUSES_MAX, counted as other). */
const cause_t *causes_add_n(causes_t *c, const char *what, int err,
                            const char *why, uint64_t n);

/* The reason of a row: strerror(err), or why. */
const char *causes_reason(const cause_t *r);

/*
 * The causes, most frequent first, as "connect: Connection refused 644,
 * read: Connection reset by peer 2" into buf (at most max rows, then
 * "and N more"); "none" when there are none.  Returns buf.
 */
const char *causes_format(const causes_t *c, int max, char *buf, size_t len);

/* As a JSON array: [{"what": ..., "reason": ..., "count": N}, ...]. */
void causes_json(const causes_t *c, FILE *f);

#endif /* TRACE_CAUSES_H */
