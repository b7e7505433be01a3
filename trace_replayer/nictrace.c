/*
 * nictrace: trace tools.  So far: "nictrace stats", the statistics of the
 * paper's Table 1 for any trace the readers know, "nictrace docroot",
 * which materialises a trace's files, and "nictrace sessions", the
 * connection and pipeline grouping as statistics.
 *
 * Definitions (also in --help and docs/traces.md):
 *   requests              records that parsed (every method and status)
 *   duration              latest minus earliest record time
 *   total response bytes  the byte counts of all requests ("-" is 0)
 *   average response size total response bytes / requests
 *   distinct files        paths (targets without their query) with a
 *                         successful transfer: status 200 or 206, bytes > 0
 *   data set size         the sum, over those files, of the largest such
 *                         transfer (the size nictrace docroot gives them)
 *   parse errors          lines or records that did not parse
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "content.h"
#include "files.h"
#include "reader.h"
#include "sessions.h"
#include "strtab.h"

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: nictrace stats TRACE [OPTIONS]\n"
            "       nictrace docroot TRACE --root DIR [OPTIONS]\n"
            "       nictrace sessions TRACE [--conn-gap 15] [--pipeline-gap 5] "
            "[OPTIONS]\n"
            "       nictrace convert TRACE --out FILE [OPTIONS]\n"
            "options: --json, and\n" TRACE_SRC_USAGE "\n"
            "TRACE is a file (plain or gzip) or - for standard input (then "
            "give --format).\n"
            "stats prints the statistics of Kim, Rixner and Pai's Table 1:\n"
            "  requests       records that parsed (every method and status)\n"
            "  duration       latest minus earliest record time\n"
            "  total bytes    all byte counts (\"-\" counts 0)\n"
            "  average size   total bytes / requests\n"
            "  distinct files paths (without query) with a 200 or 206 of "
            "more than 0 bytes\n"
            "  data set size  the sum of each such file's largest transfer\n"
            "  parse errors   lines or records that did not parse (the "
            "first ten are listed)\n"
            "docroot creates one file per distinct file, that size, filled "
            "with bytes\nthat depend on (URL path, offset) only (see "
            "docs/traces.md); a URL ending\nin / gets index.html; unsafe "
            "paths and file/directory conflicts are skipped\nand counted.\n");
}

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
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
    uint64_t        requests;
    uint64_t        bytes;
    int64_t         t0, t1;
} scan_t;

static void
scan_free(scan_t *sc)
{
    trace_close(sc->reader);
    trace_files_free(sc->files);
}

/* Read the whole trace into sc; 0, or 1 after saying why on stderr. */
static int
scan(const trace_src_t *src, trace_sessions_t *sessions, scan_t *sc)
{
    char        err[512], a[32];
    trace_req_t r;
    double      start = now(), last = start;
    int         rc;

    memset(sc, 0, sizeof(*sc));
    sc->reader = trace_src_open(src, err, sizeof(err));
    sc->files = trace_files_new();
    if (sc->reader == NULL || sc->files == NULL) {
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
        if (trace_files_add(sc->files, &r) != 0) {
            snprintf(err, sizeof(err), "out of memory");
            rc = -1;
            break;
        }
        if ((sc->requests & 0xffff) == 0 && now() - last >= 2.0) {
            last = now();
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

static int
stats(const trace_src_t *src, int json)
{
    char               a[32], b[32];
    scan_t             sc;
    const trace_bad_t *bad;
    double             avg;
    int                i, nbad;

    if (scan(src, NULL, &sc) != 0) {
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
    scan_free(&sc);
    return 0;
}

/* docroot */

typedef struct {
    char    *url; /* the URL path, NUL-terminated */
    size_t   len;
    uint64_t size;
} entry_t;

typedef struct {
    entry_t *e;
    size_t   n;
} entries_t;

static void
collect(const char *path, size_t len, uint64_t size, void *arg)
{
    entries_t *es = arg;

    es->e[es->n].url = strndup(path, len);
    es->e[es->n].len = len;
    es->e[es->n].size = size;
    es->n++;
}

static int
by_url(const void *a, const void *b)
{
    return strcmp(((const entry_t *) a)->url, ((const entry_t *) b)->url);
}

/* mkdir -p of the directories of rel below dirfd; 0, or -1 (errno) */
static int
make_parents(int dirfd, char *rel)
{
    char *p;

    for (p = strchr(rel, '/'); p != NULL; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdirat(dirfd, rel, 0755) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return 0;
}

/* name: the file's name from the root, with its leading '/' */
static int
write_file(int dirfd, char *name, const entry_t *e, unsigned char *buf,
           size_t bufsize)
{
    uint64_t seed = trace_content_seed(name, strlen(name)), off = 0;
    char    *rel = name + 1;
    size_t   n;
    int      fd;

    if (make_parents(dirfd, rel) != 0) {
        return -1;
    }
    fd = openat(dirfd, rel,
                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd == -1) {
        return -1;
    }
    while (off < e->size) {
        n = e->size - off < bufsize ? (size_t) (e->size - off) : bufsize;
        trace_content(seed, off, buf, n);
        if (write(fd, buf, n) != (ssize_t) n) {
            close(fd);
            return -1;
        }
        off += n;
    }
    return close(fd);
}

static int
docroot(const trace_src_t *src, const char *root, int json)
{
    char           a[32], b[32];
    char          *rel = NULL;
    scan_t         sc;
    entries_t      es = {NULL, 0};
    unsigned char *buf = malloc(1 << 16);
    uint64_t       files = 0, bytes = 0, unsafe = 0, conflicts = 0;
    size_t         i;
    int            dirfd = -1, rc = 1;

    if (buf == NULL || scan(src, NULL, &sc) != 0) {
        free(buf);
        return 1;
    }
    if (mkdir(root, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "nictrace: mkdir %s: %s\n", root, strerror(errno));
        goto done;
    }
    dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    es.e = calloc(trace_files_count(sc.files) + 1, sizeof(entry_t));
    if (dirfd == -1 || es.e == NULL) {
        fprintf(stderr, "nictrace: %s: %s\n", root,
                dirfd == -1 ? strerror(errno) : "out of memory");
        goto done;
    }
    trace_files_each(sc.files, collect, &es);
    qsort(es.e, es.n, sizeof(entry_t), by_url);

    for (i = 0; i < es.n; i++) {
        free(rel);
        rel = malloc(es.e[i].len + 12);
        if (rel == NULL
            || trace_file_name(es.e[i].url, es.e[i].len, rel, 0) == 0) {
            unsafe++;
            continue;
        }
        if (write_file(dirfd, rel, &es.e[i], buf, 1 << 16) != 0) {
            if (errno != ENOTDIR && errno != EISDIR && errno != EEXIST
                && errno != ELOOP) {
                fprintf(stderr, "nictrace: %s%s: %s\n", root, rel,
                        strerror(errno));
                goto done;
            }
            conflicts++; /* a file and a directory of the same name */
            continue;
        }
        files++;
        bytes += es.e[i].size;
    }
    if (json) {
        printf("{\"root\": ");
        json_string(root);
        printf(", \"files\": %llu, \"bytes\": %llu, \"skipped_unsafe\": "
               "%llu, \"skipped_conflicts\": %llu, \"parse_errors\": %llu}\n",
               (unsigned long long) files, (unsigned long long) bytes,
               (unsigned long long) unsafe, (unsigned long long) conflicts,
               (unsigned long long) trace_bad_count(sc.reader));
    } else {
        printf("%s files, %s bytes written under %s\n", thousands(files, a),
               thousands(bytes, b), root);
        if (unsafe || conflicts) {
            printf("skipped: %llu unsafe paths, %llu file/directory "
                   "conflicts\n",
                   (unsigned long long) unsafe, (unsigned long long) conflicts);
        }
    }
    rc = 0;

done:
    for (i = 0; i < es.n; i++) {
        free(es.e[i].url);
    }
    free(es.e);
    free(rel);
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

    if (g == NULL || scan(src, g, &sc) != 0) {
        trace_sessions_free(g);
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
    rc = 0;

done:
    if (out != NULL) {
        fclose(out);
    }
    free(rec);
    trace_strtab_free(urls);
    trace_close(t);
    return rc;
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
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
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
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
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
    if (argc - optind >= 1 && strcmp(argv[optind], "stats") != 0
        && strcmp(argv[optind], "docroot") != 0
        && strcmp(argv[optind], "sessions") != 0
        && strcmp(argv[optind], "convert") != 0) {
        fprintf(stderr, "nictrace: unknown command \"%s\"\n", argv[optind]);
    }
    usage(stderr);
    return 2;
}
