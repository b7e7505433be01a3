/*
 * Variables and templates (variables.c).
 */

#ifndef NICD_VARIABLES_H
#define NICD_VARIABLES_H

#include <stddef.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "handler.h"

/* the Host a request names, without a port or a trailing dot (NULL: none) */
void nicd_request_host(const nicd_request_t *r, const char **host, size_t *len);
/* the port of the address the connection came to */
unsigned nicd_local_port(nicd_conn_t *c);
/* the worker's pcre2 match data (made the first time) */
void *nicd_match_data(nicd_worker_t *w);

/*
 * Expand the variables of tmpl into b (cleared first): uri is $uri (ulen
 * bytes), subject and caps (ncaps pairs) the last regex match for $1..$9
 * (NULL: none).  0, or -1 (logged) for an unknown variable.
 */
int nicd_expand(nicd_conn_t *c, const nicd_request_t *r, const char *uri,
                size_t ulen, const char *tmpl, nicd_buf_t *b,
                const char *subject, const PCRE2_SIZE *caps, int ncaps);

/* "set": name (NUL-terminated, without "$") is value for the rest of the
 * request at hand (the worker's, cleared when a request starts).  0 or
 * -1 (out of memory). */
int nicd_var_set(nicd_worker_t *w, const char *name, const char *value,
                 size_t len);

#endif /* NICD_VARIABLES_H */
