/*
 * May a response go compressed to the request at hand (gzip_ok.c:
 * gzip_http_version, gzip_proxied, gzip_disable and Accept-Encoding)?
 */

#ifndef NICD_GZIP_OK_H
#define NICD_GZIP_OK_H

#include "server/http/handler.h"

/* what gzip_proxied reads of the response (NULL, 0: it has none) */
typedef struct {
    const nicd_str_t *expires, *cache_control, *date;
    unsigned          last_modified : 1;
    unsigned          etag : 1;
} nicd_gzip_resp_t;

/* 1 when the response resp describes (NULL: one without any of those
 * fields) may go compressed, else 0 */
int nicd_gzip_ok(nicd_conn_t *c, const nicd_gzip_resp_t *resp);

#endif /* NICD_GZIP_OK_H */
