/*
 * String replacement in response bodies (nginx's ngx_http_sub_module):
 *
 *   sub_filter STRING REPLACEMENT;     (any number; both may hold
 *                                       variables)
 *   sub_filter_once on | off;          (default on: each string once)
 *   sub_filter_last_modified on | off; (default off)
 *   sub_filter_types TYPE ...;         (besides text/html; "*": any)
 *
 * STRING is matched without regard to ASCII case, the strings in the
 * order given at each place of the body (the first that matches there
 * wins), a replaced part never searched again.  A body that changes has
 * no length known ahead (nginx's chunked; a file or a body in memory is
 * replaced whole and sent with its length, docs/config.md), no ranges,
 * and without sub_filter_last_modified no Last-Modified and no ETag
 * (with it, a weak ETag), as nginx's.  Runs ahead of charset, SSI and
 * gzip (nginx's filter order), on files, bodies in memory (error pages,
 * return's text) and bodies that come in pieces (a proxied one), where a
 * string cut between two pieces is still found.
 */

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/filter.h"
#include "server/http/phases.h"
#include "server/http/stream.h"
#include "server/http/variables.h"

typedef struct {
    nicd_cv_t *match, *value;
} pair_t;

typedef struct {
    pair_t      *pairs; /* NULL: not set at this level */
    int          npairs;
    int          once;
    int          last_modified;
    nicd_types_t types;
} sub_conf_t;

nicd_module_t nicd_sub_filter_module;

static void *
create_conf(nicd_conf_t *c)
{
    sub_conf_t *sc = nicd_conf_alloc(c, sizeof(*sc));

    if (sc != NULL) {
        sc->once = NICD_UNSET;
        sc->last_modified = NICD_UNSET;
    }
    return sc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const sub_conf_t *p = prev;
    sub_conf_t       *sc = conf;

    (void) c;
    NICD_MERGE_LIST(sc, p, pairs, npairs);
    NICD_MERGE(sc, p, once, 1);
    NICD_MERGE(sc, p, last_modified, 0);
    NICD_MERGE_LIST(sc, p, types.type, types.n);
    return NULL;
}

static const char *
set_sub_filter(parse_t *ps, const char **a, int n)
{
    sub_conf_t *sc = nicd_conf_module_loc(ps);
    pair_t      pr;
    const char *err;

    (void) n;
    if (a[0][0] == '\0') {
        return "empty search pattern";
    }
    pr.match = nicd_conf_cv(ps, a[0], &err);
    if (pr.match == NULL || (pr.value = nicd_conf_cv(ps, a[1], &err)) == NULL) {
        return err;
    }
    sc->pairs = nicd_conf_grow(ps->conf, sc->pairs, sc->npairs, sizeof(pr));
    if (sc->pairs == NULL) {
        return "out of memory";
    }
    sc->pairs[sc->npairs++] = pr;
    return NULL;
}

/* ---- the replacing, over a body in one piece or in several ---- */

typedef struct {
    nicd_buf_t match, value; /* the match in lower case */
    int        done;         /* sub_filter_once: replaced already */
} run_pair_t;

typedef struct {
    run_pair_t   *p;
    int           n, left; /* pairs, those not done */
    int           once;
    unsigned char first[256]; /* a byte some match may begin with */
    nicd_buf_t    held;       /* the end of the last piece, a match's
                                 beginning perhaps */
} sub_ctx_t;

static unsigned char
lower(unsigned char b)
{
    return b >= 'A' && b <= 'Z' ? (unsigned char) (b | 0x20) : b;
}

static void
ctx_free(void *data)
{
    sub_ctx_t *x = data;
    int        i;

    for (i = 0; i < x->n; i++) {
        nicd_buf_free(&x->p[i].match);
        nicd_buf_free(&x->p[i].value);
    }
    free(x->p);
    nicd_buf_free(&x->held);
    free(x);
}

/* the module's settings for the response at hand, or NULL when it has
 * nothing to replace in a body of type (tlen bytes) */
static const sub_conf_t *
conf_for(nicd_conn_t *c, const char *type, size_t tlen)
{
    const sub_conf_t *sc;

    if (c->r->loc == NULL) {
        return NULL;
    }
    if (type == NULL) {
        type = ""; /* (a response without a type: sub_filter_types *) */
        tlen = 0;
    }
    sc = NICD_LOC_CONF(c->r->loc, nicd_sub_filter_module);
    if (sc->npairs == 0 || !nicd_types_html_or(&sc->types, type, tlen)) {
        return NULL;
    }
    return sc;
}

/* pair p of x, its match and value in, made ready: the match in lower
 * case, its first byte noted (a match that came to nothing: done) */
static void
pair_ready(sub_ctx_t *x, run_pair_t *p)
{
    unsigned char b;
    size_t        k;

    if (p->match.len == 0) {
        p->done = 1; /* (a variable that came to nothing) */
        return;
    }
    for (k = 0; k < p->match.len; k++) {
        p->match.data[k] = (char) lower((unsigned char) p->match.data[k]);
    }
    b = (unsigned char) p->match.data[0];
    x->first[b] = 1;
    if (b >= 'a' && b <= 'z') {
        x->first[b - 'a' + 'A'] = 1;
    }
    x->left++;
}

/* the strings of sc for the request at hand, or NULL (logged) */
static sub_ctx_t *
ctx_new(nicd_conn_t *c, const sub_conf_t *sc)
{
    sub_ctx_t *x = calloc(1, sizeof(*x));
    int        i;

    if (x == NULL
        || (x->p = calloc((size_t) sc->npairs, sizeof(*x->p))) == NULL) {
        free(x);
        log_error(LOG_ERR, 0, "sub_filter: out of memory, client: %s",
                  nicd_client(c));
        return NULL;
    }
    x->n = sc->npairs;
    x->once = sc->once;
    for (i = 0; i < x->n; i++) {
        run_pair_t *p = &x->p[i];

        if (nicd_cv_eval(c, sc->pairs[i].match, NULL, &p->match) != 0
            || nicd_cv_eval(c, sc->pairs[i].value, NULL, &p->value) != 0) {
            ctx_free(x);
            return NULL;
        }
        pair_ready(x, p);
    }
    return x;
}

/* does the string of pair i begin at p (n bytes there)?  1; 0; or -1
 * when the n bytes are its beginning and more are needed to tell */
static int
match_at(const run_pair_t *pr, const unsigned char *p, size_t n)
{
    const unsigned char *m = (const unsigned char *) pr->match.data;
    size_t               k, len = pr->match.len;

    for (k = 0; k < len; k++) {
        if (k == n) {
            return -1;
        }
        if (lower(p[k]) != m[k]) {
            return 0;
        }
    }
    return 1;
}

/* which pair's string begins at p: its index, -1 for none, -2 when one
 * may and more bytes are needed to tell (the first in order decides;
 * at the body's end, last, one cut short is none) */
static int
which_at(const sub_ctx_t *x, const unsigned char *p, size_t n, int last)
{
    int i, m;

    for (i = 0; i < x->n; i++) {
        if (x->p[i].done) {
            continue;
        }
        m = match_at(&x->p[i], p, n);
        if (m == 1) {
            return i;
        }
        if (m == -1 && !last) {
            return -2;
        }
    }
    return -1;
}

/* in (len bytes) with its strings replaced, appended to out; not last:
 * a possible match's beginning at the end is held for the next piece */
static int
replace(sub_ctx_t *x, const char *in, size_t len, int last, nicd_buf_t *out)
{
    const unsigned char *p = (const unsigned char *) in;
    size_t               i = 0, from = 0, n = len;
    int                  k;

    if (x->held.len > 0) {
        nicd_buf_add(&x->held, in, len);
        if (nicd_buf_failed(&x->held)) {
            return -1;
        }
        p = (const unsigned char *) x->held.data;
        n = x->held.len;
    }
    while (i < n && x->left > 0) {
        if (!x->first[p[i]]) {
            i++;
            continue;
        }
        k = which_at(x, p + i, n - i, last);
        if (k == -2) {
            break; /* held: the next piece tells */
        }
        if (k < 0) {
            i++;
            continue;
        }
        nicd_buf_add(out, p + from, i - from);
        nicd_buf_add(out, x->p[k].value.data, x->p[k].value.len);
        i += x->p[k].match.len;
        from = i;
        if (x->once) {
            x->p[k].done = 1;
            x->left--;
        }
    }
    if (x->left == 0) {
        i = n; /* nothing more to find: the rest as it is */
    }
    nicd_buf_add(out, p + from, i - from);
    if (i < n) {
        nicd_buf_t keep = {0};

        nicd_buf_add(&keep, p + i, n - i); /* (p may be held's own) */
        nicd_buf_free(&x->held);
        x->held = keep;
    } else {
        x->held.len = 0;
    }
    return nicd_buf_failed(out) || nicd_buf_failed(&x->held) ? -1 : 0;
}

/* its slots in the body, file, stream chains (filter.h) */
static int body_slot, file_slot, stream_slot;

/* ---- a body in memory (error pages, return's text) ---- */

static const char *
sub_body(nicd_conn_t *c, const char *type, size_t tlen, const char *body,
         size_t *len, nicd_buf_t *tmp)
{
    const sub_conf_t *sc = conf_for(c, type, tlen);
    sub_ctx_t        *x;
    nicd_buf_t        own = {0};
    const char       *out;

    if (sc == NULL || *len == 0 || (x = ctx_new(c, sc)) == NULL) {
        return nicd_body_filter_next(c, body_slot, type, tlen, body, len, tmp);
    }
    if (replace(x, body, *len, 1, &own) != 0) {
        ctx_free(x);
        nicd_buf_free(&own);
        return nicd_body_filter_next(c, body_slot, type, tlen, body, len, tmp);
    }
    ctx_free(x);
    *len = own.len;
    out = nicd_body_filter_next(c, body_slot, type, tlen, own.data, len, tmp);
    if (out == own.data) {
        nicd_buf_free(tmp); /* (the caller frees tmp once it is sent) */
        *tmp = own;
        return tmp->data;
    }
    nicd_buf_free(&own);
    return out;
}

/* ---- a whole file ---- */

/* the replaced body of file f answered: its validators as
 * sub_filter_last_modified says, no ranges */
static void
answer(nicd_conn_t *c, const nicd_request_t *r, const sub_conf_t *sc,
       nicd_file_t *f, const char *type, const nicd_buf_t *body)
{
    char etag[sizeof(f->etag) + 2];

    nicd_resp_start(c, 200);
    nicd_resp_content_type(c, type, strlen(type));
    if (r->method != NICD_M_HEAD) {
        nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) body->len);
    }
    if (sc->last_modified && c->r->status == 200) {
        NICD_RESP_HEADER(c, "Last-Modified", f->last_modified,
                         NICD_HTTP_DATE_LEN);
        if (c->r->loc->etag) {
            etag[0] = 'W';
            etag[1] = '/';
            memcpy(etag + 2, f->etag, f->etag_len);
            nicd_resp_header(c, "ETag", 4, etag, f->etag_len + 2);
        }
    }
    nicd_resp_end_headers(c);
    if (r->method != NICD_M_HEAD) {
        nicd_resp_body_mem(c, body->data, body->len);
    }
    nicd_resp_finish(c, 200);
}

static int
sub_file(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *lc,
         nicd_file_t *f, const char *type, const char *mem, size_t len)
{
    const sub_conf_t *sc;
    sub_ctx_t        *x;
    nicd_buf_t        raw = {0}, out = {0};
    int               rc;

    sc = c->r->loc != NULL ? NICD_LOC_CONF(c->r->loc, nicd_sub_filter_module)
                           : NULL;
    if (sc == NULL || sc->npairs == 0) {
        /* every static file asks: nothing to measure (strlen) first */
        return nicd_file_filter_next(c, file_slot, r, lc, f, type, mem, len);
    }
    if (conf_for(c, type, strlen(type)) == NULL || c->r->gzipped
        || (mem == NULL ? f->file.size == 0 : len == 0)) {
        return nicd_file_filter_next(c, file_slot, r, lc, f, type, mem, len);
    }
    if (r->method == NICD_M_HEAD) {
        answer(c, r, sc, f, type, &out); /* (the body is not read) */
        return 1;
    }
    if (mem == NULL) {
        if (nicd_file_read(c, f, &raw, "sub_filter") != 0) {
            nicd_buf_free(&raw);
            return nicd_file_filter_next(c, file_slot, r, lc, f, type, mem,
                                         len);
        }
        mem = raw.data;
        len = raw.len;
    }
    x = ctx_new(c, sc);
    rc = x == NULL ? -1 : replace(x, mem, len, 1, &out);
    if (x != NULL) {
        ctx_free(x);
    }
    nicd_buf_free(&raw);
    if (rc != 0) {
        nicd_buf_free(&out);
        nicd_respond_error(c, 500, 0, NULL, 0);
        return 1;
    }
    c->r->no_validators = !sc->last_modified;
    if (!nicd_file_filter_next(c, file_slot, r, lc, f, type, out.data,
                               out.len)) {
        answer(c, r, sc, f, type, &out);
    }
    nicd_buf_free(&out);
    return 1;
}

/* ---- a body in pieces (a proxied one) ---- */

static int
stream_run(nicd_conn_t *c, void *ctx, const char *in, size_t len, int last,
           nicd_buf_t *out)
{
    (void) c;
    return replace(ctx, in, len, last, out);
}

static void
sub_stream_head(nicd_conn_t *c, nicd_stream_head_t *h)
{
    const sub_conf_t *sc = conf_for(c, h->type, h->tlen);
    sub_ctx_t        *x;

    if (sc != NULL && h->length != 0) {
        h->length = -1;
        if (sc->last_modified) {
            h->weak_etag = 1;
        } else {
            h->no_validators = 1;
        }
        if (!h->nobody && (x = ctx_new(c, sc)) != NULL) {
            (void) nicd_stream_add(c, h, stream_run, ctx_free, x);
        }
    }
    nicd_stream_head_next(c, stream_slot, h);
}

static const directive_t sub_directives[] = {
    {"sub_filter", CTX_HSL, 2, 2, set_sub_filter, 0},
    {"sub_filter_once", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(sub_conf_t, once)},
    {"sub_filter_last_modified", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(sub_conf_t, last_modified)},
    {"sub_filter_types", CTX_HSL, 1, MAX_ARGS, nicd_conf_slot_types,
     offsetof(sub_conf_t, types)},
    {NULL, 0, 0, 0, NULL, 0},
};

/* where its filters have something to do: a sub_filter pair */
static int
substitutes(const nicd_loc_conf_t *lc)
{
    const sub_conf_t *k = NICD_LOC_CONF(lc, nicd_sub_filter_module);

    return k->npairs > 0;
}

static void
sub_init(void)
{
    body_slot = nicd_filter_add(NICD_FILTER_BODY, (nicd_filter_fn_t) sub_body,
                                substitutes);
    file_slot = nicd_filter_add(NICD_FILTER_FILE, (nicd_filter_fn_t) sub_file,
                                substitutes);
    stream_slot = nicd_filter_add(
        NICD_FILTER_STREAM, (nicd_filter_fn_t) sub_stream_head, substitutes);
}

nicd_module_t nicd_sub_filter_module = {
    .name = "sub",
    .directives = sub_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .init = sub_init,
};
