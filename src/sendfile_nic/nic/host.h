/*
 * The host model beside the interconnect model: what the host CPU and
 * its memory spend serving what the NICs send, so that a paced run stops
 * where the paper's server stopped, whichever of the two limited it.
 * No I/O, no locks, like bus.c.  docs/interconnect.md derives every
 * parameter from figures the paper states.
 *
 * The host is one CPU (the paper's servers were uniprocessors).  Serving
 * costs it
 *   req_ns for each response (the HTTP work, the system calls, the
 *          connection's share),
 *   pkt_ns for each packet (the TCP/IP stack, the driver, the ACK that
 *          comes back), and
 *   mem_ns for each byte DMAed from main memory to a NIC (content sent
 *          from host memory, cache inserts, HTTP headers): the memory
 *          cycles the DMA takes from the CPU.  This is the one cost a NIC
 *          cache lowers on a host-bound server.
 * A testbed names the paper's machines (Table 2): a bus preset and a host.
 */

#ifndef SNIC_HOST_H
#define SNIC_HOST_H

#include <stdint.h>

#include "bus.h"

typedef struct {
    double req_ns; /* per response */
    double pkt_ns; /* per packet */
    double mem_ns; /* per byte DMAed from main memory */
} snic_host_t;

typedef struct {
    const char *name;
    const char *bus;         /* a bus preset (snic_bus_find) */
    snic_host_t host;        /* all zero: the host is not modelled */
    const char *description; /* one line, for -V and the docs */
} snic_testbed_t;

/* The testbeds, NULL-name terminated. */
extern const snic_testbed_t snic_testbeds[];
const snic_testbed_t       *snic_testbed_find(const char *name);

typedef struct {
    uint64_t responses;
    uint64_t busy_ns; /* modelled host time */
} snic_host_acct_t;

/* Is h modelled at all (any cost above zero)? */
int snic_host_modelled(const snic_host_t *h);

/*
 * Charge responses, packets and dma_bytes (bytes DMAed from main memory)
 * to a; returns the host time (ns) they cost.
 */
uint64_t snic_host_charge(const snic_host_t *h, snic_host_acct_t *a,
                          uint64_t responses, uint64_t packets,
                          uint64_t dma_bytes);

#endif /* SNIC_HOST_H */
