/*
 * One-pass miss-ratio curves (mrc.h).
 *
 * Each block followed has an entry: its key, the time of its last access
 * (the index of that access) and its position on two axes, the axis of
 * all classes and the axis of its own class.  An axis holds, in time
 * order, a position for each access that is some block's last one, a
 * Fenwick tree that counts the live positions, and the time of each
 * position, so that "how many of this axis' blocks were used after time
 * t" is a binary search and a prefix sum.  Every axis renumbers its live
 * positions when it fills (doubling when more than half are live), so its
 * memory follows the blocks it holds.
 */

#include <stdlib.h>
#include <string.h>

#include "sendfile_nic/snic_model.h"
#include "lib/heap.h"
#include "lib/models/mrc.h"

#define NONE UINT32_MAX

typedef struct {
    uint64_t key;
    uint64_t time;    /* of the last access */
    uint32_t pos_all; /* on the axis of all classes */
    uint32_t pos_cls; /* on its class' axis */
    uint8_t  cls;
    uint8_t  full;
} entry_t;

/*
 * Which positions are live: a bit each, 64 to a word, and a Fenwick tree
 * over the words' counts (1-based), so a count or an update touches a
 * word and a tree 64 times smaller than the positions: on a trace of
 * millions of blocks it stays in the second-level cache, where a tree
 * over the positions took a cache miss a level.
 */
typedef struct {
    uint64_t *time;  /* of each position, ascending */
    uint32_t *owner; /* entry slot of a live position (of a dead one:
                      * stale, its bit clear) */
    uint64_t *bits;  /* cap / 64 words */
    uint32_t *fw;    /* Fenwick tree over the words' counts, 1-based */
    uint32_t  n, cap, live;
} axis_t;

/* a followed block: its hash and its key; largest hash first */
typedef struct {
    uint64_t h, key;
} followed_t;

#define FOLLOWED_LESS(a, b) ((a)->h > (b)->h)
TRACE_HEAP_DEFINE(followed_heap, followed_t, FOLLOWED_LESS,
                  TRACE_HEAP_UNINDEXED)

struct trace_mrc_s {
    int                 k;
    uint64_t            block;
    uint64_t           *bytes;        /* sizes, ascending */
    uint64_t           *lim;          /* a distance below lim[j] hits size j */
    int                *given;        /* ascending index -> index as given */
    trace_mrc_result_t *res;          /* by ascending index */
    uint64_t           *acc;          /* every block access a size took ... */
    uint64_t           *in;           /* ... and its bytes, followed or not */
    uint64_t           *lost;         /* bytes of the misses followed */
    int                *hit, *missed; /* per access, per request */
    uint64_t            threshold;    /* follow a block: hash < threshold */
    /* fixed size (SHARDS_fixed-size): at most max_blocks followed; the
     * followed blocks by hash, largest on top, so the next to leave is
     * known; misses weighted by 1 / rate at their time */
    uint64_t        max_blocks;
    followed_heap_t followed;
    double         *wmiss, *wlost;
    int             sampling;
    double          rate;

    entry_t *tab;
    uint64_t tab_cap, tab_n;
    axis_t   all;
    axis_t  *cls; /* k of them */
    uint64_t now;
};

/* ---- the axes ---- */

/*
 * The counts of live positions are popcounts: built for the baseline
 * x86-64 they are a call to libgcc's; where the CPU has the instruction
 * (every x86-64 of the last fifteen years) a second copy of
 * access_block(), the counting helpers inlined into it (ALWAYS), uses
 * it, chosen once at start.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MRC_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define MRC_CLONES
#endif
#define ALWAYS inline __attribute__((always_inline))

/* position pos of ax made live (d 1) or not (d -1) */
static void
fw_add(axis_t *ax, uint32_t pos, int32_t d)
{
    uint32_t i, words = ax->cap / 64;

    ax->bits[pos / 64] ^= (uint64_t) 1 << (pos % 64);
    for (i = pos / 64 + 1; i <= words; i += i & (0u - i)) {
        ax->fw[i] += (uint32_t) d;
    }
}

/* live positions of ax at or before pos */
static ALWAYS uint32_t
fw_prefix(const axis_t *ax, uint32_t pos)
{
    uint32_t i, s = 0;
    uint64_t upto =
        pos % 64 == 63 ? ~(uint64_t) 0 : ((uint64_t) 1 << (pos % 64 + 1)) - 1;

    for (i = pos / 64; i > 0; i -= i & (0u - i)) {
        s += ax->fw[i];
    }
    return s + (uint32_t) __builtin_popcountll(ax->bits[pos / 64] & upto);
}

/* live positions of ax whose time is after t */
static ALWAYS uint32_t
axis_after(const axis_t *ax, uint64_t t)
{
    uint32_t lo = 0, hi = ax->n; /* first position with time > t */

    if (ax->live == 0) {
        return 0;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (ax->time[mid] <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo == 0 ? ax->live : ax->live - fw_prefix(ax, lo - 1);
}

/* (its owner stays: the bit says the position is dead, and leaving the
 * owner saves a write to a cache line of a large array) */
static void
axis_remove(axis_t *ax, uint32_t pos)
{
    fw_add(ax, pos, -1);
    ax->live--;
}

/* Renumber the live positions in order, growing the axis when more than
 * half of it is live; the entries learn their new positions.  0 or -1. */
static int
axis_compact(trace_mrc_t *m, axis_t *ax, int is_all)
{
    uint32_t cap = ax->cap, q = 0, i, j, words;

    if (cap == 0 || ax->live > cap / 2) {
        uint64_t want = cap == 0 ? 1024 : (uint64_t) cap * 2;
        void    *t, *o, *f, *b;

        if (want >= NONE) {
            return -1;
        }
        t = realloc(ax->time, want * sizeof(*ax->time));
        if (t != NULL) {
            ax->time = t;
        }
        o = realloc(ax->owner, want * sizeof(*ax->owner));
        if (o != NULL) {
            ax->owner = o;
        }
        f = realloc(ax->fw, (want / 64 + 1) * sizeof(*ax->fw));
        if (f != NULL) {
            ax->fw = f;
        }
        b = realloc(ax->bits, want / 64 * sizeof(*ax->bits));
        if (b != NULL) {
            ax->bits = b;
        }
        if (t == NULL || o == NULL || f == NULL || b == NULL) {
            return -1;
        }
        cap = (uint32_t) want;
    }
    for (i = 0; i < ax->n; i++) {
        uint32_t s;

        if (!(ax->bits[i / 64] >> (i % 64) & 1)) {
            continue;
        }
        s = ax->owner[i];
        ax->owner[q] = s;
        ax->time[q] = ax->time[i];
        if (is_all) {
            m->tab[s].pos_all = q;
        } else {
            m->tab[s].pos_cls = q;
        }
        q++;
    }
    ax->n = q;
    ax->cap = cap;
    /* the first q positions live: their bits, and the tree of the
     * words' counts, built in O(cap / 64) */
    words = cap / 64;
    memset(ax->bits, 0, words * sizeof(*ax->bits));
    memset(ax->fw, 0, ((size_t) words + 1) * sizeof(*ax->fw));
    for (i = 0; i < q / 64; i++) {
        ax->bits[i] = ~(uint64_t) 0;
    }
    if (q % 64) {
        ax->bits[q / 64] = ((uint64_t) 1 << (q % 64)) - 1;
    }
    for (i = 1; i <= words; i++) {
        ax->fw[i] += (uint32_t) __builtin_popcountll(ax->bits[i - 1]);
        j = i + (i & (0u - i));
        if (j <= words) {
            ax->fw[j] += ax->fw[i];
        }
    }
    return 0;
}

/* A live position at time t for the entry in slot s: 0 or -1. */
static int
axis_push(trace_mrc_t *m, axis_t *ax, int is_all, uint32_t s, uint64_t t)
{
    uint32_t pos;

    if (ax->n == ax->cap && axis_compact(m, ax, is_all) != 0) {
        return -1;
    }
    pos = ax->n++;
    ax->time[pos] = t;
    ax->owner[pos] = s;
    fw_add(ax, pos, 1);
    ax->live++;
    if (is_all) {
        m->tab[s].pos_all = pos;
    } else {
        m->tab[s].pos_cls = pos;
    }
    return 0;
}

static void
axis_free(axis_t *ax)
{
    free(ax->time);
    free(ax->owner);
    free(ax->fw);
    free(ax->bits);
}

/* ---- the blocks ---- */

/* a block's hash: snic_mix(), splitmix64's finaliser, which the NIC
 * directory hashes its blocks with too */
static uint64_t
mix(uint64_t key)
{
    return snic_mix(0, key);
}

static int
tab_grow(trace_mrc_t *m)
{
    uint64_t cap = m->tab_cap ? m->tab_cap * 2 : 4096, i, h;
    entry_t *t = calloc(cap, sizeof(*t));
    int      c;

    if (t == NULL || cap >= NONE) {
        free(t);
        return -1;
    }
    for (i = 0; i < m->tab_cap; i++) {
        entry_t *e = &m->tab[i];

        if (!e->full) {
            continue;
        }
        for (h = mix(e->key) & (cap - 1); t[h].full; h = (h + 1) & (cap - 1)) {
        }
        t[h] = *e;
    }
    free(m->tab);
    m->tab = t;
    m->tab_cap = cap;
    /* the axes name entries by slot: tell them the new ones */
    for (i = 0; i < cap; i++) {
        if (t[i].full) {
            m->all.owner[t[i].pos_all] = (uint32_t) i;
            c = t[i].cls;
            m->cls[c].owner[t[i].pos_cls] = (uint32_t) i;
        }
    }
    return 0;
}

/* the slot of key, found or made (*fresh); NONE when out of memory */
static uint32_t
tab_get(trace_mrc_t *m, uint64_t key, uint64_t h, int *fresh)
{
    uint64_t i;

    if ((m->tab_n + 1) * 2 > m->tab_cap && tab_grow(m) != 0) {
        return NONE;
    }
    for (i = h & (m->tab_cap - 1); m->tab[i].full;
         i = (i + 1) & (m->tab_cap - 1)) {
        if (m->tab[i].key == key) {
            *fresh = 0;
            return (uint32_t) i;
        }
    }
    m->tab[i].full = 1;
    m->tab[i].key = key;
    m->tab_n++;
    *fresh = 1;
    return (uint32_t) i;
}

/* the distance below which each size hits, at the rate of now */
static void
set_limits(trace_mrc_t *m)
{
    int i;

    for (i = 0; i < m->k; i++) {
        uint64_t k = m->bytes[i] / m->block;

        /* SHARDS: a sampled distance d stands for d / rate; it hits a
         * cache of k blocks when d / rate < k, d < ceil(k * rate) */
        if (m->sampling) {
            double x = (double) k * m->rate;

            m->lim[i] = (uint64_t) x + ((double) (uint64_t) x < x);
        } else {
            m->lim[i] = k;
        }
    }
}

/* ---- fixed size: the followed blocks by hash ---- */

/*
 * The followed block of largest hash leaves: its entry, its positions,
 * and the threshold falls to its hash, so the rate is that hash's share
 * of the space and the limits follow (SHARDS_fixed-size).  The table is
 * linear probing: the entries after it move back (backward-shift
 * deletion), telling the axes their new slots.
 */
static void
evict_largest(trace_mrc_t *m)
{
    uint64_t h = m->followed.a[0].h, key = m->followed.a[0].key,
             mask = m->tab_cap - 1;
    uint64_t i, j, ideal;
    entry_t *e;

    (void) followed_heap_pop(&m->followed);
    for (i = mix(key) & mask; m->tab[i].key != key || !m->tab[i].full;
         i = (i + 1) & mask) {
    }
    e = &m->tab[i];
    axis_remove(&m->all, e->pos_all);
    axis_remove(&m->cls[e->cls], e->pos_cls);
    e->full = 0;
    m->tab_n--;
    for (j = (i + 1) & mask; m->tab[j].full; j = (j + 1) & mask) {
        ideal = mix(m->tab[j].key) & mask;
        /* it may move to i when i lies between its ideal slot and j */
        if (((j > i) && (ideal <= i || ideal > j))
            || ((j < i) && (ideal <= i && ideal > j))) {
            m->tab[i] = m->tab[j];
            m->tab[j].full = 0;
            m->all.owner[m->tab[i].pos_all] = (uint32_t) i;
            m->cls[m->tab[i].cls].owner[m->tab[i].pos_cls] = (uint32_t) i;
            i = j;
        }
    }
    m->threshold = h;
    m->rate = (double) h / 18446744073709551616.0;
    set_limits(m);
}

/* the class axes' count of blocks used after e's last access, but e's
 * own class', whose axis holds e: after its place there (no search) */
static ALWAYS uint64_t
class_after(const trace_mrc_t *m, const entry_t *e, int j)
{
    const axis_t *ax = &m->cls[j];

    if (ax->live == 0) {
        return 0;
    }
    if (j == e->cls) {
        return ax->live - fw_prefix(ax, e->pos_cls);
    }
    return axis_after(ax, e->time);
}

/*
 * m->hit[j] for the sizes j >= c of an access to e, whose distance over
 * all classes is d (at least the smallest limit).  A size whose limit is
 * above d hits whatever the classes; below, size j counts the classes up
 * to j, so its distance is the sum of the classes from the smallest up,
 * or d less the classes above j, from the largest down: whichever way
 * has fewer class axes to search (the small files' class is the largest
 * axis; the large files' classes are small).
 */
static ALWAYS void
distances(trace_mrc_t *m, const entry_t *e, int c, uint64_t d)
{
    int      j, top, up = 0, down = 0;
    uint64_t sum;

    for (top = m->k - 1; top >= c && m->lim[top] > d; top--) {
        m->hit[top] = 1;
    }
    if (top < c) {
        return;
    }
    for (j = 0; j < m->k; j++) {
        if (m->cls[j].live == 0 || j == c) {
            continue;
        }
        if (j <= top) {
            up++;
        } else {
            down++;
        }
        if (j > c) {
            down += j <= top; /* from the top, every class above c */
        }
    }
    if (up <= down) {
        for (sum = 0, j = 0; j <= top; j++) {
            sum += class_after(m, e, j);
            if (j < c) {
                continue;
            }
            if (sum >= m->lim[top]) {
                /* no smaller distance up to top: all of them miss */
                for (; j <= top; j++) {
                    m->hit[j] = 0;
                }
                return;
            }
            m->hit[j] = sum < m->lim[j];
        }
        return;
    }
    for (j = m->k - 1;; j--) {
        if (j <= top) {
            m->hit[j] = d < m->lim[j];
            if (j == c) {
                return;
            }
            if (d < m->lim[c]) {
                /* every smaller distance is below its limit too */
                while (--j >= c) {
                    m->hit[j] = 1;
                }
                return;
            }
        }
        d -= class_after(m, e, j); /* class j is too large below j */
    }
}

/*
 * An access to key, of class c: m->hit[j] for every size j >= c.  The
 * distance for size j counts the blocks of classes up to j used since the
 * last access; the all-class axis gives the largest size's, which settles
 * every size when it is below the smallest limit, and the smaller sizes'
 * take off the classes above them, one class axis each.  0, or -1 when
 * out of memory.
 */
MRC_CLONES static int
access_block(trace_mrc_t *m, uint64_t key, uint64_t h, int c)
{
    uint32_t s;
    entry_t *e;
    int      fresh, j;
    uint64_t d, t = m->now++;

    s = tab_get(m, key, h, &fresh);
    if (s == NONE) {
        return -1;
    }
    e = &m->tab[s];
    if (fresh) {
        for (j = c; j < m->k; j++) {
            m->hit[j] = 0;
        }
        e->cls = (uint8_t) c;
    } else {
        /* the blocks of every class used since: those after its own
         * position on the axis of all classes (no search) */
        d = m->all.live - fw_prefix(&m->all, e->pos_all);
        if (d < m->lim[c]) {
            for (j = c; j < m->k; j++) {
                m->hit[j] = 1;
            }
        } else {
            distances(m, e, c, d);
        }
        axis_remove(&m->all, e->pos_all);
        axis_remove(&m->cls[c], e->pos_cls);
    }
    e->time = t;
    /* the pushes may move the axes, not the table: s stays good */
    if (axis_push(m, &m->all, 1, s, t) != 0
        || axis_push(m, &m->cls[c], 0, s, t) != 0) {
        return -1;
    }
    if (m->max_blocks > 0 && fresh) {
        if (followed_heap_push(&m->followed, (followed_t){h, key}) != 0) {
            return -1;
        }
        if (m->tab_n > m->max_blocks) {
            evict_largest(m); /* perhaps this very block: the hit[] stand */
        }
    }
    return 0;
}

/* ---- the interface ---- */

trace_mrc_t *
trace_mrc_new(const uint64_t *sizes, int nsizes, uint64_t block, double rate,
              uint64_t max_blocks)
{
    trace_mrc_t *m;
    int          i, j;

    if (nsizes < 1 || nsizes > 255 || block == 0 || !(rate > 0) || rate > 1) {
        return NULL;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return NULL;
    }
    m->k = nsizes;
    m->block = block;
    m->rate = rate;
    m->sampling = rate < 1 || max_blocks > 0;
    m->max_blocks = max_blocks;
    m->threshold =
        rate < 1 ? (uint64_t) (rate * 18446744073709551616.0) : UINT64_MAX;
    m->bytes = calloc((size_t) nsizes, sizeof(uint64_t));
    m->lim = calloc((size_t) nsizes, sizeof(uint64_t));
    m->given = calloc((size_t) nsizes, sizeof(int));
    m->res = calloc((size_t) nsizes, sizeof(trace_mrc_result_t));
    m->hit = calloc((size_t) nsizes, sizeof(int));
    m->missed = calloc((size_t) nsizes, sizeof(int));
    m->cls = calloc((size_t) nsizes, sizeof(axis_t));
    m->acc = calloc((size_t) nsizes, sizeof(uint64_t));
    m->in = calloc((size_t) nsizes, sizeof(uint64_t));
    m->lost = calloc((size_t) nsizes, sizeof(uint64_t));
    m->wmiss = calloc((size_t) nsizes, sizeof(double));
    m->wlost = calloc((size_t) nsizes, sizeof(double));
    if (m->wmiss == NULL || m->wlost == NULL || m->bytes == NULL
        || m->lim == NULL || m->given == NULL || m->res == NULL
        || m->hit == NULL || m->missed == NULL || m->cls == NULL
        || m->acc == NULL || m->in == NULL || m->lost == NULL) {
        trace_mrc_free(m);
        return NULL;
    }
    /* ascending, by insertion: the lists are short */
    for (i = 0; i < nsizes; i++) {
        for (j = i; j > 0 && m->bytes[j - 1] > sizes[i]; j--) {
            m->bytes[j] = m->bytes[j - 1];
            m->given[j] = m->given[j - 1];
        }
        m->bytes[j] = sizes[i];
        m->given[j] = i;
    }
    set_limits(m);
    return m;
}

void
trace_mrc_free(trace_mrc_t *m)
{
    int i;

    if (m == NULL) {
        return;
    }
    axis_free(&m->all);
    for (i = 0; m->cls != NULL && i < m->k; i++) {
        axis_free(&m->cls[i]);
    }
    free(m->cls);
    free(m->tab);
    free(m->bytes);
    free(m->lim);
    free(m->given);
    free(m->res);
    free(m->hit);
    free(m->missed);
    free(m->acc);
    free(m->in);
    free(m->lost);
    free(m->wmiss);
    free(m->wlost);
    followed_heap_free(&m->followed);
    free(m);
}

int
trace_mrc_request(trace_mrc_t *m, uint32_t file, uint64_t fsize, uint64_t bytes,
                  int counting)
{
    uint64_t nblocks = (bytes + m->block - 1) / m->block, b, used, key, h, next;
    int      c, j, followed = 0;

    /* the class: the smallest size the file fits; smaller ones bypass */
    for (c = 0; c < m->k && fsize > m->bytes[c]; c++) {
        if (counting) {
            m->res[c].bypassed += bytes;
            m->res[c].requests++;
            m->res[c].req_misses++;
        }
    }
    if (c == m->k || bytes == 0) {
        return 0;
    }
    for (j = c; j < m->k; j++) {
        m->missed[j] = 0;
        if (counting) {
            m->acc[j] += nblocks;
            m->in[j] += bytes;
        }
    }
    next = mix((uint64_t) file << 32);
    for (b = 0; b < nblocks; b++) {
        key = (uint64_t) file << 32 | b;
        h = next;
        if (b + 1 < nblocks) {
            /* the next block's slot is a cache miss on a large trace:
             * ask for it while this block is counted */
            next = mix(key + 1);
            if (m->tab != NULL) {
                __builtin_prefetch(&m->tab[next & (m->tab_cap - 1)]);
            }
        }
        if (m->sampling && h >= m->threshold) {
            continue;
        }
        followed = 1;
        if (access_block(m, key, h, c) != 0) {
            return -1;
        }
        if (!counting) {
            continue;
        }
        used =
            bytes - b * m->block < m->block ? bytes - b * m->block : m->block;
        for (j = c; j < m->k; j++) {
            if (m->hit[j]) {
                m->res[j].hits++;
                m->res[j].cached += used;
            } else {
                m->res[j].misses++;
                m->lost[j] += used;
                m->wmiss[j] += 1 / m->rate;
                m->wlost[j] += (double) used / m->rate;
                m->missed[j] = 1;
            }
        }
    }
    /* sampled: a request none of whose blocks is followed says nothing */
    if (counting && (followed || !m->sampling)) {
        for (j = c; j < m->k; j++) {
            m->res[j].requests++;
            m->res[j].req_misses += (uint64_t) m->missed[j];
        }
    }
    return 0;
}

void
trace_mrc_result(const trace_mrc_t *m, int i, trace_mrc_result_t *out)
{
    int j;

    for (j = 0; j < m->k && m->given[j] != i; j++) {
    }
    *out = m->res[j];
    if (m->sampling) {
        /*
         * SHARDS_adj (Waldspurger et al., FAST'15, 4.2): the sample's
         * misses stand for 1 / rate as many; the accesses and bytes the
         * size took are counted whole, so the rest are hits.  A sample
         * that drew more or fewer of the few hottest blocks than its
         * share misplaces their references, and those are at the
         * shortest distances: hits wherever the cache holds more than a
         * handful of sampled blocks (nicsim says where it does not).
         */
        /* a fixed rate scales once; a falling one weighed each miss */
        uint64_t miss = m->max_blocks > 0
                            ? (uint64_t) (m->wmiss[j] + 0.5)
                            : (uint64_t) ((double) out->misses / m->rate + 0.5);
        uint64_t lost = m->max_blocks > 0
                            ? (uint64_t) (m->wlost[j] + 0.5)
                            : (uint64_t) ((double) m->lost[j] / m->rate + 0.5);

        out->misses = miss < m->acc[j] ? miss : m->acc[j];
        out->hits = m->acc[j] - out->misses;
        out->cached = lost < m->in[j] ? m->in[j] - lost : 0;
    }
}

int
trace_mrc_coarse(const trace_mrc_t *m, int i)
{
    int j;

    for (j = 0; j < m->k && m->given[j] != i; j++) {
    }
    return m->sampling && m->lim[j] < 32;
}

uint64_t
trace_mrc_blocks(const trace_mrc_t *m)
{
    return m->tab_n;
}

double
trace_mrc_rate(const trace_mrc_t *m)
{
    return m->rate;
}

uint64_t
trace_mrc_memory(const trace_mrc_t *m)
{
    uint64_t b =
        m->tab_cap * sizeof(entry_t) + m->followed.cap * sizeof(followed_t);
    int i;

    /* a position: its time, owner, bit and a 64th of a tree node */
    b += (uint64_t) m->all.cap * (8 + 4) + m->all.cap / 64 * (8 + 4);
    for (i = 0; i < m->k; i++) {
        b += (uint64_t) m->cls[i].cap * (8 + 4) + m->cls[i].cap / 64 * (8 + 4);
    }
    return b;
}
