/*
 * The nic backend's parts (backend_nic.c: start, connections, the send
 * path and its placement and pacing; nic/report.c: the counters'
 * reports; nic/map.c: the map for an embedder that sends by itself;
 * nic/params.c: its parameters): the state they share.  Internal to
 * the backend: a caller includes snic.h, an embedder snic_nic.h.
 */

#ifndef SNIC_NIC_INTERNAL_H
#define SNIC_NIC_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "sendfile_nic/nic/bus.h"
#include "sendfile_nic/nic/device.h"
#include "sendfile_nic/nic/directory.h"
#include "sendfile_nic/nic/host.h"
#include "sendfile_nic/policy/policy.h"
#include "sendfile_nic/snic_backend.h"
#include "sendfile_nic/snic_nic.h"

enum {
    FB_HEADER = 0,
    FB_TOO_LARGE,
    FB_NOT_RESIDENT,
    FB_DEVICE,
    FB_PINNED,
    FB_NREASONS
};

typedef struct {
    uint64_t hits, misses, inserts, insert_bytes;
    uint64_t fallbacks[FB_NREASONS];
    uint64_t cached_bytes; /* content sent from NIC memory */
    uint64_t saved_bytes;  /* of which from blocks already cached */
    uint64_t mm_bytes;     /* content sent from host memory */
    uint64_t header_bytes;
    uint64_t conns;
    uint64_t inval_base, evict_base; /* directory counts at the last reset */
    snic_bus_acct_t  bus;
    snic_host_acct_t host;
    snic_mem_acct_t  mem;
} nic_counters_t;

typedef struct {
    pthread_mutex_t lock;
    snic_device_t  *dev;
    snic_dir_t     *dir;
    nic_counters_t  c;
} nic_t;

/* a modelled resource's clock: ns (CLOCK_MONOTONIC) it is busy until */
enum { PACE_BUS = 0, PACE_HOST, PACE_MEM, PACE_N };

#define PACE_QUEUE_NS 250000  /* how far a clock may run ahead */
#define PACE_SLACK_NS 1000000 /* how far it may lag (late timers) */

typedef struct {
    int                   count;
    nic_t                *nics;
    size_t                cache_size, block, mss, max_chunk;
    const snic_policy_t  *policy;
    const snic_bus_t     *bus;
    const snic_testbed_t *testbed;   /* NULL: none named */
    snic_host_t           host;      /* all zero: not modelled */
    snic_mem_t            mem;       /* all zero: not modelled */
    double                line_gbps; /* the testbed's line rate, or 0 */
    int                   bus_limit;
    pthread_mutex_t       pace_lock;
    uint64_t              clock[PACE_N];
    uint64_t              paced_ns[PACE_N]; /* waits each one imposed */
    uint64_t              since;            /* start or last reset */
    unsigned              next;             /* round-robin */
    int                   no_cachestat;
} nic_state_t;

/*
 * per connection: which NIC, the last block counted and whether it was a
 * hit, and the responses already charged to the host.  A send places (and
 * counts) the blocks of a run before it sends it, so when the socket
 * takes only part of a run, blocks already counted wait for the next
 * call: the window [win_from, win_to) remembers the blocks counted for
 * the send under way (and their hits, a bit each, by block modulo
 * WIN_BLOCKS), and resume where that send stopped, so a resumed send
 * counts none of them again.
 */
#define WIN_BLOCKS 128
#define RUN_BLOCKS                                                             \
    64 /* a run holds at most this many blocks, so the
                       * blocks placed and not yet sent fit the window */

typedef struct {
    int      nic;
    uint64_t dev, ino, rev, block;
    int      counted, hit;
    int      win_on; /* nic_send is counting through the window */
    uint64_t win_from, win_to, win_hits[WIN_BLOCKS / 64];
    off_t    resume;
    uint64_t responses;
    /* mapped for the response under way (snic_nic_map), charged to the
     * bus and the host when it ends (snic_nic_response_done) */
    uint64_t mm, cached, inserted, tbus;
} nic_conn_t;

/* A run of body bytes from one source, being built. */
typedef struct {
    int    nic;   /* from NIC memory (1) or host memory (0) */
    int    hit;   /* from blocks cached before this send (nic only) */
    off_t  where; /* NIC memory offset, or file offset */
    size_t len;
} run_t;

extern const snic_backend_t snic_backend_nic;

/*
 * The locks: thread mutexes, or, when the state lives in memory shared by
 * processes (snic_allocator_t.shared, the nginx module's workers),
 * process-shared robust ones: a process that dies holding one hands it
 * to the next locker, which marks it usable again (the counters it was
 * updating may be off by that one send).
 */
static inline void
snic_nic_lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;

    pthread_mutexattr_init(&a);
    if (snic_allocator_shared()) {
        pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    }
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

static inline void
snic_nic_lock(pthread_mutex_t *m)
{
    if (pthread_mutex_lock(m) == EOWNERDEAD) {
        pthread_mutex_consistent(m);
    }
}

/* the host's charge for what n sent (under n's lock): its time */
uint64_t snic_nic_host_charge(nic_state_t *s, nic_t *n, snic_conn_t *c,
                              nic_conn_t *nc, uint64_t packets, uint64_t bytes);

/* pacing: the wait the clocks t impose (the resource in *by), a wait set
 * on c, the bus clock with the 95 % ceiling */
uint64_t snic_nic_pace(nic_state_t *s, const uint64_t *t, int *by);
void snic_nic_pace_wait(nic_state_t *s, snic_conn_t *c, uint64_t wait, int by);
uint64_t snic_nic_bus_pace(const nic_state_t *s, uint64_t t);

/* the next run of f from pos (to end) on n: where its bytes are, counted
 * (under n's lock) */
void snic_nic_place(nic_state_t *s, nic_t *n, nic_conn_t *nc,
                    const snic_file_t *f, off_t pos, off_t end, int big,
                    run_t *r, uint32_t *slot, uint64_t *inserted,
                    uint64_t *tbus);

/* report.c: the backend's report and reset operations */
size_t snic_nic_report(void *state, int format, char *buf, size_t len);
void   snic_nic_reset(void *state);

#endif /* SNIC_NIC_INTERNAL_H */
