/*
 * The event loop's kinds behind one interface (event.h): libevent's, and
 * io_uring's (event_uring.c).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/event.h"

_Static_assert(NICD_EV_TIMEOUT == 0x01 && NICD_EV_READ == 0x02
                   && NICD_EV_WRITE == 0x04 && NICD_EV_PERSIST == 0x10,
               "event.h's flags are libevent's");

const char *
nicd_loop_name(int kind)
{
    return kind == NICD_LOOP_URING ? "io_uring" : "libevent";
}

const char *
nicd_loop_method(const nicd_loop_t *l)
{
    return l->u != NULL ? "io_uring" : event_base_get_method(l->base);
}

nicd_loop_t *
nicd_loop_new(int kind, const char *method, int precise, char *err,
              size_t errlen)
{
    nicd_loop_t         *l = calloc(1, sizeof(*l));
    struct event_config *ecfg;
    const char         **all;
    int                  i;

    if (l == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (kind == NICD_LOOP_URING) {
        l->u = nicd_uring_new(precise, err, errlen);
        if (l->u == NULL) {
            free(l);
            return NULL;
        }
        return l;
    }
    /*
     * Precise timers (epoll with a timerfd) when asked: a pacing backend
     * asks to be called again in tens of microseconds, and epoll_wait()'s
     * millisecond timeouts would make every such wait a millisecond late.
     */
    ecfg = event_config_new();
    if (ecfg != NULL) {
        if (precise) {
            event_config_set_flag(ecfg, EVENT_BASE_FLAG_PRECISE_TIMER);
        }
        all = method != NULL && *method ? event_get_supported_methods() : NULL;
        for (i = 0; all != NULL && all[i] != NULL; i++) {
            if (strcmp(all[i], method) != 0) {
                event_config_avoid_method(ecfg, all[i]);
            }
        }
        l->base = event_base_new_with_config(ecfg);
        event_config_free(ecfg);
    }
    if (l->base == NULL) {
        snprintf(err, errlen, "event_base_new_with_config(%s) failed",
                 method != NULL ? method : "");
        free(l);
        return NULL;
    }
    return l;
}

void
nicd_loop_free(nicd_loop_t *l)
{
    if (l == NULL) {
        return;
    }
    if (l->u != NULL) {
        nicd_uring_free(l->u);
    } else {
        event_base_free(l->base);
    }
    free(l);
}

int
nicd_loop_run(nicd_loop_t *l)
{
    return l->u != NULL ? nicd_uring_run(l->u, 0)
                        : (event_base_dispatch(l->base) < 0 ? -1 : 0);
}

int
nicd_loop_turn(nicd_loop_t *l)
{
    return l->u != NULL
               ? nicd_uring_run(l->u, 1)
               : (event_base_loop(l->base, EVLOOP_NONBLOCK) < 0 ? -1 : 0);
}

void
nicd_loop_exit(nicd_loop_t *l)
{
    if (l->u != NULL) {
        nicd_uring_stop(l->u, 0);
    } else {
        event_base_loopexit(l->base, NULL);
    }
}

void
nicd_loop_break(nicd_loop_t *l)
{
    if (l->u != NULL) {
        nicd_uring_stop(l->u, 1);
    } else {
        event_base_loopbreak(l->base);
    }
}

const struct timeval *
nicd_loop_common_tv(nicd_loop_t *l, long ms)
{
    struct timeval tv;

    if (ms < 0) {
        return NULL;
    }
    if (l->u != NULL) {
        return nicd_uring_common_tv(l->u, ms);
    }
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (suseconds_t) (ms % 1000) * 1000;
    return event_base_init_common_timeout(l->base, &tv);
}

nicd_ev_t *
nicd_ev_new(nicd_loop_t *l, int fd, short what, nicd_ev_handler_pt cb,
            void *arg)
{
    nicd_ev_t *ev = calloc(1, sizeof(*ev));

    if (ev != NULL) {
        nicd_ev_set(ev, l, fd, what, cb, arg);
    }
    return ev;
}

void
nicd_ev_free(nicd_ev_t *ev)
{
    if (ev != NULL) {
        nicd_ev_del(ev);
        free(ev);
    }
}
