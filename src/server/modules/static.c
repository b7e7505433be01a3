/*
 * The static file handler: files, directories and their listings.
 *
 * RFC 9110 points applied here: conditionals in the order of 13.2.2
 * (If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since,
 * If-Range); weak comparison for If-None-Match, strong for If-Match and
 * If-Range; a 304 carries the validators and no body; a 416 carries
 * "Content-Range: bytes * /size"; HEAD gets the headers GET would get.
 * nginx's choices where the RFCs leave one: ETag "hex(mtime)-hex(size)",
 * If-Modified-Since compared exactly (if_modified_since exact), a
 * directory without a slash is redirected with 301, a directory without
 * an index is 403.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "server/http/filter.h"
#include "server/conf/directive.h"
#include "server/http/gzip_ok.h"
#include "server/http/handler.h"
#include "server/http/listing.h"
#include "server/http/path.h"
#include "server/http/files.h"
#include "server/http/phases.h"
#include "server/http/variables.h"
#include "server/http/range.h"

enum { AUTOINDEX_HTML = 0, AUTOINDEX_JSON, AUTOINDEX_XML, AUTOINDEX_JSONP };

/* the module's settings of a level (nginx's index, autoindex and
 * gzip_static modules' in one) */
typedef struct {
    char            **index;    /* NULL: unset */
    const nicd_cv_t **index_cv; /* each name with variables, else NULL */
    int               nindex;
    int               autoindex, exact_size, localtime, format;
    int               gzip_static; /* GZ_STATIC_* */
    int               gunzip;
} static_conf_t;

enum { GZ_STATIC_OFF = 0, GZ_STATIC_ON, GZ_STATIC_ALWAYS };

/* gunzip's limit: a larger file's decompressed body is not made in
 * memory (500 and a log line) */
#define GUNZIP_MAX (64 << 20)

nicd_module_t nicd_static_module;

#define SC(lc) ((const static_conf_t *) NICD_LOC_CONF(lc, nicd_static_module))

static void *
create_conf(nicd_conf_t *c)
{
    static_conf_t *sc = nicd_conf_alloc(c, sizeof(*sc));

    if (sc != NULL) {
        sc->autoindex = sc->exact_size = sc->localtime = NICD_UNSET;
        sc->format = sc->gzip_static = sc->gunzip = NICD_UNSET;
    }
    return sc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    static char         *default_index[] = {"index.html"};
    const static_conf_t *p = prev;
    static_conf_t       *sc = conf;

    (void) c;
    if (sc->index == NULL) {
        sc->index = p != NULL ? p->index : default_index;
        sc->index_cv = p != NULL ? p->index_cv : NULL;
        sc->nindex = p != NULL ? p->nindex : 1;
    }
    NICD_MERGE(sc, p, autoindex, 0);
    NICD_MERGE(sc, p, exact_size, 1);
    NICD_MERGE(sc, p, localtime, 0);
    NICD_MERGE(sc, p, format, AUTOINDEX_HTML);
    NICD_MERGE(sc, p, gzip_static, GZ_STATIC_OFF);
    NICD_MERGE(sc, p, gunzip, 0);
    return NULL;
}

static const char *
set_index(parse_t *ps, const char **a, int n)
{
    static_conf_t *sc = nicd_conf_module_loc(ps);
    const char    *err, *text;
    size_t         len;
    int            i;

    for (i = 0; i < n; i++) {
        if (a[i][0] == '\0') {
            return "index \"\" in \"index\" directive is invalid";
        }
        if (a[i][0] == '/' && i != n - 1) {
            return "only the last index in \"index\" directive should be "
                   "absolute";
        }
    }
    sc->index = nicd_conf_alloc(ps->conf, sizeof(char *) * (size_t) n);
    sc->index_cv = nicd_conf_alloc(ps->conf, sizeof(nicd_cv_t *) * (size_t) n);
    if (sc->index == NULL || sc->index_cv == NULL) {
        return "out of memory";
    }
    for (i = 0; i < n; i++) {
        if ((sc->index[i] = nicd_conf_strdup(ps->conf, a[i])) == NULL
            || (sc->index_cv[i] = nicd_conf_cv(ps, a[i], &err)) == NULL) {
            return sc->index[i] == NULL ? "out of memory" : err;
        }
        if (nicd_cv_literal(sc->index_cv[i], &text, &len)) {
            sc->index_cv[i] = NULL;
        }
    }
    sc->nindex = n;
    return NULL;
}

/* in nginx's order (its message lists them so) */
static const nicd_conf_enum_t autoindex_formats[] = {{"html", AUTOINDEX_HTML},
                                                     {"xml", AUTOINDEX_XML},
                                                     {"json", AUTOINDEX_JSON},
                                                     {"jsonp", AUTOINDEX_JSONP},
                                                     {NULL, 0}};

static const nicd_conf_enum_t gzip_static_values[] = {
    {"off", GZ_STATIC_OFF},
    {"on", GZ_STATIC_ON},
    {"always", GZ_STATIC_ALWAYS},
    {NULL, 0}};

#define SLOT(f) offsetof(static_conf_t, f)

static const directive_t nicd_static_directives[] = {
    {"index", CTX_HSL, 1, MAX_ARGS, set_index, 0},
    {"autoindex", CTX_HSL, 1, 1, nicd_conf_slot_flag, SLOT(autoindex)},
    {"autoindex_exact_size", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     SLOT(exact_size)},
    {"autoindex_localtime", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     SLOT(localtime)},
    {"autoindex_format", CTX_HSL, 1, 1, nicd_conf_slot_enum, SLOT(format), 0,
     autoindex_formats},
    {"gzip_static", CTX_HSL, 1, 1, nicd_conf_slot_enum, SLOT(gzip_static), 0,
     gzip_static_values},
    {"gunzip", CTX_HSL, 1, 1, nicd_conf_slot_flag, SLOT(gunzip)},
    {"gunzip_buffers", CTX_HSL, 2, 2, nicd_conf_housekeeping, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

static _Thread_local uint64_t boundary_seq;

/*
 * Does the entity-tag list v match etag?  weak: W/ prefixes are ignored
 * on both sides (RFC 9110, 8.8.3.2).  "*" matches any.
 */
static int
etag_match(const char *v, size_t len, const char *etag, size_t elen, int weak)
{
    size_t i = 0, s;
    int    is_weak;

    while (i < len) {
        while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) {
            i++;
        }
        if (i == len) {
            break;
        }
        if (v[i] == '*') {
            return 1;
        }
        is_weak = 0;
        if (i + 1 < len && v[i] == 'W' && v[i + 1] == '/') {
            is_weak = 1;
            i += 2;
        }
        s = i;
        if (i < len && v[i] == '"') {
            i++;
            while (i < len && v[i] != '"') {
                i++;
            }
            if (i < len) {
                i++;
            }
        } else {
            while (i < len && v[i] != ',') {
                i++;
            }
        }
        if (i - s == elen && memcmp(v + s, etag, elen) == 0
            && (weak || !is_weak)) {
            return 1;
        }
    }
    return 0;
}

static time_t
header_date(const nicd_str_t *v)
{
    return v->p == NULL ? -1 : nicd_http_date_parse(v->p, v->len);
}

/*
 * Preconditions (RFC 9110, 13.2.2).  Returns 0 to go on, or 304 / 412.
 */
static int
preconditions(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *f)
{
    const nicd_loc_conf_t *cf = c->r->loc;
    const nicd_str_t      *h = r->hdr;
    time_t                 t;

    if (h[NICD_HDR_IF_MATCH].p != NULL) {
        if (!etag_match(h[NICD_HDR_IF_MATCH].p, h[NICD_HDR_IF_MATCH].len,
                        f->etag, f->etag_len, 0)) {
            return 412;
        }
    } else if (h[NICD_HDR_IF_UNMODIFIED_SINCE].p != NULL) {
        t = header_date(&h[NICD_HDR_IF_UNMODIFIED_SINCE]);
        if (t != -1 && f->mtime > t) {
            return 412;
        }
    }

    if (h[NICD_HDR_IF_NONE_MATCH].p != NULL) {
        if (cf->etag
            && etag_match(h[NICD_HDR_IF_NONE_MATCH].p,
                          h[NICD_HDR_IF_NONE_MATCH].len, f->etag, f->etag_len,
                          1)) {
            return 304;
        }
    } else if (h[NICD_HDR_IF_MODIFIED_SINCE].p != NULL
               && cf->if_modified_since != NICD_IMS_OFF) {
        t = header_date(&h[NICD_HDR_IF_MODIFIED_SINCE]);
        if (t != -1
            && (cf->if_modified_since == NICD_IMS_EXACT ? f->mtime == t
                                                        : f->mtime <= t)) {
            return 304;
        }
    }
    return 0;
}

/* If-Range: does the response's validator still match (strong)?  An
 * add_header of ETag or Last-Modified replaces the file's (nginx's
 * headers filter runs before its range filter; an empty one: none) */
static int
if_range_ok(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *f)
{
    const nicd_str_t *v = &r->hdr[NICD_HDR_IF_RANGE];
    nicd_buf_t       *b = &c->w->hexpand;
    time_t            t;

    if (v->p == NULL) {
        return 1;
    }
    /* an entity tag ("..." or W/"..."), else a date: "Wed, ..." is one */
    if (v->len > 0
        && (v->p[0] == '"'
            || (v->len > 2 && v->p[0] == 'W' && v->p[1] == '/'))) {
        if (nicd_resp_replaced(c, 206, "ETag", 4, b)) {
            return b->len > 0 && v->len == b->len
                   && memcmp(v->p, b->data, v->len) == 0;
        }
        return v->len == f->etag_len && memcmp(v->p, f->etag, v->len) == 0;
    }
    t = nicd_http_date_parse(v->p, v->len);
    if (nicd_resp_replaced(c, 206, "Last-Modified", 13, b)) {
        return t != -1 && b->len > 0
               && t == nicd_http_date_parse(b->data, b->len);
    }
    /* a date is only a strong validator when the file has not changed
     * within the second it names (RFC 9110, 8.8.2.2 and 13.1.5) */
    return t != -1 && t == f->mtime && time(NULL) > f->mtime;
}

static void
validators(nicd_conn_t *c, nicd_file_t *f)
{
    /* a file answering with an error_page's status has no date of its
     * own to give (nginx's header filter drops it there too) */
    int s = c->r->status, any = nicd_resp_replaced(c, s, NULL, 0, NULL);

    if ((s == 200 || s == 206 || s == 304)
        && (!any || !nicd_resp_replaced(c, s, "Last-Modified", 13, NULL))) {
        NICD_RESP_HEADER(c, "Last-Modified", f->last_modified,
                         NICD_HTTP_DATE_LEN);
    }
    if (c->r->loc->etag
        && (!any || !nicd_resp_replaced(c, s, "ETag", 4, NULL))) {
        NICD_RESP_HEADER(c, "ETag", f->etag, f->etag_len);
    }
}

/* the file's type by extension, else the location's default_type */
static const char *
mime_of(nicd_conn_t *c, nicd_file_t *f)
{
    return f->mime != NULL ? f->mime : c->r->loc->default_type;
}

static void
content_type(nicd_conn_t *c, nicd_file_t *f)
{
    const char *t = c->r->type_of != NULL ? c->r->type_of : mime_of(c, f);

    nicd_resp_content_type(c, t, strlen(t));
    if (c->r->gzipped) {
        NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
    }
}

static void static_file(nicd_conn_t *c, const nicd_request_t *r,
                        nicd_file_t *f);

/* the head of a gunzipped answer (body: its length, NULL for a HEAD) */
static void
gunzip_head(nicd_conn_t *c, nicd_file_t *gz, const char *type,
            const nicd_buf_t *body)
{
    char etag[sizeof(gz->etag) + 2];

    nicd_resp_start(c, 200);
    nicd_resp_content_type(c, type, strlen(type));
    if (c->r->status == 200
        && !nicd_resp_replaced(c, 200, "Last-Modified", 13, NULL)) {
        NICD_RESP_HEADER(c, "Last-Modified", gz->last_modified,
                         NICD_HTTP_DATE_LEN);
    }
    if (c->r->loc->etag && gz->etag_len > 0
        && !nicd_resp_replaced(c, c->r->status, "ETag", 4, NULL)) {
        memcpy(etag, "W/", 2);
        memcpy(etag + 2, gz->etag, gz->etag_len);
        NICD_RESP_HEADER(c, "ETag", etag, gz->etag_len + 2);
    }
    if (body != NULL) {
        nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) body->len);
    }
    nicd_resp_end_headers(c);
    if (body == NULL) {
        nicd_resp_finish(c, 200);
    }
}

/*
 * gunzip: the .gz gz decompressed in memory for a client that does not
 * take gzip (nginx's ngx_http_gunzip_module, for what gzip_static always
 * chose); every gzip member of it, in order.  As nginx: the .gz's
 * Last-Modified and its ETag made weak, no ranges, and no length for a
 * HEAD (nginx streams the body; it is not made for one).  A file that
 * does not inflate: 500.
 */
static void
gunzip_file(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *gz,
            const char *type)
{
    nicd_buf_t     in = {0}, out = {0};
    z_stream       z;
    ssize_t        n;
    off_t          at = 0;
    int            rc = Z_OK, head = r->method == NICD_M_HEAD;
    unsigned char *p;

    if (head) {
        gunzip_head(c, gz, type, NULL);
        return;
    }
    if ((off_t) gz->file.size > GUNZIP_MAX
        || nicd_buf_reserve(&in, (size_t) (off_t) gz->file.size) != 0) {
        goto fail;
    }
    while (at < (off_t) gz->file.size) {
        n = pread(gz->file.fd, in.data + at,
                  (size_t) ((off_t) gz->file.size - at), at);
        if (n <= 0) {
            goto fail;
        }
        at += n;
    }
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        goto fail;
    }
    z.next_in = (Bytef *) in.data;
    z.avail_in = (uInt) (off_t) gz->file.size;
    while (z.avail_in > 0) {
        if (nicd_buf_reserve(&out, 64 * 1024) != 0
            || out.len + 64 * 1024 > GUNZIP_MAX) {
            rc = Z_MEM_ERROR;
            break;
        }
        p = (unsigned char *) out.data + out.len;
        z.next_out = p;
        z.avail_out = 64 * 1024;
        rc = inflate(&z, Z_NO_FLUSH);
        out.len += (size_t) (z.next_out - p);
        if (rc == Z_STREAM_END && z.avail_in > 0) {
            rc = inflateReset(&z); /* the next member */
        } else if (rc != Z_OK && rc != Z_STREAM_END) {
            break;
        }
    }
    inflateEnd(&z);
    if (rc != Z_OK && rc != Z_STREAM_END) {
        goto fail;
    }
    nicd_buf_free(&in);
    gunzip_head(c, gz, type, &out);
    nicd_resp_body_mem(c, out.data, out.len);
    nicd_resp_finish(c, 200);
    nicd_buf_free(&out);
    return;

fail:
    log_error(LOG_ERR, 0, "gunzip of \"%s\" failed, client: %s", gz->path,
              nicd_client(c));
    nicd_buf_free(&in);
    nicd_buf_free(&out);
    nicd_respond_error(c, 500, head, NULL, 0);
}

/*
 * gzip_static: the file's ".gz" beside it, for a client that takes gzip
 * (nginx's ngx_http_gzip_static_module; with gzip_vary, Vary says the
 * answer depends on Accept-Encoding whenever a .gz exists), for any
 * client with "always"; as nginx, whether or not the file itself exists
 * (f NULL: it does not).  A client that does not take gzip gets it
 * decompressed with gunzip on.  1 when it answered.  Otherwise the bytes
 * go out as they are on disk: no compression here.
 */
static int
gzip_static(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *lc,
            nicd_file_t *f, const char *path, size_t len)
{
    nicd_file_t *gz;
    char        *p;
    const char  *type;
    int          err, takes;

    p = malloc(len + 4);
    if (p == NULL) {
        return 0;
    }
    memcpy(p, path, len);
    memcpy(p + len, ".gz", 4);
    if (nicd_uri_open(c, lc, p, len + 3, 0, &gz, &err) != 0) {
        free(p);
        return 0;
    }
    free(p);
    if (gz->is_dir) {
        nicd_ofc_release(&c->w->ofc, gz);
        return 0;
    }
    c->r->vary_ae = lc->gzip_vary;
    takes = nicd_gzip_ok(c, NULL); /* (before any field is set: nginx's) */
    if (!takes && SC(lc)->gzip_static != GZ_STATIC_ALWAYS) {
        nicd_ofc_release(&c->w->ofc, gz);
        return 0;
    }
    type = f != NULL ? mime_of(c, f)
                     : nicd_conf_mime(c->w->cycle->conf, path, len);
    type = type != NULL ? type : lc->default_type;
    if (!takes && SC(lc)->gunzip) {
        gunzip_file(c, r, gz, type);
    } else {
        c->r->gzipped = 1;
        c->r->type_of = type;
        static_file(c, r, gz);
    }
    nicd_ofc_release(&c->w->ofc, gz);
    return 1;
}

static void
send_not_modified(nicd_conn_t *c, nicd_file_t *f)
{
    nicd_resp_start(c, 304);
    validators(c, f);
    nicd_resp_end_headers(c);
    nicd_resp_finish(c, 304);
}

/* what a file's response sends: the file, or its bytes recoded by the
 * charset (mem) */
typedef struct {
    nicd_file_t *f;
    const char  *mem; /* NULL: the file's bytes */
    off_t        size;
} body_t;

static void
send_part(nicd_conn_t *c, const body_t *b, off_t off, size_t len)
{
    if (b->mem != NULL) {
        nicd_resp_body_mem(c, b->mem + off, len);
    } else {
        nicd_resp_body_file(c, b->f, off, len);
    }
}

/* the header of one part of a multipart/byteranges body */
static int
part_header(char *buf, size_t len, const char *boundary, const char *mime,
            const body_t *b, const nicd_range_t *rg)
{
    return snprintf(buf, len,
                    "\r\n--%s\r\nContent-Type: %s\r\nContent-Range: bytes "
                    "%lld-%lld/%lld\r\n\r\n",
                    boundary, mime, (long long) rg->start, (long long) rg->end,
                    (long long) b->size);
}

static void
send_multipart(nicd_conn_t *c, const body_t *b, nicd_range_t *rg, int n,
               int head)
{
    char        boundary[24], part[384], ctype[80], tail[32], mime[256];
    const char *t = mime_of(c, b->f);
    size_t      tlen;
    uint64_t    total = 0;
    int         i, k;

    snprintf(boundary, sizeof(boundary), "%020llu",
             (unsigned long long) ++boundary_seq);
    /* each part's type as the whole would have it, charset and all
     * (nginx's) */
    nicd_resp_start(c, 206);
    if (nicd_content_type_value(c, t, strlen(t), mime, sizeof(mime)) == 0) {
        snprintf(mime, sizeof(mime), "%s", t);
    }

    /* every part header differs only in its range: size them first */
    for (i = 0; i < n; i++) {
        k = part_header(part, sizeof(part), boundary, mime, b, &rg[i]);
        total += (uint64_t) k + (uint64_t) (rg[i].end - rg[i].start + 1);
    }
    tlen = (size_t) snprintf(tail, sizeof(tail), "\r\n--%s--\r\n", boundary);
    total += tlen;

    k = snprintf(ctype, sizeof(ctype), "multipart/byteranges; boundary=%s",
                 boundary);
    NICD_RESP_HEADER(c, "Content-Type", ctype, (size_t) k);
    nicd_resp_header_u64(c, "Content-Length", 14, total);
    validators(c, b->f);
    nicd_resp_end_headers(c);

    if (!head) {
        for (i = 0; i < n; i++) {
            k = part_header(part, sizeof(part), boundary, mime, b, &rg[i]);
            nicd_resp_body_mem(c, part, (size_t) k);
            send_part(c, b, rg[i].start,
                      (size_t) (rg[i].end - rg[i].start + 1));
        }
        nicd_resp_body_mem(c, tail, tlen);
    }
    nicd_resp_finish(c, 206);
}

/* a Range of b answered (1: a 206 or 416), or 0: the whole body, then */
static int
send_ranges(nicd_conn_t *c, const nicd_request_t *r, const body_t *b)
{
    const nicd_str_t *range = &r->hdr[NICD_HDR_RANGE];
    nicd_range_t     *rg, one;
    char              cr[80];
    int               n = 0, k, rc;

    c->w->scratch.len = 0;
    if (nicd_buf_reserve(&c->w->scratch,
                         sizeof(nicd_range_t) * (size_t) c->r->loc->max_ranges)
        != 0) {
        nicd_respond_error(c, 500, 0, NULL, 0);
        return 1;
    }
    rg = (nicd_range_t *) (void *) c->w->scratch.data;
    rc = nicd_range_parse(range->p, range->len, b->size, c->r->loc->max_ranges,
                          rg, &n);
    if (rc == NICD_RANGE_UNSATISFIABLE) {
        nicd_resp_start(c, 416);
        NICD_RESP_HEADER(c, "Content-Type", "text/html", 9);
        k = snprintf(cr, sizeof(cr), "bytes */%lld", (long long) b->size);
        NICD_RESP_HEADER(c, "Content-Range", cr, (size_t) k);
        NICD_RESP_HEADER(c, "Content-Length", "0", 1);
        nicd_resp_end_headers(c);
        nicd_resp_finish(c, 416);
        return 1;
    }
    if (rc != NICD_RANGE_OK) {
        return 0;
    }
    if (n > 1) {
        send_multipart(c, b, rg, n, 0);
        return 1;
    }
    one = rg[0];
    nicd_resp_start(c, 206);
    content_type(c, b->f);
    nicd_resp_header_u64(c, "Content-Length", 14,
                         (uint64_t) (one.end - one.start + 1));
    k = snprintf(cr, sizeof(cr), "bytes %lld-%lld/%lld", (long long) one.start,
                 (long long) one.end, (long long) b->size);
    NICD_RESP_HEADER(c, "Content-Range", cr, (size_t) k);
    validators(c, b->f);
    nicd_resp_end_headers(c);
    send_part(c, b, one.start, (size_t) (one.end - one.start + 1));
    nicd_resp_finish(c, 206);
    return 1;
}

static void
static_file(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *f)
{
    const nicd_loc_conf_t *cf = c->r->loc;
    const nicd_recode_t   *rc = NULL;
    const char            *type = mime_of(c, f);
    nicd_buf_t             mem = {0};
    body_t                 b = {f, NULL, f->file.size};
    int                    status, head = r->method == NICD_M_HEAD;

    status = preconditions(c, r, f);
    if (status == 304) {
        send_not_modified(c, f);
        return;
    }
    if (status == 412) {
        nicd_respond_error(c, 412, head, NULL, 0);
        return;
    }

    /* the charset's recoding: the body in memory */
    switch (nicd_file_recode(c, f, c->r->type_of != NULL ? c->r->type_of : type,
                             &mem, &rc)) {
    case -1:
        nicd_buf_free(&mem);
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    case 1:
        b.mem = mem.data;
        b.size = (off_t) mem.len;
        break;
    }

    /* the file filter (gzip on the fly: the whole body compressed,
     * ranges and all) */
    if (nicd_file_filter(c, r, cf, f, type, b.mem, mem.len)) {
        nicd_buf_free(&mem);
        return;
    }

    /* GET is the only method with range semantics: a HEAD gets what a
     * plain GET would (RFC 9110, 14.2: MUST ignore); a body recoded to
     * another length has none (nginx: no length, no ranges) */
    if (r->hdr[NICD_HDR_RANGE].p != NULL && r->method == NICD_M_GET
        && cf->max_ranges > 0 && !c->r->gzipped && if_range_ok(c, r, f)
        && (rc == NULL || rc->same_length) && send_ranges(c, r, &b)) {
        nicd_buf_free(&mem);
        return;
    }

    nicd_resp_start(c, 200);
    content_type(c, f);
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) b.size);
    validators(c, f);
    if (c->r->status == 200 && !c->r->gzipped
        && (rc == NULL || rc->same_length)) {
        /* not on a file that answers an error_page's status (nginx's
         * range filter offers ranges of a 200 only), nor on a .gz
         * gzip_static chose (nginx serves that whole) */
        NICD_RESP_HEADER(c, "Accept-Ranges", "bytes", 5);
    }
    nicd_resp_end_headers(c);
    if (!head && b.size > 0) {
        send_part(c, &b, 0, (size_t) b.size);
    }
    nicd_buf_free(&mem);
    nicd_resp_finish(c, 200);
}

/*
 * jsonp's callback: the query's "callback" argument (any case, as nginx
 * reads arguments); *len 0 when there is none or it is empty (plain
 * JSON then).  -1 when it is no JavaScript name nginx takes (letters,
 * digits, "_" and ".", up to 128 of them): a 400 and an info line.
 */
#define JSONP_MAX 128

static int
jsonp_callback(nicd_conn_t *c, const nicd_request_t *r, const char **cb,
               size_t *len)
{
    nicd_str_t v = {NULL, 0};
    size_t     i;

    (void) nicd_query_arg(nicd_req_args(c, r), "callback", 8, &v);
    *cb = v.p;
    *len = v.len;
    if (*len > JSONP_MAX) {
        log_error(LOG_INFO, 0, "client sent too long callback name, client: %s",
                  nicd_client(c));
        return -1;
    }
    for (i = 0; i < *len; i++) {
        char ch = (*cb)[i];

        if (!isalnum((unsigned char) ch) && ch != '_' && ch != '.') {
            log_error(LOG_INFO, 0,
                      "client sent invalid callback name: \"%.*s\", client: %s",
                      (int) *len, *cb, nicd_client(c));
            return -1;
        }
    }
    return 0;
}

/*
 * autoindex: a listing as nginx's ngx_http_autoindex_module writes it
 * (html, json or xml; hidden files left out; directories first), sent
 * with its length where nginx streams it chunked.
 */
static void
serve_listing(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *dir,
              const nicd_loc_conf_t *lc, const char *path)
{
    nicd_buf_t               b = {0};
    DIR                     *d;
    struct dirent           *de;
    struct stat              st;
    nicd_listing_entry_t    *e = NULL, *ne;
    size_t                   n = 0, cap = 0, i;
    int                      fd, head = r->method == NICD_M_HEAD;
    static const char *const types[] = {"text/html", "application/json",
                                        "text/xml; charset=utf-8",
                                        "application/javascript"};
    int                      format = SC(lc)->format;
    const char              *cb = NULL;
    size_t                   cblen = 0;

    if (format == AUTOINDEX_JSONP) {
        if (jsonp_callback(c, r, &cb, &cblen) != 0) {
            nicd_respond_error(c, 400, head, NULL, 0);
            return;
        }
        if (cblen == 0) {
            format = AUTOINDEX_JSON;
        }
    }
    fd = dup(dir->file.fd);
    d = fd == -1 ? NULL : fdopendir(fd);
    if (d == NULL) {
        if (fd != -1) {
            close(fd);
        }
        nicd_respond_error(c, nicd_open_status(c, errno, path), head, NULL, 0);
        return;
    }
    rewinddir(d);
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        if (fstatat(dirfd(d), de->d_name, &st, 0) != 0) {
            continue; /* gone, or a dangling link: nginx leaves it out */
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            ne = realloc(e, cap * sizeof(*e));
            if (ne == NULL) {
                break;
            }
            e = ne;
        }
        e[n].len = strlen(de->d_name);
        e[n].name = strdup(de->d_name);
        e[n].dir = S_ISDIR(st.st_mode);
        e[n].size = st.st_size;
        e[n].mtime = st.st_mtim.tv_sec;
        if (e[n].name != NULL && e[n].len <= 255) {
            n++;
        } else {
            free(e[n].name);
        }
    }
    closedir(d);
    nicd_listing_sort(e, n);
    switch (format) {
    case AUTOINDEX_JSONP:
        /* nginx's: a comment line, then callback(<the JSON listing>); */
        NICD_BUF_LIT(&b, "/* callback */\r\n");
        nicd_buf_add(&b, cb, cblen);
        NICD_BUF_LIT(&b, "(");
        nicd_listing_json(&b, e, n);
        NICD_BUF_LIT(&b, ");");
        break;
    case AUTOINDEX_JSON: nicd_listing_json(&b, e, n); break;
    case AUTOINDEX_XML: nicd_listing_xml(&b, e, n); break;
    default:
        nicd_listing_html(&b, path, e, n, nicd_listing_utf8(c),
                          SC(lc)->localtime, SC(lc)->exact_size);
    }
    for (i = 0; i < n; i++) {
        free(e[i].name);
    }
    free(e);

    nicd_respond_mem(c, 200, head, types[format], 0, &b);
    nicd_buf_free(&b);
}

/* the index files of lc for "/dir/" (path, len bytes): the first that
 * exists, by an internal redirect as nginx's index module does (its
 * location is found again), or an absolute one reached first: 1 when it
 * answered, 0 when none is there (nor, dir_exists 0, any after a
 * relative one: the directory is not there, nginx's test) */
static int
try_index(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *lc,
          const char *path, size_t len, int dir_exists)
{
    nicd_file_t *f;
    nicd_buf_t   val = {0};
    int          i, err, head = r->method == NICD_M_HEAD;
    size_t       ilen;
    char        *uri;

    for (i = 0; i < SC(lc)->nindex; i++) {
        const char *name = SC(lc)->index[i];

        val.len = 0;
        if (SC(lc)->index_cv != NULL && SC(lc)->index_cv[i] != NULL) {
            /* its name for this request (a map's, say) */
            if (nicd_cv_eval(c, SC(lc)->index_cv[i], NULL, &val) != 0) {
                nicd_buf_free(&val);
                nicd_respond_error(c, 500, head, NULL, 0);
                return 1;
            }
            name = val.data;
        }
        ilen = strlen(name);
        if (name[0] == '/') {
            /* an absolute one: there, whether or not it exists (nginx) */
            nicd_internal_redirect(c, r, name, ilen, 1);
            nicd_buf_free(&val);
            return 1;
        }
        uri = malloc(len + ilen + 1);
        if (uri == NULL) {
            nicd_buf_free(&val);
            nicd_respond_error(c, 500, head, NULL, 0);
            return 1;
        }
        memcpy(uri, path, len);
        memcpy(uri + len, name, ilen + 1);
        nicd_buf_free(&val);
        if (nicd_uri_open(c, lc, uri, len + ilen, 0, &f, &err) != 0) {
            free(uri);
            if ((err == ENOENT || err == ENOTDIR) && dir_exists) {
                continue;
            }
            if (err == ENOENT || err == ENOTDIR) {
                return 0;
            }
            nicd_respond_error(c, nicd_open_status(c, err, path), head, NULL,
                               0);
            return 1;
        }
        nicd_ofc_release(&c->w->ofc, f);
        nicd_internal_redirect(c, r, uri, len + ilen, 1);
        free(uri);
        return 1;
    }

    return 0;
}

/*
 * A directory: "/dir" -> "/dir/" (301, keeping the query, as nginx does);
 * "/dir/": the first index file that exists, by an internal redirect as
 * nginx's index module does (its location is found again), else a
 * listing with autoindex, else 403.
 */
static void
static_directory(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *dir,
                 const nicd_loc_conf_t *lc, const char *path, size_t len)
{
    nicd_buf_t *loc = &c->w->scratch;
    int         head = r->method == NICD_M_HEAD;

    if (path[len - 1] != '/') {
        /* the URI at hand (after rewrites), as nginx builds it */
        loc->len = 0;
        if (nicd_buf_reserve(loc, 3 * len + 1) != 0) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return;
        }
        loc->len = nicd_path_escape(path, len, loc->data);
        NICD_BUF_LIT(loc, "/");
        if (nicd_req_args(c, r)->len > 0) {
            NICD_BUF_LIT(loc, "?");
            nicd_buf_add(loc, nicd_req_args(c, r)->p, nicd_req_args(c, r)->len);
        }
        if (nicd_buf_failed(loc)) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return;
        }
        nicd_redirect(c, r, 301, loc->data, loc->len);
        return;
    }

    if (try_index(c, r, lc, path, len, 1)) {
        return;
    }

    if (SC(lc)->autoindex) {
        serve_listing(c, r, dir, lc, path);
        return;
    }
    log_error(LOG_ERR, 0,
              "directory index of \"%s%s\" is forbidden, "
              "client: %s",
              lc->root, path, nicd_client(c));
    nicd_respond_error(c, 403, head, NULL, 0);
}

/* the content phase: the file, directory or listing the URI names */
static int
static_handler(nicd_conn_t *c, const nicd_request_t *r,
               const nicd_loc_conf_t *lc, const char *path, size_t len)
{
    int          head = r->method == NICD_M_HEAD;
    nicd_file_t *f;
    int          err, status;

    if (r->method != NICD_M_GET && !head && r->method != NICD_M_POST) {
        nicd_respond_error(c, 405, head, NULL, 0);
        return NICD_DONE;
    }
    if (nicd_uri_open(c, lc, path, len, 0, &f, &err) != 0) {
        /* (a POST too: nginx's static module answers what is not there
         * as for a GET, and refuses only what is) */
        if (err == ENOENT && SC(lc)->gzip_static != GZ_STATIC_OFF
            && r->method != NICD_M_POST && path[len - 1] != '/'
            && gzip_static(c, r, lc, NULL, path, len)) {
            return NICD_DONE; /* only the .gz is there (nginx serves it) */
        }
        if ((err == ENOENT || err == ENOTDIR) && path[len - 1] == '/'
            && try_index(c, r, lc, path, len, 0)) {
            return NICD_DONE; /* an absolute index (nginx's index module
                                 needs no directory for it) */
        }
        status = nicd_open_status(c, err, path);
        if (status == 404 && nicd_files_log_not_found(lc)) {
            /* nginx's line, at its level */
            log_error(LOG_ERR, err, "open() \"%s%s\" failed, client: %s",
                      lc->root, path, nicd_client(c));
        }
        nicd_respond_error(c, status, head, NULL, 0);
        return NICD_DONE;
    }
    if (r->method == NICD_M_POST) {
        nicd_respond_error(c, 405, head, NULL, 0);
    } else if (f->is_dir) {
        static_directory(c, r, f, lc, path, len);
    } else if (path[len - 1] == '/') {
        nicd_respond_error(c, 404, head, NULL, 0); /* "/file/" names none */
    } else if (SC(lc)->gzip_static == GZ_STATIC_OFF
               || !gzip_static(c, r, lc, f, path, len)) {
        static_file(c, r, f);
    }
    nicd_ofc_release(&c->w->ofc, f);
    return NICD_DONE;
}

static const char *
static_postconfiguration(nicd_conf_t *c)
{
    return nicd_phase_add(c, NICD_PHASE_CONTENT, static_handler);
}

nicd_module_t nicd_static_module = {
    .name = "static",
    .directives = nicd_static_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = static_postconfiguration,
};
