/*
 * The nic backend for a server that sends by itself (the nginx module):
 * where a range's bytes are (snic_nic_map), the pins, each response's
 * charge, and the NIC memory the process holds (snic_nic.h).
 */

#include "sendfile_nic/nic/nic.h"

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
    snic_nic_lock(&n->lock);
    /* a block is placed (and counted) only when a piece can take it: the
     * last one may stay short of what could join it */
    while (pos < end && k < max) {
        snic_nic_place(s, n, nc, f, pos, end, big, &r, &slot, &nc->inserted,
                       &nc->tbus);
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
    snic_nic_lock(&n->lock);
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
    snic_nic_lock(&n->lock);
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
    t[PACE_HOST] = snic_nic_host_charge(s, n, c, nc, packets,
                                        other + nc->mm + nc->inserted);
    t[PACE_MEM] =
        snic_mem_charge(&s->mem, &n->c.mem, nc->mm, nc->inserted, other);
    nc->mm = nc->cached = nc->inserted = nc->tbus = 0;
    pthread_mutex_unlock(&n->lock);
    t[PACE_BUS] = snic_nic_bus_pace(s, t[PACE_BUS]);
    wait = snic_nic_pace(s, t, &by);
    if (wait > 0) {
        snic_nic_pace_wait(s, c, wait, by);
    }
    return wait;
}

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
