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
 * A testbed names the paper's machines (Table 2): a bus preset and a host;
 * today's servers add a memory system (snic_mem_t).
 *
 * The memory system: what serving costs in DRAM bandwidth, the resource
 * that limits a server at 100 to 400 Gb/s.  For each content byte sent
 * from host memory, the NIC's DMA reads it (1 pass), storage wrote it
 * there first for the share fill of bytes not already in the page cache
 * (fill passes), and software TLS reads the plaintext and writes the
 * per-connection ciphertext (tls passes: 2; 0 with TLS offloaded to the
 * NIC, or no TLS).  A block inserted into NIC memory is read once (and
 * filled).  HTTP headers are written by the CPU and read by the DMA (2).
 * A byte sent from NIC memory costs no DRAM pass: that is what a NIC
 * cache saves.  bw is the DRAM bandwidth serving can use (bytes/s).
 */

#ifndef SNIC_HOST_H
#define SNIC_HOST_H

#include <stdint.h>

#include "sendfile_nic/nic/bus.h"

typedef struct {
    double req_ns; /* per response */
    double pkt_ns; /* per packet */
    double mem_ns; /* per byte DMAed from main memory */
} snic_host_t;

typedef struct {
    double bw;   /* usable DRAM bandwidth, bytes/s; 0: not modelled */
    double fill; /* passes of storage writing a byte into DRAM (0..1) */
    double tls;  /* passes of software TLS per byte (2; 0: none/offload) */
} snic_mem_t;

typedef struct {
    const char *name;
    const char *bus;         /* a bus preset (snic_bus_find) */
    snic_host_t host;        /* all zero: the host is not modelled */
    const char *description; /* one line, for -V and the docs */
    snic_mem_t  mem;         /* all zero: the memory is not modelled */
    double      line_gbps;   /* the NICs' line rate (0: not given) */
} snic_testbed_t;

/* The testbeds, NULL-name terminated. */
extern const snic_testbed_t snic_testbeds[];
const snic_testbed_t       *snic_testbed_find(const char *name);

typedef struct {
    uint64_t responses;
    uint64_t busy_ns; /* modelled host time */
} snic_host_acct_t;

typedef struct {
    uint64_t dram_bytes; /* modelled DRAM traffic */
    uint64_t busy_ns;    /* modelled memory time (dram_bytes / bw) */
} snic_mem_acct_t;

/*
 * Charge a send to a: host_bytes of content DMAed from host memory,
 * insert_bytes copied into NIC memory, header_bytes of HTTP headers.
 * Returns the memory time (ns); the DRAM bytes are counted whether or not
 * bw is given.
 */
uint64_t snic_mem_charge(const snic_mem_t *m, snic_mem_acct_t *a,
                         uint64_t host_bytes, uint64_t insert_bytes,
                         uint64_t header_bytes);

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
