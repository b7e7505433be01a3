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
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "server/http/http_parser.h"
#include "server/core/nicd.h"

/* the request header fields handlers read */
enum {
    NICD_HDR_RANGE = 0,
    NICD_HDR_IF_RANGE,
    NICD_HDR_IF_MATCH,
    NICD_HDR_IF_NONE_MATCH,
    NICD_HDR_IF_MODIFIED_SINCE,
    NICD_HDR_IF_UNMODIFIED_SINCE,
    NICD_HDR_HOST, /* or HTTP/2's :authority */
    NICD_HDR_ACCEPT_ENCODING,
    NICD_HDR_AUTHORIZATION,
    NICD_NHDR
};

typedef struct nicd_request_s {
    int        method; /* NICD_M_* */
    nicd_str_t path;   /* the target's path as sent (percent-encoded) */
    nicd_str_t query;  /* after '?'; len 0: none */
    /* a subrequest's: its client's request's path and query, as sent
     * ($request_uri, nginx's unparsed_uri); p NULL: path and query */
    nicd_str_t main_path, main_query;
    nicd_str_t hdr[NICD_NHDR];
    /* every header field as sent (the Lua handler's), nheaders of them */
    const nicd_str_t *hname, *hvalue;
    int               nheaders;
    nicd_str_t        body;     /* the request body (p NULL: none) */
    nicd_str_t        line;     /* HTTP/1.x: the request line (p NULL: none) */
    const char       *protocol; /* "HTTP/1.0", "HTTP/1.1", "HTTP/2.0" */
    uint64_t          length;   /* $request_length: the head (HTTP/2: its
                                   HEADERS and CONTINUATION payloads) and
                                   the body as received */
    long              start_ms; /* when its head was in ($request_time) */
    /* HTTP/1.x: the request line's length, the longest header line's
     * and the head's (head.c holds them to the server's limits) */
    uint32_t line_len, field_max, head_len;
} nicd_request_t;

/*
 * The request being answered, apart from its connection: what came (the
 * protocol's view, above) and where the phases took it.  A protocol keeps
 * one for each request in progress (HTTP/1.1 in its request block, HTTP/2
 * in each stream) and points c->r at it while the request is answered
 * (nicd_req_begin); every field starts at zero.  The handlers, filters
 * and variables read the request at hand through c->r.
 */
typedef struct nicd_req_s {
    const nicd_request_t     *in;  /* what came; NULL: it did not parse */
    const nicd_server_conf_t *srv; /* its server; NULL: not chosen (yet) */
    const nicd_loc_conf_t    *loc; /* its location; NULL: none (yet) */
    const char               *uri; /* $uri: normalised, after rewrites
                                      (NULL: the path as sent) */
    size_t                    uri_len;
    int                       redirects; /* internal redirects so far */
    /* an error_page's status (nginx's err_status): what its page answers
     * is sent with it, but a special response (nicd_respond_error) */
    int status_override;
    /* the Location of the redirect an error_page took over: its page's
     * answer carries it (nginx keeps headers_out.location) */
    char    *err_location;
    int      status;          /* the response's, once started ($status) */
    unsigned error_paged : 1; /* error_page ran: never twice */
    unsigned trailers : 1;    /* the response ends with trailer fields */
    unsigned resumed : 1;     /* answered again after a delay */
    unsigned unparsed : 1;    /* its head did not parse: answered at once
                                 (an error_page too), never suspended */
    /* a phase handler's wait (limit_req): it returns NICD_DONE without an
     * answer and the protocol answers the request again, from the start
     * with resumed set, after this many milliseconds */
    uint32_t delay_ms;
    unsigned gzipped : 1; /* gzip_static sent the .gz of the file */
    /* a file filter changed the body and dropped its validators
     * (sub_filter): the filters below it send no Last-Modified or ETag */
    unsigned    no_validators : 1;
    unsigned    vary_ae : 1;      /* Vary: Accept-Encoding */
    unsigned    body_gzipped : 1; /* the body filters compressed a body in
                                     memory: Content-Encoding: gzip */
    const char *type_of;          /* the file a .gz stands for */
    /* the response's header fields as sent ("name\0value\0" each), kept
     * when the configuration reads $sent_http_ (conf->keep_sent) */
    nicd_buf_t *sent;
    /* $request_id: 16 random bytes, drawn when first read (0: not yet) */
    uint64_t id[2];
    /* the client as the request sees it (realip), NULL: the connection's
     * peer; freed with the request */
    struct nicd_peer_s *peer;
    /* what runs when its response has gone (nicd_req_cleanup) */
    nicd_cleanup_t *cleanup;
    /* answered later (nicd_req_suspend): its connection, and what the
     * protocol calls when the output it queued has gone, so that it may
     * make more (NULL: nothing) */
    unsigned     suspended : 1;
    nicd_conn_t *conn;
    void (*wake)(void *data);
    void *wake_data;
    /* fields a module gave the response to come, whoever makes it (the
     * upstream's WWW-Authenticate on an intercepted 401): "name\0value\0"
     * each, or NULL */
    nicd_buf_t *carry;
    /* a suspended request's variable values (nicd_vars_save), or NULL */
    void *vars;
    /* an upgraded connection (101): "Connection: upgrade", then what the
     * client sends goes to tunnel(wake_data, bytes, len), which returns
     * how many it took (HTTP/1.1; NULL: none) */
    unsigned upgrade : 1;
    size_t (*tunnel)(void *data, const char *p, size_t len);
    /* a proxied request's upstream record (http/upstream.h), or NULL */
    struct nicd_upstream_req_s *upstream;
    /* the stream filters' stages on its body (http/stream.h), or NULL */
    struct nicd_stream_s *stream;
    /* the body's length is not known: HTTP/1.1 chunks it (HTTP/1.0: the
     * connection's end ends it) */
    unsigned chunked : 1;
    /* the handler gives the Server and Date fields, or none (a proxied
     * response with proxy_pass_header Server, Date): the protocol's own
     * are not sent */
    unsigned own_server : 1;
    unsigned own_date : 1;
    /* the response's pace (http/rate.h): bytes a second after rate_after
     * bytes, known once asked (rate_given: the handler's own) */
    unsigned rate_known : 1;
    unsigned rate_given : 1;
    uint32_t rate, rate_after;
    /* a subrequest's (http/subrequest.h): where its response goes, in
     * place of its connection's protocol (NULL: c->proto), and how deep
     * it is (0: the client's own request) */
    const nicd_protocol_t *proto;
    unsigned               subdepth;
    /* its arguments once a rewrite or an internal redirect set them
     * (nginx's r->args; args_set, its own copy in args), else those sent
     * (in->query): nicd_req_args() */
    unsigned   args_set : 1;
    nicd_str_t args;
    /* a rewrite's break changed the URI in the location at hand: a
     * proxy_pass URI part no longer applies (nginx's valid_location) */
    unsigned uri_moved : 1;
    /* try_files found the URI at hand in a regex location with an alias:
     * the alias is its directory, not the file (nginx's add_uri_to_alias) */
    unsigned uri_to_alias : 1;
} nicd_req_t;

/*
 * A content handler that answers later, from events of its own (the
 * proxy, as its upstream answers), suspends the request at hand before
 * it returns: the protocol keeps the request (its head, body, $uri and
 * this block, which moves: the one returned is c->r from now on, NULL
 * when out of memory, then answer 500 at once).  Its cleanups (added
 * with nicd_req_cleanup) run when the client goes first: the handler
 * then forgets it.  Later, nicd_req_resume() makes it the request at
 * hand again and gives its connection; the handler answers with the
 * nicd_resp_*() calls, in pieces, each followed by nicd_req_flush() (1:
 * the client took everything, 0: it has not yet, req->wake will be
 * called when it has, -1: the client is gone, its cleanups ran), until
 * nicd_resp_finish() and nicd_req_done() (after which the handler
 * touches neither req nor its connection).  HTTP/1.1 reads no other
 * request of the connection meanwhile; HTTP/2 sends the response once it
 * is finished.
 */
nicd_req_t  *nicd_req_suspend(nicd_conn_t *c);
nicd_conn_t *nicd_req_resume(nicd_req_t *req);
int          nicd_req_flush(nicd_req_t *req);
void         nicd_req_done(nicd_req_t *req);

/* fn(data) once the response of req has gone, or its connection or
 * stream ended first: 0, or -1 (out of memory) */
int nicd_req_cleanup(nicd_req_t *req, void (*fn)(void *), void *data);

/* a client address a module set for a request (realip) */
typedef struct nicd_peer_s {
    char                    text[INET6_ADDRSTRLEN];
    struct sockaddr_storage sa; /* its port 0: none said */
} nicd_peer_t;

/* the client's address of the request at hand, as text: realip's, or
 * the connection's peer */
static inline const char *
nicd_client(const nicd_conn_t *c)
{
    return c->r != NULL && c->r->peer != NULL ? c->r->peer->text : c->addr;
}

/* req (the protocol's) becomes the request at hand, every field zero */
static inline void
nicd_req_begin(nicd_conn_t *c, nicd_req_t *req)
{
    memset(req, 0, sizeof(*req));
    c->r = req;
}

/* the protocol is done with req (its log line made): what it kept goes */
void nicd_req_sent_free(nicd_req_t *req);
static inline void
nicd_req_end(nicd_req_t *req)
{
    if (req->sent != NULL) {
        nicd_req_sent_free(req);
    }
    free(req->peer);
    req->peer = NULL;
    free(req->err_location);
    req->err_location = NULL;
    free(req->vars);
    req->vars = NULL;
    free((char *) req->args.p);
    req->args.p = NULL;
    req->args_set = 0;
    if (req->carry != NULL) {
        nicd_buf_free(req->carry);
        free(req->carry);
        req->carry = NULL;
    }
    nicd_cleanup_run(req->cleanup); /* (HTTP/1.1 gave its own to its
                                       queue: nicd_conn_out_cleanup) */
    req->cleanup = NULL;
}

/* a field the response sent, kept for $sent_http_ (handler.c): a
 * protocol's header() calls it when the configuration reads $sent_http_
 * (conf->keep_sent; HTTP/1.1 chooses "keeping" operations once a
 * connection, so its hot path pays nothing without it) */
void nicd_req_keep_header(nicd_req_t *req, const char *name, size_t nlen,
                          const char *value, size_t vlen);

/* the value of the field name (len bytes, any case, '_' for '-') the
 * response sent (sent: the request's record, NULL: none): 1, or 0 */
int nicd_sent_header(const nicd_buf_t *sent, const char *name, size_t len,
                     nicd_str_t *value);
/* every field of that name it sent, appended to out, ", " between
 * (nginx's $sent_http_ of a field sent several times): how many */
int nicd_sent_headers(const nicd_buf_t *sent, const char *name, size_t len,
                      nicd_buf_t *out);

/* the arguments of the request at hand (r its view): as a rewrite or an
 * internal redirect set them, else those sent ($args, proxy_pass) */
static inline const nicd_str_t *
nicd_req_args(const nicd_conn_t *c, const nicd_request_t *r)
{
    return c->r != NULL && c->r->args_set ? &c->r->args : &r->query;
}

/* the request at hand's arguments become p (len bytes, copied; len 0:
 * none): 0, or -1 (out of memory) */
int nicd_req_set_args(nicd_conn_t *c, const char *p, size_t len);

/* nginx's "444": close without an answer (nicd_respond_error) */
#define NICD_HTTP_CLOSE 444

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
    /* no answer at all (nginx's 444): HTTP/1.1 closes the connection,
     * HTTP/2 resets the stream */
    void (*close)(nicd_conn_t *c);
    /* a request answered later (nicd_req_suspend and the others): keep
     * the request at hand, giving its block; make req the request at
     * hand again; send what it queued (1, 0 or -1, nicd_req_flush); it
     * is finished */
    nicd_req_t *(*suspend)(nicd_conn_t *c);
    void (*resume)(nicd_conn_t *c, nicd_req_t *req);
    int (*flush)(nicd_conn_t *c);
    void (*done)(nicd_conn_t *c);
};

/*
 * The output queue is as long as a protocol lets it grow before it stops
 * parsing (HTTP/1.1) or producing (HTTP/2) and sends what is queued: 64
 * items or 256 KiB of memory.
 */
static inline int
nicd_queue_full(const nicd_conn_t *c)
{
    return c->nitems - c->ihead >= 64 || c->out.len >= 256 * 1024;
}

/* the status a response of status is sent with: an error_page's (its
 * "=code", or the error's own) where one took the request over */
static inline int
nicd_resp_status(const nicd_conn_t *c, int status)
{
    return c->r->status_override > 0 ? c->r->status_override : status;
}

/* the status line (nicd_resp_status()'s) */
void nicd_resp_start(nicd_conn_t *c, int status);

/* the response operations of the request at hand: its connection's
 * protocol's, or a subrequest's own */
static inline const nicd_protocol_t *
nicd_proto(const nicd_conn_t *c)
{
    return c->r->proto != NULL ? c->r->proto : c->proto;
}

static inline void
nicd_resp_header(nicd_conn_t *c, const char *name, size_t nlen,
                 const char *value, size_t vlen)
{
    nicd_proto(c)->header(c, name, nlen, value, vlen);
}

/* a header with a literal name: NICD_RESP_HEADER(c, "ETag", v, len) */
#define NICD_RESP_HEADER(c, name, v, len)                                      \
    nicd_resp_header((c), name, sizeof(name) - 1, (v), (len))

/* Content-Type t, with the response's charset where nginx adds it */
void nicd_resp_content_type(nicd_conn_t *c, const char *t, size_t len);
/* ... its value with a charset into out (cap bytes, NUL-terminated):
 * its length, or 0 when it is t as it is (no charset here, or one that
 * does not fit) (a multipart body's parts say it too) */
size_t nicd_content_type_value(nicd_conn_t *c, const char *t, size_t len,
                               char *out, size_t cap);

/* a body recoded into another charset (modules/charset.c's maps) */
typedef struct nicd_recode_s nicd_recode_t;
struct nicd_recode_s {
    /* in (len bytes) recoded, appended to out: 0, or -1 (out of memory) */
    int (*run)(const nicd_recode_t *rc, const char *in, size_t len,
               nicd_buf_t *out);
    int same_length; /* byte for byte: lengths and ranges still hold */
};

/* file f's bytes recoded into the charset a response of type goes out
 * with (the charset filters, filter.h), into mem: 1, 0 when there is nothing
 * to recode (*rc NULL), or -1 (logged) */
int nicd_file_recode(nicd_conn_t *c, nicd_file_t *f, const char *type,
                     nicd_buf_t *mem, const nicd_recode_t **rc);

/* the first NAME=VALUE of query whose NAME is name (len bytes, any
 * case), its VALUE in *value: 1, or 0 ($arg_NAME's rule) */
int nicd_query_arg(const nicd_str_t *query, const char *name, size_t len,
                   nicd_str_t *value);

/* the whole of file f appended to out: 0, or -1 (logged, for what) */
int nicd_file_read(nicd_conn_t *c, nicd_file_t *f, nicd_buf_t *out,
                   const char *what);
/* the same for len bytes of it from off */
int nicd_file_read_part(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len,
                        nicd_buf_t *out, const char *what);

/* is r's field i called name (len bytes, any case)? */
static inline int
nicd_req_field_is(const nicd_request_t *r, int i, const char *name, size_t len)
{
    return r->hname[i].len == len && strncasecmp(r->hname[i].p, name, len) == 0;
}

/* the value of r's first field called name (len bytes, any case; r
 * NULL: none), or NULL */
static inline const nicd_str_t *
nicd_req_field(const nicd_request_t *r, const char *name, size_t len)
{
    int i;

    for (i = 0; r != NULL && i < r->nheaders; i++) {
        if (nicd_req_field_is(r, i, name, len)) {
            return &r->hvalue[i];
        }
    }
    return NULL;
}

/* Is a field name (nlen bytes) the suffix s of a variable ($http_NAME,
 * $sent_http_NAME, ...): any case, '-' and '_' alike? */
int nicd_header_is(const char *name, size_t nlen, const char *s, size_t slen);

/* name: value (copied) goes with the response to come of the request
 * at hand (req->carry): 0, or -1 (out of memory) */
int nicd_resp_carry(nicd_conn_t *c, const char *name, size_t nlen,
                    const char *value, size_t vlen);

/* Vary where a compression was involved, the fields carried, the header
 * filters, the end */
void nicd_resp_end_headers(nicd_conn_t *c);

static inline void
nicd_resp_body_mem(nicd_conn_t *c, const char *p, size_t len)
{
    nicd_proto(c)->body_mem(c, p, len);
}

static inline void
nicd_resp_body_file(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len)
{
    nicd_proto(c)->body_file(c, f, off, len);
}

void nicd_resp_finish(nicd_conn_t *c, int status);

/* A header whose value is a number. */
void nicd_resp_header_u64(nicd_conn_t *c, const char *name, size_t nlen,
                          uint64_t v);

/*
 * The send backend's report in fmt (SNIC_REPORT_*) appended to b (the
 * report and status modules' content): 1, or 0 when the backend has none.
 */
int nicd_backend_report(nicd_conn_t *c, int fmt, nicd_buf_t *b);

/* The reason phrase of status ("Not Found"). */
const char *nicd_status_reason(int status);

/* errno of a failed open of path to a status (logged where it says so) */
int nicd_open_status(nicd_conn_t *c, int err, const char *path);

/*
 * What an access log line is made of (modules/log_format.c), filled by
 * the protocol that answered: the request as it came, and (late_known)
 * what the response did.
 */
typedef struct {
    const char       *addr;
    nicd_str_t        line; /* the request line as sent (p NULL: none) */
    const char       *method;
    nicd_str_t        path, query;
    nicd_str_t        uri;      /* $uri: normalised, after rewrites (p NULL:
                              the path as sent) */
    const char       *protocol; /* "HTTP/1.1", "HTTP/2.0" */
    const nicd_str_t *hname, *hvalue;
    int               nheaders;
    const char       *server_name;
    int               tls;
    int               late_known;
    int               status;
    uint64_t          body_bytes;
    uint64_t          bytes; /* $bytes_sent */
    double            request_time;
    const nicd_buf_t *sent; /* the response's fields ($sent_http_), or NULL */
    nicd_conn_t      *c;    /* its c->r the request, for the registry's
                            variables; NULL: none */
} nicd_log_view_t;

typedef struct nicd_log_format_s nicd_log_format_t;

/* Does Accept-Encoding v take gzip (not with q=0)?  (nginx's
 * ngx_http_gzip_ok: gzip and gzip_static both ask) */
int nicd_accepts_gzip(const nicd_str_t *v);

/*
 * The log phase, nginx's last, as an array of handlers (phases.h): a log
 * handler is a module's access logs (modules/log_format.c), added by its
 * postconfiguration.  select: the logs of the request at hand, those of
 * its location (else its server's, else the address' default server's,
 * for a request that did not parse) whose if= passes now (bit i: the
 * level's log i; 0: none), and that level (*lc), asked when its response
 * is made; records: one record (nicd_logrec_t and its line) for each log
 * of lc in mask, rendered from v, appended to b (HTTP/1.1: the markers
 * filled in once it has gone, conn_log.c); write: the same written at
 * once to the worker's log buffers (HTTP/2 logs a stream when it
 * closes, v with late_known set).
 */
typedef struct {
    uint32_t (*select)(nicd_conn_t *c, const nicd_loc_conf_t **lc);
    void (*records)(const nicd_loc_conf_t *lc, uint32_t mask,
                    const nicd_log_view_t *v, nicd_buf_t *b);
    void (*write)(nicd_worker_t *w, const nicd_loc_conf_t *lc, uint32_t mask,
                  const nicd_log_view_t *v);
} nicd_log_handler_t;

#define NICD_LOG_HANDLERS 4 /* log handlers a configuration holds */

/* what each log handler chose for a request (nicd_log_phase_select) */
typedef struct {
    const nicd_loc_conf_t *lc[NICD_LOG_HANDLERS];
    uint32_t               mask[NICD_LOG_HANDLERS];
    int                    any; /* some mask is not 0 */
} nicd_log_sel_t;

#endif /* NICD_HANDLER_H */
