/*
 * The io_uring event loop (events { use io_uring; }).  Readiness comes
 * from poll requests on the ring, one in flight per waiting event, armed
 * again after each completion while the event stays added (the level
 * semantics of libevent's epoll, so callers that do not drain a socket
 * are told again); timers live in a heap and the nearest one bounds the
 * wait.  Every poll armed, removed or re-armed in a turn goes to the
 * kernel with that turn's wait, in one io_uring_enter().
 *
 * A poll's completion can arrive after its event was removed and its
 * memory freed, so the ring carries a token, not the event: the token
 * forgets the event when the event is removed, and is freed when the
 * completions of its poll and of any removal of it have both arrived.
 * The floor (bench/floor/) put an io_uring responder at 1.00-1.02x the
 * epoll one on this kernel, so the loop stays this small: no multishot
 * receive into provided buffers, which would pay only past that floor.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "server/core/event.h"

#if defined(HAVE_LIBURING)

#include <liburing.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RING_ENTRIES 1024
#define TOKS_CHUNK   256
#define NCOMMON      256 /* shared timeouts (libevent's limit too) */
#define Q_ACTIVE     0
#define Q_ARM        1

typedef struct tok_s tok_t;
struct tok_s {
    nicd_ev_t *ev;   /* NULL once removed */
    int        refs; /* completions still to come */
    tok_t     *next; /* free list */
};

typedef struct chunk_s {
    struct chunk_s *next;
    tok_t           toks[TOKS_CHUNK];
} chunk_t;

typedef struct {
    nicd_ev_t *head, *tail;
} evq_t;

struct nicd_uring_s {
    struct io_uring ring;
    nicd_ev_t     **heap;
    int             nheap, heap_size;
    evq_t           q[2]; /* Q_ACTIVE, Q_ARM */
    tok_t          *free_toks;
    chunk_t        *chunks;
    struct timeval  common[NCOMMON];
    int             ncommon;
    int             disabled; /* made disabled: enabled by the thread
                                 that runs it (single issuer) */
    int64_t         now_ns;   /* CLOCK_MONOTONIC, cached a turn */
    long            now_ms;   /* wall clock, cached a turn */
    int             stop;     /* 1: after the turn; 2: at once */
};

/* ---- clocks ---- */

static void
clocks(nicd_uring_t *u)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    u->now_ns = (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
    clock_gettime(CLOCK_REALTIME, &ts);
    u->now_ms = (long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long
nicd_uring_now_ms(nicd_uring_t *u)
{
    return u->now_ms;
}

/* ---- the two lists ---- */

static void
q_push(nicd_uring_t *u, nicd_ev_t *ev, int which)
{
    evq_t      *q = &u->q[which];
    nicd_uev_t *e = &ev->e.u;

    e->q[which].next = NULL;
    e->q[which].prev = q->tail;
    if (q->tail != NULL) {
        q->tail->e.u.q[which].next = ev;
    } else {
        q->head = ev;
    }
    q->tail = ev;
    e->in[which] = 1;
}

static void
q_unlink(nicd_uring_t *u, nicd_ev_t *ev, int which)
{
    evq_t      *q = &u->q[which];
    nicd_uev_t *e = &ev->e.u;

    if (!e->in[which]) {
        return;
    }
    if (e->q[which].prev != NULL) {
        e->q[which].prev->e.u.q[which].next = e->q[which].next;
    } else {
        q->head = e->q[which].next;
    }
    if (e->q[which].next != NULL) {
        e->q[which].next->e.u.q[which].prev = e->q[which].prev;
    } else {
        q->tail = e->q[which].prev;
    }
    e->in[which] = 0;
}

/* ---- the timer heap ---- */

static void
heap_put(nicd_uring_t *u, int i, nicd_ev_t *ev)
{
    u->heap[i] = ev;
    ev->e.u.heap = i;
}

static void
heap_up(nicd_uring_t *u, int i)
{
    nicd_ev_t *ev = u->heap[i];

    while (i > 0) {
        int p = (i - 1) / 2;

        if (u->heap[p]->e.u.deadline <= ev->e.u.deadline) {
            break;
        }
        heap_put(u, i, u->heap[p]);
        i = p;
    }
    heap_put(u, i, ev);
}

static void
heap_down(nicd_uring_t *u, int i)
{
    nicd_ev_t *ev = u->heap[i];

    for (;;) {
        int c = 2 * i + 1;

        if (c >= u->nheap) {
            break;
        }
        if (c + 1 < u->nheap
            && u->heap[c + 1]->e.u.deadline < u->heap[c]->e.u.deadline) {
            c++;
        }
        if (ev->e.u.deadline <= u->heap[c]->e.u.deadline) {
            break;
        }
        heap_put(u, i, u->heap[c]);
        i = c;
    }
    heap_put(u, i, ev);
}

static int
heap_set(nicd_uring_t *u, nicd_ev_t *ev, int64_t deadline)
{
    nicd_uev_t *e = &ev->e.u;

    if (e->heap < 0) {
        if (u->nheap == u->heap_size) {
            int         n = u->heap_size ? 2 * u->heap_size : 64;
            nicd_ev_t **h = realloc(u->heap, (size_t) n * sizeof(*h));

            if (h == NULL) {
                return -1;
            }
            u->heap = h;
            u->heap_size = n;
        }
        e->deadline = deadline;
        heap_put(u, u->nheap++, ev);
        heap_up(u, e->heap);
        return 0;
    }
    e->deadline = deadline;
    heap_up(u, e->heap);
    heap_down(u, e->heap);
    return 0;
}

static void
heap_remove(nicd_uring_t *u, nicd_ev_t *ev)
{
    int i = ev->e.u.heap;

    if (i < 0) {
        return;
    }
    ev->e.u.heap = -1;
    if (--u->nheap == i) {
        return;
    }
    heap_put(u, i, u->heap[u->nheap]);
    heap_up(u, i);
    heap_down(u, u->heap[i]->e.u.heap);
}

/* ---- the ring ---- */

static struct io_uring_sqe *
sqe_get(nicd_uring_t *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

    if (sqe == NULL) { /* full: what is there goes now */
        io_uring_submit(&u->ring);
        sqe = io_uring_get_sqe(&u->ring);
    }
    return sqe;
}

static tok_t *
tok_get(nicd_uring_t *u)
{
    tok_t *t;
    int    i;

    if (u->free_toks == NULL) {
        chunk_t *c = malloc(sizeof(*c));

        if (c == NULL) {
            return NULL;
        }
        c->next = u->chunks;
        u->chunks = c;
        for (i = TOKS_CHUNK - 1; i >= 0; i--) {
            c->toks[i].next = u->free_toks;
            u->free_toks = &c->toks[i];
        }
    }
    t = u->free_toks;
    u->free_toks = t->next;
    return t;
}

static void
tok_put(nicd_uring_t *u, tok_t *t)
{
    t->next = u->free_toks;
    u->free_toks = t;
}

/* the poll of ev into the ring (at the turn's end: the list to arm) */
static void
arm(nicd_uring_t *u, nicd_ev_t *ev)
{
    nicd_uev_t          *e = &ev->e.u;
    struct io_uring_sqe *sqe;
    tok_t               *t = tok_get(u);
    unsigned             mask = 0;

    if (t == NULL || (sqe = sqe_get(u)) == NULL) {
        if (t != NULL) {
            tok_put(u, t);
        }
        q_push(u, ev, Q_ARM); /* the next turn, then */
        return;
    }
    mask |= (e->events & NICD_EV_READ) ? POLLIN : 0;
    mask |= (e->events & NICD_EV_WRITE) ? POLLOUT : 0;
    io_uring_prep_poll_add(sqe, e->fd, mask);
    io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) t);
    t->ev = ev;
    t->refs = 1;
    e->tok = t;
}

/* ev's poll, if any, out of the ring: its token forgets ev */
static void
disarm(nicd_uring_t *u, nicd_ev_t *ev)
{
    tok_t               *t = ev->e.u.tok;
    struct io_uring_sqe *sqe;

    if (t == NULL) {
        return;
    }
    ev->e.u.tok = NULL;
    t->ev = NULL;
    sqe = sqe_get(u);
    if (sqe == NULL) {
        return; /* (its completion comes when it fires; t forgot ev) */
    }
    io_uring_prep_poll_remove(sqe, (uint64_t) (uintptr_t) t);
    io_uring_sqe_set_data64(sqe, (uint64_t) (uintptr_t) t | 1);
    t->refs++;
}

/* ev on the list to arm at the turn's end, if it waits on a descriptor
 * and has no poll in the ring nor is on the list already */
static void
want_arm(nicd_uring_t *u, nicd_ev_t *ev)
{
    nicd_uev_t *e = &ev->e.u;

    if (e->added && e->tok == NULL && e->fd >= 0
        && (e->events & (NICD_EV_READ | NICD_EV_WRITE)) && !e->in[Q_ARM]) {
        q_push(u, ev, Q_ARM);
    }
}

/* ---- events ---- */

void
nicd_uev_set(nicd_ev_t *ev, nicd_loop_t *l, int fd, short what,
             nicd_ev_handler_pt cb, void *arg)
{
    nicd_uev_t *e = &ev->e.u;

    memset(e, 0, sizeof(*e));
    e->loop = l;
    e->fd = fd;
    e->events = what;
    e->cb = cb;
    e->arg = arg;
    e->interval = -1;
    e->heap = -1;
}

int
nicd_uev_add(nicd_ev_t *ev, const struct timeval *tv)
{
    nicd_uev_t   *e = &ev->e.u;
    nicd_uring_t *u = e->loop->u;

    e->added = 1;
    if (tv != NULL) {
        e->interval =
            (int64_t) tv->tv_sec * 1000000000 + (int64_t) tv->tv_usec * 1000;
        if (heap_set(u, ev, u->now_ns + e->interval) != 0) {
            return -1;
        }
    }
    want_arm(u, ev);
    return 0;
}

void
nicd_uev_del(nicd_ev_t *ev)
{
    nicd_uev_t   *e = &ev->e.u;
    nicd_uring_t *u = e->loop->u;

    e->added = 0;
    e->interval = -1;
    heap_remove(u, ev);
    q_unlink(u, ev, Q_ACTIVE);
    q_unlink(u, ev, Q_ARM);
    disarm(u, ev);
}

void
nicd_uev_active(nicd_ev_t *ev, short what)
{
    nicd_uev_t *e = &ev->e.u;

    if (e->in[Q_ACTIVE]) {
        e->res |= what;
        return;
    }
    e->res = what;
    q_push(e->loop->u, ev, Q_ACTIVE);
}

/* ev's wait is over with what: made active as libevent would */
static void
fire(nicd_uring_t *u, nicd_ev_t *ev, short what)
{
    nicd_uev_t *e = &ev->e.u;

    if (!(e->events & NICD_EV_PERSIST)) {
        nicd_uev_del(ev);
    } else if (e->interval >= 0) { /* a persistent event's timer restarts */
        heap_set(u, ev, u->now_ns + e->interval);
    }
    want_arm(u, ev);
    nicd_uev_active(ev, what);
}

static void
completion(nicd_uring_t *u, const struct io_uring_cqe *cqe)
{
    tok_t      *t = (tok_t *) (uintptr_t) (cqe->user_data & ~(uint64_t) 1);
    nicd_ev_t  *ev = t->ev;
    short       what = 0;
    unsigned    got;
    nicd_uev_t *e;

    if (!(cqe->user_data & 1) && ev != NULL) { /* its poll, still wanted */
        e = &ev->e.u;
        e->tok = NULL;
        t->ev = NULL;
        if (cqe->res < 0) { /* (the callback's own call says what) */
            what = e->events & (NICD_EV_READ | NICD_EV_WRITE);
        } else {
            got = (unsigned) cqe->res;
            if (got & (POLLIN | POLLERR | POLLHUP | POLLRDHUP)) {
                what |= e->events & NICD_EV_READ;
            }
            if (got & (POLLOUT | POLLERR | POLLHUP)) {
                what |= e->events & NICD_EV_WRITE;
            }
        }
        if (what != 0) {
            fire(u, ev, what);
        } else {
            want_arm(u, ev);
        }
    }
    if (--t->refs == 0) {
        tok_put(u, t);
    }
}

static void
expire(nicd_uring_t *u)
{
    while (u->nheap > 0 && u->heap[0]->e.u.deadline <= u->now_ns) {
        nicd_ev_t *ev = u->heap[0];

        if (ev->e.u.events & NICD_EV_PERSIST) {
            heap_set(u, ev, u->now_ns + ev->e.u.interval);
        } else {
            nicd_uev_del(ev);
        }
        nicd_uev_active(ev, NICD_EV_TIMEOUT);
    }
}

/* ---- the loop ---- */

/*
 * The ring, with completions' task work run only when the loop asks for
 * events (no interrupting the thread for each: 6.1's DEFER_TASKRUN, one
 * issuer, so made disabled here and enabled by the worker's thread at
 * its first turn), else told by a flag (5.19's COOP_TASKRUN), else as
 * older kernels do.  0 or -errno.
 */
static int
ring_init(nicd_uring_t *u)
{
    static const unsigned flags[] = {
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN
            | IORING_SETUP_R_DISABLED,
        IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, 0};
    size_t i;
    int    rc = -EINVAL;

    for (i = 0; i < sizeof(flags) / sizeof(*flags) && rc == -EINVAL; i++) {
        rc = io_uring_queue_init(RING_ENTRIES, &u->ring, flags[i]);
        u->disabled = rc == 0 && (flags[i] & IORING_SETUP_R_DISABLED);
    }
    return rc;
}

nicd_uring_t *
nicd_uring_new(int precise, char *err, size_t errlen)
{
    nicd_uring_t *u = calloc(1, sizeof(*u));
    int           rc;

    (void) precise; /* (its timers are to the nanosecond anyway) */
    if (u == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* (NICACHE_URING_OFF=1 pretends the kernel refused, as for the uring
     * send backend: the tests of the fallback) */
    rc = getenv("NICACHE_URING_OFF") != NULL ? -ENOSYS : ring_init(u);
    if (rc < 0) {
        snprintf(err, errlen, "io_uring_queue_init() failed (%d: %s)", -rc,
                 strerror(-rc));
        free(u);
        return NULL;
    }
    if (!(u->ring.features & IORING_FEAT_EXT_ARG)) {
        snprintf(err, errlen, "io_uring has no timed waits (kernel < 5.11)");
        io_uring_queue_exit(&u->ring);
        free(u);
        return NULL;
    }
    clocks(u);
    return u;
}

void
nicd_uring_free(nicd_uring_t *u)
{
    chunk_t *c, *next;

    if (u == NULL) {
        return;
    }
    io_uring_queue_exit(&u->ring);
    for (c = u->chunks; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(u->heap);
    free(u);
}

void
nicd_uring_stop(nicd_uring_t *u, int at_once)
{
    if (at_once) {
        u->stop = 2;
    } else if (u->stop == 0) {
        u->stop = 1;
    }
}

const struct timeval *
nicd_uring_common_tv(nicd_uring_t *u, long ms)
{
    int i;

    for (i = 0; i < u->ncommon; i++) {
        if (u->common[i].tv_sec * 1000 + u->common[i].tv_usec / 1000 == ms) {
            return &u->common[i];
        }
    }
    if (u->ncommon == NCOMMON) {
        return NULL; /* (as libevent's past its queues) */
    }
    u->common[u->ncommon].tv_sec = ms / 1000;
    u->common[u->ncommon].tv_usec = (suseconds_t) (ms % 1000) * 1000;
    return &u->common[u->ncommon++];
}

/* one turn's wait: submit what the turn queued, then wait for a
 * completion (block: at most until the nearest timer; not at all when
 * events are active already or when not asked to) */
static int
wait_turn(nicd_uring_t *u, int block)
{
    struct io_uring_cqe     *cqe;
    struct __kernel_timespec ts, *tsp = NULL;
    int64_t                  ns;
    int                      rc;

    if (u->disabled) { /* (Debian 12's liburing does not export
                          io_uring_enable_rings(), which its header names) */
        if (syscall(__NR_io_uring_register, u->ring.ring_fd,
                    IORING_REGISTER_ENABLE_RINGS, NULL, 0)
            != 0) {
            return -errno;
        }
        u->disabled = 0;
    }
    while (u->q[Q_ARM].head != NULL) {
        nicd_ev_t *ev = u->q[Q_ARM].head;

        q_unlink(u, ev, Q_ARM);
        if (ev->e.u.added && ev->e.u.tok == NULL) {
            arm(u, ev);
            if (ev->e.u.in[Q_ARM]) {
                break; /* (no token or no room: the next turn) */
            }
        }
    }
    if (!block || u->q[Q_ACTIVE].head != NULL) {
        /* (and the completions ready, whose task work waits for this) */
        rc = io_uring_submit_and_get_events(&u->ring);
        return rc < 0 && rc != -EINTR && rc != -EBUSY ? rc : 0;
    }
    if (u->nheap > 0) {
        ns = u->heap[0]->e.u.deadline - u->now_ns;
        ns = ns < 0 ? 0 : ns;
        ts.tv_sec = ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        tsp = &ts;
    }
    rc = io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, tsp, NULL);
    return rc < 0 && rc != -ETIME && rc != -EINTR && rc != -EBUSY ? rc : 0;
}

/* one turn: the wait, its completions, the timers due, then every
 * callback made active (those they make active too); 0 or -errno */
static int
turn(nicd_uring_t *u, int block)
{
    struct io_uring_cqe *cqe;
    unsigned             head, n = 0;
    int                  rc = wait_turn(u, block);

    if (rc < 0) {
        return rc;
    }
    clocks(u);
    io_uring_for_each_cqe(&u->ring, head, cqe)
    {
        completion(u, cqe);
        n++;
    }
    io_uring_cq_advance(&u->ring, n);
    expire(u);
    while (u->q[Q_ACTIVE].head != NULL && u->stop != 2) {
        nicd_ev_t  *ev = u->q[Q_ACTIVE].head;
        nicd_uev_t *e = &ev->e.u;

        q_unlink(u, ev, Q_ACTIVE);
        e->cb(e->fd, e->res, e->arg); /* (which may free ev) */
    }
    return 0;
}

int
nicd_uring_run(nicd_uring_t *u, int once)
{
    int rc;

    u->stop = 0;
    do {
        rc = turn(u, !once);
        if (rc < 0) {
            errno = -rc;
            return -1;
        }
    } while (u->stop == 0 && !once);
    return 0;
}

int
nicd_loop_uring_works(char *why, size_t whylen)
{
    struct io_uring        ring;
    struct io_uring_probe *p;
    int                    rc, ok;

    rc = getenv("NICACHE_URING_OFF") != NULL ? -ENOSYS
                                             : io_uring_queue_init(4, &ring, 0);
    if (rc < 0) {
        snprintf(why, whylen, "io_uring_setup() failed (%d: %s)", -rc,
                 strerror(-rc));
        return 0;
    }
    p = io_uring_get_probe_ring(&ring);
    ok = p != NULL && io_uring_opcode_supported(p, IORING_OP_POLL_ADD)
         && io_uring_opcode_supported(p, IORING_OP_POLL_REMOVE)
         && (ring.features & IORING_FEAT_EXT_ARG);
    if (!ok) {
        snprintf(why, whylen,
                 "this kernel's io_uring has no polls or no "
                 "timed waits (5.11 or later has both)");
    }
    io_uring_free_probe(p);
    io_uring_queue_exit(&ring);
    return ok;
}

#else /* !HAVE_LIBURING */

nicd_uring_t *
nicd_uring_new(int precise, char *err, size_t errlen)
{
    (void) precise;
    snprintf(err, errlen, "built without liburing");
    return NULL;
}

void
nicd_uring_free(nicd_uring_t *u)
{
    (void) u;
}

int
nicd_uring_run(nicd_uring_t *u, int once)
{
    (void) u;
    (void) once;
    errno = ENOSYS;
    return -1;
}

void
nicd_uring_stop(nicd_uring_t *u, int at_once)
{
    (void) u;
    (void) at_once;
}

const struct timeval *
nicd_uring_common_tv(nicd_uring_t *u, long ms)
{
    (void) u;
    (void) ms;
    return NULL;
}

long
nicd_uring_now_ms(nicd_uring_t *u)
{
    (void) u;
    return 0;
}

void
nicd_uev_set(nicd_ev_t *ev, nicd_loop_t *l, int fd, short what,
             nicd_ev_handler_pt cb, void *arg)
{
    (void) ev, (void) l, (void) fd, (void) what, (void) cb, (void) arg;
}

int
nicd_uev_add(nicd_ev_t *ev, const struct timeval *tv)
{
    (void) ev, (void) tv;
    return -1;
}

void
nicd_uev_del(nicd_ev_t *ev)
{
    (void) ev;
}

void
nicd_uev_active(nicd_ev_t *ev, short what)
{
    (void) ev, (void) what;
}

int
nicd_loop_uring_works(char *why, size_t whylen)
{
    snprintf(why, whylen, "built without liburing");
    return 0;
}

#endif /* HAVE_LIBURING */
