/*
 * Stopping on a signal (stop.h).
 */

#include <signal.h>
#include <string.h>

#include "util/stop.h"

static volatile sig_atomic_t stopping;

static void
on_stop(int sig)
{
    (void) sig;
    stopping = 1;
}

void
nicache_catch_stop(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int
nicache_stopping(void)
{
    return stopping;
}
