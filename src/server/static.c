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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handler.h"
#include "path.h"
#include "range.h"

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
    const nicd_conf_t *cf = c->w->cycle->conf;
    const nicd_str_t  *h = r->hdr;
    time_t             t;

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

/* If-Range: does the validator still match?  (strong comparison) */
static int
if_range_ok(const nicd_request_t *r, nicd_file_t *f)
{
    const nicd_str_t *v = &r->hdr[NICD_HDR_IF_RANGE];
    time_t            t;

    if (v->p == NULL) {
        return 1;
    }
    if (v->len > 0 && (v->p[0] == '"' || (v->len > 2 && v->p[0] == 'W'))) {
        return v->len == f->etag_len && memcmp(v->p, f->etag, v->len) == 0;
    }
    /* a date is only a strong validator when the file has not changed
     * within the second it names (RFC 9110, 8.8.2.2 and 13.1.5) */
    t = nicd_http_date_parse(v->p, v->len);
    return t != -1 && t == f->mtime && time(NULL) > f->mtime;
}

static void
validators(nicd_conn_t *c, nicd_file_t *f)
{
    NICD_RESP_HEADER(c, "Last-Modified", f->last_modified, NICD_HTTP_DATE_LEN);
    if (c->w->cycle->conf->etag) {
        NICD_RESP_HEADER(c, "ETag", f->etag, f->etag_len);
    }
}

static void
content_type(nicd_conn_t *c, nicd_file_t *f)
{
    NICD_RESP_HEADER(c, "Content-Type", f->mime, strlen(f->mime));
}

static void
send_not_modified(nicd_conn_t *c, nicd_file_t *f)
{
    nicd_resp_start(c, 304);
    validators(c, f);
    nicd_resp_end_headers(c);
    nicd_resp_finish(c, 304);
}

/* the header of one part of a multipart/byteranges body */
static int
part_header(char *buf, size_t len, const char *boundary, nicd_file_t *f,
            const nicd_range_t *rg)
{
    return snprintf(buf, len,
                    "\r\n--%s\r\nContent-Type: %s\r\nContent-Range: bytes "
                    "%lld-%lld/%lld\r\n\r\n",
                    boundary, f->mime, (long long) rg->start,
                    (long long) rg->end, (long long) f->file.size);
}

static void
send_multipart(nicd_conn_t *c, nicd_file_t *f, nicd_range_t *rg, int n,
               int head)
{
    char     boundary[24], part[256], ctype[80], tail[32];
    size_t   tlen;
    uint64_t total = 0;
    int      i, k;

    snprintf(boundary, sizeof(boundary), "%020llu",
             (unsigned long long) ++boundary_seq);

    /* every part header differs only in its range: size them first */
    for (i = 0; i < n; i++) {
        k = part_header(part, sizeof(part), boundary, f, &rg[i]);
        total += (uint64_t) k + (uint64_t) (rg[i].end - rg[i].start + 1);
    }
    tlen = (size_t) snprintf(tail, sizeof(tail), "\r\n--%s--\r\n", boundary);
    total += tlen;

    nicd_resp_start(c, 206);
    k = snprintf(ctype, sizeof(ctype), "multipart/byteranges; boundary=%s",
                 boundary);
    NICD_RESP_HEADER(c, "Content-Type", ctype, (size_t) k);
    nicd_resp_header_u64(c, "Content-Length", 14, total);
    validators(c, f);
    nicd_resp_end_headers(c);

    if (!head) {
        for (i = 0; i < n; i++) {
            k = part_header(part, sizeof(part), boundary, f, &rg[i]);
            nicd_resp_body_mem(c, part, (size_t) k);
            nicd_resp_body_file(c, f, rg[i].start,
                                (size_t) (rg[i].end - rg[i].start + 1));
        }
        nicd_resp_body_mem(c, tail, tlen);
    }
    nicd_resp_finish(c, 206);
}

void
nicd_static_file(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *f)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    const nicd_str_t  *range = &r->hdr[NICD_HDR_RANGE];
    nicd_range_t      *rg;
    char               cr[80];
    int                status, n = 0, k, rc = NICD_RANGE_IGNORE;
    int                head = r->method == NICD_M_HEAD;

    status = preconditions(c, r, f);
    if (status == 304) {
        send_not_modified(c, f);
        return;
    }
    if (status == 412) {
        nicd_respond_error(c, 412, head, NULL, 0);
        return;
    }

    /* GET is the only method with range semantics: a HEAD gets what a
     * plain GET would (RFC 9110, 14.2: MUST ignore) */
    if (range->p != NULL && r->method == NICD_M_GET && cf->max_ranges > 0
        && if_range_ok(r, f)) {
        c->w->scratch.len = 0;
        if (nicd_buf_reserve(&c->w->scratch,
                             sizeof(nicd_range_t) * (size_t) cf->max_ranges)
            != 0) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return;
        }
        rg = (nicd_range_t *) (void *) c->w->scratch.data;
        rc = nicd_range_parse(range->p, range->len, f->file.size,
                              cf->max_ranges, rg, &n);
        if (rc == NICD_RANGE_UNSATISFIABLE) {
            nicd_resp_start(c, 416);
            NICD_RESP_HEADER(c, "Content-Type", "text/html", 9);
            k = snprintf(cr, sizeof(cr), "bytes */%lld",
                         (long long) f->file.size);
            NICD_RESP_HEADER(c, "Content-Range", cr, (size_t) k);
            NICD_RESP_HEADER(c, "Content-Length", "0", 1);
            nicd_resp_end_headers(c);
            nicd_resp_finish(c, 416);
            return;
        }
        if (rc == NICD_RANGE_OK && n > 1) {
            send_multipart(c, f, rg, n, head);
            return;
        }
    }

    if (rc == NICD_RANGE_OK) {
        nicd_range_t one = ((nicd_range_t *) (void *) c->w->scratch.data)[0];

        nicd_resp_start(c, 206);
        content_type(c, f);
        nicd_resp_header_u64(c, "Content-Length", 14,
                             (uint64_t) (one.end - one.start + 1));
        k = snprintf(cr, sizeof(cr), "bytes %lld-%lld/%lld",
                     (long long) one.start, (long long) one.end,
                     (long long) f->file.size);
        NICD_RESP_HEADER(c, "Content-Range", cr, (size_t) k);
        validators(c, f);
        nicd_resp_end_headers(c);
        if (!head) {
            nicd_resp_body_file(c, f, one.start,
                                (size_t) (one.end - one.start + 1));
        }
        nicd_resp_finish(c, 206);
        return;
    }

    nicd_resp_start(c, 200);
    content_type(c, f);
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) f->file.size);
    validators(c, f);
    NICD_RESP_HEADER(c, "Accept-Ranges", "bytes", 5);
    nicd_resp_end_headers(c);
    if (!head && f->file.size > 0) {
        nicd_resp_body_file(c, f, 0, (size_t) f->file.size);
    }
    nicd_resp_finish(c, 200);
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* autoindex: an HTML listing, names sorted, hidden files left out */
static void
serve_listing(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *dir,
              const char *path)
{
    nicd_buf_t     b = {0};
    DIR           *d;
    struct dirent *de;
    struct stat    st;
    char         **names = NULL, **nn;
    size_t         n = 0, cap = 0, i, len;
    char          *esc, *html;
    char           date[32];
    int            fd, head = r->method == NICD_M_HEAD;

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
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            nn = realloc(names, cap * sizeof(char *));
            if (nn == NULL) {
                break;
            }
            names = nn;
        }
        names[n] = strdup(de->d_name);
        if (names[n] != NULL) {
            n++;
        }
    }
    if (n > 0) {
        qsort(names, n, sizeof(char *), name_cmp);
    }

    len = strlen(path);
    html = malloc(6 * len + 1 + 6 * 256 + 1);
    esc = malloc(3 * 256 + 1);
    if (html != NULL && esc != NULL) {
        nicd_html_escape(path, len, html);
        nicd_buf_addf(&b,
                      "<html>\r\n<head><title>Index of %s</title></head>\r\n"
                      "<body>\r\n<h1>Index of %s</h1><hr><pre><a href=\"../\">"
                      "../</a>\r\n",
                      html, html);
        for (i = 0; i < n; i++) {
            int isdir = 0;

            if (fstatat(dirfd(d), names[i], &st, 0) == 0) {
                isdir = S_ISDIR(st.st_mode);
            } else {
                memset(&st, 0, sizeof(st));
            }
            len = strlen(names[i]);
            if (len > 255) {
                continue;
            }
            nicd_path_escape(names[i], len, esc);
            nicd_html_escape(names[i], len, html);
            nicd_http_date(date, st.st_mtim.tv_sec);
            if (isdir) {
                nicd_buf_addf(&b, "<a href=\"%s/\">%s/</a> %*s %s %19s\r\n",
                              esc, html, (int) (len < 50 ? 50 - len : 0), "",
                              date, "-");
            } else {
                nicd_buf_addf(&b, "<a href=\"%s\">%s</a> %*s %s %19lld\r\n",
                              esc, html, (int) (len < 51 ? 51 - len : 0), "",
                              date, (long long) st.st_size);
            }
        }
        NICD_BUF_LIT(&b, "</pre><hr></body>\r\n</html>\r\n");
    }
    free(html);
    free(esc);
    for (i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    closedir(d);

    if (nicd_buf_failed(&b) || html == NULL || esc == NULL) {
        nicd_buf_free(&b);
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    nicd_resp_start(c, 200);
    NICD_RESP_HEADER(c, "Content-Type", "text/html", 9);
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) b.len);
    nicd_resp_end_headers(c);
    if (!head) {
        nicd_resp_body_mem(c, b.data, b.len);
    }
    nicd_buf_free(&b);
    nicd_resp_finish(c, 200);
}

void
nicd_static_directory(nicd_conn_t *c, const nicd_request_t *r, nicd_file_t *dir,
                      const char *path, size_t len)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    nicd_file_t       *f;
    nicd_buf_t        *loc = &c->w->scratch;
    int                i, err, head = r->method == NICD_M_HEAD;
    size_t             ilen;

    if (path[len - 1] != '/') {
        /* "/dir" -> "/dir/", keeping the query, as nginx does */
        loc->len = 0;
        nicd_buf_add(loc, r->path.p, r->path.len);
        NICD_BUF_LIT(loc, "/");
        if (r->query.len > 0) {
            NICD_BUF_LIT(loc, "?");
            nicd_buf_add(loc, r->query.p, r->query.len);
        }
        if (nicd_buf_failed(loc)) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return;
        }
        nicd_respond_error(c, 301, head, loc->data, loc->len);
        return;
    }

    for (i = 0; i < cf->nindex; i++) {
        ilen = strlen(cf->index[i]);
        loc->len = 0;
        nicd_buf_add(loc, path, len);
        nicd_buf_add(loc, cf->index[i], ilen);
        nicd_buf_add(loc, "", 1);
        if (nicd_buf_failed(loc)) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return;
        }
        err = nicd_ofc_open(&c->w->ofc, loc->data, loc->len - 1,
                            nicd_worker_now_ms(c->w), &f);
        if (err == ENOENT || err == ENOTDIR) {
            continue;
        }
        if (err != 0) {
            nicd_respond_error(c, nicd_open_status(c, err, loc->data), head,
                               NULL, 0);
            return;
        }
        if (f->is_dir) {
            nicd_ofc_release(&c->w->ofc, f);
            continue;
        }
        nicd_static_file(c, r, f);
        nicd_ofc_release(&c->w->ofc, f);
        return;
    }

    if (cf->autoindex) {
        serve_listing(c, r, dir, path);
        return;
    }
    log_error(LOG_ERR, 0,
              "directory index of \"%s%s\" is forbidden, "
              "client: %s",
              cf->root, path, c->addr);
    nicd_respond_error(c, 403, head, NULL, 0);
}
