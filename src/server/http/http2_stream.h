/*
 * HTTP/2's streams, shared by http2.c (the session and the responses)
 * and http2_request.c (a stream's request as its header fields come):
 * private to the two, over the session of http2_session.h.
 */

#ifndef NICD_HTTP2_STREAM_H
#define NICD_HTTP2_STREAM_H

#include "server/http/handler.h"
#include "server/http/http2_session.h"

#define MAX_RESP_HEADERS 64 /* (a proxied response's fields) */

/* a piece of a response body: memory (in the stream's body buffer) or a
 * range of an open file */
typedef struct {
    nicd_file_t *f; /* NULL: memory */
    off_t        off;
    size_t       len;
} piece_t;

typedef struct h2_stream_s {
    /* kept, emptied, when the stream is recycled */
    nicd_buf_t rq;      /* the request's header values, by offset */
    nicd_buf_t reqbody; /* DATA of the request */
    nicd_buf_t rh;      /* the response's header names and values */
    nicd_buf_t body;    /* memory pieces of the response */
    piece_t   *pieces;
    int        cap;

    /* cleared for each stream: from id to the arrays below */
    int32_t             id;
    struct h2_stream_s *next, *prev;
    int                 method;
    size_t              path_off, path_len, query_off, query_len;
    size_t              ref_off, ref_len, ua_off, ua_len;
    int                 has_path, has_hdr[NICD_NHDR], has_ref, has_ua;
    int                 has_auth; /* :authority came (hdr[HOST] holds it) */
    size_t              header_bytes;
    size_t              field_bytes; /* names and values, as nginx counts */
    nicd_ev_t          *delay;       /* a delayed request's timer, or NULL */
    nicd_conn_t        *conn;        /* ... and whose stream it is */
    int                 resumed;     /* answered again after its delay */
    int                 suspended;   /* answered later (nicd_req_suspend) */
    nicd_request_t      view;        /* ... its request meanwhile */
    const char         *bad; /* why nginx refuses its request (400), or NULL */
    uint64_t            length;   /* $request_length: frame payloads */
    long                start_ms; /* its HEADERS came ($request_time) */
    int                 nall;     /* regular request header fields */
    int                 cookie;   /* 1 + the index of the one Cookie
                                          field its fields are joined in */
    int   odd_names;    /* a name not only letters, digits, '-' (head.h) */
    char *uri;          /* $uri for the access log, or NULL */
    nicd_log_sel_t log; /* the logs that take it ... */
    unsigned       log_chosen; /* ... chosen (answer time) */
    int            status;
    int            nh; /* response header fields */
    int            npieces, cur;
    size_t         cur_off;   /* sent of pieces[cur] */
    uint64_t       remaining; /* not yet handed to a DATA frame */
    size_t         chunk;     /* the largest DATA frame */
    uint64_t       sent;      /* body bytes queued, for the access log */
    int            ready;     /* the request is complete, not answered */
    int            answered;
    uint32_t       vseq; /* the worker's vseq while it was answered: its
                      variables' kept values are still there if equal */
    nicd_req_t     req;  /* the request at hand while answered */

    /* read only below the counts above (hdr_off: where has_hdr is set) */
    size_t hdr_off[NICD_NHDR], hdr_len[NICD_NHDR];
    /* every regular header field (for the Lua handler) */
    size_t all_noff[NICD_MAX_HEADERS], all_nlen[NICD_MAX_HEADERS];
    size_t all_voff[NICD_MAX_HEADERS], all_vlen[NICD_MAX_HEADERS];
    size_t hn_off[MAX_RESP_HEADERS], hn_len[MAX_RESP_HEADERS];
    size_t hv_off[MAX_RESP_HEADERS], hv_len[MAX_RESP_HEADERS];
} h2_stream_t;

struct nicd_h2_s {
    nicd_h2s_t  *s;
    h2_stream_t *streams;
    h2_stream_t *cur;  /* the stream a handler is answering */
    h2_stream_t *last; /* the newest stream: its headers are arriving */
    int          failed;
    int          refused;      /* streams refused for the concurrency limit */
    int          delayed;      /* streams waiting for a phase's delay */
    int          going;        /* our GOAWAY for keepalive_* was sent */
    int          said;         /* the client's error is logged */
    int32_t      partial;      /* the stream of a HEADERS, CONTINUATION or
                             DATA frame begun, not yet ended; 0: none */
    int          partial_data; /* ... a DATA frame */
};

/* a stream by id: the newest one without asking the session (once per
 * header field) */
static inline h2_stream_t *
stream_of(nicd_conn_t *c, int32_t id)
{
    h2_stream_t *st = c->h2->last;

    if (st != NULL && st->id == id) {
        return st;
    }
    return nicd_h2s_stream(c->h2->s, id);
}

/* the session's on_header: a request's field kept in its stream, or
 * judged as nginx judges it when the protocol finds it invalid */
int nicd_h2_on_header(void *ud, void *stream, const uint8_t *name, size_t nlen,
                      const uint8_t *value, size_t vlen, int valid);

/* the session's on_begin_frame: a request's frames counted
 * ($request_length), the one under way noted (nicd_h2_frame_timeout) */
void nicd_h2_on_begin_frame(void *ud, uint8_t type, uint8_t flags, int32_t id,
                            uint32_t len);

/* the connection's header_timeout (nicd_conn_ops_t) */
int nicd_h2_frame_timeout(nicd_conn_t *c);

/* r: the request st received, for the handlers */
void nicd_h2_stream_view(nicd_conn_t *c, const h2_stream_t *st,
                         nicd_request_t *r);

/* the access log line of a stream, in the configuration's log_format:
 * everything is known by the time it closes */
void nicd_h2_log_stream(nicd_conn_t *c, h2_stream_t *st);

/* a stream answered later: the protocol's suspend, resume and flush
 * (handler.h: nicd_req_suspend; its done is http2.c's) */
nicd_req_t *nicd_h2_suspend(nicd_conn_t *c);
void        nicd_h2_resume(nicd_conn_t *c, nicd_req_t *req);
int         nicd_h2_flush(nicd_conn_t *c);

#endif /* NICD_HTTP2_STREAM_H */
