/*
 * nictrace: trace tools.  So far: "nictrace stats", the statistics of the
 * paper's Table 1 for any trace the readers know, "nictrace docroot",
 * which materialises a trace's files, "nictrace sessions", the
 * connection and pipeline grouping as statistics, "nictrace convert" to
 * the compact format, and "nictrace synth", a synthetic trace (synth.h).
 *
 * Definitions (also in --help and docs/traces.md):
 *   requests              records that parsed (every method and status)
 *   duration              latest minus earliest record time
 *   total response bytes  the byte counts of all requests ("-" is 0)
 *   average response size total response bytes / requests
 *   distinct files        objects (decoded path and query, objects.h) with
 *                         a successful transfer: status 200 or 206, bytes > 0
 *   data set size         the sum, over those files, of the largest such
 *                         transfer (the size nictrace docroot gives them)
 *   parse errors          lines or records that did not parse
 */

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "../../src/util/version.h"
#include "../../src/util/civil.h"
#include "../../src/util/size.h"
#include "../lib/content.h"
#include "../lib/files.h"
#include "../lib/objects.h"
#include "../lib/reader.h"
#include "../lib/sessions.h"
#include "../lib/strtab.h"
#include "../lib/synth.h"
#include "../../src/util/clock.h"

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: nictrace stats TRACE [OPTIONS]\n"
            "       nictrace docroot TRACE --root DIR [OPTIONS]\n"
            "       nictrace sessions TRACE [--conn-gap 15] [--pipeline-gap 5] "
            "[OPTIONS]\n"
            "       nictrace convert TRACE --out FILE [OPTIONS]\n"
            "       nictrace synth [--like nasa|worldcup] [--requests N] "
            "[--files F] [--zipf A]\n"
            "             [--sizes DIST] [--data-set B] [--avg-size B] "
            "[--max-size B]\n"
            "             [--clients C] [--duration S] [--locality P] "
            "[--start T] [--seed N]\n"
            "             [--out FILE[.gz]]\n"
            "options: --json, and\n" TRACE_SRC_USAGE
            "  -h, --help            this text\n"
            "      --version         the version and the compiled features\n"
            "\n"
            "TRACE is a file (plain or gzip) or - for standard input (then "
            "give --format).\n"
            "stats prints the statistics of Kim, Rixner and Pai's Table 1:\n"
            "  requests       records that parsed (every method and status)\n"
            "  duration       latest minus earliest record time\n"
            "  total bytes    all byte counts (\"-\" counts 0)\n"
            "  average size   total bytes / requests\n"
            "  distinct files objects (path and query) with a 200 or 206 "
            "of more than 0 bytes\n"
            "  data set size  the sum of each such file's largest transfer\n"
            "  parse errors   lines or records that did not parse (the "
            "first ten are listed)\n"
            "docroot makes a docroot that answers the trace as logged: a "
            "file per object\nthe log answered 2xx or 304 (its largest "
            "transfer; bytes that depend on\nname and offset only), a "
            "directory per redirect, nothing for 404s; names\nthat cannot "
            "be the object's own are listed in DIR/.nictrace-manifest\n"
            "(nicreplay --docroot DIR uses it; see docs/traces.md).\n"
            "synth writes a Common Log Format trace (to --out, else standard "
            "output) with\nexactly N requests to exactly F files: Zipf(A) "
            "popularity, sizes from DIST\n(surge, surge:MU,SIGMA,K,ALPHA,TAIL, "
            "lognormal:MU,SIGMA, pareto:K,ALPHA,\nfixed:B, uniform:MIN,MAX) "
            "scaled to the data set B and laid so that the\naverage response "
            "is --avg-size, temporal locality P, sessions of C clients\n"
            "over S seconds from T (epoch seconds or YYYY-MM-DD[THH:MM:SS], "
            "UTC).  --like\nsets Table 1's figures for NASA or World Cup "
            "(other options override them).\nDefaults: 10000 requests, 1000 "
            "files, Zipf 1, surge, locality 0.2, clients\nrequests/20, 3600 "
            "s, seed 1 (docs/traces.md).\n");
}

/* 1234567 -> "1,234,567" */
static const char *
thousands(uint64_t v, char *buf)
{
    char   tmp[32];
    size_t n =
        (size_t) snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long) v);
    size_t i, o = 0;

    for (i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0) {
            buf[o++] = ',';
        }
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

static void
json_string(const char *s)
{
    putchar('"');
    for (; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\') {
            printf("\\%c", *s);
        } else if ((unsigned char) *s < 0x20) {
            printf("\\u%04x", *s);
        } else {
            putchar(*s);
        }
    }
    putchar('"');
}

/* What one pass over a trace gives every command. */
typedef struct {
    trace_reader_t *reader; /* still open: format and bad lines */
    trace_files_t  *files;
    trace_map_t    *map; /* the objects, when asked for */
    uint64_t        requests;
    uint64_t        bytes;
    int64_t         t0, t1;
} scan_t;

static void
scan_free(scan_t *sc)
{
    trace_close(sc->reader);
    trace_files_free(sc->files);
    trace_map_free(sc->map);
}

/* Read the whole trace into sc; 0, or 1 after saying why on stderr. */
static int
scan(const trace_src_t *src, trace_sessions_t *sessions, int map, scan_t *sc)
{
    char        err[512], a[32];
    trace_req_t r;
    double      start = nicache_now_s(), last = start;
    int         rc;

    memset(sc, 0, sizeof(*sc));
    sc->reader = trace_src_open(src, err, sizeof(err));
    sc->files = trace_files_new();
    sc->map = map ? trace_map_new() : NULL;
    if (sc->reader == NULL || sc->files == NULL || (map && sc->map == NULL)) {
        fprintf(stderr, "nictrace: %s\n",
                sc->reader == NULL ? err : "out of memory");
        scan_free(sc);
        return 1;
    }
    while ((rc = trace_next(sc->reader, &r, err, sizeof(err))) == 1) {
        if (sc->requests == 0 || r.time < sc->t0) {
            sc->t0 = r.time;
        }
        if (sc->requests == 0 || r.time > sc->t1) {
            sc->t1 = r.time;
        }
        sc->requests++;
        sc->bytes += r.bytes;
        if (sessions != NULL) {
            int opened, grouped;

            if (trace_session(sessions, &r, &opened, &grouped) == UINT64_MAX) {
                snprintf(err, sizeof(err), "out of memory");
                rc = -1;
                break;
            }
        }
        if (trace_files_add(sc->files, &r) != 0
            || (sc->map != NULL && trace_map_add(sc->map, &r) != 0)) {
            snprintf(err, sizeof(err), "out of memory");
            rc = -1;
            break;
        }
        if ((sc->requests & 0xffff) == 0 && nicache_now_s() - last >= 2.0) {
            last = nicache_now_s();
            fprintf(stderr, "nictrace: %s records, %.0f/s\n",
                    thousands(sc->requests, a),
                    (double) sc->requests / (last - start));
        }
    }
    if (rc < 0) {
        fprintf(stderr, "nictrace: %s: %s\n", src->path, err);
        scan_free(sc);
        return 1;
    }
    return 0;
}

/*
 * A trace in which nothing parsed is a failure of every command: one line
 * saying so (after what the command printed), and exit 1.
 */
static int
no_records(const char *path, uint64_t records, const trace_reader_t *t)
{
    if (records > 0) {
        return 0;
    }
    fprintf(stderr,
            "nictrace: failed: no record of %s parsed (%llu lines did not; "
            "the wrong --format?)\n",
            path, (unsigned long long) trace_bad_count(t));
    return 1;
}

static int
stats(const trace_src_t *src, int json)
{
    char               a[32], b[32];
    scan_t             sc;
    const trace_bad_t *bad;
    double             avg;
    int                i, nbad;

    if (scan(src, NULL, 0, &sc) != 0) {
        return 1;
    }
    avg = sc.requests > 0 ? (double) sc.bytes / (double) sc.requests : 0;
    bad = trace_bad_first(sc.reader, &nbad);
    if (json) {
        printf("{\"trace\": ");
        json_string(src->path);
        printf(", \"format\": \"%s\", \"duration_s\": %lld, "
               "\"total_response_bytes\": %llu, \"avg_response_bytes\": "
               "%.1f, \"data_set_bytes\": %llu, \"requests\": %llu, "
               "\"distinct_files\": %llu, \"parse_errors\": %llu, "
               "\"late_records\": %llu, \"first_errors\": [",
               trace_format(sc.reader), (long long) (sc.t1 - sc.t0),
               (unsigned long long) sc.bytes, avg,
               (unsigned long long) trace_files_bytes(sc.files),
               (unsigned long long) sc.requests,
               (unsigned long long) trace_files_count(sc.files),
               (unsigned long long) trace_bad_count(sc.reader),
               (unsigned long long) trace_late_count(sc.reader));
        for (i = 0; i < nbad; i++) {
            printf("%s{\"line\": %llu, \"error\": \"%s\"}", i ? ", " : "",
                   (unsigned long long) bad[i].line, trace_err_str(bad[i].err));
        }
        printf("]}\n");
    } else {
        printf("%-22s %s (%s)\n", "trace", src->path, trace_format(sc.reader));
        printf("%-22s %lld s (%.1f h)\n", "duration",
               (long long) (sc.t1 - sc.t0), (double) (sc.t1 - sc.t0) / 3600);
        printf("%-22s %s B (%.1f MB)\n", "total response bytes",
               thousands(sc.bytes, a), (double) sc.bytes / 1e6);
        printf("%-22s %.0f B\n", "average response size", avg);
        printf("%-22s %s B (%.1f MB)\n", "data set size",
               thousands(trace_files_bytes(sc.files), b),
               (double) trace_files_bytes(sc.files) / 1e6);
        printf("%-22s %s\n", "total requests", thousands(sc.requests, a));
        printf("%-22s %s\n", "distinct files",
               thousands(trace_files_count(sc.files), a));
        printf("%-22s %s\n", "parse errors",
               thousands(trace_bad_count(sc.reader), a));
        printf("%-22s %s (later than the reorder window: clamped)\n",
               "late records", thousands(trace_late_count(sc.reader), a));
        for (i = 0; i < nbad; i++) {
            printf("  line %llu: %s\n", (unsigned long long) bad[i].line,
                   trace_err_str(bad[i].err));
        }
    }
    i = no_records(src->path, sc.requests, sc.reader);
    scan_free(&sc);
    return i;
}

/* docroot */

/* a directory (and its parents) for a redirect */
static int
make_dir(int dirfd, const char *name)
{
    size_t n = strlen(name);
    char  *rel = malloc(n + 1);
    int    rc;

    if (rel == NULL) {
        return -1;
    }
    memcpy(rel, name + 1, n - 1);
    rel[n - 1] = '/';
    rel[n] = '\0';
    rc = trace_make_parents(dirfd, rel);
    free(rel);
    return rc;
}

static double
share(uint64_t part, uint64_t whole)
{
    return whole > 0 ? (double) part / (double) whole : 1.0;
}

/*
 * root holds the docroot of another trace (its manifest names one): 1
 * after saying so.  Files of two traces in one docroot would serve
 * neither right, and the manifest would describe only the last.
 */
static int
foreign_docroot(const char *root, const char *trace)
{
    char  path[PATH_MAX], line[PATH_MAX + 16], mine[PATH_MAX], theirs[PATH_MAX];
    FILE *f;
    int   n;

    snprintf(path, sizeof(path), "%s/%s", root, TRACE_MANIFEST_NAME);
    f = fopen(path, "r");
    if (f == NULL) {
        return 0; /* a new docroot, or one half made */
    }
    n = fgets(line, sizeof(line), f) != NULL && fgets(line, sizeof(line), f)
                                                    != NULL
            ? (int) strcspn(line, "\n")
            : -1;
    fclose(f);
    if (n < 9 || strncmp(line, "# trace: ", 9) != 0) {
        return 0;
    }
    line[n] = '\0';
    if (strcmp(line + 9, trace) == 0
        || (realpath(line + 9, theirs) != NULL && realpath(trace, mine) != NULL
            && strcmp(theirs, mine) == 0)) {
        return 0;
    }
    fprintf(stderr,
            "nictrace: failed: %s is the docroot of another trace (%s); "
            "make this one's in an empty directory\n",
            root, line + 9);
    return 1;
}

static int
docroot(const trace_src_t *src, const char *root, int json)
{
    char                     a[32], b[32];
    scan_t                   sc;
    unsigned char           *buf = malloc(1 << 16);
    const trace_map_stats_t *st;
    trace_obj_t              o;
    uint32_t                 id;
    int                      dirfd = -1, fd, rc = 1;
    FILE                    *mf = NULL;
    char                     real[PATH_MAX]; /* the manifest names it */

    if (buf == NULL || scan(src, NULL, 1, &sc) != 0) {
        free(buf);
        return 1;
    }
    if (no_records(src->path, sc.requests, sc.reader) != 0
        || foreign_docroot(root, src->path) != 0) {
        goto done;
    }
    if (trace_map_decide(sc.map) != 0) {
        fprintf(stderr, "nictrace: out of memory\n");
        goto done;
    }
    if (mkdir(root, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "nictrace: mkdir %s: %s\n", root, strerror(errno));
        goto done;
    }
    dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd == -1) {
        fprintf(stderr, "nictrace: %s: %s\n", root, strerror(errno));
        goto done;
    }
    unlinkat(dirfd, TRACE_MANIFEST_NAME, 0); /* none while half made */
    for (id = 0; id < trace_map_count(sc.map); id++) {
        trace_map_get(sc.map, id, &o);
        if (o.kind == TRACE_OBJ_MISSING
            || (o.kind == TRACE_OBJ_FILE
                    ? trace_content_write(dirfd, o.name, o.size, buf, 1 << 16)
                    : make_dir(dirfd, o.name))
                   == 0) {
            continue;
        }
        fprintf(stderr, "nictrace: %s%s: %s%s\n", root, o.name, strerror(errno),
                errno == ENOTDIR || errno == EISDIR || errno == EEXIST
                        || errno == ELOOP
                    ? " (is DIR the docroot of another trace? start from an "
                      "empty one)"
                    : "");
        goto done;
    }
    fd = openat(dirfd, TRACE_MANIFEST_NAME,
                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    mf = fd == -1 ? NULL : fdopen(fd, "w");
    if (mf == NULL
        || trace_map_write(sc.map, mf,
                           realpath(src->path, real) != NULL ? real
                                                              : src->path)
               != 0
        || fclose(mf) != 0) {
        fprintf(stderr, "nictrace: %s/%s: %s\n", root, TRACE_MANIFEST_NAME,
                strerror(errno));
        mf = NULL;
        goto done;
    }
    st = trace_map_stats(sc.map);
    if (json) {
        printf("{\"root\": ");
        json_string(root);
        printf(", \"manifest\": \"%s\", \"objects\": %llu, \"files\": %llu, "
               "\"bytes\": %llu, \"redirects\": %llu, \"missing\": %llu, "
               "\"renamed\": %llu, \"log_2xx\": %llu, \"answerable_2xx\": "
               "%llu, \"share_2xx\": %.6f, \"log_404\": %llu, "
               "\"stays_404\": %llu, \"log_3xx\": %llu, \"stays_3xx\": %llu, "
               "\"log_304\": %llu, \"log_other\": %llu, \"exceptions\": "
               "{\"2xx_not_a_file\": %llu, \"3xx_or_404_on_a_file\": %llu}, "
               "\"other_methods\": %llu, \"parse_errors\": %llu}\n",
               TRACE_MANIFEST_NAME, (unsigned long long) st->objects,
               (unsigned long long) st->files, (unsigned long long) st->bytes,
               (unsigned long long) st->redirects,
               (unsigned long long) st->missing,
               (unsigned long long) st->renamed,
               (unsigned long long) st->log_2xx,
               (unsigned long long) st->answerable_2xx,
               share(st->answerable_2xx, st->log_2xx),
               (unsigned long long) st->log_404,
               (unsigned long long) st->stays_404,
               (unsigned long long) st->log_3xx,
               (unsigned long long) st->stays_3xx,
               (unsigned long long) st->log_304,
               (unsigned long long) st->log_other,
               (unsigned long long) (st->log_2xx - st->answerable_2xx),
               (unsigned long long) st->other_3xx_404,
               (unsigned long long) st->other_methods,
               (unsigned long long) trace_bad_count(sc.reader));
    } else {
        printf("%s files, %s bytes written under %s; %llu directories for "
               "redirects, %llu objects missing (%llu renamed, see %s)\n",
               thousands(st->files, a), thousands(st->bytes, b), root,
               (unsigned long long) st->redirects,
               (unsigned long long) st->missing,
               (unsigned long long) st->renamed, TRACE_MANIFEST_NAME);
        printf("2xx answerable as 2xx: %.2f %% (%llu of %llu GET/HEAD); 404 "
               "staying 404: %llu of %llu; 3xx answered 301: %llu of %llu\n",
               100 * share(st->answerable_2xx, st->log_2xx),
               (unsigned long long) st->answerable_2xx,
               (unsigned long long) st->log_2xx,
               (unsigned long long) st->stays_404,
               (unsigned long long) st->log_404,
               (unsigned long long) st->stays_3xx,
               (unsigned long long) st->log_3xx);
        if (st->other_3xx_404 > 0) {
            printf("%llu 3xx or 404 requests name an object that also "
                   "succeeded: answered 2xx\n",
                   (unsigned long long) st->other_3xx_404);
        }
        if (st->other_methods > 0) {
            printf("%llu requests with other methods than GET and HEAD: not "
                   "replayed\n",
                   (unsigned long long) st->other_methods);
        }
    }
    rc = 0;

done:
    free(buf);
    if (dirfd != -1) {
        close(dirfd);
    }
    scan_free(&sc);
    return rc;
}

static int
sessions(const trace_src_t *src, long conn_gap, long pipe_gap, int json)
{
    static const char *const buckets[] = {"1",    "2",     "3-4", "5-8",
                                          "9-16", "17-32", ">32"};
    trace_sessions_t        *g = trace_sessions_new(conn_gap, pipe_gap);
    trace_sessions_stats_t   st;
    scan_t                   sc;
    char                     a[32];
    int                      i;

    if (g == NULL || scan(src, g, 0, &sc) != 0) {
        trace_sessions_free(g);
        return 1;
    }
    if (no_records(src->path, sc.requests, sc.reader) != 0) {
        trace_sessions_free(g);
        scan_free(&sc);
        return 1;
    }
    trace_sessions_stats(g, &st);
    if (json) {
        printf("{\"trace\": ");
        json_string(src->path);
        printf(", \"conn_gap_s\": %ld, \"pipeline_gap_s\": %ld, "
               "\"requests\": %llu, \"connections\": %llu, "
               "\"requests_per_connection\": %.3f, "
               "\"max_requests_per_connection\": %llu, "
               "\"pipeline_groups\": %llu, \"pipeline_depth\": %.3f, "
               "\"max_pipeline_depth\": %llu, \"depth_histogram\": {",
               conn_gap, pipe_gap, (unsigned long long) st.requests,
               (unsigned long long) st.connections,
               st.connections ? (double) st.requests / st.connections : 0,
               (unsigned long long) st.max_per_connection,
               (unsigned long long) st.groups,
               st.groups ? (double) st.requests / st.groups : 0,
               (unsigned long long) st.max_depth);
        for (i = 0; i < 7; i++) {
            printf("%s\"%s\": %llu", i ? ", " : "", buckets[i],
                   (unsigned long long) st.depth_hist[i]);
        }
        printf("}, \"parse_errors\": %llu}\n",
               (unsigned long long) trace_bad_count(sc.reader));
    } else {
        printf("%-26s %s (connection gap %ld s, pipeline gap %ld s)\n", "trace",
               src->path, conn_gap, pipe_gap);
        printf("%-26s %s\n", "requests", thousands(st.requests, a));
        printf("%-26s %s\n", "connections", thousands(st.connections, a));
        printf("%-26s %.2f (max %llu)\n", "requests per connection",
               st.connections ? (double) st.requests / st.connections : 0,
               (unsigned long long) st.max_per_connection);
        printf("%-26s %s\n", "pipeline groups", thousands(st.groups, a));
        printf("%-26s %.2f (max %llu)\n", "pipeline depth",
               st.groups ? (double) st.requests / st.groups : 0,
               (unsigned long long) st.max_depth);
        for (i = 0; i < 7; i++) {
            printf("  groups of %-5s %s\n", buckets[i],
                   thousands(st.depth_hist[i], a));
        }
    }
    trace_sessions_free(g);
    scan_free(&sc);
    return 0;
}

/* convert: any format to the compact one (trace_nic.c) */
static int
convert(const trace_src_t *src, const char *out_path, int json)
{
    char            err[512], a[32];
    trace_reader_t *t = trace_src_open(src, err, sizeof(err));
    trace_strtab_t *urls = trace_strtab_new();
    trace_nic_enc_t enc = {0};
    trace_req_t     r;
    unsigned char  *rec = NULL;
    size_t          rec_size = 0, n;
    uint64_t        records = 0, bytes = TRACE_NIC_MAGIC_LEN;
    uint32_t        id;
    FILE           *out = NULL;
    int             rc = 1, added;

    if (t == NULL || urls == NULL) {
        fprintf(stderr, "nictrace: %s\n", t == NULL ? err : "out of memory");
        goto done;
    }
    out = fopen(out_path, "wb");
    if (out == NULL
        || fwrite(trace_nic_magic, TRACE_NIC_MAGIC_LEN, 1, out) != 1) {
        fprintf(stderr, "nictrace: %s: %s\n", out_path, strerror(errno));
        goto done;
    }
    while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
        if (trace_strtab_intern(urls, r.url, r.url_len, &id, &added) != 0) {
            snprintf(err, sizeof(err), "out of memory");
            rc = -1;
            break;
        }
        if (TRACE_NIC_MAX_RECORD(r.url_len) > rec_size) {
            rec_size = TRACE_NIC_MAX_RECORD(r.url_len) * 2;
            free(rec);
            if ((rec = malloc(rec_size)) == NULL) {
                snprintf(err, sizeof(err), "out of memory");
                rc = -1;
                break;
            }
        }
        n = trace_nic_encode(&enc, &r, id, added, rec);
        if (fwrite(rec, n, 1, out) != 1) {
            snprintf(err, sizeof(err), "%s: %s", out_path, strerror(errno));
            rc = -1;
            break;
        }
        records++;
        bytes += n;
    }
    if (rc < 0 || fclose(out) != 0) {
        fprintf(stderr, "nictrace: %s\n", rc < 0 ? err : strerror(errno));
        out = NULL;
        rc = 1;
        goto done;
    }
    out = NULL;
    if (json) {
        printf("{\"records\": %llu, \"bytes\": %llu, \"urls\": %u, "
               "\"parse_errors\": %llu}\n",
               (unsigned long long) records, (unsigned long long) bytes,
               trace_strtab_count(urls),
               (unsigned long long) trace_bad_count(t));
    } else {
        printf("%s records (%u URLs) in %s bytes to %s", thousands(records, a),
               trace_strtab_count(urls), thousands(bytes, err), out_path);
        printf("; %llu lines did not parse\n",
               (unsigned long long) trace_bad_count(t));
    }
    rc = no_records(src->path, records, t);

done:
    if (out != NULL) {
        fclose(out);
    }
    free(rec);
    trace_strtab_free(urls);
    trace_close(t);
    return rc;
}

/* synth */

typedef struct {
    gzFile         out;
    int64_t        start, second;
    char           date[40];
    char           name[64];
    trace_synth_t *s;
} synth_out_t;

static int
synth_line(void *ctx, const trace_synth_req_t *r)
{
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    synth_out_t             *o = ctx;
    int64_t                  t = o->start + (int64_t) r->time;
    time_t                   tt;
    struct tm                tm;
    char                     line[256];
    int                      n;

    if (t != o->second || o->date[0] == '\0') {
        tt = (time_t) t;
        gmtime_r(&tt, &tm);
        snprintf(o->date, sizeof(o->date), "%02d/%s/%04d:%02d:%02d:%02d +0000",
                 tm.tm_mday, mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
                 tm.tm_min, tm.tm_sec);
        o->second = t;
    }
    trace_synth_name(o->s, r->file, o->name);
    n = snprintf(line, sizeof(line),
                 "10.%u.%u.%u - - [%s] \"GET %s HTTP/1.0\" 200 %llu\n",
                 (unsigned) (r->client >> 16) & 0xff,
                 (unsigned) (r->client >> 8) & 0xff,
                 (unsigned) r->client & 0xff, o->date, o->name,
                 (unsigned long long) r->size);
    return gzwrite(o->out, line, (unsigned) n) == n ? 0 : 1;
}

/* "1995-07-01", "1995-07-01T04:00:00" (UTC) or epoch seconds */
static int
parse_start(const char *v, int64_t *out)
{
    int   y, m, d, hh = 0, mm = 0, ss = 0, n = 0;
    char *end;

    if (sscanf(v, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3) {
        if (v[n] == 'T'
            && sscanf(v + n, "T%2d:%2d:%2d%n", &hh, &mm, &ss, &n) == 3) {
            n += (int) (strchr(v, 'T') - v);
        }
        if (v[n] != '\0' || m < 1 || m > 12 || d < 1 || d > 31 || hh > 23
            || mm > 59 || ss > 60) {
            return -1;
        }
        *out =
            nicache_days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
        return 0;
    }
    *out = strtoll(v, &end, 10);
    return end == v || *end != '\0' ? -1 : 0;
}

enum {
    SY_LIKE,
    SY_REQUESTS,
    SY_FILES,
    SY_ZIPF,
    SY_SIZES,
    SY_DATA_SET,
    SY_AVG_SIZE,
    SY_MAX_SIZE,
    SY_CLIENTS,
    SY_DURATION,
    SY_LOCALITY,
    SY_START,
    SY_SEED,
    SY_N
};

static const char *const synth_names[SY_N] = {
    "like",     "requests", "files",    "zipf",    "sizes",
    "data-set", "avg-size", "max-size", "clients", "duration",
    "locality", "start",    "seed"};

/* the options as given onto cfg; 0, or -1 after saying which is bad */
static int
synth_config(const char *const *opt, trace_synth_cfg_t *cfg)
{
    char     err[256], *end = NULL;
    uint64_t u;
    double   d;
    int      i, bad;

    trace_synth_defaults(cfg);
    if (opt[SY_LIKE] != NULL && trace_synth_preset(cfg, opt[SY_LIKE]) != 0) {
        fprintf(stderr,
                "nictrace: --like: unknown preset \"%s\" (nasa, "
                "worldcup)\n",
                opt[SY_LIKE]);
        return -1;
    }
    for (i = SY_REQUESTS; i < SY_N; i++) {
        if (opt[i] == NULL) {
            continue;
        }
        bad = 0;
        switch (i) {
        case SY_SIZES:
            if (trace_synth_parse_sizes(opt[i], &cfg->sizes, err, sizeof(err))
                != 0) {
                fprintf(stderr, "nictrace: --sizes: %s\n", err);
                return -1;
            }
            break;
        case SY_DATA_SET:
        case SY_AVG_SIZE:
        case SY_MAX_SIZE:
            bad = nicache_parse_size(opt[i], &u) != 0;
            if (i == SY_DATA_SET) {
                cfg->data_set = u;
            } else if (i == SY_AVG_SIZE) {
                cfg->avg_size = (double) u;
            } else {
                cfg->max_size = u;
            }
            break;
        case SY_ZIPF:
        case SY_DURATION:
        case SY_LOCALITY:
            d = strtod(opt[i], &end);
            bad = end == opt[i] || *end != '\0';
            *(i == SY_ZIPF       ? &cfg->zipf
              : i == SY_DURATION ? &cfg->duration
                                 : &cfg->locality) = d;
            break;
        case SY_START: bad = parse_start(opt[i], &cfg->start) != 0; break;
        default:
            u = strtoull(opt[i], &end, 10);
            bad = end == opt[i] || *end != '\0' || opt[i][0] == '-'
                  || (i == SY_FILES && u > UINT32_MAX);
            if (i == SY_REQUESTS) {
                cfg->requests = u;
            } else if (i == SY_FILES) {
                cfg->files = (uint32_t) u;
            } else if (i == SY_CLIENTS) {
                cfg->clients = u;
            } else {
                cfg->seed = u;
            }
        }
        if (bad) {
            fprintf(stderr, "nictrace: --%s: \"%s\" is not a valid value\n",
                    synth_names[i], opt[i]);
            return -1;
        }
    }
    return 0;
}

static int
synth(const char *const *opt, const char *out_path, int json)
{
    trace_synth_cfg_t   cfg;
    trace_synth_stats_t st;
    synth_out_t         o;
    char                err[512], a[32], b[32];
    size_t              n;
    FILE               *info;
    int                 rc;

    if (synth_config(opt, &cfg) != 0) {
        return 2;
    }
    memset(&o, 0, sizeof(o));
    o.s = trace_synth_new(&cfg, err, sizeof(err));
    if (o.s == NULL) {
        fprintf(stderr, "nictrace: synth: %s\n", err);
        return 1;
    }
    o.start = cfg.start;
    n = out_path ? strlen(out_path) : 0;
    /* zlib writes plain files too ("T"): one path for both */
    o.out = out_path == NULL ? gzdopen(dup(1), "wT")
            : n > 3 && strcmp(out_path + n - 3, ".gz") == 0
                ? gzopen(out_path, "wb6")
                : gzopen(out_path, "wT");
    if (o.out == NULL) {
        fprintf(stderr, "nictrace: %s: %s\n", out_path ? out_path : "stdout",
                strerror(errno ? errno : ENOMEM));
        trace_synth_free(o.s);
        return 1;
    }
    rc = trace_synth_run(o.s, synth_line, &o);
    if (gzclose(o.out) != Z_OK || rc != 0) {
        fprintf(stderr, "nictrace: %s: %s\n", out_path ? out_path : "stdout",
                rc < 0 ? "out of memory" : "write failed");
        trace_synth_free(o.s);
        return 1;
    }
    trace_synth_stats(o.s, &st);
    /* the log on standard output: the summary beside it, on stderr */
    info = out_path == NULL ? stderr : stdout;
    if (json) {
        fprintf(info,
                "{\"requests\": %llu, \"files\": %llu, \"data_set_bytes\": "
                "%llu, \"total_response_bytes\": %llu, \"avg_response_bytes\": "
                "%.1f, \"duration_s\": %.0f, \"clients\": %llu, \"sessions\": "
                "%llu, \"zipf\": %g, \"locality\": %g, \"sizes\": \"%s\", "
                "\"seed\": %llu}\n",
                (unsigned long long) st.requests, (unsigned long long) st.files,
                (unsigned long long) st.data_set,
                (unsigned long long) st.total_bytes,
                (double) st.total_bytes / (double) st.requests, st.duration,
                (unsigned long long) st.clients,
                (unsigned long long) st.sessions, cfg.zipf, cfg.locality,
                cfg.sizes.kind, (unsigned long long) cfg.seed);
    } else {
        fprintf(info, "%s requests to %s files, ", thousands(st.requests, a),
                thousands(st.files, b));
        fprintf(info, "data set %s B, ", thousands(st.data_set, a));
        fprintf(info, "average response %.0f B, %.0f s, ",
                (double) st.total_bytes / (double) st.requests, st.duration);
        fprintf(info, "%s clients in %s sessions\n", thousands(st.clients, a),
                thousands(st.sessions, b));
    }
    trace_synth_free(o.s);
    return 0;
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        TRACE_SRC_LONGOPTS,
        {"json", no_argument, NULL, 'j'},
        {"root", required_argument, NULL, 'r'},
        {"out", required_argument, NULL, 'o'},
        {"conn-gap", required_argument, NULL, 'g'},
        {"pipeline-gap", required_argument, NULL, 'p'},
        {"version", no_argument, NULL, NICACHE_OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {"like", required_argument, NULL, 256 + SY_LIKE},
        {"requests", required_argument, NULL, 256 + SY_REQUESTS},
        {"files", required_argument, NULL, 256 + SY_FILES},
        {"zipf", required_argument, NULL, 256 + SY_ZIPF},
        {"sizes", required_argument, NULL, 256 + SY_SIZES},
        {"data-set", required_argument, NULL, 256 + SY_DATA_SET},
        {"avg-size", required_argument, NULL, 256 + SY_AVG_SIZE},
        {"max-size", required_argument, NULL, 256 + SY_MAX_SIZE},
        {"clients", required_argument, NULL, 256 + SY_CLIENTS},
        {"duration", required_argument, NULL, 256 + SY_DURATION},
        {"locality", required_argument, NULL, 256 + SY_LOCALITY},
        {"start", required_argument, NULL, 256 + SY_START},
        {"seed", required_argument, NULL, 256 + SY_SEED},
        {NULL, 0, NULL, 0},
    };
    const char *synth_opt[SY_N] = {NULL};
    const char *root = NULL, *out = NULL;
    long        conn_gap = 15, pipe_gap = 5;
    int         ch, rc, json = 0;
    trace_src_t src = TRACE_SRC_INIT;
    char        err[512];

    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        rc = trace_src_option(&src, ch, optarg, err, sizeof(err));
        if (rc != 0) {
            if (rc < 0) {
                fprintf(stderr, "nictrace: %s\n", err);
                return 2;
            }
            continue;
        }
        switch (ch) {
        case 'j': json = 1; break;
        case 'r': root = optarg; break;
        case 'o': out = optarg; break;
        case 'g': conn_gap = atol(optarg); break;
        case 'p': pipe_gap = atol(optarg); break;
        case NICACHE_OPT_VERSION:
            printf("%s (nicache) %s\nfeatures: gzip (zlib %s)\n", "nictrace",
                   NICACHE_VERSION, zlibVersion());
            return 0;
        case 'h': usage(stdout); return 0;
        default:
            if (ch >= 256 && ch < 256 + SY_N) {
                synth_opt[ch - 256] = optarg;
                break;
            }
            usage(stderr);
            return 2;
        }
    }
    if (argc - optind == 2) {
        src.path = argv[optind + 1];
    }
    if (argc - optind == 2 && strcmp(argv[optind], "stats") == 0) {
        return stats(&src, json);
    }
    if (argc - optind == 2 && strcmp(argv[optind], "docroot") == 0) {
        if (root == NULL) {
            fprintf(stderr, "nictrace: docroot needs --root DIR\n");
            return 2;
        }
        return docroot(&src, root, json);
    }
    if (argc - optind == 2 && strcmp(argv[optind], "convert") == 0) {
        if (out == NULL) {
            fprintf(stderr, "nictrace: convert needs --out FILE\n");
            return 2;
        }
        return convert(&src, out, json);
    }
    if (argc - optind == 2 && strcmp(argv[optind], "sessions") == 0) {
        return sessions(&src, conn_gap, pipe_gap, json);
    }
    if (argc - optind == 1 && strcmp(argv[optind], "synth") == 0) {
        return synth(synth_opt, out, json);
    }
    if (argc - optind >= 1 && strcmp(argv[optind], "stats") != 0
        && strcmp(argv[optind], "synth") != 0
        && strcmp(argv[optind], "docroot") != 0
        && strcmp(argv[optind], "sessions") != 0
        && strcmp(argv[optind], "convert") != 0) {
        fprintf(stderr, "nictrace: unknown command \"%s\"\n", argv[optind]);
    }
    usage(stderr);
    return 2;
}
