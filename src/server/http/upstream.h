/*
 * Upstream groups, as nginx's ngx_http_upstream and its round robin,
 * least_conn and hash balancers: the servers a proxied request may go to,
 * which one it goes to, what a failure costs a server, and the idle
 * connections a worker keeps to them.
 *
 *   upstream NAME { ... }   (http)
 *       server ADDRESS [weight=N] [max_fails=N] [fail_timeout=TIME]
 *              [max_conns=N] [backup] [down];
 *           ADDRESS: an IP address or a name (every address it has is a
 *           server), with an optional :PORT (80); or "unix:PATH".
 *       least_conn;  hash KEY [consistent];  random;  (round robin)
 *       keepalive N;  keepalive_timeout TIME (60s);  keepalive_time TIME
 *       (1h);  keepalive_requests N (1000);  zone NAME [SIZE] (accepted:
 *       the counts and kept connections are always shared by the worker
 *       threads)
 *
 * A proxy_pass naming a host that no upstream{} names makes an implicit
 * group of that host's addresses (port 80 unless given), resolved when
 * the configuration is read, as nginx's.  The worker threads share the
 * weights, failure counts and idle connections of a group.
 */

#ifndef NICD_UPSTREAM_H
#define NICD_UPSTREAM_H

#include <stdint.h>
#include <sys/socket.h>

#include "server/conf/directive.h"
#include "server/core/event.h"
#include "server/http/handler.h"
#include "server/http/resp_parser.h"
#include "server/http/variables.h"

typedef struct {
    struct sockaddr_storage sa;
    socklen_t               salen;
    char                   *name; /* "127.0.0.1:8081", as $upstream_addr */
    char                   *host; /* as written (its Host for a group) */
    int                     weight, max_fails, max_conns;
    long                    fail_timeout; /* ms */
    unsigned                backup : 1;
    unsigned                down : 1;
} nicd_upstream_server_t;

enum { NICD_UB_RR = 0, NICD_UB_LEAST_CONN, NICD_UB_HASH, NICD_UB_RANDOM };

typedef struct nicd_upstream_s {
    char                   *name; /* the group's, or an implicit one's host */
    unsigned                port; /* an implicit one's (0: a group) */
    int                     implicit;
    int                     defined; /* an upstream{} block made it */
    const char             *where;   /* the first proxy_pass naming it */
    nicd_upstream_server_t *servers; /* primary ones first, then backups */
    int                     nservers, nprimary;
    int                     balance; /* NICD_UB_* */
    struct nicd_cv_s       *hash;    /* hash's key */
    int                     consistent;
    int                     keepalive; /* idle connections a worker keeps */
    long                    keepalive_timeout, keepalive_time;
    int                     keepalive_requests;
    int                     index;
    void *shared; /* the counts of its servers the threads share */
    void *keep;   /* its idle connections (upstream_keep.c) */
} nicd_upstream_t;

/*
 * The group named by host (hlen bytes) and port (0: none given), made
 * (empty, filled by its upstream{} block or, at the end of reading, by
 * resolving the host) when there is none: NULL when out of memory.
 */
nicd_upstream_t *nicd_upstream_add(parse_t *ps, const char *host, size_t hlen,
                                   unsigned port);

/* at run time (proxy_pass with variables), the group an upstream{}
 * called name (len bytes) defined (port 0: none given), or the implicit
 * one a proxy_pass made for that host and port; NULL: none */
nicd_upstream_t *nicd_upstream_find(const nicd_conf_t *c, const char *name,
                                    size_t len, unsigned port);

/* the servers a request tries, one at a time */
typedef struct {
    nicd_upstream_t       *u;
    int                    server; /* the one at hand, or -1 */
    int                    tries;  /* left, counting the one at hand */
    uint64_t               tried[4];
    uint32_t               hash;    /* hash's key, hashed */
    int                    rehash;  /* hash: draws so far */
    int                    backups; /* the primary ones failed: backups now */
    nicd_upstream_t        single;  /* a literal address (proxy_pass with */
    nicd_upstream_server_t one;     /* variables): a group of one */
} nicd_upstream_pick_t;

#define NICD_UPSTREAM_MAX_SERVERS 256

/* the servers of u for the request at hand (hash: its key evaluated;
 * tries: those not down, as nginx counts):
 * 0, or -1 (logged) */
int nicd_upstream_pick_init(nicd_conn_t *c, nicd_upstream_pick_t *pk,
                            nicd_upstream_t *u);
/* a group of the one address sa (name as $upstream_addr says it) */
void nicd_upstream_pick_single(nicd_upstream_pick_t  *pk,
                               const struct sockaddr *sa, socklen_t salen,
                               const char *name);
/* the next server to try (pk->server): 0, or -1 when none is left alive
 * ("no live upstreams") */
int nicd_upstream_next(nicd_worker_t *w, nicd_upstream_pick_t *pk);
/* the server at hand is done with: failed (counted toward max_fails) or
 * not */
void nicd_upstream_free(nicd_worker_t *w, nicd_upstream_pick_t *pk, int failed);

/*
 * A connection to an upstream server (upstream_keep.c), kept between
 * requests (keepalive N: N idle in all, which any worker thread takes).
 * Its read event, in the event loop of the thread that made it, is
 * registered once and stays so while the connection is idle (a close by
 * the server is seen at once) and while a request of that thread reads
 * from it: the owner at hand gets its reads (on_read(owner, NICD_EV_READ or
 * NICD_EV_TIMEOUT)), and a request costs no epoll_ctl().  Another thread that
 * takes it gets a descriptor of its own (dup), and the first thread lets
 * go of its registration when it next hears of the socket.
 */
typedef struct nicd_upstream_sock_s nicd_upstream_sock_t;
struct nicd_upstream_sock_s {
    int            fd;
    nicd_worker_t *w;
    nicd_ev_t      ev; /* NICD_EV_READ | NICD_EV_PERSIST */
    unsigned       reading : 1;
    void (*on_read)(void *owner, short what);
    void *owner;
    int   requests; /* responses it carried */
    long  born;     /* when it was made (ms) */
    /* kept idle: for which group and server, since when; handed: taken
     * by another thread (under the group's lock) */
    const nicd_upstream_t *u;
    int                    server;
    long                   since;
    int                    handed;
    nicd_upstream_sock_t  *prev, *next; /* the thread's idle ones */
};

/* u's idle connections, made and freed with the configuration: NULL
 * when out of memory */
void *nicd_upstream_keep_new(nicd_conf_t *c, const nicd_upstream_t *u);

/* fd (connected or connecting) as a connection of w: NULL when out of
 * memory (fd is the caller's still) */
nicd_upstream_sock_t *nicd_upstream_sock_new(nicd_worker_t *w, int fd);
/* its reads to on_read(owner), ms at most between two (0: no limit) */
void nicd_upstream_sock_read(nicd_upstream_sock_t *s, long ms,
                             void (*on_read)(void *owner, short what),
                             void *owner);
/* no reads until the next nicd_upstream_sock_read() */
void nicd_upstream_sock_pause(nicd_upstream_sock_t *s);
/* its reads stopped, its socket closed, s freed */
void nicd_upstream_sock_close(nicd_upstream_sock_t *s);

/* an idle connection to the server at hand, now the caller's (one w
 * made first), or NULL; one idle past keepalive_timeout, or that the
 * server closed, is closed here */
nicd_upstream_sock_t *nicd_upstream_idle_get(nicd_worker_t        *w,
                                             nicd_upstream_pick_t *pk);
/* s (to the server at hand; its requests and born set) kept idle, or
 * closed when the group keeps none, the connection is older than
 * keepalive_time or has carried keepalive_requests; the one of the
 * group idle longest is closed to make room */
void nicd_upstream_idle_put(nicd_worker_t *w, nicd_upstream_pick_t *pk,
                            nicd_upstream_sock_t *s);
/* every idle connection w registered let go (its thread ends: called
 * in that thread) */
void nicd_upstream_idle_close_all(nicd_worker_t *w);

/*
 * What a proxied request did upstream, for the $upstream_* variables:
 * one entry a server tried (as nginx's ngx_http_upstream_state_t), and
 * the last response head.  Its module keeps it in req->upstream while
 * the request lives.
 */
#define NICD_UPSTREAM_MAX_TRIES 16

typedef struct {
    const char *addr;   /* the server's name, or the group's (no live one) */
    int         status; /* its response's, 0: none */
    long        connect_ms, header_ms, response_ms; /* -1: not reached */
    long        start_ms;                           /* when it began */
    uint64_t    received, sent, length; /* bytes: all, to it, of the body */
} nicd_upstream_try_t;

typedef struct nicd_upstream_req_s {
    nicd_upstream_try_t tries[NICD_UPSTREAM_MAX_TRIES];
    int                 ntries;
    const char         *head; /* the response head (NULL: none yet) ... */
    const nicd_resp_t  *resp; /* ... parsed */
} nicd_upstream_req_t;

/* the request of ur ends before its response did (the client went): the
 * try in progress has its response time */
void nicd_upstream_req_end(nicd_worker_t *w, nicd_upstream_req_t *ur);

/* the $upstream_* variables (upstream_vars.c), the upstream module's */
extern const nicd_var_t nicd_upstream_vars[];

/* what sends a request to the next server (proxy_next_upstream), as
 * nginx's NGX_HTTP_UPSTREAM_FT_* */
enum {
    NICD_FT_ERROR = 0x1,
    NICD_FT_TIMEOUT = 0x2,
    NICD_FT_INVALID_HEADER = 0x4,
    NICD_FT_HTTP_500 = 0x8,
    NICD_FT_HTTP_502 = 0x10,
    NICD_FT_HTTP_503 = 0x20,
    NICD_FT_HTTP_504 = 0x40,
    NICD_FT_HTTP_403 = 0x80,
    NICD_FT_HTTP_404 = 0x100,
    NICD_FT_HTTP_429 = 0x200,
    NICD_FT_NON_IDEMPOTENT = 0x400,
    NICD_FT_OFF = 0x800
};

/* the upstream's fields a module ignores (proxy_ignore_headers) */
enum {
    NICD_IGNORE_ACCEL_REDIRECT = 0x1,
    NICD_IGNORE_ACCEL_LIMIT_RATE = 0x2,
    NICD_IGNORE_ACCEL_BUFFERING = 0x4
};

/*
 * How a module's requests go to their upstream, as nginx's
 * ngx_http_upstream_conf_t (the proxy module's directives set it): the
 * exchange (upstream_io.c) and the head relayed (upstream_head.c) read
 * nothing else of the module.
 */
typedef struct nicd_upstream_conf_s {
    long   connect_timeout, send_timeout, read_timeout, next_timeout; /* ms */
    int    next_upstream; /* NICD_FT_* bits */
    int    next_tries;    /* 0: any */
    int    buffering, request_buffering, nbuffers;
    size_t buffer_size, buffers_size, max_temp_file_size, busy_buffers_size;
    const char *temp_path; /* proxy_temp_path (NULL: the system's, /tmp) */
    int         intercept_errors, ignore_client_abort, socket_keepalive;
    int         ignore_headers; /* NICD_IGNORE_* */
    char      **hide, **pass;   /* fields hidden, passed (NULL: none) */
    int         nhide, npass;
    /* a Location or Refresh URL (len bytes) rewritten into b: 1, or 0
     * when it stays (proxy_redirect); owner: the module's settings */
    int (*rewrite)(nicd_conn_t *c, const void *owner, const char *v, size_t len,
                   nicd_buf_t *b);
    const void *owner;
} nicd_upstream_conf_t;

/*
 * The request at hand (r its view) goes to pk's servers as rq (its bytes,
 * taken): the request is suspended (handler.h) and answered as the
 * upstream answers, or 502, 504 (upstream_io.c).
 */
void nicd_upstream_start(nicd_conn_t *c, const nicd_request_t *r,
                         const nicd_upstream_conf_t *uc,
                         nicd_upstream_pick_t *pk, nicd_buf_t *rq);

/* a response head to relay (upstream_head.c) */
typedef struct {
    const nicd_upstream_conf_t *uc;
    const nicd_resp_t          *resp;
    const char                 *head; /* its bytes */
    int                         method;
    const char                 *client, *server; /* for log lines */
} nicd_upstream_head_t;

/* h's status and fields to the client, the head ended (the request at
 * hand resumed) */
void nicd_upstream_relay_head(nicd_conn_t *c, const nicd_upstream_head_t *h);
/*
 * A proxied body in a temporary file (upstream_spill.c) while its client
 * is slower than its upstream: written at wr, read back from rd; fd -1:
 * no file yet.  store: p's n bytes added (the file made in dir the first
 * time): 0, or -1 (errno).  read: up to cap bytes read back, the file
 * starting again once all is: how many (0: none left), or -1 (errno).
 */
typedef struct {
    int   fd;
    off_t wr, rd;
} nicd_spill_t;
int nicd_spill_store(nicd_spill_t *s, const char *dir, const char *p, size_t n);
ssize_t nicd_spill_read(nicd_spill_t *s, char *buf, size_t cap);
void    nicd_spill_close(nicd_spill_t *s);
/*
 * "*_temp_path PATH [L1 [L2 [L3]]]" (each level 1 or 2), a generic
 * setter: the char * at the directive's offset, where a response waits
 * for a slow client (proxy_temp_path), made if it is not there (its
 * files have no name: the levels name no subdirectory); offset 0: a path
 * nicd keeps nothing in (client_body_temp_path and the like), only
 * checked.  NULL, or a message.
 */
const char *nicd_upstream_slot_temp_path(parse_t *ps, const char **a, int n);

/* the failure a status is, for proxy_next_upstream http_* (0: none) */
int nicd_upstream_status_ft(int status);
/* X-Accel-Limit-Rate of rp (head: its bytes), unless uc ignores it: the
 * response's rate, over limit_rate (a redirect's too) */
void nicd_upstream_accel_rate(nicd_conn_t *c, const nicd_upstream_conf_t *uc,
                              const nicd_resp_t *rp, const char *head);
/* 1 when name (len bytes, any case) is in the list l of n */
int nicd_upstream_listed(char *const *l, int n, const char *name, size_t len);

/* "http://HOST[:PORT][URI]" of u (len bytes), and nginx's
 * "http://unix:PATH:URI": its parts (port.p NULL: none; uri.p NULL:
 * none): 0, or -1 (upstream_url.c) */
int nicd_upstream_split_url(const char *u, size_t len, nicd_str_t *host,
                            nicd_str_t *port, nicd_str_t *uri);
/* the Host field and port a URL's host and port (as split) give, into
 * hb and pb, NUL-terminated (nginx's $proxy_host, $proxy_port): HOST and
 * its port unless 80, the port or 80; "localhost" and none for a
 * UNIX-domain socket (upstream_url.c) */
void nicd_upstream_host_of(nicd_str_t host, nicd_str_t port, nicd_buf_t *hb,
                           nicd_buf_t *pb);
/* the group or address a URL made at run time names (a group, an
 * implicit group of a proxy_pass, an IP address; name: room for its
 * $upstream_addr): 0, or the status to answer (logged) */
int nicd_upstream_pick_url(nicd_conn_t *c, nicd_upstream_pick_t *pk,
                           nicd_str_t host, nicd_str_t port, char *name,
                           size_t cap);

/* the server at hand's */
static inline const nicd_upstream_server_t *
nicd_upstream_server(const nicd_upstream_pick_t *pk)
{
    return &pk->u->servers[pk->server];
}

#endif /* NICD_UPSTREAM_H */
