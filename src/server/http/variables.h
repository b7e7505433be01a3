/*
 * Variables and complex values, as nginx's (ngx_http_variables.c,
 * ngx_http_script.c).
 *
 * A variable is a name and a getter.  The core's (core_vars.c:
 * $uri, $host, $http_NAME, ...) and those the modules add while their
 * directives are read (a map's, a "set"'s: nicd_var_add) are one registry
 * per configuration.  A name ending in "_" with NICD_VAR_PREFIX is a
 * family: "http_" answers $http_user_agent, with "user_agent" as its
 * suffix.  Names are taken in any case, as nginx's.
 *
 * A complex value is a template ("$scheme://$host$uri", "${name}x",
 * "/img/$1") compiled once, when its directive is read, into literal text,
 * variables and regex captures.  The variables it names are looked up
 * when the whole configuration has been read (a "set" may follow its
 * first use): an unknown name fails the configuration, naming it and
 * where the template was.  Each variable used anywhere gets an index.
 *
 * A variable is evaluated when it is read, for the request at hand, and
 * its value kept for the rest of the request unless it is
 * NICD_VAR_VOLATILE (the values that change while a request is answered:
 * $uri, $status, ...).  "set" stores a value in that cache.
 */

#ifndef NICD_VARIABLES_H
#define NICD_VARIABLES_H

#include <stddef.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "server/conf/directive.h"
#include "server/http/handler.h"

/*
 * What a value depends on beyond the request at hand (c->r): the request
 * view (NULL: c->r->in; error_page's GET differs), $uri while rewrites
 * change it (NULL: c->r->uri, else the path as sent), and the last
 * regex's match for $0..$9 (subject NULL: none).  NULL as a whole: all
 * of these defaults.
 */
typedef struct {
    const nicd_request_t *r;
    const char           *uri;
    size_t                ulen;
    const char           *subject;
    const PCRE2_SIZE     *caps;
    int                   ncaps;
    /* captures after a '?' of the template's text are escaped as
     * arguments (a rewrite's replacement for a request whose URI came
     * with escapes: nginx's quoted_uri) */
    int args_escape;
} nicd_vctx_t;

typedef struct nicd_var_s nicd_var_t;

/*
 * A variable's getter: its value for the request at hand appended to b
 * (suffix: a family's part of the name, slen bytes).  0, or -1 when it
 * cannot be had (logged; the request is answered 500).
 */
typedef int (*nicd_var_get_pt)(nicd_conn_t *c, const nicd_vctx_t *x,
                               const nicd_var_t *v, const char *suffix,
                               size_t slen, nicd_buf_t *b);

#define NICD_VAR_PREFIX   0x1 /* name is a family's prefix */
#define NICD_VAR_VOLATILE 0x2 /* evaluated at every use, never kept */
#define NICD_VAR_SET      0x4 /* "set" writes it: unset, it is empty */
/* a module's variable "set" may write ($limit_rate): what was set is
 * kept for its getter to read (nicd_var_kept) */
#define NICD_VAR_CHANGEABLE 0x8

struct nicd_var_s {
    const char     *name; /* without "$", lower case */
    nicd_var_get_pt get;  /* NULL: only what "set" stored */
    unsigned        flags;
    const void     *data; /* the getter's (a map) */
};

/* the getter of a variable whose value only its module stores
 * (nicd_var_store: $limit_req_status, $limit_conn_status): empty, and
 * quietly, until it does */
int nicd_var_empty(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
                   const char *suffix, size_t slen, nicd_buf_t *b);

/* $uri at hand: x's, the request's after rewrites, else the path as sent
 * (core_vars.c) */
void nicd_vctx_uri(nicd_conn_t *c, const nicd_vctx_t *x, const char **uri,
                   size_t *len);

/* the core's variables, ending with a NULL name (core_vars.c) */
extern const nicd_var_t nicd_core_vars[];

/* the request at hand's $request_id drawn, if it was not yet: 0, or -1
 * (logged) (core_vars.c; a subrequest takes its parent's) */
int nicd_req_draw_id(nicd_conn_t *c);

/*
 * Add v (copied; its name too) to the registry of c, while a directive
 * is read; *out (unless out is NULL): the registry's variable, which the
 * directive may still change (a map's "volatile").  A variable of the
 * same name already there: "set" names may repeat, and name a map's
 * variable (NULL); any other is a message.
 */
const char *nicd_var_add(nicd_conf_t *c, const nicd_var_t *v, nicd_var_t **out);

/* a compiled template */
typedef struct nicd_cv_s nicd_cv_t;

/*
 * Compile tmpl (where: "file:line", for the message of an unknown
 * variable later), with the configuration's lifetime.  NULL with a
 * message in *err (an unterminated "${", out of memory).
 */
nicd_cv_t *nicd_cv_compile(nicd_conf_t *c, const char *tmpl, const char *where,
                           const char **err);

/* the same for the directive being read (where: its file and line) */
nicd_cv_t *nicd_conf_cv(parse_t *ps, const char *tmpl, const char **err);

/* 1 when cv is text alone (no variable, no capture), with it in *text */
int nicd_cv_literal(const nicd_cv_t *cv, const char **text, size_t *len);

/* the template cv was compiled from */
const char *nicd_cv_source(const nicd_cv_t *cv);

/*
 * cv's value for the request at hand into b (cleared first, NUL after
 * its len bytes): 0, or -1 (logged: out of memory, or a getter failed).
 */
int nicd_cv_eval(nicd_conn_t *c, const nicd_cv_t *cv, const nicd_vctx_t *x,
                 nicd_buf_t *b);

/* "set": value (len bytes) is variable's (an index, nicd_var_index)
 * for the rest of the request.  0, or -1 (out of memory). */
int nicd_var_store(nicd_conn_t *c, int index, const char *value, size_t len);

/* 1 with *value when the request at hand has a value of variable index
 * kept (a "set", a module's store, or one read once), else 0 (without
 * the warning reading an unset one gives) */
int nicd_var_kept(nicd_conn_t *c, int index, nicd_str_t *value);

/* the index of variable name (without "$") in c, making it one; -1
 * when no variable has that name */
int nicd_var_index(nicd_conf_t *c, const char *name, size_t len);

/* the index of variable name in c when something (a directive, a
 * template) has indexed it already, else -1: a module whose variable
 * only "set" can change asks this at postconfiguration, and reads
 * nothing per request when no "set" names it */
int nicd_var_indexed(nicd_conf_t *c, const char *name, size_t len);

/* the value of the variable name (len bytes, without "$", any case) for
 * the request at hand appended to b, looked up at run time (SSI's echo):
 * 1, 0 when no variable has that name, -1 (logged) when it failed */
int nicd_var_by_name(nicd_conn_t *c, const char *name, size_t len,
                     nicd_buf_t *b);
/* the worker's values freed (the worker ends) */
void nicd_vars_worker_free(nicd_worker_t *w);

/* the module that looks every template's variables up once the
 * configuration has been read (listed first, modules/modules.c) */
extern nicd_module_t nicd_variables_module;

/* the Host a request names, without a port or a trailing dot (NULL: none) */
void nicd_request_host(const nicd_request_t *r, const char **host, size_t *len);

/* The user and password of an Authorization: Basic value v, decoded into
 * buf (len bytes; a NUL between them): the password, or NULL for a value
 * that is not one ($remote_user, auth_basic). */
const char *nicd_basic_credentials(const nicd_str_t *v, char *buf, size_t len);
/* the port of the address the connection came to */
unsigned nicd_local_port(nicd_conn_t *c);
/* the address c came to as a URL's host ("[...]" for IPv6), appended to b */
void nicd_local_addr_url(nicd_conn_t *c, nicd_buf_t *b);
/* the worker's pcre2 match data (made the first time) */
void *nicd_match_data(nicd_worker_t *w);

/*
 * the match data of re against s (len bytes), or NULL when
 * it does not match.
 */
void *nicd_regex_match(nicd_worker_t *w, void *re, const char *s, size_t len);

/*
 * x: the captures ($1..$9) of lc's regex (a regex location) matching uri
 * (len bytes): 0, or -1 (no regex, or no match: x has none)
 */
int nicd_loc_captures(nicd_conn_t *c, const nicd_loc_conf_t *lc,
                      const char *uri, size_t len, nicd_vctx_t *x);

/*
 * The directory lc's alias names for uri (lc a regex location whose alias
 * takes its captures, root_vars) into b: 0, or -1 (uri does not match
 * it, or the value failed).
 */
int nicd_alias_eval(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *uri,
                    size_t len, nicd_buf_t *b);

/* the values kept so far are forgotten: a new request's, or a request
 * the worker answered earlier (an HTTP/2 stream's log line) */
void nicd_vars_fresh(nicd_worker_t *w);

/* the values kept for the request at hand, saved for a request answered
 * later ("set" values live on): free() it; NULL for none (or out of
 * memory: they are evaluated again, "set" ones are lost) */
void *nicd_vars_save(nicd_worker_t *w);
/* fresh values, but those saved (NULL: none) */
void nicd_vars_restore(nicd_worker_t *w, const void *saved);

#endif /* NICD_VARIABLES_H */
