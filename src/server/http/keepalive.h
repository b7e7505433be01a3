/*
 * Keep-alive settings of a level (keepalive.c: nginx's keepalive_*
 * directives), as the protocols read them.
 */

#ifndef NICD_KEEPALIVE_H
#define NICD_KEEPALIVE_H

#include "server/conf/conf.h"
#include "server/core/nicd.h"

typedef struct {
    long timeout;  /* ms idle between requests; 0: no keep-alive */
    long header;   /* "Keep-Alive: timeout=" seconds; -1: not sent */
    int  requests; /* requests a connection serves */
    long time;     /* ms a connection may serve them */
    int  disable;  /* the browsers it is off for (keepalive_disable) */
} nicd_keepalive_conf_t;

/* lc's settings */
const nicd_keepalive_conf_t *nicd_keepalive_conf(const nicd_loc_conf_t *lc);

/* may c stay open after the request at hand (c->r; NULL: none), by k and
 * the server's state?  1 or 0 */
int nicd_keepalive_allows(nicd_conn_t *c, const nicd_keepalive_conf_t *k);

#endif /* NICD_KEEPALIVE_H */
