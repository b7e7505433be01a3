/*
 * HTTP/2's settings of a location or server (http2_conf.c): nginx's
 * http2_chunk_size and http2_max_concurrent_streams, and nicd's
 * http2_max_frame_size.
 */

#ifndef NICD_HTTP2_CONF_H
#define NICD_HTTP2_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "server/conf/conf.h"

/* the largest DATA frame of a response body in lc (http2_chunk_size) */
size_t nicd_http2_chunk_size(const nicd_loc_conf_t *lc);

/* the streams a connection to listen socket listener may have open at
 * once (its default server's http2_max_concurrent_streams) */
int nicd_http2_max_streams(const nicd_conf_t *cf, int listener);

/* the largest frame such a connection's client may send (its default
 * server's http2_max_frame_size) */
uint32_t nicd_http2_max_frame(const nicd_conf_t *cf, int listener);

#endif /* NICD_HTTP2_CONF_H */
