/*
 * "listen" (listen.c): the core module's setter, and each address's
 * servers once the configuration is read.
 */

#ifndef NICD_LISTEN_H
#define NICD_LISTEN_H

#include "server/conf/directive.h"

/* Parse "addr:port", "port", "[v6]:port", "*:port", "unix:PATH" into l.
 * 0 or -1. */
int nicd_listen_parse(nicd_listen_conf_t *l, const char *text);

/* "listen ADDRESS [default_server] [ssl] [http2] ...": NULL or a message */
const char *nicd_listen_set(parse_t *ps, const char **a, int n);

/* a server without listen takes the implicit server's addresses, else
 * the default (127.0.0.1:8080; --listen: that one); then each address's
 * servers, its default first.  0, or -1 with err. */
int nicd_listen_finish(nicd_conf_t *c, char *err, size_t errlen);

#endif
