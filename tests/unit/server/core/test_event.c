/* Unit tests of src/server/core/event.c and, through it, event_uring.c:
 * the io_uring loop keeps libevent's semantics, each test run on both
 * loops (skipped on io_uring where it cannot run) */

#include "server/core/event.c"
#include "harness.h"

#include <sys/socket.h>
#include <unistd.h>

typedef struct {
    nicd_loop_t *l;
    int          calls;
    short        what;
    char         order[16];
    int          norder;
    nicd_ev_t   *victim; /* deleted by the callback */
    int          exit_at;
} seen_t;

static void
note(int fd, short what, void *arg)
{
    seen_t *s = arg;

    (void) fd;
    s->calls++;
    s->what = what;
    if (s->victim != NULL) {
        nicd_ev_del(s->victim);
    }
    if (s->exit_at > 0 && s->calls >= s->exit_at) {
        nicd_loop_exit(s->l);
    }
}

/* the callback of one of several timers: its letter, in firing order */
typedef struct {
    seen_t *s;
    char    letter;
} tag_t;

static void
tagged(int fd, short what, void *arg)
{
    tag_t *t = arg;

    (void) fd;
    (void) what;
    t->s->order[t->s->norder++] = t->letter;
    if (t->s->norder == t->s->exit_at) {
        nicd_loop_exit(t->s->l);
    }
}

static nicd_loop_t *
loop(int kind)
{
    char         err[160];
    nicd_loop_t *l = nicd_loop_new(kind, NULL, 0, err, sizeof(err));

    if (l == NULL) {
        fprintf(stderr, "  %s: %s\n", nicd_loop_name(kind), err);
    }
    return l;
}

static void
timers_in_deadline_order(int kind)
{
    nicd_loop_t   *l = loop(kind);
    seen_t         s = {0};
    tag_t          t[3] = {{&s, 'c'}, {&s, 'a'}, {&s, 'b'}};
    nicd_ev_t      ev[3];
    struct timeval tv[3] = {{0, 9000}, {0, 1000}, {0, 5000}};
    int            i;

    CHECK(l != NULL);
    s.l = l;
    s.exit_at = 3;
    for (i = 0; i < 3; i++) {
        nicd_ev_set(&ev[i], l, -1, 0, tagged, &t[i]);
        nicd_ev_add(&ev[i], &tv[i]);
        CHECK(nicd_ev_pending(&ev[i], NICD_EV_TIMEOUT));
    }
    CHECK_INT(nicd_loop_run(l), 0);
    CHECK_STR(s.order, "abc");
    for (i = 0; i < 3; i++) { /* not persistent: gone once fired */
        CHECK(!nicd_ev_pending(&ev[i], NICD_EV_TIMEOUT));
    }
    /* a timer added again moves, and one deleted never fires */
    s.norder = 0;
    memset(s.order, 0, sizeof(s.order));
    s.exit_at = 1;
    nicd_ev_add(&ev[0], &tv[2]);
    nicd_ev_add(&ev[1], &tv[0]);
    nicd_ev_add(&ev[1], &tv[0]); /* (again: one entry) */
    nicd_ev_add(&ev[2], &tv[1]);
    nicd_ev_del(&ev[2]);
    CHECK_INT(nicd_loop_run(l), 0);
    CHECK_STR(s.order, "c");
    nicd_ev_del(&ev[1]);
    nicd_loop_free(l);
}

static void
persistent_timer_repeats(int kind)
{
    nicd_loop_t   *l = loop(kind);
    seen_t         s = {0};
    nicd_ev_t     *ev;
    struct timeval tv = {0, 1000};

    CHECK(l != NULL);
    s.l = l;
    s.exit_at = 3;
    ev = nicd_ev_new(l, -1, NICD_EV_PERSIST, note, &s);
    nicd_ev_add(ev, &tv);
    CHECK_INT(nicd_loop_run(l), 0);
    CHECK_INT(s.calls, 3);
    CHECK(s.what == NICD_EV_TIMEOUT);
    CHECK(nicd_ev_pending(ev, NICD_EV_TIMEOUT));
    nicd_ev_free(ev);
    nicd_loop_free(l);
}

/* readiness is level-triggered, as libevent's epoll: told again while
 * bytes stay unread; nothing once deleted */
static void
reads_are_level_triggered(int kind)
{
    nicd_loop_t *l = loop(kind);
    seen_t       s = {0};
    nicd_ev_t    ev;
    int          sv[2], i;
    char         b;

    CHECK(l != NULL);
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    s.l = l;
    nicd_ev_set(&ev, l, sv[0], NICD_EV_READ | NICD_EV_PERSIST, note, &s);
    nicd_ev_add(&ev, NULL);
    CHECK(nicd_ev_pending(&ev, NICD_EV_READ));
    for (i = 0; i < 5; i++) {
        nicd_loop_turn(l);
    }
    CHECK_INT(s.calls, 0);
    CHECK_INT((int) write(sv[1], "xy", 2), 2);
    s.exit_at = 2;
    CHECK_INT(nicd_loop_run(l), 0); /* twice for the same unread bytes */
    CHECK_INT(s.calls, 2);
    CHECK(s.what == NICD_EV_READ);
    CHECK_INT((int) read(sv[0], &b, 1), 1);
    nicd_ev_del(&ev);
    s.calls = 0;
    for (i = 0; i < 5; i++) {
        nicd_loop_turn(l);
    }
    CHECK_INT(s.calls, 0);
    /* a peer that closes: read (and its end of file) */
    nicd_ev_add(&ev, NULL);
    CHECK_INT((int) read(sv[0], &b, 1), 1);
    close(sv[1]);
    s.exit_at = 1;
    CHECK_INT(nicd_loop_run(l), 0);
    CHECK(s.what & NICD_EV_READ);
    nicd_ev_del(&ev);
    close(sv[0]);
    nicd_loop_free(l);
}

/* an event freed while the kernel still watches its socket: the
 * completion that comes later reaches nothing (ASan would say) */
static void
freed_while_watched(int kind)
{
    nicd_loop_t *l = loop(kind);
    seen_t       s = {0};
    nicd_ev_t   *ev, *timer;
    int          sv[2], i;

    CHECK(l != NULL);
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    s.l = l;
    ev = nicd_ev_new(l, sv[0], NICD_EV_READ | NICD_EV_PERSIST, note, &s);
    nicd_ev_add(ev, NULL);
    nicd_loop_turn(l); /* its poll is in the kernel now */
    nicd_ev_free(ev);
    CHECK_INT((int) write(sv[1], "z", 1), 1);
    for (i = 0; i < 5; i++) {
        nicd_loop_turn(l);
    }
    CHECK_INT(s.calls, 0);
    /* and one freed before its poll went in at all */
    ev = nicd_ev_new(l, sv[0], NICD_EV_READ | NICD_EV_PERSIST, note, &s);
    nicd_ev_add(ev, NULL);
    nicd_ev_free(ev);
    timer = nicd_ev_new(l, -1, 0, note, &s);
    s.exit_at = 1;
    nicd_ev_add(timer, &(struct timeval){0, 2000});
    CHECK_INT(nicd_loop_run(l), 0);
    CHECK_INT(s.calls, 1); /* the timer's alone */
    CHECK(s.what == NICD_EV_TIMEOUT);
    nicd_ev_free(timer);
    close(sv[0]);
    close(sv[1]);
    nicd_loop_free(l);
}

/* made active by hand: one call with every reason given; one deleted by
 * an earlier callback of the same turn is not called */
static void
active_by_hand(int kind)
{
    nicd_loop_t *l = loop(kind);
    seen_t       s = {0}, s2 = {0};
    nicd_ev_t    a, b;

    CHECK(l != NULL);
    s.l = s2.l = l;
    nicd_ev_set(&a, l, -1, 0, note, &s);
    nicd_ev_set(&b, l, -1, 0, note, &s2);
    nicd_ev_active(&a, NICD_EV_READ);
    nicd_ev_active(&a, NICD_EV_WRITE);
    s.victim = &b;
    nicd_ev_active(&b, NICD_EV_TIMEOUT);
    nicd_loop_turn(l);
    CHECK_INT(s.calls, 1);
    CHECK(s.what == (NICD_EV_READ | NICD_EV_WRITE));
    CHECK_INT(s2.calls, 0);
    nicd_loop_free(l);
}

/* a held clock reads as the loop's, without asking it, until let go; a
 * hold within a hold keeps the outer one's; the ring's is never held */
static void
clock_held(int kind)
{
    nicd_loop_t *l = loop(kind);
    long         outer, inner, now;

    CHECK(l != NULL);
    if (l == NULL) {
        return;
    }
    now = nicd_loop_now_ms(l);
    outer = nicd_loop_hold_now(l);
    CHECK_INT(outer, 0);
    CHECK(kind == NICD_LOOP_URING ? l->held_ms == 0
                                  : l->held_ms != 0 && l->held_ms >= now);
    inner = nicd_loop_hold_now(l);
    CHECK(inner == l->held_ms);
    nicd_loop_let_go_now(l, inner);
    CHECK(l->held_ms == inner);
    nicd_loop_let_go_now(l, outer);
    CHECK_INT(l->held_ms, 0);
    CHECK(nicd_loop_now_ms(l) >= now);
    nicd_loop_free(l);
}

static void
both(void (*fn)(int))
{
    char why[160];

    fn(NICD_LOOP_LIBEVENT);
    if (!nicd_loop_uring_works(why, sizeof(why))) {
        SKIP(why); /* (half of it ran) */
        return;
    }
    fn(NICD_LOOP_URING);
}

static void
test_timers_in_deadline_order(void)
{
    both(timers_in_deadline_order);
}

static void
test_persistent_timer_repeats(void)
{
    both(persistent_timer_repeats);
}

static void
test_reads_are_level_triggered(void)
{
    both(reads_are_level_triggered);
}

static void
test_freed_while_watched(void)
{
    both(freed_while_watched);
}

static void
test_active_by_hand(void)
{
    both(active_by_hand);
}

static void
test_clock_held(void)
{
    both(clock_held);
}

int
main(void)
{
    RUN(test_timers_in_deadline_order);
    RUN(test_persistent_timer_repeats);
    RUN(test_reads_are_level_triggered);
    RUN(test_freed_while_watched);
    RUN(test_active_by_hand);
    RUN(test_clock_held);
    return harness_report("test_event");
}
