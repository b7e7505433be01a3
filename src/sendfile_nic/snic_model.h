/*
 * The NIC data cache as a model, for programs that study it without
 * sending a byte (the trace tools: nicsim's simulation and miss-ratio
 * curves, niccompare's testbeds): a NIC's directory of file blocks under
 * a replacement policy (nic/directory.h), the policies by name
 * (policy/policy.h), the testbeds' interconnect and host models
 * (nic/bus.h, nic/host.h), and the hash that numbers blocks.  snic.h is
 * a sending caller's header, snic_backend.h a backend writer's.
 */

#ifndef SNIC_MODEL_H
#define SNIC_MODEL_H

#include <stdint.h>

#include "sendfile_nic/nic/bus.h"
#include "sendfile_nic/nic/directory.h"
#include "sendfile_nic/nic/host.h"
#include "sendfile_nic/policy/policy.h"

/*
 * h with v mixed in: for a given h a bijection of v, spread over all 64
 * bits (splitmix64's finaliser); chained, it hashes a tuple of numbers
 * (a file's revision, a block's key) with no collision but by chance.
 */
static inline uint64_t
snic_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

#endif /* SNIC_MODEL_H */
