/*
 * What the Server field and the error pages say of nicd (tokens.c):
 * nginx's server_tokens, at every level.
 */

#ifndef NICD_TOKENS_H
#define NICD_TOKENS_H

#include <stddef.h>

#include "server/core/nicd.h"

/* "Server: nicd/VERSION\r\n" or "Server: nicd\r\n" for the request at
 * hand (c->r's location, else its server's, else the http level's), its
 * length in *len; the name alone is the line from its 8th byte, 10 bytes
 * shorter */
const char *nicd_server_line(nicd_conn_t *c, size_t *len);

#endif /* NICD_TOKENS_H */
