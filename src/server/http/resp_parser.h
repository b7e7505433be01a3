/*
 * An upstream's response head (RFC 9112), as a proxy reads it: the
 * status line and the header fields, with what framing they give.  The
 * head is looked for whole (its end, an empty line) and then parsed in
 * one pass; a head longer than the caller's bound is an error, as
 * nginx's proxy_buffer_size makes it.
 */

#ifndef NICD_RESP_PARSER_H
#define NICD_RESP_PARSER_H

#include <stddef.h>
#include <stdint.h>

#define NICD_RESP_MAX_HEADERS 100

enum {
    NICD_RESP_DONE = 0,
    NICD_RESP_AGAIN,
    NICD_RESP_TOO_BIG, /* "upstream sent too big header" */
    NICD_RESP_INVALID  /* why: p->error */
};

typedef struct {
    uint32_t noff, nlen, voff, vlen; /* in the buffer given */
} nicd_resp_field_t;

typedef struct {
    int               status;   /* 100..999 */
    int               version;  /* 10 or 11 */
    uint32_t          head_len; /* bytes of the head, its empty line too */
    uint32_t          scanned;  /* where the search for its end goes on */
    int               nheaders;
    nicd_resp_field_t h[NICD_RESP_MAX_HEADERS];
    int64_t           content_length; /* -1: none */
    unsigned          chunked : 1;
    unsigned          conn_close : 1;     /* Connection: close */
    unsigned          conn_keepalive : 1; /* Connection: keep-alive */
    unsigned          conn_upgrade : 1;   /* Connection: upgrade */
    const char       *error; /* NICD_RESP_INVALID's reason, nginx's words */
} nicd_resp_t;

/* p ready for a new response (every field zero, no length) */
void nicd_resp_init(nicd_resp_t *p);

/*
 * Look for the head in buf[0..len) (the same buffer, grown, on each
 * call), at most max bytes: NICD_RESP_DONE (p filled), _AGAIN, _TOO_BIG
 * or _INVALID.
 */
int nicd_resp_parse(nicd_resp_t *p, const char *buf, size_t len, size_t max);

/* 1 when field i's name (of buf) is name (len bytes, any case) */
int nicd_resp_is(const nicd_resp_t *p, const char *buf, int i, const char *name,
                 size_t len);

#endif /* NICD_RESP_PARSER_H */
