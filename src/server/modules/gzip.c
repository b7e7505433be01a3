/*
 * gzip on the fly (nginx's ngx_http_gzip_module): a response of a type in
 * gzip_types (text/html always), at least gzip_min_length bytes, to a
 * client whose Accept-Encoding takes gzip, goes out compressed (zlib, at
 * gzip_comp_level) with Content-Encoding: gzip, a weak ETag, no
 * Accept-Ranges (and no ranges: a Range is answered with the whole
 * compressed body, as nginx does), and Vary: Accept-Encoding with
 * gzip_vary.
 *
 * A compressed body is made in memory and leaves as memory: it does not
 * take the zero-copy path (nor the nic backend's cache).  Files larger
 * than GZIP_MAX go out uncompressed.  nginx streams its output chunked;
 * nicd sends the length.  zlib's bytes may differ from nginx's (nginx
 * shrinks the window for short bodies); what they decompress to is the
 * same.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "directive.h"
#include "handler.h"

#define GZIP_MAX (16 * 1024 * 1024)

static const char *
set_gzip_types(parse_t *ps, const char **a, int n)
{
    nicd_loc_conf_t *l = ps->loc;
    int              i;

    l->gzip_types = nicd_conf_alloc(ps->conf, sizeof(char *) * (size_t) n);
    if (l->gzip_types == NULL) {
        return "out of memory";
    }
    for (i = 0; i < n; i++) {
        if ((l->gzip_types[i] = nicd_conf_strdup(ps->conf, a[i])) == NULL) {
            return "out of memory";
        }
    }
    l->ngzip_types = n;
    return NULL;
}

static const char *
set_comp_level(parse_t *ps, const char **a, int n)
{
    char *end;
    long  v = strtol(a[0], &end, 10);

    (void) n;
    if (*a[0] == '\0' || *end != '\0' || v < 1 || v > 9) {
        return nicd_conf_msg("value must be between 1 and 9");
    }
    ps->loc->gzip_comp_level = (int) v;
    return NULL;
}

static const char *
set_min_length(parse_t *ps, const char **a, int n)
{
    size_t v;

    (void) n;
    if (nicd_parse_size(a[0], &v) != 0) {
        return nicd_conf_msg("invalid value \"%s\"", a[0]);
    }
    ps->loc->gzip_min_length = (long) v;
    return NULL;
}

/* gzip_proxied, gzip_buffers, gzip_http_version, gzip_disable: nothing
 * to do here (nicd proxies nothing; every client it serves speaks 1.1 or
 * later, or 1.0 without gzip) */
static const char *
set_nothing(parse_t *ps, const char **a, int n)
{
    (void) ps;
    (void) a;
    (void) n;
    return NULL;
}

int
nicd_gzip_accepted(const nicd_str_t *v)
{
    size_t i, k;

    for (i = 0; v->p != NULL && i + 4 <= v->len; i++) {
        if (strncasecmp(v->p + i, "gzip", 4) != 0
            || (i > 0 && v->p[i - 1] != ' ' && v->p[i - 1] != ',')
            || (i + 4 < v->len && v->p[i + 4] != ',' && v->p[i + 4] != ';'
                && v->p[i + 4] != ' ')) {
            continue;
        }
        for (k = i + 4; k < v->len && v->p[k] == ' '; k++) {
        }
        if (k + 4 <= v->len && strncmp(v->p + k, ";q=0", 4) == 0) {
            for (k += 4; k < v->len && (v->p[k] == '0' || v->p[k] == '.');
                 k++) {
            }
            if (k == v->len || v->p[k] == ',' || v->p[k] == ' ') {
                return 0; /* q=0, q=0.0, ...: refused */
            }
        }
        return 1;
    }
    return 0;
}

int
nicd_gzip_wanted(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *type,
                 size_t tlen, uint64_t len)
{
    const nicd_request_t *r = c->cur_request;
    int                   i;

    if (!lc->gzip || r == NULL || (int64_t) len < lc->gzip_min_length
        || len > GZIP_MAX) {
        return 0;
    }
    if (!(tlen == 9 && memcmp(type, "text/html", 9) == 0)) {
        for (i = 0; i < lc->ngzip_types; i++) {
            if (strcmp(lc->gzip_types[i], "*") == 0
                || (strlen(lc->gzip_types[i]) == tlen
                    && strncasecmp(lc->gzip_types[i], type, tlen) == 0)) {
                break;
            }
        }
        if (i == lc->ngzip_types) {
            return 0;
        }
    }
    /* from here on the answer depends on Accept-Encoding */
    c->vary_ae |= lc->gzip_vary;
    return nicd_gzip_accepted(&r->hdr[NICD_HDR_ACCEPT_ENCODING]);
}

int
nicd_gzip_compress(int level, const char *in, size_t len, nicd_buf_t *out)
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

static const char *
nicd_gzip_body(nicd_conn_t *c, const char *type, size_t tlen, const char *body,
               size_t *len, nicd_buf_t *tmp)
{
    const nicd_loc_conf_t *lc = c->loc;

    if (lc == NULL || !lc->gzip
        || !nicd_gzip_wanted(c, lc, type, tlen, (uint64_t) *len)
        || nicd_gzip_compress(lc->gzip_comp_level, body, *len, tmp) != 0) {
        return body;
    }
    *len = tmp->len;
    return tmp->data;
}

int
nicd_gzip_file(nicd_conn_t *c, const nicd_request_t *r,
               const nicd_loc_conf_t *lc, nicd_file_t *f, const char *type)
{
    nicd_buf_t z = {0};
    char      *raw, etag[64];
    size_t     size = (size_t) f->file.size, got = 0;
    ssize_t    n;
    int        k;

    raw = malloc(size > 0 ? size : 1);
    if (raw == NULL) {
        return 0;
    }
    while (got < size) {
        n = pread(f->file.fd, raw + got, size - got, (off_t) got);
        if (n <= 0) {
            if (n == -1 && errno == EINTR) {
                continue;
            }
            log_error(LOG_ERR, errno, "pread() for gzip failed, client: %s",
                      c->addr);
            free(raw);
            return 0; /* sent as it is, then */
        }
        got += (size_t) n;
    }
    k = nicd_gzip_compress(lc->gzip_comp_level, raw, size, &z);
    free(raw);
    if (k != 0) {
        nicd_buf_free(&z);
        return 0;
    }
    nicd_resp_start(c, 200);
    nicd_resp_content_type(c, type, strlen(type));
    NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) z.len);
    if (c->resp_status == 200) {
        NICD_RESP_HEADER(c, "Last-Modified", f->last_modified,
                         NICD_HTTP_DATE_LEN);
    }
    if (lc->etag) {
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

static const directive_t nicd_gzip_directives[] = {
    {"gzip", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(nicd_loc_conf_t, gzip)},
    {"gzip_types", CTX_HSL, 1, MAX_ARGS, set_gzip_types, 0},
    {"gzip_comp_level", CTX_HSL, 1, 1, set_comp_level, 0},
    {"gzip_min_length", CTX_HSL, 1, 1, set_min_length, 0},
    {"gzip_proxied", CTX_HSL, 1, MAX_ARGS, set_nothing, 0},
    {"gzip_buffers", CTX_HSL, 2, 2, set_nothing, 0},
    {"gzip_http_version", CTX_HSL, 1, 1, set_nothing, 0},
    {"gzip_disable", CTX_HSL, 1, MAX_ARGS, set_nothing, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

static void
gzip_init(void)
{
    nicd_http_hooks.body_filter = nicd_gzip_body;
}

nicd_module_t nicd_gzip_module = {
    .name = "gzip",
    .directives = nicd_gzip_directives,
    .init = gzip_init,
};
