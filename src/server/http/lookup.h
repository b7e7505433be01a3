/*
 * Finding the server and the location of a request (lookup.c), nginx's
 * "find config": the core's, from the configuration read.
 */

#ifndef NICD_LOOKUP_H
#define NICD_LOOKUP_H

#include "server/conf/conf.h"

/*
 * The location of srv that answers uri (normalised), nginx's way: "="
 * exact, else the longest prefix (and within it, its nested locations),
 * then regexes in file order unless that prefix was "^~"; the server's
 * own settings when none matches.  match_data (pcre2's, or NULL)
 * receives a regex location's captures.  *redirect (unless NULL) is 1
 * when uri is the name of a location that asked for the automatic
 * redirect but its last '/' (redirect.h): that location is returned,
 * and the request is to be redirected to it.
 */
const nicd_loc_conf_t *nicd_conf_find_location(const nicd_server_conf_t *srv,
                                               const char *uri, size_t len,
                                               void *match_data, int *redirect);

/* The server of listen li for host (len bytes; NULL: none given);
 * match_data (pcre2's, or NULL) serves regex names. */
const nicd_server_conf_t *nicd_conf_find_server(const nicd_conf_t *c, int li,
                                                const char *host, size_t len,
                                                void *match_data);

/* The @name location of srv, or NULL. */
const nicd_loc_conf_t *nicd_conf_named(const nicd_server_conf_t *srv,
                                       const char               *name);

/* 1 when pred(lc, arg) holds for a level of c (http, a server, a
 * location, at any depth): does the configuration use a module? */
int nicd_conf_any_level(const nicd_conf_t *c,
                        int (*pred)(const nicd_loc_conf_t *lc, const void *arg),
                        const void *arg);

#endif /* NICD_LOOKUP_H */
