/*
 * The policy table: every policy nicsim and the nic backend can name.
 */

#include <stdlib.h>
#include <string.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/policy/policy.h"

extern const snic_policy_t snic_policy_lru;
extern const snic_policy_t snic_policy_fifo;
extern const snic_policy_t snic_policy_clock;
extern const snic_policy_t snic_policy_sieve;
extern const snic_policy_t snic_policy_s3fifo;
extern const snic_policy_t snic_policy_arc;
extern const snic_policy_t snic_policy_lfu;

const snic_policy_t *const snic_policies[] = {
    &snic_policy_lru,    &snic_policy_fifo,
    &snic_policy_clock,  &snic_policy_sieve,
    &snic_policy_s3fifo, &snic_policy_arc,
    &snic_policy_lfu,    NULL,
};

const snic_policy_t *
snic_policy_find(const char *name)
{
    const snic_policy_t *const *p;

    for (p = snic_policies; *p != NULL; p++) {
        if (strcmp((*p)->name, name) == 0) {
            return *p;
        }
    }
    return NULL;
}
