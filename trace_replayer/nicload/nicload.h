/*
 * nicload's parts (main.c tells the whole): main.c reads the command line,
 * fileset.c makes the file set, load.c runs the paced connections,
 * search.c looks for the most conforming connections, report.c prints
 * and writes the result.  A run's state is one load_t, at no file's scope.
 */

#ifndef NICLOAD_H
#define NICLOAD_H

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

#include "util/version.h"
#include "util/size.h"
#include "lib/cli.h"
#include "lib/models/content.h"
#include "lib/http/hclient.h"
#include "lib/http/hclient_tls.h"
#include "lib/heap.h"
#include "lib/formats/reader.h"
#include "lib/hist.h"
#include "lib/json.h"
#include "lib/models/specweb.h"
#include "util/clock.h"
#include "util/stop.h"

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
    const char      *url;          /* NULL: "nicload fileset" */
    const char      *fileset_root; /* --root */
    struct addrinfo *addr;
    char             host[300];
    hclient_tls_t   *tls;      /* an https:// URL's (else NULL) */
    int              insecure; /* --insecure */
    const char      *cacert;   /* --cacert FILE */
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
    causes_t     causes;                   /* the errors by step and reason */
    uint64_t     connections;              /* TCP connections tried */
    trace_hist_t latency[SPECWEB_CLASSES]; /* microseconds */
    uint32_t     conforming;
    double       rate_min, rate_median, rate_max; /* bits/s of connections */
    double       bits;  /* received in the measurement, as conformance counts */
    double      *rates; /* of each connection, sorted */
    double       elapsed;
    char         failure[512]; /* why the run failed ("": it did not) */
    int          gave_up;      /* past --max-errors: the run stopped */
} result_t;

enum { C_WAIT = 0, C_ACTIVE };

typedef struct {
    hclient_t      hc;
    int            state;
    specweb_req_t  req;
    int            kind;    /* K_* */
    int            last_ad; /* from the last ad rotation's cookie */
    uint64_t       size;    /* the file's */
    uint64_t       seed;    /* of its bytes */
    uint64_t       got;     /* bytes of the response so far */
    int            checking, bad;
    int            wrong;   /* a request in the measurement was not answered
                            200 with its bytes: the connection does not
                            conform, whatever its rate */
    uint64_t       sent_ns; /* the slot's start */
    uint64_t       next_ns; /* the next slot's */
    int            left;    /* requests left on this TCP connection */
    double         bits;    /* in the measurement */
    struct load_s *lp;      /* the run it belongs to */
} conn_t;

/* the connections waiting for their next slot, the earliest first */
#define CONN_LESS(a, b) ((*(a))->next_ns < (*(b))->next_ns)
TRACE_HEAP_DEFINE(timer_heap, conn_t *, CONN_LESS, TRACE_HEAP_UNINDEXED)

/* a load run: everything it keeps (no state at file scope) */
typedef struct load_s {
    conf_t       cf;
    result_t     res;
    conn_t      *conns;
    timer_heap_t timers;
    specweb_t   *mix;
    int          ep;
    uint64_t     win_a, win_b; /* the measurement */
    FILE        *log_file;
} load_t;

/* "nicload fileset": the file set for n connections under root: 0, or
 * 1 after saying why */
int nicload_fileset(uint32_t n, const char *root);
/* One measurement with lp->cf.conns connections: 0, or -1 after saying
 * why (results in lp->res) */
int nicload_run(load_t *lp);
/* part / whole, 0 for nothing */
double nicload_share(uint64_t part, uint64_t whole);
/* the summary for people */
void nicload_print_summary(load_t *lp, FILE *out);
/* the --json result */
void nicload_write_result(load_t *lp, FILE *f);
/* the file set answers for nconns connections: 0, or -1 after saying
 * why (nothing answering, a set too small) */
int nicload_probe_fileset(load_t *lp, uint32_t nconns);
/* --search: the most conforming connections between --min and --max,
 * each step written to json: 0 or 1 */
int nicload_search(load_t *lp, FILE *json);

/* The command line into lp (zeroed first): -1 to go on (cf.url NULL:
 * make the file set), else the exit status after saying why. */
int nicload_options(load_t *lp, int argc, char **argv);

#endif /* NICLOAD_H */
