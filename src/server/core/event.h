/*
 * A worker's event loop: libevent's (the default, and the fallback) or
 * io_uring's (events { use io_uring; }, event_uring.c).  Events are
 * libevent's in shape: a descriptor (or -1: a timer), what to wait for
 * (NICD_EV_READ, NICD_EV_WRITE, NICD_EV_PERSIST), a callback and its
 * argument; added with an optional timeout, removed, made active by hand.
 * On libevent every call is libevent's own, inline: the default loop
 * costs one test of a flag.
 */

#ifndef NICD_EVENT_H
#define NICD_EVENT_H

#include <event2/event.h>
#include <event2/event_struct.h>
#include <stdint.h>
#include <sys/time.h>

#define NICD_EV_TIMEOUT EV_TIMEOUT
#define NICD_EV_READ    EV_READ
#define NICD_EV_WRITE   EV_WRITE
#define NICD_EV_PERSIST EV_PERSIST

enum { NICD_LOOP_LIBEVENT = 0, NICD_LOOP_URING = 1 };

typedef void (*nicd_ev_handler_pt)(int fd, short what, void *arg);

typedef struct nicd_loop_s  nicd_loop_t;
typedef struct nicd_ev_s    nicd_ev_t;
typedef struct nicd_uring_s nicd_uring_t;

struct nicd_loop_s {
    struct event_base *base;    /* libevent's, or NULL */
    nicd_uring_t      *u;       /* io_uring's, or NULL */
    long               held_ms; /* its clock held (nicd_loop_hold_now), or 0 */
};

typedef struct {
    nicd_ev_t *next, *prev;
} nicd_ev_link_t;

/* an event of the io_uring loop (event_uring.c's) */
typedef struct {
    nicd_loop_t       *loop;
    nicd_ev_handler_pt cb;
    void              *arg;
    int                fd;
    short              events; /* NICD_EV_READ | WRITE | PERSIST */
    short              res;    /* what made it active */
    unsigned           added : 1;
    unsigned char      in[2];    /* on the active list, on the list to arm */
    nicd_ev_link_t     q[2];     /* ... their links */
    void              *tok;      /* its poll in the ring, or NULL */
    int64_t            deadline; /* ns (CLOCK_MONOTONIC) */
    int64_t            interval; /* ns: the timeout asked for; -1 none */
    int                heap;     /* its place in the timer heap, or -1 */
} nicd_uev_t;

struct nicd_ev_s {
    union {
        struct event lev; /* libevent's */
        nicd_uev_t   u;
    } e;
    unsigned char uring; /* which of the two */
};

/* ---- loops ---- */

/*
 * A new loop of kind (NICD_LOOP_*); method: libevent's held to that one
 * ("epoll", "poll", "select"; "" or NULL: its own choice); precise: timers
 * to the microsecond (a pacing backend's).  NULL with a reason in err.
 */
nicd_loop_t *nicd_loop_new(int kind, const char *method, int precise, char *err,
                           size_t errlen);
void         nicd_loop_free(nicd_loop_t *l);
/* runs until nicd_loop_exit() or nicd_loop_break(); 0, or -1 on error */
int nicd_loop_run(nicd_loop_t *l);
/* one turn that does not wait: what is ready, and the callbacks it makes
 * active (a unit test's turns); 0, or -1 on error */
int nicd_loop_turn(nicd_loop_t *l);
/* leave the loop once this turn's callbacks have run */
void nicd_loop_exit(nicd_loop_t *l);
/* leave the loop after the callback at hand */
void nicd_loop_break(nicd_loop_t *l);
/* a timeout of ms that many events share (libevent's common timeouts):
 * what to give nicd_ev_add(), for the loop's lifetime; NULL for ms < 0,
 * or past 256 of them */
const struct timeval *nicd_loop_common_tv(nicd_loop_t *l, long ms);
/* whether this kernel and build run the io_uring loop; if not, why */
int         nicd_loop_uring_works(char *why, size_t whylen);
const char *nicd_loop_name(int kind);
/* the method it runs: "io_uring", or libevent's ("epoll", "poll", ...) */
const char *nicd_loop_method(const nicd_loop_t *l);

/* the io_uring loop's (event_uring.c) */
nicd_uring_t         *nicd_uring_new(int precise, char *err, size_t errlen);
void                  nicd_uring_free(nicd_uring_t *u);
int                   nicd_uring_run(nicd_uring_t *u, int once);
void                  nicd_uring_stop(nicd_uring_t *u, int at_once);
const struct timeval *nicd_uring_common_tv(nicd_uring_t *u, long ms);
long                  nicd_uring_now_ms(nicd_uring_t *u);
int                   nicd_uev_add(nicd_ev_t *ev, const struct timeval *tv);
void                  nicd_uev_del(nicd_ev_t *ev);
void                  nicd_uev_active(nicd_ev_t *ev, short what);
void nicd_uev_set(nicd_ev_t *ev, nicd_loop_t *l, int fd, short what,
                  nicd_ev_handler_pt cb, void *arg);

/* the loop's cached clock (wall time), in milliseconds */
static inline long
nicd_loop_now_ms(nicd_loop_t *l)
{
    struct timeval tv;

    if (l->held_ms != 0) {
        return l->held_ms;
    }
    if (l->u != NULL) {
        return nicd_uring_now_ms(l->u);
    }
    event_base_gettimeofday_cached(l->base, &tv);
    return (long) tv.tv_sec * 1000 + (long) tv.tv_usec / 1000;
}

/*
 * The clock held for the length of one callback that reads it many times
 * (a batch of pipelined requests reads it five times a request): libevent
 * keeps it for the whole turn of its loop, so what a held clock says is
 * what libevent's would, without the call.  Returns what to give back to
 * nicd_loop_let_go_now() (a callback within another keeps its clock).
 * The ring's clock is a field already: not held.
 */
static inline long
nicd_loop_hold_now(nicd_loop_t *l)
{
    long before = l->held_ms;

    if (before == 0 && l->u == NULL) {
        l->held_ms = nicd_loop_now_ms(l);
    }
    return before;
}

static inline void
nicd_loop_let_go_now(nicd_loop_t *l, long before)
{
    l->held_ms = before;
}

/* ---- events ---- */

/* ev set up for fd (-1: a timer only), what, cb(fd, what, arg) */
static inline void
nicd_ev_set(nicd_ev_t *ev, nicd_loop_t *l, int fd, short what,
            nicd_ev_handler_pt cb, void *arg)
{
    ev->uring = l->u != NULL;
    if (ev->uring) {
        nicd_uev_set(ev, l, fd, what, cb, arg);
    } else {
        event_assign(&ev->e.lev, l->base, fd, what, cb, arg);
    }
}

/* wait for it (again), tv at most (NULL: no time limit); 0 or -1 */
static inline int
nicd_ev_add(nicd_ev_t *ev, const struct timeval *tv)
{
    return ev->uring ? nicd_uev_add(ev, tv) : event_add(&ev->e.lev, tv);
}

static inline void
nicd_ev_del(nicd_ev_t *ev)
{
    if (ev->uring) {
        nicd_uev_del(ev);
    } else {
        event_del(&ev->e.lev);
    }
}

/* run its callback with what from the loop, soon, as if it had happened */
static inline void
nicd_ev_active(nicd_ev_t *ev, short what)
{
    if (ev->uring) {
        nicd_uev_active(ev, what);
    } else {
        event_active(&ev->e.lev, what, 0);
    }
}

/* whether it waits for any of what (NICD_EV_TIMEOUT: its timer) */
static inline int
nicd_ev_pending(const nicd_ev_t *ev, short what)
{
    if (ev->uring) {
        return ev->e.u.added
               && (((what & NICD_EV_TIMEOUT) && ev->e.u.heap >= 0)
                   || (what & ev->e.u.events & (NICD_EV_READ | NICD_EV_WRITE)));
    }
    return event_pending(&ev->e.lev, what, NULL);
}

/* an event of its own allocation (NULL when out of memory), and its end */
nicd_ev_t *nicd_ev_new(nicd_loop_t *l, int fd, short what,
                       nicd_ev_handler_pt cb, void *arg);
void       nicd_ev_free(nicd_ev_t *ev);

#endif /* NICD_EVENT_H */
