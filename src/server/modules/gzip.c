/*
 * gzip on the fly (nginx's ngx_http_gzip_module): a response of a type in
 * gzip_types (text/html always), at least gzip_min_length bytes, to a
 * client whose Accept-Encoding takes gzip, goes out compressed (zlib, at
 * gzip_comp_level) with Content-Encoding: gzip, a weak ETag, no
 * Accept-Ranges (and no ranges: a Range is answered with the whole
 * compressed body, as nginx does), and Vary: Accept-Encoding with
 * gzip_vary.
 *
 * A compressed file or body in memory is made in memory and leaves as
 * memory: it does not take the zero-copy path (nor the nic backend's
 * cache).  Files larger than GZIP_MAX go out uncompressed.  nginx streams
 * its output chunked; nicd sends the length.  A body that comes in pieces
 * (a proxied one) is compressed as it comes (http/stream.h), chunked.  zlib's bytes may differ from nginx's (nginx
 * shrinks the window for short bodies); what they decompress to is the
 * same.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "server/conf/directive.h"
#include "server/http/gzip_ok.h"
#include "server/http/filter.h"
#include "server/http/stream.h"

#define GZIP_MAX (16 * 1024 * 1024)

/* the module's settings of a level (gzip_vary is the core's, as
 * nginx's: gzip_static reads it too) */
typedef struct {
    int          enable;
    int          comp_level;
    size_t       min_length;
    nicd_types_t types; /* gzip_types besides text/html */
} gzip_conf_t;

nicd_module_t nicd_gzip_module;

static void *
create_conf(nicd_conf_t *c)
{
    gzip_conf_t *gc = nicd_conf_alloc(c, sizeof(*gc));

    if (gc != NULL) {
        gc->enable = NICD_UNSET;
        gc->comp_level = NICD_UNSET;
        gc->min_length = (size_t) NICD_UNSET;
    }
    return gc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const gzip_conf_t *p = prev;
    gzip_conf_t       *gc = conf;

    (void) c;
    NICD_MERGE(gc, p, enable, 0);
    NICD_MERGE(gc, p, comp_level, 1);
    NICD_MERGE_SIZE(gc, p, min_length, 20);
    NICD_MERGE_LIST(gc, p, types.type, types.n);
    return NULL;
}

static const nicd_conf_bounds_t comp_levels = {1, 9};

/* gzip_buffers: accepted, nothing done (nicd compresses into memory that
 * grows as needed) */
static const char *
set_nothing(parse_t *ps, const char **a, int n)
{
    (void) ps;
    (void) a;
    (void) n;
    return NULL;
}

/* what the header filters will set of Expires and Cache-Control in a
 * response of status (expires), into v for gzip_proxied (strings in b,
 * freed by the caller) */
static void
filter_fields(nicd_conn_t *c, int status, nicd_buf_t b[2], nicd_str_t s[2],
              nicd_gzip_resp_t *v)
{
    if (nicd_resp_replaced(c, status, "Expires", 7, &b[0]) && b[0].len > 0) {
        s[0].p = b[0].data;
        s[0].len = b[0].len;
        v->expires = &s[0];
    }
    if (nicd_resp_replaced(c, status, "Cache-Control", 13, &b[1])
        && b[1].len > 0) {
        s[1].p = b[1].data;
        s[1].len = b[1].len;
        v->cache_control = &s[1];
    }
}

/* should a response of type (tlen bytes) and len bytes, resp's fields
 * (NULL: those the header filters set in a response of the request's
 * status, with a Last-Modified and ETag where lm and etag say), be
 * compressed for the request at hand (and note Vary)?  1 or 0 */
static int
wanted(nicd_conn_t *c, const gzip_conf_t *gc, const char *type, size_t tlen,
       uint64_t len, const nicd_gzip_resp_t *resp, int lm, int etag)
{
    nicd_gzip_resp_t own = {0};
    nicd_buf_t       b[2] = {{0}, {0}};
    nicd_str_t       s[2] = {{0}, {0}};
    int              ok;

    const nicd_request_t *r = c->r->in;

    if (!gc->enable || r == NULL || len < gc->min_length || len > GZIP_MAX) {
        return 0;
    }
    if (!nicd_types_html_or(&gc->types, type, tlen)) {
        return 0;
    }
    /* from here on the answer depends on Accept-Encoding */
    c->r->vary_ae |= c->r->loc->gzip_vary;
    if (resp == NULL) {
        own.last_modified = lm != 0;
        own.etag = etag != 0;
        filter_fields(c, c->r->status > 0 ? c->r->status : 200, b, s, &own);
        resp = &own;
    }
    ok = nicd_gzip_ok(c, resp);
    nicd_buf_free(&b[0]);
    nicd_buf_free(&b[1]);
    return ok;
}

/* the gzip of in into out: 0 or -1 */
static int
gzip_compress(int level, const char *in, size_t len, nicd_buf_t *out)
{
    z_stream z;
    size_t   bound;
    int      rc;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        != Z_OK) {
        return -1;
    }
    bound = deflateBound(&z, (uLong) len);
    out->len = 0;
    if (nicd_buf_reserve(out, bound) != 0) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *) (uintptr_t) in;
    z.avail_in = (uInt) len;
    z.next_out = (Bytef *) out->data;
    z.avail_out = (uInt) bound;
    rc = deflate(&z, Z_FINISH);
    out->len = bound - z.avail_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* its slots in the body, file, stream chains (filter.h) */
static int body_slot, file_slot, stream_slot;

/* the body filter of a body in memory (error pages, return's text) */
static const char *
gzip_body(nicd_conn_t *c, const char *type, size_t tlen, const char *body,
          size_t *len, nicd_buf_t *tmp)
{
    const gzip_conf_t *gc;

    if (c->r->loc != NULL) {
        gc = NICD_LOC_CONF(c->r->loc, nicd_gzip_module);
        if (wanted(c, gc, type, tlen, (uint64_t) *len, NULL, 0, 0)
            && gzip_compress(gc->comp_level, body, *len, tmp) == 0) {
            *len = tmp->len;
            body = tmp->data;
            c->r->body_gzipped = 1;
        }
    }
    return nicd_body_filter_next(c, body_slot, type, tlen, body, len, tmp);
}

/* the body filter of a whole file f of type (not one gzip_static already
 * chose), its bytes mem (len of them) or the file's: the body compressed
 * in memory, ranges and all, and answered (1), or 0 when it is not to be
 * or could not be (send it as it is) */
static int
gzip_answer(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *lc,
            nicd_file_t *f, const char *type, const char *mem, size_t len)
{
    const gzip_conf_t *gc = NICD_LOC_CONF(lc, nicd_gzip_module);
    nicd_buf_t         z = {0}, raw = {0};
    char               etag[64];
    int                k;

    if (!gc->enable) {
        return 0; /* the common case: nothing to measure (strlen) first */
    }
    if (mem == NULL) {
        len = (size_t) f->file.size;
    }
    /* (a file's Last-Modified is not a field yet when nginx's gzip asks,
     * its ETag is) */
    if (c->r->gzipped
        || !wanted(c, gc, type, strlen(type), (uint64_t) len, NULL, 0,
                   lc->etag)) {
        return 0;
    }
    if (mem == NULL) {
        if (nicd_file_read(c, f, &raw, "gzip") != 0) {
            nicd_buf_free(&raw);
            return 0; /* sent as it is, then */
        }
        mem = raw.data;
    }
    k = gzip_compress(gc->comp_level, mem, len, &z);
    nicd_buf_free(&raw);
    if (k != 0) {
        nicd_buf_free(&z);
        return 0;
    }
    nicd_resp_start(c, 200);
    nicd_resp_content_type(c, type, strlen(type));
    NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) z.len);
    if (c->r->status == 200 && !c->r->no_validators) {
        NICD_RESP_HEADER(c, "Last-Modified", f->last_modified,
                         NICD_HTTP_DATE_LEN);
    }
    if (lc->etag && !c->r->no_validators) {
        /* the bytes are not the file's: a weak validator (nginx) */
        k = snprintf(etag, sizeof(etag), "W/%.*s", (int) f->etag_len, f->etag);
        nicd_resp_header(c, "ETag", 4, etag, (size_t) k);
    }
    nicd_resp_end_headers(c);
    if (r->method != NICD_M_HEAD) {
        nicd_resp_body_mem(c, z.data, z.len);
    }
    nicd_buf_free(&z);
    nicd_resp_finish(c, 200);
    return 1;
}

static int
gzip_file(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *lc,
          nicd_file_t *f, const char *type, const char *mem, size_t len)
{
    return gzip_answer(c, r, lc, f, type, mem, len)
           || nicd_file_filter_next(c, file_slot, r, lc, f, type, mem, len);
}

/* ---- a body in pieces (a proxied one): deflated as it comes ---- */

static void
stream_done(void *ctx)
{
    z_stream *z = ctx;

    deflateEnd(z);
    free(z);
}

static int
stream_run(nicd_conn_t *c, void *ctx, const char *in, size_t len, int last,
           nicd_buf_t *out)
{
    z_stream *z = ctx;
    int       rc;

    (void) c;
    z->next_in = (Bytef *) (uintptr_t) in;
    z->avail_in = (uInt) len;
    do {
        if (nicd_buf_reserve(out, len / 2 + 4096) != 0) {
            return -1;
        }
        z->next_out = (Bytef *) out->data + out->len;
        z->avail_out = (uInt) (out->size - out->len);
        rc = deflate(z, last ? Z_FINISH : Z_NO_FLUSH);
        out->len = out->size - z->avail_out;
        if (rc == Z_STREAM_ERROR) {
            return -1;
        }
    } while (z->avail_in > 0 || z->avail_out == 0
             || (last && rc != Z_STREAM_END));
    return 0;
}

/* a response relayed in pieces: compressed as the static one is when
 * it is of a status, type and length gzip takes, not encoded already
 * (nginx's gzip header filter) */
static void
gzip_stream_head(nicd_conn_t *c, nicd_stream_head_t *h)
{
    const gzip_conf_t *gc;
    nicd_gzip_resp_t   resp = {0};
    z_stream          *z;
    size_t             tlen;

    gc = c->r->loc != NULL ? NICD_LOC_CONF(c->r->loc, nicd_gzip_module) : NULL;
    if (gc == NULL || !gc->enable || h->encoded
        || (h->status != 200 && h->status != 403 && h->status != 404)) {
        nicd_stream_head_next(c, stream_slot, h);
        return;
    }
    /* (a response without a type: gzip_types *) */
    for (tlen = 0; h->type != NULL && tlen < h->tlen && h->type[tlen] != ';'
                   && h->type[tlen] != ' ';
         tlen++) {
    }
    resp.expires = h->expires.p != NULL ? &h->expires : NULL;
    resp.cache_control = h->cache_control.p != NULL ? &h->cache_control : NULL;
    resp.date = h->date.p != NULL ? &h->date : NULL;
    resp.last_modified = h->last_modified;
    resp.etag = h->etag;
    if (!wanted(c, gc, h->type != NULL ? h->type : "", tlen,
                h->length < 0          ? gc->min_length
                : h->length > GZIP_MAX ? GZIP_MAX
                                       : (uint64_t) h->length,
                &resp, 0, 0)) {
        nicd_stream_head_next(c, stream_slot, h);
        return;
    }
    z = calloc(1, sizeof(*z));
    if (z == NULL
        || deflateInit2(z, gc->comp_level, Z_DEFLATED, 15 + 16, 8,
                        Z_DEFAULT_STRATEGY)
               != Z_OK) {
        free(z);
        nicd_stream_head_next(c, stream_slot, h);
        return;
    }
    if (nicd_stream_add(c, h, stream_run, stream_done, z) == 0) {
        NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
        h->encoded = 1;
        h->length = -1;
        h->no_ranges = 1;
        h->weak_etag = 1;
    }
    nicd_stream_head_next(c, stream_slot, h);
}

static const directive_t nicd_gzip_directives[] = {
    {"gzip", CTX_HSL, 1, 1, nicd_conf_slot_flag, offsetof(gzip_conf_t, enable)},
    {"gzip_types", CTX_HSL, 1, MAX_ARGS, nicd_conf_slot_types,
     offsetof(gzip_conf_t, types)},
    {"gzip_comp_level", CTX_HSL, 1, 1, nicd_conf_slot_num,
     offsetof(gzip_conf_t, comp_level), 0, &comp_levels},
    {"gzip_min_length", CTX_HSL, 1, 1, nicd_conf_slot_size,
     offsetof(gzip_conf_t, min_length)},
    {"gzip_buffers", CTX_HSL, 2, 2, set_nothing, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

/* where its filters have something to do: gzip on */
static int
enables_gzip(const nicd_loc_conf_t *lc)
{
    const gzip_conf_t *k = NICD_LOC_CONF(lc, nicd_gzip_module);

    return k->enable;
}

static void
gzip_init(void)
{
    body_slot = nicd_filter_add(NICD_FILTER_BODY, (nicd_filter_fn_t) gzip_body,
                                enables_gzip);
    file_slot = nicd_filter_add(NICD_FILTER_FILE, (nicd_filter_fn_t) gzip_file,
                                enables_gzip);
    stream_slot = nicd_filter_add(
        NICD_FILTER_STREAM, (nicd_filter_fn_t) gzip_stream_head, enables_gzip);
}

nicd_module_t nicd_gzip_module = {
    .name = "gzip",
    .directives = nicd_gzip_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .init = gzip_init,
};
