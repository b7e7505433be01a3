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
#include "sendfile_nic/nic/nic.h"
#include "sendfile_nic/nic/params.h"
#include "util/size.h"
#include "util/clock.h"

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

/* the parameters' values (v[i]: as written, or NULL: the default) into
 * s; a testbed gives the bus and the host, and what is set besides it
 * describes this server (its bus, memory bandwidth, TLS, storage) */
static void
configure(nic_state_t *s, const char *const *v)
{
#define NUM(p) snic_nic_param_num(SNIC_NIC_P_##p, v[SNIC_NIC_P_##p])
    s->cache_size = (size_t) NUM(cache_size);
    s->block = (size_t) NUM(block_size);
    s->count = (int) NUM(count);
    s->mss = (size_t) NUM(mss);
    s->bus_limit = (int) NUM(bus_limit);
    s->policy = snic_policy_find(v[SNIC_NIC_P_policy] != NULL
                                     ? v[SNIC_NIC_P_policy]
                                     : snic_nic_params[SNIC_NIC_P_policy].dflt);
    s->bus = &snic_bus_presets[0];
    if (v[SNIC_NIC_P_testbed] != NULL) {
        s->testbed = snic_testbed_find(v[SNIC_NIC_P_testbed]);
        s->bus = snic_bus_find(s->testbed->bus);
        s->host = s->testbed->host;
        s->mem = s->testbed->mem;
        s->line_gbps = s->testbed->line_gbps;
    }
    if (v[SNIC_NIC_P_bus] != NULL) {
        s->bus = snic_bus_find(v[SNIC_NIC_P_bus]);
    }
    if (v[SNIC_NIC_P_memory_bandwidth] != NULL) {
        s->mem.bw = NUM(memory_bandwidth);
    }
    if (v[SNIC_NIC_P_tls] != NULL) {
        /* software: the CPU reads the plaintext and writes the
         * ciphertext (2 DRAM passes a byte); offload, off: none */
        s->mem.tls = strcmp(v[SNIC_NIC_P_tls], "software") == 0 ? 2.0 : 0.0;
    }
    if (v[SNIC_NIC_P_storage_fill] != NULL) {
        s->mem.fill = NUM(storage_fill);
    }
#undef NUM
}

static int
nic_init(const snic_options_t *opt, void **state, char *err, size_t errlen)
{
    nic_state_t *s = snic_calloc(1, sizeof(*s));
    const char  *v[SNIC_NIC_NPARAMS] = {NULL};
    int          i, k;
    size_t       count;
    const char  *memory_path; /* NULL: a memfd */

    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snic_nic_lock_init(&s->pace_lock);
    s->max_chunk = opt->max_chunk;
    for (i = 0; i < opt->nparams; i++) {
        const char *n = opt->params[i].name;

        k = snic_nic_param_find(n);
        if (k < 0) {
            snprintf(err, errlen, "unknown parameter \"%s\"", n);
            nic_fini(s);
            return -1;
        }
        v[k] = opt->params[i].value;
        if (!snic_nic_param_ok(k, v[k])) {
            snprintf(err, errlen, "invalid value \"%s\" of \"%s\"%s", v[k], n,
                     snic_nic_params[k].hint);
            nic_fini(s);
            return -1;
        }
    }
    configure(s, v);
    count = (size_t) s->count;
    memory_path = v[SNIC_NIC_P_memory_path];
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

        snic_nic_lock_init(&n->lock);
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
uint64_t
snic_nic_host_charge(nic_state_t *s, nic_t *n, snic_conn_t *c, nic_conn_t *nc,
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
    snic_nic_lock(&s->nics[nc->nic].lock);
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

        snic_nic_lock(&s->nics[nc->nic].lock);
        t[PACE_HOST] = snic_nic_host_charge(s, &s->nics[nc->nic], c, nc, 0, 0);
        pthread_mutex_unlock(&s->nics[nc->nic].lock);
        snic_nic_pace(s, t, &by);
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

uint64_t
snic_nic_pace(nic_state_t *s, const uint64_t *t, int *by)
{
    uint64_t wait;

    if (!s->bus_limit) {
        return 0;
    }
    snic_nic_lock(&s->pace_lock);
    wait = pace_at(s, t, nicache_now_ns(), by);
    pthread_mutex_unlock(&s->pace_lock);
    return wait;
}

/* c waits for the resource by: say so, and count it */
void
snic_nic_pace_wait(nic_state_t *s, snic_conn_t *c, uint64_t wait, int by)
{
    c->wait_ns = wait;
    __atomic_fetch_add(&s->paced_ns[by], wait, __ATOMIC_RELAXED);
}

/* bus time as pacing counts it: no more than max_util of the wall clock */
uint64_t
snic_nic_bus_pace(const nic_state_t *s, uint64_t t)
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
void
snic_nic_place(nic_state_t *s, nic_t *n, nic_conn_t *nc, const snic_file_t *f,
               off_t pos, off_t end, int big, run_t *next, uint32_t *slot_out,
               uint64_t *inserted, uint64_t *tbus)
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

/* how much of a send of len bytes one call takes (sendfile_max_chunk) */
static size_t
send_limit(const nic_state_t *s, size_t len)
{
    return s->max_chunk != 0 && s->max_chunk < len ? s->max_chunk : len;
}

static int
nic_send(void *state, snic_conn_t *c, const snic_send_t *req, size_t *sent)
{
    nic_state_t *s = state;
    nic_conn_t  *nc = c->backend_data;
    nic_t       *n;
    snic_file_t *f = req->file;
    size_t       hdr = 0, body = 0, mm = 0, cached = 0, saved = 0;
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
    wait = snic_nic_pace(s, NULL, &by);
    if (wait > 0) {
        snic_nic_pace_wait(s, c, wait, by);
        return SNIC_AGAIN;
    }
    n = &s->nics[nc->nic];
    snic_nic_lock(&n->lock);

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
    end = req->offset + (off_t) send_limit(s, req->len);
    batch.n = batch.blocks = 0;
    batch.len = 0;

    while (pos < end || run.len > 0) {
        run_t next = {0, 0, 0, 0};

        if (pos < end) {
            snic_nic_place(s, n, nc, f, pos, end, big, &next, &slot, &inserted,
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
    t[PACE_HOST] =
        snic_nic_host_charge(s, n, c, nc, packets, hdr + mm + inserted);
    t[PACE_MEM] = snic_mem_charge(&s->mem, &n->c.mem, mm, inserted, hdr);
    pthread_mutex_unlock(&n->lock);
    t[PACE_BUS] = snic_nic_bus_pace(s, t[PACE_BUS]);
    wait = snic_nic_pace(s, t, &by);
    *sent = hdr + body;
    if (rc == SNIC_AGAIN && wait > 0) {
        snic_nic_pace_wait(s, c, wait, by); /* ran ahead: call again later */
    }
    return rc;
}

static int
nic_paces(void *state)
{
    return ((nic_state_t *) state)->bus_limit;
}

/* the parameters' names, from the one table (nic/params.h) */
#define NIC_DIRECTIVE(name, type, min, max, dflt, hint) "nic_" #name,
static const char *const nic_directives[] = {SNIC_NIC_PARAMS(NIC_DIRECTIVE)
                                                 NULL};
#undef NIC_DIRECTIVE

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
    snic_nic_report,
    snic_nic_reset,
    nic_paces,
    NULL,
};
