/*
 * nicload: SPECweb99-style load (specweb.h has the workload).
 *
 *   nicload fileset --connections N --root DIR
 *   nicload http://HOST:PORT/ --connections N --duration S [...]
 *   nicload http://HOST:PORT/ --search --min N --max N [...]
 *
 * N simulated connections, each a SPECweb99 client paced to a bit rate
 * (400,000 bit/s): a request's slot lasts the longer of its transfer and
 * its bytes at that rate, the client idling for the rest, so against a
 * server that keeps up every connection receives exactly the rate.  A
 * connection conforms when, over the measurement (after the warm-up), it
 * received at least 80 % of the rate (SPECweb99's 320,000 of 400,000):
 * the bytes of each slot counted in proportion to the part of the slot
 * inside the measurement, divided by its length.  A TCP connection
 * carries 5 to 15 requests, then the client closes it and opens another.
 *
 * One thread, one epoll set; connections are hclient.c's, as nicreplay's.
 */

#include "nicload/nicload.h"

/* the URL's addresses and, for https://, its TLS: 0, or the exit status
 * after saying why (nothing to free then) */
static int
open_target(load_t *lp)
{
    char err[512], name[256];
    int  tls = hclient_parse_url(lp->cf.url, &lp->cf.addr, lp->cf.host,
                                 sizeof(lp->cf.host), name, sizeof(name), err,
                                 sizeof(err));

    if (tls < 0) {
        fprintf(stderr, "nicload: %s\n", err);
        return 2;
    }
    if (tls
        && (lp->cf.tls = hclient_tls_new(name, lp->cf.insecure, lp->cf.cacert,
                                         0, err, sizeof(err)))
               == NULL) {
        fprintf(stderr, "nicload: %s\n", err);
        freeaddrinfo(lp->cf.addr);
        return 1;
    }
    return 0;
}

/* a descriptor a connection: the soft limit raised to what is needed;
 * 0, or -1 after saying why */
static int
raise_fd_limit(load_t *lp)
{
    struct rlimit rl;
    rlim_t        need = (lp->cf.search ? lp->cf.max : lp->cf.conns) + 64;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < need) {
            fprintf(stderr,
                    "nicload: %llu connections need %llu file "
                    "descriptors; the limit is %llu (ulimit -n)\n",
                    (unsigned long long) need - 64, (unsigned long long) need,
                    (unsigned long long) rl.rlim_cur);
            return -1;
        }
    }
    return 0;
}

/* the run (or the search) with its outputs: the exit status */
static int
go(load_t *lp)
{
    FILE *json = NULL;
    int   rc = 1;

    if (lp->cf.log != NULL && (lp->log_file = fopen(lp->cf.log, "w")) == NULL) {
        fprintf(stderr, "nicload: %s: %s\n", lp->cf.log, strerror(errno));
        return 1;
    }
    if ((lp->cf.json != NULL
         && (json = cli_open_out("nicload", lp->cf.json)) == NULL)
        || raise_fd_limit(lp) != 0) {
        goto out;
    }
    nicache_catch_stop();
    if (nicload_probe_fileset(
            lp, lp->cf.search && lp->cf.max > lp->cf.fileset_conns ? lp->cf.max
                : lp->cf.fileset_conns > 0 ? lp->cf.fileset_conns
                                           : lp->cf.conns)
        != 0) {
        goto out;
    }
    if (lp->cf.search) {
        lp->cf.quiet = 1;
        rc = nicload_search(lp, json);
    } else if ((rc = nicload_run(lp) != 0) == 0) {
        if (json != stdout) {
            nicload_print_summary(lp, stdout);
        }
        if (json != NULL) {
            nicload_write_result(lp, json);
            fputc('\n', json);
        }
        if (lp->res.failure[0] != '\0') {
            fprintf(stderr, "nicload: failed: %s\n", lp->res.failure);
            rc = 1;
        }
    }
out:
    if (cli_close_out("nicload", lp->cf.json, json) != 0) {
        rc = 1;
    }
    if (lp->log_file != NULL) {
        fclose(lp->log_file);
    }
    return rc;
}

int
main(int argc, char **argv)
{
    load_t state, *lp = &state;
    int    rc;

    if ((rc = nicload_options(lp, argc, argv)) >= 0) {
        return rc;
    }
    if (lp->cf.url == NULL) {
        return nicload_fileset(lp->cf.conns, lp->cf.fileset_root);
    }
    if ((rc = open_target(lp)) != 0) {
        return rc;
    }
    rc = go(lp);
    freeaddrinfo(lp->cf.addr);
    hclient_tls_free(lp->cf.tls);
    free(lp->res.rates);
    return rc;
}
