/*
 * The objects of a trace and their names in a docroot: see objects.h.
 * Keys are interned (strtab.c); names are decided in one pass over the
 * objects once the whole trace is known, because whether a name may be a
 * file depends on every other name (a directory wins over a file).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "lib/grow.h"
#include "lib/models/files.h"
#include "lib/models/objects.h"
#include "util/hex.h"
#include "lib/strtab.h"

#define NAME_MAX_BYTES 255  /* a component */
#define PATH_MAX_BYTES 1024 /* a whole name */
#define RESERVED       "/.nic"

typedef struct {
    uint64_t size;
    uint64_t n2xx, n3xx, n304, n404, nother;
    uint8_t  kind;
    uint8_t  slash; /* the target's path ended in "/" */
    uint8_t  query; /* the key has a query */
    char    *name;  /* malloc'd; NULL: missing */
    char    *url;   /* malloc'd; NULL: as logged */
} obj_t;

struct trace_map_s {
    trace_strtab_t   *keys;
    obj_t            *obj;
    size_t            cap;
    char             *buf; /* a key being built */
    size_t            buf_cap;
    trace_map_stats_t st;
};

trace_map_t *
trace_map_new(void)
{
    trace_map_t *m = calloc(1, sizeof(*m));

    if (m == NULL || (m->keys = trace_strtab_new()) == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

void
trace_map_free(trace_map_t *m)
{
    uint32_t i;

    if (m == NULL) {
        return;
    }
    for (i = 0; i < trace_strtab_count(m->keys); i++) {
        free(m->obj[i].name);
        free(m->obj[i].url);
    }
    free(m->obj);
    free(m->buf);
    trace_strtab_free(m->keys);
    free(m);
}

/* the key of url in m->buf; its length, or 0 when out of memory */
static size_t
key_of(trace_map_t *m, const char *url, size_t len)
{
    if (trace_grow(&m->buf, &m->buf_cap, len + 16, 1, 256) != 0) {
        return 0;
    }
    return trace_object_key(url, len, m->buf);
}

/* the object of key k (added when new); NULL when out of memory */
static obj_t *
intern(trace_map_t *m, const char *k, size_t n)
{
    uint32_t id;
    int      added;

    if (trace_strtab_intern(m->keys, k, n, &id, &added) != 0) {
        return NULL;
    }
    if (trace_grow(&m->obj, &m->cap, (size_t) id + 1, sizeof(obj_t), 1024)
        != 0) {
        return NULL;
    }
    if (added) {
        memset(&m->obj[id], 0, sizeof(obj_t));
        m->obj[id].query = k[0] != '\x01' && memchr(k, '?', n) != NULL;
    }
    return &m->obj[id];
}

int
trace_map_add(trace_map_t *m, const trace_req_t *r)
{
    obj_t *o;
    size_t n, plen;

    if (r->method != TRACE_GET && r->method != TRACE_HEAD) {
        m->st.other_methods++;
        return 0;
    }
    n = key_of(m, r->url, r->url_len);
    if (n == 0 || (o = intern(m, m->buf, n)) == NULL) {
        return -1;
    }
    plen = trace_path_len(r->url, r->url_len);
    o->slash = plen > 0 && r->url[plen - 1] == '/';
    if (r->status >= 200 && r->status < 300) {
        o->n2xx++;
        if (r->bytes > o->size) {
            o->size = r->bytes;
        }
    } else if (r->status == 304) {
        o->n304++;
    } else if (r->status >= 300 && r->status < 400) {
        o->n3xx++;
    } else if (r->status == 404 || r->status == 410) {
        o->n404++;
    } else {
        o->nother++;
    }
    return 0;
}

/* ---- naming ---- */

static int
name_ok(const char *p, size_t n)
{
    size_t i, seg = 0;

    if (n == 0 || n > PATH_MAX_BYTES || p[0] != '/'
        || (n >= sizeof(RESERVED) - 1
            && memcmp(p, RESERVED, sizeof(RESERVED) - 1) == 0
            && (n == sizeof(RESERVED) - 1 || p[sizeof(RESERVED) - 1] == '/'))) {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if (p[i] == '\0') {
            return 0;
        }
        if (p[i] == '/') {
            seg = i;
        } else if (i - seg > NAME_MAX_BYTES) {
            return 0;
        }
    }
    return 1;
}

static int
has(const trace_strtab_t *set, const char *p, size_t n)
{
    uint32_t id;

    return trace_strtab_find(set, p, n, &id) == 0;
}

/* is any proper prefix directory of p a name in set? */
static int
prefix_in(const trace_strtab_t *set, const char *p, size_t n)
{
    size_t i;

    for (i = 1; i < n; i++) {
        if (p[i] == '/' && has(set, p, i)) {
            return 1;
        }
    }
    return 0;
}

/* add every proper prefix directory of p to set */
static int
add_dirs(trace_strtab_t *set, const char *p, size_t n)
{
    uint32_t id;
    size_t   i;
    int      added;

    for (i = 1; i < n; i++) {
        if (p[i] == '/' && trace_strtab_intern(set, p, i, &id, &added) != 0) {
            return -1;
        }
    }
    return 0;
}

static char *
dup_n(const char *p, size_t n)
{
    char *s = malloc(n + 1);

    if (s != NULL) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* "/.nic/<c>/<hash of the key>", made unique against taken */
static char *
reserved(const trace_strtab_t *taken, char c, const char *key, size_t n)
{
    char     name[64];
    uint64_t h = nicache_fnv1a64(key, n);
    int      k = 0, len;

    len = snprintf(name, sizeof(name), RESERVED "/%c/%016llx", c,
                   (unsigned long long) h);
    while (taken != NULL && has(taken, name, (size_t) len)) {
        len = snprintf(name, sizeof(name), RESERVED "/%c/%016llx-%d", c,
                       (unsigned long long) h, ++k);
    }
    return dup_n(name, (size_t) len);
}

/* the URL that names file name: every byte a path cannot carry as it is
 * percent-encoded ("?" and "%" included) */
static char *
url_of(const char *name)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            n = strlen(name), i, o = 0;
    char             *u = malloc(n * 3 + 1);

    if (u == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char) name[i];

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || strchr("/-._~!$&'()*+,;=:@", c)) {
            u[o++] = (char) c;
        } else {
            u[o++] = '%';
            u[o++] = hex[c >> 4];
            u[o++] = hex[c & 15];
        }
    }
    u[o] = '\0';
    return u;
}

/* a file's own name: the key, its query (if any) after "?" with "/" and
 * "%" escaped so that it stays in the last component */
static char *
natural_file(const char *key, size_t n)
{
    const char *q = memchr(key, '?', n);
    size_t      i, o;
    char       *s;

    if (q == NULL) {
        return dup_n(key, n);
    }
    s = malloc(n * 3 + 1);
    if (s == NULL) {
        return NULL;
    }
    o = (size_t) (q - key);
    memcpy(s, key, o);
    for (i = o; i < n; i++) {
        if (key[i] == '/' || key[i] == '%') {
            o += (size_t) sprintf(s + o, "%%%02X", (unsigned char) key[i]);
        } else {
            s[o++] = key[i];
        }
    }
    s[o] = '\0';
    return s;
}

/* the path part of a key (up to "?") */
static size_t
key_path(const char *key, size_t n)
{
    const char *q = memchr(key, '?', n);

    return q == NULL ? n : (size_t) (q - key);
}

int
trace_map_decide(trace_map_t *m)
{
    trace_strtab_t *files = trace_strtab_new(), *dirs = trace_strtab_new();
    uint32_t        id, count = trace_strtab_count(m->keys), x;
    const char     *k;
    size_t          n, p;
    int             rc = -1, added;
    obj_t          *o;

    if (files == NULL || dirs == NULL) {
        goto done;
    }
    /* files: their own names where the names can be files, and the
     * directories those names need */
    for (id = 0; id < count; id++) {
        o = &m->obj[id];
        k = trace_strtab_get(m->keys, id, &n);
        if (o->n2xx == 0 && o->n304 == 0) {
            continue;
        }
        o->kind = TRACE_OBJ_FILE;
        if (k[0] != '\x01') {
            o->name = natural_file(k, n);
            if (o->name == NULL) {
                goto done;
            }
            if (!name_ok(o->name, strlen(o->name))
                || trace_strtab_intern(files, o->name, strlen(o->name), &x,
                                       &added)
                       != 0
                || !added) {
                free(o->name); /* unsafe, or the name of another key */
                o->name = NULL;
            } else if (add_dirs(dirs, o->name, strlen(o->name)) != 0) {
                goto done;
            }
        }
    }
    /* a name another file needs as a directory is a directory; the file
     * goes to a name of its own */
    for (id = 0; id < count; id++) {
        o = &m->obj[id];
        if (o->kind != TRACE_OBJ_FILE) {
            continue;
        }
        k = trace_strtab_get(m->keys, id, &n);
        if (o->name != NULL && has(dirs, o->name, strlen(o->name))) {
            free(o->name);
            o->name = NULL;
        }
        if (o->name == NULL) {
            o->name = reserved(files, 'f', k, n);
            if (o->name == NULL
                || trace_strtab_intern(files, o->name, strlen(o->name), &x,
                                       &added)
                       != 0
                || add_dirs(dirs, o->name, strlen(o->name)) != 0) {
                goto done;
            }
            m->st.renamed++;
        }
        if (o->query || strlen(o->name) != n || memcmp(o->name, k, n) != 0) {
            if ((o->url = url_of(o->name)) == NULL) {
                goto done;
            }
        }
        m->st.files++;
        m->st.bytes += o->size;
    }
    /* from here on, files holds the names files have in the end */
    trace_strtab_free(files);
    files = trace_strtab_new();
    for (id = 0; files != NULL && id < count; id++) {
        o = &m->obj[id];
        if (o->kind == TRACE_OBJ_FILE
            && trace_strtab_intern(files, o->name, strlen(o->name), &x, &added)
                   != 0) {
            goto done;
        }
    }
    if (files == NULL) {
        goto done;
    }
    /* redirects: a directory asked for without its "/" */
    for (id = 0; id < count; id++) {
        o = &m->obj[id];
        if (o->kind != 0 || o->n3xx == 0) {
            continue;
        }
        o->kind = TRACE_OBJ_REDIRECT;
        k = trace_strtab_get(m->keys, id, &n);
        p = key_path(k, n);
        if (k[0] != '\x01' && !o->slash && name_ok(k, p)
            && (has(dirs, k, p)
                || (!has(files, k, p) && !prefix_in(files, k, p)))) {
            /* its own name is (or can become) a directory */
            if ((o->name = dup_n(k, p)) == NULL
                || trace_strtab_intern(dirs, k, p, &x, &added) != 0
                || add_dirs(dirs, k, p) != 0) {
                goto done;
            }
        } else {
            o->name = reserved(dirs, 'r', k, n);
            if (o->name == NULL
                || (o->url = dup_n(o->name, strlen(o->name))) == NULL
                || trace_strtab_intern(dirs, o->name, strlen(o->name), &x,
                                       &added)
                       != 0
                || add_dirs(dirs, o->name, strlen(o->name)) != 0) {
                goto done;
            }
            m->st.renamed++;
        }
        m->st.redirects++;
    }
    /* missing: a name no file or directory has */
    for (id = 0; id < count; id++) {
        o = &m->obj[id];
        if (o->kind != 0) {
            continue;
        }
        o->kind = TRACE_OBJ_MISSING;
        k = trace_strtab_get(m->keys, id, &n);
        p = key_path(k, n);
        if (o->slash && p > 11) {
            p -= 11; /* "/x/" is missing only when the directory /x is */
        }
        if (k[0] == '\x01' || !name_ok(k, p) || has(files, k, p)
            || has(dirs, k, p) || prefix_in(files, k, p)) {
            char *name = reserved(NULL, 'm', k, n);

            if (name == NULL) {
                goto done;
            }
            o->url = name; /* never created */
            m->st.renamed++;
        }
        m->st.missing++;
    }
    m->st.objects = count;
    for (id = 0; id < count; id++) {
        o = &m->obj[id];
        m->st.log_2xx += o->n2xx;
        m->st.log_3xx += o->n3xx;
        m->st.log_304 += o->n304;
        m->st.log_404 += o->n404;
        m->st.log_other += o->nother;
        if (o->kind == TRACE_OBJ_FILE) {
            m->st.answerable_2xx += o->n2xx;
            m->st.other_3xx_404 += o->n3xx + o->n404;
        } else if (o->kind == TRACE_OBJ_REDIRECT) {
            m->st.stays_3xx += o->n3xx;
        } else {
            m->st.stays_404 += o->n404;
        }
    }
    rc = 0;

done:
    trace_strtab_free(files);
    trace_strtab_free(dirs);
    return rc;
}

const trace_map_stats_t *
trace_map_stats(const trace_map_t *m)
{
    return &m->st;
}

uint32_t
trace_map_count(const trace_map_t *m)
{
    return trace_strtab_count(m->keys);
}

void
trace_map_get(const trace_map_t *m, uint32_t id, trace_obj_t *o)
{
    const obj_t *b = &m->obj[id];

    o->kind = b->kind;
    o->size = b->size;
    o->name = b->name;
    o->url = b->url;
    o->key = trace_strtab_get(m->keys, id, &o->key_len);
}

int
trace_map_find(trace_map_t *m, const char *url, size_t len, trace_obj_t *o)
{
    uint32_t id;
    size_t   n = key_of(m, url, len);

    if (n == 0 || trace_strtab_find(m->keys, m->buf, n, &id) != 0) {
        return -1;
    }
    trace_map_get(m, id, o);
    return 0;
}

/* ---- the manifest ---- */

/* keys and URLs in the manifest: bytes that would break a line or a
 * field, and "%", percent-encoded */
static int
put_escaped(FILE *f, const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char) p[i];

        if (c <= 0x20 || c >= 0x7f || c == '%') {
            if (fprintf(f, "%%%02X", c) < 0) {
                return -1;
            }
        } else if (putc(c, f) == EOF) {
            return -1;
        }
    }
    return 0;
}

int
trace_map_write(const trace_map_t *m, FILE *f, const char *trace)
{
    uint32_t    id;
    trace_obj_t o;

    if (fprintf(f,
                "# nictrace manifest 1\n"
                "# trace: %s\n"
                "# kind (F file, R redirect: a directory, M missing), size, "
                "URL to send (-: the target as logged), object key\n",
                trace)
        < 0) {
        return -1;
    }
    for (id = 0; id < trace_map_count(m); id++) {
        trace_map_get(m, id, &o);
        if (fprintf(f, "%c\t%llu\t", o.kind, (unsigned long long) o.size) < 0
            || (o.url != NULL ? put_escaped(f, o.url, strlen(o.url))
                              : (putc('-', f) == EOF ? -1 : 0))
                   != 0
            || putc('\t', f) == EOF || put_escaped(f, o.key, o.key_len) != 0
            || putc('\n', f) == EOF) {
            return -1;
        }
    }
    return fflush(f);
}

/* undo put_escaped in place; the length, or -1 on a bad escape */
static long
unescape(char *p, size_t n)
{
    size_t i, o = 0;

    for (i = 0; i < n; i++) {
        if (p[i] == '%') {
            if (i + 2 >= n || nicache_hexval(p[i + 1]) < 0
                || nicache_hexval(p[i + 2]) < 0) {
                return -1;
            }
            p[o++] = (char) (nicache_hexval(p[i + 1]) * 16
                             + nicache_hexval(p[i + 2]));
            i += 2;
        } else {
            p[o++] = p[i];
        }
    }
    return (long) o;
}

trace_map_t *
trace_map_read(const char *path, char *err, size_t errlen)
{
    FILE              *f = fopen(path, "r");
    trace_map_t       *m = NULL;
    char              *line = NULL, *tab1, *tab2, *tab3, *end;
    size_t             cap = 0;
    ssize_t            len;
    unsigned long long size;
    long               ulen, klen;
    unsigned long      lineno = 0;
    obj_t             *o;

    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    m = trace_map_new();
    if (m == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] == '\n') {
            line[--len] = '\0';
        }
        if (lineno == 1 && strcmp(line, "# nictrace manifest 1") != 0) {
            snprintf(err, errlen, "%s: not a nictrace manifest", path);
            goto fail;
        }
        if (line[0] == '#') {
            continue;
        }
        tab1 = strchr(line, '\t');
        tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        tab3 = tab2 ? strchr(tab2 + 1, '\t') : NULL;
        if (tab3 == NULL || tab1 != line + 1
            || strchr("FRM", line[0]) == NULL) {
            goto bad;
        }
        size = strtoull(tab1 + 1, &end, 10);
        if (end != tab2) {
            goto bad;
        }
        ulen = unescape(tab2 + 1, (size_t) (tab3 - tab2 - 1));
        klen = unescape(tab3 + 1, strlen(tab3 + 1));
        if (ulen <= 0 || klen <= 0) {
            goto bad;
        }
        if ((o = intern(m, tab3 + 1, (size_t) klen)) == NULL) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        if (o->kind != 0) {
            goto bad; /* a key twice */
        }
        o->kind = (uint8_t) line[0];
        o->size = size;
        if (!(ulen == 1 && tab2[1] == '-')
            && (o->url = dup_n(tab2 + 1, (size_t) ulen)) == NULL) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    if (lineno == 0) {
        snprintf(err, errlen, "%s: empty, not a nictrace manifest", path);
        goto fail;
    }
    free(line);
    fclose(f);
    return m;

bad:
    snprintf(err, errlen, "%s: line %lu is not a manifest entry", path, lineno);
fail:
    free(line);
    fclose(f);
    trace_map_free(m);
    return NULL;
}
