/*
 * Charsets, as nginx's ngx_http_charset_module:
 *
 *   charset NAME | off;          (http, server, location; default off)
 *       the charset a response of a type in charset_types goes out with,
 *       added to its Content-Type ("; charset=NAME"; not on 301 and
 *       302); NAME may hold variables.
 *   source_charset NAME;         (http, server, location)
 *       the charset the files and bodies are written in: where it
 *       differs from charset, the body is recoded by the charset_map
 *       between the two (a configuration naming a pair no charset_map
 *       joins is refused; with variables, such a response goes out as
 *       it is, with an error line).
 *   override_charset on | off;   (default off)
 *       a response whose type already names its charset (a Lua
 *       handler's) is recoded from that one too.
 *   charset_types TYPE ...;      ("*": any type)
 *   charset_map FROM TO { HEX HEX; ... }   (http)
 *       byte FROM-code to byte TO-code, both ways; where TO is "utf-8",
 *       byte to the UTF-8 bytes of its character (hex, up to 3 bytes),
 *       as nginx's koi-utf and win-utf files give them.
 *
 * As nginx: bytes below 0x80 are kept and a byte of an 8-bit charset no
 * line names becomes "?"; a character recoded from UTF-8 that the
 * target charset lacks becomes "&#N;", a byte that is no UTF-8 "?".  A
 * body recoded byte for byte keeps its length, ranges and validators;
 * one recoded to or from UTF-8 has no ranges.  A body with a
 * Content-Encoding (gzip_static's .gz) is not recoded and gets no
 * charset.  Where nginx streams, nicd recodes a file whole in memory,
 * as gzip on the fly does; a body that comes in pieces (a proxied one)
 * is recoded as it comes (http/stream.h).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/hex.h"
#include "util/log.h"
#include "server/conf/directive.h"
#include "server/http/filter.h"
#include "server/http/phases.h"
#include "server/http/stream.h"
#include "server/http/variables.h"

#define CS_OFF  (-1) /* charset off; no source_charset */
#define CS_VAR  (-3) /* a template with variables, read at run time */
#define CS_NONE (-4) /* a name no configuration line knows */

typedef struct {
    char *name;
    int   utf8;
} charset_t;

enum { TO_8BIT, TO_UTF8, FROM_UTF8 };

/* one direction of a charset_map */
typedef struct {
    nicd_recode_t  rc; /* first: what the http layer calls */
    int            kind;
    unsigned char  byte[256]; /* TO_8BIT: each byte's */
    unsigned char *utf;       /* TO_UTF8: 4 bytes a byte, the length first */
    unsigned char *page[256]; /* FROM_UTF8: characters to bytes by their
                                  high byte, 0: none */
} table_t;

typedef struct {
    int      from, to; /* charsets */
    table_t *fwd, *back;
} cmap_t;

typedef struct {
    int          charset, source; /* a charset, CS_OFF, CS_VAR or unset */
    nicd_cv_t   *charset_cv, *source_cv;
    int          override;
    nicd_types_t types;
    /* the http level's: every charset named, and the maps */
    charset_t *sets;
    int        nsets;
    cmap_t    *maps;
    int        nmaps;
} cs_conf_t;

nicd_module_t nicd_charset_module;

static char *default_types[] = {
    "text/html",
    "text/xml",
    "text/plain",
    "text/vnd.wap.wml",
    "application/javascript",
    "application/rss+xml",
};

static cs_conf_t *
http_conf(const nicd_conf_t *c)
{
    return NICD_LOC_CONF(c->http, nicd_charset_module);
}

static void *
create_conf(nicd_conf_t *c)
{
    cs_conf_t *l = nicd_conf_alloc(c, sizeof(*l));

    if (l != NULL) {
        l->charset = NICD_UNSET;
        l->source = NICD_UNSET;
        l->override = NICD_UNSET;
    }
    return l;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const cs_conf_t *p = prev;
    cs_conf_t       *l = conf;

    (void) c;
    if (l->charset == NICD_UNSET) {
        l->charset = p != NULL ? p->charset : CS_OFF;
        l->charset_cv = p != NULL ? p->charset_cv : NULL;
    }
    if (l->source == NICD_UNSET) {
        l->source = p != NULL ? p->source : CS_OFF;
        l->source_cv = p != NULL ? p->source_cv : NULL;
    }
    NICD_MERGE(l, p, override, 0);
    NICD_MERGE_LIST(l, p, types.type, types.n);
    if (l->types.type == NULL) {
        l->types.type = default_types;
        l->types.n = (int) (sizeof(default_types) / sizeof(default_types[0]));
    }
    return NULL;
}

/* the charset named name (len bytes, any case): its index, or CS_NONE */
static int
find_charset(const cs_conf_t *h, const char *name, size_t len)
{
    int i;

    for (i = 0; i < h->nsets; i++) {
        if (strlen(h->sets[i].name) == len
            && strncasecmp(h->sets[i].name, name, len) == 0) {
            return i;
        }
    }
    return CS_NONE;
}

/* ... made when no line named it before: -1 when out of memory */
static int
add_charset(nicd_conf_t *c, cs_conf_t *h, const char *name)
{
    int i = find_charset(h, name, strlen(name));

    if (i != CS_NONE) {
        return i;
    }
    h->sets = nicd_conf_grow(c, h->sets, h->nsets, sizeof(charset_t));
    if (h->sets == NULL
        || (h->sets[h->nsets].name = nicd_conf_strdup(c, name)) == NULL) {
        return -1;
    }
    h->sets[h->nsets].utf8 = strcasecmp(name, "utf-8") == 0;
    return h->nsets++;
}

/* charset and source_charset: a name, a template, or (charset) off */
static const char *
set_name(parse_t *ps, const char *v, int *idx, nicd_cv_t **cv, int takes_off)
{
    const char *msg, *text;
    size_t      len;

    if (*idx != NICD_UNSET) {
        return "is duplicate";
    }
    if (takes_off && strcmp(v, "off") == 0) {
        *idx = CS_OFF;
        return NULL;
    }
    if ((*cv = nicd_conf_cv(ps, v, &msg)) == NULL) {
        return msg;
    }
    if (!nicd_cv_literal(*cv, &text, &len)) {
        *idx = CS_VAR;
        return NULL;
    }
    *cv = NULL;
    *idx = add_charset(ps->conf, http_conf(ps->conf), v);
    return *idx < 0 ? "out of memory" : NULL;
}

static const char *
set_charset(parse_t *ps, const char **a, int n)
{
    cs_conf_t *l = nicd_conf_module_loc(ps);

    (void) n;
    return set_name(ps, a[0], &l->charset, &l->charset_cv, 1);
}

static const char *
set_source(parse_t *ps, const char **a, int n)
{
    cs_conf_t *l = nicd_conf_module_loc(ps);

    (void) n;
    return set_name(ps, a[0], &l->source, &l->source_cv, 0);
}

/* hex digits (2 * n of them) into out: n, or -1 */
static int
hex_bytes(const char *s, unsigned char *out, int max)
{
    size_t len = strlen(s);
    int    i, hi, lo;

    if (len == 0 || len % 2 != 0 || len / 2 > (size_t) max) {
        return -1;
    }
    for (i = 0; i < (int) (len / 2); i++) {
        hi = nicache_hexval((unsigned char) s[2 * i]);
        lo = nicache_hexval((unsigned char) s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return -1;
        }
        out[i] = (unsigned char) (hi * 16 + lo);
    }
    return i;
}

/*
 * The character of the UTF-8 bytes at p (len of them), read as nginx
 * reads them, so that a body that is no UTF-8 comes out as nginx's: a
 * lead byte says how many bytes follow; any byte from 0x80 follows, and
 * one below it ends the character as no character (taken with it); an
 * overlong form is no character.  *used: the bytes taken.  NO_CHAR for
 * no character, SHORT when len ends inside one.
 */
#define NO_CHAR ((uint32_t) -1)
#define SHORT   ((uint32_t) -2)

static uint32_t
utf8_char(const unsigned char *p, size_t len, size_t *used)
{
    uint32_t u = p[0], least;
    size_t   n, i;

    if (u < 0x80) {
        *used = 1;
        return u;
    }
    if (u >= 0xF0) {
        u &= 0x07;
        least = 0x10000;
        n = 3;
    } else if (u >= 0xE0) {
        u &= 0x0F;
        least = 0x800;
        n = 2;
    } else if (u >= 0xC2) {
        u &= 0x1F;
        least = 0x80;
        n = 1;
    } else {
        *used = 1;
        return NO_CHAR;
    }
    if (len - 1 < n) {
        *used = len;
        return SHORT;
    }
    for (i = 1; i <= n; i++) {
        if (p[i] < 0x80) {
            *used = i + 1;
            return NO_CHAR;
        }
        u = (u << 6) | (p[i] & 0x3F);
    }
    *used = n + 1;
    return u >= least && u <= 0x10FFFF ? u : NO_CHAR;
}

/* a line of a charset_map block: two hexadecimal codes */
static const char *
map_line(parse_t *ps, const char **a, int n)
{
    cmap_t       *m = ps->lines_data;
    unsigned char from, to[4];
    uint32_t      u;
    size_t        used;
    int           k;

    if (n != 2) {
        return "invalid parameters number";
    }
    if (hex_bytes(a[0], &from, 1) != 1) {
        return nicd_conf_msg("invalid value \"%s\"", a[0]);
    }
    if (m->fwd->kind == TO_8BIT) {
        if (hex_bytes(a[1], to, 1) != 1) {
            return nicd_conf_msg("invalid value \"%s\"", a[1]);
        }
        m->fwd->byte[from] = to[0];
        m->back->byte[to[0]] = from;
        return NULL;
    }
    k = hex_bytes(a[1], to, 3);
    if (k < 0 || (u = utf8_char(to, (size_t) k, &used)) > 0xFFFF
        || used != (size_t) k) {
        return nicd_conf_msg("invalid value \"%s\"", a[1]);
    }
    m->fwd->utf[from * 4] = (unsigned char) k;
    memcpy(&m->fwd->utf[from * 4 + 1], to, (size_t) k);
    if (m->back->page[u >> 8] == NULL
        && (m->back->page[u >> 8] = nicd_conf_alloc(ps->conf, 256)) == NULL) {
        return "out of memory";
    }
    m->back->page[u >> 8][u & 0xFF] = from;
    return NULL;
}

static int recode_8bit(const nicd_recode_t *rc, const char *in, size_t len,
                       nicd_buf_t *out);
static int recode_to_utf8(const nicd_recode_t *rc, const char *in, size_t len,
                          nicd_buf_t *out);
static int recode_from_utf8(const nicd_recode_t *rc, const char *in, size_t len,
                            nicd_buf_t *out);

/* one direction's table, every byte below 0x80 itself, the rest "?" */
static table_t *
table_new(nicd_conf_t *c, int kind)
{
    table_t *t = nicd_conf_alloc(c, sizeof(*t));
    int      i;

    if (t == NULL) {
        return NULL;
    }
    memset(t, 0, sizeof(*t));
    t->kind = kind;
    t->rc.same_length = kind == TO_8BIT;
    t->rc.run = kind == TO_8BIT   ? recode_8bit
                : kind == TO_UTF8 ? recode_to_utf8
                                  : recode_from_utf8;
    if (kind == TO_UTF8 && (t->utf = nicd_conf_alloc(c, 256 * 4)) == NULL) {
        return NULL;
    }
    for (i = 0; i < 256; i++) {
        t->byte[i] = (unsigned char) (i < 0x80 ? i : '?');
        if (t->utf != NULL) {
            t->utf[i * 4] = 1;
            t->utf[i * 4 + 1] = (unsigned char) (i < 0x80 ? i : '?');
        }
    }
    return t;
}

static const char *
set_charset_map(parse_t *ps, const char **a, int n)
{
    cs_conf_t *h = http_conf(ps->conf);
    cmap_t    *m;
    int        from, to, i, utf8;

    (void) n;
    if (strcasecmp(a[0], "utf-8") == 0) {
        return "\"charset_map\" with \"utf-8\" charset should be given in "
               "the second column";
    }
    from = add_charset(ps->conf, h, a[0]);
    to = add_charset(ps->conf, h, a[1]);
    if (from < 0 || to < 0) {
        return "out of memory";
    }
    if (from == to) {
        return nicd_conf_msg("\"charset_map\" between the same charsets "
                             "\"%s\" and \"%s\"",
                             a[0], a[1]);
    }
    for (i = 0; i < h->nmaps; i++) {
        if ((h->maps[i].from == from && h->maps[i].to == to)
            || (h->maps[i].from == to && h->maps[i].to == from)) {
            return nicd_conf_msg("duplicate \"charset_map\" between \"%s\" "
                                 "and \"%s\"",
                                 a[0], a[1]);
        }
    }
    h->maps = nicd_conf_grow(ps->conf, h->maps, h->nmaps, sizeof(cmap_t));
    if (h->maps == NULL) {
        return "out of memory";
    }
    m = &h->maps[h->nmaps];
    m->from = from;
    m->to = to;
    utf8 = h->sets[to].utf8;
    m->fwd = table_new(ps->conf, utf8 ? TO_UTF8 : TO_8BIT);
    m->back = table_new(ps->conf, utf8 ? FROM_UTF8 : TO_8BIT);
    if (m->fwd == NULL || m->back == NULL) {
        return "out of memory";
    }
    h->nmaps++;
    ps->lines = map_line;
    ps->lines_data = m;
    return NULL;
}

/* ---- recoding ---- */

static int
recode_8bit(const nicd_recode_t *rc, const char *in, size_t len,
            nicd_buf_t *out)
{
    const table_t *t = (const table_t *) rc;
    size_t         i;

    if (nicd_buf_reserve(out, len) != 0) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        out->data[out->len + i] = (char) t->byte[(unsigned char) in[i]];
    }
    out->len += len;
    return 0;
}

static int
recode_to_utf8(const nicd_recode_t *rc, const char *in, size_t len,
               nicd_buf_t *out)
{
    const table_t *t = (const table_t *) rc;
    size_t         i;

    if (nicd_buf_reserve(out, len * 3) != 0) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        const unsigned char *u = &t->utf[(unsigned char) in[i] * 4];

        memcpy(out->data + out->len, u + 1, u[0]);
        out->len += u[0];
    }
    return 0;
}

static int
recode_from_utf8(const nicd_recode_t *rc, const char *in, size_t len,
                 nicd_buf_t *out)
{
    const table_t       *t = (const table_t *) rc;
    const unsigned char *p = (const unsigned char *) in, *end = p + len;
    size_t               used;
    uint32_t             u;

    while (p < end) {
        if (*p < 0x80) {
            nicd_buf_add(out, p++, 1);
            continue;
        }
        u = utf8_char(p, (size_t) (end - p), &used);
        p += used;
        if (u == NO_CHAR || u == SHORT) {
            NICD_BUF_LIT(out, "?");
        } else if (u < 0x10000 && t->page[u >> 8] != NULL
                   && t->page[u >> 8][u & 0xFF] != 0) {
            nicd_buf_add(out, &t->page[u >> 8][u & 0xFF], 1);
        } else {
            nicd_buf_addf(out, "&#%u;", (unsigned) u);
        }
    }
    return nicd_buf_failed(out) ? -1 : 0;
}

/* the map from charset from to charset to, or NULL */
static const table_t *
find_table(const cs_conf_t *h, int from, int to)
{
    int i;

    for (i = 0; i < h->nmaps; i++) {
        if (h->maps[i].from == from && h->maps[i].to == to) {
            return h->maps[i].fwd;
        }
        if (h->maps[i].from == to && h->maps[i].to == from) {
            return h->maps[i].back;
        }
    }
    return NULL;
}

/* ---- the response's charset ---- */

/* the charset parameter of Content-Type t, or NULL */
static const char *
type_charset(const char *t, size_t tlen, size_t *len)
{
    const char *p = memchr(t, ';', tlen), *end = t + tlen, *v;

    for (; p != NULL && p < end;
         p = memchr(p + 1, ';', (size_t) (end - p - 1))) {
        for (v = p + 1; v < end && *v == ' '; v++) {
        }
        if ((size_t) (end - v) > 8 && strncasecmp(v, "charset=", 8) == 0) {
            v += 8;
            for (*len = 0; v + *len < end && v[*len] != ';' && v[*len] != ' ';
                 (*len)++) {
            }
            return v;
        }
    }
    return NULL;
}

/* a setting's charset for the request at hand: its index (or CS_NONE),
 * its name in name (cap bytes, NUL-terminated); -1: its variables
 * failed */
static int
resolve(nicd_conn_t *c, const cs_conf_t *h, int idx, const nicd_cv_t *cv,
        char *name, size_t cap)
{
    nicd_buf_t b = {0};
    int        rc;

    if (idx != CS_VAR) {
        snprintf(name, cap, "%s", h->sets[idx].name);
        return idx;
    }
    if (nicd_cv_eval(c, cv, NULL, &b) != 0) {
        nicd_buf_free(&b);
        return -1;
    }
    snprintf(name, cap, "%.*s", (int) b.len, b.data);
    rc = find_charset(h, b.data, b.len);
    nicd_buf_free(&b);
    return rc;
}

#define NAME_MAX_LEN 64

static size_t
charset_of(nicd_conn_t *c, const char *t, size_t tlen, char *name, size_t cap,
           const nicd_recode_t **rc)
{
    const cs_conf_t *l, *h;
    const table_t   *table;
    const char      *has;
    char             src_name[NAME_MAX_LEN];
    size_t           hlen = 0;
    int              dst, src;

    if (rc != NULL) {
        *rc = NULL;
    }
    if (c->r->loc == NULL || tlen == 0) {
        return 0;
    }
    l = NICD_LOC_CONF(c->r->loc, nicd_charset_module);
    if (l->charset == CS_OFF) {
        return 0;
    }
    has = type_charset(t, tlen, &hlen);
    if (has != NULL ? !l->override : !nicd_types_has(&l->types, t, tlen)) {
        return 0;
    }
    h = http_conf(c->w->cycle->conf);
    if ((dst = resolve(c, h, l->charset, l->charset_cv, name, cap)) == -1) {
        return 0;
    }
    if (has != NULL) {
        snprintf(src_name, sizeof(src_name), "%.*s", (int) hlen, has);
        src = find_charset(h, has, hlen);
    } else if (l->source == CS_OFF) {
        return strlen(name); /* charset alone: nothing to recode */
    } else if ((src = resolve(c, h, l->source, l->source_cv, src_name,
                              sizeof(src_name)))
               == -1) {
        return 0;
    }
    if (strcasecmp(src_name, name) == 0) {
        return strlen(name);
    }
    if (c->r->gzipped) {
        return 0; /* encoded bytes: as they are (nginx) */
    }
    table = dst >= 0 && src >= 0 ? find_table(h, src, dst) : NULL;
    if (table == NULL) {
        if (rc == NULL) {
            log_error(LOG_ERR, 0,
                      "no \"charset_map\" between the charsets \"%s\" and "
                      "\"%s\", client: %s",
                      src_name, name, nicd_client(c));
        }
        return 0;
    }
    if (rc != NULL) {
        *rc = &table->rc;
    }
    return strlen(name);
}

/* ---- memory bodies: recoded, then on down the body filters ---- */

/* its slots in the body, stream and charset chains (filter.h) */
static int body_slot, stream_slot, charset_slot;

static const char *
charset_body(nicd_conn_t *c, const char *type, size_t tlen, const char *body,
             size_t *len, nicd_buf_t *tmp)
{
    const nicd_recode_t *rc;
    nicd_buf_t           own = {0};
    const char          *out;
    char                 name[NAME_MAX_LEN];

    if (charset_of(c, type, tlen, name, sizeof(name), &rc) == 0 || rc == NULL
        || rc->run(rc, body, *len, &own) != 0) {
        nicd_buf_free(&own);
        return nicd_body_filter_next(c, body_slot, type, tlen, body, len, tmp);
    }
    *len = own.len;
    out = nicd_body_filter_next(c, body_slot, type, tlen, own.data, len, tmp);
    if (out == own.data) {
        /* the caller frees tmp once it is sent */
        nicd_buf_free(tmp);
        *tmp = own;
        return tmp->data;
    }
    nicd_buf_free(&own);
    return out;
}

/* ---- a body in pieces (a proxied one): recoded as it comes ---- */

typedef struct {
    const nicd_recode_t *rc;
    int                  from_utf8;
    nicd_buf_t           held; /* a character cut by a piece's end */
} cs_stream_t;

/* how many bytes at the end of p (len) begin a UTF-8 character that is
 * not whole */
static size_t
utf8_cut(const unsigned char *p, size_t len)
{
    size_t i, k;

    for (i = 1; i <= 3 && i <= len; i++) {
        if (p[len - i] < 0x80) {
            return 0;
        }
        if (p[len - i] >= 0xC0) {
            k = p[len - i] >= 0xF0 ? 4 : p[len - i] >= 0xE0 ? 3 : 2;
            return k > i ? i : 0;
        }
    }
    return 0;
}

static int
stream_run(nicd_conn_t *c, void *ctx, const char *in, size_t len, int last,
           nicd_buf_t *out)
{
    cs_stream_t *s = ctx;
    size_t       cut;
    int          rc;

    (void) c;
    if (!s->from_utf8) {
        return len > 0 ? s->rc->run(s->rc, in, len, out) : 0;
    }
    if (s->held.len > 0) {
        nicd_buf_add(&s->held, in, len);
        if (nicd_buf_failed(&s->held)) {
            return -1;
        }
        in = s->held.data;
        len = s->held.len;
    }
    cut = last ? 0 : utf8_cut((const unsigned char *) in, len);
    rc = len > cut ? s->rc->run(s->rc, in, len - cut, out) : 0;
    if (cut > 0) {
        char keep[4]; /* (in may be held's own bytes) */

        memcpy(keep, in + len - cut, cut);
        s->held.len = 0;
        nicd_buf_add(&s->held, keep, cut);
    } else {
        s->held.len = 0;
    }
    return rc == 0 && !nicd_buf_failed(&s->held) ? 0 : -1;
}

static void
stream_done(void *ctx)
{
    cs_stream_t *s = ctx;

    nicd_buf_free(&s->held);
    free(s);
}

/* a response relayed in pieces: recoded into the location's charset
 * when its own (override_charset) or source_charset differs */
static void
charset_stream_head(nicd_conn_t *c, nicd_stream_head_t *h)
{
    const nicd_recode_t *rc = NULL;
    cs_stream_t         *s;
    char                 name[NAME_MAX_LEN];

    if (h->type != NULL && !h->encoded
        && charset_of(c, h->type, h->tlen, name, sizeof(name), &rc) > 0
        && rc != NULL && (s = calloc(1, sizeof(*s))) != NULL) {
        s->rc = rc;
        s->from_utf8 = ((const table_t *) rc)->kind == FROM_UTF8;
        if (nicd_stream_add(c, h, stream_run, stream_done, s) == 0
            && !rc->same_length) {
            h->length = -1; /* (an upstream's Accept-Ranges stays, as
                               nginx keeps it) */
        }
    }
    nicd_stream_head_next(c, stream_slot, h);
}

/* ---- once the configuration is read ---- */

typedef struct {
    const cs_conf_t *h;
    char            *msg;
} check_t;

/* a level recoding between two charsets no charset_map joins */
static int
unmapped(const nicd_loc_conf_t *lc, const void *arg)
{
    const check_t   *k = arg;
    const cs_conf_t *l = NICD_LOC_CONF(lc, nicd_charset_module);

    if (l == NULL || l->charset < 0 || l->source < 0 || l->charset == l->source
        || find_table(k->h, l->source, l->charset) != NULL) {
        return 0;
    }
    snprintf(k->msg, 256,
             "no \"charset_map\" between the charsets \"%s\" and \"%s\"",
             k->h->sets[l->source].name, k->h->sets[l->charset].name);
    return 1;
}

static const char *
charset_postconfiguration(nicd_conf_t *c)
{
    static char msg[256];
    check_t     k = {http_conf(c), msg};

    if (k.h != NULL && nicd_conf_any_level(c, unmapped, &k)) {
        return msg;
    }
    return NULL;
}

static const directive_t charset_directives[] = {
    {"charset", CTX_HSL, 1, 1, set_charset, 0},
    {"source_charset", CTX_HSL, 1, 1, set_source, 0},
    {"override_charset", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(cs_conf_t, override)},
    {"charset_types", CTX_HSL, 1, MAX_ARGS, nicd_conf_slot_types,
     offsetof(cs_conf_t, types)},
    {"charset_map", CTX_HTTP, 2, 2, set_charset_map, 0, CTX_LINES},
    {NULL, 0, 0, 0, NULL, 0},
};

/* the charset filter: the location's charset, else the one below's */
static size_t
charset_filter(nicd_conn_t *c, const char *t, size_t tlen, char *name,
               size_t cap, const nicd_recode_t **rc)
{
    size_t n = charset_of(c, t, tlen, name, cap, rc);

    return n > 0 ? n
                 : nicd_charset_filter_next(c, charset_slot, t, tlen, name, cap,
                                            rc);
}

/* where its filters have something to do: a charset set */
static int
sets_charset(const nicd_loc_conf_t *lc)
{
    const cs_conf_t *l = NICD_LOC_CONF(lc, nicd_charset_module);

    return l->charset != CS_OFF;
}

static void
charset_init(void)
{
    charset_slot = nicd_filter_add(
        NICD_FILTER_CHARSET, (nicd_filter_fn_t) charset_filter, sets_charset);
    body_slot = nicd_filter_add(NICD_FILTER_BODY,
                                (nicd_filter_fn_t) charset_body, sets_charset);
    stream_slot =
        nicd_filter_add(NICD_FILTER_STREAM,
                        (nicd_filter_fn_t) charset_stream_head, sets_charset);
}

nicd_module_t nicd_charset_module = {
    .name = "charset",
    .directives = charset_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = charset_postconfiguration,
    .init = charset_init,
};
