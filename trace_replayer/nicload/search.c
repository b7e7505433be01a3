/*
 * nicload --search (nicload.h): the file set probed, then the largest
 * number of connections that conform, by bisection.
 */

#include "nicload/nicload.h"

/*
 * Before a run: does the server hold a file set as large as the
 * connections need?  The last directory's smallest file must answer 200
 * (a smaller set answers 404 there, and a run would count those as
 * conforming traffic).  0, or -1 with the reason printed.
 */
int
nicload_probe_fileset(load_t *lp, uint32_t nconns)
{
    uint32_t    dirs = specweb_dirs(nconns);
    char        name[48];
    const char *why = "";
    int         status;

    specweb_name(dirs - 1, 0, 0, name);
    status =
        hclient_fetch(lp->cf.addr->ai_addr, lp->cf.addr->ai_addrlen, lp->cf.tls,
                      lp->cf.host, "HEAD", name, 5, NULL, NULL, &why);
    if (status == 200) {
        return 0;
    }
    if (status == -1) {
        fprintf(stderr, "nicload: failed: nothing answers at %s (%s)\n",
                lp->cf.url, why);
    } else if (status == -2) {
        fprintf(stderr, "nicload: failed: %s did not answer HEAD %s (%s)\n",
                lp->cf.url, name, why);
    } else if (status == 404) {
        fprintf(stderr,
                "nicload: failed: the file set at %s is smaller than %u "
                "connections need (%u directories: %s answers 404); make "
                "it with nicload fileset --connections %u\n",
                lp->cf.url, nconns, dirs, name, nconns);
    } else {
        fprintf(stderr, "nicload: failed: %s answered %d to HEAD %s\n",
                lp->cf.url, status, name);
    }
    return -1;
}

/* ---- search ---- */

static int
conforms(load_t *lp)
{
    return (double) lp->res.conforming
           >= lp->cf.conform * (double) lp->cf.conns - 1e-9;
}

int
nicload_search(load_t *lp, FILE *json)
{
    uint32_t lo = lp->cf.min, hi = lp->cf.max, mid, best = 0;
    int      first = 1;
    FILE    *out = json == stdout ? stderr : stdout; /* --json -: apart */

    lp->cf.fileset_conns =
        lp->cf.fileset_conns > lp->cf.max ? lp->cf.fileset_conns : lp->cf.max;
    if (json != NULL) {
        fprintf(json,
                "{\"search\": {\"min\": %u, \"max\": %u, \"conform\": "
                "%.3f}, \"steps\": [",
                lp->cf.min, lp->cf.max, lp->cf.conform);
    }
    /* the largest N in [lo, hi] that conforms, assuming fewer do too */
    while (lo <= hi && !nicache_stopping()) {
        mid = first ? hi : lo + (hi - lo) / 2;
        lp->cf.conns = mid;
        if (nicload_run(lp) != 0) {
            return 1;
        }
        if (lp->res.requests == 0) {
            fprintf(stderr, "nicload: failed: %s\n", lp->res.failure);
            if (json != NULL) {
                fprintf(json, "%s", first ? "" : ", ");
                nicload_write_result(lp, json);
                fprintf(json, "], \"capacity\": null}\n");
            }
            return 1;
        }
        fprintf(out,
                "search: %u connections: %u conform (%.1f %%), median %.0f "
                "bit/s: %s\n",
                mid, lp->res.conforming,
                100 * nicload_share(lp->res.conforming, mid),
                lp->res.rate_median, conforms(lp) ? "yes" : "no");
        fflush(out);
        if (json != NULL) {
            fprintf(json, "%s", first ? "" : ", ");
            nicload_write_result(lp, json);
        }
        if (conforms(lp)) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
        first = 0;
    }
    fprintf(out,
            "capacity: %u conforming connections (%.0f %% conforming at "
            "%.0f bit/s each, between %u and %u)\n",
            best, 100 * lp->cf.conform, lp->cf.rate, lp->cf.min, lp->cf.max);
    if (json != NULL) {
        fprintf(json, "], \"capacity\": %u}\n", best);
    }
    return 0;
}
