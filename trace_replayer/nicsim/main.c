/*
 * nicsim: how much HTTP content a network interface data cache would keep
 * off the interconnect (Kim, Rixner and Pai, Figure 3), by replaying a
 * trace through the same directory and replacement policies the nic
 * backend uses, without a network.
 *
 * Semantics (also in --help and docs/traces.md):
 * - a request with status 200 or 206 and a byte count above zero
 *   transfers that many bytes from the start of its file; other requests
 *   carry no content;
 * - a file's size is the largest such count seen for its path (the rule
 *   of nictrace docroot); it is read in a first pass over the trace;
 * - the file is cut into blocks of --block bytes; the blocks a transfer
 *   touches are looked up in order: a hit serves that block's bytes of
 *   the transfer from the cache, a miss inserts the block;
 * - a file larger than the cache bypasses it;
 * - --split N gives N caches, each of the size, and sends connection k
 *   (connections as nicreplay forms them, numbered as they open) to cache
 *   k mod N, as nicd's round-robin assignment would;
 * - share = content bytes served from a cache / all content bytes.
 * Every size and policy runs in the same pass.
 */

#include <string.h>

#include "lib/cli.h"
#include "nicsim/nicsim.h"

int
main(int argc, char **argv)
{
    nicsim_conf_t cf;
    nicsim_run_t  run;
    int           rc;

    if (argc > 1 && strcmp(argv[1], "merge") == 0) {
        return nicsim_merge(argc - 2, argv + 2);
    }
    if ((rc = nicsim_options(&cf, argc, argv)) >= 0) {
        return rc;
    }
    rc = nicsim_run(&run, &cf);
    if (rc == 0) {
        rc = nicsim_report(&run);
    }
    if (cli_close_out("nicsim", cf.json_path, cf.json) != 0 && rc == 0) {
        rc = 1;
    }
    nicsim_free(&run);
    return rc;
}
