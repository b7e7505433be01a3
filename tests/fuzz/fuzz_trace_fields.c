/*
 * Fuzz target: log lines in the formats of trace_fmt.c.  The first byte
 * picks JSON lines, one of two nginx log_format strings (the second with
 * $uri and $args, $msec and $request_time), a ${time LAYOUT} one with a
 * separator of three bytes, or (5) the rest as a log_format string to
 * compile and, when it compiles, a line of its own to read with it.
 * Whatever the bytes, the parser returns a result, and a parsed record
 * is one the tools can use: a status of three digits, a URL of the
 * length it says, microseconds below a second.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/formats/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const templates[] = {
    "$remote_addr - $remote_user [$time_local] \"$request\" $status "
    "$body_bytes_sent \"$http_referer\" \"$http_user_agent\" $request_time",
    "$msec $remote_addr $request_method $uri?$args $status $bytes_sent "
    "$request_time",
    "${time %Y-%m-%d %I:%M%p}|&|$request_method|&|$request_uri|&|$status|&|"
    "$body_bytes_sent",
};

/* the input as a log_format string up to its first newline, the rest as
 * a line read with it */
static void
compile_and_read(const char *p, size_t n)
{
    const char     *nl = memchr(p, '\n', n);
    size_t          k = nl != NULL ? (size_t) (nl - p) : n;
    char           *fmt = malloc(k + 1), err[256];
    trace_fields_t *t;
    trace_req_t     r;

    if (fmt == NULL) {
        return;
    }
    memcpy(fmt, p, k);
    fmt[k] = '\0';
    t = trace_fields_template(fmt, err, sizeof(err));
    free(fmt);
    if (t == NULL) {
        return;
    }
    memset(&r, 0, sizeof(r));
    if (nl != NULL) {
        (void) trace_fields_parse(t, nl + 1, n - k - 1, &r);
    }
    trace_fields_free(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static trace_fields_t *parsers[4];
    char                   err[256];
    trace_req_t            r;
    trace_fields_t        *t;
    int                    which;

    if (size == 0) {
        return 0;
    }
    if (parsers[0] == NULL) {
        parsers[0] = trace_fields_json();
        parsers[1] = trace_fields_template(templates[0], err, sizeof(err));
        parsers[2] = trace_fields_template(templates[1], err, sizeof(err));
        parsers[3] = trace_fields_template(templates[2], err, sizeof(err));
        if (parsers[0] == NULL || parsers[1] == NULL || parsers[2] == NULL
            || parsers[3] == NULL) {
            abort();
        }
    }
    which = data[0] % 5;
    if (which == 4) {
        compile_and_read((const char *) data + 1, size - 1);
        return 0;
    }
    t = parsers[which];
    memset(&r, 0, sizeof(r));
    if (trace_fields_parse(t, (const char *) data + 1, size - 1, &r) == TRACE_OK
        && (r.url == NULL || r.status < 0 || r.status > 999 || r.usec >= 1000000
            || memchr(r.url, 0, 0) != NULL)) {
        abort();
    }
    if (r.url != NULL && r.url_len > 0) {
        volatile char c = r.url[r.url_len - 1]; /* in bounds (ASan) */

        (void) c;
    }
    return 0;
}
