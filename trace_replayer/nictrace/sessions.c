/*
 * nictrace sessions (nictrace.h): the paper's connections and pipeline
 * groups of a trace.
 */

#include "nictrace/nictrace.h"

int
nictrace_sessions(const trace_src_t *src, long conn_gap, long pipe_gap,
                  int json)
{
    static const char *const buckets[] = {"1",    "2",     "3-4", "5-8",
                                          "9-16", "17-32", ">32"};
    trace_sessions_t        *g = trace_sessions_new(conn_gap, pipe_gap);
    trace_sessions_stats_t   st;
    scan_t                   sc;
    char                     a[32];
    int                      i;

    if (g == NULL || nictrace_scan(src, g, 0, &sc) != 0) {
        trace_sessions_free(g);
        return 1;
    }
    if (nictrace_no_records(src->path, sc.requests, sc.reader) != 0
        || nictrace_late(src->path, sc.reader) != 0) {
        trace_sessions_free(g);
        nictrace_scan_free(&sc);
        return 1;
    }
    trace_sessions_stats(g, &st);
    if (json) {
        printf("{\"trace\": ");
        nictrace_json_string(src->path);
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
        printf("%-26s %s\n", "requests", nictrace_thousands(st.requests, a));
        printf("%-26s %s\n", "connections",
               nictrace_thousands(st.connections, a));
        printf("%-26s %.2f (max %llu)\n", "requests per connection",
               st.connections ? (double) st.requests / st.connections : 0,
               (unsigned long long) st.max_per_connection);
        printf("%-26s %s\n", "pipeline groups",
               nictrace_thousands(st.groups, a));
        printf("%-26s %.2f (max %llu)\n", "pipeline depth",
               st.groups ? (double) st.requests / st.groups : 0,
               (unsigned long long) st.max_depth);
        for (i = 0; i < 7; i++) {
            printf("  groups of %-5s %s\n", buckets[i],
                   nictrace_thousands(st.depth_hist[i], a));
        }
    }
    trace_sessions_free(g);
    nictrace_scan_free(&sc);
    return 0;
}
