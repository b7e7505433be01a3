/*
 * A nicd worker driven by hand, its connections one end of a socket pair
 * (h2o's t/00unit loopback connection): the request path tested without a
 * server process, a port or a thread.  The unit tests and the connection
 * fuzz target share it.
 *
 *   loopback_cycle()    a configuration read from text, made the cycle of
 *                       a worker with its own event loop
 *   loopback_turns()    bytes fed to a connection as the socket takes
 *                       them, the loop run between, what nicd answers
 *                       collected, until the connection closes
 *   loopback_request()  the same for one request from a fresh connection
 */

#ifndef NICD_TESTS_LOOPBACK_H
#define NICD_TESTS_LOOPBACK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config.h"
#include "server/http/handler.h"
#include "server/http/http.h"
#include "server/http/http2.h"
#include "server/core/nicd.h"
#include "server/modules/modules.h"
#include "server/core/roots.h"

#define LOOPBACK_TURNS 10000 /* loop turns before a connection is stuck */
/* what a file including this header does not call is no warning */
#define LOOPBACK_API __attribute__((unused)) static

/*
 * dir/name made with text (len bytes; text NULL: len bytes of the letters
 * a..z over and over), or abort(): a test's docroot.
 */
LOOPBACK_API void
loopback_put(const char *dir, const char *name, const char *text, size_t len)
{
    char   path[512];
    FILE  *f;
    size_t i;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    for (i = 0; f != NULL && i < len; i++) {
        fputc(text != NULL ? text[i] : 'a' + (int) (i % 26), f);
    }
    if (f == NULL || fclose(f) != 0) {
        abort();
    }
}

/*
 * The configuration text (nginx syntax, at the top level) made the cycle
 * cy of worker w, with send backend backend: 0, or -1 with err.
 */
LOOPBACK_API int
loopback_cycle(nicd_cycle_t *cy, nicd_worker_t *w, const char *text,
               const char *backend, char *err, size_t errlen)
{
    nicd_conf_t   *cf;
    snic_options_t opt;

    nicd_modules_init(); /* their hooks into the phases */
    cf = nicd_conf_new(nicd_modules);
    if (cf == NULL || nicd_conf_parse_string(cf, text, "loopback", err, errlen)
        || nicd_conf_finish(cf, err, errlen)) {
        return -1;
    }
    memset(cy, 0, sizeof(*cy));
    cy->conf = cf;
    memset(&opt, 0, sizeof(opt));
    opt.max_chunk = cf->sendfile_max_chunk;
    opt.params = cf->params;
    opt.nparams = strcmp(backend, "nic") == 0 ? cf->nparams : 0;
    if (nicd_conf_open_roots(cf, err, errlen) != 0
        || snic_instance_start(&cy->backend, snic_backend_find(backend), &opt,
                               err, errlen)
               != 0) {
        return -1;
    }
    if (cf->nssl > 0 && (cy->tls = nicd_tls_ctx_new(cf, err, errlen)) == NULL) {
        return -1;
    }
    cy->nworkers = cy->alive = 1;
    cy->http1 = &nicd_http1_conn;
    cy->http2 = &nicd_http2_conn;

    memset(w, 0, sizeof(*w));
    w->cycle = cy;
    nicd_worker_setup(w);
    w->stats = &w->own_stats; /* counters nobody reads here */
    w->accepting = 1;         /* no listeners to enable */
    /* the configuration's loop (NICD_EVENTS: the unit tests on another) */
    w->loop = nicd_loop_new(cf->event_loop, cf->event_method, 0, err, errlen);
    if (w->loop == NULL || nicd_ofc_init(&w->ofc, cf) != 0) {
        if (w->loop != NULL) {
            snprintf(err, errlen, "the open file cache");
        }
        return -1; /* no access log: w->nlogs is 0 */
    }
    w->tv_header = w->tv_send = w->tv_linger =
        nicd_loop_common_tv(w->loop, 60000);
    return 0;
}

/*
 * Feed in (len bytes) to the client's end fd of a connection of w as the
 * socket takes it, running w's loop between; once it is all in and nicd
 * has nothing more to say, end the client's side.  What nicd writes is
 * appended to out (NULL: dropped).  Returns the bytes nicd wrote; *open:
 * 1 when the connection was still open after LOOPBACK_TURNS turns.
 */
LOOPBACK_API size_t
loopback_turns(nicd_worker_t *w, int fd, const char *in, size_t len,
               nicd_buf_t *out, int *open)
{
    char    buf[65536];
    size_t  off = 0, answered = 0;
    ssize_t n;
    int     turns, ended = 0, quiet;

    for (turns = 0; w->nconns > 0 && turns < LOOPBACK_TURNS; turns++) {
        if (off < len) {
            n = send(fd, in + off, len - off, MSG_NOSIGNAL);
            if (n > 0) {
                off += (size_t) n;
            }
        }
        nicd_loop_turn(w->loop);
        quiet = 1;
        while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
            answered += (size_t) n;
            quiet = 0;
            if (out != NULL) {
                nicd_buf_add(out, buf, (size_t) n);
            }
        }
        if (off == len && quiet && !ended) {
            shutdown(fd, SHUT_WR);
            ended = 1;
        }
    }
    *open = w->nconns > 0;
    return answered;
}

/*
 * One request (its bytes as sent) to a fresh connection of w on listener
 * li; what nicd answered into out (cleared first, NUL after it).  0, or
 * -1 when the connection did not end.
 */
LOOPBACK_API int
loopback_request(nicd_worker_t *w, int li, const char *req, nicd_buf_t *out)
{
    struct sockaddr sa;
    int             sv[2], open;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv)
        != 0) {
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_family = AF_UNIX;
    nicd_conn_accept(w, sv[1], li, &sa);
    out->len = 0;
    (void) loopback_turns(w, sv[0], req, strlen(req), out, &open);
    close(sv[0]);
    nicd_buf_add(out, "", 1);
    out->len--;
    return open || nicd_buf_failed(out) ? -1 : 0;
}

#endif /* NICD_TESTS_LOOPBACK_H */
