/*
 * nicreplay: replays a Web access log against an HTTP/1.1 server with
 * infinite demand, as Kim, Rixner and Pai did (section 5.2): the trace is
 * cut into sessions (a client's persistent connection) and pipeline groups
 * (feed.c), and -c users each take the next session in trace order, open a
 * connection, write each group's requests back to back, read their
 * responses, and close the connection at the session's end.
 *
 * One thread, one epoll set, non-blocking sockets; a user is a small state
 * machine (waiting for its time, a group under way, done) over one
 * connection of hclient.c, which writes the group and reads its responses
 * with hresp.c (nicload shares it); with --verify every body byte of a 200 or 206 is
 * checked against the docroot generator (content.c).  Several processes
 * share a trace with --shard i/n, and "nicreplay merge" adds their --json
 * results up.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <limits.h>
#include <math.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../../src/util/version.h"
#include "../lib/breakdown.h"
#include "../lib/content.h"
#include "../lib/feed.h"
#include "../lib/hclient.h"
#include "../lib/hist.h"
#include "../lib/hresp.h"
#include "../lib/json.h"
#include "../lib/objects.h"
#include "../../src/util/clock.h"
#include "../../src/util/stop.h"

#define MAX_STATUS 600

enum { E_CONNECT = 0, E_RESET, E_TIMEOUT, E_PARSE, E_KINDS };

static const char *const error_names[E_KINDS] = {"connect", "reset", "timeout",
                                                 "parse"};

typedef struct {
    uint64_t     requests; /* responses received */
    uint64_t     sent;
    uint64_t     failed; /* requests that got no response */
    uint64_t     status[MAX_STATUS];
    uint64_t     status_other;
    uint64_t     errors[E_KINDS];
    uint64_t     mismatches; /* responses with a wrong body byte */
    uint64_t     verified_bytes;
    uint64_t     content_bytes; /* body bytes of every response */
    uint64_t     head_bytes;
    uint64_t     connections;
    uint64_t     reconnects;
    uint64_t     sessions;
    uint64_t     groups;
    uint64_t     max_depth;
    double       elapsed;
    trace_hist_t latency; /* microseconds */
    /* fidelity: what the log answered against what came back */
    uint64_t log_2xx, got_2xx, logged_size, log_404, got_404, log_3xx;
    uint64_t got_301;
    uint64_t miss_2xx[MAX_STATUS]; /* 2xx in the log, this status now */
    /* open-loop and timed replay: latency from the send itself too, and
     * how late sends went out against their schedule */
    trace_hist_t latency_sent;
    uint64_t     lag_last_ns, lag_max_ns;
} result_t;

enum { U_IDLE = 0, U_ACTIVE, U_WAITING, U_DONE };

typedef struct {
    hclient_t    hc;
    int          state;
    feed_sess_t *sess;
    feed_req_t  *group; /* requests sent and not answered, in order */
    size_t       ngroup;
    int          checking; /* this response's body is verified (-1: not
                              known until its status is) */
    int          bad;      /* and a byte was wrong */
    uint64_t     seed;
    uint64_t     sent_ns;     /* when the group's writing began */
    uint64_t     intended_ns; /* when it was meant to (0: not scheduled) */
    int          attempts;    /* fresh connections that failed the group */
    uint64_t     sess_conns;  /* connections opened for this session */
    int          server;      /* of the session: cf.addr[] */
} user_t;

#define MAX_SERVERS 64

typedef struct {
    const char      *host_header[MAX_SERVERS];
    struct addrinfo *addr[MAX_SERVERS];
    int              nservers; /* session k goes to server k mod n */
    int              conns;
    int              verify;
    int              as_logged; /* ranges and conditionals, as logged */
    int              quiet;
    uint64_t         max_requests; /* 0: no limit */
    double           duration;     /* 0: no limit */
    double           timeout;
    size_t           max_depth;
    FILE            *log;
    double           rate;    /* --rate: requests per second (0: off) */
    int              poisson; /* ... with exponential gaps */
    double           speed;   /* --speed: the log's clock times this */
    const char      *hdr;     /* --hdr: an HdrHistogram log */
    hclient_limit_t  max_errors; /* --max-errors: connect failures allowed */
} conf_t;

static conf_t       cf;
static feed_t      *feed;
static breakdown_t *bd; /* --by-url, --by-size (NULL: neither) */
static result_t     res;
static user_t      *users;
static int          ep = -1;
static uint64_t     t_start;
static int          stop_issuing;

/* users waiting for their group's time: a binary heap by intended_ns */
static user_t **waiting;
static size_t   nwaiting;
static double   slot_ns; /* --rate: the next request's time, after t_start */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* --hdr: one interval a second */
static FILE        *hdr_file;
static trace_hist_t hdr_interval;
static uint64_t     hdr_since;

static int
hdr_write(uint64_t t)
{
    char *enc;
    int   rc;

    if (hdr_file == NULL) {
        return 0;
    }
    enc = trace_hist_hdr_encode(&hdr_interval);
    if (enc == NULL) {
        return -1;
    }
    /* start (s since the log's StartTime), length (s), max (ms, as
     * HdrHistogram's tools print microseconds), the histogram */
    rc = fprintf(hdr_file, "%.3f,%.3f,%.3f,%s\n",
                 (double) (hdr_since - t_start) / 1e9,
                 (double) (t - hdr_since) / 1e9,
                 (double) hdr_interval.max / 1000.0, enc);
    free(enc);
    memset(&hdr_interval, 0, sizeof(hdr_interval));
    hdr_since = t;
    return rc < 0 ? -1 : 0;
}

static int
scheduled(void)
{
    return cf.rate > 0 || cf.speed > 0;
}

static void
wait_push(user_t *u)
{
    size_t i = nwaiting++;

    while (i > 0 && waiting[(i - 1) / 2]->intended_ns > u->intended_ns) {
        waiting[i] = waiting[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    waiting[i] = u;
}

static user_t *
wait_pop(void)
{
    user_t *top = waiting[0], *last = waiting[--nwaiting];
    size_t  i = 0, c;

    for (;;) {
        c = 2 * i + 1;
        if (c >= nwaiting) {
            break;
        }
        if (c + 1 < nwaiting
            && waiting[c + 1]->intended_ns < waiting[c]->intended_ns) {
            c++;
        }
        if (waiting[c]->intended_ns >= last->intended_ns) {
            break;
        }
        waiting[i] = waiting[c];
        i = c;
    }
    if (nwaiting > 0) {
        waiting[i] = last;
    }
    return top;
}

/* a uniform double in (0, 1] (xorshift64*) */
static double
uniform(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return ((double) ((rng * 0x2545f4914f6cdd1dULL) >> 11) + 1)
           / 9007199254740992.0;
}

/* When the group u has just taken should go out. */
static uint64_t
schedule(const user_t *u)
{
    double at;

    if (cf.rate > 0) {
        at = slot_ns;
        slot_ns += cf.poisson ? -log(uniform()) * 1e9 / cf.rate : 1e9 / cf.rate;
    } else {
        at = (double) (u->group->time_us - feed_first_time_us(feed)) * 1e3
             / cf.speed;
    }
    return t_start + (uint64_t) (at > 0 ? at : 0);
}

static void
usage(FILE *out)
{
    fprintf(
        out,
        "usage: nicreplay [OPTIONS] TRACE http://HOST[:PORT]/ [URL...]\n"
        "       nicreplay merge RESULT.json... [--json FILE]\n"
        "\n"
        "Replays the GET and HEAD requests of TRACE (a file, plain or gzip, "
        "or - for\nstandard input with --format) with infinite demand: each "
        "of -c users takes\nthe next session in trace order, opens a "
        "connection, sends each pipeline\ngroup back to back, reads the "
        "responses, and closes at the session's end.\n"
        "A client's request less than --conn-gap seconds after its previous "
        "one joins\nits session; less than --pipeline-gap seconds after it, "
        "its pipeline group.  With several URLs, session k goes to URL k "
        "mod n (as\nnicsim --split n gives connection k to cache k mod "
        "n).\n"
        "\n"
        "  -c, --connections N   users (simultaneous connections), default 1\n"
        "      --conn-gap S      default 15\n"
        "      --pipeline-gap S  default 5\n"
        "      --no-pipeline     one request at a time\n"
        "      --max-depth N     send a longer group in pieces of N "
        "(default 64)\n"
        "      --only-ok         only requests logged with a status below "
        "400\n"
        "      --duration S      stop after S seconds\n"
        "      --requests N      stop after sending N requests\n"
        "      --loop            start the trace again at its end (a file)\n"
        "      --shard I/N       replay sessions I, I+N, I+2N, ... only\n"
        "      --verify          check every body byte of 200 and 206 "
        "responses\n"
        "                        against nictrace docroot's generator\n"
        "      --as-logged       ask for what the log says was sent: a "
        "success of n\n"
        "                        bytes as a Range for the first n, a 304 as "
        "a\n"
        "                        conditional GET (If-None-Match: *), a "
        "success of\n"
        "                        no bytes as a HEAD (nicsim's stream)\n"
        "      --timeout S       a connection idle this long fails its "
        "requests\n"
        "                        (default 30)\n"
        "      --max-errors N|P%% connections that may fail to connect, a "
        "count or a\n"
        "                        share of those tried (default 0: the first "
        "fails the run)\n"
        "      --host NAME       the Host header (default: from the "
        "URL)\n"
        "      --docroot DIR     send each request to the URL nictrace "
        "docroot gave its\n"
        "                        object (DIR's manifest), so successes, "
        "404s and\n"
        "                        redirects stay what they were\n"
        "      --manifest FILE   the same, naming the manifest itself\n"
        "      --rate R          open loop: request k goes out at k/R "
        "seconds (no\n"
        "                        pipelining; latency from the intended "
        "time)\n"
        "      --poisson         ... with exponential gaps of mean 1/R "
        "(seeded)\n"
        "      --speed X         timed replay: each group at its logged "
        "time, X times\n"
        "                        faster (1: real time)\n"
        "      --hdr FILE        the latency histogram as an HdrHistogram "
        "log (1.3)\n"
        "      --by-url N        the N URLs with the most requests, bytes "
        "and latency\n"
        "      --by-size[=specweb|pow2]  requests, bytes and latency by "
        "response size\n" TRACE_SRC_USAGE
        "      --json FILE       write the results as JSON (- for stdout)\n"
        "      --log FILE        one line per request: session, method, "
        "target,\n"
        "                        status (0: none), body bytes, latency us\n"
        "  -q, --quiet           no progress line\n"
        "  -h, --help            this text\n"
        "      --version         the version and the compiled features\n"
        "\n"
        "Errors: connect (could not connect), reset (the connection broke "
        "with\nrequests unanswered), timeout, parse (not an HTTP/1.x "
        "response).  A server\nclosing a persistent connection is not an "
        "error: unanswered requests are\nsent again on a new connection "
        "(reconnects).\n"
        "\n"
        "Exit status: 0 when the run did what was asked; 1 when it did not "
        "(no record\nparsed, nothing answered, connect errors past "
        "--max-errors, mismatches under\n--verify, a read error), with one "
        "line saying why (the summary, --json's\n\"run_failed\", --log and "
        "--hdr are still written, and say so); 2 for a bad\ncommand line; "
        "130 when interrupted.\n");
}

/* ---- results ---- */

static void
count_status(result_t *r, int status, uint64_t n)
{
    if (status >= 0 && status < MAX_STATUS) {
        r->status[status] += n;
    } else {
        r->status_other += n;
    }
}

static double
rate(uint64_t n, double s)
{
    return s > 0 ? (double) n / s : 0;
}

/* "LABEL p50 .. max ..SUFFIX" and its JSON member: one histogram each */
static void
print_latency(FILE *out, const char *label, const trace_hist_t *h,
              const char *suffix)
{
    fprintf(out, "%s p50 %llu  p90 %llu  p99 %llu  p99.9 %llu  max %llu%s\n",
            label, (unsigned long long) trace_hist_quantile(h, 0.5),
            (unsigned long long) trace_hist_quantile(h, 0.9),
            (unsigned long long) trace_hist_quantile(h, 0.99),
            (unsigned long long) trace_hist_quantile(h, 0.999),
            (unsigned long long) h->max, suffix);
}

static void
json_latency(FILE *out, const char *key, const trace_hist_t *h, int mean)
{
    fprintf(out,
            "  \"%s\": {\"p50\": %llu, \"p90\": %llu, \"p99\": %llu, "
            "\"p999\": %llu, ",
            key, (unsigned long long) trace_hist_quantile(h, 0.5),
            (unsigned long long) trace_hist_quantile(h, 0.9),
            (unsigned long long) trace_hist_quantile(h, 0.99),
            (unsigned long long) trace_hist_quantile(h, 0.999));
    if (mean) {
        fprintf(out, "\"mean\": %.1f, ",
                h->count ? (double) h->sum / (double) h->count : 0.0);
    }
    fprintf(out, "\"max\": %llu},\n", (unsigned long long) h->max);
}

/*
 * Why the run did not do what was asked, into buf (one line), or NULL
 * when it did: a trace with nothing to replay, no request answered,
 * connections that could not connect past --max-errors, bytes that did
 * not match under --verify.
 */
static const char *
run_failure(const result_t *r, const feed_stats_t *fs, char *buf,
            size_t len)
{
    if (fs != NULL && fs->records == 0) {
        snprintf(buf, len, "no record of the trace parsed (%llu lines did "
                 "not: nictrace stats lists them)",
                 (unsigned long long) trace_bad_count(feed_reader(feed)));
    } else if (fs != NULL && fs->kept == 0) {
        snprintf(buf, len, "nothing to replay: of %llu records, %llu other "
                 "methods, %llu not ok, %llu other shards",
                 (unsigned long long) fs->records,
                 (unsigned long long) fs->other_methods,
                 (unsigned long long) fs->not_ok,
                 (unsigned long long) fs->other_shards);
    } else if (r->requests == 0) {
        snprintf(buf, len, "no request was answered (%llu connect errors in "
                 "%llu connections, %llu other errors)",
                 (unsigned long long) r->errors[E_CONNECT],
                 (unsigned long long) r->connections,
                 (unsigned long long) (r->errors[E_RESET]
                                       + r->errors[E_TIMEOUT]
                                       + r->errors[E_PARSE]));
    } else if (hclient_limit_exceeded(&cf.max_errors, r->errors[E_CONNECT],
                                      r->connections)) {
        snprintf(buf, len, "%llu of %llu connections could not connect "
                 "(--max-errors %g%s)",
                 (unsigned long long) r->errors[E_CONNECT],
                 (unsigned long long) r->connections, cf.max_errors.value,
                 cf.max_errors.percent ? "%" : "");
    } else if (cf.verify && r->mismatches > 0) {
        snprintf(buf, len, "%llu responses did not have the docroot's bytes "
                 "(--verify)",
                 (unsigned long long) r->mismatches);
    } else {
        return NULL;
    }
    return buf;
}

static void
print_summary(const result_t *r, FILE *out)
{
    int i, any = 0;

    fprintf(out,
            "%llu requests in %.2f s, %llu sessions, %llu connections "
            "(%llu reconnects)\n",
            (unsigned long long) r->requests, r->elapsed,
            (unsigned long long) r->sessions,
            (unsigned long long) r->connections,
            (unsigned long long) r->reconnects);
    fprintf(out, "  requests/s   %.1f\n", rate(r->requests, r->elapsed));
    fprintf(out, "  content      %.2f Mb/s (%llu body bytes)\n",
            rate(r->content_bytes, r->elapsed) * 8 / 1e6,
            (unsigned long long) r->content_bytes);
    fprintf(out, "  pipeline     %llu groups, depth mean %.2f, max %llu\n",
            (unsigned long long) r->groups,
            r->groups ? (double) r->sent / (double) r->groups : 0.0,
            (unsigned long long) r->max_depth);
    print_latency(out, "  latency us  ", &r->latency, "");
    if (r->latency_sent.count > 0) {
        print_latency(out, "  from send us", &r->latency_sent,
                      " (uncorrected)");
        fprintf(out, "  schedule     sends late by up to %.1f ms\n",
                (double) r->lag_max_ns / 1e6);
    }
    fprintf(out, "  responses   ");
    for (i = 0; i < MAX_STATUS; i++) {
        if (r->status[i] > 0) {
            fprintf(out, " %d: %llu", i, (unsigned long long) r->status[i]);
            any = 1;
        }
    }
    if (r->status_other > 0) {
        fprintf(out, " other: %llu", (unsigned long long) r->status_other);
    }
    fprintf(out, "%s\n  errors      ", any ? "" : " none");
    for (i = 0; i < E_KINDS; i++) {
        fprintf(out, " %s %llu", error_names[i],
                (unsigned long long) r->errors[i]);
    }
    fprintf(out, " (requests without a response: %llu)\n",
            (unsigned long long) r->failed);
    fprintf(out, "  mismatches   %llu (%llu body bytes verified)\n",
            (unsigned long long) r->mismatches,
            (unsigned long long) r->verified_bytes);
    if (r->log_2xx == 0) {
        /* no share of nothing: a 100 % of 0 would read as a success */
        fprintf(out, "  fidelity     no 2xx request replayed");
    } else {
        fprintf(out, "  fidelity     2xx answered 2xx %.2f %%",
                100.0 * (double) r->got_2xx / (double) r->log_2xx);
    }
    fprintf(out,
            " (%llu of %llu, %llu of "
            "the logged size); 404 stayed 404: %llu of %llu; 3xx answered "
            "301: %llu of %llu\n",
            (unsigned long long) r->got_2xx, (unsigned long long) r->log_2xx,
            (unsigned long long) r->logged_size,
            (unsigned long long) r->got_404, (unsigned long long) r->log_404,
            (unsigned long long) r->got_301, (unsigned long long) r->log_3xx);
    for (i = 0; i < MAX_STATUS; i++) {
        if (r->miss_2xx[i] > 0) {
            fprintf(out, "               2xx in the log answered %d: %llu\n", i,
                    (unsigned long long) r->miss_2xx[i]);
        }
    }
}

static int
write_json(const result_t *r, const feed_stats_t *fs, const char *failure,
           const char *path)
{
    FILE    *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int      i, first = 1;
    unsigned b;

    if (out == NULL) {
        fprintf(stderr, "nicreplay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(out, "{\n  \"run_failed\": ");
    if (failure != NULL) {
        json_write_string(out, failure);
    } else {
        fputs("null", out);
    }
    fprintf(out, ",\n  \"requests\": %llu,\n  \"requests_sent\": %llu,\n",
            (unsigned long long) r->requests, (unsigned long long) r->sent);
    fprintf(out, "  \"failed\": %llu,\n  \"duration_s\": %.6f,\n",
            (unsigned long long) r->failed, r->elapsed);
    fprintf(out, "  \"requests_per_s\": %.3f,\n  \"content_mbps\": %.3f,\n",
            rate(r->requests, r->elapsed),
            rate(r->content_bytes, r->elapsed) * 8 / 1e6);
    fprintf(out, "  \"content_bytes\": %llu,\n  \"header_bytes\": %llu,\n",
            (unsigned long long) r->content_bytes,
            (unsigned long long) r->head_bytes);
    fprintf(out, "  \"responses_by_status\": {");
    for (i = 0; i < MAX_STATUS; i++) {
        if (r->status[i] > 0) {
            fprintf(out, "%s\"%d\": %llu", first ? "" : ", ", i,
                    (unsigned long long) r->status[i]);
            first = 0;
        }
    }
    if (r->status_other > 0) {
        fprintf(out, "%s\"other\": %llu", first ? "" : ", ",
                (unsigned long long) r->status_other);
    }
    fprintf(out, "},\n  \"errors\": {");
    for (i = 0; i < E_KINDS; i++) {
        fprintf(out, "%s\"%s\": %llu", i ? ", " : "", error_names[i],
                (unsigned long long) r->errors[i]);
    }
    fprintf(out, "},\n  \"mismatches\": %llu,\n  \"verified_bytes\": %llu,\n",
            (unsigned long long) r->mismatches,
            (unsigned long long) r->verified_bytes);
    fprintf(out,
            "  \"sessions\": %llu,\n  \"connections\": %llu,\n"
            "  \"reconnects\": %llu,\n",
            (unsigned long long) r->sessions,
            (unsigned long long) r->connections,
            (unsigned long long) r->reconnects);
    fprintf(out,
            "  \"pipeline\": {\"groups\": %llu, \"mean_depth\": %.3f, "
            "\"max_depth\": %llu},\n",
            (unsigned long long) r->groups,
            r->groups ? (double) r->sent / (double) r->groups : 0.0,
            (unsigned long long) r->max_depth);
    json_latency(out, "latency_us", &r->latency, 1);
    if (r->latency_sent.count > 0) {
        json_latency(out, "latency_from_send_us", &r->latency_sent, 0);
        fprintf(out, "  \"schedule_lag_max_us\": %llu,\n",
                (unsigned long long) (r->lag_max_ns / 1000));
    }
    if (bd != NULL && fs != NULL) {
        breakdown_json(bd, feed, r->elapsed, out);
    }
    fprintf(out,
            "  \"fidelity\": {\"log_2xx\": %llu, \"answered_2xx\": %llu, "
            "\"share_2xx\": %.6f, \"logged_size\": %llu, \"log_404\": %llu, "
            "\"answered_404\": %llu, \"log_3xx\": %llu, \"answered_301\": "
            "%llu, \"exceptions\": {",
            (unsigned long long) r->log_2xx, (unsigned long long) r->got_2xx,
            r->log_2xx ? (double) r->got_2xx / (double) r->log_2xx : 0.0,
            (unsigned long long) r->logged_size,
            (unsigned long long) r->log_404, (unsigned long long) r->got_404,
            (unsigned long long) r->log_3xx, (unsigned long long) r->got_301);
    first = 1;
    for (i = 0; i < MAX_STATUS; i++) {
        if (r->miss_2xx[i] > 0) {
            fprintf(out, "%s\"2xx_answered_%d\": %llu", first ? "" : ", ", i,
                    (unsigned long long) r->miss_2xx[i]);
            first = 0;
        }
    }
    fprintf(out, "}},\n");
    if (fs != NULL) {
        fprintf(out,
                "  \"trace\": {\"records\": %llu, \"replayed\": %llu, "
                "\"other_methods\": %llu, \"not_ok\": %llu, "
                "\"other_shards\": %llu, \"parse_errors\": %llu},\n",
                (unsigned long long) fs->records, (unsigned long long) fs->kept,
                (unsigned long long) fs->other_methods,
                (unsigned long long) fs->not_ok,
                (unsigned long long) fs->other_shards,
                (unsigned long long) trace_bad_count(feed_reader(feed)));
    }
    /* the histogram as [smallest value of the bucket, count] pairs, so
     * merge can add runs up and recompute the percentiles */
    fprintf(out, "  \"latency_histogram_us\": [");
    first = 1;
    for (b = 0; b < TRACE_HIST_BUCKETS; b++) {
        if (r->latency.bucket[b] > 0) {
            fprintf(out, "%s[%llu, %llu]", first ? "" : ", ",
                    (unsigned long long) trace_hist_low(b),
                    (unsigned long long) r->latency.bucket[b]);
            first = 0;
        }
    }
    fprintf(out,
            "],\n  \"latency_sum_us\": %llu,\n  \"latency_max_us\": "
            "%llu\n}\n",
            (unsigned long long) r->latency.sum,
            (unsigned long long) r->latency.max);
    if (out != stdout) {
        return fclose(out) == 0 ? 0 : -1;
    }
    fflush(out);
    return 0;
}

/* ---- merge ---- */

static uint64_t
num(const json_t *o, const char *key, int *bad)
{
    const json_t *v = json_get(o, key);

    if (v == NULL || v->type != JSON_NUMBER || v->number < 0) {
        *bad = 1;
        return 0;
    }
    return (uint64_t) v->number;
}

static int
merge_one(const char *path, result_t *r, double *rps, double *mbps)
{
    FILE         *f = fopen(path, "r");
    char         *buf = NULL, err[256];
    size_t        n = 0, cap = 0, k;
    json_t       *root;
    const json_t *o, *e;
    int           bad = 0, i;

    if (f == NULL) {
        fprintf(stderr, "nicreplay merge: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (cap - n < 65536) {
            char *nb = realloc(buf, cap + 65536);

            if (nb == NULL) {
                break;
            }
            buf = nb;
            cap += 65536;
        }
        k = fread(buf + n, 1, cap - n, f);
        if (k == 0) {
            break;
        }
        n += k;
    }
    fclose(f);
    root = buf != NULL ? json_parse(buf, n, err, sizeof(err)) : NULL;
    free(buf);
    if (root == NULL) {
        fprintf(stderr, "nicreplay merge: %s: not JSON (%s)\n", path,
                buf != NULL ? err : "out of memory");
        return -1;
    }
    r->requests += num(root, "requests", &bad);
    r->sent += num(root, "requests_sent", &bad);
    r->failed += num(root, "failed", &bad);
    r->mismatches += num(root, "mismatches", &bad);
    r->verified_bytes += num(root, "verified_bytes", &bad);
    r->content_bytes += num(root, "content_bytes", &bad);
    r->head_bytes += num(root, "header_bytes", &bad);
    r->sessions += num(root, "sessions", &bad);
    r->connections += num(root, "connections", &bad);
    r->reconnects += num(root, "reconnects", &bad);
    o = json_get(root, "pipeline");
    r->groups += num(o, "groups", &bad);
    k = num(o, "max_depth", &bad);
    if (k > r->max_depth) {
        r->max_depth = k;
    }
    e = json_get(root, "duration_s");
    if (e == NULL || e->type != JSON_NUMBER) {
        bad = 1;
    } else if (e->number > r->elapsed) {
        r->elapsed = e->number; /* the runs overlap: the longest */
    }
    e = json_get(root, "requests_per_s");
    *rps += e != NULL && e->type == JSON_NUMBER ? e->number : 0;
    e = json_get(root, "content_mbps");
    *mbps += e != NULL && e->type == JSON_NUMBER ? e->number : 0;
    o = json_get(root, "responses_by_status");
    for (e = o != NULL ? o->child : NULL; e != NULL; e = e->next) {
        char *end;
        long  st = strtol(e->key, &end, 10);

        if (e->type != JSON_NUMBER) {
            bad = 1;
        } else if (*end != '\0' || end == e->key) {
            r->status_other += (uint64_t) e->number;
        } else {
            count_status(r, (int) st, (uint64_t) e->number);
        }
    }
    o = json_get(root, "errors");
    for (i = 0; i < E_KINDS; i++) {
        r->errors[i] += num(o, error_names[i], &bad);
    }
    o = json_get(root, "latency_histogram_us");
    if (o == NULL || o->type != JSON_ARRAY) {
        bad = 1;
    }
    for (e = o != NULL ? o->child : NULL; e != NULL; e = e->next) {
        const json_t *lo = e->child, *cnt = lo != NULL ? lo->next : NULL;

        if (e->type != JSON_ARRAY || lo == NULL || cnt == NULL
            || lo->type != JSON_NUMBER || cnt->type != JSON_NUMBER) {
            bad = 1;
            continue;
        }
        r->latency.bucket[trace_hist_index((uint64_t) lo->number)] +=
            (uint64_t) cnt->number;
        r->latency.count += (uint64_t) cnt->number;
    }
    o = json_get(root, "fidelity");
    r->log_2xx += num(o, "log_2xx", &bad);
    r->got_2xx += num(o, "answered_2xx", &bad);
    r->logged_size += num(o, "logged_size", &bad);
    r->log_404 += num(o, "log_404", &bad);
    r->got_404 += num(o, "answered_404", &bad);
    r->log_3xx += num(o, "log_3xx", &bad);
    r->got_301 += num(o, "answered_301", &bad);
    o = json_get(o, "exceptions");
    for (e = o != NULL ? o->child : NULL; e != NULL; e = e->next) {
        long st = strtol(e->key + (strlen(e->key) > 13 ? 13 : 0), NULL, 10);

        if (e->type != JSON_NUMBER || strncmp(e->key, "2xx_answered_", 13) != 0
            || st < 0 || st >= MAX_STATUS) {
            bad = 1;
            continue;
        }
        r->miss_2xx[st] += (uint64_t) e->number;
    }
    r->latency.sum += num(root, "latency_sum_us", &bad);
    k = num(root, "latency_max_us", &bad);
    if (k > r->latency.max) {
        r->latency.max = k;
    }
    json_free(root);
    if (bad) {
        fprintf(stderr,
                "nicreplay merge: %s: not a nicreplay result (a key is "
                "missing or not a number)\n",
                path);
        return -1;
    }
    return 0;
}

static int
merge(int argc, char **argv, const char *json)
{
    result_t *r = calloc(1, sizeof(*r));
    double    rps = 0, mbps = 0;
    int       i, rc = 0;

    if (r == NULL || argc == 0) {
        free(r);
        usage(stderr);
        return 2;
    }
    for (i = 0; i < argc; i++) {
        if (merge_one(argv[i], r, &rps, &mbps) != 0) {
            free(r);
            return 1;
        }
    }
    /* runs side by side: their rates add up; the summary's rates come
     * from the longest run's duration, so say what was added */
    print_summary(r, stdout);
    printf("  merged %d runs: requests/s %.1f, content %.2f Mb/s (sums of "
           "the runs' rates)\n",
           argc, rps, mbps);
    if (json != NULL) {
        /* write the summed rates: scale the duration so that
         * requests / duration is their sum */
        if (rps > 0) {
            r->elapsed = (double) r->requests / rps;
        }
        rc = write_json(r, NULL, NULL, json) == 0 ? 0 : 1;
    }
    free(r);
    return rc;
}

/* ---- the replay ---- */

static int
parse_url(const char *url, const char *host_override, int i)
{
    static char hdrs[MAX_SERVERS][300];
    char        err[512];

    if (hclient_parse_url(url, &cf.addr[i], hdrs[i], sizeof(hdrs[i]), err,
                          sizeof(err))
        != 0) {
        fprintf(stderr, "nicreplay: %s\n", err);
        return -1;
    }
    cf.host_header[i] = host_override != NULL ? host_override : hdrs[i];
    return 0;
}

static void user_next(user_t *u);

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
as_logged(const feed_req_t *q, char *extra, size_t len)
{
    int ok = q->status == 200 || q->status == 206;

    extra[0] = '\0';
    if (!cf.as_logged || q->method != TRACE_GET) {
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
method_sent(const feed_req_t *q)
{
    char extra[64];

    return as_logged(q, extra, sizeof(extra));
}

static void
log_request(const user_t *u, const feed_req_t *q, int status, uint64_t bytes,
            uint64_t us)
{
    size_t      len;
    const char *t = feed_target(feed, q->url, &len);

    fprintf(cf.log, "%llu %s %.*s %d %llu %llu %llu %llu\n",
            (unsigned long long) feed_session_id(u->sess),
            method_sent(q) == TRACE_HEAD ? "HEAD" : "GET", (int) len, t, status,
            (unsigned long long) bytes, (unsigned long long) us,
            (unsigned long long) (u->intended_ns > t_start
                                      ? (u->intended_ns - t_start) / 1000
                                      : 0),
            (unsigned long long) (u->sent_ns > t_start
                                      ? (u->sent_ns - t_start) / 1000
                                      : 0));
}

/* The unanswered requests of u get no response. */
static void
fail_group(user_t *u, int kind)
{
    feed_req_t *q;

    if (kind >= 0) {
        res.errors[kind]++;
    }
    for (q = u->group; q != NULL; q = q->next) {
        res.failed++;
        if (cf.log != NULL) {
            log_request(u, q, 0, 0, 0);
        }
    }
    feed_free_reqs(feed, u->group);
    u->group = NULL;
    u->ngroup = 0;
    u->attempts = 0;
    close_conn(u);
}

/* the requests of the group, back to back, into the connection's
 * write buffer */
static int
build_requests(user_t *u)
{
    feed_req_t *q;
    const char *host = cf.host_header[u->server], *t;
    size_t      hl = strlen(host), len;
    char        extra[64], *w;
    int         m;

    for (q = u->group; q != NULL; q = q->next) {
        t = feed_target(feed, q->url, &len);
        m = as_logged(q, extra, sizeof(extra));
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
    user_t *u = ud;

    u->checking = -1;
    u->bad = 0;
    u->seed = feed_seed(feed, u->group->url);
    return method_sent(u->group) == TRACE_HEAD;
}

static int
open_conn(user_t *u)
{
    if (hclient_open(&u->hc, ep, cf.addr[u->server]) != 0) {
        return -1;
    }
    u->state = U_ACTIVE;
    if (u->sess_conns++ > 0) {
        res.reconnects++; /* the session's connection was closed on it */
    }
    res.connections++;
    return 0;
}

/*
 * Send (or send again) the unanswered requests of the group: 0 when under
 * way, -1 when it failed at once (the group is failed and counted).
 */
static int
send_group(user_t *u)
{
    if (u->hc.fd < 0) {
        if (open_conn(u) != 0) {
            fail_group(u, E_CONNECT);
            return -1;
        }
        return 0; /* writing starts when the connection is up */
    }
    if (build_requests(u) != 0) {
        fail_group(u, E_RESET);
        return -1;
    }
    u->sent_ns = nicache_now_ns();
    if (u->intended_ns == 0) {
        u->intended_ns = u->sent_ns;
    } else if (scheduled() && u->sent_ns > u->intended_ns) {
        res.lag_last_ns = u->sent_ns - u->intended_ns;
        if (res.lag_last_ns > res.lag_max_ns) {
            res.lag_max_ns = res.lag_last_ns;
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
    size_t n, max;

    for (;;) {
        if (stop_issuing || nicache_stopping()) {
            break;
        }
        if (u->sess == NULL) {
            u->sess = feed_take(feed);
            if (u->sess == NULL) {
                break;
            }
            res.sessions++;
            u->sess_conns = 0;
            u->server =
                (int) (feed_session_id(u->sess) % (uint64_t) cf.nservers);
        }
        max = cf.max_depth;
        if (cf.max_requests > 0 && cf.max_requests - res.sent < max) {
            max = (size_t) (cf.max_requests - res.sent);
        }
        n = feed_group(feed, u->sess, &u->group, max);
        if (n == 0) {
            /* the session is over: so is its connection */
            feed_release(feed, u->sess);
            u->sess = NULL;
            close_conn(u);
            continue;
        }
        u->ngroup = n;
        u->attempts = 0;
        res.sent += n;
        res.groups++;
        if (n > res.max_depth) {
            res.max_depth = n;
        }
        if (cf.max_requests > 0 && res.sent >= cf.max_requests) {
            stop_issuing = 1;
        }
        u->intended_ns = 0;
        if (scheduled()) {
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
        feed_release(feed, u->sess);
        u->sess = NULL;
    }
    close_conn(u);
    u->state = U_DONE;
}

static void
check_body(void *arg, uint64_t off, const char *p, size_t n)
{
    user_t *u = arg;

    const hresp_t *resp = &u->hc.resp;
    unsigned char  want[4096];
    size_t         k;

    if (u->checking < 0) {
        /* the first body bytes: the head is in */
        u->checking = cf.verify && (resp->status == 200 || resp->status == 206);
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
        res.verified_bytes += k;
        off += k;
        p += k;
        n -= k;
    }
}

/* One response is complete: account it and go on. */
/* fidelity: a 2xx stays a 2xx (of the logged size, when that is what was
 * asked for), a 404 a 404, a redirect a 301 (objects.h) */
static void
count_fidelity(const feed_req_t *q, int got, uint64_t body)
{
    int logged = q->status;

    if (logged >= 200 && logged < 300) {
        res.log_2xx++;
        if (got >= 200 && got < 300) {
            res.got_2xx++;
            res.logged_size +=
                body == (method_sent(q) == TRACE_HEAD ? 0 : q->bytes);
        } else {
            res.miss_2xx[got > 0 && got < MAX_STATUS ? got : 0]++;
        }
    } else if (logged == 404 || logged == 410) {
        res.log_404++;
        res.got_404 += got == 404;
    } else if (logged >= 300 && logged < 400 && logged != 304) {
        res.log_3xx++;
        res.got_301 += got == 301;
    }
}

static void
response_done(void *ud, const hresp_t *resp)
{
    user_t     *u = ud;
    feed_req_t *q = u->group;
    uint64_t    t = nicache_now_ns(), us = (t - u->sent_ns) / 1000;

    res.requests++;
    count_status(&res, resp->status, 1);
    res.content_bytes += resp->body;
    res.head_bytes += resp->head_bytes;
    if (scheduled()) {
        /* from when it should have gone: coordinated omission corrected
         * (wrk2's measure); from when it went, as well */
        trace_hist_add(&res.latency_sent, us, 1);
        us = (t - u->intended_ns) / 1000;
    }
    trace_hist_add(&res.latency, us, 1);
    trace_hist_add(&hdr_interval, us, 1);
    if (bd != NULL && breakdown_add(bd, q->url, resp->body, us) != 0) {
        breakdown_free(bd); /* out of memory: the rest goes on */
        bd = NULL;
        fprintf(stderr, "nicreplay: out of memory for --by-url\n");
    }
    count_fidelity(q, resp->status, resp->body);
    if (u->bad) {
        res.mismatches++;
    }
    if (cf.log != NULL) {
        log_request(u, q, resp->status, resp->body, us);
    }
    u->group = q->next;
    q->next = NULL;
    feed_free_reqs(feed, q);
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
    case HC_CONNECT: fail_group(u, E_CONNECT); break;
    case HC_CLOSED:
        if (answered > 0 || u->attempts++ < 1) {
            if (send_group(u) != 0) {
                user_next(u);
            }
            return;
        }
        fail_group(u, E_RESET);
        break;
    case HC_CUT: fail_group(u, E_RESET); break;
    default: fail_group(u, E_PARSE); break;
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
check_timeouts(uint64_t t)
{
    uint64_t limit = (uint64_t) (cf.timeout * 1e9);
    int      i;

    for (i = 0; i < cf.conns; i++) {
        user_t *u = &users[i];

        /* a user waiting for its group's time is not stuck (--speed
         * below 1 stretches a session's gaps past any timeout) */
        if (u->group != NULL && u->hc.fd >= 0 && u->state != U_WAITING
            && t > u->hc.activity_ns && t - u->hc.activity_ns > limit) {
            fail_group(u, E_TIMEOUT);
            user_next(u);
        }
    }
}

static void
progress(uint64_t t, int final)
{
    static int tty = -1;
    double     el = (double) (t - t_start) / 1e9, r, p, eta = -1;
    char       etab[64] = "";

    if (tty < 0) {
        tty = isatty(STDERR_FILENO);
    }
    r = el > 0 ? (double) res.requests / el : 0;
    if (cf.duration > 0) {
        eta = cf.duration - el;
    }
    if (cf.max_requests > 0 && r > 0) {
        double e = (double) (cf.max_requests - res.requests) / r;

        eta = eta < 0 || e < eta ? e : eta;
    }
    p = feed_progress(feed);
    if (eta < 0 && p > 0.001) {
        eta = el * (1 - p) / p;
    }
    if (eta >= 0 && !final) {
        snprintf(etab, sizeof(etab), ", ETA %.0f s", eta);
    }
    if (scheduled() && !final) {
        size_t k = strlen(etab);

        snprintf(etab + k, sizeof(etab) - k, ", lag %.1f ms",
                 (double) res.lag_last_ns / 1e6);
    }
    fprintf(stderr, "%snicreplay: %llu requests, %.0f/s, %.0f s%s%s",
            tty ? "\r" : "", (unsigned long long) res.requests, r, el, etab,
            tty ? (final ? "\n" : "    ") : "\n");
}

static int
replay(void)
{
    struct epoll_event evs[256];
    uint64_t           t, deadline = 0, next_tick, next_check;
    int                i, n, active, shown = 0, tick_every;

    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        perror("nicreplay: epoll_create1");
        return -1;
    }
    users = calloc((size_t) cf.conns, sizeof(user_t));
    waiting = calloc((size_t) cf.conns, sizeof(user_t *));
    if (users == NULL || waiting == NULL) {
        fprintf(stderr, "nicreplay: out of memory\n");
        return -1;
    }
    t_start = hdr_since = nicache_now_ns();
    if (cf.duration > 0) {
        deadline = t_start + (uint64_t) (cf.duration * 1e9);
    }
    tick_every = isatty(STDERR_FILENO) ? 1 : 10;
    next_tick = t_start + 2000000000u; /* quiet for short runs */
    next_check = t_start + 250000000u;
    for (i = 0; i < cf.conns; i++) {
        hclient_init(&users[i].hc, &replay_ops, &users[i]);
        user_next(&users[i]);
    }
    for (;;) {
        for (active = 0, i = 0; i < cf.conns; i++) {
            active += users[i].state != U_DONE;
        }
        if (active == 0 || nicache_stopping()) {
            break;
        }
        {
            int wait_ms = 100;

            if (nwaiting > 0) {
                t = nicache_now_ns();
                wait_ms = waiting[0]->intended_ns <= t
                              ? 0
                              : (int) ((waiting[0]->intended_ns - t + 999999)
                                       / 1000000);
                wait_ms = wait_ms > 100 ? 100 : wait_ms;
            }
            n = epoll_wait(ep, evs, 256, wait_ms);
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
        while (nwaiting > 0 && waiting[0]->intended_ns <= t) {
            user_t *u = wait_pop();

            if (send_group(u) != 0) {
                user_next(u);
            }
        }
        if (deadline != 0 && t >= deadline) {
            break;
        }
        if (hdr_file != NULL && t - hdr_since >= 1000000000u) {
            hdr_write(t);
        }
        if (t >= next_check) {
            check_timeouts(t);
            next_check = t + 250000000u;
        }
        if (t >= next_tick) {
            if (!cf.quiet) {
                progress(t, 0);
                shown = 1;
            }
            next_tick = t + (uint64_t) tick_every * 1000000000u;
        }
    }
    t = nicache_now_ns();
    res.elapsed = (double) (t - t_start) / 1e9;
    if (hdr_write(t) != 0) {
        fprintf(stderr, "nicreplay: --hdr: out of memory\n");
    }
    if (shown && isatty(STDERR_FILENO)) {
        progress(t, 1);
    }
    /* whatever is still in flight (a deadline or a signal) is neither
     * answered nor failed: it is left out of the counts */
    for (i = 0; i < cf.conns; i++) {
        user_t *u = &users[i];

        res.sent -= u->ngroup;
        feed_free_reqs(feed, u->group);
        if (u->sess != NULL) {
            feed_release(feed, u->sess);
        }
        hclient_free(&u->hc);
    }
    free(users);
    free(waiting);
    close(ep);
    return 0;
}

static int
parse_count(const char *s, const char *what, uint64_t *out)
{
    char              *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-') {
        fprintf(stderr, "nicreplay: %s: not a number: \"%s\"\n", what, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int
parse_seconds(const char *s, const char *what, double *out)
{
    char *end;

    *out = strtod(s, &end);
    if (end == s || *end != '\0' || !(*out >= 0)) {
        fprintf(stderr, "nicreplay: %s: not a number of seconds: \"%s\"\n",
                what, s);
        return -1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"connections", required_argument, NULL, 'c'},
        {"conn-gap", required_argument, NULL, 'g'},
        {"pipeline-gap", required_argument, NULL, 'p'},
        {"no-pipeline", no_argument, NULL, 'P'},
        {"max-depth", required_argument, NULL, 'D'},
        {"only-ok", no_argument, NULL, 'o'},
        {"duration", required_argument, NULL, 'd'},
        {"requests", required_argument, NULL, 'n'},
        {"loop", no_argument, NULL, 'L'},
        {"shard", required_argument, NULL, 's'},
        {"verify", no_argument, NULL, 'V'},
        {"max-errors", required_argument, NULL, 0x7101},
        {"as-logged", no_argument, NULL, 'A'},
        {"timeout", required_argument, NULL, 't'},
        {"host", required_argument, NULL, 'H'},
        TRACE_SRC_LONGOPTS,
        {"manifest", required_argument, NULL, 'M'},
        {"rate", required_argument, NULL, 'r'},
        {"poisson", no_argument, NULL, 'O'},
        {"speed", required_argument, NULL, 'S'},
        {"hdr", required_argument, NULL, 'T'},
        {"by-url", required_argument, NULL, 'U'},
        {"by-size", optional_argument, NULL, 'Z'},
        {"docroot", required_argument, NULL, 'R'},
        {"json", required_argument, NULL, 'j'},
        {"log", required_argument, NULL, 'l'},
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    feed_opts_t fo = {0};
    const char *json = NULL, *logpath = NULL, *host = NULL;
    char        err[512], manifest[PATH_MAX];
    unsigned    by_url = 0;
    int         by_size = BY_SIZE_NONE;
    uint64_t    v;
    double      gap;
    int         ch, rc;

    fo.src = (trace_src_t) TRACE_SRC_INIT;
    fo.conn_gap = 15;
    fo.pipeline_gap = 5;
    fo.shards = 1;
    cf.conns = 1;
    cf.timeout = 30;
    cf.max_depth = 64;

    if (argc > 1 && strcmp(argv[1], "merge") == 0) {
        int i, n = 0;

        for (i = 2; i < argc; i++) {
            if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
                json = argv[++i];
            } else {
                argv[2 + n++] = argv[i];
            }
        }
        return merge(n, argv + 2, json);
    }

    while ((ch = getopt_long(argc, argv, "c:qh", longopts, NULL)) != -1) {
        rc = trace_src_option(&fo.src, ch, optarg, err, sizeof(err));
        if (rc != 0) {
            if (rc < 0) {
                fprintf(stderr, "nicreplay: %s\n", err);
                return 2;
            }
            continue;
        }
        switch (ch) {
        case 'c':
            if (parse_count(optarg, "-c", &v) != 0 || v == 0 || v > 1000000) {
                fprintf(stderr, "nicreplay: -c wants 1 to 1000000\n");
                return 2;
            }
            cf.conns = (int) v;
            break;
        case 'g':
        case 'p':
            if (parse_seconds(optarg,
                              ch == 'g' ? "--conn-gap" : "--pipeline-gap", &gap)
                != 0) {
                return 2;
            }
            *(ch == 'g' ? &fo.conn_gap : &fo.pipeline_gap) = (int64_t) gap;
            break;
        case 'P': fo.no_pipeline = 1; break;
        case 'D':
            if (parse_count(optarg, "--max-depth", &v) != 0 || v == 0) {
                return 2;
            }
            cf.max_depth = (size_t) v;
            break;
        case 'o': fo.only_ok = 1; break;
        case 'd':
            if (parse_seconds(optarg, "--duration", &cf.duration) != 0) {
                return 2;
            }
            break;
        case 'n':
            if (parse_count(optarg, "--requests", &cf.max_requests) != 0) {
                return 2;
            }
            break;
        case 'L': fo.loop = 1; break;
        case 's': {
            unsigned long long i, n;
            int                used = 0;

            if (sscanf(optarg, "%llu/%llu%n", &i, &n, &used) != 2
                || optarg[used] != '\0' || n == 0 || i >= n) {
                fprintf(stderr,
                        "nicreplay: --shard wants I/N with 0 <= I < N\n");
                return 2;
            }
            fo.shard = i;
            fo.shards = n;
            break;
        }
        case 'V': cf.verify = 1; break;
        case 0x7101:
            if (hclient_limit_parse(optarg, &cf.max_errors) != 0) {
                fprintf(stderr,
                        "nicreplay: --max-errors: \"%s\" is not a count "
                        "or a percentage\n",
                        optarg);
                return 2;
            }
            break;
        case 'A': cf.as_logged = 1; break;
        case 'r':
        case 'S': {
            char  *end;
            double x = strtod(optarg, &end);

            if (end == optarg || *end != '\0' || !(x > 0) || x > 1e9) {
                fprintf(stderr, "nicreplay: %s wants a number above 0\n",
                        ch == 'r' ? "--rate" : "--speed");
                return 2;
            }
            *(ch == 'r' ? &cf.rate : &cf.speed) = x;
            break;
        }
        case 'O': cf.poisson = 1; break;
        case 'T': cf.hdr = optarg; break;
        case 'U':
            if (parse_count(optarg, "--by-url", &v) != 0 || v == 0
                || v > 100000) {
                fprintf(stderr, "nicreplay: --by-url wants 1 to 100000\n");
                return 2;
            }
            by_url = (unsigned) v;
            break;
        case 'Z':
            if (optarg == NULL || strcmp(optarg, "specweb") == 0) {
                by_size = BY_SIZE_SPECWEB;
            } else if (strcmp(optarg, "pow2") == 0) {
                by_size = BY_SIZE_POW2;
            } else {
                fprintf(stderr,
                        "nicreplay: --by-size=specweb or --by-size=pow2\n");
                return 2;
            }
            break;
        case 't':
            if (parse_seconds(optarg, "--timeout", &cf.timeout) != 0) {
                return 2;
            }
            break;
        case 'H': host = optarg; break;
        case 'M': fo.manifest = optarg; break;
        case 'R':
            snprintf(manifest, sizeof(manifest), "%s/%s", optarg,
                     TRACE_MANIFEST_NAME);
            fo.manifest = manifest;
            break;
        case 'j': json = optarg; break;
        case 'l': logpath = optarg; break;
        case 'q': cf.quiet = 1; break;
        case NICACHE_OPT_VERSION:
            printf("%s (nicache) %s\nfeatures: gzip (zlib %s)\n", "nicreplay",
                   NICACHE_VERSION, zlibVersion());
            return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind < 2 || argc - optind > 1 + MAX_SERVERS) {
        usage(stderr);
        return 2;
    }
    if (fo.pipeline_gap > fo.conn_gap) {
        fo.pipeline_gap = fo.conn_gap;
    }
    if (cf.rate > 0 && cf.speed > 0) {
        fprintf(stderr, "nicreplay: --rate or --speed, not both\n");
        return 2;
    }
    if (cf.poisson && cf.rate == 0) {
        fprintf(stderr, "nicreplay: --poisson goes with --rate\n");
        return 2;
    }
    if (cf.rate > 0) {
        fo.no_pipeline = 1; /* a request is what the rate counts */
    }
    for (cf.nservers = 0; optind + 1 + cf.nservers < argc; cf.nservers++) {
        if (parse_url(argv[optind + 1 + cf.nservers], host, cf.nservers) != 0) {
            return 2;
        }
    }
    fo.src.path = argv[optind];
    feed = feed_open(&fo, err, sizeof(err));
    if (feed == NULL) {
        fprintf(stderr, "nicreplay: %s\n", err);
        return 1;
    }
    if ((by_url > 0 || by_size != BY_SIZE_NONE)
        && (bd = breakdown_new(by_url, by_size)) == NULL) {
        fprintf(stderr, "nicreplay: out of memory\n");
        return 1;
    }
    if (cf.hdr != NULL) {
        time_t now = time(NULL);

        hdr_file = fopen(cf.hdr, "w");
        if (hdr_file == NULL) {
            fprintf(stderr, "nicreplay: %s: %s\n", cf.hdr, strerror(errno));
            return 1;
        }
        fprintf(hdr_file,
                "#[Histogram log format version 1.3]\n"
                "#[StartTime: %lld.000 (seconds since epoch)]\n"
                "#[latency in microseconds%s]\n"
                "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                "\"Interval_Compressed_Histogram\"\n",
                (long long) now,
                scheduled() ? ", from each request's intended send time" : "");
    }
    if (logpath != NULL) {
        cf.log = fopen(logpath, "w");
        if (cf.log == NULL) {
            fprintf(stderr, "nicreplay: %s: %s\n", logpath, strerror(errno));
            return 1;
        }
    }
    nicache_catch_stop();
    rc = replay() == 0 ? 0 : 1;
    if (feed_error(feed) != NULL) {
        fprintf(stderr, "nicreplay: %s: %s\n", fo.src.path, feed_error(feed));
        rc = 1;
    }
    {
        const feed_stats_t *fs = feed_stats(feed);
        uint64_t            bad = trace_bad_count(feed_reader(feed));
        char                why[256];
        const char         *failure =
            nicache_stopping() || feed_error(feed) != NULL
                        ? NULL
                        : run_failure(&res, fs, why, sizeof(why));

        if (json == NULL || strcmp(json, "-") != 0) {
            print_summary(&res, stdout);
            printf("  trace        %llu records, %llu replayable; skipped: "
                   "%llu other methods, %llu not ok, %llu other shards; "
                   "%llu lines did not parse\n",
                   (unsigned long long) fs->records,
                   (unsigned long long) fs->kept,
                   (unsigned long long) fs->other_methods,
                   (unsigned long long) fs->not_ok,
                   (unsigned long long) fs->other_shards,
                   (unsigned long long) bad);
            if (bd != NULL) {
                breakdown_print(bd, feed, res.elapsed, stdout);
            }
        }
        if (json != NULL && write_json(&res, fs, failure, json) != 0) {
            rc = 1;
        }
        if (failure != NULL) {
            /* the partial outputs say so too */
            if (cf.log != NULL) {
                fprintf(cf.log, "# run failed: %s\n", failure);
            }
            if (hdr_file != NULL) {
                fprintf(hdr_file, "#[run failed: %s]\n", failure);
            }
            fprintf(stderr, "nicreplay: failed: %s\n", failure);
            rc = 1;
        }
    }
    if (cf.log != NULL && fclose(cf.log) != 0) {
        rc = 1;
    }
    breakdown_free(bd);
    feed_close(feed);
    for (ch = 0; ch < cf.nservers; ch++) {
        freeaddrinfo(cf.addr[ch]);
    }
    return nicache_stopping() && rc == 0 ? 130 : rc;
}
