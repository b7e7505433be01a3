/*
 * An incremental HTTP/1.1 request-head parser (RFC 9112, section 2-5).
 *
 * It works over the connection's read buffer without copying: every
 * result is an offset and a length from the start of the request.  Call
 * nicd_http_parse() each time more bytes arrive; it resumes where it
 * stopped, so the buffer may move (realloc, memmove) between calls as long
 * as the request's bytes keep their relative positions.
 */

#ifndef NICD_HTTP_PARSER_H
#define NICD_HTTP_PARSER_H

#include <stddef.h>
#include <stdint.h>

#define NICD_HTTP_DONE  0
#define NICD_HTTP_AGAIN -2
/* any other return value is the HTTP status to answer with */

#define NICD_HTTP_MAX_HEADERS 100

enum {
    NICD_M_UNKNOWN = 0,
    NICD_M_GET,
    NICD_M_HEAD,
    NICD_M_POST,
    NICD_M_PUT,
    NICD_M_DELETE,
    NICD_M_OPTIONS,
    NICD_M_TRACE,
    NICD_M_CONNECT,
    NICD_M_PATCH
};

typedef struct {
    uint32_t off;
    uint32_t len;
} nicd_span_t;

typedef struct {
    nicd_span_t name;
    nicd_span_t value; /* without leading and trailing whitespace */
} nicd_header_t;

typedef struct {
    /* limits (set before the first call) */
    uint32_t max_line;  /* request line; longer gets 414 */
    uint32_t max_field; /* one header line; longer gets 431 */
    uint32_t max_head;  /* the whole head; longer gets 431 */

    /* parser state */
    int      state;
    uint32_t pos;        /* bytes examined */
    uint32_t line_start; /* start of the current line */
    uint32_t mark;       /* start of the token being read */
    uint32_t value_end;  /* end of a header value without trailing OWS */

    /* the request line */
    int         method;
    nicd_span_t method_s;
    nicd_span_t line;      /* the request line without CRLF ($request) */
    nicd_span_t target;    /* as sent */
    nicd_span_t path;      /* the target's path, still percent-encoded */
    nicd_span_t query;     /* after '?', may be empty */
    nicd_span_t authority; /* from an absolute-form target, else len 0 */
    int         version;   /* 10 for HTTP/1.0, 11 for HTTP/1.1 and later 1.x */

    nicd_header_t headers[NICD_HTTP_MAX_HEADERS];
    int           nheaders;

    uint32_t head_len; /* bytes of the head, including the empty line */

    /* filled by nicd_http_parse() when the head is complete */
    int      keepalive;       /* per version and Connection */
    int      has_body;        /* Content-Length > 0 or Transfer-Encoding */
    int      chunked;         /* Transfer-Encoding present */
    int      expect_continue; /* Expect: 100-continue */
    uint64_t content_length;
    int      h_host, h_if_none_match, h_if_modified_since, h_if_match,
        h_if_unmodified_since, h_range, h_if_range, h_referer, h_user_agent,
        h_accept_encoding, h_authorization; /* index into headers, or -1 */
    int odd_names; /* a name has a byte other than a letter, a digit or '-'
                      ('_', '.', ...): nicd_head_filter() */
} nicd_http_req_t;

/* Set the limits of p and make it ready for a first request. */
void nicd_http_req_init(nicd_http_req_t *p, uint32_t max_line,
                        uint32_t max_field, uint32_t max_head);

/* 1 when a field name (len bytes) has a byte other than a letter, a digit
 * or '-' (or '_' with underscores): nginx's invalid_header */
int nicd_http_name_odd(const char *name, size_t len, int underscores);

/* Reset p for a new request (keeps the limits). */
void nicd_http_req_reset(nicd_http_req_t *p);

/* NICD_M_* of a method's name (NICD_M_UNKNOWN for others), and back. */
int nicd_http_method(const char *name, size_t len);
/* 1 when name (len bytes, at least one) is made of a method's characters
 * as nginx takes them: upper-case letters, "_" and "-" */
int         nicd_http_method_valid(const char *name, size_t len);
const char *nicd_http_method_name(int method);

/*
 * Parse the request head in buf[0..len).  Returns NICD_HTTP_DONE when the
 * head is complete (p->head_len bytes), NICD_HTTP_AGAIN when more bytes
 * are needed, or an HTTP status code (400, 414, 431, 501, 505) when the
 * request is malformed or too large.
 */
int nicd_http_parse(nicd_http_req_t *p, const char *buf, size_t len);

/*
 * Skipping a chunked request body (RFC 9112, section 7.1): nicd reads no
 * request bodies, but it must find where one ends to keep the connection
 * in step.  Chunk extensions and trailer fields are read and dropped.
 */
typedef struct {
    int      state;
    uint64_t left;  /* data bytes left in the current chunk */
    uint64_t total; /* data bytes seen so far */
    uint32_t line;  /* length of the current size or trailer line */
} nicd_chunked_t;

/*
 * Consume body bytes from buf[0..len); *used says how many.  Returns
 * NICD_HTTP_DONE when the body (trailers included) has ended,
 * NICD_HTTP_AGAIN when all of buf was consumed and more is needed, or 400
 * when the framing is invalid (a bad size, a line longer than 4 KiB).
 */
int nicd_http_chunked_skip(nicd_chunked_t *s, const char *buf, size_t len,
                           size_t *used);

/*
 * The same, reading (a proxied response's body): it stops after the
 * first data bytes it meets, which *data and *dlen give (*dlen 0: none
 * in what it consumed), returning NICD_HTTP_AGAIN; call it again with
 * the rest of buf.
 */
int nicd_http_chunked_read(nicd_chunked_t *s, const char *buf, size_t len,
                           size_t *used, const char **data, size_t *dlen);

#endif /* NICD_HTTP_PARSER_H */
