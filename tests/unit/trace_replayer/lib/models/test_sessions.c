/*
 * Unit tests of trace_replayer/lib/models/sessions.c on a constructed trace whose
 * connections are known exactly.
 */

#include "lib/models/sessions.c"
#include "harness.h"

static void
test_grouping(void)
{
    /* client, time -> connection, opened, grouped (joins the pipeline
     * group of its connection's previous request: less than 5 s) */
    static const struct {
        uint64_t client;
        int64_t  time;
        uint64_t conn;
        int      opened, grouped;
    } t[] = {
        {1, 100, 0, 1, 0}, /* A opens 0 */
        {2, 101, 1, 1, 0}, /* B opens 1 */
        {1, 110, 0, 0, 0}, /* A 10 s later: same connection, new group */
        {1, 124, 0, 0, 0}, /* 14 s after its previous: same, new group */
        {2, 116, 2, 1, 0}, /* B 15 s after its previous: not less, new */
        {1, 140, 3, 1, 0}, /* A 16 s after 124: new */
        {3, 140, 4, 1, 0}, /* C */
        {1, 140, 3, 0, 1}, /* A at once: pipelined */
        {1, 142, 3, 0, 1}, /* 2 s: pipelined */
        {1, 146, 3, 0, 1}, /* 4 s after 142: pipelined, depth 4 */
    };
    trace_sessions_t      *s = trace_sessions_new(15, 5);
    trace_sessions_stats_t st;
    trace_req_t            r;
    size_t                 i;
    int                    opened, grouped;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        r.client = t[i].client;
        r.time = t[i].time;
        CHECK_INT(trace_session(s, &r, &opened, &grouped), t[i].conn);
        CHECK_INT(opened, t[i].opened);
        CHECK_INT(grouped, t[i].grouped);
    }
    /* connections 0: 3 requests in 3 groups; 1, 2, 4: one each; 3: one
     * group of 4 */
    trace_sessions_stats(s, &st);
    CHECK_INT(st.connections, 5);
    CHECK_INT(st.requests, 10);
    CHECK_INT(st.max_per_connection, 4);
    CHECK_INT(st.groups, 7);
    CHECK_INT(st.max_depth, 4);
    CHECK_INT(st.depth_hist[0], 6); /* depth 1 */
    CHECK_INT(st.depth_hist[1], 0); /* 2 */
    CHECK_INT(st.depth_hist[2], 1); /* 3-4 */
    trace_sessions_free(s);
}

/* many clients: the table grows and keeps every client's connection */
static void
test_many_clients(void)
{
    trace_sessions_t *s = trace_sessions_new(15, 5);
    trace_req_t       r;
    uint64_t          c;
    int               opened, grouped, bad = 0;

    for (c = 0; c < 5000; c++) {
        r.client = c * 7919;
        r.time = 0;
        bad += trace_session(s, &r, &opened, &grouped) != c || !opened;
    }
    for (c = 0; c < 5000; c++) {
        r.client = c * 7919;
        r.time = 5;
        bad += trace_session(s, &r, &opened, &grouped) != c || opened
               || grouped != 0;
    }
    CHECK_INT(bad, 0);
    trace_sessions_free(s);
}

/*
 * 200,000 clients, 100 a second, each twice 10 s apart: every one keeps
 * its connection, and the table holds those of the last 15 s, not all.
 */
static void
test_idle_clients_dropped(void)
{
    trace_sessions_t      *s = trace_sessions_new(15, 5);
    trace_sessions_stats_t st;
    trace_req_t            r;
    uint64_t               c, conn[1000];
    int                    opened, grouped, bad = 0;

    memset(&r, 0, sizeof(r));
    for (c = 0; c < 200000 + 1000; c++) {
        if (c >= 1000) { /* the client of 10 s ago, again */
            r.client = (c - 1000) * 7919 + 1;
            r.time = (int64_t) (c / 100);
            bad += trace_session(s, &r, &opened, &grouped)
                       != conn[c % 1000]
                   || opened;
        }
        if (c < 200000) {
            r.client = c * 7919 + 1;
            r.time = (int64_t) (c / 100);
            conn[c % 1000] = trace_session(s, &r, &opened, &grouped);
            bad += conn[c % 1000] != c || !opened;
        }
    }
    CHECK_INT(bad, 0);
    CHECK(s->cap <= 16384);
    trace_sessions_stats(s, &st);
    CHECK_INT(st.connections, 200000);
    CHECK_INT(st.requests, 400000);
    CHECK_INT(st.groups, 400000); /* 10 s apart: not pipelined */
    CHECK_INT(st.max_per_connection, 2);
    trace_sessions_free(s);
}

int
main(void)
{
    RUN(test_grouping);
    RUN(test_many_clients);
    RUN(test_idle_clients_dropped);
    return harness_report("test_sessions");
}
