/* The interconnect model: see bus.h and docs/interconnect.md. */

#include <string.h>

#include "sendfile_nic/nic/bus.h"

const char *const snic_bus_category[SNIC_BUS_NCAT] = {
    "content", "http_header", "net_header", "overhead", "other"};

/*
 * Presets (docs/interconnect.md has the derivations).
 *
 * pci64-33: 64-bit PCI at 33 MHz.  22 cycles (660 ns) a transaction and
 * 2 cycles a further burst put a large-file workload without caching at
 * about 31 % overhead and 63 % content, the paper's Figure 4, and make
 * the overhead fall by about a third when a cache serves 89 % of the
 * content (Figure 7a: 35 %).
 *
 * pci64-66: the paper's section 6.3 measured nearly four times the
 * per-byte overhead on 66 MHz as on 33 MHz, because the overhead is
 * main-memory stalls, which do not get shorter with the bus clock: the
 * same stall in nanoseconds is already twice the bytes at twice the
 * clock, and a transaction stall of 1,350 ns (about twice 33 MHz's) gives
 * the rest (3.8 times; fitted, not derived).
 *
 * The busiest a PCI bus can be kept is 95 %: what the paper measured on
 * its bus-bound NASA run.
 *
 * PCIe: a lane moves 1 byte per ns at 8 GT/s (128b/130b coding, rounded),
 * bursts are 256-byte TLP payloads and every TLP carries about 24 bytes
 * of framing, header and CRC at the link's rate; read latency is hidden
 * by split transactions, so a transaction costs no more than a burst.
 */
const snic_bus_t snic_bus_presets[] = {
    {"pci64-33", 8, 33.33, 256, 660.0, 60.0, 32, 0.95},
    {"pci64-66", 8, 66.66, 256, 1350.0, 60.0, 32, 0.95},
    {"pcie3-x8", 8, 985.0, 256, 3.0, 3.0, 32, 0.95},
    {"pcie4-x16", 32, 985.0, 256, 0.75, 0.75, 32, 0.95},
    {"pcie5-x16", 64, 985.0, 256, 0.375, 0.375, 32, 0.95},
    {NULL, 0, 0, 0, 0, 0, 0, 0},
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

/* account n bytes moved in txns transactions of bursts bursts in all */
static uint64_t
move(const snic_bus_t *b, snic_bus_acct_t *a, int cat, uint64_t n,
     uint64_t txns, uint64_t bursts)
{
    uint64_t data = cycles_ns(b, (n + b->width - 1) / b->width);
    double   o =
        (double) txns * b->txn_ns + (double) (bursts - txns) * b->burst_ns;
    uint64_t over = (uint64_t) (o + 0.5);

    a->bytes[cat] += n;
    /* the overhead as the bytes the bus could have moved meanwhile */
    a->bytes[SNIC_BUS_OVERHEAD] +=
        (uint64_t) (o * b->clock_mhz / 1000.0 * b->width + 0.5);
    a->busy_ns += data + over;
    return data + over;
}

static uint64_t
bursts(const snic_bus_t *b, uint64_t n)
{
    return (n + b->burst - 1) / b->burst;
}

static uint64_t
snic_bus_dma(const snic_bus_t *b, snic_bus_acct_t *a, int cat, uint64_t n)
{
    if (n == 0) {
        return 0;
    }
    return move(b, a, cat, n, 1, bursts(b, n));
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
        t += snic_bus_dma(b, a, SNIC_BUS_HTTP_HEADER, http_header);
    }
    if (body_mm > 0) {
        /* one transaction per packet the content spans */
        t += move(b, a, SNIC_BUS_CONTENT, body_mm, mm_packets,
                  bursts(b, body_mm) + mm_packets - 1);
    }
    t += move(b, a, SNIC_BUS_NET_HEADER, packets * SNIC_NET_HEADER, packets,
              packets);
    t += move(b, a, SNIC_BUS_OTHER, packets * b->descriptor, packets, packets);
    t += move(b, a, SNIC_BUS_OTHER, acks * SNIC_NET_HEADER, acks, acks);
    if (request > 0) {
        t += snic_bus_dma(b, a, SNIC_BUS_OTHER, request);
    }
    return t;
}

uint64_t
snic_bus_insert(const snic_bus_t *b, snic_bus_acct_t *a, uint64_t n)
{
    return move(b, a, SNIC_BUS_OTHER, b->descriptor, 1, 1)
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
