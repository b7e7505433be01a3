/*
 * nictrace: trace tools.  So far: "nictrace stats", the statistics of the
 * paper's Table 1 for any trace the readers know.
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

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "reader.h"

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: nictrace stats TRACE [--format auto|clf|combined|wc98] "
            "[--mapping FILE] [--json]\n"
            "\n"
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
            "first ten are listed)\n");
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

static int
stats(const char *path, const char *format, const char *mapping, int json)
{
    char               err[512], a[32], b[32];
    trace_reader_t    *t;
    trace_files_t     *files;
    trace_req_t        r;
    const trace_bad_t *bad;
    uint64_t           n = 0, bytes = 0;
    int64_t            t0 = 0, t1 = 0;
    double             start = now(), last = start, avg;
    int                rc, i, nbad;

    t = trace_open(path, format, mapping, err, sizeof(err));
    files = trace_files_new();
    if (t == NULL || files == NULL) {
        fprintf(stderr, "nictrace: %s\n", t == NULL ? err : "out of memory");
        trace_close(t);
        trace_files_free(files);
        return 1;
    }
    while ((rc = trace_next(t, &r, err, sizeof(err))) == 1) {
        if (n == 0 || r.time < t0) {
            t0 = r.time;
        }
        if (n == 0 || r.time > t1) {
            t1 = r.time;
        }
        n++;
        bytes += r.bytes;
        if (trace_files_add(files, &r) != 0) {
            snprintf(err, sizeof(err), "out of memory");
            rc = -1;
            break;
        }
        if ((n & 0xffff) == 0 && now() - last >= 2.0) {
            last = now();
            fprintf(stderr, "nictrace: %s records, %.0f/s\n", thousands(n, a),
                    (double) n / (last - start));
        }
    }
    if (rc < 0) {
        fprintf(stderr, "nictrace: %s: %s\n", path, err);
        trace_close(t);
        trace_files_free(files);
        return 1;
    }

    avg = n > 0 ? (double) bytes / (double) n : 0;
    bad = trace_bad_first(t, &nbad);
    if (json) {
        printf("{\"trace\": ");
        json_string(path);
        printf(", \"format\": \"%s\", \"duration_s\": %lld, "
               "\"total_response_bytes\": %llu, \"avg_response_bytes\": "
               "%.1f, \"data_set_bytes\": %llu, \"requests\": %llu, "
               "\"distinct_files\": %llu, \"parse_errors\": %llu, "
               "\"first_errors\": [",
               trace_format(t), (long long) (t1 - t0),
               (unsigned long long) bytes, avg,
               (unsigned long long) trace_files_bytes(files),
               (unsigned long long) n,
               (unsigned long long) trace_files_count(files),
               (unsigned long long) trace_bad_count(t));
        for (i = 0; i < nbad; i++) {
            printf("%s{\"line\": %llu, \"error\": \"%s\"}", i ? ", " : "",
                   (unsigned long long) bad[i].line, trace_err_str(bad[i].err));
        }
        printf("]}\n");
    } else {
        printf("%-22s %s (%s)\n", "trace", path, trace_format(t));
        printf("%-22s %lld s (%.1f h)\n", "duration", (long long) (t1 - t0),
               (double) (t1 - t0) / 3600);
        printf("%-22s %s B (%.1f MB)\n", "total response bytes",
               thousands(bytes, a), (double) bytes / 1e6);
        printf("%-22s %.0f B\n", "average response size", avg);
        printf("%-22s %s B (%.1f MB)\n", "data set size",
               thousands(trace_files_bytes(files), b),
               (double) trace_files_bytes(files) / 1e6);
        printf("%-22s %s\n", "total requests", thousands(n, a));
        printf("%-22s %s\n", "distinct files",
               thousands(trace_files_count(files), a));
        printf("%-22s %s\n", "parse errors", thousands(trace_bad_count(t), a));
        for (i = 0; i < nbad; i++) {
            printf("  line %llu: %s\n", (unsigned long long) bad[i].line,
                   trace_err_str(bad[i].err));
        }
    }
    trace_close(t);
    trace_files_free(files);
    return 0;
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"mapping", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *format = "auto", *mapping = NULL;
    int         ch, json = 0;

    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'f': format = optarg; break;
        case 'm': mapping = optarg; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind == 2 && strcmp(argv[optind], "stats") == 0) {
        return stats(argv[optind + 1], format, mapping, json);
    }
    if (argc - optind >= 1 && strcmp(argv[optind], "stats") != 0) {
        fprintf(stderr, "nictrace: unknown command \"%s\"\n", argv[optind]);
    }
    usage(stderr);
    return 2;
}
