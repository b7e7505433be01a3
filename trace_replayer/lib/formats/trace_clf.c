/*
 * Common Log Format and Combined lines.
 *
 * The request field is quoted but real logs put quotes (and anything
 * else) inside it, so its end is found from what must follow it: a quote,
 * a space, a three-digit status, a space, digits or "-", then the end of
 * the line or a space (the Combined fields).  The first such place after
 * the opening quote wins.
 */

#include <string.h>

#include "util/civil.h"
#include "util/hash.h"
#include "lib/formats/format.h"
#include "lib/formats/trace.h"

static const char *const errs[] = {
    "ok", "fields", "date", "request", "status", "bytes",
};

const char *
trace_err_str(int err)
{
    return err >= 0 && err <= TRACE_ERR_BYTES ? errs[err] : "unknown";
}

static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

static int
digits(const char *p, int n, int *out)
{
    int i, v = 0;

    for (i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return -1;
        }
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

/* "01/Jul/1995:00:00:01 -0400" (26 characters) to UTC seconds */
int
trace_clf_date(const char *p, size_t len, int64_t *out)
{
    const char *m;
    int         d, mon, y, hh, mm, ss, zh, zm;

    if (len != 26 || p[2] != '/' || p[6] != '/' || p[11] != ':' || p[14] != ':'
        || p[17] != ':' || p[20] != ' ' || (p[21] != '+' && p[21] != '-')) {
        return -1;
    }
    if (digits(p, 2, &d) || digits(p + 7, 4, &y) || digits(p + 12, 2, &hh)
        || digits(p + 15, 2, &mm) || digits(p + 18, 2, &ss)
        || digits(p + 22, 2, &zh) || digits(p + 24, 2, &zm)) {
        return -1;
    }
    for (m = months, mon = 1; *m != '\0'; m += 3, mon++) {
        if (memcmp(m, p + 3, 3) == 0) {
            break;
        }
    }
    if (*m == '\0' || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60
        || zh > 23 || zm > 59) {
        return -1;
    }
    *out = nicache_days_from_civil(y, mon, d) * 86400 + hh * 3600 + mm * 60 + ss
           - (p[21] == '-' ? -1 : 1) * (zh * 3600 + zm * 60);
    return 0;
}

/* Does "<q> DDD (digits|-)" followed by the end or a space start at p? */
static int
request_end_at(const char *p, const char *end)
{
    const char *q;

    if (end - p < 7 || p[0] != '"' || p[1] != ' ' || p[2] < '1' || p[2] > '5'
        || p[3] < '0' || p[3] > '9' || p[4] < '0' || p[4] > '9'
        || p[5] != ' ') {
        return 0;
    }
    q = p + 6;
    if (*q == '-') {
        q++;
    } else {
        while (q < end && *q >= '0' && *q <= '9') {
            q++;
        }
        if (q == p + 6) {
            return 0;
        }
    }
    return q == end || *q == ' ';
}

/*
 * No quote-status-bytes after the request: say which of the last two
 * fields is wrong (for a CLF line; a Combined one gets "fields").
 */
static int
diagnose(const char *req, const char *end)
{
    const char *t = end, *s;
    int         status;

    while (t > req && t[-1] != ' ') {
        t--;
    }
    s = t - 1;
    while (s > req && s[-1] != ' ') {
        s--;
    }
    if (t == req || s <= req || s[-2] != '"') {
        return TRACE_ERR_FIELDS;
    }
    if (t - s != 4 || digits(s, 3, &status) != 0) {
        return TRACE_ERR_STATUS;
    }
    return TRACE_ERR_BYTES;
}

int
trace_request_parse(const char *req, size_t len, trace_req_t *r)
{
    const char *q = req + len, *meth_end, *sp;

    /* METHOD SP target [SP protocol] */
    meth_end = memchr(req, ' ', len);
    if (meth_end == NULL || meth_end == req) {
        return -1;
    }
    r->url = meth_end + 1;
    sp = r->url;
    while (sp < q && *sp != ' ') {
        sp++;
    }
    if (sp == r->url) {
        return -1;
    }
    r->url_len = (size_t) (sp - r->url);
    r->has_protocol = sp < q && q - sp > 5 && memcmp(sp + 1, "HTTP/", 5) == 0;
    r->method = trace_method(req, (size_t) (meth_end - req));
    return 0;
}

int
trace_method(const char *m, size_t n)
{
    if (n == 3 && memcmp(m, "GET", 3) == 0) {
        return TRACE_GET;
    }
    if (n == 4 && memcmp(m, "HEAD", 4) == 0) {
        return TRACE_HEAD;
    }
    if (n == 4 && memcmp(m, "POST", 4) == 0) {
        return TRACE_POST;
    }
    return TRACE_OTHER;
}

int
trace_clf_parse(const char *line, size_t len, trace_req_t *r)
{
    const char *end = line + len, *p, *host_end, *lb, *rb, *q, *req;
    uint64_t    bytes;
    int         status;

    while (end > line && (end[-1] == '\r' || end[-1] == ' ')) {
        end--;
    }

    host_end = memchr(line, ' ', (size_t) (end - line));
    lb = memchr(line, '[', (size_t) (end - line));
    if (host_end == NULL || host_end == line || lb == NULL || lb < host_end) {
        return TRACE_ERR_FIELDS;
    }
    rb = memchr(lb, ']', (size_t) (end - lb));
    if (rb == NULL) {
        return TRACE_ERR_FIELDS;
    }
    if (trace_clf_date(lb + 1, (size_t) (rb - lb - 1), &r->time) != 0) {
        return TRACE_ERR_DATE;
    }
    if (end - rb < 3 || rb[1] != ' ' || rb[2] != '"') {
        return TRACE_ERR_FIELDS;
    }
    req = rb + 3;

    for (q = req; q < end; q++) {
        if (*q == '"' && request_end_at(q, end)) {
            break;
        }
    }
    if (q >= end) {
        return diagnose(req, end);
    }

    /* q: the closing quote; then " DDD bytes" */
    if (digits(q + 2, 3, &status) != 0) {
        return TRACE_ERR_STATUS;
    }
    p = q + 6;
    bytes = 0;
    r->bytes_known = *p != '-';
    while (p < end && *p >= '0' && *p <= '9') {
        if (bytes > (UINT64_MAX - 9) / 10) {
            return TRACE_ERR_BYTES;
        }
        bytes = bytes * 10 + (uint64_t) (*p - '0');
        p++;
    }

    if (trace_request_parse(req, (size_t) (q - req), r) != 0) {
        return TRACE_ERR_REQUEST;
    }
    r->status = status;
    r->bytes = bytes;
    r->client = nicache_fnv1a64(line, (size_t) (host_end - line));
    return TRACE_OK;
}

/* ---- the format as the reader reads it (format.h) ---- */

static int
clf_probe(const unsigned char *p, size_t n)
{
    size_t i;

    /* printable text with a "[" and a quote on its first line */
    for (i = 0; i < n && p[i] != '\n'; i++) {
        if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\r') {
            return 0;
        }
    }
    return memchr(p, '[', i) != NULL && memchr(p, '"', i) != NULL;
}

static int
clf_next(void *state, trace_input_t *in, trace_req_t *r, int *bad)
{
    size_t len;
    int    rc = trace_input_line(in, &len);

    (void) state;
    if (rc != 1) {
        return rc;
    }
    *bad = trace_clf_parse(in->line, len, r);
    return *bad == TRACE_OK ? 1 : -2;
}

const trace_format_t trace_format_clf = {"clf", clf_probe, NULL, clf_next,
                                         NULL,  1,         0};
