/*
 * Block accesses per second through the NIC cache directory and each
 * replacement policy, on one core: the same code the nic backend and the
 * simulator run.  The access sequence (10 million blocks, skewed toward
 * small block numbers over 50,000 distinct blocks of 200 files) is made
 * before the clock starts.
 *
 * Usage: build/bench/policy_speed [ACCESSES] [SLOTS]
 * (defaults: 10000000 accesses, 4096 slots = a 16 MiB cache of 4 KiB
 * blocks).  Prints one line per policy: accesses/s and hit ratio.
 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sendfile_nic/nic/directory.h"

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
    const snic_policy_t *const *p;
    size_t   n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
    uint32_t slots = argc > 2 ? (uint32_t) strtoul(argv[2], NULL, 10) : 4096;
    snic_block_id_t *seq = malloc(sizeof(*seq) * n);
    uint64_t         x = 1, a, b, blk;
    size_t           i;

    if (seq == NULL || n == 0 || slots == 0) {
        fprintf(stderr, "usage: policy_speed [ACCESSES] [SLOTS]\n");
        return 2;
    }
    for (i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        a = (x >> 33) % 50000;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        b = (x >> 33) % 50000;
        blk = a * b / 50000;
        seq[i].dev = 1;
        seq[i].ino = blk % 200;
        seq[i].block = blk / 200;
    }

    printf("%zu block accesses, %u slots, one core\n", n, slots);
    for (p = snic_policies; *p != NULL; p++) {
        snic_dir_t *d = snic_dir_create(slots, *p);
        double      t0, t1;
        int         ev;

        if (d == NULL) {
            return 1;
        }
        t0 = now();
        for (i = 0; i < n; i++) {
            if (snic_dir_lookup(d, &seq[i], 1) == SNIC_SLOT_NONE) {
                snic_dir_insert(d, &seq[i], 1, &ev);
            }
        }
        t1 = now();
        printf("%-7s %6.1f M accesses/s  hit ratio %.3f\n", (*p)->name,
               (double) n / (t1 - t0) / 1e6,
               (double) snic_dir_stats(d)->hits / (double) n);
        snic_dir_destroy(d);
    }
    free(seq);
    return 0;
}
