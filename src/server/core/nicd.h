/*
 * nicd's runtime: a configuration generation (cycle), worker threads with
 * one event loop each, and connections.
 */

#ifndef NICD_H
#define NICD_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>

#include "sendfile_nic/snic.h"
#include "util/version.h"
#include "util/buf.h"
#include "server/conf/conf.h"
#include "util/log.h"
#include "server/core/pool.h"
#include "server/core/ofc.h"
#include "server/core/transport.h"
#include "server/core/event.h"

#define NICD_VERSION NICACHE_VERSION

/*
 * A worker's counters (modules/status.c reads them).  Only the worker
 * writes its own, with relaxed atomic stores (NICD_STAT_ADD: no locked
 * instruction on the hot path); a status request of any worker of the
 * generation reads them all.  They live in the cycle, so they outlast a
 * worker that retires first.
 */
typedef struct {
    uint64_t  accepted, handled, requests;
    uint64_t  responses[6];     /* by status class: [1] 1xx .. [5] 5xx */
    uint64_t  body_bytes;       /* response body bytes sent */
    uint32_t  active;           /* open connections now */
    uint32_t  reading, writing; /* of them, now (nicd_conn_state); the rest
                                   are waiting */
    uint64_t *srv;              /* per server: requests, then responses[1..5] */
} nicd_stats_t;

#define NICD_SRV_STATS 6 /* uint64_t per server in nicd_stats_t.srv */

#define NICD_STAT_ADD(x, n) __atomic_store_n(&(x), (x) + (n), __ATOMIC_RELAXED)
#define NICD_STAT_GET(x)    __atomic_load_n(&(x), __ATOMIC_RELAXED)

struct nicd_worker_s;
struct nicd_conn_ops_s;

/*
 * One configuration generation: what a SIGHUP replaces as a whole.
 * Workers of an old generation finish their connections with it.
 */
typedef struct nicd_cycle_s {
    nicd_conf_t     *conf;
    snic_instance_t  backend;
    nicd_logfile_t **access_logs; /* by nicd_conf_t.access_paths' index */
    const struct nicd_conn_ops_s *http1, *http2; /* the protocols (main.c) */
    /* what the protocols and modules keep per worker thread, made before
     * its first request and freed when it ends (main.c; NULL: none) */
    void (*worker_init)(struct nicd_worker_s *w);
    void (*worker_free)(struct nicd_worker_s *w);
    int           generation;
    int           nworkers;
    int           alive;   /* workers still running */
    void         *tls;     /* the TLS context of "ssl" listeners, or NULL */
    nicd_stats_t *stats;   /* one a worker, by id (NULL: none kept) */
    uint64_t      started; /* time(NULL) when it was made */
    uint64_t      serial;  /* connections accepted by every worker, for
                              $connection (an atomic counter) */
} nicd_cycle_t;

enum { NICD_RUNNING = 0, NICD_STOPPING };

typedef struct nicd_conn_s nicd_conn_t;

/*
 * A connection's protocol as the core sees it, and all it sees of one
 * (HTTP/1.1: http/http.c, HTTP/2: http/http2.c).  The core accepts, reads
 * into c->in and calls run(); the protocol parses, answers, sends
 * (nicd_conn_send) and says what it waits for (nicd_conn_wait_read,
 * nicd_conn_keepalive, nicd_conn_linger, nicd_conn_close).  The cycle
 * names the protocols (main.c), so the core depends on none.
 */
typedef struct nicd_conn_ops_s {
    const char *name;
    /* c takes this protocol (its buffered bytes are its start): 0, or -1
     * (the connection is closed).  NULL: nothing to do. */
    int (*start)(nicd_conn_t *c);
    /* what came in c->in: parse, answer, send, then wait for what's next */
    void (*run)(nicd_conn_t *c);
    /* the worker stops or retires: end gracefully (HTTP/2's GOAWAY).
     * NULL: the core closes c if waiting() says it waits for a request */
    void (*shutdown)(nicd_conn_t *c);
    /* client_header_timeout or client_body_timeout ran out: 1 when an
     * answer was queued (408: sent, then closed), 2 when the connection
     * serves on, 0 to close.  NULL: close. */
    int (*header_timeout)(nicd_conn_t *c);
    /* what c waits for: NICD_WAITS_* */
    int (*waiting)(const nicd_conn_t *c);
    /* the connection closes: its protocol state goes.  NULL: none */
    void (*free)(nicd_conn_t *c);
    /* bytes of the parser state a request borrows (c->req) from the
     * worker's pool */
    size_t req_size;
} nicd_conn_ops_t;

enum {
    NICD_WAITS_NOT = 0, /* a request in progress, or not HTTP/1 */
    NICD_WAITS_REQUEST, /* nothing in progress: between requests, or silent */
    NICD_WAITS_HEAD     /* a request head has begun and not all come */
};
typedef struct nicd_protocol_s nicd_protocol_t; /* handler.h */
typedef struct nicd_h2_s       nicd_h2_t;       /* http2.c */

/* the most header fields a request may have, in either protocol (the
 * worker's hname and hvalue hold them while it is answered) */
#define NICD_MAX_HEADERS 100

/* bytes somewhere else (a request's field, a header) */
typedef struct {
    const char *p; /* NULL: absent */
    size_t      len;
} nicd_str_t;

#define NICD_MAX_MODULES                                                       \
    64 /* modules/modules.c lists fewer (it
                                          says so when it would not) */
#define NICD_WORKER_CTX(w, module) ((w)->modctx[(module).index])

typedef struct nicd_worker_s {
    int           id;
    pthread_t     thread;
    nicd_cycle_t *cycle;
    nicd_loop_t  *loop;

    int         nlisten;
    int        *listen_fds; /* owned by the master */
    nicd_ev_t **listen_evs;
    int         accepting;
    nicd_ev_t  *resume_ev; /* re-enables accepting after EMFILE */

    int        cmd_fd[2]; /* master -> worker commands */
    nicd_ev_t *cmd_ev;
    nicd_ev_t *tick_ev;

    int notify_fd; /* worker -> master: "I have exited" */

    nicd_conn_t *conns; /* every open connection */
    int          nconns;
    int          state;

    nicd_stats_t  *stats; /* its slot in the cycle's, or own_stats */
    nicd_stats_t   own_stats;
    nicd_ofc_t     ofc;
    nicd_logbuf_t *logs; /* one buffer an access log file, by its index */
    int            nlogs;
    nicd_buf_t     path;    /* the normalised path of the request at hand */
    nicd_buf_t     scratch; /* index candidates, Location, ranges */
    nicd_buf_t     logline; /* an access log line being put together */
    nicd_buf_t     reqpath; /* the request's path, normalised (phases.c) */
    nicd_buf_t     uri;     /* a rewritten or redirected URI (phases.c) */
    nicd_buf_t     expand;  /* a replacement being expanded (phases.c) */
    nicd_buf_t     hexpand; /* an add_header value being expanded: the
                                body may still be in expand */
    void          *match;   /* pcre2 match data for locations, rewrites */
    nicd_buf_t     vars;    /* the values of the request's variables, and
                                 where each is (vcache, by index: their
                                 vseq is the request's) (variables.c) */
    void          *vcache;
    int            nvcache;
    uint32_t       vseq;
    /* what each module keeps in this thread, by its index (its
     * worker_init makes it, its worker_free frees it):
     * NICD_WORKER_CTX(w, module) */
    void      *modctx[NICD_MAX_MODULES];
    void      *tls_spare; /* a TLS ciphertext buffer kept for reuse */
    void      *h2_spare;  /* HTTP/2 streams kept for reuse (http2.c) */
    int        h2_nspare;
    nicd_str_t hname[NICD_MAX_HEADERS], hvalue[NICD_MAX_HEADERS];

    const struct timeval *tv_header, *tv_send, *tv_linger, *tv_body;
    /* the keep-alive queue last asked for, and its time (a lookup in
     * libevent's list a request otherwise): nicd_worker_keepalive_tv() */
    const struct timeval *tv_keepalive;
    uint32_t              keepalive_ms;
    log_limit_t           lim_full, lim_reuse, lim_accept; /* a line a second */

    /* what connections borrow (nicd_worker_pool()) */
    nicd_pool_t pools[4];
    /* conn.c tells the worker that one of its connections closed */
    void (*conn_closed)(struct nicd_worker_s *w);
} nicd_worker_t;

/* the pools of a worker: request parsers, request head buffers
 * (client_header_buffer_size), response and log buffers, gather buffers */
enum { NICD_POOL_REQ = 0, NICD_POOL_IN, NICD_POOL_BUF, NICD_POOL_GATHER };
/* a response buffer block: the heads of a pipelined batch (16 of about
 * 250 bytes) fit one, so that a batch's buffer and queue do not grow by
 * realloc(3) and are freed at its end (1 KiB blocks did so every batch) */
#define NICD_POOL_BUF_SIZE    4096
#define NICD_POOL_GATHER_SIZE (64 * 1024)

/*
 * A response's access log records, one per log it goes to, each a header
 * and its line (with late markers, log_format.c) in the connection's
 * logb; the response's queue item points at the group.
 */
typedef struct {
    uint32_t file; /* the log's file index, or NICD_LOG_BY_PATH */
    uint32_t len;  /* bytes of the line after this header */
} nicd_logrec_t;
/* a log whose path holds variables: its record is the log file cache
 * (a log_fcache_t *, NULL: none), the path and a NUL, then the line */
#define NICD_LOG_BY_PATH UINT32_MAX

/*
 * What runs once a response has gone, or its connection closed first (a
 * module's count of the requests in progress: limit_conn's), in the
 * order added; nicd_cleanup_run() runs a chain and frees it.
 */
typedef struct nicd_cleanup_s {
    void (*fn)(void *data);
    void                  *data;
    struct nicd_cleanup_s *next;
} nicd_cleanup_t;
void nicd_cleanup_run(nicd_cleanup_t *cl);

/* an item of a connection's output queue */
typedef struct {
    unsigned        type : 2; /* OUT_MEM or OUT_FILE */
    unsigned        last : 1; /* last item of a response: log it when sent */
    unsigned        body : 1; /* counts as body bytes ($body_bytes_sent) */
    size_t          off;      /* OUT_MEM: offset in out; OUT_FILE: in file */
    size_t          len;      /* bytes left */
    nicd_file_t    *file;     /* OUT_FILE; a reference released when sent */
    int             status;   /* on last: the response status */
    uint32_t        log_off;  /* on last: the log record in logb */
    uint32_t        log_len;
    uint32_t        log_t0;  /* on last: when it was queued (ms, wrapping) */
    uint32_t        rate;    /* body: bytes a second at most (limit_rate;
                            0: no limit) ... */
    uint32_t        after;   /* ... after this many bytes of the response */
    nicd_cleanup_t *cleanup; /* on last: run when it has gone */
} nicd_out_t;

enum { OUT_MEM = 0, OUT_FILE = 1 };
enum { T_NONE = 0, T_HEADER, T_KEEPALIVE, T_SEND, T_LINGER, T_BODY };

struct nicd_conn_s {
    nicd_worker_t          *w;
    snic_conn_t             sc; /* sc.fd is the socket */
    const nicd_transport_t *tp; /* plain TCP or TLS */
    void                   *tp_data;
    const nicd_conn_ops_t  *ops;       /* its protocol, for the core */
    const nicd_protocol_t  *proto;     /* ... and for the handlers */
    nicd_h2_t              *h2;        /* the HTTP/2 session, or NULL */
    size_t                  resp_head; /* where the head being built starts
                                          in out (HTTP/1.1) */
    nicd_ev_t               rev, wev, tev;
    nicd_ev_t              *pev; /* a pacing backend asked to be called later
                                    (made the first time) */
    int                     timer;
    uint32_t                idle_ms; /* when it began waiting for a request
                                        (ms, wrapping) */
    uint32_t keepalive_ms; /* how long it waits for one (keepalive_timeout
                              of its last request's location) */

    char               *in;
    uint32_t            in_size, in_start, in_end, in_max;
    uint64_t            discard; /* request body bytes still to skip */
    uint64_t            collect; /* request body bytes still to read (Lua) */
    struct nicd_held_s *held;    /* the request they belong to (http.c) */

    /* the protocol's request state (HTTP/1.1's parser), borrowed from the
     * worker's pool while a request is read or answered: the ops'
     * req_size bytes, opaque to the core */
    void *req;

    /* the request being answered, the protocol's (http/handler.h):
     * opaque to the core; NULL between requests */
    struct nicd_req_s *r;

    nicd_buf_t  out; /* headers and in-memory bodies */
    nicd_out_t *items;
    int         nitems, ihead, items_size;
    nicd_buf_t  logb;      /* pending access log records */
    uint64_t    body_sent; /* of the response being sent */
    uint64_t    head_sent; /* ... and the rest of its bytes ($bytes_sent:
                              both) */
    uint64_t    rate_sent; /* limit_rate: bytes of the response so far ... */
    uint32_t    rate_t0;   /* ... since this time (ms, wrapping; 0: none) */

    int      nrequests;
    uint64_t number;         /* $connection: the generation's serial */
    long     start_ms;       /* when it was accepted ($connection_time) */
    unsigned stub_state : 2; /* the NICD_CONN_* it is counted in */
    unsigned keepalive : 1;  /* keep the connection after the queue */
    unsigned closing : 1;    /* close once the queue is sent */
    unsigned eof : 1;        /* the client closed its side */
    unsigned writing : 1;    /* waiting for EV_WRITE */
    unsigned reading : 1;    /* rev is added */
    unsigned lingering : 1;
    unsigned linger_close : 1;  /* an error response: drain before close */
    unsigned in_chunked : 1;    /* skipping a chunked request body */
    unsigned handshaking : 1;   /* the transport's handshake is not over */
    unsigned tp_want_write : 1; /* ... and it waits for a writable socket */

    char addr[INET6_ADDRSTRLEN];

    nicd_conn_t *prev, *next;
};

/*
 * What a connection is doing, as nginx's stub_status counts it: waiting
 * for a request (idle, or a keep-alive between requests), reading a
 * request's head (its first bytes came, not all of it), or writing (the
 * head is in, the request is answered until its response went out).
 * The protocols say when it changes; the worker's counters follow at
 * once (two relaxed stores, only on a change).
 */
enum { NICD_CONN_WAITING = 0, NICD_CONN_READING, NICD_CONN_WRITING };
void nicd_conn_state(nicd_conn_t *c, int state);

/* conn.c */
void nicd_conn_accept(nicd_worker_t *w, int fd, int listener,
                      const struct sockaddr *sa);
void nicd_conn_close(nicd_conn_t *c);
/* Queue in-memory bytes (copied) or a file range as part of a response
 * (rate: limit_rate's bytes a second for it after the response's first
 * after bytes, 0 none); out_body: bytes of a body in memory, paced so. */
void nicd_conn_out_paced(nicd_conn_t *c, size_t off, size_t len, int body,
                         uint32_t rate, uint32_t after);
static inline void
nicd_conn_out_mem(nicd_conn_t *c, size_t off, size_t len, int body)
{
    nicd_conn_out_paced(c, off, len, body, 0, 0);
}
static inline void
nicd_conn_out_body(nicd_conn_t *c, size_t off, size_t len, uint32_t rate,
                   uint32_t after)
{
    nicd_conn_out_paced(c, off, len, 1, rate, after);
}
void nicd_conn_out_file(nicd_conn_t *c, nicd_file_t *f, off_t off, size_t len,
                        uint32_t rate, uint32_t after);
/*
 * A response went out in full, whatever the protocol (HTTP/1.1's last
 * item, an HTTP/2 stream answered and closed): the send backend charges
 * it (the nic backend's host model counts it at its next send).  The one
 * place a response is counted, so both protocols count alike.
 */
void nicd_conn_response_sent(nicd_conn_t *c);
/* it: the last item of a response none of whose bytes are queued (all
 * went already), with its status and log record (conn_log.c) */
void nicd_conn_gone_item(nicd_conn_t *c, nicd_out_t *it, int status,
                         uint32_t log_off, uint32_t log_len);
/* the access log records (in logb) of a response the client did not
 * wait for (nginx's 499): written now */
void nicd_conn_log_abandoned(nicd_conn_t *c, int status, uint32_t log_off,
                             uint32_t log_len);
/* The last item of a response: its status and its access log record. */
void nicd_conn_out_end(nicd_conn_t *c, int status, uint32_t log_off,
                       uint32_t log_len);
/*
 * The worker is stopping: close c now if no request is in progress and it
 * has waited for one for NICD_RETIRE_GRACE_MS (else when it has, unless a
 * request comes first: a client that just had its response may be
 * sending the next request, and closing under it would lose it).
 */
#define NICD_RETIRE_GRACE_MS 1000
void nicd_conn_shutdown(nicd_conn_t *c);
/*
 * The worker is out of connection slots or descriptors: the connection to
 * close for a new one, the one that has waited longest for a request, an
 * idle keep-alive one first, else one whose request head has not all
 * come (nginx's "reusing connections"); NULL when every one is busy.
 */
nicd_conn_t *nicd_conn_reusable(nicd_worker_t *w);
/*
 * Send the queue: 1 when it is empty, 0 when the connection waits for the
 * socket or a pacing backend (events set; keep_reading: go on reading
 * meanwhile), -1 when it was closed.
 */
int nicd_conn_send(nicd_conn_t *c, int keep_reading);
/* Close after what was sent: shut the sending side, read and drop what
 * the peer still sends until it closes (or the linger timeout). */
void nicd_conn_linger(nicd_conn_t *c);
/* Wait for the peer's next bytes with timer (T_*). */
void nicd_conn_wait_read(nicd_conn_t *c, int timer);
/* Nothing in progress: give the borrowed buffers back and wait for the
 * next request (c->keepalive_ms: T_KEEPALIVE's time). */
void nicd_conn_keepalive(nicd_conn_t *c);
/* cl to run when the response queued last has gone (at once when
 * nothing is queued) */
void nicd_conn_out_cleanup(nicd_conn_t *c, nicd_cleanup_t *cl);

/* the access log records of a finished (or abandoned) response, item it
 * of c's queue: one per log it goes to, each filled in and handed to its
 * file's buffer (conn_log.c) */
void nicd_conn_log_response(nicd_conn_t *c, const nicd_out_t *it);
/* The response and log buffers, and the request parser (c->req, for the
 * protocol to initialise when it comes back NULL... see http.c), before a
 * request is read: 0, or -1 (out of memory). */
int nicd_conn_borrow(nicd_conn_t *c);

/* tls.c: the cycle's TLS context from cf (NULL with err set) */
void *nicd_tls_ctx_new(const nicd_conf_t *cf, char *err, size_t errlen);
void  nicd_tls_ctx_free(void *ctx);
void  nicd_tls_worker_free(nicd_worker_t *w);

/* a request held for its body (c->held: http.c's) */
typedef struct nicd_held_s nicd_held_t;

/* worker.c */
int nicd_worker_start(nicd_worker_t *w);
/* What nicd_worker_start() does before the thread runs, for a worker
 * driven by hand (the fuzz target): the pools and the close callback. */
void nicd_worker_setup(nicd_worker_t *w);
void nicd_worker_command(nicd_worker_t *w, char cmd);
/* an access log line (len bytes) to w's buffer of log file i: written at
 * once, as nginx's, unless a "buffer=" (or gzip) asked for buffering */
void nicd_worker_log_write(nicd_worker_t *w, int i, const char *line,
                           size_t len);

/* ms as a timeval (a timer's) */
static inline struct timeval
nicd_tv_ms(long ms)
{
    struct timeval tv;

    tv.tv_sec = ms / 1000;
    tv.tv_usec = (suseconds_t) (ms % 1000) * 1000;
    return tv;
}

/* the loop's shared timeout of a keep-alive timeout of ms (0, or past
 * 256 of them: NULL), the last one asked for remembered */
static inline const struct timeval *
nicd_worker_keepalive_tv(nicd_worker_t *w, uint32_t ms)
{
    if (w->tv_keepalive == NULL || w->keepalive_ms != ms) {
        w->tv_keepalive =
            ms > 0 ? nicd_loop_common_tv(w->loop, (long) ms) : NULL;
        w->keepalive_ms = ms;
    }
    return w->tv_keepalive;
}

/* the loop's cached clock, in milliseconds */
static inline long
nicd_worker_now_ms(nicd_worker_t *w)
{
    return nicd_loop_now_ms(w->loop);
}

/* one of the pools connections borrow from (NICD_POOL_*) */
static inline nicd_pool_t *
nicd_worker_pool(nicd_worker_t *w, int which)
{
    return &w->pools[which];
}

#endif /* NICD_H */
