/*
 * nicreplay: replays a Web access log against an HTTP/1.1 server with
 * infinite demand, as Kim, Rixner and Pai did (section 5.2): the trace is
 * cut into sessions (a client's persistent connection) and pipeline groups
 * (feed.c), and -c users each take the next session in trace order, open a
 * connection, write each group's requests back to back, read their
 * responses, and close the connection at the session's end.
 *
 * One thread, one epoll set, non-blocking sockets; a user is a small state
 * machine (waiting for its time, a group under way, done) over one
 * connection of hclient.c, which writes the group and reads its responses
 * with hresp.c (nicload shares it); with --verify every body byte of a 200 or 206 is
 * checked against the docroot generator (content.c).  Several processes
 * share a trace with --shard i/n, and "nicreplay merge" adds their --json
 * results up.
 */

#include "nicreplay/nicreplay.h"

static int
parse_url(replay_t *rp, const char *url, const char *host_override, int i)
{
    static char hdrs[MAX_SERVERS][300];
    char        err[512], name[256];
    int tls = hclient_parse_url(url, &rp->cf.addr[i], hdrs[i], sizeof(hdrs[i]),
                                name, sizeof(name), err, sizeof(err));

    if (tls < 0
        || (tls
            && (rp->cf.tls[i] =
                    hclient_tls_new(name, rp->cf.insecure, rp->cf.cacert,
                                    rp->cf.http2, err, sizeof(err)))
                   == NULL)) {
        fprintf(stderr, "nicreplay: %s\n", err);
        return -1;
    }
    rp->cf.host_header[i] = host_override != NULL ? host_override : hdrs[i];
    return 0;
}

/*
 * The targets, the feed and every output, before the run: 0, or the exit
 * status after saying why (what was opened is closed by finish()).
 */
static int
start(replay_t *rp, nicreplay_opts_t *o)
{
    char err[512];

    for (rp->cf.nservers = 0; rp->cf.nservers < o->nurls; rp->cf.nservers++) {
        if (parse_url(rp, o->urls[rp->cf.nservers], o->host, rp->cf.nservers)
            != 0) {
            return 2;
        }
    }
    o->fo.src.path = o->trace;
    rp->feed = feed_open(&o->fo, err, sizeof(err));
    if (rp->feed == NULL) {
        fprintf(stderr, "nicreplay: %s\n", err);
        return 1;
    }
    if ((o->by_url > 0 || o->by_size != BY_SIZE_NONE)
        && (rp->bd = breakdown_new(o->by_url, o->by_size)) == NULL) {
        fprintf(stderr, "nicreplay: out of memory\n");
        return 1;
    }
    /* --hdr's header, with the start time, is written when the replay
     * begins (replay.c) */
    if (rp->cf.hdr != NULL
        && (rp->hdr_file = cli_open_out("nicreplay", rp->cf.hdr)) == NULL) {
        return 1;
    }
    if (o->log != NULL
        && (rp->cf.log = cli_open_out("nicreplay", o->log)) == NULL) {
        return 1;
    }
    if ((o->csv != NULL
         && (rp->csv_file = cli_open_out("nicreplay", o->csv)) == NULL)
        || (o->csv_seconds != NULL
            && (rp->csv_sec_file = cli_open_out("nicreplay", o->csv_seconds))
                   == NULL)) {
        return 1;
    }
    if (rp->csv_file != NULL) {
        fputs("session,method,target,status,body_bytes,latency_us,"
              "intended_us,sent_us,error\n",
              rp->csv_file);
    }
    if (rp->csv_sec_file != NULL) {
        fputs("start_s,length_s,answered,failed,body_bytes,p50_us,p90_us,"
              "p99_us,max_us\n",
              rp->csv_sec_file);
    }
    return 0;
}

/* After the run: the summary, --json, and the failure said everywhere;
 * the exit status. */
static int
report(replay_t *rp, nicreplay_opts_t *o, int rc)
{
    const feed_stats_t *fs = feed_stats(rp->feed);
    uint64_t            bad = trace_bad_count(feed_reader(rp->feed));
    char                why[512];
    const char         *failure;

    if (feed_error(rp->feed) != NULL) {
        fprintf(stderr, "nicreplay: %s: %s\n", o->trace, feed_error(rp->feed));
        rc = 1;
    }
    failure = nicache_stopping() || feed_error(rp->feed) != NULL
                  ? NULL
                  : nicreplay_failure(rp, &rp->res, fs, why, sizeof(why));
    if (!o->on_stdout) {
        nicreplay_print_summary(&rp->res, failure, stdout);
        printf("  trace        %llu records, %llu replayable; skipped: "
               "%llu other methods, %llu not ok, %llu other shards; "
               "%llu lines did not parse\n",
               (unsigned long long) fs->records, (unsigned long long) fs->kept,
               (unsigned long long) fs->other_methods,
               (unsigned long long) fs->not_ok,
               (unsigned long long) fs->other_shards, (unsigned long long) bad);
        if (rp->bd != NULL) {
            breakdown_print(rp->bd, rp->feed, rp->res.elapsed, stdout);
        }
    }
    if (o->json != NULL
        && nicreplay_write_json(rp, &rp->res, fs, rp->bd, failure, o->json)
               != 0) {
        rc = 1;
    }
    if (failure != NULL) {
        /* the partial outputs say so too */
        if (rp->cf.log != NULL) {
            fprintf(rp->cf.log, "# run failed: %s\n", failure);
        }
        if (rp->hdr_file != NULL) {
            fprintf(rp->hdr_file, "#[run failed: %s]\n", failure);
        }
        fprintf(stderr, "nicreplay: failed: %s\n", failure);
        rc = 1;
    }
    return rc;
}

/* every way out after the options comes here: the exit status */
static int
finish(replay_t *rp, nicreplay_opts_t *o, int rc)
{
    int i;

    if (cli_close_out("nicreplay", o->log, rp->cf.log) != 0
        || cli_close_out("nicreplay", rp->cf.hdr, rp->hdr_file) != 0
        || cli_close_out("nicreplay", o->csv, rp->csv_file) != 0
        || cli_close_out("nicreplay", o->csv_seconds, rp->csv_sec_file) != 0) {
        rc = 1;
    }
    breakdown_free(rp->bd);
    if (rp->feed != NULL) {
        feed_close(rp->feed);
    }
    for (i = 0; i <= rp->cf.nservers && i < MAX_SERVERS; i++) {
        freeaddrinfo(rp->cf.addr[i]);
        hclient_tls_free(rp->cf.tls[i]);
    }
    return nicache_stopping() && rc == 0 ? 130 : rc;
}

int
main(int argc, char **argv)
{
    nicreplay_opts_t o;
    replay_t         run;
    int              rc;

    if (argc > 1 && strcmp(argv[1], "merge") == 0) {
        return nicreplay_merge_main(argc - 2, argv + 2);
    }
    if ((rc = nicreplay_options(&run, &o, argc, argv)) >= 0) {
        return rc;
    }
    if ((rc = start(&run, &o)) == 0) {
        nicache_catch_stop();
        rc = report(&run, &o, nicreplay_run(&run) == 0 ? 0 : 1);
    }
    return finish(&run, &o, rc);
}
