/*
 * nicreplay's users (nicreplay.h): each takes the next session, opens a
 * connection (hclient.c), writes each pipeline group back to back and
 * reads its responses, at infinite demand or at the times --rate and
 * --speed give; one epoll set, non-blocking sockets.
 */

#include "nicreplay/nicreplay.h"

static void user_next(user_t *u);

static void
wait_push(user_t *u)
{
    replay_t *rp = u->rp;

    size_t i = rp->nwaiting++;

    while (i > 0 && rp->waiting[(i - 1) / 2]->intended_ns > u->intended_ns) {
        rp->waiting[i] = rp->waiting[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    rp->waiting[i] = u;
}

static user_t *
wait_pop(replay_t *rp)
{
    user_t *top = rp->waiting[0], *last = rp->waiting[--rp->nwaiting];
    size_t  i = 0, c;

    for (;;) {
        c = 2 * i + 1;
        if (c >= rp->nwaiting) {
            break;
        }
        if (c + 1 < rp->nwaiting
            && rp->waiting[c + 1]->intended_ns < rp->waiting[c]->intended_ns) {
            c++;
        }
        if (rp->waiting[c]->intended_ns >= last->intended_ns) {
            break;
        }
        rp->waiting[i] = rp->waiting[c];
        i = c;
    }
    if (rp->nwaiting > 0) {
        rp->waiting[i] = last;
    }
    return top;
}

/* a uniform double in (0, 1] */
static double
uniform(replay_t *rp)
{
    return trace_rng_uniform(&rp->rng);
}

/* When the group u has just taken should go out. */
static uint64_t
schedule(const user_t *u)
{
    replay_t *rp = u->rp;

    double at;

    if (rp->cf.rate > 0) {
        at = rp->slot_ns;
        rp->slot_ns += rp->cf.poisson ? -log(uniform(rp)) * 1e9 / rp->cf.rate
                                      : 1e9 / rp->cf.rate;
    } else {
        at = (double) (u->group->time_us - feed_first_time_us(rp->feed)) * 1e3
             / rp->cf.speed;
    }
    return rp->t_start + (uint64_t) (at > 0 ? at : 0);
}

static void
close_conn(user_t *u)
{
    hclient_close(&u->hc);
}

/*
 * With --as-logged, what the log says was transferred is asked for:
 * a success of n > 0 bytes as the first n bytes (a Range; the log's
 * partial transfers were cut short), a 304 as a conditional GET that the
 * server answers 304 (If-None-Match: *), a success of no bytes as a HEAD.
 * The same stream nicsim counts.  Returns the method to send.
 */
static int
as_logged(replay_t *rp, const feed_req_t *q, char *extra, size_t len)
{
    int ok = q->status == 200 || q->status == 206;

    extra[0] = '\0';
    if (!rp->cf.as_logged || q->method != TRACE_GET) {
        return q->method;
    }
    if (ok && q->bytes > 0) {
        snprintf(extra, len, "Range: bytes=0-%llu\r\n",
                 (unsigned long long) (q->bytes - 1));
    } else if (ok) {
        return TRACE_HEAD;
    } else if (q->status == 304) {
        snprintf(extra, len, "If-None-Match: *\r\n");
    }
    return TRACE_GET;
}

/* the method of q as sent */
static int
method_sent(replay_t *rp, const feed_req_t *q)
{
    char extra[64];

    return as_logged(rp, q, extra, sizeof(extra));
}

/* --log and --csv: a request's line (status 0: none, and error why) */
static void
log_request(const user_t *u, const feed_req_t *q, int status, uint64_t bytes,
            uint64_t us, const cause_t *error)
{
    replay_t *rp = u->rp;

    size_t      len;
    const char *t = feed_target(rp->feed, q->url, &len);
    const char *m = method_sent(rp, q) == TRACE_HEAD ? "HEAD" : "GET";
    uint64_t    sess = feed_session_id(u->sess);
    uint64_t    intended = u->intended_ns > rp->t_start
                               ? (u->intended_ns - rp->t_start) / 1000
                               : 0,
             sent = u->sent_ns > rp->t_start ? (u->sent_ns - rp->t_start) / 1000
                                             : 0;

    if (rp->cf.log != NULL) {
        fprintf(rp->cf.log, "%llu %s %.*s %d %llu %llu %llu %llu\n",
                (unsigned long long) sess, m, (int) len, t, status,
                (unsigned long long) bytes, (unsigned long long) us,
                (unsigned long long) intended, (unsigned long long) sent);
    }
    if (rp->csv_file != NULL) {
        nicreplay_csv_row(rp, sess, m, t, len, status, bytes, us, intended,
                          sent, error);
    }
}

/* fidelity: a 2xx stays a 2xx (of the logged size, when that is what was
 * asked for), a 404 a 404, a redirect a 301 (objects.h) */
static void
count_fidelity(replay_t *rp, const feed_req_t *q, int got, uint64_t body)
{
    int logged = q->status;

    if (logged >= 200 && logged < 300) {
        rp->res.log_2xx++;
        if (got >= 200 && got < 300) {
            rp->res.got_2xx++;
            rp->res.logged_size +=
                body == (method_sent(rp, q) == TRACE_HEAD ? 0 : q->bytes);
        } else {
            rp->res.miss_2xx[got > 0 && got < MAX_STATUS ? got : 0]++;
        }
    } else if (logged == 404 || logged == 410) {
        rp->res.log_404++;
        rp->res.got_404 += got == 404;
    } else if (logged >= 300 && logged < 400 && logged != 304) {
        rp->res.log_3xx++;
        rp->res.got_301 += got == 301;
    }
}

/*
 * The unanswered requests of u get no response: kind (E_*) counted, and
 * its cause, the connection's loss how (HC_*), or -1: a timeout or the
 * client's own failure.  A logged 2xx that got nothing is a 2xx not
 * answered 2xx (fidelity counts what was sent, not only what came back).
 */
static void
fail_group(user_t *u, int kind, int how)
{
    replay_t *rp = u->rp;

    feed_req_t    *q;
    const cause_t *why;

    rp->res.errors[kind]++;
    if (how >= 0) {
        why = hclient_count_loss(&rp->res.causes, &u->hc, how);
    } else if (kind == E_TIMEOUT) {
        why = causes_add(&rp->res.causes, "timeout", 0,
                         "no byte within --timeout");
    } else {
        why = causes_add(&rp->res.causes, "client", 0, "out of memory");
    }
    for (q = u->group; q != NULL; q = q->next) {
        rp->res.failed++;
        rp->iv_failed++;
        count_fidelity(rp, q, 0, 0);
        if (rp->cf.log != NULL || rp->csv_file != NULL) {
            log_request(u, q, 0, 0, 0, why);
        }
    }
    feed_free_reqs(rp->feed, u->group);
    u->group = NULL;
    u->ngroup = 0;
    u->attempts = 0;
    close_conn(u);
    if (kind == E_CONNECT
        && hclient_limit_exceeded(&rp->cf.max_errors, rp->res.errors[E_CONNECT],
                                  rp->res.connections, 0)) {
        rp->stop_issuing = rp->gave_up = 1; /* the run failed: it stops */
    }
}

/* the requests of the group, back to back, into the connection's
 * write buffer */
static int
build_requests(user_t *u)
{
    replay_t *rp = u->rp;

    feed_req_t *q;
    const char *host = rp->cf.host_header[u->server], *t;
    size_t      hl = strlen(host), len;
    char        extra[64], *w;
    int         m;

    for (q = u->group; q != NULL; q = q->next) {
        t = feed_target(rp->feed, q->url, &len);
        m = as_logged(rp, q, extra, sizeof(extra));
        w = hclient_space(&u->hc, len + hl + 128);
        if (w == NULL) {
            return -1;
        }
        hclient_commit(&u->hc,
                       (size_t) sprintf(w,
                                        "%s %.*s HTTP/1.1\r\nHost: "
                                        "%s\r\n%s\r\n",
                                        m == TRACE_HEAD ? "HEAD" : "GET",
                                        (int) len, t, host, extra),
                       0);
    }
    return 0;
}

/* hclient: a response begins */
static int
start_response(void *ud)
{
    user_t   *u = ud;
    replay_t *rp = u->rp;

    u->checking = -1;
    u->bad = 0;
    u->seed = feed_seed(rp->feed, u->group->url);
    return method_sent(rp, u->group) == TRACE_HEAD;
}

static int
open_conn(user_t *u)
{
    replay_t *rp = u->rp;

    /* connections tried: --max-errors' share is of these */
    rp->res.connections++;
    if (u->sess_conns++ > 0) {
        rp->res.reconnects++; /* the session's connection was closed on it */
    }
    u->hc.tls = rp->cf.tls[u->server];
    if (hclient_open(&u->hc, rp->ep, rp->cf.addr[u->server]) != 0) {
        return -1;
    }
    u->state = U_ACTIVE;
    return 0;
}

/*
 * Send (or send again) the unanswered requests of the group: 0 when under
 * way, -1 when it failed at once (the group is failed and counted).
 */
static int
send_group(user_t *u)
{
    replay_t *rp = u->rp;

    if (u->hc.fd < 0) {
        if (open_conn(u) != 0) {
            fail_group(u, E_CONNECT, HC_CONNECT);
            return -1;
        }
        return 0; /* writing starts when the connection is up */
    }
    if (build_requests(u) != 0) {
        fail_group(u, E_RESET, -1);
        return -1;
    }
    u->sent_ns = nicache_now_ns();
    if (u->intended_ns == 0) {
        u->intended_ns = u->sent_ns;
    } else if (nicreplay_scheduled(rp) && u->sent_ns > u->intended_ns) {
        rp->res.lag_last_ns = u->sent_ns - u->intended_ns;
        if (rp->res.lag_last_ns > rp->res.lag_max_ns) {
            rp->res.lag_max_ns = rp->res.lag_last_ns;
        }
    }
    u->state = U_ACTIVE;
    hclient_commit(&u->hc, 0, u->ngroup); /* the first response begins */
    /* a failed write: the read side will see what happened */
    (void) hclient_flush(&u->hc);
    return 0;
}

/* Move on: the next group of the session, or the next session. */
static void
user_next(user_t *u)
{
    replay_t *rp = u->rp;

    size_t n, max;

    for (;;) {
        if (rp->stop_issuing || nicache_stopping()) {
            break;
        }
        if (u->sess == NULL) {
            u->sess = feed_take(rp->feed);
            if (u->sess == NULL) {
                break;
            }
            rp->res.sessions++;
            u->sess_conns = 0;
            u->server =
                (int) (feed_session_id(u->sess) % (uint64_t) rp->cf.nservers);
        }
        max = rp->cf.max_depth;
        if (rp->cf.max_requests > 0
            && rp->cf.max_requests - rp->res.sent < max) {
            max = (size_t) (rp->cf.max_requests - rp->res.sent);
        }
        n = feed_group(rp->feed, u->sess, &u->group, max);
        if (n == 0) {
            /* the session is over: so is its connection */
            feed_release(rp->feed, u->sess);
            u->sess = NULL;
            close_conn(u);
            continue;
        }
        u->ngroup = n;
        u->attempts = 0;
        rp->res.sent += n;
        rp->res.groups++;
        if (n > rp->res.max_depth) {
            rp->res.max_depth = n;
        }
        if (rp->cf.max_requests > 0 && rp->res.sent >= rp->cf.max_requests) {
            rp->stop_issuing = 1;
        }
        u->intended_ns = 0;
        if (nicreplay_scheduled(rp)) {
            u->intended_ns = schedule(u);
            if (u->intended_ns > nicache_now_ns()) {
                u->state = U_WAITING;
                wait_push(u);
                return;
            }
        }
        if (send_group(u) == 0) {
            return;
        }
        /* failed at once (no connection): on to the next group */
    }
    if (u->sess != NULL) {
        feed_release(rp->feed, u->sess);
        u->sess = NULL;
    }
    close_conn(u);
    u->state = U_DONE;
}

static void
check_body(void *arg, uint64_t off, const char *p, size_t n)
{
    user_t        *u = arg;
    replay_t      *rp = u->rp;
    const hresp_t *resp = &u->hc.resp;
    unsigned char  want[4096];
    size_t         k;

    if (u->checking < 0) {
        /* the first body bytes: the head is in */
        u->checking =
            rp->cf.verify && (resp->status == 200 || resp->status == 206);
    }
    if (!u->checking) {
        return;
    }
    while (n > 0) {
        k = n < sizeof(want) ? n : sizeof(want);
        trace_content(u->seed, off, want, k);
        if (memcmp(want, p, k) != 0) {
            u->bad = 1;
        }
        rp->res.verified_bytes += k;
        off += k;
        p += k;
        n -= k;
    }
}

/* One response is complete: account it and go on. */
static void
response_done(void *ud, const hresp_t *resp)
{
    user_t     *u = ud;
    replay_t   *rp = u->rp;
    feed_req_t *q = u->group;
    uint64_t    t = nicache_now_ns(), us = (t - u->sent_ns) / 1000;

    rp->res.requests++;
    nicreplay_count_status(&rp->res, resp->status, 1);
    rp->res.content_bytes += resp->body;
    rp->res.head_bytes += resp->head_bytes;
    if (nicreplay_scheduled(rp)) {
        /* from when it should have gone: coordinated omission corrected
         * (wrk2's measure); from when it went, as well */
        trace_hist_add(&rp->res.latency_sent, us, 1);
        us = (t - u->intended_ns) / 1000;
    }
    trace_hist_add(&rp->res.latency, us, 1);
    trace_hist_add(&rp->hdr_interval, us, 1);
    if (rp->bd != NULL && breakdown_add(rp->bd, q->url, resp->body, us) != 0) {
        breakdown_free(rp->bd); /* out of memory: the rest goes on */
        rp->bd = NULL;
        fprintf(stderr, "nicreplay: out of memory for --by-url\n");
    }
    count_fidelity(rp, q, resp->status, resp->body);
    if (u->bad) {
        rp->res.mismatches++;
    }
    rp->iv_bytes += resp->body;
    if (rp->cf.log != NULL || rp->csv_file != NULL) {
        log_request(u, q, resp->status, resp->body, us, NULL);
    }
    u->group = q->next;
    q->next = NULL;
    feed_free_reqs(rp->feed, q);
    u->ngroup--;
}

/*
 * hclient: the connection was lost.  If it had answered something and
 * ended between responses, the server closed a persistent connection:
 * send the rest again on a new one (a reconnect).  A fresh connection that
 * ends with nothing answered is an error (after one more try).
 */
static void
conn_lost(void *ud, int how, uint64_t answered)
{
    user_t *u = ud;

    switch (how) {
    case HC_CONNECT: fail_group(u, E_CONNECT, how); break;
    case HC_CLOSED:
        if (answered > 0 || u->attempts++ < 1) {
            if (send_group(u) != 0) {
                user_next(u);
            }
            return;
        }
        fail_group(u, E_RESET, how);
        break;
    case HC_CUT: fail_group(u, E_RESET, how); break;
    default: fail_group(u, E_PARSE, how); break;
    }
    user_next(u);
}

/* hclient: the group is answered (closed: and the server closed) */
static void
group_answered(void *ud, int closed)
{
    user_t *u = ud;

    (void) closed;
    if (u->state == U_WAITING) {
        return; /* an idle connection closed: reopened when it is time */
    }
    user_next(u);
}

/* hclient: connected, so the group goes out */
static void
conn_up(void *ud)
{
    user_t *u = ud;

    if (send_group(u) != 0) {
        user_next(u);
    }
}

static const hclient_ops_t replay_ops = {
    start_response, check_body, response_done,
    group_answered, conn_up,    conn_lost,
};

static void
check_timeouts(replay_t *rp, uint64_t t)
{
    uint64_t limit = (uint64_t) (rp->cf.timeout * 1e9);
    int      i;

    for (i = 0; i < rp->cf.conns; i++) {
        user_t *u = &rp->users[i];

        /* a user rp->waiting for its group's time is not stuck (--speed
         * below 1 stretches a session's gaps past any timeout) */
        if (u->group != NULL && u->hc.fd >= 0 && u->state != U_WAITING
            && t > u->hc.activity_ns && t - u->hc.activity_ns > limit) {
            fail_group(u, E_TIMEOUT, -1);
            user_next(u);
        }
    }
}

int
nicreplay_run(replay_t *rp)
{
    struct epoll_event evs[256];
    uint64_t           t, deadline = 0, next_tick, next_check;
    int                i, n, active, shown = 0, tick_every;

    rp->ep = epoll_create1(EPOLL_CLOEXEC);
    if (rp->ep < 0) {
        perror("nicreplay: epoll_create1");
        return -1;
    }
    rp->users = calloc((size_t) rp->cf.conns, sizeof(user_t));
    rp->waiting = calloc((size_t) rp->cf.conns, sizeof(user_t *));
    if (rp->users == NULL || rp->waiting == NULL) {
        fprintf(stderr, "nicreplay: out of memory\n");
        return -1;
    }
    for (i = 0; i < rp->cf.conns; i++) {
        rp->users[i].rp = rp;
    }
    if (rp->cf.start_at > 0) {
        /* a start barrier: every shard of a cluster run begins at the same
         * wall-clock time (their clocks as NTP keeps them) */
        struct timespec at;

        at.tv_sec = (time_t) rp->cf.start_at;
        at.tv_nsec = (long) ((rp->cf.start_at - (double) at.tv_sec) * 1e9);
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL)
               == EINTR) {
            if (nicache_stopping()) {
                break;
            }
        }
    }
    {
        struct timespec now;

        clock_gettime(CLOCK_REALTIME, &now);
        rp->res.started_at = (double) now.tv_sec + (double) now.tv_nsec / 1e9;
    }
    if (rp->hdr_file != NULL) {
        /* StartTime to the millisecond: "nicreplay merge" lines up the
         * logs of a cluster's shards by it */
        fprintf(rp->hdr_file,
                "#[Histogram log format version 1.3]\n"
                "#[StartTime: %.3f (seconds since epoch)]\n"
                "#[latency in microseconds%s]\n"
                "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                "\"Interval_Compressed_Histogram\"\n",
                rp->res.started_at,
                nicreplay_scheduled(rp)
                    ? ", from each request's intended send time"
                    : "");
    }
    rp->t_start = rp->hdr_since = nicache_now_ns();
    if (rp->cf.duration > 0) {
        deadline = rp->t_start + (uint64_t) (rp->cf.duration * 1e9);
    }
    tick_every = isatty(STDERR_FILENO) ? 1 : 10;
    next_tick = rp->t_start + 2000000000u; /* quiet for short runs */
    next_check = rp->t_start + 250000000u;
    for (i = 0; i < rp->cf.conns; i++) {
        hclient_init(&rp->users[i].hc, &replay_ops, &rp->users[i]);
        if (rp->cf.http2) {
            rp->users[i].hc.proto = &hclient_h2;
        }
        user_next(&rp->users[i]);
    }
    for (;;) {
        for (active = 0, i = 0; i < rp->cf.conns; i++) {
            active += rp->users[i].state != U_DONE;
        }
        if (active == 0 || nicache_stopping()) {
            break;
        }
        {
            int wait_ms = 100;

            if (rp->nwaiting > 0) {
                t = nicache_now_ns();
                wait_ms =
                    rp->waiting[0]->intended_ns <= t
                        ? 0
                        : (int) ((rp->waiting[0]->intended_ns - t + 999999)
                                 / 1000000);
                wait_ms = wait_ms > 100 ? 100 : wait_ms;
            }
            n = epoll_wait(rp->ep, evs, 256, wait_ms);
        }
        if (n < 0 && errno != EINTR) {
            perror("nicreplay: epoll_wait");
            break;
        }
        for (i = 0; i < n; i++) {
            hclient_event(evs[i].data.ptr, evs[i].events);
        }
        t = nicache_now_ns();
        /* the groups whose time has come go out */
        while (rp->nwaiting > 0 && rp->waiting[0]->intended_ns <= t) {
            user_t *u = wait_pop(rp);

            if (send_group(u) != 0) {
                user_next(u);
            }
        }
        if (deadline != 0 && t >= deadline) {
            break;
        }
        if ((rp->hdr_file != NULL || rp->csv_sec_file != NULL)
            && t - rp->hdr_since >= 1000000000u) {
            nicreplay_hdr_write(rp, t);
        }
        if (t >= next_check) {
            check_timeouts(rp, t);
            next_check = t + 250000000u;
        }
        if (t >= next_tick) {
            if (!rp->cf.quiet) {
                nicreplay_progress(rp, t, 0);
                shown = 1;
            }
            next_tick = t + (uint64_t) tick_every * 1000000000u;
        }
    }
    t = nicache_now_ns();
    rp->res.elapsed = (double) (t - rp->t_start) / 1e9;
    for (i = 0; i < rp->cf.nservers; i++) {
        const hclient_tls_stats_t *s;

        if (rp->cf.tls[i] == NULL) {
            continue;
        }
        s = hclient_tls_stats(rp->cf.tls[i]);
        rp->res.tls = 1;
        rp->res.tls_st.handshakes += s->handshakes;
        rp->res.tls_st.resumed += s->resumed;
        rp->res.tls_st.failed += s->failed;
        if (rp->res.tls_st.version[0] == '\0') {
            memcpy(rp->res.tls_st.version, s->version, sizeof(s->version));
            memcpy(rp->res.tls_st.cipher, s->cipher, sizeof(s->cipher));
            memcpy(rp->res.tls_st.alpn, s->alpn, sizeof(s->alpn));
        }
    }
    if (nicreplay_hdr_write(rp, t) != 0) {
        fprintf(stderr, "nicreplay: --hdr: out of memory\n");
    }
    if (shown && isatty(STDERR_FILENO)) {
        nicreplay_progress(rp, t, 1);
    }
    /* whatever is still in flight (a deadline or a signal) is neither
     * answered nor failed: it is left out of the counts */
    for (i = 0; i < rp->cf.conns; i++) {
        user_t *u = &rp->users[i];

        rp->res.sent -= u->ngroup;
        feed_free_reqs(rp->feed, u->group);
        if (u->sess != NULL) {
            feed_release(rp->feed, u->sess);
        }
        hclient_free(&u->hc);
    }
    free(rp->users);
    free(rp->waiting);
    close(rp->ep);
    return 0;
}
