/*
 * The interconnect model: every transfer between host memory and an
 * emulated NIC is accounted, in bytes by category (the paper's Figure 4)
 * and in modelled bus time.  No I/O, no locks: callers hold what they
 * need (the backend keeps one account per NIC under that NIC's lock, and
 * one shared bus clock).  docs/interconnect.md explains the parameters
 * and the calibration.
 *
 * A DMA transaction of n bytes takes ceil(n / width) data cycles, plus a
 * fixed overhead per transaction (address phase, turnaround and the
 * main-memory stall before data flows) and a smaller one per further
 * burst of the same transaction (a disconnect and a new address phase
 * while the memory streams).  Small transfers (descriptors, headers,
 * ACKs) are one transaction each, so they keep paying the stall when a
 * cache removes the content bursts: this is why, in the paper's Figure
 * 7a, overhead falls much less than content.  The overhead is also
 * reported in bytes, as the data the bus could have moved in that time,
 * so that categories add up to bus occupancy.
 */

#ifndef SNIC_BUS_H
#define SNIC_BUS_H

#include <stddef.h>
#include <stdint.h>

enum {
    SNIC_BUS_CONTENT = 0, /* HTTP content (bodies, and cache inserts) */
    SNIC_BUS_HTTP_HEADER, /* HTTP response headers */
    SNIC_BUS_NET_HEADER,  /* Ethernet + IPv4 + TCP headers per packet */
    SNIC_BUS_OVERHEAD,    /* per-burst overhead, as bytes of bus time */
    SNIC_BUS_OTHER,       /* descriptors, requests and ACKs to the host */
    SNIC_BUS_NCAT
};

extern const char *const snic_bus_category[SNIC_BUS_NCAT];

typedef struct {
    const char *name;
    unsigned    width;      /* bytes per data cycle */
    double      clock_mhz;  /* data cycles per microsecond */
    unsigned    burst;      /* largest burst, bytes */
    double      txn_ns;     /* overhead per DMA transaction */
    double      burst_ns;   /* overhead per further burst of one */
    unsigned    descriptor; /* bytes per buffer descriptor */
    double      max_util;   /* the busiest the bus can be kept (arbitration
                               and retries leave the rest idle) */
} snic_bus_t;

/* The presets, NULL-name terminated; the first is the default. */
extern const snic_bus_t snic_bus_presets[];
const snic_bus_t       *snic_bus_find(const char *name);

#define SNIC_NET_HEADER 66 /* Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12 */
#define SNIC_ACK_EVERY  2  /* a client ACK per two full segments */

typedef struct {
    uint64_t bytes[SNIC_BUS_NCAT];
    uint64_t busy_ns; /* modelled bus time */
    uint64_t packets;
} snic_bus_acct_t;

/*
 * A send of one piece of a response: http_header bytes of HTTP header
 * and body_mm bytes of content from host memory, body_nic bytes of
 * content from NIC memory (these cross nothing), cut into packets of
 * mss bytes.  Per packet: a descriptor and the network headers go down,
 * each a transaction; the header is one transaction, and host-memory
 * content one per packet it spans (a payload burst never spans two
 * packets); per SNIC_ACK_EVERY packets a client ACK (a network header)
 * comes up.  request bytes (of the request being answered, on its first
 * piece) come up.  Returns the bus time.
 */
uint64_t snic_bus_send(const snic_bus_t *b, snic_bus_acct_t *a, size_t mss,
                       uint64_t http_header, uint64_t body_mm,
                       uint64_t body_nic, uint64_t request);

/* A cache_insert of n bytes: a descriptor and the block's content. */
uint64_t snic_bus_insert(const snic_bus_t *b, snic_bus_acct_t *a, uint64_t n);

void snic_bus_acct_add(snic_bus_acct_t *into, const snic_bus_acct_t *a);

#endif /* SNIC_BUS_H */
