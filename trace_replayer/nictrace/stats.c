/*
 * nictrace stats (nictrace.h): Table 1's figures of a trace.
 */

#include "nictrace.h"

int
nictrace_stats(const trace_src_t *src, int json)
{
    char               a[32], b[32];
    scan_t             sc;
    const trace_bad_t *bad;
    double             avg;
    int                i, nbad;

    if (nictrace_scan(src, NULL, 0, &sc) != 0) {
        return 1;
    }
    avg = sc.requests > 0 ? (double) sc.bytes / (double) sc.requests : 0;
    bad = trace_bad_first(sc.reader, &nbad);
    if (json) {
        printf("{\"trace\": ");
        nictrace_json_string(src->path);
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
               nictrace_thousands(sc.bytes, a), (double) sc.bytes / 1e6);
        printf("%-22s %.0f B\n", "average response size", avg);
        printf("%-22s %s B (%.1f MB)\n", "data set size",
               nictrace_thousands(trace_files_bytes(sc.files), b),
               (double) trace_files_bytes(sc.files) / 1e6);
        printf("%-22s %s\n", "total requests",
               nictrace_thousands(sc.requests, a));
        printf("%-22s %s\n", "distinct files",
               nictrace_thousands(trace_files_count(sc.files), a));
        printf("%-22s %s\n", "parse errors",
               nictrace_thousands(trace_bad_count(sc.reader), a));
        printf("%-22s %s (later than the reorder window: clamped)\n",
               "late records",
               nictrace_thousands(trace_late_count(sc.reader), a));
        for (i = 0; i < nbad; i++) {
            printf("  line %llu: %s\n", (unsigned long long) bad[i].line,
                   trace_err_str(bad[i].err));
        }
    }
    i = nictrace_no_records(src->path, sc.requests, sc.reader);
    nictrace_scan_free(&sc);
    return i;
}
