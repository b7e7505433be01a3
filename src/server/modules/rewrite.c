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

#include "directive.h"
#include "handler.h"

static const char *
add(parse_t *ps, nicd_rewrite_t *rw)
{
    nicd_loc_conf_t *l = ps->loc;

    l->rewrites =
        nicd_conf_grow(ps->conf, l->rewrites, l->nrewrites, sizeof(*rw));
    if (l->rewrites == NULL) {
        return "out of memory";
    }
    l->rewrites[l->nrewrites++] = *rw;
    return NULL;
}

static const char *
set_rewrite(parse_t *ps, const char **a, int n)
{
    nicd_rewrite_t rw;
    char           err[512];

    memset(&rw, 0, sizeof(rw));
    rw.flag = NICD_REWRITE_NONE;
    if (n == 3) {
        if (strcmp(a[2], "last") == 0) {
            rw.flag = NICD_REWRITE_LAST;
        } else if (strcmp(a[2], "break") == 0) {
            rw.flag = NICD_REWRITE_BREAK;
        } else if (strcmp(a[2], "redirect") == 0) {
            rw.flag = NICD_REWRITE_REDIRECT;
        } else if (strcmp(a[2], "permanent") == 0) {
            rw.flag = NICD_REWRITE_PERMANENT;
        } else {
            return nicd_conf_msg("invalid parameter \"%s\"", a[2]);
        }
    }
    rw.re = nicd_conf_regex(ps->conf, a[0], 0, err, sizeof(err));
    if (rw.re == NULL) {
        return nicd_conf_msg("%s", err);
    }
    if (rw.flag == NICD_REWRITE_NONE
        && (strncmp(a[1], "http://", 7) == 0
            || strncmp(a[1], "https://", 8) == 0
            || strncmp(a[1], "$scheme", 7) == 0)) {
        rw.flag = NICD_REWRITE_REDIRECT;
    }
    rw.replacement = nicd_conf_strdup(ps->conf, a[1]);
    return rw.replacement == NULL ? "out of memory" : add(ps, &rw);
}

static const char *
set_return(parse_t *ps, const char **a, int n)
{
    nicd_rewrite_t rw;
    char          *end;
    long           code;

    memset(&rw, 0, sizeof(rw));
    rw.flag = NICD_REWRITE_RETURN;
    code = strtol(a[0], &end, 10);
    if (*end != '\0' || end == a[0]) {
        if (n != 1
            || (strncmp(a[0], "http://", 7) != 0
                && strncmp(a[0], "https://", 8) != 0
                && strncmp(a[0], "$scheme", 7) != 0)) {
            return nicd_conf_msg("invalid return code \"%s\"", a[0]);
        }
        rw.code = 302;
        rw.replacement = nicd_conf_strdup(ps->conf, a[0]);
    } else {
        if (code < 200 || code > 999 || code == 444) {
            return nicd_conf_msg("invalid return code \"%s\"", a[0]);
        }
        rw.code = (int) code;
        rw.replacement = nicd_conf_strdup(ps->conf, n == 2 ? a[1] : "");
    }
    return rw.replacement == NULL ? "out of memory" : add(ps, &rw);
}

static const char *
set_break(parse_t *ps, const char **a, int n)
{
    nicd_rewrite_t rw;

    (void) a;
    (void) n;
    memset(&rw, 0, sizeof(rw));
    rw.flag = NICD_REWRITE_STOP;
    return add(ps, &rw);
}

static const char *
set_set(parse_t *ps, const char **a, int n)
{
    nicd_rewrite_t rw;
    size_t         i;

    (void) n;
    if (a[0][0] != '$' || a[0][1] == '\0') {
        return nicd_conf_msg("invalid variable name \"%s\"", a[0]);
    }
    for (i = 1; a[0][i] != '\0'; i++) {
        char ch = a[0][i];

        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
              || (ch >= '0' && ch <= '9') || ch == '_')) {
            return nicd_conf_msg("invalid variable name \"%s\"", a[0]);
        }
    }
    /* the name is known everywhere from now on (empty until set) */
    {
        nicd_conf_t *c = ps->conf;
        int          k;

        for (k = 0; k < c->nset_names; k++) {
            if (strcmp(c->set_names[k], a[0] + 1) == 0) {
                break;
            }
        }
        if (k == c->nset_names) {
            c->set_names =
                nicd_conf_grow(c, c->set_names, c->nset_names, sizeof(char *));
            if (c->set_names == NULL
                || (c->set_names[c->nset_names] = nicd_conf_strdup(c, a[0] + 1))
                       == NULL) {
                return "out of memory";
            }
            c->nset_names++;
        }
    }
    memset(&rw, 0, sizeof(rw));
    rw.flag = NICD_REWRITE_SET;
    rw.var = nicd_conf_strdup(ps->conf, a[0] + 1);
    rw.replacement = nicd_conf_strdup(ps->conf, a[1]);
    return rw.var == NULL || rw.replacement == NULL ? "out of memory"
                                                    : add(ps, &rw);
}

/* the words of "if (...)", parentheses stripped, as one condition */
static const char *
set_if(parse_t *ps, const char **a, int n)
{
    nicd_rewrite_t rw;
    nicd_if_t     *cond;
    const char    *w[4], *op;
    char          *first, *last, err[512];
    int            k = 0, i;

    memset(&rw, 0, sizeof(rw));
    cond = nicd_conf_alloc(ps->conf, sizeof(*cond));
    rw.block = nicd_conf_alloc(ps->conf, sizeof(*rw.block));
    if (cond == NULL || rw.block == NULL) {
        return "out of memory";
    }
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
        cond->op = NICD_IF_TRUE;
        cond->var = first;
    } else if (k == 2) {
        op = first;
        cond->negate = op[0] == '!';
        op += cond->negate;
        if (strcmp(op, "-f") == 0) {
            cond->op = NICD_IF_FILE;
        } else if (strcmp(op, "-d") == 0) {
            cond->op = NICD_IF_DIR;
        } else if (strcmp(op, "-e") == 0) {
            cond->op = NICD_IF_EXISTS;
        } else if (strcmp(op, "-x") == 0) {
            cond->op = NICD_IF_EXEC;
        } else {
            return nicd_conf_msg("invalid condition \"%s\"", first);
        }
        cond->var = last;
    } else if (k == 3) {
        cond->var = first;
        op = w[1];
        cond->negate = op[0] == '!';
        op += cond->negate;
        if (strcmp(op, "=") == 0) {
            cond->op = NICD_IF_EQ;
            cond->value = last;
        } else if (strcmp(op, "~") == 0 || strcmp(op, "~*") == 0) {
            cond->op = NICD_IF_RE;
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
    rw.flag = NICD_REWRITE_IF;
    rw.cond = cond;
    if (add(ps, &rw) != NULL) {
        return "out of memory";
    }
    /* the block's rewrite directives go to its own list */
    ps->loc = rw.block;
    return NULL;
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
};
