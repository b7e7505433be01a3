/*
 * nicreplay's parts (main.c has the whole story): main.c reads the
 * command line, replay.c runs the users over their connections, report.c
 * counts, prints and writes JSON and CSV, merge.c merges runs.  A run's
 * state is one replay_t, at no file's scope.
 */

#ifndef NICREPLAY_H
#define NICREPLAY_H

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

#include "util/version.h"
#include "lib/breakdown.h"
#include "lib/causes.h"
#include "lib/cli.h"
#include "lib/models/content.h"
#include "lib/models/feed.h"
#include "lib/grow.h"
#include "lib/http/hclient.h"
#include "lib/http/hclient_tls.h"
#include "lib/hist.h"
#include "lib/http/hresp.h"
#include "lib/json.h"
#include "lib/models/objects.h"
#include "lib/rng.h"
#include "util/clock.h"
#include "util/stop.h"

#define MAX_STATUS 600

enum { E_CONNECT = 0, E_RESET, E_TIMEOUT, E_PARSE, E_KINDS };

/* their names in the summary and --json (report.c) */
extern const char *const nicreplay_error_names[E_KINDS];

typedef struct {
    uint64_t            requests; /* responses received */
    uint64_t            sent;
    uint64_t            failed; /* requests that got no response */
    uint64_t            status[MAX_STATUS];
    uint64_t            status_other;
    uint64_t            errors[E_KINDS];
    causes_t            causes;     /* the errors by step and reason */
    int                 tls;        /* some target was https:// */
    hclient_tls_stats_t tls_st;     /* their handshakes, added up */
    uint64_t            mismatches; /* responses with a wrong body byte */
    uint64_t            verified_bytes;
    uint64_t            content_bytes; /* body bytes of every response */
    uint64_t            head_bytes;
    uint64_t            connections;
    uint64_t            reconnects;
    uint64_t            sessions;
    uint64_t            groups;
    uint64_t            max_depth;
    double              elapsed;
    double              started_at; /* when the replay began, epoch seconds */
    trace_hist_t        latency;    /* microseconds */
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
    hclient_t        hc;
    int              state;
    feed_sess_t     *sess;
    feed_req_t      *group; /* requests sent and not answered, in order */
    size_t           ngroup;
    int              checking; /* this response's body is verified (-1: not
                              known until its status is) */
    int              bad;      /* and a byte was wrong */
    uint64_t         seed;
    uint64_t         sent_ns;     /* when the group's writing began */
    uint64_t         intended_ns; /* when it was meant to (0: not scheduled) */
    int              attempts;    /* fresh connections that failed the group */
    uint64_t         sess_conns;  /* connections opened for this session */
    int              server;      /* of the session: cf.addr[] */
    struct replay_s *rp;          /* the replay it belongs to */
} user_t;

#define MAX_SERVERS 64

typedef struct {
    const char      *host_header[MAX_SERVERS];
    struct addrinfo *addr[MAX_SERVERS];
    hclient_tls_t   *tls[MAX_SERVERS]; /* an https:// URL's (else NULL) */
    int              insecure;         /* --insecure: no verification */
    const char      *cacert;           /* --cacert FILE */
    int              nservers;         /* session k goes to server k mod n */
    int              conns;
    int              verify;
    int              http2;     /* --http2: h2c with prior knowledge */
    int              as_logged; /* ranges and conditionals, as logged */
    int              quiet;
    uint64_t         max_requests; /* 0: no limit */
    double           duration;     /* 0: no limit */
    double           timeout;
    size_t           max_depth;
    FILE            *log;
    double           rate;       /* --rate: requests per second (0: off) */
    int              poisson;    /* ... with exponential gaps */
    double           speed;      /* --speed: the log's clock times this */
    double           start_at;   /* --start-at: wall-clock epoch seconds */
    const char      *hdr;        /* --hdr: an HdrHistogram log */
    hclient_limit_t  max_errors; /* --max-errors: connect failures allowed */
} conf_t;

/* a replay: everything the run keeps (no state at file scope) */
typedef struct replay_s {
    conf_t       cf;
    feed_t      *feed;
    breakdown_t *bd; /* --by-url, --by-size (NULL: neither) */
    result_t     res;
    user_t      *users;
    int          ep;
    uint64_t     t_start;
    int          stop_issuing;
    int          gave_up; /* --max-errors was passed: the run stopped */
    /* users waiting for their group's time: a binary heap by intended_ns */
    user_t **waiting;
    size_t   nwaiting;
    double   slot_ns; /* --rate: the next request's time, after t_start */
    uint64_t rng;
    /* --hdr: one interval a second */
    FILE        *hdr_file;
    trace_hist_t hdr_interval;
    uint64_t     hdr_since;
    /* --csv: a row a request; --csv-seconds: a row a second, from the
     * same interval as --hdr's */
    FILE    *csv_file, *csv_sec_file;
    uint64_t iv_failed, iv_bytes;
} replay_t;

/* what the command line asks beside the run's conf_t (options.c) */
typedef struct {
    feed_opts_t fo;
    const char *trace;
    char      **urls;
    int         nurls;
    const char *json, *log, *csv, *csv_seconds, *host;
    unsigned    by_url;
    int         by_size;
    int         on_stdout; /* one output is "-": no summary */
    char        manifest[PATH_MAX];
} nicreplay_opts_t;

/* The command line into rp (zeroed first) and o: -1 to go on, else the
 * exit status after saying why (--help, --version, a bad option). */
int nicreplay_options(replay_t *rp, nicreplay_opts_t *o, int argc, char **argv);
/* "nicreplay merge ARGS" (merge.c): the exit status */
int nicreplay_merge_main(int argc, char **argv);

/* --hdr and --csv-seconds: the interval that ended at t */
int nicreplay_hdr_write(replay_t *rp, uint64_t t);
/* --csv: a request's row (status 0: none; error: why, or NULL) */
void nicreplay_csv_row(replay_t *rp, uint64_t session, const char *method,
                       const char *target, size_t tlen, int status,
                       uint64_t bytes, uint64_t us, uint64_t intended_us,
                       uint64_t sent_us, const cause_t *error);
/* 1 when requests are sent at their times (--rate, --speed) */
int nicreplay_scheduled(replay_t *rp);
/* count n responses of status */
void nicreplay_count_status(result_t *r, int status, uint64_t n);
/* why the run failed (into buf), or NULL when it did not */
const char *nicreplay_failure(replay_t *rp, const result_t *r,
                              const feed_stats_t *fs, char *buf, size_t len);
/* the summary for people: "FAILED: failure" first when it failed
 * (failure NULL: it did not) */
void nicreplay_print_summary(const result_t *r, const char *failure, FILE *out);
/* the --json result (fs NULL: merged runs, no replay); bd the
 * breakdown to write, or NULL */
int nicreplay_write_json(replay_t *rp, const result_t *r,
                         const feed_stats_t *fs, const breakdown_t *bd,
                         const char *failure, const char *path);
/* "nicreplay merge": add up runs' --json results, and their --hdr logs
 * into hdr (NULL: none) */
int nicreplay_merge(int argc, char **argv, const char *json, const char *hdr);
/* progress on stderr (final: the last line) */
void nicreplay_progress(replay_t *rp, uint64_t t, int final);
/* the replay: 0, or -1 after saying why */
int nicreplay_run(replay_t *rp);

#endif /* NICREPLAY_H */
