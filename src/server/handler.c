/*
 * Dispatch of a request to its handler, and the error pages: the part of
 * answering that is the same whatever the protocol (handler.h).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "handler.h"
#include "path.h"

const char *
nicd_status_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Not Allowed";
    case 408: return "Request Time-out";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Request Entity Too Large";
    case 414: return "Request-URI Too Large";
    case 416: return "Requested Range Not Satisfiable";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Temporarily Unavailable";
    case 505: return "HTTP Version Not Supported";
    }
    return "Unknown";
}

void
nicd_resp_header_u64(nicd_conn_t *c, const char *name, size_t nlen, uint64_t v)
{
    char buf[24];

    nicd_resp_header(c, name, nlen, buf, nicd_u64_to_str(buf, v));
}

void
nicd_respond_error(nicd_conn_t *c, int status, int head, const char *location,
                   size_t location_len)
{
    char page[512];
    int  n;

    n = snprintf(page, sizeof(page),
                 "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n"
                 "<center><h1>%d %s</h1></center>\r\n<hr><center>nicd</center>"
                 "\r\n</body>\r\n</html>\r\n",
                 status, nicd_status_reason(status), status,
                 nicd_status_reason(status));

    nicd_resp_start(c, status);
    NICD_RESP_HEADER(c, "Content-Type", "text/html", 9);
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) n);
    if (status == 405) {
        NICD_RESP_HEADER(c, "Allow", "GET, HEAD", 9);
    } else if (status == 503) {
        NICD_RESP_HEADER(c, "Retry-After", "1", 1);
    } else if (location != NULL) {
        NICD_RESP_HEADER(c, "Location", location, location_len);
    }
    nicd_resp_end_headers(c);
    if (!head) {
        nicd_resp_body_mem(c, page, (size_t) n);
    }
    nicd_resp_finish(c, status);
}

int
nicd_open_status(nicd_conn_t *c, int err, const char *path)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
    case ENAMETOOLONG: return 404;
    case EACCES:
    case EPERM: return 403;
    case EXDEV:
    case ELOOP:
        log_error(LOG_ERR, err,
                  "\"%s\" resolves outside the root or "
                  "through a refused symlink, client: %s",
                  path, c->addr);
        return 403;
    case EMFILE:
    case ENFILE:
        log_error(LOG_CRIT, err,
                  "open() \"%s\" failed: out of file "
                  "descriptors, client: %s",
                  path, c->addr);
        return 503;
    }
    log_error(LOG_ERR, err, "open() \"%s\" failed, client: %s", path, c->addr);
    return 500;
}

int
nicd_lua_location(nicd_conn_t *c, const char *path, size_t len)
{
    const nicd_conf_t     *cf = c->w->cycle->conf;
    const nicd_location_t *loc;
    size_t                 n;

    if (cf->nlocations == 0 || nicd_buf_reserve(&c->w->path, len + 2) != 0
        || nicd_path_normalize(path, len, c->w->path.data, &n) != 0) {
        return -1;
    }
    loc = nicd_conf_location(cf, c->w->path.data, n);
    return loc != NULL && loc->lua != NULL ? (int) (loc - cf->locations) : -1;
}

void
nicd_handle(nicd_conn_t *c, const nicd_request_t *r)
{
    const nicd_conf_t *cf = c->w->cycle->conf;
    int                head = r->method == NICD_M_HEAD;
    nicd_file_t       *f;
    char              *path;
    size_t             len;
    int                err, status;

    if (nicd_buf_reserve(&c->w->path, r->path.len + 2) != 0) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return;
    }
    path = c->w->path.data;
    status = nicd_path_normalize(r->path.p, r->path.len, path, &len);
    if (status != 0) {
        log_error(LOG_INFO, 0, "client sent invalid path, client: %s", c->addr);
        nicd_respond_error(c, status, head, NULL, 0);
        return;
    }

    if (cf->nlocations > 0) {
        const nicd_location_t *loc = nicd_conf_location(cf, path, len);

        if (loc != NULL && loc->lua != NULL) {
            nicd_lua_handle(c, r, (int) (loc - cf->locations));
            return; /* any method: the script's to answer */
        }
        if (loc != NULL && (r->method == NICD_M_GET || head)) {
            nicd_report(c, r, loc);
            return;
        }
    }
    if (r->method != NICD_M_GET && !head) {
        nicd_respond_error(c, 405, head, NULL, 0);
        return;
    }

    err = nicd_ofc_open(&c->w->ofc, path, len, nicd_worker_now_ms(c->w), &f);
    if (err != 0) {
        status = nicd_open_status(c, err, path);
        if (status == 404) {
            log_error(LOG_INFO, 0, "\"%s%s\" not found, client: %s", cf->root,
                      path, c->addr);
        }
        nicd_respond_error(c, status, head, NULL, 0);
        return;
    }

    if (f->is_dir) {
        nicd_static_directory(c, r, f, path, len);
    } else if (path[len - 1] == '/') {
        nicd_respond_error(c, 404, head, NULL, 0); /* "/file/" names none */
    } else {
        nicd_static_file(c, r, f);
    }
    nicd_ofc_release(&c->w->ofc, f);
}
