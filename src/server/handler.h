/*
 * Requests and responses as the handlers see them, whatever the protocol
 * (HTTP/1.1 today, HTTP/2 next) and the transport (plain TCP or TLS).
 *
 * The shape follows h2o's split of protocol, handler and generator and
 * nginx's handlers: a protocol parses bytes into a nicd_request_t and
 * calls nicd_handle(); a handler answers through the connection's
 * protocol with the nicd_resp_*() calls below, in this order:
 *
 *   nicd_resp_start(c, status)            the status (and Server, Date)
 *   nicd_resp_header(c, name, value) ...  any number of header fields
 *   nicd_resp_end_headers(c)
 *   nicd_resp_body_mem / _file ...        the body, in pieces, in order
 *   nicd_resp_finish(c, status)           the response is complete
 *
 * A body piece is memory (copied: the handler's buffer may go away) or a
 * range of an open file (left to the send backend, zero copy where the
 * transport allows).  Handlers decide what a HEAD gets (no body pieces);
 * the protocol frames (Content-Length is the handler's, Connection and
 * chunking the protocol's) and serialises.
 *
 * Handlers (one file each): static.c (files, directories, listings),
 * report.c (the send backend's counters); handler.c dispatches and makes
 * the error pages.
 */

#ifndef NICD_HANDLER_H
#define NICD_HANDLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nicd.h"

/* the request header fields handlers read */
enum {
    NICD_HDR_RANGE = 0,
    NICD_HDR_IF_RANGE,
    NICD_HDR_IF_MATCH,
    NICD_HDR_IF_NONE_MATCH,
    NICD_HDR_IF_MODIFIED_SINCE,
    NICD_HDR_IF_UNMODIFIED_SINCE,
    NICD_NHDR
};

typedef struct nicd_request_s {
    int        method; /* NICD_M_* */
    nicd_str_t path;   /* the target's path as sent (percent-encoded) */
    nicd_str_t query;  /* after '?'; len 0: none */
    nicd_str_t hdr[NICD_NHDR];
    /* every header field as sent (the Lua handler's), nheaders of them */
    const nicd_str_t *hname, *hvalue;
    int               nheaders;
    nicd_str_t        body; /* the request body (p NULL: none) */
} nicd_request_t;

/*
 * A protocol's response operations (all mandatory).  header() values are
 * copied; body_mem() bytes too.
 */
struct nicd_protocol_s {
    const char *name;
    void (*start)(nicd_conn_t *c, int status);
    void (*header)(nicd_conn_t *c, const char *name, size_t nlen,
                   const char *value, size_t vlen);
    void (*end_headers)(nicd_conn_t *c);
    void (*body_mem)(nicd_conn_t *c, const char *p, size_t len);
    void (*body_file)(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len);
    void (*finish)(nicd_conn_t *c, int status);
};

extern const nicd_protocol_t nicd_http1;

static inline void
nicd_resp_start(nicd_conn_t *c, int status)
{
    c->proto->start(c, status);
}

static inline void
nicd_resp_header(nicd_conn_t *c, const char *name, size_t nlen,
                 const char *value, size_t vlen)
{
    c->proto->header(c, name, nlen, value, vlen);
}

/* a header with a literal name: NICD_RESP_HEADER(c, "ETag", v, len) */
#define NICD_RESP_HEADER(c, name, v, len)                                      \
    nicd_resp_header((c), name, sizeof(name) - 1, (v), (len))

static inline void
nicd_resp_end_headers(nicd_conn_t *c)
{
    c->proto->end_headers(c);
}

static inline void
nicd_resp_body_mem(nicd_conn_t *c, const char *p, size_t len)
{
    c->proto->body_mem(c, p, len);
}

static inline void
nicd_resp_body_file(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len)
{
    c->proto->body_file(c, f, off, len);
}

static inline void
nicd_resp_finish(nicd_conn_t *c, int status)
{
    c->proto->finish(c, status);
}

/* This thread's Date header value and access log date of the current
 * second, formatted once a second (http.c). */
const char *nicd_date_http(void);
const char *nicd_date_log(void);

/* A header whose value is a number. */
void nicd_resp_header_u64(nicd_conn_t *c, const char *name, size_t nlen,
                          uint64_t v);

/* Answer r: method, path, locations, files (handler.c). */
void nicd_handle(nicd_conn_t *c, const nicd_request_t *r);

/*
 * An error page (or a redirect, with location) for status; head: no body.
 */
void nicd_respond_error(nicd_conn_t *c, int status, int head,
                        const char *location, size_t location_len);

/* The reason phrase of status ("Not Found"). */
const char *nicd_status_reason(int status);

/* errno of a failed open of path to a status (logged where it says so) */
int nicd_open_status(nicd_conn_t *c, int err, const char *path);

/* static.c: a file, a directory */
void nicd_static_file(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *f);
void nicd_static_directory(nicd_conn_t *c, const nicd_request_t *r,
                           nicd_file_t *dir, const char *path, size_t len);

/*
 * lua.c: a request for the Lua location loc (an index in the
 * configuration's locations), answered by its script's function.
 */
void nicd_lua_handle(nicd_conn_t *c, const nicd_request_t *r, int loc);
/* A worker's Lua state: made with the scripts loaded when the worker
 * starts (if the configuration has Lua locations), freed at its end. */
void nicd_lua_worker_init(nicd_worker_t *w);
void nicd_lua_worker_free(nicd_worker_t *w);

/*
 * The Lua location (its index) that answers the normalised form of path,
 * or -1: a request with a body for it is read whole first (http.c).
 */
int nicd_lua_location(nicd_conn_t *c, const char *path, size_t len);

/* report.c: a location's report of the send backend's counters */
void nicd_report(nicd_conn_t *c, const nicd_request_t *r,
                 const nicd_location_t *loc);

#endif /* NICD_HANDLER_H */
