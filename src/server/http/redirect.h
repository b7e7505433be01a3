/*
 * What a redirect's Location says (redirect.c): nginx's
 * absolute_redirect, server_name_in_redirect and port_in_redirect, at
 * every level, and the automatic redirect of a location that passes
 * requests on ("location /app/ { proxy_pass ...; }" answers "/app" with
 * a 301 to "/app/").
 */

#ifndef NICD_REDIRECT_H
#define NICD_REDIRECT_H

#include <stddef.h>

#include "util/buf.h"
#include "server/conf/conf.h"
#include "server/conf/directive.h"
#include "server/core/nicd.h"

struct nicd_request_s;

/*
 * target (len bytes) as a redirect's Location, appended to b: a path
 * ("/..."), made absolute as nginx's header filter makes it unless
 * absolute_redirect is off: the scheme, then the server's first name
 * (server_name_in_redirect on), else the request's host, else the
 * address the connection came to, then the port it came to unless it is
 * the scheme's own or port_in_redirect is off.  Anything else as it is.
 */
void nicd_absolute_location(nicd_conn_t *c, const struct nicd_request_s *r,
                            const char *target, size_t len, nicd_buf_t *b);

/* A location that passes requests on (proxy_pass) asks for the automatic
 * redirect, as nginx's does: when its name ends with '/', the request
 * for its name without that '/' is answered with a redirect to it.  ps
 * reads its directive (in an "if" block: nothing). */
void nicd_redirect_auto_set(parse_t *ps);
/* 1 when lc asked for it */
int nicd_redirect_auto(const nicd_loc_conf_t *lc);

/* lc's name as the Location of its automatic redirect (NGX_ESCAPE_URI),
 * then "?" and query when query_len is not 0, appended to b */
void nicd_redirect_auto_target(const nicd_loc_conf_t *lc, const char *query,
                               size_t query_len, nicd_buf_t *b);

#endif /* NICD_REDIRECT_H */
