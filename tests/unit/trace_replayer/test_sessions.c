/*
 * Unit tests of trace_replayer/sessions.c on a constructed trace whose
 * connections are known exactly.
 */

#include "../../../trace_replayer/sessions.c"
#include "harness.h"

static void
test_grouping(void)
{
    /* client, time -> expected connection, opened */
    static const struct {
        uint64_t client;
        int64_t  time;
        uint64_t conn;
        int      opened;
    } t[] = {
        {1, 100, 0, 1},  /* A opens 0 */
        {2, 101, 1, 1},  /* B opens 1 */
        {1, 110, 0, 0},  /* A 10 s later: same */
        {1, 124, 0, 0},  /* 14 s after its previous: same */
        {2, 116, 2, 1},  /* B 15 s after its previous: not less, new */
        {1, 140, 3, 1},  /* A 16 s after 124: new */
        {3, 140, 4, 1},  /* C */
        {1, 140, 3, 0},  /* A again at once */
    };
    trace_sessions_t *s = trace_sessions_new(15);
    trace_req_t       r;
    size_t            i;
    int               opened;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        r.client = t[i].client;
        r.time = t[i].time;
        CHECK_INT(trace_session(s, &r, &opened), t[i].conn);
        CHECK_INT(opened, t[i].opened);
    }
    trace_sessions_free(s);
}

/* many clients: the table grows and keeps every client's connection */
static void
test_many_clients(void)
{
    trace_sessions_t *s = trace_sessions_new(15);
    trace_req_t       r;
    uint64_t          c;
    int               opened, bad = 0;

    for (c = 0; c < 5000; c++) {
        r.client = c * 7919;
        r.time = 0;
        bad += trace_session(s, &r, &opened) != c || !opened;
    }
    for (c = 0; c < 5000; c++) {
        r.client = c * 7919;
        r.time = 5;
        bad += trace_session(s, &r, &opened) != c || opened;
    }
    CHECK_INT(bad, 0);
    trace_sessions_free(s);
}

int
main(void)
{
    RUN(test_grouping);
    RUN(test_many_clients);
    return harness_report("test_sessions");
}
