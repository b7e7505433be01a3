/*
 * nicload: SPECweb99-style load (specweb.h has the workload).
 *
 *   nicload fileset --connections N --root DIR
 *   nicload http://HOST:PORT/ --connections N --duration S [...]
 *   nicload http://HOST:PORT/ --search --min N --max N [...]
 *
 * N simulated connections, each a SPECweb99 client paced to a bit rate
 * (400,000 bit/s): a request's slot lasts the longer of its transfer and
 * its bytes at that rate, the client idling for the rest, so against a
 * server that keeps up every connection receives exactly the rate.  A
 * connection conforms when, over the measurement (after the warm-up), it
 * received at least 80 % of the rate (SPECweb99's 320,000 of 400,000):
 * the bytes of each slot counted in proportion to the part of the slot
 * inside the measurement, divided by its length.  A TCP connection
 * carries 5 to 15 requests, then the client closes it and opens another.
 *
 * One thread, one epoll set; connections are hclient.c's, as nicreplay's.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../src/util/version.h"
#include "../../src/util/size.h"
#include "../lib/content.h"
#include "../lib/hclient.h"
#include "../lib/hist.h"
#include "../lib/json.h"
#include "../lib/specweb.h"
#include "../../src/util/clock.h"
#include "../../src/util/stop.h"

#define MARKER ".nicload-fileset"

enum { E_CONNECT = 0, E_RESET, E_TIMEOUT, E_PARSE, E_STATUS, E_SIZE, E_KINDS };

static const char *const error_names[E_KINDS] = {"connect", "reset",  "timeout",
                                                 "parse",   "status", "size"};

/* the full mix's kinds of request (SPECweb99's default mix) */
enum { K_STATIC = 0, K_DYN, K_AD, K_POST, K_CGI, K_KINDS };

static const char *const kind_names[K_KINDS] = {"static", "dynamic_get",
                                                "ad_rotation", "post", "cgi"};
static const double kind_share[K_KINDS] = {0.70, 0.1245, 0.126, 0.048, 0.0015};
static const char *const kind_path[K_KINDS] = {"", "dyn", "ad", "post", "cgi"};

/* what every dynamic page ends with (conf/specweb99.lua) */
#define TRAILER     "</pre>\n</body>\n</html>\n"
#define TRAILER_LEN (sizeof(TRAILER) - 1)

typedef struct {
    const char      *url;
    struct addrinfo *addr;
    char             host[300];
    uint32_t         conns;
    uint32_t         fileset_conns; /* the file set's size (0: conns) */
    double           duration, warmup, timeout;
    double           rate;    /* bits per second a connection */
    double           conform; /* share of connections that must conform */
    int              verify, quiet, search;
    int              full;   /* --mix full */
    const char      *prefix; /* of the dynamic requests */
    uint32_t         min, max;
    uint64_t         seed;
    const char      *json, *log;
    hclient_limit_t  max_errors; /* connect failures a run may have */
} conf_t;

typedef struct {
    uint64_t     requests, bytes, failed, mismatches, verified_bytes;
    uint64_t     by_class[SPECWEB_CLASSES];
    uint64_t     by_kind[K_KINDS];
    uint64_t     errors[E_KINDS];
    uint64_t     connections;              /* TCP connections opened */
    trace_hist_t latency[SPECWEB_CLASSES]; /* microseconds */
    uint32_t     conforming;
    double       rate_min, rate_median, rate_max; /* bits/s of connections */
    double       bits;  /* received in the measurement, as conformance counts */
    double      *rates; /* of each connection, sorted */
    double       elapsed;
    char         failure[256]; /* why the run failed ("": it did not) */
} result_t;

enum { C_WAIT = 0, C_ACTIVE };

typedef struct {
    hclient_t     hc;
    int           state;
    specweb_req_t req;
    int           kind;    /* K_* */
    int           last_ad; /* from the last ad rotation's cookie */
    uint64_t      size;    /* the file's */
    uint64_t      seed;    /* of its bytes */
    uint64_t      got;     /* bytes of the response so far */
    int           checking, bad;
    int           wrong; /* a request in the measurement was not answered
                            200 with its bytes: the connection does not
                            conform, whatever its rate */
    uint64_t      sent_ns; /* the slot's start */
    uint64_t      next_ns; /* the next slot's */
    int           left;    /* requests left on this TCP connection */
    double        bits;    /* in the measurement */
    size_t        heap;    /* index in the timer heap */
    struct load_s *lp;     /* the run it belongs to */
} conn_t;

/* a load run: everything it keeps (no state at file scope) */
typedef struct load_s {
    conf_t      cf;
    result_t    res;
    conn_t     *conns;
    conn_t    **heap; /* the connections' timers, a binary heap */
    size_t      nheap;
    specweb_t  *mix;
    int         ep;
    uint64_t    win_a, win_b; /* the measurement */
    FILE       *log_file;
} load_t;

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: nicload fileset --connections N --root DIR\n"
            "       nicload http://HOST[:PORT]/ --connections N [--duration "
            "S] [--warmup S]\n"
            "               [--rate-per-conn 400k] [--mix static] "
            "[--fileset-connections N]\n"
            "               [--verify] [--timeout S] [--max-errors N|P%%] "
            "[--seed N]\n"
            "               [--json FILE] [--log FILE] [-q]\n"
            "       nicload http://HOST[:PORT]/ --search [--min N] [--max N] "
            "[--conform 0.95]\n"
            "               [--duration S] [--warmup S] [...]\n"
            "\n"
            "SPECweb99's static workload: N connections, each paced to "
            "--rate-per-conn\nbit/s (k and m are 1000s); one conforms when "
            "it received at least 80 %% of\nthat rate over the measurement, "
            "every request answered 200 with its bytes "
            "(--duration, default 30 s, after --warmup,\ndefault 5 s).  The "
            "file set must be made for at least N connections\n(nicload "
            "fileset, or --fileset-connections if it is larger); --search "
            "finds\nthe largest N, between --min (1) and --max (64), at "
            "which --conform of the\nconnections conform (default all), by "
            "bisection, the file set made for\n--max.  See docs/nicload.md.\n"
            "\n"
            "  -c, --connections N       simultaneous connections\n"
            "      --root DIR            where fileset makes the file set\n"
            "      --duration S          the measurement (default 30)\n"
            "      --warmup S            before it (default 5)\n"
            "      --rate-per-conn R     bit/s a connection is paced to "
            "(default 400k)\n"
            "      --mix static|full     the static mix, or SPECweb99's "
            "full one\n"
            "      --dynamic-prefix P    the dynamic requests' prefix "
            "(default /specweb/)\n"
            "      --fileset-connections N  the file set was made for N "
            "(more than -c)\n"
            "      --verify              check every body byte\n"
            "      --timeout S           a connection idle this long fails "
            "(default 30)\n"
            "      --max-errors N|P%%     connections that may fail to "
            "connect (default 0)\n"
            "      --seed N              of the request mix (default 1)\n"
            "      --json FILE           the results as JSON\n"
            "      --log FILE            one line per request\n"
            "      --search              find the capacity (with --min, "
            "--max, --conform)\n"
            "      --min N, --max N      the search's bounds (default 1, "
            "64)\n"
            "      --conform F           the share that must conform "
            "(default 1.0)\n"
            "  -q, --quiet               no progress line\n"
            "  -h, --help                this text\n"
            "      --version             the version and the compiled "
            "features\n"
            "\n"
            "Exit status: 0 when the run did what was asked; 1 when it did "
            "not (nothing\nanswers, the file set is smaller than the "
            "connections need, no request\nanswered, connections that could "
            "not connect past --max-errors (default 0),\nmismatches under "
            "--verify), with one line saying why (--json's \"run_failed\"\n"
            "says it too); 2 for a bad command line.\n");
}

/* ---- the file set ---- */

static int
fileset(uint32_t n, const char *root)
{
    uint32_t       dirs = specweb_dirs(n), d, have = 0;
    unsigned char *buf = malloc(1 << 16);
    char           name[48], path[4096], line[128];
    struct stat    st;
    uint64_t       bytes = 0, files = 0;
    FILE          *m;
    int            dirfd, k, f, rc = 1;

    if (buf == NULL) {
        fprintf(stderr, "nicload: out of memory\n");
        return 1;
    }
    if (mkdir(root, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "nicload: %s: %s\n", root, strerror(errno));
        free(buf);
        return 1;
    }
    snprintf(path, sizeof(path), "%s/file_set/%s", root, MARKER);
    m = fopen(path, "r");
    if (m != NULL) {
        if (fgets(line, sizeof(line), m) == NULL
            || sscanf(line, "specweb99 file set of %u directories", &have)
                   != 1) {
            have = 0;
        }
        fclose(m);
    }
    snprintf(path, sizeof(path), "%s/file_set", root);
    if (stat(path, &st) == 0 && have == 0) {
        fprintf(stderr,
                "nicload: %s exists and is not a file set nicload made: "
                "remove it first\n",
                path);
        free(buf);
        return 1;
    }
    if (have != 0 && have != dirs) {
        fprintf(stderr,
                "nicload: %s holds a file set of %u directories; %u "
                "connections need %u: remove it, or make it elsewhere\n",
                path, have, n, dirs);
        free(buf);
        return 1;
    }
    dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        fprintf(stderr, "nicload: %s: %s\n", root, strerror(errno));
        free(buf);
        return 1;
    }
    for (d = 0; d < dirs; d++) {
        for (k = 0; k < SPECWEB_CLASSES; k++) {
            for (f = 0; f < SPECWEB_FILES; f++) {
                specweb_name(d, k, f, name);
                files++;
                bytes += specweb_size(k, f);
                /* a file set already there: only what is missing or of
                 * another size is written again */
                if (have == dirs && fstatat(dirfd, name + 1, &st, 0) == 0
                    && (uint64_t) st.st_size == specweb_size(k, f)) {
                    continue;
                }
                if (trace_content_write(dirfd, name, specweb_size(k, f), buf,
                                        1 << 16)
                    != 0) {
                    fprintf(stderr, "nicload: %s%s: %s\n", root, name,
                            strerror(errno));
                    goto done;
                }
            }
        }
    }
    snprintf(path, sizeof(path), "%s/file_set/%s", root, MARKER);
    m = fopen(path, "w");
    if (m == NULL
        || fprintf(m, "specweb99 file set of %u directories\n", dirs) < 0
        || fclose(m) != 0) {
        fprintf(stderr, "nicload: %s: %s\n", path, strerror(errno));
        goto done;
    }
    printf("%u directories, %llu files, %llu bytes in %s/file_set (for %u "
           "connections)\n",
           dirs, (unsigned long long) files, (unsigned long long) bytes, root,
           n);
    rc = 0;

done:
    close(dirfd);
    free(buf);
    return rc;
}

/* ---- the timer heap of waiting connections ---- */

static void
heap_set(size_t i, conn_t *c)
{
    load_t *lp = c->lp;
    lp->heap[i] = c;
    c->heap = i;
}

static void
heap_push(conn_t *c)
{
    load_t *lp = c->lp;
    size_t i, p;

    for (i = lp->nheap++; i > 0; i = p) {
        p = (i - 1) / 2;
        if (lp->heap[p]->next_ns <= c->next_ns) {
            break;
        }
        heap_set(i, lp->heap[p]);
    }
    heap_set(i, c);
}

static conn_t *
heap_pop(load_t *lp)
{
    conn_t *top = lp->heap[0], *last = lp->heap[--lp->nheap];
    size_t  i = 0, k;

    for (;;) {
        k = 2 * i + 1;
        if (k >= lp->nheap) {
            break;
        }
        if (k + 1 < lp->nheap && lp->heap[k + 1]->next_ns < lp->heap[k]->next_ns) {
            k++;
        }
        if (last->next_ns <= lp->heap[k]->next_ns) {
            break;
        }
        heap_set(i, lp->heap[k]);
        i = k;
    }
    if (lp->nheap > 0) {
        heap_set(i, last);
    }
    return top;
}

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
    uint64_t a = s > lp->win_a ? s : lp->win_a, b = e < lp->win_b ? e : lp->win_b;

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
    load_t *lp = c->lp;
    uint64_t e = c->sent_ns + (uint64_t) ((double) bytes * 8 / lp->cf.rate * 1e9);

    return e > now ? e : now;
}

static void
wait_for(conn_t *c, uint64_t t)
{
    c->state = C_WAIT;
    c->next_ns = t;
    heap_push(c);
}

static void
write_request(conn_t *c)
{
    load_t *lp = c->lp;
    char   name[48], form[160];
    char  *w = hclient_space(&c->hc, 512 + strlen(lp->cf.host) + strlen(lp->cf.prefix));
    size_t n;
    int    f = 0;

    if (w == NULL) {
        close_reset(c);
        lp->res.errors[E_PARSE]++;
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

static void
send_request(conn_t *c)
{
    load_t *lp = c->lp;
    char name[48];

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
        if (hclient_open(&c->hc, lp->ep, lp->cf.addr) != 0) {
            lp->res.errors[E_CONNECT]++;
            lp->res.failed++;
            wait_for(c, paced_end(c, c->size, c->sent_ns));
            return;
        }
        lp->res.connections++;
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
    load_t  *lp = c->lp;
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
        trace_hist_add(&lp->res.latency[c->req.cls], (now - c->sent_ns) / 1000, 1);
        if (r->status != 200) {
            lp->res.errors[E_STATUS]++;
            c->wrong = 1;
        } else if (c->kind == K_STATIC ? r->body != c->size
                                       : r->body < c->size + TRAILER_LEN) {
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

    fprintf(stderr,
            "nicload: %u connections, %.0f s %s, %llu requests, %.2f Mb/s\n",
            lp->cf.conns, el, now < lp->win_a ? "(warm-up)" : "",
            (unsigned long long) lp->res.requests,
            now > lp->win_a
                ? (double) lp->res.bytes * 8 / ((double) (now - lp->win_a)) * 1e3
                : 0);
}

/* One run of cf.conns connections: 0, or -1 when it could not start. */
/* Why the run did not do what was asked (res.failure; "" when it did). */
static void
run_verdict(load_t *lp)
{
    char *f = lp->res.failure;

    f[0] = '\0';
    if (lp->res.requests == 0) {
        snprintf(f, sizeof(lp->res.failure),
                 "no request was answered in the measurement (%llu connect "
                 "errors in %llu connections, %llu others)",
                 (unsigned long long) lp->res.errors[E_CONNECT],
                 (unsigned long long) lp->res.connections,
                 (unsigned long long) (lp->res.errors[E_RESET]
                                       + lp->res.errors[E_TIMEOUT]
                                       + lp->res.errors[E_PARSE]));
    } else if (hclient_limit_exceeded(&lp->cf.max_errors, lp->res.errors[E_CONNECT],
                                      lp->res.connections)) {
        snprintf(f, sizeof(lp->res.failure),
                 "%llu of %llu connections could not connect (--max-errors "
                 "%g%s)",
                 (unsigned long long) lp->res.errors[E_CONNECT],
                 (unsigned long long) lp->res.connections, lp->cf.max_errors.value,
                 lp->cf.max_errors.percent ? "%" : "");
    } else if (lp->cf.verify && lp->res.mismatches > 0) {
        snprintf(f, sizeof(lp->res.failure),
                 "%llu responses did not have the file set's bytes "
                 "(--verify)",
                 (unsigned long long) lp->res.mismatches);
    }
}

static int
run(load_t *lp)
{
    struct epoll_event evs[256];
    uint64_t           t0, now, next_tick, next_check;
    double            *rates;
    uint32_t           i, dirs;
    int                n, k, wait_ms;

    free(lp->res.rates);
    memset(&lp->res, 0, sizeof(lp->res));
    dirs = specweb_dirs(lp->cf.fileset_conns ? lp->cf.fileset_conns : lp->cf.conns);
    lp->mix = specweb_new(dirs, lp->cf.seed);
    lp->conns = calloc(lp->cf.conns, sizeof(conn_t));
    lp->heap = calloc(lp->cf.conns, sizeof(conn_t *));
    rates = calloc(lp->cf.conns, sizeof(double));
    lp->ep = epoll_create1(EPOLL_CLOEXEC);
    if (lp->mix == NULL || lp->conns == NULL || lp->heap == NULL || rates == NULL
        || lp->ep < 0) {
        fprintf(stderr, "nicload: out of memory\n");
        return -1;
    }
    lp->nheap = 0;
    t0 = nicache_now_ns();
    lp->win_a = t0 + (uint64_t) (lp->cf.warmup * 1e9);
    lp->win_b = lp->win_a + (uint64_t) (lp->cf.duration * 1e9);
    for (i = 0; i < lp->cf.conns; i++) {
        lp->conns[i].lp = lp;
        hclient_init(&lp->conns[i].hc, &load_ops, &lp->conns[i]);
        /* spread the first requests over 100 ms */
        wait_for(&lp->conns[i], t0 + (uint64_t) (specweb_uniform(lp->mix) * 1e8));
    }
    next_tick = t0 + 2000000000u;
    next_check = t0 + 250000000u;
    for (;;) {
        now = nicache_now_ns();
        while (lp->nheap > 0 && lp->heap[0]->next_ns <= now) {
            send_request(heap_pop(lp));
        }
        if (now >= lp->win_b || nicache_stopping()) {
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
        if (lp->nheap > 0) {
            wait_ms = (int) ((lp->heap[0]->next_ns - now) / 1000000);
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
    free(lp->heap);
    specweb_free(lp->mix);
    close(lp->ep);
    return 0;
}

/* ---- results ---- */

static double
share(uint64_t part, uint64_t whole)
{
    return whole > 0 ? (double) part / (double) whole : 0;
}

/* three standard deviations, in points, of the largest class's share at
 * this number of requests: what chance alone explains */
static double
mix_spread(load_t *lp)
{
    double p = specweb_class_share[1];

    return lp->res.requests > 0 ? 300 * sqrt(p * (1 - p) / (double) lp->res.requests)
                            : 100;
}

/* the largest distance, in points, between the mix sent and the target */
static double
mix_deviation(load_t *lp)
{
    double worst = 0, d;
    int    k;

    for (k = 0; k < SPECWEB_CLASSES; k++) {
        d = 100
            * (share(lp->res.by_class[k], lp->res.requests) - specweb_class_share[k]);
        d = d < 0 ? -d : d;
        worst = d > worst ? d : worst;
    }
    return worst;
}

static void
print_summary(load_t *lp, FILE *out)
{
    int k;

    fprintf(out,
            "%u connections at %.0f bit/s: %u conforming (%.1f %%), %u "
            "not\n",
            lp->cf.conns, lp->cf.rate, lp->res.conforming,
            100 * share(lp->res.conforming, lp->cf.conns), lp->cf.conns - lp->res.conforming);
    fprintf(out,
            "  per connection: min %.0f, median %.0f, max %.0f bit/s "
            "(conforming: %.0f)\n",
            lp->res.rate_min, lp->res.rate_median, lp->res.rate_max, 0.8 * lp->cf.rate);
    fprintf(out,
            "  measured %.0f s: %llu requests (%.1f/s), %.2f Mb/s, %llu TCP "
            "connections\n",
            lp->cf.duration, (unsigned long long) lp->res.requests,
            (double) lp->res.requests / lp->cf.duration, lp->res.bits / lp->cf.duration / 1e6,
            (unsigned long long) lp->res.connections);
    for (k = 0; lp->res.requests > 0 && k < SPECWEB_CLASSES; k++) {
        fprintf(out,
                "  class %d: %llu (%.2f %%, target %.0f %%), latency p50 "
                "%.2f ms p99 %.2f ms\n",
                k, (unsigned long long) lp->res.by_class[k],
                100 * share(lp->res.by_class[k], lp->res.requests),
                100 * specweb_class_share[k],
                (double) trace_hist_quantile(&lp->res.latency[k], 0.5) / 1e3,
                (double) trace_hist_quantile(&lp->res.latency[k], 0.99) / 1e3);
    }
    for (k = 0; lp->res.requests > 0 && lp->cf.full && k < K_KINDS; k++) {
        fprintf(out, "  %s: %llu (%.2f %%, target %.2f %%)\n", kind_names[k],
                (unsigned long long) lp->res.by_kind[k],
                100 * share(lp->res.by_kind[k], lp->res.requests), 100 * kind_share[k]);
    }
    if (lp->res.requests > 0) {
        fprintf(out,
                "  mix: at most %.2f points from the target (chance "
                "explains %.2f at this count)%s\n",
                mix_deviation(lp), mix_spread(lp),
                mix_deviation(lp) > mix_spread(lp) ? ": OFF TARGET" : "");
    }
    fprintf(out, "  errors:");
    for (k = 0; k < E_KINDS; k++) {
        fprintf(out, " %s %llu", error_names[k],
                (unsigned long long) lp->res.errors[k]);
    }
    fprintf(out, "; failed %llu\n", (unsigned long long) lp->res.failed);
    if (lp->cf.verify) {
        fprintf(out, "  verify: %llu bytes checked, %llu mismatches\n",
                (unsigned long long) lp->res.verified_bytes,
                (unsigned long long) lp->res.mismatches);
    }
}

static void
write_result(load_t *lp, FILE *f)
{
    int k;

    fputs("{\"run_failed\": ", f);
    if (lp->res.failure[0] != '\0') {
        json_write_string(f, lp->res.failure);
    } else {
        fputs("null", f);
    }
    fprintf(
        f,
        ", \"connections\": %u, \"rate_per_conn_bps\": %.0f, "
        "\"conforming\": %u, \"non_conforming\": %u, "
        "\"conforming_share\": %.4f, \"conn_rate_bps\": {\"min\": %.0f, "
        "\"median\": %.0f, \"max\": %.0f}, \"duration_s\": %.3f, "
        "\"warmup_s\": %.3f, \"requests\": %llu, \"requests_per_s\": "
        "%.1f, \"throughput_bps\": %.0f, \"tcp_connections\": %llu, "
        "\"failed\": %llu, \"mismatches\": %llu, \"verified_bytes\": "
        "%llu, \"mix_deviation_points\": %.3f, \"mix_spread_points\": "
        "%.3f, \"classes\": [",
        lp->cf.conns, lp->cf.rate, lp->res.conforming, lp->cf.conns - lp->res.conforming,
        share(lp->res.conforming, lp->cf.conns), lp->res.rate_min, lp->res.rate_median,
        lp->res.rate_max, lp->cf.duration, lp->cf.warmup, (unsigned long long) lp->res.requests,
        (double) lp->res.requests / lp->cf.duration, lp->res.bits / lp->cf.duration,
        (unsigned long long) lp->res.connections, (unsigned long long) lp->res.failed,
        (unsigned long long) lp->res.mismatches,
        (unsigned long long) lp->res.verified_bytes, mix_deviation(lp), mix_spread(lp));
    for (k = 0; k < SPECWEB_CLASSES; k++) {
        const trace_hist_t *h = &lp->res.latency[k];

        fprintf(f,
                "%s{\"class\": %d, \"requests\": %llu, \"share\": %.5f, "
                "\"target\": %.2f, \"latency_us\": {\"p50\": %llu, \"p90\": "
                "%llu, \"p99\": %llu, \"max\": %llu}}",
                k ? ", " : "", k, (unsigned long long) lp->res.by_class[k],
                share(lp->res.by_class[k], lp->res.requests), specweb_class_share[k],
                (unsigned long long) trace_hist_quantile(h, 0.5),
                (unsigned long long) trace_hist_quantile(h, 0.9),
                (unsigned long long) trace_hist_quantile(h, 0.99),
                (unsigned long long) h->max);
    }
    fprintf(f, "], \"mix\": \"%s\", \"kinds\": [", lp->cf.full ? "full" : "static");
    for (k = 0; k < K_KINDS; k++) {
        fprintf(f,
                "%s{\"kind\": \"%s\", \"requests\": %llu, \"share\": %.5f, "
                "\"target\": %.4f}",
                k ? ", " : "", kind_names[k],
                (unsigned long long) lp->res.by_kind[k],
                share(lp->res.by_kind[k], lp->res.requests),
                lp->cf.full ? kind_share[k] : (k == K_STATIC));
    }
    fprintf(f, "], \"conn_rates_bps\": [");
    for (k = 0; k < (int) lp->cf.conns; k++) {
        fprintf(f, "%s%.0f", k ? ", " : "", lp->res.rates[k]);
    }
    fprintf(f, "], \"errors\": {");
    for (k = 0; k < E_KINDS; k++) {
        fprintf(f, "%s\"%s\": %llu", k ? ", " : "", error_names[k],
                (unsigned long long) lp->res.errors[k]);
    }
    fprintf(f, "}}");
}

/*
 * Before a run: does the server hold a file set as large as the
 * connections need?  The last directory's smallest file must answer 200
 * (a smaller set answers 404 there, and a run would count those as
 * conforming traffic).  0, or -1 with the reason printed.
 */
static int
probe_fileset(load_t *lp, uint32_t nconns)
{
    uint32_t dirs = specweb_dirs(nconns);
    char     name[48];
    int      status;

    specweb_name(dirs - 1, 0, 0, name);
    status = hclient_fetch(lp->cf.addr->ai_addr, lp->cf.addr->ai_addrlen, lp->cf.host,
                           "HEAD", name, 5, NULL, NULL);
    if (status == 200) {
        return 0;
    }
    if (status == -1) {
        fprintf(stderr, "nicload: failed: nothing answers at %s (%s)\n",
                lp->cf.url, strerror(errno));
    } else if (status == -2) {
        fprintf(stderr, "nicload: failed: %s did not answer HEAD %s\n",
                lp->cf.url, name);
    } else if (status == 404) {
        fprintf(stderr,
                "nicload: failed: the file set at %s is smaller than %u "
                "connections need (%u directories: %s answers 404); make "
                "it with nicload fileset --connections %u\n",
                lp->cf.url, nconns, dirs, name, nconns);
    } else {
        fprintf(stderr, "nicload: failed: %s answered %d to HEAD %s\n",
                lp->cf.url, status, name);
    }
    return -1;
}

/* ---- search ---- */

static int
conforms(load_t *lp)
{
    return (double) lp->res.conforming >= lp->cf.conform * (double) lp->cf.conns - 1e-9;
}

static int
search(load_t *lp, FILE *json)
{
    uint32_t lo = lp->cf.min, hi = lp->cf.max, mid, best = 0;
    int      first = 1;

    lp->cf.fileset_conns = lp->cf.fileset_conns > lp->cf.max ? lp->cf.fileset_conns : lp->cf.max;
    if (json != NULL) {
        fprintf(json,
                "{\"search\": {\"min\": %u, \"max\": %u, \"conform\": "
                "%.3f}, \"steps\": [",
                lp->cf.min, lp->cf.max, lp->cf.conform);
    }
    /* the largest N in [lo, hi] that conforms, assuming fewer do too */
    while (lo <= hi && !nicache_stopping()) {
        mid = first ? hi : lo + (hi - lo) / 2;
        lp->cf.conns = mid;
        if (run(lp) != 0) {
            return 1;
        }
        if (lp->res.requests == 0) {
            fprintf(stderr, "nicload: failed: %s\n", lp->res.failure);
            if (json != NULL) {
                fprintf(json, "%s", first ? "" : ", ");
                write_result(lp, json);
                fprintf(json, "], \"capacity\": null}\n");
            }
            return 1;
        }
        printf("search: %u connections: %u conform (%.1f %%), median %.0f "
               "bit/s: %s\n",
               mid, lp->res.conforming, 100 * share(lp->res.conforming, mid),
               lp->res.rate_median, conforms(lp) ? "yes" : "no");
        fflush(stdout);
        if (json != NULL) {
            fprintf(json, "%s", first ? "" : ", ");
            write_result(lp, json);
        }
        if (conforms(lp)) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
        first = 0;
    }
    printf("capacity: %u conforming connections (%.0f %% conforming at "
           "%.0f bit/s each, between %u and %u)\n",
           best, 100 * lp->cf.conform, lp->cf.rate, lp->cf.min, lp->cf.max);
    if (json != NULL) {
        fprintf(json, "], \"capacity\": %u}\n", best);
    }
    return 0;
}

/* "400k", "1.5m", "400000": bits per second (powers of 1000) */
static int
parse_rate(const char *s, double *out)
{
    char  *end;
    double v = strtod(s, &end);

    if (end == s || v <= 0) {
        return -1;
    }
    if (*end == 'k' || *end == 'K') {
        v *= 1e3;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v *= 1e6;
        end++;
    }
    *out = v;
    return *end == '\0' ? 0 : -1;
}

static int
parse_u32(const char *s, uint32_t *out)
{
    char         *end;
    unsigned long v = strtoul(s, &end, 10);

    if (end == s || *end != '\0' || s[0] == '-' || v == 0 || v > 1000000) {
        return -1;
    }
    *out = (uint32_t) v;
    return 0;
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"connections", required_argument, NULL, 'c'},
        {"root", required_argument, NULL, 'r'},
        {"duration", required_argument, NULL, 'd'},
        {"warmup", required_argument, NULL, 'w'},
        {"rate-per-conn", required_argument, NULL, 'R'},
        {"mix", required_argument, NULL, 'M'},
        {"dynamic-prefix", required_argument, NULL, 'P'},
        {"fileset-connections", required_argument, NULL, 'F'},
        {"verify", no_argument, NULL, 'v'},
        {"max-errors", required_argument, NULL, 'E'},
        {"timeout", required_argument, NULL, 't'},
        {"seed", required_argument, NULL, 's'},
        {"json", required_argument, NULL, 'j'},
        {"log", required_argument, NULL, 'l'},
        {"search", no_argument, NULL, 'S'},
        {"min", required_argument, NULL, 'm'},
        {"max", required_argument, NULL, 'x'},
        {"conform", required_argument, NULL, 'C'},
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *root = NULL, *bad = NULL;
    char        err[512], *end;
    FILE       *json = NULL;
    int         ch, rc;
    load_t      state, *lp = &state;

    memset(&state, 0, sizeof(state));
    state.ep = -1;
    lp->cf.duration = 30;
    lp->cf.warmup = 5;
    lp->cf.timeout = 30;
    lp->cf.rate = 400000;
    lp->cf.conform = 1.0;
    lp->cf.min = 1;
    lp->cf.max = 64;
    lp->cf.seed = 1;
    lp->cf.prefix = "/specweb/";
    while ((ch = getopt_long(argc, argv, "c:qh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c':
            bad = parse_u32(optarg, &lp->cf.conns) ? "--connections" : bad;
            break;
        case 'F':
            bad = parse_u32(optarg, &lp->cf.fileset_conns) ? "--fileset-connections"
                                                       : bad;
            break;
        case 'm': bad = parse_u32(optarg, &lp->cf.min) ? "--min" : bad; break;
        case 'x': bad = parse_u32(optarg, &lp->cf.max) ? "--max" : bad; break;
        case 'r': root = optarg; break;
        case 'E':
            bad = hclient_limit_parse(optarg, &lp->cf.max_errors) ? "--max-errors"
                                                              : bad;
            break;
        case 'd':
            lp->cf.duration = strtod(optarg, &end);
            bad = *end != '\0' || !(lp->cf.duration > 0) ? "--duration" : bad;
            break;
        case 'w':
            lp->cf.warmup = strtod(optarg, &end);
            bad = *end != '\0' || !(lp->cf.warmup >= 0) ? "--warmup" : bad;
            break;
        case 't':
            lp->cf.timeout = strtod(optarg, &end);
            bad = *end != '\0' || !(lp->cf.timeout > 0) ? "--timeout" : bad;
            break;
        case 'C':
            lp->cf.conform = strtod(optarg, &end);
            bad = *end != '\0' || !(lp->cf.conform > 0 && lp->cf.conform <= 1)
                      ? "--conform"
                      : bad;
            break;
        case 'R':
            bad = parse_rate(optarg, &lp->cf.rate) ? "--rate-per-conn" : bad;
            break;
        case 'M':
            if (strcmp(optarg, "static") != 0 && strcmp(optarg, "full") != 0) {
                fprintf(stderr, "nicload: --mix %s: \"static\" or \"full\"\n",
                        optarg);
                return 2;
            }
            lp->cf.full = strcmp(optarg, "full") == 0;
            break;
        case 'P': lp->cf.prefix = optarg; break;
        case 'v': lp->cf.verify = 1; break;
        case 's': lp->cf.seed = strtoull(optarg, NULL, 10); break;
        case 'j': lp->cf.json = optarg; break;
        case 'l': lp->cf.log = optarg; break;
        case 'S': lp->cf.search = 1; break;
        case 'q': lp->cf.quiet = 1; break;
        case NICACHE_OPT_VERSION:
            printf("%s (nicache) %s\nfeatures: gzip (zlib %s)\n", "nicload",
                   NICACHE_VERSION, zlibVersion());
            return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad != NULL) {
            fprintf(stderr, "nicload: %s %s: not a valid value\n", bad, optarg);
            return 2;
        }
    }
    if (argc - optind == 1 && strcmp(argv[optind], "fileset") == 0) {
        if (lp->cf.conns == 0 || root == NULL) {
            fprintf(stderr, "nicload: fileset needs --connections N and "
                            "--root DIR\n");
            return 2;
        }
        return fileset(lp->cf.conns, root);
    }
    if (argc - optind != 1) {
        usage(stderr);
        return 2;
    }
    if ((lp->cf.conns == 0) == !lp->cf.search || lp->cf.min > lp->cf.max) {
        fprintf(stderr, "nicload: give --connections N, or --search (with "
                        "--min <= --max)\n");
        return 2;
    }
    lp->cf.url = argv[optind];
    if (hclient_parse_url(lp->cf.url, &lp->cf.addr, lp->cf.host, sizeof(lp->cf.host), err,
                          sizeof(err))
        != 0) {
        fprintf(stderr, "nicload: %s\n", err);
        return 2;
    }
    if (lp->cf.log != NULL && (lp->log_file = fopen(lp->cf.log, "w")) == NULL) {
        fprintf(stderr, "nicload: %s: %s\n", lp->cf.log, strerror(errno));
        return 1;
    }
    if (lp->cf.json != NULL && (json = fopen(lp->cf.json, "w")) == NULL) {
        fprintf(stderr, "nicload: %s: %s\n", lp->cf.json, strerror(errno));
        return 1;
    }
    /* a descriptor a connection: raise the soft limit to what is needed */
    {
        struct rlimit rl;
        rlim_t        need = (lp->cf.search ? lp->cf.max : lp->cf.conns) + 64;

        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
            rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
            setrlimit(RLIMIT_NOFILE, &rl);
            if (rl.rlim_cur < need) {
                fprintf(stderr,
                        "nicload: %llu connections need %llu file "
                        "descriptors; the limit is %llu (ulimit -n)\n",
                        (unsigned long long) need - 64,
                        (unsigned long long) need,
                        (unsigned long long) rl.rlim_cur);
                return 1;
            }
        }
    }
    nicache_catch_stop();
    if (probe_fileset(lp, lp->cf.search && lp->cf.max > lp->cf.fileset_conns ? lp->cf.max
                      : lp->cf.fileset_conns > 0                ? lp->cf.fileset_conns
                                                            : lp->cf.conns)
        != 0) {
        if (json != NULL) {
            fclose(json);
        }
        freeaddrinfo(lp->cf.addr);
        return 1;
    }
    if (lp->cf.search) {
        lp->cf.quiet = 1;
        rc = search(lp, json);
    } else {
        rc = run(lp) != 0;
        if (rc == 0) {
            print_summary(lp, stdout);
            if (json != NULL) {
                write_result(lp, json);
                fputc('\n', json);
            }
            if (lp->res.failure[0] != '\0') {
                fprintf(stderr, "nicload: failed: %s\n", lp->res.failure);
                rc = 1;
            }
        }
    }
    if (json != NULL && fclose(json) != 0) {
        fprintf(stderr, "nicload: %s: %s\n", lp->cf.json, strerror(errno));
        rc = 1;
    }
    if (lp->log_file != NULL) {
        fclose(lp->log_file);
    }
    freeaddrinfo(lp->cf.addr);
    free(lp->res.rates);
    return rc;
}
