/*
 * Server-side includes (nginx's ngx_http_ssi_filter_module): with "ssi
 * on", a file of ssi_types (text/html always) is answered with its
 * commands carried out:
 *
 *   <!--# include virtual|file=URI [set=VAR] [stub=BLOCK] [wait=yes] -->
 *   <!--# echo var=NAME [default=TEXT] [encoding=none|url|entity] -->
 *   <!--# set var=NAME value=TEXT -->
 *   <!--# if expr="..." --> <!--# elif expr="..." --> <!--# else -->
 *   <!--# endif -->
 *   <!--# config errmsg=TEXT timefmt=FORMAT -->
 *   <!--# block name=NAME --> ... <!--# endblock -->
 *
 * A parameter's value may hold variables ($name, ${name}): those "set"
 * here first, then the configuration's.  An include is a subrequest
 * (http/subrequest.h) whose body takes the command's place (or, with
 * set=, a variable's value; with stub=, the block's text when it failed
 * or said nothing); the response goes on after it, chunked (its length is
 * not known), without Last-Modified and ETag unless ssi_last_modified is
 * on (then the ETag is weak).  An error in a command is logged and
 * answered with errmsg in its place, or nothing (ssi_silent_errors).
 * "if" expressions: "$var" (true when not empty), "$var = TEXT",
 * "$var != TEXT", "$var = /REGEX/" (its captures are $1..$9 after it),
 * "$var != /REGEX/"; one level of "if", as nginx.  $date_local and
 * $date_gmt are the time in config's timefmt.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/buf.h"
#include "util/log.h"
#include "util/ssi_syntax.h"
#include "util/urlpath.h"
#include "server/conf/directive.h"
#include "server/http/filter.h"
#include "server/http/path.h"
#include "server/http/phases.h"
#include "server/http/subrequest.h"
#include "server/http/variables.h"

#define ERRMSG  "[an error occurred while processing the directive]"
#define TIMEFMT "%A, %d-%b-%Y %H:%M:%S %Z"

typedef struct {
    int          enable;
    int          silent_errors;
    int          last_modified;
    size_t       value_len; /* ssi_value_length */
    size_t       min_chunk; /* ssi_min_file_chunk (no effect: bodies are
                               in memory) */
    nicd_types_t types;     /* ssi_types besides text/html */
} ssi_conf_t;

nicd_module_t nicd_ssi_module;

static void *
create_conf(nicd_conf_t *c)
{
    ssi_conf_t *sc = nicd_conf_alloc(c, sizeof(*sc));

    if (sc != NULL) {
        sc->enable = NICD_UNSET;
        sc->silent_errors = NICD_UNSET;
        sc->last_modified = NICD_UNSET;
        sc->value_len = (size_t) NICD_UNSET;
        sc->min_chunk = (size_t) NICD_UNSET;
    }
    return sc;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const ssi_conf_t *p = prev;
    ssi_conf_t       *sc = conf;

    (void) c;
    NICD_MERGE(sc, p, enable, 0);
    NICD_MERGE(sc, p, silent_errors, 0);
    NICD_MERGE(sc, p, last_modified, 0);
    NICD_MERGE_SIZE(sc, p, value_len, 256);
    NICD_MERGE_SIZE(sc, p, min_chunk, 1024);
    NICD_MERGE_LIST(sc, p, types.type, types.n);
    return NULL;
}

/* ---- a document being answered ---- */

typedef struct {
    char  *name;
    size_t nlen;
    char  *value;
    size_t vlen;
} ssi_var_t;

typedef struct {
    char       *name; /* its own */
    const char *text; /* in the document */
    size_t      nlen, tlen;
} ssi_block_t;

typedef struct {
    nicd_req_t       *req; /* the request's block (moves when suspended) */
    nicd_conn_t      *c;
    const ssi_conf_t *sc;
    nicd_buf_t        doc;
    size_t            pos;       /* what is done of doc */
    int               suspended; /* waiting for a subrequest */
    nicd_subreq_t    *sr;        /* ... this one */
    char             *set_var;   /* its set=, stub= */
    char             *stub;
    ssi_var_t        *vars;
    int               nvars;
    ssi_block_t      *blocks;
    int               nblocks;
    char             *block_at; /* a block being read: its name, text */
    size_t            block_nlen;
    const char       *block_text;
    const char       *cmd_start;          /* the command at hand's "<!--#" */
    int               in_if, taken, skip; /* if: a branch taken; skip text */
    int               status;             /* the response's */
    int               encoding; /* echo's, from one to the next (nginx) */
    char             *errmsg, *timefmt;
    nicd_buf_t        tmp;  /* a value being made */
    ssi_caps_t        caps; /* the last regex's, for $1..$9 */
} ssi_ctx_t;

/* the document being answered in this worker (for $date_local) */
static __thread ssi_ctx_t *at_hand;

static void
ctx_free(void *data)
{
    ssi_ctx_t *x = data;
    int        i;

    nicd_subreq_free(x->sr);
    for (i = 0; i < x->nvars; i++) {
        free(x->vars[i].name);
        free(x->vars[i].value);
    }
    free(x->vars);
    for (i = 0; i < x->nblocks; i++) {
        free(x->blocks[i].name);
    }
    free(x->blocks);
    free(x->block_at);
    free(x->set_var);
    free(x->stub);
    free(x->errmsg);
    free(x->timefmt);
    nicd_buf_free(&x->doc);
    nicd_buf_free(&x->tmp);
    nicd_buf_free(&x->caps.subject);
    if (at_hand == x) {
        at_hand = NULL;
    }
    free(x);
}

static ssi_var_t *
find_var(ssi_ctx_t *x, const char *name, size_t len)
{
    int i;

    for (i = 0; i < x->nvars; i++) {
        if (x->vars[i].nlen == len
            && strncasecmp(x->vars[i].name, name, len) == 0) {
            return &x->vars[i];
        }
    }
    return NULL;
}

/* SSI's variable name := value: 0, or -1 (out of memory) */
static int
set_var(ssi_ctx_t *x, const char *name, size_t nlen, const char *value,
        size_t vlen)
{
    ssi_var_t *v = find_var(x, name, nlen), *grown;
    char      *copy = malloc(vlen + 1);

    if (copy == NULL) {
        return -1;
    }
    if (vlen > 0) {
        memcpy(copy, value, vlen); /* (an empty body's value is NULL) */
    }
    copy[vlen] = '\0';
    if (v == NULL) {
        grown = realloc(x->vars, (size_t) (x->nvars + 1) * sizeof(*grown));
        if (grown == NULL
            || (grown[x->nvars].name = strndup(name, nlen)) == NULL) {
            if (grown != NULL) {
                x->vars = grown;
            }
            free(copy);
            return -1;
        }
        x->vars = grown;
        v = &x->vars[x->nvars++];
        v->nlen = nlen;
        v->value = NULL;
    }
    free(v->value);
    v->value = copy;
    v->vlen = vlen;
    return 0;
}

/* the value of $name (len bytes) appended to b: SSI's own, a capture of
 * the last regex ($0..$9), else the configuration's; 1, 0 (no such
 * variable), -1 (failed, logged) */
static int
var_value(ssi_ctx_t *x, const char *name, size_t len, nicd_buf_t *b)
{
    ssi_var_t *v;

    if (len == 1 && isdigit((unsigned char) name[0])) {
        int k = name[0] - '0';

        if (k < x->caps.n) {
            nicd_buf_add(b, x->caps.subject.data + x->caps.ovec[2 * k],
                         x->caps.ovec[2 * k + 1] - x->caps.ovec[2 * k]);
        }
        return 1;
    }
    if ((v = find_var(x, name, len)) != NULL) {
        nicd_buf_add(b, v->value, v->vlen);
        return 1;
    }
    return nicd_var_by_name(x->c, name, len, b);
}

static int
name_char(char ch)
{
    return isalnum((unsigned char) ch) || ch == '_';
}

/*
 * s (len bytes) with its variables ($name, ${name}) replaced and its
 * escapes ("\$") taken, appended to b: 0, or -1 (logged: an unknown
 * variable, a "${" not closed, a getter that failed)
 */
static int
evaluate(ssi_ctx_t *x, const char *s, size_t len, nicd_buf_t *b)
{
    size_t i = 0, n, start;
    int    braces, rc;

    while (i < len) {
        if (s[i] == '\\' && i + 1 < len) {
            nicd_buf_add(b, s + i + 1, 1);
            i += 2;
            continue;
        }
        if (s[i] != '$') {
            nicd_buf_add(b, s + i, 1);
            i++;
            continue;
        }
        braces = i + 1 < len && s[i + 1] == '{';
        start = i + 1 + (size_t) braces;
        for (n = start; n < len && name_char(s[n]); n++) {
        }
        if (n == start || (braces && (n >= len || s[n] != '}'))) {
            log_error(LOG_ERR, 0, "invalid variable name in \"%.*s\"",
                      (int) len, s);
            return -1;
        }
        rc = var_value(x, s + start, n - start, b);
        if (rc == 0) {
            log_error(LOG_ERR, 0, "unknown variable \"%.*s\" in SSI",
                      (int) (n - start), s + start);
            return -1;
        }
        if (rc < 0) {
            return -1;
        }
        i = n + (size_t) braces;
    }
    return nicd_buf_failed(b) ? -1 : 0;
}

/* ---- output ---- */

static void
out(ssi_ctx_t *x, const char *p, size_t len)
{
    if (len > 0 && !x->skip && x->block_at == NULL) {
        nicd_resp_body_mem(x->c, p, len);
    }
}

/* a command that failed: errmsg in its place (or nothing) */
static void
failed(ssi_ctx_t *x)
{
    const char *m = x->errmsg != NULL ? x->errmsg : ERRMSG;

    if (!x->sc->silent_errors) {
        out(x, m, strlen(m));
    }
}

/*
 * echo: var's value in the encoding at hand (its encoding= changes it for
 * the echoes after it, as nginx's does); a variable of the
 * configuration's that is empty is "not found" there, as most of nginx's
 * are: default's text as it is, else "(none)"
 */
static int
cmd_echo(ssi_ctx_t *x, const ssi_param_t *ps, int n)
{
    const ssi_param_t *var = ssi_param(ps, n, "var"),
                      *dflt = ssi_param(ps, n, "default"),
                      *enc = ssi_param(ps, n, "encoding");
    nicd_buf_t v = {0}, e = {0};
    int        rc, own;

    if (enc != NULL) {
        if (strcmp(enc->value, "none") == 0) {
            x->encoding = SSI_ENC_NONE;
        } else if (strcmp(enc->value, "url") == 0) {
            x->encoding = SSI_ENC_URL;
        } else if (strcmp(enc->value, "entity") == 0) {
            x->encoding = SSI_ENC_ENTITY;
        } else {
            log_error(LOG_ERR, 0,
                      "unknown encoding \"%s\" in the \"echo\" command",
                      enc->value);
            return -1;
        }
    }
    own = find_var(x, var->value, var->vlen) != NULL;
    rc = var_value(x, var->value, var->vlen, &v);
    if (rc < 0) {
        nicd_buf_free(&v);
        return -1;
    }
    if (rc == 0 || (v.len == 0 && !own)) {
        v.len = 0;
        if (dflt != NULL) {
            nicd_buf_add(&v, dflt->value, dflt->vlen);
        } else {
            NICD_BUF_LIT(&v, "(none)");
        }
    }
    ssi_encode(x->encoding, v.data, v.len, &e);
    out(x, e.data, e.len);
    nicd_buf_free(&v);
    nicd_buf_free(&e);
    return 0;
}

static int
cmd_set(ssi_ctx_t *x, const ssi_param_t *ps, int n)
{
    const ssi_param_t *var = ssi_param(ps, n, "var"),
                      *val = ssi_param(ps, n, "value");

    x->tmp.len = 0;
    if (evaluate(x, val->value, val->vlen, &x->tmp) != 0) {
        return -1;
    }
    return set_var(x, var->value, var->vlen, x->tmp.data, x->tmp.len);
}

static int
cmd_config(ssi_ctx_t *x, const ssi_param_t *ps, int n)
{
    const ssi_param_t *m = ssi_param(ps, n, "errmsg"),
                      *t = ssi_param(ps, n, "timefmt");

    if (m != NULL) {
        free(x->errmsg);
        x->errmsg = strdup(m->value);
    }
    if (t != NULL) {
        free(x->timefmt);
        x->timefmt = strdup(t->value);
    }
    return 0;
}

/* a template of an if expression, for ssi_expr() */
static int
expr_eval(void *data, const char *s, size_t len, nicd_buf_t *b)
{
    return evaluate(data, s, len, b);
}

/* if's expression: 1 true, 0 false, -1 an error (logged) */
static int
expr(ssi_ctx_t *x, const char *e, size_t len)
{
    return ssi_expr(e, len, expr_eval, x, &x->caps);
}

/* include's URI (virtual= or file=, its variables replaced) as a path
 * and arguments; a relative one from the directory of the request's URI */
static int
include_uri(ssi_ctx_t *x, const ssi_param_t *u, nicd_buf_t *b)
{
    const char *uri = x->c->r->uri != NULL ? x->c->r->uri : "/";
    size_t      ulen = x->c->r->uri != NULL ? x->c->r->uri_len : 1, k;

    const char *e;
    char       *d;
    size_t      from = b->len, n;

    if (u->vlen == 0 || u->value[0] != '/') {
        for (k = ulen; k > 0 && uri[k - 1] != '/'; k--) {
        }
        nicd_buf_add(b, uri, k);
    }
    if (evaluate(x, u->value, u->vlen, b) != 0 || nicd_buf_failed(b)) {
        return -1;
    }
    /* no "." or ".." segment (nginx's ngx_http_parse_unsafe_uri) */
    e = memchr(b->data + from, '?', b->len - from);
    n = (e != NULL ? (size_t) (e - b->data) : b->len) - from;
    if ((d = malloc(n + 1)) == NULL
        || nicache_urlpath(b->data + from, n, d, &k,
                           NICACHE_URLPATH_REFUSE_DOTS)
               != 0) {
        log_error(LOG_ERR, 0, "unsafe URI \"%.*s\" was detected", (int) n,
                  b->data + from);
        free(d);
        return -1;
    }
    free(d);
    return 0;
}

static void answered(ssi_ctx_t *x);

static const ssi_block_t *
find_block(const ssi_ctx_t *x, const char *name)
{
    int i;

    for (i = 0; i < x->nblocks; i++) {
        if (strlen(name) == x->blocks[i].nlen
            && memcmp(x->blocks[i].name, name, x->blocks[i].nlen) == 0) {
            return &x->blocks[i];
        }
    }
    return NULL;
}

/* include: 1 when done, 0 when its subrequest answers later, -1 an
 * error */
static int
cmd_include(ssi_ctx_t *x, const ssi_param_t *ps, int n)
{
    const ssi_param_t *v = ssi_param(ps, n, "virtual"),
                      *f = ssi_param(ps, n, "file"),
                      *set = ssi_param(ps, n, "set"),
                      *stub = ssi_param(ps, n, "stub"),
                      *wait = ssi_param(ps, n, "wait");
    nicd_buf_t  uri = {0};
    const char *q;
    size_t      plen;

    if ((v == NULL) == (f == NULL)) {
        log_error(LOG_ERR, 0,
                  v == NULL ? "no parameter in \"include\" SSI command"
                            : "inclusion may be either virtual=\"%s\" or "
                              "file=\"%s\"",
                  v != NULL ? v->value : "", f != NULL ? f->value : "");
        return -1;
    }
    if (wait != NULL && strcmp(wait->value, "yes") != 0
        && strcmp(wait->value, "no") != 0) {
        log_error(LOG_ERR, 0, "invalid value \"%s\" for \"wait\" parameter",
                  wait->value);
        return -1;
    }
    if (stub != NULL && find_block(x, stub->value) == NULL) {
        log_error(LOG_ERR, 0, "\"stub\"=\"%s\" for \"include\" not found",
                  stub->value);
        return -1;
    }
    if (include_uri(x, v != NULL ? v : f, &uri) != 0 || nicd_buf_failed(&uri)) {
        nicd_buf_free(&uri);
        return -1;
    }
    q = memchr(uri.data, '?', uri.len);
    plen = q != NULL ? (size_t) (q - uri.data) : uri.len;
    free(x->set_var);
    free(x->stub);
    x->set_var = set != NULL ? strdup(set->value) : NULL;
    x->stub = stub != NULL ? strdup(stub->value) : NULL;
    x->sr = nicd_subrequest(x->c, uri.data, plen, q != NULL ? q + 1 : NULL,
                            q != NULL ? uri.len - plen - 1 : 0,
                            (void (*)(void *)) answered, x);
    nicd_buf_free(&uri);
    if (x->sr == NULL) {
        return -1;
    }
    return x->sr->state == NICD_SUBREQ_PENDING ? 0 : 1;
}

/* what the include's subrequest answered takes its place */
static void
included(ssi_ctx_t *x)
{
    nicd_subreq_t *sr = x->sr;
    int            bad = sr->state != NICD_SUBREQ_DONE;

    x->sr = NULL;
    if (x->stub != NULL && (bad || sr->status >= 300 || sr->body.len == 0)) {
        const ssi_block_t *g = find_block(x, x->stub);

        if (g != NULL && x->set_var != NULL) {
            set_var(x, x->set_var, strlen(x->set_var), g->text, g->tlen);
        } else if (g != NULL) {
            out(x, g->text, g->tlen);
        }
    } else if (bad) {
        failed(x);
    } else if (x->set_var != NULL) {
        if (set_var(x, x->set_var, strlen(x->set_var), sr->body.data,
                    sr->body.len)
            != 0) {
            failed(x);
        }
    } else {
        out(x, sr->body.data, sr->body.len);
    }
    nicd_subreq_free(sr);
}

static int
cmd_block(ssi_ctx_t *x, const ssi_param_t *ps, int n, const char *after)
{
    const ssi_param_t *name = ssi_param(ps, n, "name");

    x->block_at = strdup(name->value);
    if (x->block_at == NULL) {
        return -1;
    }
    x->block_nlen = name->vlen;
    x->block_text = after;
    return 0;
}

/* ---- the document ---- */

/* 1: a command of if's kind, whatever the branch */
static int
is_cond(const char *name)
{
    return strcmp(name, "if") == 0 || strcmp(name, "elif") == 0
           || strcmp(name, "else") == 0 || strcmp(name, "endif") == 0;
}

static int
cmd_cond(ssi_ctx_t *x, const char *name, const ssi_param_t *ps, int n)
{
    const ssi_param_t *e = ssi_param(ps, n, "expr");
    int                t;

    if (strcmp(name, "if") == 0 || strcmp(name, "elif") == 0) {
        if ((name[0] == 'i') == x->in_if) {
            log_error(LOG_ERR, 0,
                      name[0] == 'i' ? "the \"if\" command inside the \"if\" "
                                       "command"
                                     : "the \"elif\" command without \"if\"");
            return -1;
        }
        if (name[0] == 'i') {
            x->in_if = 1;
            x->taken = 0;
        }
        if (x->taken) {
            x->skip = 1;
            return 0;
        }
        x->skip = 0; /* (the expression reads variables) */
        t = expr(x, e->value, e->vlen);
        if (t < 0) {
            x->skip = 1;
            return -1;
        }
        x->taken = t;
        x->skip = !t;
        return 0;
    }
    if (!x->in_if) {
        log_error(LOG_ERR, 0, "the \"%s\" command without \"if\"", name);
        return -1;
    }
    if (strcmp(name, "else") == 0) {
        x->skip = x->taken;
        x->taken = 1;
        return 0;
    }
    x->in_if = 0; /* endif */
    x->skip = 0;
    return 0;
}

/* the commands and their parameters, allowed and required (nginx's) */
static const struct {
    const char *name;
    const char *allowed[6], *required[3];
} cmds[] = {
    {"include", {"virtual", "file", "stub", "wait", "set", NULL}, {NULL}},
    {"echo", {"var", "default", "encoding", NULL}, {"var", NULL}},
    {"set", {"var", "value", NULL}, {"var", "value", NULL}},
    {"config", {"errmsg", "timefmt", NULL}, {NULL}},
    {"if", {"expr", NULL}, {"expr", NULL}},
    {"elif", {"expr", NULL}, {"expr", NULL}},
    {"else", {NULL}, {NULL}},
    {"endif", {NULL}, {NULL}},
    {"block", {"name", NULL}, {"name", NULL}},
    {"endblock", {NULL}, {NULL}},
    {NULL, {NULL}, {NULL}},
};

/* the command name with its parameters: 1 done, 0 pending, -1 failed */
static int
command(ssi_ctx_t *x, const char *name, const ssi_param_t *ps, int n,
        const char *after)
{
    int k;

    if (x->block_at != NULL) {
        if (strcmp(name, "endblock") == 0) {
            ssi_block_t *g =
                realloc(x->blocks, (size_t) (x->nblocks + 1) * sizeof(*g));
            if (g == NULL) {
                return -1;
            }
            x->blocks = g;
            g[x->nblocks].name = x->block_at;
            g[x->nblocks].nlen = x->block_nlen;
            g[x->nblocks].text = x->block_text;
            /* the text up to this command's "<!--#" */
            g[x->nblocks].tlen = (size_t) (x->cmd_start - x->block_text);
            x->nblocks++;
            x->block_at = NULL; /* (its name is the block's now) */
        }
        return 1; /* (a block's commands run where it is used) */
    }
    for (k = 0; cmds[k].name != NULL && strcmp(cmds[k].name, name) != 0; k++) {
    }
    if (cmds[k].name == NULL) {
        log_error(LOG_ERR, 0, "unknown SSI command \"%s\"", name);
        return -1;
    }
    if (is_cond(name)) {
        return ssi_check_params(name, ps, n, cmds[k].allowed, cmds[k].required)
                           == 0
                       && cmd_cond(x, name, ps, n) == 0
                   ? 1
                   : -1;
    }
    if (x->skip) {
        return 1;
    }
    if (ssi_check_params(name, ps, n, cmds[k].allowed, cmds[k].required) != 0) {
        return -1;
    }
    if (strcmp(name, "echo") == 0) {
        return cmd_echo(x, ps, n) == 0 ? 1 : -1;
    }
    if (strcmp(name, "set") == 0) {
        return cmd_set(x, ps, n) == 0 ? 1 : -1;
    }
    if (strcmp(name, "config") == 0) {
        return cmd_config(x, ps, n) == 0 ? 1 : -1;
    }
    if (strcmp(name, "include") == 0) {
        return cmd_include(x, ps, n);
    }
    if (strcmp(name, "block") == 0) {
        return cmd_block(x, ps, n, after) == 0 ? 1 : -1;
    }
    return 1; /* (endblock outside a block: nothing) */
}

/*
 * The document from x->pos on, up to its end (1) or to an include whose
 * subrequest answers later (0: the request is suspended, answered() goes
 * on).
 */
static int
process(ssi_ctx_t *x)
{
    const char *doc = x->doc.data, *end = doc + x->doc.len, *p, *open, *next;
    nicd_buf_t  cmd = {0};
    ssi_param_t ps[SSI_MAX_PARAMS];
    nicd_req_t *req;
    char       *name;
    int         n, rc;

    at_hand = x;
    for (;;) {
        p = doc + x->pos;
        open = memmem(p, (size_t) (end - p), "<!--#", 5);
        if (open == NULL) {
            out(x, p, (size_t) (end - p));
            x->pos = x->doc.len;
            break;
        }
        out(x, p, (size_t) (open - p));
        x->cmd_start = open;
        if (ssi_parse_command(open + 5, end, x->sc->value_len, &cmd, &name, ps,
                              &n, &next)
            != 0) {
            if (next == end && (end - open < 3 || memcmp(end - 3, "-->", 3))) {
                out(x, open, (size_t) (end - open)); /* never closed: text */
            } else {
                log_error(LOG_ERR, 0, "invalid SSI command, client: %s",
                          nicd_client(x->c));
                failed(x);
            }
            x->pos = (size_t) (next - doc);
            continue;
        }
        x->pos = (size_t) (next - doc);
        rc = command(x, name, ps, n, next);
        if (rc < 0) {
            failed(x);
        } else if (rc == 0) {
            /* its subrequest answers later: so does this request */
            req = x->suspended ? x->req : nicd_req_suspend(x->c);
            if (req == NULL) {
                nicd_subreq_free(x->sr);
                x->sr = NULL;
                failed(x);
                continue;
            }
            x->req = req;
            x->suspended = 1;
            nicd_subreq_parent_moved(x->sr, req);
            nicd_buf_free(&cmd);
            at_hand = NULL; /* (the worker answers others meanwhile) */
            return 0;
        } else if (x->sr != NULL) {
            included(x);
        }
    }
    nicd_buf_free(&cmd);
    return 1;
}

/* on with the document; at its end the response is finished */
static void
go_on(ssi_ctx_t *x)
{
    nicd_req_t *req;

    if (process(x) == 0) {
        return;
    }
    at_hand = NULL;
    req = x->suspended ? x->req : NULL;
    nicd_resp_finish(x->c, x->status);
    if (req != NULL) {
        /* the protocol sends what was made (x is freed with the request,
         * by its cleanup) */
        nicd_req_done(req);
    }
}

/* the include's subrequest answered: its body, then the rest */
static void
answered(ssi_ctx_t *x)
{
    x->c = nicd_req_resume(x->req);
    included(x);
    go_on(x);
}

/* its slots in the file chain (filter.h) */
static int file_slot;

/* ---- the filter ---- */

static int
ssi_file(nicd_conn_t *c, const nicd_request_t *r, const nicd_loc_conf_t *lc,
         nicd_file_t *f, const char *type, const char *mem, size_t len)
{
    const ssi_conf_t *sc = NICD_LOC_CONF(lc, nicd_ssi_module);
    size_t            tlen;
    ssi_ctx_t        *x;
    int               head = r->method == NICD_M_HEAD;

    if (!sc->enable) {
        return nicd_file_filter_next(c, file_slot, r, lc, f, type, mem, len);
    }
    tlen = strlen(type);
    if (c->r->gzipped || (mem == NULL ? f->file.size == 0 : len == 0)
        || !nicd_types_html_or(&sc->types, type, tlen)) {
        return nicd_file_filter_next(c, file_slot, r, lc, f, type, mem, len);
    }
    x = calloc(1, sizeof(*x));
    if (x == NULL) {
        nicd_respond_error(c, 500, head, NULL, 0);
        return 1;
    }
    x->c = c;
    x->sc = sc;
    x->req = c->r;
    if (mem != NULL) {
        nicd_buf_add(&x->doc, mem, len);
    } else if (!head) {
        (void) nicd_file_read(c, f, &x->doc, "ssi");
    }
    if ((!head && x->doc.len == 0) || nicd_buf_failed(&x->doc)
        || nicd_req_cleanup(c->r, ctx_free, x) != 0) {
        ctx_free(x);
        nicd_respond_error(c, 500, head, NULL, 0);
        return 1;
    }
    nicd_resp_start(c, 200);
    x->status = c->r->status;
    nicd_resp_content_type(c, type, tlen);
    if (sc->last_modified && !c->r->no_validators) {
        char etag[sizeof(f->etag) + 2];

        if (x->status == 200) {
            NICD_RESP_HEADER(c, "Last-Modified", f->last_modified,
                             NICD_HTTP_DATE_LEN);
        }
        if (lc->etag && f->etag_len > 0) {
            /* the bytes are not the file's: a weak validator (nginx) */
            memcpy(etag, "W/", 2);
            memcpy(etag + 2, f->etag, f->etag_len);
            NICD_RESP_HEADER(c, "ETag", etag, f->etag_len + 2);
        }
    }
    if (!head) {
        c->r->chunked = 1; /* (its length is not known) */
    }
    nicd_resp_end_headers(c);
    if (head) {
        nicd_resp_finish(c, x->status);
        return 1;
    }
    go_on(x);
    return 1;
}

/* ---- $date_local, $date_gmt ---- */

static int
get_date(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
         const char *suffix, size_t slen, nicd_buf_t *b)
{
    const char *fmt = at_hand != NULL && at_hand->timefmt != NULL
                          ? at_hand->timefmt
                          : TIMEFMT;
    time_t      now = time(NULL);
    struct tm   tm;
    char        buf[256];
    size_t      n;

    (void) c;
    (void) x;
    (void) suffix;
    (void) slen;
    if (v->data != NULL) {
        gmtime_r(&now, &tm);
    } else {
        localtime_r(&now, &tm);
    }
    n = strftime(buf, sizeof(buf), fmt, &tm);
    nicd_buf_add(b, buf, n);
    return 0;
}

static const nicd_var_t ssi_vars[] = {
    {"date_local", get_date, NICD_VAR_VOLATILE, NULL},
    {"date_gmt", get_date, NICD_VAR_VOLATILE, "gmt"},
    {NULL, NULL, 0, NULL},
};

static const directive_t ssi_directives[] = {
    {"ssi", CTX_HSL, 1, 1, nicd_conf_slot_flag, offsetof(ssi_conf_t, enable)},
    {"ssi_silent_errors", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(ssi_conf_t, silent_errors)},
    {"ssi_last_modified", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(ssi_conf_t, last_modified)},
    {"ssi_value_length", CTX_HSL, 1, 1, nicd_conf_slot_size,
     offsetof(ssi_conf_t, value_len)},
    {"ssi_min_file_chunk", CTX_HSL, 1, 1, nicd_conf_slot_size,
     offsetof(ssi_conf_t, min_chunk)},
    {"ssi_types", CTX_HSL, 1, MAX_ARGS, nicd_conf_slot_types,
     offsetof(ssi_conf_t, types)},
    {NULL, 0, 0, 0, NULL, 0},
};

/* where its filters have something to do: ssi on */
static int
enables_ssi(const nicd_loc_conf_t *lc)
{
    const ssi_conf_t *k = NICD_LOC_CONF(lc, nicd_ssi_module);

    return k->enable;
}

static void
ssi_init(void)
{
    file_slot = nicd_filter_add(NICD_FILTER_FILE, (nicd_filter_fn_t) ssi_file,
                                enables_ssi);
}

nicd_module_t nicd_ssi_module = {
    .name = "ssi",
    .directives = ssi_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .init = ssi_init,
    .variables = ssi_vars,
};
