/*
 * The floor: what a server on this kernel cannot beat (issue 44).  Two
 * minimal HTTP/1.1 responders, one on epoll (floor_epoll.c) and one on
 * io_uring (floor_uring.c), share this part: every file of a folder read
 * into memory once with its whole response in front of it, and the
 * smallest request reading that still answers each request of a
 * pipelined batch with the file its path names.  No headers are parsed,
 * no file is opened after the start, nothing is logged: what is left
 * is the kernel's work of accepting, receiving and sending, which bounds
 * every server in bench/peers.sh.
 */

#ifndef FLOOR_H
#define FLOOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define FLOOR_IN    16384 /* bytes of requests a connection holds */
#define FLOOR_QUEUE 256   /* responses a connection has waiting */
#define FLOOR_IOV   64    /* iovecs a send takes */

typedef struct {
    char  *name; /* "/1k.bin" */
    size_t nlen;
    char  *resp; /* the head, then the file's bytes */
    size_t len;
} floor_file_t;

/* a connection: the requests read and not yet whole, the responses to
 * send (indices into the files; the last one is the 404) and how much
 * of the first is gone */
typedef struct {
    char     in[FLOOR_IN];
    size_t   inlen;
    uint16_t q[FLOOR_QUEUE];
    unsigned qhead, qlen;
    size_t   sent; /* of q[qhead]'s response */
} floor_conn_t;

/* the command line (--port N --root DIR): the listening socket
 * (non-blocking, 127.0.0.1) and the files loaded; exits with one line
 * on a bad argument */
int floor_start(int argc, char **argv, const char *prog);

/* the requests whole in c->in, each one's response queued: 0, or -1
 * for a connection to close (a request too long, a queue full) */
int floor_take(floor_conn_t *c);

/* the iovecs of what c has to send (at most n): their count */
int floor_iov(const floor_conn_t *c, struct iovec *iov, int n);

/* n bytes of c's queue sent */
void floor_sent(floor_conn_t *c, size_t n);

#endif
