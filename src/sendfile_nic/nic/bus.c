/* The interconnect model: see bus.h and docs/interconnect.md. */

#include <string.h>

#include "bus.h"

const char *const snic_bus_category[SNIC_BUS_NCAT] = {
    "content", "http_header", "net_header", "overhead", "other"};

/*
 * Presets.  PCI: 64-bit, one data phase per cycle; the per-burst overhead
 * of pci64-33 is calibrated (docs/interconnect.md) so that a large-file
 * workload without caching spends about 30 % of the bus on overhead and
 * about 60 % on content, as the paper's Figure 4 reports; pci64-66 keeps
 * the same overhead in cycles.  PCIe: a lane moves 1 byte per ns at 8 GT/s
 * (128b/130b coding, rounded), bursts are 256-byte TLP payloads and the
 * overhead is the TLP's framing, header and CRC (about 24 bytes) at the
 * link's rate; read latency is hidden by split transactions.
 */
const snic_bus_t snic_bus_presets[] = {
    {"pci64-33", 8, 33.33, 256, 300.0, 32},
    {"pci64-66", 8, 66.66, 256, 150.0, 32},
    {"pcie3-x8", 8, 985.0, 256, 3.0, 32},
    {"pcie4-x16", 32, 985.0, 256, 0.75, 32},
    {NULL, 0, 0, 0, 0, 0},
};

const snic_bus_t *
snic_bus_find(const char *name)
{
    const snic_bus_t *b;

    for (b = snic_bus_presets; b->name != NULL; b++) {
        if (strcmp(b->name, name) == 0) {
            return b;
        }
    }
    return NULL;
}

static uint64_t
cycles_ns(const snic_bus_t *b, uint64_t cycles)
{
    return (uint64_t) ((double) cycles * 1000.0 / b->clock_mhz + 0.5);
}

/* account n bytes moved in k bursts */
static uint64_t
move(const snic_bus_t *b, snic_bus_acct_t *a, int cat, uint64_t n, uint64_t k)
{
    uint64_t data = cycles_ns(b, (n + b->width - 1) / b->width);
    uint64_t over = (uint64_t) ((double) k * b->overhead_ns + 0.5);

    a->bytes[cat] += n;
    /* the overhead as the bytes the bus could have moved meanwhile */
    a->bytes[SNIC_BUS_OVERHEAD] +=
        (uint64_t) ((double) k * b->overhead_ns * b->clock_mhz / 1000.0
                        * b->width
                    + 0.5);
    a->busy_ns += data + over;
    return data + over;
}

uint64_t
snic_bus_dma(const snic_bus_t *b, snic_bus_acct_t *a, int cat, uint64_t n)
{
    if (n == 0) {
        return 0;
    }
    return move(b, a, cat, n, (n + b->burst - 1) / b->burst);
}

uint64_t
snic_bus_send(const snic_bus_t *b, snic_bus_acct_t *a, size_t mss,
              uint64_t http_header, uint64_t body_mm, uint64_t body_nic,
              uint64_t request)
{
    uint64_t total = http_header + body_mm + body_nic, packets, acks, t = 0;
    uint64_t mm = http_header + body_mm, mm_packets;

    if (total == 0) {
        return 0;
    }
    packets = (total + mss - 1) / mss;
    acks = (packets + SNIC_ACK_EVERY - 1) / SNIC_ACK_EVERY;
    a->packets += packets;
    /* host-memory payload: bursts never span packets */
    mm_packets = (mm + mss - 1) / mss;
    if (http_header > 0) {
        t += move(b, a, SNIC_BUS_HTTP_HEADER, http_header,
                  (http_header + b->burst - 1) / b->burst);
    }
    if (body_mm > 0) {
        uint64_t k = (body_mm + b->burst - 1) / b->burst;

        if (mm_packets > 1) {
            k += mm_packets - 1;
        }
        t += move(b, a, SNIC_BUS_CONTENT, body_mm, k);
    }
    t += move(b, a, SNIC_BUS_NET_HEADER, packets * SNIC_NET_HEADER, packets);
    t += move(b, a, SNIC_BUS_OTHER, packets * b->descriptor, packets);
    t += move(b, a, SNIC_BUS_OTHER, acks * SNIC_NET_HEADER, acks);
    if (request > 0) {
        t += move(b, a, SNIC_BUS_OTHER, request,
                  (request + b->burst - 1) / b->burst);
    }
    return t;
}

uint64_t
snic_bus_insert(const snic_bus_t *b, snic_bus_acct_t *a, uint64_t n)
{
    return move(b, a, SNIC_BUS_OTHER, b->descriptor, 1)
           + snic_bus_dma(b, a, SNIC_BUS_CONTENT, n);
}

void
snic_bus_acct_add(snic_bus_acct_t *into, const snic_bus_acct_t *a)
{
    int i;

    for (i = 0; i < SNIC_BUS_NCAT; i++) {
        into->bytes[i] += a->bytes[i];
    }
    into->busy_ns += a->busy_ns;
    into->packets += a->packets;
}
