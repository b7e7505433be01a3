/*
 * Web access-log traces: one request record, whatever the format it came
 * from.  Shared by nictrace, nicreplay and nicsim.
 */

#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>
#include <stdint.h>

enum {
    TRACE_GET = 0,
    TRACE_HEAD,
    TRACE_POST,
    TRACE_OTHER /* any other method: counted, not replayed */
};

typedef struct {
    int64_t     time;   /* seconds since the epoch, UTC */
    uint64_t    client; /* a key for the client (host or client id) */
    int         method;
    const char *url; /* the request target, as logged */
    size_t      url_len;
    int         status;
    uint64_t    bytes; /* response bytes; 0 when unknown ("-") */
    int         bytes_known;
    int         has_protocol; /* "HTTP/x.y" was logged */
} trace_req_t;

/* Why a line did not parse (0: it did). */
enum {
    TRACE_OK = 0,
    TRACE_ERR_FIELDS, /* not host ident user [date] "request" status bytes */
    TRACE_ERR_DATE,
    TRACE_ERR_REQUEST, /* no method and target inside the quotes */
    TRACE_ERR_STATUS,
    TRACE_ERR_BYTES
};

const char *trace_err_str(int err);

/*
 * Parse one Common Log Format or Combined line (without its newline):
 *   host ident authuser [dd/Mon/yyyy:hh:mm:ss +zzzz] "request" status bytes
 *   [ "referer" "user-agent" ]
 * What real logs do is accepted: a request without a protocol ("GET /"),
 * "-" for the byte count, quotes inside the request (the request ends at
 * the last quote followed by a status and a byte count), any method.
 * r->url points into line.  Returns TRACE_OK or a TRACE_ERR_* value.
 */
int trace_clf_parse(const char *line, size_t len, trace_req_t *r);

#endif /* TRACE_H */
