/*
 * Fuzz target: log lines in the formats of trace_fmt.c.  The first byte
 * picks JSON lines or one of two nginx log_format strings (the second
 * with $uri and $args, $msec and $request_time); the rest is the line.
 * Whatever the bytes, the parser returns a result, and a parsed record
 * is one the tools can use: a status of three digits, a URL of the
 * length it says, microseconds below a second.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const templates[] = {
    "$remote_addr - $remote_user [$time_local] \"$request\" $status "
    "$body_bytes_sent \"$http_referer\" \"$http_user_agent\" $request_time",
    "$msec $remote_addr $request_method $uri?$args $status $bytes_sent "
    "$request_time",
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static trace_fields_t *parsers[3];
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
        if (parsers[0] == NULL || parsers[1] == NULL || parsers[2] == NULL) {
            abort();
        }
    }
    which = data[0] % 3;
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
