/*
 * A proxied request's exchange with its upstream (upstream_io.c), and
 * the parts of it that call nothing above them (upstream_conn.c): for
 * those two files only.
 */

#ifndef NICD_UPSTREAM_IO_H
#define NICD_UPSTREAM_IO_H

#include <sys/types.h>

#include "server/http/upstream.h"

enum { S_CONNECT = 0, S_SEND, S_HEAD, S_BODY, S_DONE, S_TUNNEL };

typedef struct {
    nicd_req_t                 *req;
    nicd_worker_t              *w;
    const nicd_upstream_conf_t *uc;
    nicd_upstream_pick_t        pk;
    nicd_upstream_req_t         ur;
    int                         fd;
    nicd_upstream_sock_t       *sk; /* fd's connection, once made */
    nicd_ev_t                   ev;
    int                         ev_set;
    nicd_buf_t                  rq; /* the request to send */
    size_t                      rq_sent;
    nicd_buf_t                  in; /* the head as it comes, then body bytes */
    nicd_buf_t                  head; /* the head, kept for $upstream_http_ */
    nicd_resp_t                 resp;
    nicd_chunked_t              chunk;
    int                         state;
    int                         cached, requests; /* an idle connection taken */
    long                        born;   /* when its connection was made */
    int                         method; /* the client's */
    int      until_close;               /* the body ends with the connection */
    uint64_t left;                      /* body bytes to come (length) */
    long     start_ms, try_ms;
    unsigned started : 1;  /* the client's head has gone */
    unsigned paused : 1;   /* waiting for the client */
    unsigned finished : 1; /* nothing more to do but free */
    unsigned keep : 1;     /* the connection may be kept */
    /* the client is slower: the body goes to a temporary file (spilling)
     * until it has taken it; body_done: the upstream's part is over (cut:
     * cut short), the rest comes from the file */
    unsigned     spilling : 1;
    unsigned     body_done : 1;
    unsigned     cut : 1;
    int          spill_err; /* an errno writing the file */
    nicd_spill_t spill;
    nicd_ev_t    wev; /* a tunnel's writes to the upstream */
    int          wev_set;
} up_t;

static inline nicd_upstream_try_t *
nicd_up_try(up_t *p)
{
    return &p->ur.tries[p->ur.ntries > 0 ? p->ur.ntries - 1 : 0];
}

static inline long
nicd_up_now(up_t *p)
{
    return nicd_worker_now_ms(p->w);
}

/* the log line's tail, nginx's: while doing what, and for whom */
void nicd_up_log(up_t *p, int level, int err, const char *what,
                 const char *during);
/* its upstream connection closed, its events removed */
void nicd_up_close(up_t *p);
/* the request's cleanup: its response has gone, or the client went */
void nicd_up_cleanup(void *data);
/* may a failure ft of the server at hand go to the next one? */
int nicd_up_may_go_next(up_t *p, int ft);
/* p->rq's bytes not yet sent, to the upstream: 1 when all went, 0 when
 * the socket is full, -1 on an error (errno) */
int nicd_up_send(up_t *p);
/* read what the upstream sent into p->in: bytes read, 0 at its end, -1
 * (errno) on an error, -2 when nothing is there yet */
ssize_t nicd_up_read(up_t *p, size_t want);

#endif /* NICD_UPSTREAM_IO_H */
