/*
 * The files of a trace: an interned path table (strtab.c) and a size per
 * path id, so memory grows with the distinct files, not with the trace.
 */

#include <stdlib.h>
#include <string.h>

#include "util/urlpath.h"
#include "lib/grow.h"
#include "lib/models/files.h"
#include "lib/strtab.h"

struct trace_files_s {
    trace_strtab_t *paths; /* object keys (objects.h) */
    char           *buf;
    size_t          buf_cap;
    uint64_t       *size; /* by path id */
    size_t          size_cap;
    uint64_t        bytes;
};

trace_files_t *
trace_files_new(void)
{
    trace_files_t *f = calloc(1, sizeof(*f));

    if (f == NULL || (f->paths = trace_strtab_new()) == NULL) {
        free(f);
        return NULL;
    }
    return f;
}

void
trace_files_free(trace_files_t *f)
{
    if (f == NULL) {
        return;
    }
    trace_strtab_free(f->paths);
    free(f->buf);
    free(f->size);
    free(f);
}

size_t
trace_path_len(const char *url, size_t len)
{
    const char *q = memchr(url, '?', len);

    return q == NULL ? len : (size_t) (q - url);
}

size_t
trace_file_name(const char *url, size_t len, char *out, int resolve_dots)
{
    size_t o;

    /* nicd's own rule (util/urlpath.c) */
    if (nicache_urlpath(url, len, out, &o,
                        resolve_dots ? 0 : NICACHE_URLPATH_REFUSE_DOTS)
        != 0) {
        return 0;
    }
    if (out[o - 1] == '/') {
        memcpy(out + o, "index.html", 10);
        o += 10;
    }
    out[o] = '\0';
    return o;
}

size_t
trace_object_key(const char *url, size_t len, char *out)
{
    size_t plen = trace_path_len(url, len), n;

    n = plen > 0 ? trace_file_name(url, plen, out, 1) : 0;
    if (n == 0) {
        out[0] = '\x01';
        memcpy(out + 1, url, len);
        return len + 1;
    }
    if (plen + 1 < len) {
        out[n++] = '?';
        memcpy(out + n, url + plen + 1, len - plen - 1);
        n += len - plen - 1;
    }
    return n;
}

/* the object key of url in f->buf: its length, 0 when out of memory */
static size_t
key(trace_files_t *f, const char *url, size_t len)
{
    if (trace_grow(&f->buf, &f->buf_cap, len + 16, 1, 256) != 0) {
        return 0;
    }
    return trace_object_key(url, len, f->buf);
}

/* the id of object key k of n bytes, its file added (size 0) when new;
 * 0 or -1 (out of memory) */
static int
intern(trace_files_t *f, const char *k, size_t n, uint32_t *id)
{
    int added;

    if (trace_strtab_intern(f->paths, k, n, id, &added) != 0
        || trace_grow(&f->size, &f->size_cap, (size_t) *id + 1,
                      sizeof(uint64_t), 1024)
               != 0) {
        return -1;
    }
    if (added) {
        f->size[*id] = 0;
    }
    return 0;
}

static void
raise_size(trace_files_t *f, uint32_t id, uint64_t bytes)
{
    if (bytes > f->size[id]) {
        f->bytes += bytes - f->size[id];
        f->size[id] = bytes;
    }
}

int
trace_files_add(trace_files_t *f, const trace_req_t *r)
{
    uint32_t id = UINT32_MAX;

    return trace_files_add_as(f, r, &id);
}

int
trace_files_add_as(trace_files_t *f, const trace_req_t *r, uint32_t *id)
{
    size_t n;

    if ((r->status != 200 && r->status != 206) || r->bytes == 0
        || r->url == NULL) {
        return 0;
    }
    if (*id == UINT32_MAX) {
        n = key(f, r->url, r->url_len);
        if (n == 0 || intern(f, f->buf, n, id) != 0) {
            return -1;
        }
    }
    raise_size(f, *id, r->bytes);
    return 0;
}

int
trace_files_raise(trace_files_t *f, const char *k, size_t n, uint64_t bytes)
{
    uint32_t id;

    if (intern(f, k, n, &id) != 0) {
        return -1;
    }
    raise_size(f, id, bytes);
    return 0;
}

int
trace_files_find(trace_files_t *f, const char *url, size_t len, uint64_t *size,
                 uint32_t *id)
{
    size_t n = key(f, url, len);

    if (n == 0 || trace_strtab_find(f->paths, f->buf, n, id) != 0) {
        return -1;
    }
    *size = f->size[*id];
    return 0;
}

uint64_t
trace_files_size(const trace_files_t *f, uint32_t id)
{
    return f->size[id];
}

uint64_t
trace_files_count(const trace_files_t *f)
{
    return trace_strtab_count(f->paths);
}

uint64_t
trace_files_bytes(const trace_files_t *f)
{
    return f->bytes;
}

void
trace_files_each(const trace_files_t *f,
                 void (*fn)(const char *path, size_t len, uint64_t size,
                            void *arg),
                 void *arg)
{
    uint32_t    id;
    const char *p;
    size_t      len;

    for (id = 0; id < trace_strtab_count(f->paths); id++) {
        p = trace_strtab_get(f->paths, id, &len);
        fn(p, len, f->size[id], arg);
    }
}
