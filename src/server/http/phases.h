/*
 * The phases of a request, as nginx's phase engine
 * (ngx_http_core_module.c): a module adds its handlers to the phases it
 * works in, in its postconfiguration, where the configuration uses it;
 * the engine (phases.c) runs each phase's handlers in the order they were
 * added, for the location at hand:
 *
 *   server rewrite   the server's own rules, before a location is found
 *   find location    (the engine: "=", longest prefix, regexes)
 *   rewrite          the location's rules; a changed URI finds a location
 *                    again
 *   preaccess        limits
 *   access           allow/deny, auth_basic
 *   precontent       try_files
 *   content          the location's own handler when it names one (a
 *                    report, Lua), else these (files)
 *
 * An internal redirect (rewrite last, try_files' last item, error_page,
 * a named location) starts again at "find location"; more than
 * internal_redirects of them (10, as nginx) is a 500 and a log line.
 */

#ifndef NICD_PHASES_H
#define NICD_PHASES_H

#include "server/http/handler.h"
#include "server/http/lookup.h" /* nicd_conf_any_level */

enum {
    NICD_PHASE_POST_READ = 0, /* once a request, in its server (realip) */
    NICD_PHASE_SERVER_REWRITE,
    NICD_PHASE_REWRITE,
    NICD_PHASE_PREACCESS,
    NICD_PHASE_ACCESS,
    NICD_PHASE_PRECONTENT,
    NICD_PHASE_CONTENT,
    NICD_NPHASES
};

/* what a phase handler returns (a new URI: given by nicd_phase_uri) */
enum {
    NICD_DECLINED = 0, /* nothing to do here: the next handler */
    NICD_DONE,         /* answered (or redirected): the request is over */
    NICD_URI_AGAIN,    /* the URI changed (to w->uri): find a location for
                          it again (rewrite's "last") */
    NICD_URI_STAY      /* the URI changed (to w->uri) and stays in this
                          location: the next phase (rewrite's "break",
                          try_files' file) */
};

/*
 * A phase handler: the request r in location lc, its URI at hand uri
 * (len bytes, normalised, NUL-terminated).  It answers (NICD_DONE) with
 * the nicd_resp_*() and nicd_respond_*() calls, or declines.
 */
typedef int (*nicd_phase_pt)(nicd_conn_t *c, const nicd_request_t *r,
                             const nicd_loc_conf_t *lc, const char *uri,
                             size_t len);

/*
 * h joins phase (NICD_PHASE_*) of configuration c, after those already
 * there: a module's postconfiguration adds its handlers where the
 * configuration uses it, as nginx's do, so a request walks no handler
 * that has nothing to do.  NULL, or a message.
 */
const char *nicd_phase_add(nicd_conf_t *c, int phase, nicd_phase_pt h);

/*
 * An error page handler (error_page): the page of the request at hand's
 * location for status, answered instead of the built-in one (an internal
 * redirect or a redirect): 1, or 0 (none here).  The handlers are the
 * configuration's, added by a module's postconfiguration where the
 * configuration uses it (nicd_error_page_add: NULL, or a message), asked
 * in that order until one answers (nicd_error_page: 1 when one did).
 */
typedef int (*nicd_error_page_pt)(nicd_conn_t *c, int status, int head);
const char *nicd_error_page_add(nicd_conf_t *c, nicd_error_page_pt h);
int         nicd_error_page(nicd_conn_t *c, int status, int head);

/*
 * The log phase (its handlers: handler.h): h joins the configuration's
 * log handlers (NULL, or a message; at most NICD_LOG_HANDLERS).
 * nicd_log_phase_select asks each which of its logs take the request at
 * hand, when its response is made: sel->any when one does.  Then
 * nicd_log_phase_records has each append its records for v to b (HTTP/1.1),
 * or nicd_log_phase_write has each write them at once (an HTTP/2 stream
 * when it closes).
 */
const char *nicd_log_handler_add(nicd_conf_t *c, const nicd_log_handler_t *h);
int         nicd_log_phase_select(nicd_conn_t *c, nicd_log_sel_t *sel);
void nicd_log_phase_records(const nicd_conn_t *c, const nicd_log_sel_t *sel,
                            const nicd_log_view_t *v, nicd_buf_t *b);
void nicd_log_phase_write(nicd_conn_t *c, const nicd_log_sel_t *sel,
                          const nicd_log_view_t *v);

/*
 * p (len bytes, any buffer but the one returned) as the URI a handler's
 * NICD_URI_AGAIN or NICD_URI_STAY gives the engine: the copy (NUL-
 * terminated), or NULL when out of memory.
 */
const char *nicd_phase_uri(nicd_conn_t *c, const char *p, size_t len);

/*
 * The phases from "find location" on in the named location nl for uri,
 * one more internal redirect (try_files' and error_page's "@name").
 */
void nicd_named_location(nicd_conn_t *c, const nicd_request_t *r,
                         const char *uri, size_t len,
                         const nicd_loc_conf_t *nl);

/*
 * The file that path (a URI, normalised) names under lc's root or alias
 * (with an alias' regex captures; a nested location's alias replaces the
 * prefix of the location that set it), opened through the worker's open
 * file cache: 0 with *out (release it with nicd_ofc_release), or -1 with
 * the errno value in *err.  tried: a name try_files tries, which a regex
 * location's alias (the whole file otherwise) is the directory of, as
 * nginx's try_files takes it.
 */
int nicd_uri_open(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *path,
                  size_t len, int tried, nicd_file_t **out, int *err);

/* the answers every phase and module gives (phases.c) */

/*
 * a redirect to target, its Location made absolute as nginx makes it
 * (redirect.h).
 */
void nicd_redirect(nicd_conn_t *c, const nicd_request_t *r, int status,
                   const char *target, size_t len);

/* Answer r, the view of the request at hand c->r (made fresh by
 * nicd_req_begin): server, location, phases. */
void nicd_handle(nicd_conn_t *c, const nicd_request_t *r);
/* r (the request at hand, c->r fresh) is answered status (a 400 for a
 * request the protocol found bad) in its server, whose error_page apply */
void nicd_handle_error(nicd_conn_t *c, const nicd_request_t *r, int status);
/* a request whose head did not parse is answered status (c->r fresh): in
 * the default server of the address, whose error_page apply (nginx's),
 * as a GET (HEAD with head) of "/" in protocol (its request line's
 * version, or NULL) without fields, for what there is of it is not to be
 * trusted */
void nicd_handle_unparsed(nicd_conn_t *c, int head, const char *protocol,
                          int status);

/*
 * An error page (or a redirect, with location) for status; head: no body.
 */
void nicd_respond_error(nicd_conn_t *c, int status, int head,
                        const char *location, size_t location_len);

/*
 * A whole response whose body is b (a 500 when b failed): Content-Type
 * type (with the location's charset), Cache-Control: no-store with
 * no_store, the length; head: no body.
 */
void nicd_respond_mem(nicd_conn_t *c, int status, int head, const char *type,
                      int no_store, const nicd_buf_t *b);

/* The same with one more header field (WWW-Authenticate: ...). */
void nicd_respond_error_hdr(nicd_conn_t *c, int status, int head,
                            const char *name, const char *value, size_t len);

/*
 * 1 when the request's location (for its path and Host) has a content
 * handler that takes the body (handler_body, Lua's): a request with a
 * body for it is read whole first (http.c).
 */
int nicd_body_location(nicd_conn_t *c, const nicd_request_t *r);

/*
 * an internal redirect to uri (a path with an optional query,
 * not yet normalised): a location is found for it again.  Its query
 * becomes the request's arguments; without one they are none (nginx's
 * try_files, error_page, X-Accel-Redirect), or with keep_args stay as
 * they were (index).
 */
void nicd_internal_redirect(nicd_conn_t *c, const nicd_request_t *r,
                            const char *uri, size_t len, int keep_args);

/*
 * A subrequest's phases (http/subrequest.c): r, in the server of the
 * request at hand (c->r, fresh but for its server), for uri (normalised,
 * NUL-terminated, kept while it is answered), from the server's rewrites
 * on.
 */
void nicd_handle_subrequest(nicd_conn_t *c, const nicd_request_t *r,
                            const char *uri, size_t len);

/* the worker's match data freed */
void nicd_phases_worker_free(nicd_worker_t *w);

/* 1 when s (n bytes) is a URL (http:// or https://), not a path */
int nicd_is_url(const char *s, size_t n);

#endif /* NICD_PHASES_H */
