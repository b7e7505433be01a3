/*
 * The filter chains, as nginx's, each filter run only where a level of
 * the configuration uses it (h2o's per-path filter lists).
 *
 * A chain is a list of filters of one kind, the http layer's own at the
 * bottom (slot 0: the head ends, the body goes as it is, no charset, no
 * trailer ...).  A module adds its filter in its init with
 * nicd_filter_add(), saying with used(lc) whether the filter has
 * anything to do at a level lc (add_header written there, gzip on, a
 * charset set): the filter goes on top, the one added before below it.
 * Once a configuration is merged, every level (http, server, location,
 * limit_except) keeps the set of its chains' filters it uses, so a
 * request in a plain location runs none but the bottom's; a filter that
 * runs calls the next one of that set with nicd_*_filter_next(..., its
 * slot), the caller starts at NICD_FILTER_TOP.
 *
 *   header    the head's fields added (headers: expires, add_header),
 *             the bottom ends the head (the protocol's end_headers)
 *   body      a body in memory (error pages, return's text): sub,
 *             charset, gzip; the bottom returns it as it is
 *   file      a whole file (static's): addition, sub, ssi, gzip; a
 *             filter that answers returns 1, the bottom 0 (sent as is)
 *   stream    a body in pieces (a proxied one, stream.h): each adds a
 *             stage the pieces run through
 *   charset   the charset a response of a type goes out with (charset)
 *   field     a field a filter sets itself in a response, which the
 *             handler or an upstream then leaves out (headers' expires
 *             and add_header of Last-Modified and ETag)
 *   trailer   the trailer fields of a chunked response (add_trailer)
 *
 * The level at hand is the request's location, else its server's, else
 * the http level's; a file filter's also the location it is given.
 */

#ifndef NICD_FILTER_H
#define NICD_FILTER_H

#include "server/conf/directive.h"
#include "server/http/handler.h"
#include "server/http/stream.h"

enum {
    NICD_FILTER_HEADER = 0,
    NICD_FILTER_BODY,
    NICD_FILTER_FILE,
    NICD_FILTER_STREAM,
    NICD_FILTER_CHARSET,
    NICD_FILTER_FIELD,
    NICD_FILTER_TRAILER,
    NICD_NFILTERS
};

#define NICD_FILTER_SLOTS 16 /* filters a chain holds, its bottom too */
#define NICD_FILTER_TOP   NICD_FILTER_SLOTS /* start at the top */

/* any filter's function, cast to its kind's type to be called */
typedef void (*nicd_filter_fn_t)(void);
/* does the filter have anything to do at level lc (merged)? */
typedef int (*nicd_filter_used_pt)(const nicd_loc_conf_t *lc);

typedef struct {
    nicd_filter_fn_t    fn[NICD_FILTER_SLOTS];
    nicd_filter_used_pt used[NICD_FILTER_SLOTS];
    int                 n;
} nicd_chain_t;

extern nicd_chain_t nicd_chains[NICD_NFILTERS];

/* the filter module's settings of a level: the filters of each chain it
 * uses (bit i: slot i; 0: not known, every filter), and
 * chunked_transfer_encoding */
typedef struct {
    uint32_t used[NICD_NFILTERS];
    int      chunked;
} nicd_filter_conf_t;

extern nicd_module_t nicd_http_filter_module;

/* fn (of kind's type) on top of kind's chain, used where used(lc) says
 * (NULL: everywhere): its slot, to call the next one with; once, in a
 * module's init (aborts past NICD_FILTER_SLOTS: a build's mistake) */
int nicd_filter_add(int kind, nicd_filter_fn_t fn, nicd_filter_used_pt used);

/* the level at hand of c's request */
static inline const nicd_loc_conf_t *
nicd_req_level(const nicd_conn_t *c)
{
    return c->r->loc != NULL   ? c->r->loc
           : c->r->srv != NULL ? c->r->srv->loc
                               : c->w->cycle->conf->http;
}

static inline const nicd_filter_conf_t *
nicd_filter_conf(const nicd_loc_conf_t *lc)
{
    return NICD_LOC_CONF(lc, nicd_http_filter_module);
}

/* the slot of kind's filter below slot that level mask uses (the
 * bottom, 0, when none) */
static inline int
nicd_filter_below(uint32_t mask, int slot)
{
    mask &= (uint32_t) ((1ull << slot) - 1);
    return mask <= 1 ? 0 : 31 - __builtin_clz(mask);
}

/* the filters of kind that c's level at hand uses */
static inline uint32_t
nicd_filter_mask(const nicd_conn_t *c, int kind)
{
    uint32_t m = nicd_filter_conf(nicd_req_level(c))->used[kind];

    return m != 0 ? m : (1u << nicd_chains[kind].n) - 1;
}

static inline nicd_filter_fn_t
nicd_filter_next(uint32_t mask, int kind, int slot)
{
    return nicd_chains[kind].fn[nicd_filter_below(mask, slot)];
}

/* ---- the kinds, their types and their calls ---- */

/* header: adds its fields, then the next */
typedef void (*nicd_header_filter_pt)(nicd_conn_t *c);

static inline void
nicd_header_filter_next(nicd_conn_t *c, int slot)
{
    ((nicd_header_filter_pt) nicd_filter_next(
        nicd_filter_mask(c, NICD_FILTER_HEADER), NICD_FILTER_HEADER, slot))(c);
}

/* body: body (*len bytes) of type (tlen bytes) made into what to send:
 * body, or bytes made into tmp (the caller frees tmp once sent) */
typedef const char *(*nicd_body_filter_pt)(nicd_conn_t *c, const char *type,
                                           size_t tlen, const char *body,
                                           size_t *len, nicd_buf_t *tmp);

static inline const char *
nicd_body_filter_next(nicd_conn_t *c, int slot, const char *type, size_t tlen,
                      const char *body, size_t *len, nicd_buf_t *tmp)
{
    return ((nicd_body_filter_pt) nicd_filter_next(
        nicd_filter_mask(c, NICD_FILTER_BODY), NICD_FILTER_BODY, slot))(
        c, type, tlen, body, len, tmp);
}

/* body through the body filters (unchanged without any) */
static inline const char *
nicd_body_filter(nicd_conn_t *c, const char *type, size_t tlen,
                 const char *body, size_t *len, nicd_buf_t *tmp)
{
    return nicd_body_filter_next(c, NICD_FILTER_TOP, type, tlen, body, len,
                                 tmp);
}

/* file: a whole file f of type, the response to r in location lc, its
 * bytes mem (len of them: recoded by its charset) or, mem NULL, the
 * file's: 1 when it answered the request, else the next one's answer */
typedef int (*nicd_file_filter_pt)(nicd_conn_t *c, const nicd_request_t *r,
                                   const nicd_loc_conf_t *lc, nicd_file_t *f,
                                   const char *type, const char *mem,
                                   size_t len);

static inline int
nicd_file_filter_next(nicd_conn_t *c, int slot, const nicd_request_t *r,
                      const nicd_loc_conf_t *lc, nicd_file_t *f,
                      const char *type, const char *mem, size_t len)
{
    uint32_t m = nicd_filter_mask(c, NICD_FILTER_FILE)
                 | nicd_filter_conf(lc)->used[NICD_FILTER_FILE]; /* (the
                                      location given may be limit_except's) */

    return ((nicd_file_filter_pt) nicd_filter_next(m, NICD_FILTER_FILE, slot))(
        c, r, lc, f, type, mem, len);
}

/* a whole file's body through the file filters: 1 when one answered */
static inline int
nicd_file_filter(nicd_conn_t *c, const nicd_request_t *r,
                 const nicd_loc_conf_t *lc, nicd_file_t *f, const char *type,
                 const char *mem, size_t len)
{
    return nicd_file_filter_next(c, NICD_FILTER_TOP, r, lc, f, type, mem, len);
}

/* stream: a body in pieces about to start (stream.h) */
static inline void
nicd_stream_head_next(nicd_conn_t *c, int slot, nicd_stream_head_t *h)
{
    ((nicd_stream_head_pt) nicd_filter_next(
        nicd_filter_mask(c, NICD_FILTER_STREAM), NICD_FILTER_STREAM, slot))(c,
                                                                            h);
}

/* charset: the charset a response of type t (tlen bytes, parameters and
 * all) goes out with, NUL-terminated in name (cap bytes): its length, 0
 * for none; with rc, in *rc what recodes the body into it (NULL:
 * nothing to recode) */
typedef size_t (*nicd_charset_filter_pt)(nicd_conn_t *c, const char *t,
                                         size_t tlen, char *name, size_t cap,
                                         const nicd_recode_t **rc);

static inline size_t
nicd_charset_filter_next(nicd_conn_t *c, int slot, const char *t, size_t tlen,
                         char *name, size_t cap, const nicd_recode_t **rc)
{
    return ((nicd_charset_filter_pt) nicd_filter_next(
        nicd_filter_mask(c, NICD_FILTER_CHARSET), NICD_FILTER_CHARSET, slot))(
        c, t, tlen, name, cap, rc);
}

/* the charset of a response of type t, and in *rc (not NULL) its
 * recoding; 0: none */
static inline size_t
nicd_resp_charset(nicd_conn_t *c, const char *t, size_t tlen, char *name,
                  size_t cap, const nicd_recode_t **rc)
{
    return nicd_charset_filter_next(c, NICD_FILTER_TOP, t, tlen, name, cap, rc);
}

/* field: 1 when a filter sets the field name (nlen bytes) itself in a
 * response of status to the request at hand, so that the handler's or
 * an upstream's is left out, as nginx's headers filter replaces it; with
 * value, the value it sets there (cleared first; empty: the field is
 * removed); name NULL: 1 when Last-Modified or ETag may be replaced at
 * all, which a handler asks first (once a request, not once a field) */
typedef int (*nicd_field_filter_pt)(nicd_conn_t *c, int status,
                                    const char *name, size_t nlen,
                                    nicd_buf_t *value);

static inline int
nicd_field_filter_next(nicd_conn_t *c, int slot, int status, const char *name,
                       size_t nlen, nicd_buf_t *value)
{
    return ((nicd_field_filter_pt) nicd_filter_next(
        nicd_filter_mask(c, NICD_FILTER_FIELD), NICD_FILTER_FIELD, slot))(
        c, status, name, nlen, value);
}

static inline int
nicd_resp_replaced(nicd_conn_t *c, int status, const char *name, size_t nlen,
                   nicd_buf_t *value)
{
    return nicd_field_filter_next(c, NICD_FILTER_TOP, status, name, nlen,
                                  value);
}

/* trailer: b NULL: 1 when the response of the request at hand, of
 * status, ends with trailer fields; else its fields, "Name: value\r\n"
 * each, appended to b */
typedef int (*nicd_trailer_filter_pt)(nicd_conn_t *c, int status,
                                      nicd_buf_t *b);

static inline int
nicd_trailer_filter_next(nicd_conn_t *c, int slot, int status, nicd_buf_t *b)
{
    return ((nicd_trailer_filter_pt) nicd_filter_next(
        nicd_filter_mask(c, NICD_FILTER_TRAILER), NICD_FILTER_TRAILER, slot))(
        c, status, b);
}

/* may a body of unknown length go chunked at the level at hand
 * (chunked_transfer_encoding)? */
static inline int
nicd_chunked_ok(const nicd_conn_t *c)
{
    return nicd_filter_conf(nicd_req_level(c))->chunked;
}

#endif /* NICD_FILTER_H */
