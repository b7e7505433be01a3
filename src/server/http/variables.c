/*
 * Variables and complex values (variables.h): the registry of a
 * configuration, the core's variables, templates compiled once, and the
 * per-request values (the worker's: a request is answered within one
 * call, so the worker holds the values of the request at hand).
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "server/conf/directive.h"
#include "server/http/variables.h"

#define MATCH_PAIRS 10 /* $0..$9 */

/* a variable some template uses, by index */
typedef struct {
    const nicd_var_t *v;
    char             *name; /* the whole name, lower case */
    size_t            len;
    const char       *suffix; /* in name: a family's part */
    size_t            slen;
} indexed_t;

/* a piece of a compiled template */
enum { SEG_TEXT = 0, SEG_VAR, SEG_CAP };

typedef struct {
    int         kind;
    const char *text; /* SEG_TEXT: the text; SEG_VAR: the name */
    size_t      len;
    int         n; /* SEG_VAR: the index; SEG_CAP: the capture's number */
} seg_t;

struct nicd_cv_s {
    const char *source;
    const char *where;
    seg_t      *segs;
    int         nsegs;
};

/* a configuration's registry (nicd_conf_t.vars) */
struct nicd_vars_s {
    nicd_var_t **added; /* what the modules' directives added */
    int          nadded;
    indexed_t   *idx; /* what the templates use */
    int          nidx;
    nicd_cv_t  **cvs; /* every template, for their names to be looked up */
    int          ncvs;
};

/* a value kept for the request at hand (the worker's vcache) */
typedef struct {
    uint32_t seq; /* the worker's vseq when it was kept */
    uint32_t off, len;
} kept_t;

/* ---- the registry ---- */

static struct nicd_vars_s *
vars_of(nicd_conf_t *c)
{
    if (c->vars == NULL) {
        c->vars = nicd_conf_alloc(c, sizeof(struct nicd_vars_s));
    }
    return c->vars;
}

/* the variable of a table (ending with a NULL name) named exactly so */
static const nicd_var_t *
table_exact(const nicd_var_t *t, const char *name, size_t len)
{
    const nicd_var_t *v;

    for (v = t; v != NULL && v->name != NULL; v++) {
        if (!(v->flags & NICD_VAR_PREFIX) && strlen(v->name) == len
            && memcmp(v->name, name, len) == 0) {
            return v;
        }
    }
    return NULL;
}

/* the core's, then the modules' own (nicd_module_t.variables) */
static const nicd_var_t *
core_exact(const nicd_conf_t *c, const char *name, size_t len)
{
    const nicd_var_t *v = table_exact(nicd_core_vars, name, len);
    int               i;

    for (i = 0; v == NULL && i < c->nmodules; i++) {
        v = table_exact(c->modules[i]->variables, name, len);
    }
    return v;
}

/* the longest family of table t that name starts with, if longer than
 * *bestn */
static void
table_prefix(const nicd_var_t *t, const char *name, size_t len,
             const nicd_var_t **best, size_t *bestn)
{
    const nicd_var_t *v;
    size_t            n;

    for (v = t; v != NULL && v->name != NULL; v++) {
        n = strlen(v->name);
        if ((v->flags & NICD_VAR_PREFIX) && n <= len && n > *bestn
            && memcmp(v->name, name, n) == 0) {
            *best = v;
            *bestn = n;
        }
    }
}

static nicd_var_t *
added_exact(struct nicd_vars_s *vs, const char *name, size_t len)
{
    int i;

    for (i = 0; i < vs->nadded; i++) {
        if (!(vs->added[i]->flags & NICD_VAR_PREFIX)
            && strlen(vs->added[i]->name) == len
            && memcmp(vs->added[i]->name, name, len) == 0) {
            return vs->added[i];
        }
    }
    return NULL;
}

const char *
nicd_var_add(nicd_conf_t *c, const nicd_var_t *v, nicd_var_t **out)
{
    struct nicd_vars_s *vs = vars_of(c);
    nicd_var_t         *have, *nv;

    if (vs == NULL) {
        return "out of memory";
    }
    have = added_exact(vs, v->name, strlen(v->name));
    if (have != NULL) {
        /* "set" may name a variable again, or one a map makes (nginx's
         * map variables are changeable); a map takes a name "set" gave
         * first */
        if (out != NULL) {
            *out = have;
        }
        if (v->get == NULL) {
            have->flags |= v->flags & NICD_VAR_SET;
            return NULL;
        }
        if (have->get == NULL) {
            have->get = v->get;
            have->data = v->data;
            have->flags |= v->flags;
            return NULL;
        }
        return nicd_conf_msg("the duplicate \"%s\" variable", v->name);
    }
    if ((have = (nicd_var_t *) core_exact(c, v->name, strlen(v->name)))
        != NULL) {
        if (v->get == NULL && (have->flags & NICD_VAR_CHANGEABLE)) {
            return NULL; /* "set" of $limit_rate: its getter reads it */
        }
        return nicd_conf_msg("the duplicate \"%s\" variable", v->name);
    }
    nv = nicd_conf_alloc(c, sizeof(*nv));
    vs->added = nicd_conf_grow(c, vs->added, vs->nadded, sizeof(nv));
    if (nv == NULL || vs->added == NULL) {
        return "out of memory";
    }
    *nv = *v;
    nv->name = nicd_conf_strdup(c, v->name);
    if (nv->name == NULL) {
        return "out of memory";
    }
    vs->added[vs->nadded++] = nv;
    if (out != NULL) {
        *out = nv;
    }
    return NULL;
}

/* the variable name (lower case, len bytes) stands for, with *suffix
 * the family's part; NULL: none.  The modules' first, then the core's;
 * an exact name before a family, the longest family first. */
static const nicd_var_t *
lookup(const nicd_conf_t *c, struct nicd_vars_s *vs, const char *name,
       size_t len, size_t *plen)
{
    const nicd_var_t *v, *best = NULL;
    size_t            n, bestn = 0;
    int               i;

    *plen = 0;
    if ((v = added_exact(vs, name, len)) != NULL
        || (v = core_exact(c, name, len)) != NULL) {
        return v;
    }
    for (i = 0; i < vs->nadded; i++) {
        v = vs->added[i];
        n = strlen(v->name);
        if ((v->flags & NICD_VAR_PREFIX) && n <= len && n > bestn
            && memcmp(v->name, name, n) == 0) {
            best = v;
            bestn = n;
        }
    }
    table_prefix(nicd_core_vars, name, len, &best, &bestn);
    for (i = 0; i < c->nmodules; i++) {
        table_prefix(c->modules[i]->variables, name, len, &best, &bestn);
    }
    *plen = bestn;
    return best;
}

int
nicd_var_indexed(nicd_conf_t *c, const char *name, size_t len)
{
    const struct nicd_vars_s *vs = vars_of(c);
    int                       k;

    for (k = 0; vs != NULL && k < vs->nidx; k++) {
        if (vs->idx[k].len == len
            && strncasecmp(vs->idx[k].name, name, len) == 0) {
            return k;
        }
    }
    return -1;
}

int
nicd_var_index(nicd_conf_t *c, const char *name, size_t len)
{
    struct nicd_vars_s *vs = vars_of(c);
    const nicd_var_t   *v;
    indexed_t           e;
    size_t              plen, i;
    int                 k;

    if (vs == NULL) {
        return -1;
    }
    if ((k = nicd_var_indexed(c, name, len)) >= 0) {
        return k;
    }
    e.name = nicd_conf_alloc(c, len + 1);
    if (e.name == NULL) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        e.name[i] = (char) tolower((unsigned char) name[i]);
    }
    e.len = len;
    v = lookup(c, vs, e.name, len, &plen);
    if (v == NULL) {
        return -1;
    }
    e.v = v;
    e.suffix = e.name + plen;
    e.slen = len - plen;
    vs->idx = nicd_conf_grow(c, vs->idx, vs->nidx, sizeof(e));
    if (vs->idx == NULL) {
        return -1;
    }
    vs->idx[vs->nidx] = e;
    return vs->nidx++;
}

/* ---- complex values ---- */

static int
name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
           || (ch >= '0' && ch <= '9') || ch == '_';
}

static int
add_seg(nicd_conf_t *c, nicd_cv_t *cv, int kind, const char *text, size_t len,
        int n)
{
    seg_t s;

    s.kind = kind;
    s.text = text;
    s.len = len;
    s.n = n;
    cv->segs = nicd_conf_grow(c, cv->segs, cv->nsegs, sizeof(s));
    if (cv->segs == NULL) {
        return -1;
    }
    cv->segs[cv->nsegs++] = s;
    return 0;
}

nicd_cv_t *
nicd_cv_compile(nicd_conf_t *c, const char *tmpl, const char *where,
                const char **err)
{
    struct nicd_vars_s *vs = vars_of(c);
    nicd_cv_t          *cv = nicd_conf_alloc(c, sizeof(*cv));
    const char         *p, *s;
    size_t              n;
    int                 rc = 0;

    *err = "out of memory";
    if (vs == NULL || cv == NULL
        || (cv->source = nicd_conf_strdup(c, tmpl)) == NULL
        || (cv->where = nicd_conf_strdup(c, where != NULL ? where : ""))
               == NULL) {
        return NULL;
    }
    p = cv->source;
    while (*p != '\0' && rc == 0) {
        if (*p != '$') {
            s = strchr(p, '$');
            n = s == NULL ? strlen(p) : (size_t) (s - p);
            rc = add_seg(c, cv, SEG_TEXT, p, n, 0);
            p += n;
            continue;
        }
        p++;
        if (*p >= '0' && *p <= '9') {
            rc = add_seg(c, cv, SEG_CAP, NULL, 0, *p - '0');
            p++;
            continue;
        }
        if (*p == '{') {
            s = strchr(p, '}');
            if (s == NULL) {
                *err = nicd_conf_msg("the closing bracket in \"%s\" variable "
                                     "is missing",
                                     p + 1);
                return NULL;
            }
            rc = add_seg(c, cv, SEG_VAR, p + 1, (size_t) (s - p - 1), -1);
            p = s + 1;
            continue;
        }
        for (n = 0; name_char(p[n]); n++) {
        }
        if (n == 0) {
            rc = add_seg(c, cv, SEG_TEXT, "$", 1, 0); /* a lone "$" */
            continue;
        }
        rc = add_seg(c, cv, SEG_VAR, p, n, -1);
        p += n;
    }
    vs->cvs = nicd_conf_grow(c, vs->cvs, vs->ncvs, sizeof(cv));
    if (rc != 0 || vs->cvs == NULL) {
        return NULL;
    }
    vs->cvs[vs->ncvs++] = cv;
    *err = NULL;
    return cv;
}

nicd_cv_t *
nicd_conf_cv(parse_t *ps, const char *tmpl, const char **err)
{
    char where[512];

    snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
    return nicd_cv_compile(ps->conf, tmpl, where, err);
}

int
nicd_cv_literal(const nicd_cv_t *cv, const char **text, size_t *len)
{
    if (cv->nsegs > 1 || (cv->nsegs == 1 && cv->segs[0].kind != SEG_TEXT)) {
        return 0;
    }
    *text = cv->nsegs == 1 ? cv->segs[0].text : "";
    *len = cv->nsegs == 1 ? cv->segs[0].len : 0;
    return 1;
}

const char *
nicd_cv_source(const nicd_cv_t *cv)
{
    return cv->source;
}

/* every template's names looked up, once the configuration is read */
static const char *
resolve(nicd_conf_t *c)
{
    struct nicd_vars_s *vs = c->vars;
    nicd_cv_t          *cv;
    int                 i, k;

    for (i = 0; vs != NULL && i < vs->ncvs; i++) {
        cv = vs->cvs[i];
        for (k = 0; k < cv->nsegs; k++) {
            if (cv->segs[k].kind != SEG_VAR) {
                continue;
            }
            cv->segs[k].n =
                nicd_var_index(c, cv->segs[k].text, cv->segs[k].len);
            if (cv->segs[k].n < 0) {
                return nicd_conf_msg("unknown \"%.*s\" variable in %s",
                                     (int) cv->segs[k].len, cv->segs[k].text,
                                     cv->where);
            }
        }
    }
    return NULL;
}

/* ---- values of the request at hand ---- */

/* the worker's kept values, sized for the configuration's variables: the
 * entry of index, or NULL (out of memory) */
static kept_t *
kept(nicd_worker_t *w, const struct nicd_vars_s *vs, int index)
{
    kept_t *k;

    if (w->nvcache < vs->nidx) {
        k = realloc(w->vcache, sizeof(kept_t) * (size_t) vs->nidx);
        if (k == NULL) {
            return NULL;
        }
        memset(k + w->nvcache, 0,
               sizeof(kept_t) * (size_t) (vs->nidx - w->nvcache));
        w->vcache = k;
        w->nvcache = vs->nidx;
    }
    return &((kept_t *) w->vcache)[index];
}

static int
store(nicd_worker_t *w, int index, const char *value, size_t len)
{
    kept_t *k = kept(w, w->cycle->conf->vars, index);
    size_t  off = w->vars.len;

    if (k == NULL) {
        return -1;
    }
    nicd_buf_add(&w->vars, value, len);
    if (nicd_buf_failed(&w->vars)) {
        return -1;
    }
    k->seq = w->vseq;
    k->off = (uint32_t) off;
    k->len = (uint32_t) len;
    return 0;
}

int
nicd_var_store(nicd_conn_t *c, int index, const char *value, size_t len)
{
    return store(c->w, index, value, len);
}

/* a saved set of values: count entries of (index, len, bytes) */
typedef struct {
    uint32_t index, len;
} saved_t;

void *
nicd_vars_save(nicd_worker_t *w)
{
    const kept_t *k = w->vcache;
    nicd_buf_t    b = {0};
    saved_t       e;
    uint32_t      n = 0;
    int           i;

    for (i = 0; i < w->nvcache; i++) {
        if (k[i].seq != w->vseq) {
            continue;
        }
        if (n == 0) {
            nicd_buf_add(&b, &n, sizeof(n)); /* (none: nothing allocated) */
        }
        e.index = (uint32_t) i;
        e.len = k[i].len;
        nicd_buf_add(&b, &e, sizeof(e));
        nicd_buf_add(&b, w->vars.data + k[i].off, k[i].len);
        n++;
    }
    if (n == 0 || nicd_buf_failed(&b)) {
        nicd_buf_free(&b);
        return NULL;
    }
    memcpy(b.data, &n, sizeof(n));
    return b.data; /* (the buffer's own: freed with free()) */
}

void
nicd_vars_restore(nicd_worker_t *w, const void *saved)
{
    const char *p = saved;
    uint32_t    n, i;
    saved_t     e;

    nicd_vars_fresh(w);
    if (p == NULL) {
        return;
    }
    memcpy(&n, p, sizeof(n));
    p += sizeof(n);
    for (i = 0; i < n; i++) {
        memcpy(&e, p, sizeof(e));
        p += sizeof(e);
        (void) store(w, (int) e.index, p, e.len);
        p += e.len;
    }
}

int
nicd_var_kept(nicd_conn_t *c, int index, nicd_str_t *value)
{
    nicd_worker_t *w = c->w;
    kept_t        *k = kept(w, w->cycle->conf->vars, index);

    if (k == NULL || k->seq != w->vseq) {
        return 0;
    }
    value->p = w->vars.data + k->off;
    value->len = k->len;
    return 1;
}

/* variable index's value appended to b: 0 or -1 */
static int
value(nicd_conn_t *c, const nicd_vctx_t *x, int index, nicd_buf_t *b)
{
    const struct nicd_vars_s *vs = c->w->cycle->conf->vars;
    const indexed_t          *e = &vs->idx[index];
    kept_t                   *k = NULL;
    size_t                    start = b->len;

    if (!(e->v->flags & NICD_VAR_VOLATILE)) {
        k = kept(c->w, vs, index);
        if (k == NULL) {
            return -1;
        }
        if (k->seq == c->w->vseq) {
            nicd_buf_add(b, c->w->vars.data + k->off, k->len);
            return 0;
        }
    }
    if (e->v->get == NULL) {
        log_error(LOG_WARN, 0,
                  "using uninitialized \"%s\" variable, client: %s", e->name,
                  nicd_client(c));
        return 0; /* "set" somewhere: empty until then */
    }
    if (e->v->get(c, x, e->v, e->suffix, e->slen, b) != 0) {
        return -1;
    }
    if (k != NULL && !nicd_buf_failed(b)) {
        return nicd_var_store(c, index, b->data + start, b->len - start);
    }
    return 0;
}

int
nicd_var_by_name(nicd_conn_t *c, const char *name, size_t len, nicd_buf_t *b)
{
    struct nicd_vars_s *vs = c->w->cycle->conf->vars;
    const nicd_var_t   *v;
    char                low[128];
    size_t              i, plen;
    int                 k;

    if (vs == NULL || len == 0 || len >= sizeof(low)) {
        return 0;
    }
    for (k = 0; k < vs->nidx; k++) {
        if (vs->idx[k].len == len
            && strncasecmp(vs->idx[k].name, name, len) == 0) {
            return value(c, NULL, k, b) == 0 ? 1 : -1;
        }
    }
    /* a name no template used: read, not kept (the registry is the
     * configuration's, read only here) */
    for (i = 0; i < len; i++) {
        low[i] = (char) tolower((unsigned char) name[i]);
    }
    v = lookup(c->w->cycle->conf, vs, low, len, &plen);
    if (v == NULL) {
        return 0;
    }
    if (v->get == NULL) {
        return 1; /* "set" somewhere else: empty here */
    }
    return v->get(c, NULL, v, low + plen, len - plen, b) == 0 ? 1 : -1;
}

/* p (len bytes) appended to b, escaped as nginx's NGX_ESCAPE_ARGS
 * escapes (space, '#', '%', '&', '+', ';', '?', control and 8-bit
 * bytes) when escape is set */
static void
args_add(nicd_buf_t *b, const char *p, size_t len, int escape)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i;

    if (!escape) {
        nicd_buf_add(b, p, len);
        return;
    }
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char) p[i];
        char          e[3] = {'%', hex[ch >> 4], hex[ch & 15]};

        if (ch <= ' ' || ch >= 0x7f || strchr("#%&+;?", ch) != NULL) {
            nicd_buf_add(b, e, 3);
        } else {
            nicd_buf_add(b, p + i, 1);
        }
    }
}

int
nicd_cv_eval(nicd_conn_t *c, const nicd_cv_t *cv, const nicd_vctx_t *x,
             nicd_buf_t *b)
{
    const seg_t *s;
    int          i, k, is_args = 0;

    b->len = 0;
    for (i = 0; i < cv->nsegs; i++) {
        s = &cv->segs[i];
        switch (s->kind) {
        case SEG_TEXT:
            nicd_buf_add(b, s->text, s->len);
            is_args = is_args || memchr(s->text, '?', s->len) != NULL;
            break;
        case SEG_CAP:
            k = s->n;
            if (x != NULL && x->subject != NULL && k < x->ncaps
                && x->caps[2 * k] != PCRE2_UNSET) {
                args_add(b, x->subject + x->caps[2 * k],
                         x->caps[2 * k + 1] - x->caps[2 * k],
                         is_args && x->args_escape);
            }
            break;
        default:
            if (value(c, x, s->n, b) != 0) {
                log_error(LOG_ERR, 0,
                          "\"%s\" could not be evaluated, client: %s",
                          cv->source, nicd_client(c));
                return -1;
            }
        }
    }
    nicd_buf_add(b, "", 1);
    if (nicd_buf_failed(b)) {
        return -1;
    }
    b->len--;
    return 0;
}

/* ---- what the requests share ---- */

void *
nicd_match_data(nicd_worker_t *w)
{
    if (w->match == NULL) {
        w->match = pcre2_match_data_create(MATCH_PAIRS, NULL);
    }
    return w->match;
}

void *
nicd_regex_match(nicd_worker_t *w, void *re, const char *s, size_t len)
{
    pcre2_match_data *md = nicd_match_data(w);

    if (md == NULL
        || pcre2_match(re, (PCRE2_SPTR) s, len, 0, 0, md, NULL) < 0) {
        return NULL;
    }
    return md;
}

int
nicd_loc_captures(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *uri,
                  size_t len, nicd_vctx_t *x)
{
    void *md;

    memset(x, 0, sizeof(*x));
    if (lc->re == NULL
        || (md = nicd_regex_match(c->w, lc->re, uri, len)) == NULL) {
        return -1;
    }
    x->subject = uri;
    x->caps = pcre2_get_ovector_pointer(md);
    x->ncaps = (int) pcre2_get_ovector_count(md);
    return 0;
}

int
nicd_alias_eval(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *uri,
                size_t len, nicd_buf_t *b)
{
    nicd_vctx_t x;

    if (nicd_loc_captures(c, lc, uri, len, &x) != 0) {
        return -1;
    }
    return nicd_cv_eval(c, lc->root_cv, &x, b);
}

/* ---- the module: names looked up once everything is read ---- */

/* alias and root with captures or variables: compiled for each level */
static const char *
compile_roots(nicd_conf_t *c, nicd_loc_conf_t *l)
{
    const char *err;
    int         i;

    if (l->alias && l->root_vars && l->root_cv == NULL) {
        l->root_cv = nicd_cv_compile(c, l->root, l->where, &err);
        if (l->root_cv == NULL) {
            return err;
        }
    }
    for (i = 0; i < l->nlocs; i++) {
        if ((err = compile_roots(c, l->locs[i])) != NULL) {
            return err;
        }
    }
    return NULL;
}

static const char *
variables_postconfiguration(nicd_conf_t *c)
{
    const char *err;
    int         i;

    for (i = 0; i < c->nservers; i++) {
        if ((err = compile_roots(c, c->servers[i]->loc)) != NULL) {
            return err;
        }
    }
    if ((err = resolve(c)) != NULL) {
        return err;
    }
    /* a $sent_http_ read anywhere: every response keeps its fields */
    for (i = 0; c->vars != NULL && i < c->vars->nidx; i++) {
        if (c->vars->idx[i].v != NULL
            && strcmp(c->vars->idx[i].v->name, "sent_http_") == 0) {
            c->keep_sent = 1;
        }
    }
    return NULL;
}

nicd_module_t nicd_variables_module = {
    .name = "variables",
    .postconfiguration = variables_postconfiguration,
};

void
nicd_vars_fresh(nicd_worker_t *w)
{
    w->vars.len = 0;
    if (++w->vseq == 0) {
        nicd_vars_worker_free(w); /* wrapped: forget every kept one */
        w->vseq = 1;
    }
}

void
nicd_vars_worker_free(nicd_worker_t *w)
{
    free(w->vcache);
    w->vcache = NULL;
    w->nvcache = 0;
}

int
nicd_var_empty(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
               const char *suffix, size_t slen, nicd_buf_t *b)
{
    (void) c;
    (void) x;
    (void) v;
    (void) suffix;
    (void) slen;
    (void) b;
    return 0;
}
