/*
 * nicload's connections (nicload.h): each a SPECweb99 client paced to a
 * bit rate over hclient.c connections, one epoll set, a timer heap.
 */

#include "nicload/nicload.h"

/* ---- a connection ---- */

/*
 * Close with a reset: the client ends thousands of connections a second,
 * and each it closed first would hold a local port in TIME_WAIT for a
 * minute, until connect() finds none (httperf's --close-with-reset).
 */
static void
close_reset(conn_t *c)
{
    struct linger lg = {1, 0};

    if (c->hc.fd >= 0) {
        setsockopt(c->hc.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    hclient_close(&c->hc);
}

static double
overlap(load_t *lp, uint64_t s, uint64_t e)
{
    uint64_t a = s > lp->win_a ? s : lp->win_a,
             b = e < lp->win_b ? e : lp->win_b;

    return b > a ? (double) (b - a) : 0;
}

/* The slot [sent, end] carried bits: its share inside the measurement. */
static void
account(conn_t *c, double bits, uint64_t end)
{
    load_t *lp = c->lp;

    if (end > c->sent_ns) {
        c->bits +=
            bits * overlap(lp, c->sent_ns, end) / (double) (end - c->sent_ns);
    }
}

/* the paced end of the slot of a request of bytes */
static uint64_t
paced_end(const conn_t *c, uint64_t bytes, uint64_t now)
{
    load_t  *lp = c->lp;
    uint64_t e =
        c->sent_ns + (uint64_t) ((double) bytes * 8 / lp->cf.rate * 1e9);

    return e > now ? e : now;
}

static void
wait_for(conn_t *c, uint64_t t)
{
    c->state = C_WAIT;
    c->next_ns = t;
    /* room for every connection was made before the run: no failure */
    (void) timer_heap_push(&c->lp->timers, c);
}

static void
write_request(conn_t *c)
{
    load_t *lp = c->lp;
    char    name[48], form[160];
    char   *w = hclient_space(&c->hc,
                              512 + strlen(lp->cf.host) + strlen(lp->cf.prefix));
    size_t  n;
    int     f = 0;

    if (w == NULL) {
        close_reset(c);
        lp->res.errors[E_PARSE]++;
        causes_add(&lp->res.causes, "client", 0, "out of memory");
        wait_for(c, paced_end(c, c->size, nicache_now_ns()));
        return;
    }
    specweb_name(c->req.dir, c->req.cls, c->req.file, name);
    if (c->kind == K_STATIC) {
        n = (size_t) sprintf(w, "GET %s HTTP/1.1\r\n", name);
    } else if (c->kind == K_POST) {
        f = snprintf(form, sizeof(form),
                     "urlroot=/file_set/dir%05u/&dir=%05u&class=%d&num=%d"
                     "&client=%td",
                     c->req.dir, c->req.dir, c->req.cls, c->req.file,
                     c - lp->conns + 1);
        n = (size_t) sprintf(w,
                             "POST %spost HTTP/1.1\r\nContent-Type: "
                             "application/x-www-form-urlencoded\r\n"
                             "Content-Length: %d\r\n",
                             lp->cf.prefix, f);
    } else {
        n = (size_t) sprintf(w, "GET %s%s?%s HTTP/1.1\r\n", lp->cf.prefix,
                             kind_path[c->kind], name);
        if (c->kind == K_AD) {
            n += (size_t) sprintf(w + n,
                                  "Cookie: my_cookie=user_id=%td&last_ad=%d"
                                  "\r\n",
                                  c - lp->conns + 1, c->last_ad);
        }
    }
    n += (size_t) sprintf(w + n, "Host: %s\r\n%s\r\n%s", lp->cf.host,
                          c->left == 1 ? "Connection: close\r\n" : "",
                          f > 0 ? form : "");
    hclient_commit(&c->hc, n, 1);
    (void) hclient_flush(&c->hc); /* a failure shows on the read side */
}

/* a connection that never connected (counted): past --max-errors, the
 * run stops (a count at once, a share once 100 were tried) */
static void
connect_failed(conn_t *c)
{
    load_t *lp = c->lp;

    hclient_count_loss(&lp->res.causes, &c->hc, HC_CONNECT);
    if (hclient_limit_exceeded(&lp->cf.max_errors, lp->res.errors[E_CONNECT],
                               lp->res.connections, 0)) {
        lp->res.gave_up = 1;
    }
}

static void
send_request(conn_t *c)
{
    load_t *lp = c->lp;
    char    name[48];

    specweb_draw(lp->mix, &c->req);
    c->kind = K_STATIC;
    if (lp->cf.full) {
        double u = specweb_uniform(lp->mix), sum = 0;

        for (c->kind = 0; c->kind < K_KINDS - 1; c->kind++) {
            sum += kind_share[c->kind];
            if (u <= sum) {
                break;
            }
        }
    }
    c->size = specweb_size(c->req.cls, c->req.file);
    specweb_name(c->req.dir, c->req.cls, c->req.file, name);
    c->seed = trace_content_seed(name, strlen(name));
    c->sent_ns = nicache_now_ns();
    c->state = C_ACTIVE;
    if (c->hc.fd < 0) {
        lp->res.connections++;
        if (hclient_open(&c->hc, lp->ep, lp->cf.addr) != 0) {
            lp->res.errors[E_CONNECT]++;
            lp->res.failed++;
            connect_failed(c);
            wait_for(c, paced_end(c, c->size, c->sent_ns));
            return;
        }
        c->left = specweb_conn_requests(lp->mix);
        return; /* the request goes when it is up */
    }
    write_request(c);
}

static int
on_start(void *ud)
{
    conn_t *c = ud;

    c->got = 0;
    c->checking = -1;
    c->bad = 0;
    return 0;
}

/*
 * Check body bytes: a static file's are the file's; a dynamic page ends
 * with the file's bytes then TRAILER, found from its Content-Length.
 */
static void
on_body(void *ud, uint64_t off, const char *p, size_t n)
{
    conn_t       *c = ud;
    load_t       *lp = c->lp;
    unsigned char want[4096];
    uint64_t      start = 0, end, o;
    size_t        k;

    c->got = off + n;
    if (c->checking < 0) {
        c->checking = lp->cf.verify && c->hc.resp.status == 200;
        if (c->checking && c->kind != K_STATIC
            && (c->hc.resp.length == UINT64_MAX
                || c->hc.resp.length < c->size + TRAILER_LEN)) {
            c->bad = 1; /* no room for the file */
            c->checking = 0;
        }
    }
    if (!c->checking) {
        return;
    }
    if (c->kind != K_STATIC) {
        start = c->hc.resp.length - TRAILER_LEN - c->size;
        end = c->hc.resp.length - TRAILER_LEN;
        /* the trailer */
        for (o = off > end ? off : end; o < off + n; o++) {
            c->bad |= p[o - off] != TRAILER[o - end];
        }
        if (off + n <= start || off >= end) {
            return;
        }
        k = (size_t) ((off < start ? start : off) - off);
        p += k;
        n -= k;
        off += k;
        n = off + n > end ? (size_t) (end - off) : n;
    }
    while (n > 0) {
        k = n < sizeof(want) ? n : sizeof(want);
        trace_content(c->seed, off - start, want, k);
        c->bad |= memcmp(want, p, k) != 0;
        lp->res.verified_bytes += lp->win_a <= c->sent_ns ? k : 0;
        off += k;
        p += k;
        n -= k;
    }
}

static void
on_done(void *ud, const hresp_t *r)
{
    conn_t  *c = ud;
    load_t  *lp = c->lp;
    uint64_t now = nicache_now_ns(), bytes = r->head_bytes + r->body;
    uint64_t end = paced_end(c, bytes, now);
    int      in = now >= lp->win_a && now <= lp->win_b;

    account(c, (double) bytes * 8, end);
    if (in) {
        lp->res.requests++;
        lp->res.bytes += bytes;
        lp->res.by_class[c->req.cls]++;
        lp->res.by_kind[c->kind]++;
        trace_hist_add(&lp->res.latency[c->req.cls], (now - c->sent_ns) / 1000,
                       1);
        if (r->status != 200) {
            char why[32];

            snprintf(why, sizeof(why), "answered %d", r->status);
            causes_add(&lp->res.causes, "status", 0, why);
            lp->res.errors[E_STATUS]++;
            c->wrong = 1;
        } else if (c->kind == K_STATIC ? r->body != c->size
                                       : r->body < c->size + TRAILER_LEN) {
            causes_add(&lp->res.causes, "size", 0,
                       "a body of another length than the file's");
            lp->res.errors[E_SIZE]++;
            c->wrong = 1;
        }
        lp->res.mismatches += c->bad;
        c->wrong |= c->bad;
    }
    if (lp->log_file != NULL) {
        char name[48];

        specweb_name(c->req.dir, c->req.cls, c->req.file, name);
        fprintf(lp->log_file, "%td %s %d %llu %llu %d\n", c - lp->conns, name,
                r->status, (unsigned long long) r->body,
                (unsigned long long) ((now - c->sent_ns) / 1000), in);
    }
    if (c->kind == K_AD) {
        const char *a = strstr(r->cookie, "Ad_id=");

        c->last_ad = a != NULL ? atoi(a + 6) : c->last_ad;
    }
    c->left--;
    wait_for(c, end);
}

static void
on_idle(void *ud, int closed)
{
    conn_t *c = ud;

    if (!closed && c->left <= 0) {
        close_reset(c); /* its 5 to 15 requests are done */
    }
}

static void
on_connected(void *ud)
{
    write_request(ud);
}

static void
on_lost(void *ud, int how, uint64_t answered)
{
    conn_t  *c = ud;
    load_t  *lp = c->lp;
    uint64_t now = nicache_now_ns();

    (void) answered;
    if (c->state != C_ACTIVE) {
        return; /* an idle keep-alive connection the server closed */
    }
    lp->res.errors[how == HC_CONNECT ? E_CONNECT
                   : how == HC_PARSE ? E_PARSE
                   : how == HC_NOMEM ? E_PARSE
                                     : E_RESET]++;
    lp->res.failed++;
    if (how == HC_CONNECT) {
        connect_failed(c);
    } else {
        hclient_count_loss(&lp->res.causes, &c->hc, how);
    }
    c->wrong |= now >= lp->win_a && now <= lp->win_b;
    account(c, (double) c->got * 8, paced_end(c, c->got, now));
    /* the request's slot is spent: the next one comes at its paced end */
    wait_for(c, paced_end(c, c->size, now));
}

static const hclient_ops_t load_ops = {on_start, on_body,      on_done,
                                       on_idle,  on_connected, on_lost};

static void
check_timeouts(load_t *lp, uint64_t now)
{
    uint64_t limit = (uint64_t) (lp->cf.timeout * 1e9);
    uint32_t i;

    for (i = 0; i < lp->cf.conns; i++) {
        conn_t *c = &lp->conns[i];

        if (c->state == C_ACTIVE && c->hc.fd >= 0 && now > c->hc.activity_ns
            && now - c->hc.activity_ns > limit) {
            close_reset(c);
            lp->res.errors[E_TIMEOUT]++;
            causes_add(&lp->res.causes, "timeout", 0,
                       "no byte within --timeout");
            lp->res.failed++;
            c->wrong |= now >= lp->win_a && now <= lp->win_b;
            account(c, (double) c->got * 8, paced_end(c, c->got, now));
            wait_for(c, now);
        }
    }
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return x < y ? -1 : x > y;
}

static void
progress(load_t *lp, uint64_t now, uint64_t t0)
{
    double el = (double) (now - t0) / 1e9;
    char   c[160];

    fprintf(stderr,
            "nicload: %u connections, %.0f s %s, %llu requests, %.2f Mb/s",
            lp->cf.conns, el, now < lp->win_a ? "(warm-up)" : "",
            (unsigned long long) lp->res.requests,
            now > lp->win_a ? (double) lp->res.bytes * 8
                                  / ((double) (now - lp->win_a)) * 1e3
                            : 0);
    if (lp->res.causes.total > 0) {
        fprintf(stderr, ", %llu errors (%s)",
                (unsigned long long) lp->res.causes.total,
                causes_format(&lp->res.causes, 1, c, sizeof(c)));
    }
    fputc('\n', stderr);
}

/* One run of cf.conns connections: 0, or -1 when it could not start. */
/* Why the run did not do what was asked (res.failure; "" when it did). */
static void
run_verdict(load_t *lp)
{
    char *f = lp->res.failure, causes[256];

    f[0] = '\0';
    if (lp->res.requests == 0) {
        snprintf(f, sizeof(lp->res.failure),
                 "no request was answered in the measurement (%s)%s",
                 causes_format(&lp->res.causes, 3, causes, sizeof(causes)),
                 lp->res.gave_up ? "; stopped past --max-errors" : "");
    } else if (lp->res.gave_up
               || hclient_limit_exceeded(&lp->cf.max_errors,
                                         lp->res.errors[E_CONNECT],
                                         lp->res.connections, 1)) {
        hclient_limit_why(
            &lp->cf.max_errors, lp->res.errors[E_CONNECT], lp->res.connections,
            lp->res.gave_up,
            causes_format(&lp->res.causes, 3, causes, sizeof(causes)), f,
            sizeof(lp->res.failure));
    } else if (lp->cf.verify && lp->res.mismatches > 0) {
        snprintf(f, sizeof(lp->res.failure),
                 "%llu responses did not have the file set's bytes "
                 "(--verify)",
                 (unsigned long long) lp->res.mismatches);
    }
}

int
nicload_run(load_t *lp)
{
    struct epoll_event evs[256];
    uint64_t           t0, now, next_tick, next_check;
    double            *rates;
    uint32_t           i, dirs;
    int                n, k, wait_ms;

    free(lp->res.rates);
    memset(&lp->res, 0, sizeof(lp->res));
    dirs = specweb_dirs(lp->cf.fileset_conns ? lp->cf.fileset_conns
                                             : lp->cf.conns);
    lp->mix = specweb_new(dirs, lp->cf.seed);
    lp->conns = calloc(lp->cf.conns, sizeof(conn_t));
    rates = calloc(lp->cf.conns, sizeof(double));
    lp->ep = epoll_create1(EPOLL_CLOEXEC);
    lp->timers.n = 0;
    if (lp->mix == NULL || lp->conns == NULL || rates == NULL || lp->ep < 0
        || trace_grow(&lp->timers.a, &lp->timers.cap, lp->cf.conns,
                      sizeof(conn_t *), lp->cf.conns)
               != 0) {
        fprintf(stderr, "nicload: out of memory\n");
        return -1;
    }
    t0 = nicache_now_ns();
    lp->win_a = t0 + (uint64_t) (lp->cf.warmup * 1e9);
    lp->win_b = lp->win_a + (uint64_t) (lp->cf.duration * 1e9);
    for (i = 0; i < lp->cf.conns; i++) {
        lp->conns[i].lp = lp;
        hclient_init(&lp->conns[i].hc, &load_ops, &lp->conns[i]);
        lp->conns[i].hc.tls = lp->cf.tls;
        /* spread the first requests over 100 ms */
        wait_for(&lp->conns[i],
                 t0 + (uint64_t) (specweb_uniform(lp->mix) * 1e8));
    }
    next_tick = t0 + 2000000000u;
    next_check = t0 + 250000000u;
    for (;;) {
        now = nicache_now_ns();
        while (lp->timers.n > 0 && lp->timers.a[0]->next_ns <= now) {
            send_request(timer_heap_pop(&lp->timers));
        }
        if (now >= lp->win_b || nicache_stopping() || lp->res.gave_up) {
            break;
        }
        if (now >= next_check) {
            check_timeouts(lp, now);
            next_check = now + 250000000u;
        }
        if (now >= next_tick) {
            if (!lp->cf.quiet) {
                progress(lp, now, t0);
            }
            next_tick = now + 2000000000u;
        }
        wait_ms = 100;
        if (lp->timers.n > 0) {
            wait_ms = (int) ((lp->timers.a[0]->next_ns - now) / 1000000);
            wait_ms = wait_ms > 100 ? 100 : wait_ms;
        }
        n = epoll_wait(lp->ep, evs, 256, wait_ms);
        if (n < 0 && errno != EINTR) {
            perror("nicload: epoll_wait");
            break;
        }
        for (k = 0; k < n; k++) {
            hclient_event(evs[k].data.ptr, evs[k].events);
        }
    }
    now = nicache_now_ns();
    lp->res.elapsed = (double) (now - t0) / 1e9;
    for (i = 0; i < lp->cf.conns; i++) {
        conn_t *c = &lp->conns[i];

        if (c->state == C_ACTIVE) {
            /* in flight: paced like a whole slot, never above the rate */
            account(c, (double) c->got * 8, paced_end(c, c->got, now));
        }
        rates[i] = c->bits / lp->cf.duration;
        lp->res.bits += c->bits;
        lp->res.conforming += rates[i] >= 0.8 * lp->cf.rate && !c->wrong;
        close_reset(c);
        hclient_free(&c->hc);
    }
    qsort(rates, lp->cf.conns, sizeof(double), cmp_double);
    run_verdict(lp);
    lp->res.rate_min = rates[0];
    lp->res.rate_median = rates[lp->cf.conns / 2];
    lp->res.rate_max = rates[lp->cf.conns - 1];
    lp->res.rates = rates;
    free(lp->conns);
    timer_heap_free(&lp->timers);
    specweb_free(lp->mix);
    close(lp->ep);
    return 0;
}
