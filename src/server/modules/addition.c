/*
 * Text added before and after a response's body (nginx's
 * ngx_http_addition_module):
 *
 *   add_before_body URI;   (the body of a subrequest to URI, first)
 *   add_after_body URI;    (and one to URI, last)
 *   addition_types TYPE ...;   (besides text/html; "*": any)
 *
 * On a client's own request (not a subrequest) answered 200 with a body
 * of one of the types: a file or a proxied response.  The body's length
 * is no longer known ahead (a file's response is sent with the length
 * of the whole, docs/config.md), ranges are not offered and the ETag
 * goes weak, as nginx's.  Each URI is a subrequest of the request's
 * server (http/subrequest.h; a "?" in it is the path's, as nginx's): what
 * it answers, whatever its status, takes its place; one that answers later
 * (a proxied location) is waited for.  Runs ahead of the other body
 * filters (sub_filter, charset, SSI, gzip), which see the body with what
 * was added (nginx's run on the added bodies in their own locations,
 * then gzip on the whole).  A HEAD gets the head alone.
 */

#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/filter.h"
#include "server/http/phases.h"
#include "server/http/stream.h"
#include "server/http/subrequest.h"

typedef struct {
    char        *uri[2]; /* before, after; NULL: not set at this level */
    nicd_types_t types;
} add_conf_t;

nicd_module_t nicd_addition_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(add_conf_t));
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const add_conf_t *p = prev;
    add_conf_t       *ac = conf;

    (void) c;
    NICD_MERGE_PTR(ac, p, uri[0], NULL);
    NICD_MERGE_PTR(ac, p, uri[1], NULL);
    NICD_MERGE_LIST(ac, p, types.type, types.n);
    return NULL;
}

/* the module's settings when it adds to the response at hand (status,
 * a body of type, tlen bytes), else NULL */
static const add_conf_t *
conf_for(nicd_conn_t *c, int status, const char *type, size_t tlen)
{
    const add_conf_t *ac;

    if (c->r->loc == NULL || c->r->subdepth > 0 || status != 200) {
        return NULL;
    }
    ac = NICD_LOC_CONF(c->r->loc, nicd_addition_module);
    if ((ac->uri[0] == NULL && ac->uri[1] == NULL)
        || !nicd_types_html_or(&ac->types, type != NULL ? type : "",
                               type != NULL ? tlen : 0)) {
        return NULL;
    }
    return ac;
}

/* ---- the subrequests ---- */

typedef struct {
    const add_conf_t *ac;
    nicd_req_t       *req; /* the request's block (suspended) */
    nicd_subreq_t    *sr[2];
    void (*then)(void *x); /* a pending subrequest answered */
    unsigned   began : 1;  /* (a body in pieces) the first came */
    unsigned   ended : 1;  /* the last came */
    nicd_buf_t held;       /* pieces that came while the first waited */
    /* (a file answered later) what its answer needs */
    nicd_buf_t body;
    char      *type;
    char       last_modified[32];
    char       etag[50];
    size_t     etag_len;
} add_ctx_t;

static void
ctx_free(void *data)
{
    add_ctx_t *x = data;

    nicd_subreq_free(x->sr[0]);
    nicd_subreq_free(x->sr[1]);
    nicd_buf_free(&x->held);
    nicd_buf_free(&x->body);
    free(x->type);
    free(x);
}

static add_ctx_t *
ctx_new(nicd_conn_t *c, const add_conf_t *ac, void (*then)(void *x))
{
    add_ctx_t *x = calloc(1, sizeof(*x));

    if (x == NULL) {
        log_error(LOG_ERR, 0, "addition: out of memory, client: %s",
                  nicd_client(c));
        return NULL;
    }
    x->ac = ac;
    x->then = then;
    return x;
}

/* subrequest i (0: before, 1: after) started, if its URI is set: 0, or
 * -1 (out of memory, logged) */
static int
start(add_ctx_t *x, nicd_conn_t *c, int i)
{
    const char *uri = x->ac->uri[i];

    if (uri == NULL) {
        return 0;
    }
    x->sr[i] = nicd_subrequest(c, uri, strlen(uri), NULL, 0, x->then, x);
    if (x->sr[i] == NULL) {
        log_error(LOG_ERR, 0, "addition: out of memory, client: %s",
                  nicd_client(c));
        return -1;
    }
    return 0;
}

static int
pending(const add_ctx_t *x, int i)
{
    return x->sr[i] != NULL && x->sr[i]->state == NICD_SUBREQ_PENDING;
}

/* what subrequest i answered (nothing, when it failed) appended to out */
static void
take(add_ctx_t *x, int i, nicd_buf_t *out)
{
    if (x->sr[i] != NULL) {
        nicd_buf_add(out, x->sr[i]->body.data, x->sr[i]->body.len);
        nicd_subreq_free(x->sr[i]);
        x->sr[i] = NULL;
    }
}

/* ---- a whole file ---- */

/* the file's answer, its body b (NULL: a HEAD's head alone) */
static void
answer(nicd_conn_t *c, const add_ctx_t *x, const nicd_buf_t *b)
{
    nicd_resp_start(c, 200);
    nicd_resp_content_type(c, x->type, strlen(x->type));
    if (b != NULL) {
        nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) b->len);
    }
    if (!c->r->no_validators) {
        NICD_RESP_HEADER(c, "Last-Modified", x->last_modified,
                         strlen(x->last_modified));
        if (x->etag_len > 0) {
            NICD_RESP_HEADER(c, "ETag", x->etag, x->etag_len);
        }
    }
    nicd_resp_end_headers(c);
    if (b != NULL && b->len > 0) {
        nicd_resp_body_mem(c, b->data, b->len);
    }
    nicd_resp_finish(c, 200);
}

/* what the file's answer needs of f and type kept in x: 0, or -1 */
static int
keep_file(add_ctx_t *x, const nicd_loc_conf_t *lc, const nicd_file_t *f,
          const char *type)
{
    x->type = strdup(type);
    memcpy(x->last_modified, f->last_modified, sizeof(x->last_modified));
    x->last_modified[sizeof(x->last_modified) - 1] = '\0';
    if (lc->etag && f->etag_len > 0 && f->etag_len + 2 <= sizeof(x->etag)) {
        /* the bytes are not the file's: a weak validator (nginx) */
        memcpy(x->etag, "W/", 2);
        memcpy(x->etag + 2, f->etag, f->etag_len);
        x->etag_len = f->etag_len + 2;
    }
    return x->type != NULL ? 0 : -1;
}

/* the body with what was added, into out */
static void
compose(add_ctx_t *x, nicd_buf_t *out)
{
    take(x, 0, out);
    nicd_buf_add(out, x->body.data, x->body.len);
    take(x, 1, out);
}

/* a subrequest of a file's answer answered: once both have, the answer
 * (the filters below not run: docs/config.md) */
static void
file_answered(void *data)
{
    add_ctx_t   *x = data;
    nicd_conn_t *c;
    nicd_buf_t   out = {0};

    if (pending(x, 0) || pending(x, 1)) {
        return;
    }
    c = nicd_req_resume(x->req);
    compose(x, &out);
    if (nicd_buf_failed(&out)) {
        nicd_respond_error(c, 500, 0, NULL, 0);
    } else {
        answer(c, x, &out);
    }
    nicd_buf_free(&out);
    nicd_req_done(x->req); /* (x is freed by the request's cleanup) */
}

/* its slots in the file and stream chains (filter.h) */
static int file_slot, stream_slot;

static int
add_file(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *lc,
         nicd_file_t *f, const char *type, const char *mem, size_t len)
{
    const add_conf_t *ac;
    add_ctx_t        *x;
    nicd_buf_t        out = {0};
    int               head = r->method == NICD_M_HEAD;

    ac = conf_for(c, nicd_resp_status(c, 200), type, strlen(type));
    if (ac == NULL || c->r->gzipped
        || (x = ctx_new(c, ac, file_answered)) == NULL) {
        return nicd_file_filter_next(c, file_slot, r, lc, f, type, mem, len);
    }
    if (keep_file(x, lc, f, type) != 0) {
        goto fail;
    }
    if (head) {
        answer(c, x, NULL);
        ctx_free(x);
        return 1;
    }
    if (mem != NULL) {
        nicd_buf_add(&x->body, mem, len);
    } else if (f->file.size > 0
               && nicd_file_read(c, f, &x->body, "addition") != 0) {
        goto fail;
    }
    x->req = c->r;
    if (nicd_buf_failed(&x->body) || start(x, c, 0) != 0
        || start(x, c, 1) != 0) {
        goto fail;
    }
    if (pending(x, 0) || pending(x, 1)) {
        /* answered once they have */
        x->req = nicd_req_suspend(c);
        if (x->req == NULL || nicd_req_cleanup(x->req, ctx_free, x) != 0) {
            goto fail;
        }
        return 1;
    }
    compose(x, &out);
    if (nicd_buf_failed(&out)) {
        nicd_buf_free(&out);
        goto fail;
    }
    if (!nicd_file_filter_next(c, file_slot, r, lc, f, type, out.data,
                               out.len)) {
        answer(c, x, &out);
    }
    nicd_buf_free(&out);
    ctx_free(x);
    return 1;

fail:
    ctx_free(x);
    nicd_respond_error(c, 500, head, NULL, 0);
    return 1;
}

/* ---- a body in pieces (a proxied one) ---- */

/* a pending subrequest answered: the stage goes on */
static void
stream_answered(void *data)
{
    add_ctx_t *x = data;

    nicd_stream_go_on(nicd_req_resume(x->req), x);
}

static int
stream_run(nicd_conn_t *c, void *ctx, const char *in, size_t len, int last,
           nicd_buf_t *out)
{
    add_ctx_t *x = ctx;

    if (!x->began) {
        x->began = 1;
        x->req = c->r;
        if (start(x, c, 0) != 0) {
            return -1;
        }
    }
    if (pending(x, 0)) {
        nicd_buf_add(&x->held, in, len);
        return NICD_STREAM_WAIT;
    }
    take(x, 0, out);
    nicd_buf_add(out, x->held.data, x->held.len);
    x->held.len = 0;
    nicd_buf_add(out, in, len);
    if (!last) {
        return 0;
    }
    if (!x->ended) {
        x->ended = 1;
        if (start(x, c, 1) != 0) {
            return -1;
        }
    }
    if (pending(x, 1)) {
        return NICD_STREAM_WAIT;
    }
    take(x, 1, out);
    return 0;
}

static void
add_stream_head(nicd_conn_t *c, nicd_stream_head_t *h)
{
    const add_conf_t *ac = conf_for(c, h->status, h->type, h->tlen);
    add_ctx_t        *x;

    if (ac != NULL) {
        h->length = -1;
        h->no_ranges = 1;
        h->weak_etag = 1;
        if (!h->nobody && (x = ctx_new(c, ac, stream_answered)) != NULL) {
            (void) nicd_stream_add(c, h, stream_run, ctx_free, x);
        }
    }
    nicd_stream_head_next(c, stream_slot, h);
}

static const directive_t add_directives[] = {
    {"add_before_body", CTX_HSL, 1, 1, nicd_conf_slot_str,
     offsetof(add_conf_t, uri[0])},
    {"add_after_body", CTX_HSL, 1, 1, nicd_conf_slot_str,
     offsetof(add_conf_t, uri[1])},
    {"addition_types", CTX_HSL, 1, MAX_ARGS, nicd_conf_slot_types,
     offsetof(add_conf_t, types)},
    {NULL, 0, 0, 0, NULL, 0},
};

/* where its filters have something to do: add_before_body or
 * add_after_body */
static int
adds(const nicd_loc_conf_t *lc)
{
    const add_conf_t *ac = NICD_LOC_CONF(lc, nicd_addition_module);

    return ac->uri[0] != NULL || ac->uri[1] != NULL;
}

static void
add_init(void)
{
    file_slot =
        nicd_filter_add(NICD_FILTER_FILE, (nicd_filter_fn_t) add_file, adds);
    stream_slot = nicd_filter_add(NICD_FILTER_STREAM,
                                  (nicd_filter_fn_t) add_stream_head, adds);
}

nicd_module_t nicd_addition_module = {
    .name = "addition",
    .directives = add_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .init = add_init,
};
