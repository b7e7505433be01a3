/*
 * The "nic" backend: a network interface data cache (Kim, Rixner and Pai,
 * "Network Interface Data Caching", sections 3-5), emulated.
 *
 * The host side (the driver) keeps, per emulated NIC, a directory of the
 * file blocks its memory holds (nic/directory.c, with a replacement policy
 * from policy/); the device side (nic/device.c) is the NIC memory, a memfd
 * (or a file, nic_memory_path) from which cached bytes really reach the
 * client.  For each piece of a response the driver walks the body's
 * blocks and builds the paper's command sequence: a block that is cached
 * becomes pkt_append_cache, a block that is not is first copied in
 * (cache_insert) when it may be, and anything else goes by normal DMA
 * (pkt_append_mm, here sendfile from the file).  Adjacent blocks from
 * the same source are coalesced into one transmission, so a fully cached
 * 64 KiB body is one sendfile from NIC memory, not sixteen.
 *
 * Fallbacks to normal DMA, counted per reason: the bytes are not a file
 * block (HTTP headers), the file is larger than the cache, the block is
 * not in the host's page cache (the paper's inclusion property: only
 * blocks the host holds are copied to the NIC; checked with cachestat(2)
 * where the kernel has it, else mincore(2) on a mapping), or the device
 * failed to load the block.  A failure of the emulation never fails a
 * request: it falls back.
 *
 * Every transfer is accounted by the interconnect model (nic/bus.c) and,
 * with a testbed (nic_testbed), by the host model (nic/host.c); with
 * nic_bus_limit on, sends are paced so neither the modelled bus nor the
 * modelled host is busier than wall-clock time allows: a send that would
 * run ahead returns SNIC_AGAIN with snic_conn_t.wait_ns set, and the
 * server calls again after that long (a timer, never a busy wait).  Each
 * clock may lag the wall clock by a little (PACE_SLACK_NS), so the time a
 * timer wakes late is made up rather than lost, and may run ahead by a
 * little (PACE_QUEUE_NS), the work queued in the NIC.
 *
 * Content is counted by where it came from: "saved" bytes are sent from
 * blocks that were already cached (they did not cross the interconnect,
 * the paper's measure); bytes of blocks inserted for this response were
 * sent from NIC memory too, but crossed it once, as an insert.
 *
 * Threads: one lock per NIC guards its directory, device and counters
 * for the whole of a send call (lookups, inserts and the sends from NIC
 * memory, so a block cannot be replaced between its lookup and its
 * transmission); one lock guards the shared bus and host clocks.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for embedders (the nginx module) that do not */
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "sendfile_nic/nic/bus.h"
#include "sendfile_nic/nic/device.h"
#include "sendfile_nic/nic/directory.h"
#include "sendfile_nic/nic/host.h"
#include "sendfile_nic/policy/policy.h"
#include "sendfile_nic/snic_nic.h"
#include "sendfile_nic/snic_backend.h"
#include "util/size.h"
#include "util/clock.h"

enum {
    FB_HEADER = 0,
    FB_TOO_LARGE,
    FB_NOT_RESIDENT,
    FB_DEVICE,
    FB_PINNED,
    FB_NREASONS
};

/* pinned: every slot held a block still to be sent (the nginx module
 * only: nicd sends a block before it looks at the next) */
static const char *const fb_names[FB_NREASONS] = {
    "not_file_block", "file_too_large", "not_in_page_cache", "device_error",
    "all_slots_pinned"};

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

static const char *const pace_names[PACE_N] = {"bus", "host", "memory"};

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

static uint64_t pace(nic_state_t *s, const uint64_t *t, int *by);

/*
 * The locks: thread mutexes, or, when the state lives in memory shared by
 * processes (snic_allocator_t.shared, the nginx module's workers),
 * process-shared robust ones: a process that dies holding one hands it
 * to the next locker, which marks it usable again (the counters it was
 * updating may be off by that one send).
 */
static void
lock_init(pthread_mutex_t *m)
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

static void
lock(pthread_mutex_t *m)
{
    if (pthread_mutex_lock(m) == EOWNERDEAD) {
        pthread_mutex_consistent(m);
    }
}

/* a size directive into a size_t */
static int
parse_size(const char *v, size_t *out)
{
    uint64_t n;

    if (nicache_parse_size(v, &n) != 0) {
        return -1;
    }
    *out = (size_t) n;
    return 0;
}

static void
nic_fini(void *state)
{
    nic_state_t *s = state;
    int          i;

    if (s == NULL) {
        return;
    }
    for (i = 0; s->nics != NULL && i < s->count; i++) {
        snic_dir_destroy(s->nics[i].dir);
        snic_device_destroy(s->nics[i].dev);
        pthread_mutex_destroy(&s->nics[i].lock);
    }
    pthread_mutex_destroy(&s->pace_lock);
    snic_free(s->nics);
    snic_free(s);
}

static int
nic_init(const snic_options_t *opt, void **state, char *err, size_t errlen)
{
    nic_state_t *s = snic_calloc(1, sizeof(*s));
    int          i;
    size_t       count = 1;
    const char  *memory_path = NULL; /* NULL: a memfd */

    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    lock_init(&s->pace_lock);
    s->cache_size = 16 * 1024 * 1024;
    s->block = 4096;
    s->mss = 1448;
    s->policy = snic_policies[0];
    s->bus = &snic_bus_presets[0];
    s->max_chunk = opt->max_chunk;
    for (i = 0; i < opt->nparams; i++) {
        const char *n = opt->params[i].name, *v = opt->params[i].value;
        int         bad = 0;

        if (strcmp(n, "nic_cache_size") == 0) {
            bad = parse_size(v, &s->cache_size) != 0;
        } else if (strcmp(n, "nic_block_size") == 0) {
            bad = parse_size(v, &s->block) != 0 || s->block < 512
                  || (s->block & (s->block - 1)) != 0;
        } else if (strcmp(n, "nic_count") == 0) {
            bad = parse_size(v, &count) != 0 || count < 1 || count > 64;
        } else if (strcmp(n, "nic_mss") == 0) {
            bad = parse_size(v, &s->mss) != 0 || s->mss < 536 || s->mss > 65535;
        } else if (strcmp(n, "nic_policy") == 0) {
            s->policy = snic_policy_find(v);
            bad = s->policy == NULL;
        } else if (strcmp(n, "nic_bus") == 0) {
            s->bus = snic_bus_find(v);
            bad = s->bus == NULL;
        } else if (strcmp(n, "nic_testbed") == 0) {
            s->testbed = snic_testbed_find(v);
            bad = s->testbed == NULL;
            if (!bad) {
                s->bus = snic_bus_find(s->testbed->bus);
                s->host = s->testbed->host;
                s->mem = s->testbed->mem;
                s->line_gbps = s->testbed->line_gbps;
            }
        } else if (strcmp(n, "nic_memory_path") == 0) {
            memory_path = v;
        } else if (strcmp(n, "nic_memory_bandwidth") == 0) {
            size_t bw;

            /* after nic_testbed, it describes this server's memory */
            bad = parse_size(v, &bw) != 0 || bw == 0;
            s->mem.bw = (double) bw;
        } else if (strcmp(n, "nic_tls") == 0) {
            /* software: the CPU reads the plaintext and writes the
             * ciphertext (2 DRAM passes a byte); offload, off: none */
            bad = strcmp(v, "software") != 0 && strcmp(v, "offload") != 0
                  && strcmp(v, "off") != 0;
            s->mem.tls = strcmp(v, "software") == 0 ? 2.0 : 0.0;
        } else if (strcmp(n, "nic_storage_fill") == 0) {
            char *end;

            s->mem.fill = strtod(v, &end);
            bad = end == v || *end != '\0' || !(s->mem.fill >= 0)
                  || s->mem.fill > 1;
        } else if (strcmp(n, "nic_bus_limit") == 0) {
            s->bus_limit = strcmp(v, "on") == 0;
            bad = !s->bus_limit && strcmp(v, "off") != 0;
        } else {
            snprintf(err, errlen, "unknown parameter \"%s\"", n);
            nic_fini(s);
            return -1;
        }
        if (bad) {
            snprintf(err, errlen, "invalid value \"%s\" of \"%s\"%s", v, n,
                     strcmp(n, "nic_policy") == 0
                         ? " (lru, fifo, clock, sieve, s3fifo, arc, lfu)"
                     : strcmp(n, "nic_bus") == 0
                         ? " (pci64-33, pci64-66, pcie3-x8, pcie4-x16, "
                           "pcie5-x16)"
                     : strcmp(n, "nic_testbed") == 0
                         ? " (amd33, amd66, intel33, intel66, pcie3-server, "
                           "pcie4-server, pcie4-2x100g, pcie5-400g, "
                           "rome-400g-tls, rome-400g-nictls)"
                     : strcmp(n, "nic_tls") == 0 ? " (software, offload, off)"
                     : strcmp(n, "nic_storage_fill") == 0 ? " (a share, 0 to 1)"
                     : strcmp(n, "nic_block_size") == 0
                         ? " (a power of two, at least 512)"
                         : "");
            nic_fini(s);
            return -1;
        }
    }
    if (s->cache_size > 0 && s->cache_size < s->block) {
        snprintf(err, errlen, "nic_cache_size %zu is smaller than a block",
                 s->cache_size);
        nic_fini(s);
        return -1;
    }
    s->count = (int) count;
    s->nics = snic_calloc(count, sizeof(nic_t));
    if (s->nics == NULL) {
        snprintf(err, errlen, "out of memory");
        nic_fini(s);
        return -1;
    }
    for (i = 0; i < s->count; i++) {
        nic_t *n = &s->nics[i];

        lock_init(&n->lock);
        if (s->cache_size == 0) {
            continue; /* no cache: the baseline, every byte by DMA */
        }
        n->dev = snic_device_create(s->cache_size, s->block, memory_path, err,
                                    errlen);
        if (n->dev == NULL) {
            s->count = i + 1;
            nic_fini(s);
            return -1;
        }
        n->dir = snic_dir_create(snic_device_blocks(n->dev), s->policy);
        /* pins: nic_send's blocks placed and not yet sent, the module's
         * blocks handed to nginx and not yet passed to the kernel */
        if (n->dir == NULL || snic_dir_pins_init(n->dir) != 0) {
            snprintf(err, errlen, "out of memory");
            s->count = i + 1;
            nic_fini(s);
            return -1;
        }
    }
    s->since = nicache_now_ns();
    *state = s;
    return 0;
}

/*
 * Charge the host for what n sent (under n's lock): the responses c
 * completed since the last charge, packets and bytes DMAed from main
 * memory.  Returns the host time.
 */
static uint64_t
host_charge(nic_state_t *s, nic_t *n, snic_conn_t *c, nic_conn_t *nc,
            uint64_t packets, uint64_t dma)
{
    uint64_t done = c->responses - nc->responses;

    nc->responses = c->responses;
    return snic_host_charge(&s->host, &n->c.host, done, packets, dma);
}

static void
nic_conn_open(void *state, snic_conn_t *c)
{
    nic_state_t *s = state;
    nic_conn_t  *nc = calloc(1, sizeof(*nc));

    if (nc == NULL) {
        c->backend_data = NULL; /* sends go by normal DMA, uncounted */
        return;
    }
    nc->nic = c->nic >= 0
                  ? c->nic % s->count
                  : (int) (__atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED)
                           % (unsigned) s->count);
    c->backend_data = nc;
    lock(&s->nics[nc->nic].lock);
    s->nics[nc->nic].c.conns++;
    pthread_mutex_unlock(&s->nics[nc->nic].lock);
}

static void
nic_conn_close(void *state, snic_conn_t *c)
{
    nic_state_t *s = state;
    nic_conn_t  *nc = c->backend_data;

    if (nc != NULL) {
        /* the responses finished after the last send: charged, and on
         * the host's clock, so the next sends wait for them */
        uint64_t t[PACE_N] = {0, 0, 0};
        int      by;

        lock(&s->nics[nc->nic].lock);
        t[PACE_HOST] = host_charge(s, &s->nics[nc->nic], c, nc, 0, 0);
        pthread_mutex_unlock(&s->nics[nc->nic].lock);
        pace(s, t, &by);
    }
    free(nc);
    c->backend_data = NULL;
}

/* Is [off, off + len) of fd all in the page cache? */
static int
resident(nic_state_t *s, int fd, off_t off, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);

#if defined(HAVE_CACHESTAT)
    if (!s->no_cachestat) {
        struct {
            uint64_t off, len;
        } range = {(uint64_t) off, (uint64_t) len};
        struct {
            uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
                nr_recently_evicted;
        } cs;
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
        if (syscall(__NR_cachestat, fd, &range, &cs, 0) == 0) {
            return cs.nr_cache * (uint64_t) page
                   >= (uint64_t) len + (uint64_t) (off % page);
        }
        if (errno == ENOSYS) {
            s->no_cachestat = 1; /* an older kernel: mincore from now on */
        } else if (errno != EPERM) {
            return 0;
        }
        /* EPERM: newer kernels answer only for files the caller may
         * write (nginx's workers, nicd not run as root): ask mincore */
    }
#endif
    {
        off_t         start = off - off % page;
        size_t        span = (size_t) (off + (off_t) len - start), i, n;
        unsigned char vec[64];
        void         *p;
        int           all = 1;

        n = (span + (size_t) page - 1) / (size_t) page;
        if (n > sizeof(vec)) {
            return 0;
        }
        p = mmap(NULL, span, PROT_READ, MAP_SHARED, fd, start);
        if (p == MAP_FAILED) {
            return 0;
        }
        if (mincore(p, span, vec) != 0) {
            all = 0;
        }
        for (i = 0; all && i < n; i++) {
            all = vec[i] & 1;
        }
        munmap(p, span);
        return all;
    }
}

/* A run of body bytes from one source, being built. */
typedef struct {
    int    nic;   /* from NIC memory (1) or host memory (0) */
    int    hit;   /* from blocks cached before this send (nic only) */
    off_t  where; /* NIC memory offset, or file offset */
    size_t len;
} run_t;

/* Send a run; returns the bytes sent, -1 on error (errno). */
static ssize_t
send_run(nic_t *n, snic_conn_t *c, const snic_send_t *req, const run_t *r)
{
    size_t  done = 0;
    ssize_t k;
    off_t   off = r->where;

    while (done < r->len) {
        if (r->nic && c->write == NULL) {
            k = snic_device_send(n->dev, c->fd, r->where + (off_t) done,
                                 r->len - done);
        } else if (r->nic) {
            /* through the transport: copied from NIC memory (a NIC with
             * TLS offload encrypts on the card; nothing more crosses) */
            const char *mem = snic_device_memory(n->dev);
            off_t       nc_off = r->where + (off_t) done;

            if (mem != NULL) {
                struct iovec iov;

                iov.iov_base = (char *) mem + nc_off;
                iov.iov_len = r->len - done;
                k = c->write(c, &iov, 1);
            } else {
                k = snic_sendfile(c, snic_device_fd(n->dev), &nc_off,
                                  r->len - done);
            }
        } else {
            k = snic_send_file(c, req->file, &off, r->len - done);
        }
        if (k < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN && done > 0) {
                break;
            }
            return done > 0 ? (ssize_t) done : -1;
        }
        if (k == 0) {
            if (done > 0) {
                break;
            }
            errno = EIO; /* the file is shorter than we were told */
            return -1;
        }
        done += (size_t) k;
    }
    return (ssize_t) done;
}

/* Unpin the slots in pinned[], all or all but the last (keep_last). */
static void
unpin(nic_t *n, uint32_t *pinned, int *npinned, int keep_last)
{
    int i, k = *npinned - (keep_last && *npinned > 0);

    for (i = 0; i < k; i++) {
        snic_dir_unpin(n->dir, pinned[i]);
    }
    if (k < *npinned) {
        pinned[0] = pinned[k];
    }
    *npinned -= k;
}

/*
 * Runs from NIC memory gathered for one socket and not sent yet (the
 * splice path of nic/device.c): a response whose blocks lie in several
 * places of NIC memory leaves in one splice(2), not one call a run.  At
 * most RUN_BLOCKS blocks, so that the blocks placed and not yet sent
 * still fit the window.
 */
typedef struct {
    size_t len;
    int    n, blocks;
    struct {
        size_t len;
        int    hit;
    } part[RUN_BLOCKS];
} batch_t;

/* Blocks of NIC memory a run touches (slots start at block boundaries). */
static int
run_blocks(const nic_state_t *s, const run_t *r)
{
    size_t from = (size_t) (r->where % (off_t) s->block);

    return (int) ((from + r->len + s->block - 1) / s->block);
}

/*
 * Gather what of run r fits into batch b; returns the bytes taken (0: b
 * is full, flush it first), or -1 when there is no splice path.  A run
 * alone may be a block longer than RUN_BLOCKS (a run that does not start
 * at a block boundary), as when runs were sent one by one.
 */
static ssize_t
batch_add(nic_state_t *s, nic_t *n, batch_t *b, const run_t *r)
{
    ssize_t k;

    if (b->n > 0
        && (b->n == RUN_BLOCKS || b->blocks + run_blocks(s, r) > RUN_BLOCKS)) {
        return 0;
    }
    k = snic_device_gather(n->dev, r->where, r->len, r->hit);
    if (k > 0) {
        b->part[b->n].len = (size_t) k;
        b->part[b->n].hit = r->hit;
        b->n++;
        b->len += (size_t) k;
        b->blocks += run_blocks(s, r);
    }
    return k;
}

/*
 * Send batch b and count its bytes in order; SNIC_OK when all went, else
 * SNIC_AGAIN or SNIC_ERROR (errno).
 */
static int
batch_flush(nic_t *n, snic_conn_t *c, batch_t *b, size_t *body, size_t *cached,
            size_t *saved)
{
    ssize_t k = snic_device_flush(n->dev, c->fd);
    size_t  left, take;
    int     i, rc;

    if (k < 0) {
        rc = errno == EAGAIN ? SNIC_AGAIN : SNIC_ERROR;
    } else {
        left = (size_t) k;
        for (i = 0; i < b->n && left > 0; i++) {
            take = b->part[i].len < left ? b->part[i].len : left;
            *cached += take;
            *saved += b->part[i].hit ? take : 0;
            left -= take;
        }
        *body += (size_t) k;
        rc = (size_t) k < b->len ? SNIC_AGAIN : SNIC_OK;
    }
    b->len = 0;
    b->n = b->blocks = 0;
    return rc;
}

/*
 * Reserve t[r] ns of each modelled resource (the bus time already scaled
 * by the bus's max_util).  With the limit on, no clock may run more than
 * PACE_QUEUE_NS ahead of the wall clock: returns how long the caller must
 * wait before sending more (0: go on) and, in *by, the resource furthest
 * ahead.  With t NULL, only asks.  pace_at() is the arithmetic at a given
 * time, under pace_lock.
 */
static uint64_t
pace_at(nic_state_t *s, const uint64_t *t, uint64_t now, int *by)
{
    uint64_t wait = 0, w;
    int      r;

    for (r = 0; r < PACE_N; r++) {
        if (t != NULL) {
            /* time lost to a late wake-up is made up, up to the slack */
            if (s->clock[r] + PACE_SLACK_NS < now) {
                s->clock[r] = now - PACE_SLACK_NS;
            }
            s->clock[r] += t[r];
        }
        w = s->clock[r] > now + PACE_QUEUE_NS
                ? s->clock[r] - now - PACE_QUEUE_NS
                : 0;
        if (w > wait) {
            wait = w;
            *by = r;
        }
    }
    return wait;
}

static uint64_t
pace(nic_state_t *s, const uint64_t *t, int *by)
{
    uint64_t wait;

    if (!s->bus_limit) {
        return 0;
    }
    lock(&s->pace_lock);
    wait = pace_at(s, t, nicache_now_ns(), by);
    pthread_mutex_unlock(&s->pace_lock);
    return wait;
}

/* c waits for the resource by: say so, and count it */
static void
pace_wait(nic_state_t *s, snic_conn_t *c, uint64_t wait, int by)
{
    c->wait_ns = wait;
    __atomic_fetch_add(&s->paced_ns[by], wait, __ATOMIC_RELAXED);
}

/* bus time as pacing counts it: no more than max_util of the wall clock */
static uint64_t
bus_pace_ns(const nic_state_t *s, uint64_t t)
{
    return (uint64_t) ((double) t / s->bus->max_util + 0.5);
}

/* A send of f's bytes from pos begins: it resumes the one before (same
 * file, where that one stopped) and keeps its window, or it is a new
 * one and nothing of it is counted yet. */
static void
win_begin(nic_conn_t *nc, const snic_file_t *f, off_t pos)
{
    if (!(nc->counted && nc->dev == (uint64_t) f->id_dev
          && nc->ino == (uint64_t) f->id_ino && nc->rev == f->revision
          && pos == nc->resume)) {
        nc->win_from = nc->win_to = 0;
        nc->dev = (uint64_t) f->id_dev;
        nc->ino = (uint64_t) f->id_ino;
        nc->rev = f->revision;
        nc->counted = 1;
    }
    nc->win_on = 1;
}

/*
 * Where the bytes of the block holding pos (up to end) come from, as the
 * paper's driver decides (under n's lock): a cached block is a hit; one
 * that is not is inserted when the host holds it and a slot can be had,
 * else it goes by normal DMA, its reason counted.  Fills next (its source
 * and length); *slot gets the NIC slot or SNIC_SLOT_NONE (may be NULL);
 * bytes inserted and their bus time are added to *inserted and *tbus.
 * A block is counted once, not again when a send resumes inside it.
 */
static void
place(nic_state_t *s, nic_t *n, nic_conn_t *nc, const snic_file_t *f, off_t pos,
      off_t end, int big, run_t *next, uint32_t *slot_out, uint64_t *inserted,
      uint64_t *tbus)
{
    uint64_t        b = (uint64_t) pos / s->block;
    off_t           bstart = (off_t) (b * s->block);
    off_t           bend = bstart + (off_t) s->block;
    size_t          blen;
    int             first, ev;
    uint32_t        slot = SNIC_SLOT_NONE;
    snic_block_id_t id = {(uint64_t) f->id_dev, (uint64_t) f->id_ino, b};

    if (bend > end) {
        bend = end;
    }
    blen = (uint64_t) f->size - (uint64_t) bstart < s->block
               ? (size_t) ((uint64_t) f->size - (uint64_t) bstart)
               : s->block;
    if (nc->win_on) {
        /* nic_send: the window says (the file is the window's, see
         * win_begin) */
        first = !(b >= nc->win_from && b < nc->win_to);
        if (first) {
            if (b != nc->win_to) {
                nc->win_from = b; /* a new stretch */
            }
            nc->win_to = b + 1;
            if (nc->win_to - nc->win_from > WIN_BLOCKS) {
                nc->win_from = nc->win_to - WIN_BLOCKS; /* slides */
            }
            nc->win_hits[b / 64 % (WIN_BLOCKS / 64)] &= ~(1ull << (b % 64));
        }
        nc->hit = (nc->win_hits[b / 64 % (WIN_BLOCKS / 64)] >> (b % 64)) & 1;
    } else {
        first = pos == bstart
                || !(nc->counted && nc->dev == (uint64_t) f->id_dev
                     && nc->ino == (uint64_t) f->id_ino
                     && nc->rev == f->revision && nc->block == b);
    }
    if (first) {
        nc->counted = 1;
        nc->hit = 0;
        nc->dev = (uint64_t) f->id_dev;
        nc->ino = (uint64_t) f->id_ino;
        nc->rev = f->revision;
        nc->block = b;
    }
    next->nic = 0;
    next->hit = 0;
    next->len = (size_t) (bend - pos);
    next->where = pos;
    if (slot_out != NULL) {
        *slot_out = SNIC_SLOT_NONE;
    }
    if (big) {
        if (first && s->cache_size != 0) {
            n->c.fallbacks[FB_TOO_LARGE]++;
        }
        return;
    }
    slot = snic_dir_lookup(n->dir, &id, f->revision);
    if (slot == SNIC_SLOT_NONE) {
        if (first) {
            n->c.misses++;
        }
        if (!resident(s, f->fd, bstart, blen)) {
            if (first) {
                n->c.fallbacks[FB_NOT_RESIDENT]++;
            }
            return;
        }
        slot = snic_dir_insert(n->dir, &id, f->revision, &ev);
        if (slot == SNIC_SLOT_NONE) {
            n->c.fallbacks[FB_PINNED]++; /* every slot is being sent */
            return;
        }
        if (snic_device_insert(n->dev, slot, f->fd, bstart, blen) != 0) {
            snic_dir_remove(n->dir, slot);
            n->c.fallbacks[FB_DEVICE]++;
            return;
        }
        n->c.inserts++;
        n->c.insert_bytes += blen;
        *inserted += blen;
        *tbus += snic_bus_insert(s->bus, &n->c.bus, blen);
    } else if (first) {
        n->c.hits++;
        nc->hit = 1;
        if (nc->win_on) {
            nc->win_hits[b / 64 % (WIN_BLOCKS / 64)] |= 1ull << (b % 64);
        }
    }
    next->nic = 1;
    next->hit = nc->hit;
    next->where = snic_device_offset(n->dev, slot) + (pos - bstart);
    if (slot_out != NULL) {
        *slot_out = slot;
    }
}

static int
nic_send(void *state, snic_conn_t *c, const snic_send_t *req, size_t *sent)
{
    nic_state_t *s = state;
    nic_conn_t  *nc = c->backend_data;
    nic_t       *n;
    snic_file_t *f = req->file;
    size_t       hdr = 0, body = 0, limit, mm = 0, cached = 0, saved = 0;
    off_t        pos, end;
    run_t        run = {0, 0, 0, 0};
    batch_t      batch;
    uint32_t     slot, pinned[RUN_BLOCKS + 4];
    int          npinned = 0;
    int          has_body = f != NULL && req->len > 0, rc = SNIC_OK;
    int          big, by = 0, gather = c->write == NULL;
    uint64_t     t[PACE_N] = {0, 0, 0}, wait, packets, inserted = 0;

    *sent = 0;
    c->wait_ns = 0;
    if (nc == NULL) {
        errno = ENOMEM;
        return SNIC_ERROR;
    }
    wait = pace(s, NULL, &by);
    if (wait > 0) {
        pace_wait(s, c, wait, by);
        return SNIC_AGAIN;
    }
    n = &s->nics[nc->nic];
    lock(&n->lock);

    rc = snic_send_headers(c, req, &hdr, has_body || req->more);
    if (hdr > 0) {
        n->c.fallbacks[FB_HEADER]++;
        n->c.header_bytes += hdr;
    }
    if (rc != SNIC_OK || !has_body) {
        goto done;
    }

    big = !f->cacheable || (uint64_t) f->size > s->cache_size;
    pos = req->offset;
    win_begin(nc, f, pos);
    limit =
        s->max_chunk != 0 && s->max_chunk < req->len ? s->max_chunk : req->len;
    end = req->offset + (off_t) limit;
    batch.len = 0;
    batch.n = batch.blocks = 0;

    while (pos < end || run.len > 0) {
        run_t next = {0, 0, 0, 0};

        if (pos < end) {
            place(s, n, nc, f, pos, end, big, &next, &slot, &inserted,
                  &t[PACE_BUS]);
            if (slot != SNIC_SLOT_NONE) {
                /* not to be replaced by a later block of this send before
                 * its own bytes are gathered or sent */
                snic_dir_pin(n->dir, slot);
                pinned[npinned++] = slot;
            }
            /* coalesce with the run being built (nic and hit compared
             * as one value: GCC otherwise loads the two ints just stored
             * one by one as one 8-byte word, a store-forwarding stall
             * that was a third of nic_send's own time at 256 KiB) */
            if (run.len > 0
                && (run.nic << 1 | run.hit) == (next.nic << 1 | next.hit)
                && run.where + (off_t) run.len == next.where
                && run.len < RUN_BLOCKS * s->block) {
                run.len += next.len;
                pos += (off_t) next.len;
                continue;
            }
        }
        while (gather && run.nic && run.len > 0) {
            ssize_t g = batch_add(s, n, &batch, &run);

            if (g < 0) {
                gather = 0; /* no splice path: run by run */
            } else if (g == 0) {
                rc = batch_flush(n, c, &batch, &body, &cached, &saved);
                if (rc != SNIC_OK) {
                    goto done;
                }
            } else {
                run.where += g;
                run.len -= (size_t) g;
            }
        }
        if (run.len > 0 && batch.n > 0) {
            rc = batch_flush(n, c, &batch, &body, &cached, &saved);
            if (rc != SNIC_OK) {
                goto done;
            }
        }
        if (run.len > 0) {
            ssize_t k = send_run(n, c, req, &run);

            if (k < 0) {
                rc = errno == EAGAIN ? SNIC_AGAIN : SNIC_ERROR;
                goto done;
            }
            body += (size_t) k;
            if (run.nic) {
                cached += (size_t) k;
                saved += run.hit ? (size_t) k : 0;
            } else {
                mm += (size_t) k;
            }
            if ((size_t) k < run.len) {
                rc = SNIC_AGAIN;
                goto done;
            }
        }
        /* run is gathered or sent: its blocks may go; next's stays */
        unpin(n, pinned, &npinned, next.len > 0 && next.nic);
        run = next;
        pos += (off_t) next.len;
    }
    if (batch.n > 0) {
        rc = batch_flush(n, c, &batch, &body, &cached, &saved);
        if (rc != SNIC_OK) {
            goto done;
        }
    }
    if (body < req->len) {
        rc = SNIC_AGAIN; /* max_chunk reached */
    }

done:
    unpin(n, pinned, &npinned, 0);
    if (nc->win_on) {
        nc->win_on = 0;
        nc->resume = req->offset + (off_t) body;
    }
    n->c.cached_bytes += cached;
    n->c.saved_bytes += saved;
    n->c.mm_bytes += mm;
    packets = n->c.bus.packets;
    t[PACE_BUS] += snic_bus_send(s->bus, &n->c.bus, s->mss, hdr, mm, cached, 0);
    packets = n->c.bus.packets - packets;
    t[PACE_HOST] = host_charge(s, n, c, nc, packets, hdr + mm + inserted);
    t[PACE_MEM] = snic_mem_charge(&s->mem, &n->c.mem, mm, inserted, hdr);
    pthread_mutex_unlock(&n->lock);
    t[PACE_BUS] = bus_pace_ns(s, t[PACE_BUS]);
    wait = pace(s, t, &by);
    *sent = hdr + body;
    if (rc == SNIC_AGAIN && wait > 0) {
        pace_wait(s, c, wait, by); /* ran ahead: call again later */
    }
    return rc;
}

/* A snapshot of one NIC's counters (under its lock). */
static void
snapshot(nic_t *n, nic_counters_t *out, uint64_t *inval, uint64_t *evict,
         uint32_t *used)
{
    const snic_dir_stats_t *ds;

    lock(&n->lock);
    *out = n->c;
    *inval = *evict = 0;
    *used = 0;
    if (n->dir != NULL) {
        ds = snic_dir_stats(n->dir);
        *inval = ds->invalidations - n->c.inval_base;
        *evict = ds->evictions - n->c.evict_base;
        *used = snic_dir_used(n->dir);
    }
    pthread_mutex_unlock(&n->lock);
}

typedef struct {
    char  *buf;
    size_t len, need;
} out_t;

static void outf(out_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
outf(out_t *o, const char *fmt, ...)
{
    va_list ap;
    int     k;

    va_start(ap, fmt);
    k = vsnprintf(o->need < o->len ? o->buf + o->need : NULL,
                  o->need < o->len ? o->len - o->need : 0, fmt, ap);
    va_end(ap);
    if (k > 0) {
        o->need += (size_t) k;
    }
}

/* one NIC (id >= 0) or the total (id -1) */
static void
report_one(out_t *o, int format, int id, const nic_counters_t *c,
           uint64_t inval, uint64_t evict, uint32_t used, double elapsed_s)
{
    char     lbl[32];
    int      k;
    double   util = 0, hutil = 0, mutil = 0, share = 0;
    uint64_t total = 0, content = c->cached_bytes + c->mm_bytes;
    uint64_t crossed = c->insert_bytes + c->mm_bytes;

    if (elapsed_s > 0) {
        util = (double) c->bus.busy_ns / 1e9 / elapsed_s;
        hutil = (double) c->host.busy_ns / 1e9 / elapsed_s;
        mutil = (double) c->mem.busy_ns / 1e9 / elapsed_s;
    }
    if (content > 0) {
        share = (double) c->saved_bytes / (double) content;
    }
    for (k = 0; k < SNIC_BUS_NCAT; k++) {
        total += c->bus.bytes[k];
    }
    if (format == SNIC_REPORT_JSON) {
        if (id >= 0) {
            outf(o, "{\"nic\": %d, ", id);
        } else {
            outf(o, "\"total\": {");
        }
        outf(o,
             "\"connections\": %llu, \"responses\": %llu, \"hits\": %llu, "
             "\"misses\": %llu, \"inserts\": %llu, \"insert_bytes\": %llu, "
             "\"invalidations\": %llu, \"evictions\": %llu, "
             "\"blocks_used\": %u, \"content_bytes\": %llu, "
             "\"saved_bytes\": %llu, \"crossed_bytes\": %llu, "
             "\"saved_share\": %.6f, \"cached_bytes\": %llu, "
             "\"host_bytes\": %llu, \"header_bytes\": %llu, "
             "\"fallbacks\": {",
             (unsigned long long) c->conns,
             (unsigned long long) c->host.responses,
             (unsigned long long) c->hits, (unsigned long long) c->misses,
             (unsigned long long) c->inserts,
             (unsigned long long) c->insert_bytes, (unsigned long long) inval,
             (unsigned long long) evict, used, (unsigned long long) content,
             (unsigned long long) c->saved_bytes, (unsigned long long) crossed,
             share, (unsigned long long) c->cached_bytes,
             (unsigned long long) c->mm_bytes,
             (unsigned long long) c->header_bytes);
        for (k = 0; k < FB_NREASONS; k++) {
            outf(o, "%s\"%s\": %llu", k ? ", " : "", fb_names[k],
                 (unsigned long long) c->fallbacks[k]);
        }
        outf(o, "}, \"bus_bytes\": {");
        for (k = 0; k < SNIC_BUS_NCAT; k++) {
            outf(o, "%s\"%s\": %llu", k ? ", " : "", snic_bus_category[k],
                 (unsigned long long) c->bus.bytes[k]);
        }
        outf(o,
             "}, \"bus_total_bytes\": %llu, \"packets\": %llu, "
             "\"bus_busy_ns\": %llu, \"bus_utilisation\": %.6f, "
             "\"host_busy_ns\": %llu, \"host_utilisation\": %.6f, "
             "\"dram_bytes\": %llu, \"mem_busy_ns\": %llu, "
             "\"mem_utilisation\": %.6f}",
             (unsigned long long) total, (unsigned long long) c->bus.packets,
             (unsigned long long) c->bus.busy_ns, util,
             (unsigned long long) c->host.busy_ns, hutil,
             (unsigned long long) c->mem.dram_bytes,
             (unsigned long long) c->mem.busy_ns, mutil);
        return;
    }
    if (id >= 0) {
        snprintf(lbl, sizeof(lbl), "nic=\"%d\"", id);
    } else {
        snprintf(lbl, sizeof(lbl), "nic=\"total\"");
    }
#define P(name, v)                                                             \
    outf(o, "nicd_nic_" name "{%s} %llu\n", lbl, (unsigned long long) (v))
    P("connections_total", c->conns);
    P("responses_total", c->host.responses);
    P("hits_total", c->hits);
    P("misses_total", c->misses);
    P("inserts_total", c->inserts);
    P("insert_bytes_total", c->insert_bytes);
    P("invalidations_total", inval);
    P("evictions_total", evict);
    P("blocks_used", used);
    P("content_bytes_total", content);
    P("saved_bytes_total", c->saved_bytes);
    P("crossed_bytes_total", crossed);
    P("cached_bytes_total", c->cached_bytes);
    P("host_bytes_total", c->mm_bytes);
    P("header_bytes_total", c->header_bytes);
    P("packets_total", c->bus.packets);
    P("bus_busy_ns_total", c->bus.busy_ns);
    P("host_busy_ns_total", c->host.busy_ns);
    P("dram_bytes_total", c->mem.dram_bytes);
    P("mem_busy_ns_total", c->mem.busy_ns);
#undef P
    for (k = 0; k < FB_NREASONS; k++) {
        outf(o, "nicd_nic_fallbacks_total{%s,reason=\"%s\"} %llu\n", lbl,
             fb_names[k], (unsigned long long) c->fallbacks[k]);
    }
    for (k = 0; k < SNIC_BUS_NCAT; k++) {
        outf(o, "nicd_nic_bus_bytes_total{%s,category=\"%s\"} %llu\n", lbl,
             snic_bus_category[k], (unsigned long long) c->bus.bytes[k]);
    }
    outf(o, "nicd_nic_saved_share{%s} %.6f\n", lbl, share);
    outf(o, "nicd_nic_bus_utilisation{%s} %.6f\n", lbl, util);
    outf(o, "nicd_nic_host_utilisation{%s} %.6f\n", lbl, hutil);
    outf(o, "nicd_nic_mem_utilisation{%s} %.6f\n", lbl, mutil);
}

/*
 * What limited a paced run: the modelled resource whose clock made sends
 * wait longest, or "none" (the machine, or the load, set the pace).
 */
static const char *
limited_by(const uint64_t *paced)
{
    int r, most = -1;

    for (r = 0; r < PACE_N; r++) {
        if (paced[r] > 0 && (most < 0 || paced[r] > paced[most])) {
            most = r;
        }
    }
    return most < 0 ? "none" : pace_names[most];
}

static size_t
nic_report(void *state, int format, char *buf, size_t len)
{
    nic_state_t   *s = state;
    out_t          o = {buf, len, 0};
    nic_counters_t c, sum;
    uint64_t       inval, evict, tinval = 0, tevict = 0, paced[PACE_N];
    uint32_t       used, tused = 0;
    double         el, bus_util, host_util, mem_util;
    int            i, k, bus_over, host_over, mem_over;

    lock(&s->pace_lock);
    el = (double) (nicache_now_ns() - s->since) / 1e9;
    pthread_mutex_unlock(&s->pace_lock);
    for (k = 0; k < PACE_N; k++) {
        paced[k] = __atomic_load_n(&s->paced_ns[k], __ATOMIC_RELAXED);
    }
    memset(&sum, 0, sizeof(sum));
    if (format == SNIC_REPORT_JSON) {
        outf(&o,
             "{\"backend\": \"nic\", \"nic_count\": %d, "
             "\"cache_bytes\": %zu, \"block_bytes\": %zu, \"policy\": "
             "\"%s\", \"testbed\": \"%s\", \"bus\": \"%s\", "
             "\"bus_max_utilisation\": %.3f, \"host\": {\"req_ns\": %.1f, "
             "\"pkt_ns\": %.1f, \"mem_ns\": %.4f}, \"memory\": "
             "{\"bw_bytes_per_s\": %.0f, \"fill_passes\": %.3f, "
             "\"tls_passes\": %.3f}, \"line_gbps\": %.1f, "
             "\"bus_bytes_per_s\": %.0f, \"bus_limit\": %s, "
             "\"mss\": %zu, \"seconds\": %.3f, \"paced_ns\": {\"bus\": %llu, "
             "\"host\": %llu, \"memory\": %llu}, \"limited_by\": \"%s\", "
             "\"nics\": [",
             s->count, s->cache_size, s->block, s->policy->name,
             s->testbed != NULL ? s->testbed->name : "", s->bus->name,
             s->bus->max_util, s->host.req_ns, s->host.pkt_ns, s->host.mem_ns,
             s->mem.bw, s->mem.fill, s->mem.tls, s->line_gbps,
             (double) s->bus->width * s->bus->clock_mhz * 1e6,
             s->bus_limit ? "true" : "false", s->mss, el,
             (unsigned long long) paced[PACE_BUS],
             (unsigned long long) paced[PACE_HOST],
             (unsigned long long) paced[PACE_MEM], limited_by(paced));
    } else {
        outf(&o,
             "# HELP nicd_nic_hits_total Blocks sent from NIC memory.\n"
             "# TYPE nicd_nic_hits_total counter\n"
             "# HELP nicd_nic_saved_bytes_total Content sent from blocks "
             "already cached: it did not cross the interconnect.\n"
             "# TYPE nicd_nic_saved_bytes_total counter\n"
             "# HELP nicd_nic_bus_bytes_total Modelled interconnect traffic "
             "by category (overhead: bus time as bytes).\n"
             "# TYPE nicd_nic_bus_bytes_total counter\n"
             "# HELP nicd_nic_bus_utilisation Modelled bus busy time over "
             "wall-clock time since the start or reset.\n"
             "# TYPE nicd_nic_bus_utilisation gauge\n"
             "# HELP nicd_nic_host_utilisation Modelled host busy time over "
             "wall-clock time since the start or reset.\n"
             "# TYPE nicd_nic_host_utilisation gauge\n");
    }
    for (i = 0; i < s->count; i++) {
        snapshot(&s->nics[i], &c, &inval, &evict, &used);
        if (format == SNIC_REPORT_JSON && i > 0) {
            outf(&o, ", ");
        }
        report_one(&o, format, i, &c, inval, evict, used, el);
        sum.conns += c.conns;
        sum.hits += c.hits;
        sum.misses += c.misses;
        sum.inserts += c.inserts;
        sum.insert_bytes += c.insert_bytes;
        sum.cached_bytes += c.cached_bytes;
        sum.saved_bytes += c.saved_bytes;
        sum.mm_bytes += c.mm_bytes;
        sum.header_bytes += c.header_bytes;
        for (k = 0; k < FB_NREASONS; k++) {
            sum.fallbacks[k] += c.fallbacks[k];
        }
        snic_bus_acct_add(&sum.bus, &c.bus);
        sum.host.responses += c.host.responses;
        sum.host.busy_ns += c.host.busy_ns;
        sum.mem.dram_bytes += c.mem.dram_bytes;
        sum.mem.busy_ns += c.mem.busy_ns;
        tinval += inval;
        tevict += evict;
        tused += used;
    }
    if (format == SNIC_REPORT_JSON) {
        outf(&o, "], ");
    }
    report_one(&o, format, -1, &sum, tinval, tevict, tused, el);
    bus_util = el > 0 ? (double) sum.bus.busy_ns / 1e9 / el : 0;
    host_util = el > 0 ? (double) sum.host.busy_ns / 1e9 / el : 0;
    mem_util = el > 0 ? (double) sum.mem.busy_ns / 1e9 / el : 0;
    /* without pacing, say when the model would have stopped the run
     * (with it, the clocks' allowances leave a percent or two of play) */
    bus_over = !s->bus_limit && bus_util > s->bus->max_util;
    host_over = !s->bus_limit && snic_host_modelled(&s->host) && host_util > 1;
    mem_over = !s->bus_limit && s->mem.bw > 0 && mem_util > 1;
    if (format == SNIC_REPORT_JSON) {
        outf(&o,
             ", \"bus_over_limit\": %s, \"host_over_limit\": %s, "
             "\"mem_over_limit\": %s}\n",
             bus_over ? "true" : "false", host_over ? "true" : "false",
             mem_over ? "true" : "false");
    } else {
        outf(&o,
             "nicd_nic_paced_ns_total{resource=\"bus\"} %llu\n"
             "nicd_nic_paced_ns_total{resource=\"host\"} %llu\n"
             "nicd_nic_paced_ns_total{resource=\"memory\"} %llu\n"
             "nicd_nic_bus_over_limit %d\nnicd_nic_host_over_limit %d\n"
             "nicd_nic_mem_over_limit %d\n",
             (unsigned long long) paced[PACE_BUS],
             (unsigned long long) paced[PACE_HOST],
             (unsigned long long) paced[PACE_MEM], bus_over, host_over,
             mem_over);
    }
    return o.need;
}

static void
nic_reset(void *state)
{
    nic_state_t *s = state;
    int          i;

    for (i = 0; i < s->count; i++) {
        nic_t                  *n = &s->nics[i];
        const snic_dir_stats_t *ds;

        lock(&n->lock);
        memset(&n->c, 0, sizeof(n->c));
        if (n->dir != NULL) {
            ds = snic_dir_stats(n->dir);
            n->c.inval_base = ds->invalidations;
            n->c.evict_base = ds->evictions;
        }
        pthread_mutex_unlock(&n->lock);
    }
    lock(&s->pace_lock);
    s->since = nicache_now_ns();
    for (i = 0; i < PACE_N; i++) {
        __atomic_store_n(&s->paced_ns[i], 0, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&s->pace_lock);
}

static int
nic_paces(void *state)
{
    return ((nic_state_t *) state)->bus_limit;
}

/* ---- for a server that sends by itself (the nginx module) ---- */

extern const snic_backend_t snic_backend_nic;

int
snic_nic_map(snic_instance_t *in, snic_conn_t *c, const snic_file_t *f,
             off_t off, size_t len, snic_piece_t *p, int max, size_t *mapped)
{
    nic_state_t  *s = in->state;
    nic_conn_t   *nc = c->backend_data;
    nic_t        *n;
    off_t         pos = off, end = off + (off_t) len;
    run_t         r;
    uint32_t      slot;
    int           k = 0, big;
    snic_piece_t *q;

    *mapped = 0;
    if (in->ops != &snic_backend_nic || nc == NULL) {
        return -1;
    }
    n = &s->nics[nc->nic];
    big = !f->cacheable || (uint64_t) f->size > s->cache_size;
    lock(&n->lock);
    /* a block is placed (and counted) only when a piece can take it: the
     * last one may stay short of what could join it */
    while (pos < end && k < max) {
        place(s, n, nc, f, pos, end, big, &r, &slot, &nc->inserted, &nc->tbus);
        q = k > 0 ? &p[k - 1] : NULL;
        if (q != NULL && q->from_nic == r.nic
            && q->off + (off_t) q->len == r.where
            && (!r.nic || slot == q->slot + q->nslots)) {
            q->len += r.len; /* the same source, right behind */
        } else {
            q = &p[k++];
            q->from_nic = r.nic;
            q->fd = r.nic ? snic_device_fd(n->dev) : f->fd;
            q->off = r.where;
            q->len = r.len;
            q->slot = slot;
            q->nslots = 0;
        }
        if (slot != SNIC_SLOT_NONE) {
            snic_dir_pin(n->dir, slot);
            q->nslots++;
        }
        if (r.nic) {
            nc->cached += r.len;
            n->c.cached_bytes += r.len;
            n->c.saved_bytes += r.hit ? r.len : 0;
        } else {
            nc->mm += r.len;
            n->c.mm_bytes += r.len;
        }
        pos += (off_t) r.len;
    }
    pthread_mutex_unlock(&n->lock);
    *mapped = (size_t) (pos - off);
    return k;
}

void
snic_nic_unpin(snic_instance_t *in, snic_conn_t *c, uint32_t slot,
               uint32_t nslots)
{
    nic_state_t *s = in->state;
    nic_conn_t  *nc = c->backend_data;
    nic_t       *n;
    uint32_t     i;

    if (in->ops != &snic_backend_nic || nc == NULL || slot == SNIC_SLOT_NONE) {
        return;
    }
    n = &s->nics[nc->nic];
    lock(&n->lock);
    for (i = 0; i < nslots; i++) {
        snic_dir_unpin(n->dir, slot + i);
    }
    pthread_mutex_unlock(&n->lock);
}

uint64_t
snic_nic_response_done(snic_instance_t *in, snic_conn_t *c, size_t other)
{
    nic_state_t *s = in->state;
    nic_conn_t  *nc = c->backend_data;
    nic_t       *n;
    uint64_t     t[PACE_N] = {0, 0, 0}, packets, wait;
    int          by = 0;

    if (in->ops != &snic_backend_nic || nc == NULL) {
        return 0;
    }
    n = &s->nics[nc->nic];
    lock(&n->lock);
    if (other > 0) {
        n->c.fallbacks[FB_HEADER]++;
        n->c.header_bytes += other;
    }
    packets = n->c.bus.packets;
    t[PACE_BUS] = nc->tbus
                  + snic_bus_send(s->bus, &n->c.bus, s->mss, other, nc->mm,
                                  nc->cached, 0);
    packets = n->c.bus.packets - packets;
    c->responses++;
    t[PACE_HOST] =
        host_charge(s, n, c, nc, packets, other + nc->mm + nc->inserted);
    t[PACE_MEM] =
        snic_mem_charge(&s->mem, &n->c.mem, nc->mm, nc->inserted, other);
    nc->mm = nc->cached = nc->inserted = nc->tbus = 0;
    pthread_mutex_unlock(&n->lock);
    t[PACE_BUS] = bus_pace_ns(s, t[PACE_BUS]);
    wait = pace(s, t, &by);
    if (wait > 0) {
        pace_wait(s, c, wait, by);
    }
    return wait;
}

static const char *const nic_directives[] = {"nic_cache_size",
                                             "nic_block_size",
                                             "nic_policy",
                                             "nic_count",
                                             "nic_bus",
                                             "nic_bus_limit",
                                             "nic_mss",
                                             "nic_testbed",
                                             "nic_memory_path",
                                             "nic_memory_bandwidth",
                                             "nic_tls",
                                             "nic_storage_fill",
                                             NULL};

const snic_backend_t snic_backend_nic = {
    "nic",
    "emulated network interface data cache (directory, LRU and other "
    "policies, NIC memory in a memfd or a file, interconnect model)",
    nic_directives,
    nic_init,
    nic_fini,
    nic_conn_open,
    nic_conn_close,
    nic_send,
    nic_report,
    nic_reset,
    nic_paces,
    NULL,
};

int
snic_nic_memory(const snic_instance_t *in, snic_nic_memory_t *m, int max)
{
    const nic_state_t *s = in->state;
    int                i, k = 0;

    if (in->ops != &snic_backend_nic) {
        return -1;
    }
    for (i = 0; i < s->count && k < max; i++) {
        if (s->nics[i].dev != NULL) { /* none with nic_cache_size 0 */
            snic_device_hold(s->nics[i].dev, &m[k].fd, &m[k].map, &m[k].size);
            k++;
        }
    }
    return k;
}

void
snic_nic_memory_release(const snic_nic_memory_t *m, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        snic_device_let_go(m[i].fd, m[i].map, m[i].size);
    }
}
