/*
 * niccompare's live runs (niccompare.h): nicd started on the docroot for
 * each configuration, nicreplay against it, the server's counters read;
 * the server's process is stopped on every way out.
 */

#include "niccompare/niccompare.h"

/* ---- one live run ---- */

/*
 * NIC k listens on 127.0.0.(k + 1): distinct addresses, so every listener
 * can take a free port (port 0) of its own.  Wait for nicd to report them
 * in its error log; their ports into ports[].
 */
static int
wait_ports(const char *log, const char *errs, pid_t pid, int *ports, int n,
           char *why, size_t whylen)
{
    double deadline = nicache_now_s() + 20;
    int    st;

    for (;;) {
        size_t      len, elen;
        char       *buf = niccompare_slurp(log, &len), *p, *ebuf;
        int         k, found = 0;
        const char *last = NULL;

        for (k = 0; k < n; k++) {
            char want[64];

            snprintf(want, sizeof(want),
                     "listening on http://127.0.0.%d:", k + 1);
            p = buf != NULL ? strstr(buf, want) : NULL;
            if (p != NULL) {
                ports[k] = atoi(p + strlen(want));
                found++;
            }
        }
        if (found == n) {
            free(buf);
            return 0;
        }
        if (waitpid(pid, &st, WNOHANG) == pid) {
            niccompare_server_is(-1);
            /* the last "[emerg]" line (of the log, or of its stderr, for
             * what went wrong before the log was open) says why */
            ebuf = niccompare_slurp(errs, &elen);
            for (p = ebuf; p != NULL && (p = strstr(p, "[emerg]")) != NULL;
                 p++) {
                last = p;
            }
            for (p = buf; p != NULL && (p = strstr(p, "[emerg]")) != NULL;
                 p++) {
                last = p;
            }
            if (last != NULL) {
                snprintf(why, whylen, "%.*s", (int) strcspn(last, "\n"), last);
            } else {
                snprintf(why, whylen, "exited (status %d)",
                         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            }
            free(buf);
            free(ebuf);
            return -1;
        }
        free(buf);
        if (nicache_now_s() > deadline) {
            snprintf(why, whylen, "did not report its ports in 20 s");
            return -1;
        }
        usleep(20000); /* polling the log file for the line */
    }
}

/* GET path from 127.0.0.host:port over HTTP/1.1; the body, or NULL */
static char *
http_get(int host, int port, const char *path, size_t *blen)
{
    struct sockaddr_in sa;
    char              *body = NULL;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t) port);
    sa.sin_addr.s_addr = htonl(0x7f000000u | (uint32_t) host);
    if (hclient_fetch((struct sockaddr *) &sa, sizeof(sa), NULL, "localhost",
                      "GET", path, 30, &body, blen, NULL)
        != 200) {
        free(body);
        return NULL;
    }
    return body;
}

void
niccompare_live(cmp_t *cp, run_t *r, int index, int total, double eta)
{
    char  conf[PATH_MAX], log[PATH_MAX], out[PATH_MAX], why[512];
    char  errs[PATH_MAX];
    char  urls[MAX_NICS][64], conns[16], dur[32], size[24];
    char *argv[30 + MAX_NICS], *body, err[256];
    int   ports[MAX_NICS + 1], i, k = 0, rc;
    /* the counters come over HTTP/1.1: from NIC 0's listener, or with
     * --http2 (its listeners speak only h2c) one of their own */
    int           status_host = cp->o.http2 ? cp->o.nics + 1 : 1;
    int           status_port;
    FILE         *f;
    pid_t         pid;
    size_t        blen;
    json_t       *v;
    const json_t *t;

    niccompare_human(r->cache, size, sizeof(size));
    if (!cp->o.quiet) {
        fprintf(stderr, "niccompare: [%d/%d] %s, %d x %s: replaying%s", index,
                total, r->testbed, cp->o.nics, size, eta > 0 ? " (ETA " : "");
        if (eta > 0) {
            fprintf(stderr, "%dm%02ds)", (int) eta / 60, (int) eta % 60);
        }
        fputc('\n', stderr);
    }
    snprintf(conf, sizeof(conf), "%s/nicd.conf", cp->o.workdir);
    snprintf(log, sizeof(log), "%s/nicd-error.log", cp->o.workdir);
    snprintf(errs, sizeof(errs), "%s/nicd-stderr.log", cp->o.workdir);
    f = fopen(conf, "w");
    if (f == NULL) {
        niccompare_die("%s: %s", conf, strerror(errno));
    }
    fprintf(f,
            "# written by niccompare: %s, %d NICs of %llu bytes\n"
            "worker_threads %d;\nerror_log %s notice;\naccess_log off;\n"
            "root %s;\nopen_file_cache max=65536 valid=3600s;\n"
            "keepalive_requests 1000000;\n"
            "send_backend nic;\nnic_count %d;\nnic_cache_size %llu;\n"
            "nic_policy %s;\nnic_testbed %s;\nnic_bus_limit on;\n"
            "location = /nic-status { nic_status; }\n",
            r->testbed, cp->o.nics, (unsigned long long) r->cache,
            cp->o.threads, log, cp->docroot, cp->o.nics,
            (unsigned long long) r->cache, cp->o.policy, r->testbed);
    for (i = 0; i < cp->o.nics; i++) {
        fprintf(f, "listen 127.0.0.%d:%d nic=%d%s;\n", i + 1,
                cp->o.port ? cp->o.port + i : 0, i,
                cp->o.http2 ? " http2" : "");
    }
    if (cp->o.http2) {
        fprintf(f, "listen 127.0.0.%d:%d;\n", status_host,
                cp->o.port ? cp->o.port + cp->o.nics : 0);
    }
    if (fclose(f) != 0) {
        niccompare_die("%s: %s", conf, strerror(errno));
    }
    unlink(log);

    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        niccompare_die("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        int ef = open(errs, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd >= 0 && ef >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(ef, 2);
        }
        execlp(niccompare_tool(cp, "nicd"), "nicd", "-c", conf, (char *) NULL);
        _exit(127);
    }
    niccompare_server_is(pid);
    if (wait_ports(log, errs, pid, ports, cp->o.nics + cp->o.http2, why,
                   sizeof(why))
        != 0) {
        niccompare_die("nicd did not start (%s): %s", conf, why);
    }
    for (i = 0; i < cp->o.nics; i++) {
        snprintf(urls[i], sizeof(urls[i]), "http://127.0.0.%d:%d/", i + 1,
                 ports[i]);
    }
    status_port = ports[status_host - 1];
    /* the counters and the utilisation clock start with the replay */
    body = http_get(status_host, status_port, "/nic-status?reset", &blen);
    if (body == NULL) {
        niccompare_die("no counters from http://127.0.0.%d:%d/nic-status",
                       status_host, status_port);
    }
    free(body);
    snprintf(out, sizeof(out), "%s/nicreplay.json", cp->o.workdir);
    snprintf(conns, sizeof(conns), "%d", cp->o.conns);
    argv[k++] = (char *) niccompare_tool(cp, "nicreplay");
    argv[k++] = "--as-logged";
    if (cp->o.http2) {
        argv[k++] = "--http2"; /* every session's requests as streams */
    }
    argv[k++] = "--verify";
    argv[k++] = "--docroot";
    argv[k++] = cp->docroot;
    argv[k++] = "-c";
    argv[k++] = conns;
    argv[k++] = "--json";
    argv[k++] = out;
    if (cp->o.duration > 0) {
        snprintf(dur, sizeof(dur), "%g", cp->o.duration);
        argv[k++] = "--duration";
        argv[k++] = dur;
    }
    k = niccompare_trace_args(cp, argv, k);
    if (cp->o.quiet || !isatty(2)) {
        argv[k++] = "-q";
    }
    argv[k++] = (char *) cp->o.trace;
    for (i = 0; i < cp->o.nics; i++) {
        argv[k++] = urls[i];
    }
    argv[k] = NULL;
    rc = niccompare_run(argv, "/dev/null", NULL);
    if (rc != 0) {
        niccompare_die("nicreplay failed (exit %d) against %s", rc, conf);
    }
    body = http_get(status_host, status_port, "/nic-status", &blen);
    if (body == NULL) {
        niccompare_die("no counters from http://127.0.0.%d:%d/nic-status",
                       status_host, status_port);
    }
    niccompare_stop_server();

    v = json_parse(body, blen, err, sizeof(err));
    free(body);
    if (v == NULL || (t = json_get(v, "total")) == NULL) {
        niccompare_die("the server's counters did not parse: %s", err);
    }
    r->responses = (uint64_t) niccompare_num(t, "responses");
    r->content = (uint64_t) niccompare_num(t, "content_bytes");
    r->saved = (uint64_t) niccompare_num(t, "saved_bytes");
    r->live_share = niccompare_num(t, "saved_share");
    r->bus_util = niccompare_num(t, "bus_utilisation");
    r->host_util = niccompare_num(t, "host_utilisation");
    r->mem_util = niccompare_num(t, "mem_utilisation");
    r->dram = (uint64_t) niccompare_num(t, "dram_bytes");
    r->mem_bw = niccompare_num(json_get(v, "memory"), "bw_bytes_per_s");
    r->line_gbps = niccompare_num(v, "line_gbps");
    r->bus_bw = niccompare_num(v, "bus_bytes_per_s");
    r->bus_max_util = niccompare_num(v, "bus_max_utilisation");
    for (i = 0; i < SNIC_BUS_NCAT; i++) {
        r->bus[i] = (uint64_t) niccompare_num(json_get(t, "bus_bytes"),
                                              snic_bus_category[i]);
    }
    {
        const json_t *lb = json_get(v, "limited_by");

        snprintf(r->limited_by, sizeof(r->limited_by), "%s",
                 lb != NULL && lb->type == JSON_STRING ? lb->string : "?");
    }
    r->bus_over = niccompare_num(v, "bus_over_limit") != 0;
    r->host_over = niccompare_num(v, "host_over_limit") != 0;
    r->mem_over = niccompare_num(v, "mem_over_limit") != 0;
    json_free(v);

    v = niccompare_read_json(out, "nicreplay");
    r->seconds = niccompare_num(v, "duration_s");
    r->requests = (uint64_t) niccompare_num(v, "requests");
    r->rps = niccompare_num(v, "requests_per_s");
    r->mbps = niccompare_num(v, "content_mbps");
    r->mismatches = (uint64_t) niccompare_num(v, "mismatches");
    r->failed = (uint64_t) niccompare_num(v, "failed");
    {
        const json_t *e = json_get(v, "errors"), *c;

        for (c = e != NULL ? e->child : NULL; c != NULL; c = c->next) {
            r->errors += (uint64_t) c->number;
        }
    }
    json_free(v);
}
