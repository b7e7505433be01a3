/*
 * "nicsim merge" (nicsim.h): --json results as one.  Rows are known by
 * policy, cache size, block and caches.  A row of a --nic run is one
 * cache of --split N: the N caches' rows add up (their caches are
 * independent: a connection goes to one, and warm-up counts the trace's
 * records, not a cache's), so the merged row is the --split N row,
 * counter for counter.  Rows of different sizes or policies (a sweep cut
 * among machines) are joined.  Anything else -- a cache missing or
 * given twice, results of different traces -- is refused.
 */

#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/json.h"
#include "nicsim/nicsim.h"

typedef struct {
    sim_t    s;
    char     policy[32];
    uint64_t block, content;
    int      caches;
    uint64_t nics;  /* bit k: cache k's row seen */
    int      whole; /* a row of every cache (no --nic) */
    int      rank;  /* its policy's, by first appearance */
} row_t;

/* policy by policy as they came, then by size: nicsim's own order */
static int
by_policy_size(const void *a, const void *b)
{
    const row_t *x = a, *y = b;

    if (x->rank != y->rank) {
        return x->rank - y->rank;
    }
    return x->s.cache_bytes < y->s.cache_bytes
               ? -1
               : x->s.cache_bytes > y->s.cache_bytes;
}

static int
num(const json_t *o, const char *key, uint64_t *v)
{
    const json_t *e = json_get(o, key);

    if (e == NULL || e->type != JSON_NUMBER || e->number < 0) {
        return -1;
    }
    *v = (uint64_t) e->number;
    return 0;
}

/* one row into rows; 0, or -1 with why */
static int
add_row(row_t *rows, int *nrows, const json_t *e, const char **why)
{
    const json_t *pol = json_get(e, "policy"), *nicv = json_get(e, "nic");
    uint64_t cache, block, caches, cached, content, hits, misses, req, missed,
        nic = 0;
    row_t *r = NULL;
    int    i;

    if (pol == NULL || pol->type != JSON_STRING || strlen(pol->string) >= 32
        || num(e, "cache_bytes", &cache) || num(e, "block", &block)
        || num(e, "caches", &caches) || num(e, "cached_bytes", &cached)
        || num(e, "content_bytes", &content) || num(e, "block_hits", &hits)
        || num(e, "block_misses", &misses) || num(e, "requests", &req)
        || num(e, "missed_requests", &missed)
        || (nicv != NULL && num(e, "nic", &nic))) {
        *why = "a row lacks a counter (a nicsim --json result of this "
               "version?)";
        return -1;
    }
    if (caches < 1 || caches > MAX_SPLIT || nic >= caches) {
        *why = "a row's caches or nic is out of range";
        return -1;
    }
    for (i = 0; i < *nrows; i++) {
        if (strcmp(rows[i].policy, pol->string) == 0
            && rows[i].s.cache_bytes == cache && rows[i].block == block
            && rows[i].caches == (int) caches) {
            r = &rows[i];
            break;
        }
    }
    if (r == NULL) {
        if (*nrows == MAX_SIZES * MAX_POLICIES) {
            *why = "too many rows";
            return -1;
        }
        r = &rows[*nrows];
        memset(r, 0, sizeof(*r));
        r->rank = *nrows;
        for (i = 0; i < *nrows; i++) {
            if (strcmp(rows[i].policy, pol->string) == 0) {
                r->rank = rows[i].rank;
                break;
            }
        }
        (*nrows)++;
        snprintf(r->policy, sizeof(r->policy), "%s", pol->string);
        r->s.cache_bytes = cache;
        r->block = block;
        r->caches = (int) caches;
        if (strcmp(pol->string, "opt") != 0
            && (r->s.policy = snic_policy_find(pol->string)) == NULL) {
            *why = "a row's policy is not one of nicsim's";
            return -1;
        }
    }
    if (nicv == NULL) {
        if (r->whole || r->nics != 0) {
            *why = "a row is given twice";
            return -1;
        }
        r->whole = 1;
    } else {
        if (r->whole || (r->nics >> nic & 1)) {
            *why = "a cache's row is given twice";
            return -1;
        }
        r->nics |= (uint64_t) 1 << nic;
    }
    r->s.cached += cached;
    r->s.hits += hits;
    r->s.misses += misses;
    r->s.requests += req;
    r->s.req_misses += missed;
    r->content += content;
    return 0;
}

int
nicsim_merge(int argc, char **argv)
{
    row_t      *rows = calloc(MAX_SIZES * MAX_POLICIES, sizeof(*rows));
    sim_t      *sims = calloc(MAX_SIZES * MAX_POLICIES, sizeof(*sims));
    int         nrows = 0, out = 0, nfiles = 0, i, rc = 1;
    const char *json_path = NULL;
    FILE       *json = NULL;
    uint64_t    block = 0, content = 0;

    if (rows == NULL || sims == NULL) {
        fprintf(stderr, "nicsim merge: out of memory\n");
        goto out;
    }
    for (i = 0; i < argc; i++) {
        char          err[512];
        size_t        n;
        const char   *why = NULL;
        char         *buf;
        json_t       *root;
        const json_t *e;

        if (strcmp(argv[i], "--csv") == 0) {
            out = 2;
            continue;
        }
        if (strcmp(argv[i], "--json") == 0) {
            if (i + 1 == argc) {
                rc = cli_usage("nicsim merge", "--json wants a value");
                goto out;
            }
            json_path = argv[++i];
            continue;
        }
        if ((buf = json_read_file(argv[i], &n, err, sizeof(err))) == NULL) {
            fprintf(stderr, "nicsim merge: %s\n", err);
            goto out;
        }
        root = json_parse(buf, n, err, sizeof(err));
        free(buf);
        if (root == NULL || root->type != JSON_ARRAY) {
            fprintf(stderr,
                    "nicsim merge: %s: not a nicsim --json result "
                    "(%s)\n",
                    argv[i], root == NULL ? err : "not a list");
            json_free(root);
            goto out;
        }
        for (e = root->child; e != NULL; e = e->next) {
            if (add_row(rows, &nrows, e, &why) != 0) {
                fprintf(stderr, "nicsim merge: %s: %s\n", argv[i], why);
                json_free(root);
                goto out;
            }
        }
        json_free(root);
        nfiles++;
    }
    if (nfiles == 0 || nrows == 0) {
        fprintf(stderr, nfiles == 0
                            ? "usage: nicsim merge RESULT.json... "
                              "[--json FILE|-] [--csv]\n"
                            : "nicsim merge: the results hold no row\n");
        rc = nfiles == 0 ? 2 : 1;
        goto out;
    }
    qsort(rows, (size_t) nrows, sizeof(*rows), by_policy_size);
    for (i = 0; i < nrows; i++) {
        const row_t *r = &rows[i];
        uint64_t     all =
            r->caches == 64 ? ~0ULL : ((uint64_t) 1 << r->caches) - 1;

        if (!r->whole && r->nics != all) {
            fprintf(stderr,
                    "nicsim merge: %s at %llu bytes: a cache of the "
                    "%d has no row (every --nic 0 to %d is needed)\n",
                    r->policy, (unsigned long long) r->s.cache_bytes, r->caches,
                    r->caches - 1);
            goto out;
        }
        if (r->caches != rows[0].caches) {
            fprintf(stderr,
                    "nicsim merge: rows of --split %d and %d: one "
                    "setting at a time\n",
                    rows[0].caches, r->caches);
            goto out;
        }
        if (i > 0 && (r->content != content || r->block != block)) {
            fprintf(stderr,
                    "nicsim merge: the rows count different content "
                    "(%llu and %llu bytes) or blocks: results of "
                    "different traces or options\n",
                    (unsigned long long) content,
                    (unsigned long long) r->content);
            goto out;
        }
        content = r->content;
        block = r->block;
        sims[i] = r->s;
    }
    if (json_path != NULL && strcmp(json_path, "-") == 0) {
        if (out == 2) {
            rc = cli_usage("nicsim merge", "--json - or --csv: one of them on "
                                           "standard output");
            goto out;
        }
        out = 1;
    } else if (json_path != NULL
               && (json = cli_open_out("nicsim merge", json_path)) == NULL) {
        goto out;
    }
    nicsim_print_results(stdout, out, sims, nrows, rows[0].caches, block,
                         content, -1);
    if (json != NULL) {
        nicsim_print_results(json, 1, sims, nrows, rows[0].caches, block,
                             content, -1);
    }
    rc = cli_close_out("nicsim merge", json_path, json) != 0;
out:
    free(rows);
    free(sims);
    return rc;
}
