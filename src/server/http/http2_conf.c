/*
 * HTTP/2's settings of a location (http2_conf.h), as nginx's http_v2
 * module has them at every level:
 *
 *   http2_chunk_size SIZE;  (8k) the largest DATA frame of a response
 *       body: its chunks go out one frame each, so a smaller size lets
 *       other streams' frames in between (nginx's prioritisation rule);
 *   http2_max_concurrent_streams N;  (128; http and server) the streams a
 *       client may have open at once on a connection, the default
 *       server's of the address it came to (nginx's SETTINGS);
 *   http2_max_frame_size SIZE;  (16m - 1; http and server; nicd's own)
 *       the largest frame a client may send, said in SETTINGS: nginx's
 *       16777215 by default; 16k is the protocol's default, which some
 *       conformance tools (h2spec) take for granted.
 */

#include <stddef.h>

#include "server/conf/directive.h"
#include "server/http/http2_conf.h"

typedef struct {
    size_t chunk;   /* 0: unset */
    int    streams; /* 0: unset */
    size_t frame;   /* 0: unset */
} h2_loc_conf_t;

nicd_module_t nicd_http2_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(h2_loc_conf_t));
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev_, void *conf_)
{
    const h2_loc_conf_t *prev = prev_;
    h2_loc_conf_t       *conf = conf_;

    (void) c;
    if (conf->chunk == 0) {
        conf->chunk = prev != NULL ? prev->chunk : 8192;
    }
    if (conf->streams == 0) {
        conf->streams = prev != NULL ? prev->streams : 128;
    }
    if (conf->frame == 0) {
        conf->frame = prev != NULL ? prev->frame : (1u << 24) - 1;
    }
    return NULL;
}

static const char *
set_chunk(parse_t *ps, const char **a, int n)
{
    h2_loc_conf_t *h = nicd_conf_module_loc(ps);
    const char    *err;

    (void) n;
    if (h->chunk != 0) {
        return "is duplicate";
    }
    if ((err = nicd_conf_size(a[0], &h->chunk)) != NULL) {
        return err;
    }
    if (h->chunk == 0) {
        return "the http2 chunk size cannot be zero";
    }
    return NULL;
}

static const char *
set_streams(parse_t *ps, const char **a, int n)
{
    h2_loc_conf_t *h = nicd_conf_module_loc(ps);

    (void) n;
    if (h->streams != 0) {
        return "is duplicate";
    }
    return nicd_conf_positive(a[0], &h->streams);
}

static const char *
set_frame(parse_t *ps, const char **a, int n)
{
    h2_loc_conf_t *h = nicd_conf_module_loc(ps);
    const char    *err;

    (void) n;
    if (h->frame != 0) {
        return "is duplicate";
    }
    if ((err = nicd_conf_size(a[0], &h->frame)) != NULL) {
        return err;
    }
    if (h->frame < 16384 || h->frame > (1u << 24) - 1) {
        return "must be between 16384 and 16777215 (RFC 9113, 6.5.2)";
    }
    return NULL;
}

int
nicd_http2_max_streams(const nicd_conf_t *cf, int listener)
{
    const h2_loc_conf_t *h =
        NICD_LOC_CONF(cf->listen_servers[listener][0]->loc, nicd_http2_module);

    return h->streams;
}

uint32_t
nicd_http2_max_frame(const nicd_conf_t *cf, int listener)
{
    const h2_loc_conf_t *h =
        NICD_LOC_CONF(cf->listen_servers[listener][0]->loc, nicd_http2_module);

    return (uint32_t) h->frame;
}

size_t
nicd_http2_chunk_size(const nicd_loc_conf_t *lc)
{
    const h2_loc_conf_t *h = NICD_LOC_CONF(lc, nicd_http2_module);

    return h != NULL && h->chunk != 0 ? h->chunk : 8192;
}

static const directive_t http2_directives[] = {
    {"http2_chunk_size", CTX_HSL, 1, 1, set_chunk, 0},
    {"http2_max_concurrent_streams", CTX_HTTP | CTX_SRV, 1, 1, set_streams, 0},
    {"http2_max_frame_size", CTX_HTTP | CTX_SRV, 1, 1, set_frame, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http2_module = {
    .name = "http2",
    .directives = http2_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
};
