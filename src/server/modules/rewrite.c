/*
 * rewrite, return, break, set and if (nginx's ngx_http_rewrite_module): at a server's level they run before a location is chosen, in a
 * location's after; in the order written.  "if (CONDITION) { ... }" holds
 * these directives only (nginx allows more, and warns that "if is evil"):
 * CONDITION is a variable (true unless empty or "0"), "$v = text",
 * "$v != text", "$v ~ re" (and ~*, !~, !~*; its captures are $1..$9 in
 * the block), or "-f", "-d", "-e", "-x" and their "!" on a path with
 * variables ($request_filename).  "rewrite RE URI [last|break|
 * redirect|permanent]": a match replaces the URI ($1..$9 and the
 * variables of vars.c in URI; a URI starting with http://, https:// or
 * $scheme is a redirect); "last" looks for a location again, "break" stops
 * the rewrites and serves the new URI where it is.  "return CODE [TEXT]",
 * "return CODE URL" (301, 302, 303, 307, 308), "return URL" (302).
 * "set $VAR VALUE": VALUE (with variables) is $VAR for the rest of the
 * request (http/variables.c keeps it).
 */

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/http/filter.h"
#include "server/conf/directive.h"
#include "server/http/files.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

/* "if (CONDITION) { ... }": what it tests */
typedef struct {
    const nicd_cv_t *var; /* the left side, with variables ("$host") */
    int              op;  /* IF_* */
    int              negate;
    const nicd_cv_t *value; /* "=" and "!=": the right side */
    void            *re;    /* "~" and "~*": pcre2_code */
} if_t;

enum {
    IF_TRUE = 0, /* not empty and not "0" */
    IF_EQ,
    IF_RE,
    IF_FILE,   /* -f */
    IF_DIR,    /* -d */
    IF_EXISTS, /* -e */
    IF_EXEC    /* -x */
};

typedef struct rewrite_conf_s rewrite_conf_t;

/* "rewrite REGEX REPLACEMENT [FLAG];", "return CODE [TEXT|URL];",
 * "break;", "set $VAR VALUE;" and "if (...) { ... }", in the order
 * written */
typedef struct {
    void            *re;    /* pcre2_code of a rewrite */
    const nicd_cv_t *value; /* rewrite: the new URI; return: text; set */
    int              flag;  /* REWRITE_* */
    int              code;  /* return's status */
    if_t            *cond;  /* an if's condition */
    rewrite_conf_t  *block; /* an if's rules */
    int              var;   /* set's variable, its index */
} rewrite_t;

enum {
    REWRITE_NONE = 0,
    REWRITE_LAST,
    REWRITE_BREAK,
    REWRITE_REDIRECT,
    REWRITE_PERMANENT,
    REWRITE_RETURN,
    REWRITE_STOP, /* break; */
    REWRITE_IF,
    REWRITE_SET /* set $var value; */
};

/* the module's settings of a level (and of an if block): its rules,
 * never inherited */
struct rewrite_conf_s {
    rewrite_t *rules;
    int        nrules;
};

nicd_module_t nicd_rewrite_module;

static void *
create_conf(nicd_conf_t *c)
{
    return nicd_conf_alloc(c, sizeof(rewrite_conf_t));
}

static const char *
add(parse_t *ps, rewrite_t *rw)
{
    rewrite_conf_t *l = nicd_conf_module_loc(ps);

    l->rules = nicd_conf_grow(ps->conf, l->rules, l->nrules, sizeof(*rw));
    if (l->rules == NULL) {
        return "out of memory";
    }
    l->rules[l->nrules++] = *rw;
    return NULL;
}

static const char *
set_rewrite(parse_t *ps, const char **a, int n)
{
    rewrite_t   rw;
    char        err[512];
    const char *msg;

    memset(&rw, 0, sizeof(rw));
    rw.flag = REWRITE_NONE;
    if (n == 3) {
        if (strcmp(a[2], "last") == 0) {
            rw.flag = REWRITE_LAST;
        } else if (strcmp(a[2], "break") == 0) {
            rw.flag = REWRITE_BREAK;
        } else if (strcmp(a[2], "redirect") == 0) {
            rw.flag = REWRITE_REDIRECT;
        } else if (strcmp(a[2], "permanent") == 0) {
            rw.flag = REWRITE_PERMANENT;
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[2]);
        }
    }
    rw.re = nicd_conf_regex(ps->conf, a[0], 0, err, sizeof(err));
    if (rw.re == NULL) {
        return nicd_conf_msg("%s", err);
    }
    if (rw.flag == REWRITE_NONE
        && (strncmp(a[1], "http://", 7) == 0
            || strncmp(a[1], "https://", 8) == 0
            || strncmp(a[1], "$scheme", 7) == 0)) {
        rw.flag = REWRITE_REDIRECT;
    }
    rw.value = nicd_conf_cv(ps, a[1], &msg);
    return rw.value == NULL ? msg : add(ps, &rw);
}

static const char *
set_return(parse_t *ps, const char **a, int n)
{
    rewrite_t   rw;
    char       *end;
    long        code;
    const char *msg;

    memset(&rw, 0, sizeof(rw));
    rw.flag = REWRITE_RETURN;
    code = strtol(a[0], &end, 10);
    if (*end != '\0' || end == a[0]) {
        if (n != 1
            || (strncmp(a[0], "http://", 7) != 0
                && strncmp(a[0], "https://", 8) != 0
                && strncmp(a[0], "$scheme", 7) != 0)) {
            return nicd_conf_msg("invalid return code \"%s\"", a[0]);
        }
        rw.code = 302;
        rw.value = nicd_conf_cv(ps, a[0], &msg);
    } else {
        if (code < 200 || code > 999) {
            return nicd_conf_msg("invalid return code \"%s\"", a[0]);
        }
        rw.code = (int) code;
        rw.value = nicd_conf_cv(ps, n == 2 ? a[1] : "", &msg);
    }
    return rw.value == NULL ? msg : add(ps, &rw);
}

static const char *
set_break(parse_t *ps, const char **a, int n)
{
    rewrite_t rw;

    (void) a;
    (void) n;
    memset(&rw, 0, sizeof(rw));
    rw.flag = REWRITE_STOP;
    return add(ps, &rw);
}

static const char *
set_set(parse_t *ps, const char **a, int n)
{
    rewrite_t   rw;
    nicd_var_t  v;
    const char *msg;
    char       *name;
    size_t      i;

    (void) n;
    if (a[0][0] != '$' || a[0][1] == '\0') {
        return nicd_conf_msg("invalid variable name \"%s\"", a[0]);
    }
    name = nicd_conf_strdup(ps->conf, a[0] + 1);
    if (name == NULL) {
        return "out of memory";
    }
    for (i = 0; name[i] != '\0'; i++) {
        char ch = name[i];

        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
              || (ch >= '0' && ch <= '9') || ch == '_')) {
            return nicd_conf_msg("invalid variable name \"%s\"", a[0]);
        }
        name[i] = (char) (ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    /* the name is known everywhere from now on (empty until set) */
    memset(&v, 0, sizeof(v));
    v.name = name;
    v.flags = NICD_VAR_SET;
    if ((msg = nicd_var_add(ps->conf, &v, NULL)) != NULL) {
        return msg;
    }
    memset(&rw, 0, sizeof(rw));
    rw.flag = REWRITE_SET;
    rw.var = nicd_var_index(ps->conf, name, i);
    rw.value = nicd_conf_cv(ps, a[1], &msg);
    if (rw.var < 0) {
        return "out of memory";
    }
    return rw.value == NULL ? msg : add(ps, &rw);
}

/* the words of "if (...)", parentheses stripped, as one condition */
static const char *
set_if(parse_t *ps, const char **a, int n)
{
    rewrite_t        rw;
    if_t            *cond;
    nicd_loc_conf_t *blk;
    const char      *w[4], *op, *msg = "out of memory";
    char            *first, *last, err[512];
    int              k = 0, i;

    memset(&rw, 0, sizeof(rw));
    cond = nicd_conf_alloc(ps->conf, sizeof(*cond));
    /* the block: a level of its own holding the module's rules alone */
    blk = nicd_conf_alloc(ps->conf, sizeof(*blk));
    if (blk != NULL) {
        blk->mconf = nicd_conf_alloc(
            ps->conf, sizeof(void *) * (size_t) ps->conf->nmodules);
    }
    if (cond == NULL || blk == NULL || blk->mconf == NULL
        || (rw.block = create_conf(ps->conf)) == NULL) {
        return "out of memory";
    }
    blk->mconf[nicd_rewrite_module.index] = rw.block;
    /* "(", words..., ")" in any split the tokenizer made */
    for (i = 0; i < n && k < 4; i++) {
        const char *s = a[i];
        size_t      len = strlen(s);
        char       *c;

        if (i == 0) {
            if (s[0] != '(') {
                return nicd_conf_msg("invalid condition \"%s\"", s);
            }
            s++;
            len--;
        }
        if (i == n - 1) {
            if (len == 0 || s[len - 1] != ')') {
                return nicd_conf_msg("invalid condition \"%s\"", a[i]);
            }
            len--;
        }
        if (len == 0) {
            continue;
        }
        c = nicd_conf_alloc(ps->conf, len + 1);
        if (c == NULL) {
            return "out of memory";
        }
        memcpy(c, s, len);
        w[k++] = c;
    }
    if (k == 0 || i < n) {
        return "invalid condition";
    }
    first = (char *) w[0];
    last = (char *) w[k - 1];
    if (k == 1) {
        if (first[0] != '$') {
            return nicd_conf_msg("invalid condition \"%s\"", first);
        }
        cond->op = IF_TRUE;
        cond->var = nicd_conf_cv(ps, first, &msg);
    } else if (k == 2) {
        op = first;
        cond->negate = op[0] == '!';
        op += cond->negate;
        if (strcmp(op, "-f") == 0) {
            cond->op = IF_FILE;
        } else if (strcmp(op, "-d") == 0) {
            cond->op = IF_DIR;
        } else if (strcmp(op, "-e") == 0) {
            cond->op = IF_EXISTS;
        } else if (strcmp(op, "-x") == 0) {
            cond->op = IF_EXEC;
        } else {
            return nicd_conf_msg("invalid condition \"%s\"", first);
        }
        cond->var = nicd_conf_cv(ps, last, &msg);
    } else if (k == 3) {
        cond->var = nicd_conf_cv(ps, first, &msg);
        op = w[1];
        cond->negate = op[0] == '!';
        op += cond->negate;
        if (strcmp(op, "=") == 0) {
            cond->op = IF_EQ;
            cond->value = nicd_conf_cv(ps, last, &msg);
            if (cond->value == NULL) {
                return msg;
            }
        } else if (strcmp(op, "~") == 0 || strcmp(op, "~*") == 0) {
            cond->op = IF_RE;
            cond->re =
                nicd_conf_regex(ps->conf, last, op[1] == '*', err, sizeof(err));
            if (cond->re == NULL) {
                return nicd_conf_msg("%s", err);
            }
        } else {
            return nicd_conf_msg("unexpected \"%s\" in condition", w[1]);
        }
    } else {
        return "invalid condition";
    }
    if (cond->var == NULL) {
        return msg;
    }
    rw.flag = REWRITE_IF;
    rw.cond = cond;
    if (add(ps, &rw) != NULL) {
        return "out of memory";
    }
    /* the block's rewrite directives go to its own list */
    ps->loc = blk;
    return NULL;
}

/* "return CODE TEXT": the text as the body, of the type of the URI at
 * hand's extension, else the location's default_type (nginx's
 * ngx_http_set_content_type) */
static void
return_text(nicd_conn_t *c, const nicd_request_t *r, int code, const char *text,
            size_t len)
{
    const char *uri = c->r->uri != NULL ? c->r->uri : r->path.p, *body;
    size_t      ulen = c->r->uri != NULL ? c->r->uri_len : r->path.len;
    const char *t = nicd_conf_mime(c->w->cycle->conf, uri, ulen);
    nicd_buf_t  z = {0};

    if (t == NULL) {
        t = c->r->loc->default_type;
    }
    if (nicd_resp_status(c, code) == 204) {
        /* no body, type or length (nginx's header filter); an error_page
         * that led here gives its status instead, with an empty body */
        nicd_resp_start(c, code);
        nicd_resp_end_headers(c);
        nicd_resp_finish(c, code);
        return;
    }

    body = nicd_body_filter(c, t, strlen(t), text, &len, &z);
    nicd_resp_start(c, code);
    nicd_resp_content_type(c, t, strlen(t));
    if (c->r->body_gzipped) {
        NICD_RESP_HEADER(c, "Content-Encoding", "gzip", 4);
    }
    nicd_resp_header_u64(c, "Content-Length", 14, (uint64_t) len);
    nicd_resp_end_headers(c);
    if (r->method != NICD_M_HEAD && len > 0) {
        nicd_resp_body_mem(c, body, len);
    }
    nicd_buf_free(&z);
    nicd_resp_finish(c, code);
}

/* the rewrite module's state while a list of rules runs */
typedef struct {
    nicd_buf_t        cur;  /* the URI as the rules change it */
    nicd_buf_t        subj; /* what the last regex matched, for $1..$9 */
    nicd_buf_t        args; /* a replacement's arguments being made */
    const PCRE2_SIZE *caps;
    int               ncaps;
    int               changed;
} rw_state_t;

#define VCTX(r, st)                                                            \
    {                                                                          \
        (r), (st)->cur.data, (st)->cur.len, (st)->subj.data, (st)->caps,       \
            (st)->ncaps                                                        \
    }

/* a path test of if: -f, -d, -e, -x, through the symlinks the
 * location at hand allows (as nginx's) */
static int
path_test(nicd_conn_t *c, int op, const char *path)
{
    struct stat st;

    if (nicd_files_stat(c, c->r->loc, path, &st) != 0) {
        return 0;
    }
    switch (op) {
    case IF_FILE: return !S_ISDIR(st.st_mode);
    case IF_DIR: return S_ISDIR(st.st_mode);
    case IF_EXEC: return access(path, X_OK) == 0;
    }
    return 1;
}

/* if's condition: 1 true, 0 false, -1 an error (logged) */
static int
condition(nicd_conn_t *c, const nicd_request_t *r, const if_t *cond,
          rw_state_t *st, pcre2_match_data *md)
{
    nicd_buf_t *v = &c->w->expand, rhs = {0};
    nicd_vctx_t x = VCTX(r, st);
    int         t, n;

    if (nicd_cv_eval(c, cond->var, &x, v) != 0) {
        return -1;
    }
    switch (cond->op) {
    case IF_TRUE: t = v->len > 0 && !(v->len == 1 && v->data[0] == '0'); break;
    case IF_EQ:
        if (nicd_cv_eval(c, cond->value, &x, &rhs) != 0) {
            nicd_buf_free(&rhs);
            return -1;
        }
        t = rhs.len == v->len && memcmp(rhs.data, v->data, v->len) == 0;
        nicd_buf_free(&rhs);
        break;
    case IF_RE:
        n = pcre2_match(cond->re, (PCRE2_SPTR) v->data, v->len, 0, 0, md, NULL);
        t = n >= 0;
        if (t && !cond->negate) {
            /* its captures serve the block's rules */
            st->subj.len = 0;
            nicd_buf_add(&st->subj, v->data, v->len);
            nicd_buf_add(&st->subj, "", 1);
            st->caps = pcre2_get_ovector_pointer(md);
            st->ncaps = n;
        }
        break;
    default: t = path_test(c, cond->op, v->data);
    }
    return cond->negate ? !t : t;
}

/*
 * The arguments of a replacement that names its own (q, qlen bytes: what
 * follows its first '?'), as nginx takes them, into out: the request's
 * (old) follow them after a '&', unless the replacement ends with '?'.
 */
static void
with_args(const char *q, size_t qlen, const nicd_str_t *old, nicd_buf_t *out)
{
    if (qlen == 0 || q[qlen - 1] == '?') {
        nicd_buf_add(out, q, qlen > 0 ? qlen - 1 : 0);
        return;
    }
    nicd_buf_add(out, q, qlen);
    if (old->len > 0) {
        nicd_buf_add(out, "&", 1);
        nicd_buf_add(out, old->p, old->len);
    }
}

/*
 * Run rules (n of them) on st->cur.  NICD_DONE: answered; NICD_URI_AGAIN:
 * "last"; NICD_URI_STAY: "break" (the flag or the directive);
 * NICD_DECLINED: all ran.
 */
static int
rules(nicd_conn_t *c, const nicd_request_t *r, const rewrite_t *rw, int nrw,
      rw_state_t *st)
{
    nicd_worker_t    *w = c->w;
    pcre2_match_data *md = nicd_match_data(w);
    nicd_vctx_t       x;
    int               i, n, rc, code, head = r->method == NICD_M_HEAD;
    const char       *q;
    size_t            plen;

    if (md == NULL) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return NICD_DONE;
    }
    for (i = 0; i < nrw; i++, rw++) {
        /* $uri is the URI as the rules change it; $1..$9 the last match */
        x = (nicd_vctx_t) VCTX(r, st);
        switch (rw->flag) {
        case REWRITE_STOP: return NICD_URI_STAY;
        case REWRITE_SET:
            if (nicd_cv_eval(c, rw->value, &x, &w->expand) != 0
                || nicd_var_store(c, rw->var, w->expand.data, w->expand.len)
                       != 0) {
                nicd_respond_error(c, 500, head, NULL, 0);
                return NICD_DONE;
            }
            continue;
        case REWRITE_IF:
            rc = condition(c, r, rw->cond, st, md);
            if (rc < 0) {
                nicd_respond_error(c, 500, head, NULL, 0);
                return NICD_DONE;
            }
            if (rc == 1) {
                rc = rules(c, r, rw->block->rules, rw->block->nrules, st);
                if (rc != NICD_DECLINED) {
                    return rc;
                }
            }
            continue;
        case REWRITE_RETURN:
            c->r->status = rw->code; /* $status in the text, as nginx */
            if (nicd_cv_eval(c, rw->value, &x, &w->expand) != 0) {
                nicd_respond_error(c, 500, head, NULL, 0);
                return NICD_DONE;
            }
            code = rw->code;
            if (code == NICD_HTTP_CLOSE) {
                nicd_respond_error(c, code, head, NULL, 0); /* no text */
            } else if (code == 301 || code == 302 || code == 303 || code == 307
                       || code == 308) {
                nicd_redirect(c, r, code, w->expand.data, w->expand.len);
            } else if (nicd_cv_source(rw->value)[0] == '\0'
                       && (code >= 400 || code == 304)) {
                /* no text: nginx's page for the code, if it has one */
                nicd_respond_error(c, code, head, NULL, 0);
            } else {
                /* (a code below 400 without text: an empty body of the
                 * location's type, as nginx's ngx_http_send_response) */
                return_text(c, r, code, w->expand.data, w->expand.len);
            }
            return NICD_DONE;
        }
        n = pcre2_match(rw->re, (PCRE2_SPTR) st->cur.data, st->cur.len, 0, 0,
                        md, NULL);
        if (n < 0) {
            continue;
        }
        st->subj.len = 0;
        nicd_buf_add(&st->subj, st->cur.data, st->cur.len);
        nicd_buf_add(&st->subj, "", 1);
        st->caps = pcre2_get_ovector_pointer(md);
        st->ncaps = n;
        x = (nicd_vctx_t) VCTX(r, st);
        /* (the URI came with escapes: captures in the new arguments are
         * escaped again, as nginx's quoted_uri) */
        x.args_escape = memchr(r->path.p, '%', r->path.len) != NULL
                        || memchr(r->path.p, '+', r->path.len) != NULL;
        if (nicd_cv_eval(c, rw->value, &x, &w->expand) != 0) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return NICD_DONE;
        }
        q = memchr(w->expand.data, '?', w->expand.len);
        plen = q != NULL ? (size_t) (q - w->expand.data) : w->expand.len;
        st->args.len = 0;
        if (q != NULL) {
            with_args(q + 1, w->expand.len - plen - 1, nicd_req_args(c, r),
                      &st->args);
        } else {
            nicd_buf_add(&st->args, nicd_req_args(c, r)->p,
                         nicd_req_args(c, r)->len);
        }
        if (rw->flag == REWRITE_REDIRECT || rw->flag == REWRITE_PERMANENT) {
            w->expand.len = plen;
            if (st->args.len > 0) {
                nicd_buf_add(&w->expand, "?", 1);
                nicd_buf_add(&w->expand, st->args.data, st->args.len);
            }
            nicd_redirect(c, r, rw->flag == REWRITE_PERMANENT ? 301 : 302,
                          w->expand.data, w->expand.len);
            return NICD_DONE;
        }
        if (q != NULL
            && (nicd_buf_failed(&st->args)
                || nicd_req_set_args(c, st->args.data, st->args.len) != 0)) {
            nicd_respond_error(c, 500, head, NULL, 0);
            return NICD_DONE;
        }
        st->cur.len = 0;
        nicd_buf_add(&st->cur, w->expand.data, plen);
        st->changed = 1;
        if (rw->flag == REWRITE_LAST) {
            return NICD_URI_AGAIN;
        }
        if (rw->flag == REWRITE_BREAK) {
            return NICD_URI_STAY;
        }
    }
    return NICD_DECLINED;
}

/*
 * The (server) rewrite phase: the rules of lc on uri.  NICD_DONE:
 * answered; NICD_URI_AGAIN: the URI (nicd_phase_uri) is to find a location
 * again ("last", or a rewrite without a flag that changed it, as nginx's
 * post-rewrite phase does); NICD_URI_STAY: the new URI stays in this
 * location; NICD_DECLINED: nothing changed.
 */
static int
rewrite_handler(nicd_conn_t *c, const nicd_request_t *r,
                const nicd_loc_conf_t *lc, const char *uri, size_t len)
{
    const rewrite_conf_t *rc = NICD_LOC_CONF(lc, nicd_rewrite_module);
    rw_state_t            st;
    int                   rv;

    if (rc->nrules == 0) {
        return NICD_DECLINED;
    }
    memset(&st, 0, sizeof(st));
    nicd_buf_add(&st.cur, uri, len);
    rv = rules(c, r, rc->rules, rc->nrules, &st);
    if (rv == NICD_DECLINED && st.changed) {
        rv = NICD_URI_AGAIN;
    }
    if (rv == NICD_URI_STAY && !st.changed) {
        rv = NICD_DECLINED;
    }
    if (rv == NICD_URI_AGAIN || rv == NICD_URI_STAY) {
        if (nicd_buf_failed(&st.cur)
            || nicd_phase_uri(c, st.cur.data, st.cur.len) == NULL) {
            nicd_respond_error(c, 500, r->method == NICD_M_HEAD, NULL, 0);
            rv = NICD_DONE;
        }
    }
    nicd_buf_free(&st.cur);
    nicd_buf_free(&st.subj);
    nicd_buf_free(&st.args);
    return rv;
}

static int
uses(const nicd_loc_conf_t *lc, const void *arg)
{
    (void) arg;
    return ((const rewrite_conf_t *) NICD_LOC_CONF(lc, nicd_rewrite_module))
               ->nrules
           > 0;
}

static const char *
rewrite_postconfiguration(nicd_conf_t *c)
{
    const char *msg;

    if (!nicd_conf_any_level(c, uses, NULL)) {
        return NULL;
    }
    msg = nicd_phase_add(c, NICD_PHASE_SERVER_REWRITE, rewrite_handler);
    return msg != NULL ? msg
                       : nicd_phase_add(c, NICD_PHASE_REWRITE, rewrite_handler);
}

static const directive_t nicd_rewrite_directives[] = {
    {"rewrite", CTX_SRV | CTX_LOC | CTX_IF, 2, 3, set_rewrite, 0, 0},
    {"return", CTX_SRV | CTX_LOC | CTX_IF, 1, 2, set_return, 0, 0},
    {"break", CTX_SRV | CTX_LOC | CTX_IF, 0, 0, set_break, 0, 0},
    {"set", CTX_SRV | CTX_LOC | CTX_IF, 2, 2, set_set, 0, 0},
    {"if", CTX_SRV | CTX_LOC, 1, 8, set_if, 0, CTX_IF},
    {NULL, 0, 0, 0, NULL, 0, 0},
};

nicd_module_t nicd_rewrite_module = {
    .name = "rewrite",
    .directives = nicd_rewrite_directives,
    .create_loc_conf = create_conf,
    .postconfiguration = rewrite_postconfiguration,
};
