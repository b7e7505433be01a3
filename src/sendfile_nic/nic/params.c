/*
 * The nic backend's parameters (params.h): the table and the checks.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sendfile_nic/nic/bus.h"
#include "sendfile_nic/nic/host.h"
#include "sendfile_nic/nic/params.h"
#include "sendfile_nic/policy/policy.h"
#include "util/size.h"

#define SNIC_NIC_P_ROW(name, type, min, max, dflt, hint)                       \
    {#name, "nic_" #name, type, min, max, dflt, hint},
const snic_nic_param_t snic_nic_params[SNIC_NIC_NPARAMS] = {
    SNIC_NIC_PARAMS(SNIC_NIC_P_ROW)};
#undef SNIC_NIC_P_ROW

int
snic_nic_param_find(const char *directive)
{
    int i;

    for (i = 0; i < SNIC_NIC_NPARAMS; i++) {
        if (strcmp(snic_nic_params[i].directive, directive) == 0) {
            return i;
        }
    }
    return -1;
}

/* a whole size, or -1 */
static double
size_of(const char *v)
{
    uint64_t n;

    return nicache_parse_size(v, &n) == 0 ? (double) n : -1;
}

int
snic_nic_param_ok(int i, const char *v)
{
    const snic_nic_param_t *p = &snic_nic_params[i];
    double                  n;
    char                   *end;

    switch (p->type) {
    case SNIC_NP_SIZE:
    case SNIC_NP_NUM:
        n = size_of(v);
        return n >= p->min && (p->max == 0 || n <= p->max);
    case SNIC_NP_POW2:
        n = size_of(v);
        return n >= p->min && ((uint64_t) n & ((uint64_t) n - 1)) == 0;
    case SNIC_NP_POLICY: return snic_policy_find(v) != NULL;
    case SNIC_NP_BUS: return snic_bus_find(v) != NULL;
    case SNIC_NP_TESTBED: return snic_testbed_find(v) != NULL;
    case SNIC_NP_FLAG: return strcmp(v, "on") == 0 || strcmp(v, "off") == 0;
    case SNIC_NP_TLS:
        return strcmp(v, "software") == 0 || strcmp(v, "offload") == 0
               || strcmp(v, "off") == 0;
    case SNIC_NP_SHARE:
        n = strtod(v, &end);
        return end != v && *end == '\0' && n >= 0 && n <= 1;
    }
    return v[0] != '\0'; /* a path */
}

double
snic_nic_param_num(int i, const char *v)
{
    const snic_nic_param_t *p = &snic_nic_params[i];

    if (v == NULL) {
        v = p->dflt != NULL ? p->dflt : "0";
    }
    if (p->type == SNIC_NP_SHARE) {
        return strtod(v, NULL);
    }
    if (p->type == SNIC_NP_FLAG) {
        return strcmp(v, "on") == 0;
    }
    return size_of(v);
}
