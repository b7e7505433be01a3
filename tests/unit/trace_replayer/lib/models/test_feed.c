/*
 * Unit tests of trace_replayer/lib/models/feed.c on a constructed trace whose
 * sessions and pipeline groups are known exactly.
 */

#include <stdlib.h>
#include <unistd.h>

#include "lib/models/feed.c"
#include "harness.h"

/*
 * A: 0, 2, 4 s (one group of three), 10 s (a group), 30 s (a new
 * session); B: 1 s, a POST at 3 s (skipped) and a 404 at 5 s (one group
 * of two).  C: 40 s, its URL needs encoding and names a file by "./".
 */
static const char *trace_text =
    "A - - [01/Jul/1995:00:00:00 -0400] \"GET /1 HTTP/1.0\" 200 1\n"
    "B - - [01/Jul/1995:00:00:01 -0400] \"GET /2 HTTP/1.0\" 200 1\n"
    "A - - [01/Jul/1995:00:00:02 -0400] \"GET /3 HTTP/1.0\" 200 1\n"
    "B - - [01/Jul/1995:00:00:03 -0400] \"POST /4 HTTP/1.0\" 200 1\n"
    "A - - [01/Jul/1995:00:00:04 -0400] \"HEAD /5 HTTP/1.0\" 200 1\n"
    "B - - [01/Jul/1995:00:00:05 -0400] \"GET /6 HTTP/1.0\" 404 1\n"
    "A - - [01/Jul/1995:00:00:10 -0400] \"GET /7 HTTP/1.0\" 200 1\n"
    "A - - [01/Jul/1995:00:00:30 -0400] \"GET /8 HTTP/1.0\" 200 1\n"
    "C - - [01/Jul/1995:00:00:40 -0400] \"GET /a/./b|c?q HTTP/1.0\" 200 1\n";

static char path[64];

static feed_t *
open_feed(int only_ok, uint64_t shard, uint64_t shards, int no_pipeline)
{
    feed_opts_t o = {0};
    char        err[256];
    feed_t     *f;

    o.src = (trace_src_t) TRACE_SRC_INIT;
    o.src.path = path;
    o.src.format = "clf";
    o.conn_gap = 15;
    o.pipeline_gap = 5;
    o.only_ok = only_ok;
    o.shard = shard;
    o.shards = shards;
    o.no_pipeline = no_pipeline;
    f = feed_open(&o, err, sizeof(err));
    if (f == NULL) {
        fprintf(stderr, "feed_open: %s\n", err);
    }
    return f;
}

/* the next group of s as "url,url" (and its size) */
static size_t
group(feed_t *f, feed_sess_t *s, size_t max, char *out)
{
    feed_req_t *g, *q;
    size_t      n = feed_group(f, s, &g, max), len;

    out[0] = '\0';
    for (q = g; q != NULL; q = q->next) {
        const char *t = feed_target(f, q->url, &len);

        strcat(out, q == g ? "" : ",");
        strncat(out, t, len);
        if (q->method == TRACE_HEAD) {
            strcat(out, "(HEAD)");
        }
    }
    feed_free_reqs(f, g);
    return n;
}

static void
test_sessions_and_groups(void)
{
    feed_t      *f = open_feed(0, 0, 1, 0);
    feed_sess_t *a, *b, *a2, *c;
    char         g[256];

    if (f == NULL) {
        CHECK(0);
        return;
    }
    a = feed_take(f);
    CHECK_INT(feed_session_id(a), 0);
    CHECK_INT(group(f, a, 64, g), 3);
    CHECK_STR(g, "/1,/3,/5(HEAD)");
    /* read just far enough: the record at 10 s showed the group ended */
    CHECK_INT(feed_stats(f)->records, 7);
    CHECK_INT(group(f, a, 64, g), 1);
    CHECK_STR(g, "/7");
    CHECK_INT(group(f, a, 64, g), 0); /* 30 s is another session */
    feed_release(f, a);

    b = feed_take(f);
    CHECK_INT(feed_session_id(b), 1);
    CHECK_INT(group(f, b, 64, g), 2); /* the POST between is skipped */
    CHECK_STR(g, "/2,/6");
    CHECK_INT(group(f, b, 64, g), 0);
    feed_release(f, b);

    a2 = feed_take(f);
    CHECK_INT(feed_session_id(a2), 2);
    CHECK_INT(group(f, a2, 64, g), 1);
    CHECK_STR(g, "/8");
    CHECK_INT(group(f, a2, 64, g), 0);
    feed_release(f, a2);

    c = feed_take(f);
    CHECK_INT(group(f, c, 64, g), 1);
    CHECK_STR(g, "/a/./b%7Cc?q"); /* sent encoded */
    CHECK(feed_seed(f, 7) == trace_content_seed("/a/b|c", 6));
    feed_release(f, c);
    CHECK(feed_take(f) == NULL);
    CHECK_INT(feed_stats(f)->other_methods, 1);
    CHECK_INT(feed_stats(f)->kept, 8);
    CHECK_INT(feed_stats(f)->sessions, 4);
    CHECK(feed_error(f) == NULL);
    feed_close(f);
}

static void
test_options(void)
{
    feed_t      *f;
    feed_sess_t *s;
    char         g[256];

    /* a group longer than max goes in pieces */
    f = open_feed(0, 0, 1, 0);
    s = feed_take(f);
    CHECK_INT(group(f, s, 2, g), 2);
    CHECK_STR(g, "/1,/3");
    CHECK_INT(group(f, s, 2, g), 1);
    CHECK_STR(g, "/5(HEAD)");
    feed_release(f, s);
    feed_close(f);

    /* no pipelining: one at a time */
    f = open_feed(0, 0, 1, 1);
    s = feed_take(f);
    CHECK_INT(group(f, s, 64, g), 1);
    CHECK_INT(group(f, s, 64, g), 1);
    CHECK_INT(group(f, s, 64, g), 1);
    CHECK_INT(group(f, s, 64, g), 1);
    CHECK_INT(group(f, s, 64, g), 0);
    feed_release(f, s);
    feed_close(f);

    /* only ok: B's 404 goes */
    f = open_feed(1, 1, 2, 0); /* and shard 1 of 2: sessions 1 and 3 */
    s = feed_take(f);
    CHECK_INT(feed_session_id(s), 1);
    CHECK_INT(group(f, s, 64, g), 1);
    CHECK_STR(g, "/2");
    feed_release(f, s);
    s = feed_take(f);
    CHECK_INT(feed_session_id(s), 3);
    feed_release(f, s); /* released before it was read: no leak */
    CHECK(feed_take(f) == NULL);
    CHECK_INT(feed_stats(f)->not_ok, 1);
    CHECK_INT(feed_stats(f)->other_shards, 5);
    feed_close(f);

    /* closed with sessions still queued and open: no leak (ASan) */
    f = open_feed(0, 0, 1, 0);
    s = feed_take(f);
    CHECK_INT(group(f, s, 64, g), 3);
    feed_release(f, s); /* a taken session is the caller's to release */
    feed_close(f);
}

int
main(void)
{
    int fd;

    snprintf(path, sizeof(path), "/tmp/test_feed.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0 || write(fd, trace_text, strlen(trace_text))
                      != (ssize_t) strlen(trace_text)) {
        return 1;
    }
    close(fd);
    RUN(test_sessions_and_groups);
    RUN(test_options);
    unlink(path);
    return harness_report("feed");
}
