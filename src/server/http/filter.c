/*
 * The filter chains (filter.h): their bottoms, the registry the modules
 * add to in their init, and each level's set of the filters it uses,
 * made once a configuration is merged; chunked_transfer_encoding, the
 * bottom of the HTTP/1.1 body's framing, as nginx's core module has it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/conf/directive.h"
#include "server/http/filter.h"

_Static_assert(NICD_FILTER_SLOTS <= 31, "a level's set is 32 bits, 1 spare");

/* ---- the bottoms ---- */

/* the head is complete */
static void
end_headers(nicd_conn_t *c)
{
    nicd_proto(c)->end_headers(c);
}

/* the body as it is */
static const char *
body_as_it_is(nicd_conn_t *c, const char *type, size_t tlen, const char *body,
              size_t *len, nicd_buf_t *tmp)
{
    (void) c;
    (void) type;
    (void) tlen;
    (void) len;
    (void) tmp;
    return body;
}

/* the file goes as it is */
static int
file_as_it_is(nicd_conn_t *c, const nicd_request_t *r,
              const nicd_loc_conf_t *lc, nicd_file_t *f, const char *type,
              const char *mem, size_t len)
{
    (void) c;
    (void) r;
    (void) lc;
    (void) f;
    (void) type;
    (void) mem;
    (void) len;
    return 0;
}

/* nothing more to change in a body in pieces */
static void
head_as_it_is(nicd_conn_t *c, nicd_stream_head_t *h)
{
    (void) c;
    (void) h;
}

/* no charset */
static size_t
no_charset(nicd_conn_t *c, const char *t, size_t tlen, char *name, size_t cap,
           const nicd_recode_t **rc)
{
    (void) c;
    (void) t;
    (void) tlen;
    (void) name;
    (void) cap;
    if (rc != NULL) {
        *rc = NULL;
    }
    return 0;
}

/* no field set by a filter */
static int
not_replaced(nicd_conn_t *c, int status, const char *name, size_t nlen,
             nicd_buf_t *value)
{
    (void) c;
    (void) status;
    (void) name;
    (void) nlen;
    if (value != NULL) {
        value->len = 0;
    }
    return 0;
}

/* no trailer */
static int
no_trailer(nicd_conn_t *c, int status, nicd_buf_t *b)
{
    (void) c;
    (void) status;
    (void) b;
    return 0;
}

#define BOTTOM(f)                                                              \
    {                                                                          \
        {(nicd_filter_fn_t) (f)}, {NULL}, 1                                    \
    }

nicd_chain_t nicd_chains[NICD_NFILTERS] = {
    [NICD_FILTER_HEADER] = BOTTOM(end_headers),
    [NICD_FILTER_BODY] = BOTTOM(body_as_it_is),
    [NICD_FILTER_FILE] = BOTTOM(file_as_it_is),
    [NICD_FILTER_STREAM] = BOTTOM(head_as_it_is),
    [NICD_FILTER_CHARSET] = BOTTOM(no_charset),
    [NICD_FILTER_FIELD] = BOTTOM(not_replaced),
    [NICD_FILTER_TRAILER] = BOTTOM(no_trailer),
};

int
nicd_filter_add(int kind, nicd_filter_fn_t fn, nicd_filter_used_pt used)
{
    nicd_chain_t *ch = &nicd_chains[kind];

    if (ch->n == NICD_FILTER_SLOTS) {
        fprintf(stderr, "nicd: more than %d filters of kind %d\n",
                NICD_FILTER_SLOTS - 1, kind);
        abort();
    }
    ch->fn[ch->n] = fn;
    ch->used[ch->n] = used;
    return ch->n++;
}

/* ---- the module: each level's sets ---- */

static void *
create_conf(nicd_conf_t *c)
{
    nicd_filter_conf_t *fc = nicd_conf_alloc(c, sizeof(*fc));

    if (fc != NULL) {
        fc->chunked = NICD_UNSET;
    }
    return fc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const nicd_filter_conf_t *p = prev;
    nicd_filter_conf_t       *fc = conf;

    (void) c;
    NICD_MERGE(fc, p, chunked, 1);
    return NULL;
}

/* lc's sets: the bottom and every filter used there */
static void
level_sets(nicd_loc_conf_t *lc, void *arg)
{
    nicd_filter_conf_t *fc = NICD_LOC_CONF(lc, nicd_http_filter_module);
    int                 k, i;

    (void) arg;
    for (k = 0; k < NICD_NFILTERS; k++) {
        fc->used[k] = 1;
        for (i = 1; i < nicd_chains[k].n; i++) {
            if (nicd_chains[k].used[i] == NULL || nicd_chains[k].used[i](lc)) {
                fc->used[k] |= 1u << i;
            }
        }
    }
}

static const char *
filter_postconfiguration(nicd_conf_t *c)
{
    nicd_conf_each_level(c, level_sets, NULL);
    return NULL;
}

static const directive_t filter_directives[] = {
    {"chunked_transfer_encoding", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(nicd_filter_conf_t, chunked)},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_http_filter_module = {
    .name = "filter",
    .directives = filter_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = filter_postconfiguration,
};
