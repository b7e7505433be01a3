/*
 * libCacheSim's own layouts, so one trace file runs through both tools:
 * each record a GET answered 200 with the object's size, for URL
 * "/object/ID", from no particular client.
 * oracleGeneral: 24 bytes little-endian: u32 time, u64 object id, u32
 * size, i64 the next access (ignored).  lcs-csv: "time,obj_id,obj_size"
 * lines, as libCacheSim's CSV reader is usually set.
 */

#include <stdio.h>
#include <stdlib.h>

#include "lib/formats/format.h"
#include "lib/formats/trace.h"

typedef struct {
    char url[32]; /* the record's "/object/ID" */
} lcs_state_t;

#define ORACLE_RECORD 24

static uint64_t
le(const unsigned char *p, int n)
{
    uint64_t v = 0;

    while (n-- > 0) {
        v = v << 8 | p[n];
    }
    return v;
}

static void
lcs_object(lcs_state_t *s, trace_req_t *r, int64_t time, uint64_t obj,
           uint64_t size)
{
    r->time = time;
    r->method = TRACE_GET;
    r->status = 200;
    r->bytes = size;
    r->bytes_known = 1;
    r->url_len = (size_t) snprintf(s->url, sizeof(s->url), "/object/%llu",
                                   (unsigned long long) obj);
    r->url = s->url;
}

static int
oracle_next(void *state, trace_input_t *in, trace_req_t *r, int *bad)
{
    unsigned char rec[ORACLE_RECORD];
    int           rc = trace_input_record(in, rec, sizeof(rec), bad);

    if (rc != 1) {
        return rc;
    }
    lcs_object(state, r, (int64_t) le(rec, 4), le(rec + 4, 8), le(rec + 12, 4));
    return 1;
}

/* libCacheSim's CSV reader's usual layout: "time,obj_id,obj_size" (a
 * header line that does not start with a digit is skipped) */
static int
lcs_csv_next(void *state, trace_input_t *in, trace_req_t *r, int *bad)
{
    size_t             len;
    int                rc;
    char              *p, *end;
    long long          time;
    unsigned long long obj, size;

    for (;;) {
        rc = trace_input_line(in, &len);
        if (rc <= 0) {
            return rc;
        }
        in->line[len] = '\0';
        p = in->line;
        if (len == 0 || (in->lineno == 1 && (*p < '0' || *p > '9'))) {
            continue; /* a header, or an empty line */
        }
        break;
    }
    time = strtoll(p, &end, 10);
    if (end == p || *end != ',') {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    p = end + 1;
    obj = strtoull(p, &end, 10);
    if (end == p || *end != ',') {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    p = end + 1;
    size = strtoull(p, &end, 10);
    if (end == p || (*end != '\0' && *end != ',' && *end != '\r')) {
        *bad = TRACE_ERR_FIELDS;
        return -2;
    }
    lcs_object(state, r, (int64_t) time, obj, size);
    return 1;
}

static void *
lcs_open(trace_input_t *in, const trace_format_args_t *a, char *err,
         size_t errlen)
{
    lcs_state_t *s = calloc(1, sizeof(*s));

    (void) in;
    (void) a;
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
    }
    return s;
}

static void
lcs_close(void *state)
{
    free(state);
}

const trace_format_t trace_format_oracle = {
    "oracle", NULL, lcs_open, oracle_next, lcs_close, 0, 0};
const trace_format_t trace_format_lcs_csv = {
    "lcs-csv", NULL, lcs_open, lcs_csv_next, lcs_close, 1, 0};
