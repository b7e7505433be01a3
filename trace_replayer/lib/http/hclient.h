/*
 * One HTTP/1.1 client connection on the caller's epoll set, shared by
 * nicreplay and nicload: a non-blocking connect, requests written back to
 * back (pipelined) from a write buffer, responses read in order with
 * hresp.c.  What the requests are, and what a response or a lost
 * connection means, is the caller's: it learns through callbacks.
 *
 * The caller registers nothing itself: hclient_open() adds the socket to
 * the epoll set (edge-triggered, data.ptr = the hclient_t), and the
 * caller's loop hands each event to hclient_event().  Callbacks run from
 * hclient_event() and hclient_flush(); lost() and idle() end the event
 * (the caller may close, reconnect or write new requests in them), the
 * others must not close the connection.
 */

#ifndef TRACE_HCLIENT_H
#define TRACE_HCLIENT_H

#include <netdb.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/causes.h"
#include "lib/http/hresp.h"

/* how a connection was lost (hclient_ops_t.lost) */
enum {
    HC_CONNECT = 0, /* the connect failed */
    HC_CLOSED,      /* closed (or reset) between responses, some pending */
    HC_CUT,         /* closed (or reset) inside a response */
    HC_PARSE,       /* a response that does not parse, or bytes nobody
                       asked for */
    HC_NOMEM
};

typedef struct {
    /* A response begins (the first, and each after one is done): 1 when
     * it answers a HEAD. */
    int (*start)(void *ud);
    /* Body bytes at offset off of the response (may be NULL). */
    void (*body)(void *ud, uint64_t off, const char *p, size_t n);
    /* A response is complete. */
    void (*done)(void *ud, const hresp_t *r);
    /* Every response asked for is in (the connection stays open unless
     * the server closed it: closed is 1 then, and it is closed). */
    void (*idle)(void *ud, int closed);
    /* The connection is up: the caller writes its requests. */
    void (*connected)(void *ud);
    /* The connection failed (HC_*); it is closed.  answered: responses
     * it had given. */
    void (*lost)(void *ud, int how, uint64_t answered);
} hclient_ops_t;

typedef struct hclient_s       hclient_t;
typedef struct hclient_proto_s hclient_proto_t;
typedef struct hclient_tls_s   hclient_tls_t; /* hclient_tls.h */
typedef struct hclient_tls_s   hclient_tls_t; /* hclient_tls.h */

struct hclient_s {
    int         fd; /* -1: closed */
    int         connecting;
    char       *wbuf;
    size_t      wlen, woff, wcap;
    char       *rbuf;
    size_t      rlen, rcap;
    hresp_t     resp;
    uint64_t    pending;     /* responses asked for, not yet in */
    uint64_t    answered;    /* responses on this connection */
    uint64_t    activity_ns; /* the last progress (CLOCK_MONOTONIC) */
    int         err;         /* errno of the last loss (0: none, or a
                                 close); kept until the next open */
    const char *err_text;    /* a TLS failure's reason (static), or
                                      NULL: err says it */
    /* TLS (NULL: cleartext): the target's, set before hclient_open() */
    hclient_tls_t       *tls;
    void                *ssl; /* the connection's SSL */
    int                  handshaking;
    int                  ready; /* connected() was called */
    const hclient_ops_t *ops;
    void                *ud;
    /* another protocol than HTTP/1.1 on the socket (NULL: HTTP/1.1), and
     * its state; set proto before hclient_open() */
    const hclient_proto_t *proto;
    void                  *pstate;
};

/*
 * A protocol under the same callbacks: connected() when the socket is up
 * (0, or -1: the connection is lost), flush() for hclient_flush(),
 * readable() for the read side, close() frees pstate.  The caller's
 * requests are still HTTP/1.1 text in the write buffer; the protocol
 * sends them its way.
 */
struct hclient_proto_s {
    const char *name;
    int (*connected)(hclient_t *c);
    int (*flush)(hclient_t *c);
    void (*readable)(hclient_t *c, int hup);
    void (*close)(hclient_t *c);
};

/* HTTP/2 over cleartext TCP, with prior knowledge (hclient_h2.c) */
extern const hclient_proto_t hclient_h2;

/* A closed client with its callbacks. */
void hclient_init(hclient_t *c, const hclient_ops_t *ops, void *ud);

/* Free the buffers (and close). */
void hclient_free(hclient_t *c);

/* Connect to ai and add the socket to ep: 0, or -1 with errno (and
 * c->err). */
int hclient_open(hclient_t *c, int ep, const struct addrinfo *ai);

/* Close (the socket leaves the epoll set with it); buffers are kept. */
void hclient_close(hclient_t *c);

/* The connection is lost (HC_*): closed, and the caller told (lost()). */
void hclient_lose(hclient_t *c, int how);

/*
 * Count a loss (HC_*, as lost() got it) in causes: "connect: Connection
 * refused", "read: Connection reset by peer", "closed: before a response",
 * "response: did not parse", ...  A failed hclient_open() is HC_CONNECT.
 */
const cause_t *hclient_count_loss(causes_t *causes, const hclient_t *c,
                                  int how);

/*
 * Room for n more bytes of requests at the end of the write buffer (the
 * buffer is emptied first when everything in it was sent): a pointer to
 * write them to, then hclient_commit() with how many were written.
 * NULL when out of memory.
 */
char *hclient_space(hclient_t *c, size_t n);
void  hclient_commit(hclient_t *c, size_t n, uint64_t responses);

/* The socket's bytes, through TLS when the connection has it: as read(2)
 * and send(2) (-1 with errno EAGAIN: wait for the next event).  For the
 * protocols (hclient_h2.c). */
ssize_t hclient_recv(hclient_t *c, void *buf, size_t n);
ssize_t hclient_send(hclient_t *c, const void *buf, size_t n);

/* Write what can be written now: 0, or -1 when the socket failed (the
 * read side reports it). */
int hclient_flush(hclient_t *c);

/* An epoll event for c. */
void hclient_event(hclient_t *c, uint32_t events);

/*
 * "http://HOST[:PORT][/]" or "https://..." (HOST a name, an IPv4 address
 * or [IPv6]): its addresses into *ai (freeaddrinfo() them), the Host
 * header's value into hdr (hlen bytes) and the host alone into name
 * (namelen bytes; may be NULL): for TLS's server name.  0 for http, 1 for
 * https, or -1 with the reason, naming url, in err.  A path other than
 * "/" is refused: the caller's requests give them.
 */
int hclient_parse_url(const char *url, struct addrinfo **ai, char *hdr,
                      size_t hlen, char *name, size_t namelen, char *err,
                      size_t errlen);

/*
 * One request on a connection of its own, blocking: a tool's check before
 * or after a run (a file set's size, a server's counters), never its load.
 * METHOD path to sa (through tls when not NULL) with Host host and
 * Connection: close, timeout_s each way.  Returns the response's status (0: not an HTTP/1.x response), -1
 * when the connect failed, -2 when nothing came back; why (may be NULL)
 * then says why ("Connection refused", a TLS failure).
 * body (may be NULL): the body, NUL-terminated, for the caller to free,
 * and its length in *blen.
 */
int hclient_fetch(const struct sockaddr *sa, socklen_t salen,
                  hclient_tls_t *tls, const char *host, const char *method,
                  const char *path, int timeout_s, char **body, size_t *blen,
                  const char **why);

/*
 * --max-errors N|P%: how many connections (a count, or a share of those
 * tried) may fail to connect before a run counts as failed; the default,
 * 0, fails a run on the first one.  hclient_limit_parse: 0, or -1 for a
 * value that is neither.  hclient_limit_exceeded: 1 when failed of
 * tried is over the limit (while the run goes, final 0, a share is judged
 * once 100 were tried; at its end, final 1, whatever the count).
 * hclient_limit_why: the failure's sentence ("3 of 8 connections could
 * not connect, past --max-errors 0 (connect: ...)") into buf.
 */
typedef struct {
    double value;
    int    percent;
} hclient_limit_t;

int         hclient_limit_parse(const char *s, hclient_limit_t *l);
int         hclient_limit_exceeded(const hclient_limit_t *l, uint64_t failed,
                                   uint64_t tried, int final);
const char *hclient_limit_why(const hclient_limit_t *l, uint64_t failed,
                              uint64_t tried, int stopped, const char *causes,
                              char *buf, size_t len);

#endif /* TRACE_HCLIENT_H */
