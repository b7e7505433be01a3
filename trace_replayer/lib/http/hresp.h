/*
 * An incremental HTTP/1.x response reader for the replayer: one response
 * at a time from a stream of pipelined responses.  Framing as RFC 9112
 * section 6.3 says: no body after HEAD and for 1xx, 204 and 304; chunked
 * transfer coding; Content-Length; otherwise the body runs to the
 * connection's end.  Interim 1xx responses are skipped.  Body bytes go to
 * a callback with their offset in the representation (a 206's
 * Content-Range start), so a caller can check them as they come.
 */

#ifndef TRACE_HRESP_H
#define TRACE_HRESP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HRESP_MAX_HEAD (64 * 1024) /* a longer head is an error */

enum {
    HRESP_HEAD = 0,
    HRESP_BODY_LENGTH,
    HRESP_BODY_EOF,
    HRESP_CHUNK_SIZE,
    HRESP_CHUNK_DATA,
    HRESP_CHUNK_CRLF,
    HRESP_TRAILER,
    HRESP_DONE
};

typedef struct {
    int      state;
    int      head_request; /* the request was HEAD */
    int      status;
    int      minor;      /* HTTP/1.minor */
    int      close;      /* the server will close after this response */
    uint64_t remaining;  /* of the body or the current chunk */
    uint64_t offset;     /* where the next body byte sits in the file */
    uint64_t body;       /* body bytes so far */
    uint64_t head_bytes; /* bytes of status line and headers */
    uint64_t length;     /* Content-Length (UINT64_MAX: none) */
    char     cookie[96]; /* the first Set-Cookie's value, cut to fit */
} hresp_t;

typedef void (*hresp_body_pt)(void *arg, uint64_t offset, const char *p,
                              size_t n);

void hresp_init(hresp_t *r, int head_request);

/*
 * Read from p[0..n): returns the bytes consumed (the caller keeps the rest
 * and calls again with more), or -1 when the response is malformed.  It
 * stops at the end of one response (state HRESP_DONE).  A head is only
 * consumed whole, so with less than a head buffered it returns 0.
 */
ssize_t hresp_feed(hresp_t *r, const char *p, size_t n, hresp_body_pt body,
                   void *arg);

/* The connection ended: 1 when that completes the response, else 0. */
int hresp_eof(hresp_t *r);

#endif /* TRACE_HRESP_H */
