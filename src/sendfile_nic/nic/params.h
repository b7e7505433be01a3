/*
 * The nic backend's parameters, one table (params.c) from which nicd's
 * directives ("nic_cache_size") and the nginx module's commands
 * ("sendfile_nic_cache_size") are both made: SNIC_NIC_PARAMS(X) calls
 * X(name, type, min, max, default, hint) for each, in the order the
 * documentation lists them.  A value is checked here, wherever it was
 * written, and a bad one is named with its hint.
 */

#ifndef SNIC_NIC_PARAMS_H
#define SNIC_NIC_PARAMS_H

#include <stddef.h>

/* what a value is */
enum {
    SNIC_NP_SIZE,    /* a size ("16m"), from min (max 0: no bound) */
    SNIC_NP_POW2,    /* a size, a power of two, at least min */
    SNIC_NP_NUM,     /* a whole number from min to max */
    SNIC_NP_POLICY,  /* a replacement policy's name (policy/) */
    SNIC_NP_BUS,     /* a bus preset's name (nic/bus.c) */
    SNIC_NP_TESTBED, /* a testbed's name (nic/host.c) */
    SNIC_NP_FLAG,    /* on or off */
    SNIC_NP_TLS,     /* software, offload or off */
    SNIC_NP_SHARE,   /* a share, 0 to 1 */
    SNIC_NP_PATH     /* a directory */
};

#define SNIC_NIC_PARAMS(X)                                                     \
    X(cache_size, SNIC_NP_SIZE, 0, 0, "16m", "")                               \
    X(block_size, SNIC_NP_POW2, 512, 0, "4096",                                \
      " (a power of two, at least 512)")                                       \
    X(policy, SNIC_NP_POLICY, 0, 0, "lru",                                     \
      " (lru, fifo, clock, sieve, s3fifo, arc, lfu)")                          \
    X(count, SNIC_NP_NUM, 1, 64, "1", " (1 to 64)")                            \
    X(bus, SNIC_NP_BUS, 0, 0, "pci64-33",                                      \
      " (pci64-33, pci64-66, pcie3-x8, pcie4-x16, pcie5-x16)")                 \
    X(bus_limit, SNIC_NP_FLAG, 0, 0, "off", " (on, off)")                      \
    X(mss, SNIC_NP_NUM, 536, 65535, "1448", " (536 to 65535)")                 \
    X(testbed, SNIC_NP_TESTBED, 0, 0, NULL,                                    \
      " (amd33, amd66, intel33, intel66, pcie3-server, pcie4-server, "         \
      "pcie4-2x100g, pcie5-400g, rome-400g-tls, rome-400g-nictls)")            \
    X(memory_path, SNIC_NP_PATH, 0, 0, NULL, "")                               \
    X(memory_bandwidth, SNIC_NP_SIZE, 1, 0, NULL, " (bytes a second)")         \
    X(tls, SNIC_NP_TLS, 0, 0, NULL, " (software, offload, off)")               \
    X(storage_fill, SNIC_NP_SHARE, 0, 0, NULL, " (a share, 0 to 1)")

#define SNIC_NIC_P_INDEX(name, type, min, max, dflt, hint) SNIC_NIC_P_##name,
enum { SNIC_NIC_PARAMS(SNIC_NIC_P_INDEX) SNIC_NIC_NPARAMS };
#undef SNIC_NIC_P_INDEX

/* one parameter of the table */
typedef struct {
    const char *name;      /* without a prefix: "cache_size" */
    const char *directive; /* nicd's: "nic_cache_size" */
    int         type;
    double      min, max;
    const char *dflt; /* as written, or NULL: none (unset) */
    const char *hint; /* what a value may be, for errors */
} snic_nic_param_t;

extern const snic_nic_param_t snic_nic_params[SNIC_NIC_NPARAMS];

/* the index of nicd's directive name ("nic_cache_size"), or -1 */
int snic_nic_param_find(const char *directive);

/* Is v a value of parameter i?  1, or 0 */
int snic_nic_param_ok(int i, const char *v);

/* parameter i's value as a number (sizes, counts, shares): v, or the
 * default when v is NULL (a value snic_nic_param_ok() took) */
double snic_nic_param_num(int i, const char *v);

#endif /* SNIC_NIC_PARAMS_H */
