/*
 * The file reader (nginx's ngx_conf_file.c): the tokenizer, "include"
 * with globs, and the dispatch of each directive to the module that owns
 * it.  A directive with a block ("http", "server", "location", "if",
 * "map", "types") is a module's like any other: its setter says where
 * the block's directives go, and the reader reads the block in the
 * context the directive names.  The reader knows "include" alone.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "server/conf/conf.h"
#include "server/conf/directive.h"
#include "util/log.h"

#define MAX_DEPTH 8

static const directive_t *
table_find(const directive_t *d, const char *name)
{
    for (; d != NULL && d->name != NULL; d++) {
        if (strcmp(d->name, name) == 0) {
            return d;
        }
    }
    return NULL;
}

/* the directive of that name of the first module that has one (*m, unless
 * m is NULL: that module) */
static const directive_t *
directive_find(const nicd_conf_t *c, const char *name, const nicd_module_t **m)
{
    const directive_t   *d = NULL;
    const nicd_module_t *owner = NULL;
    int                  i;

    for (i = 0; d == NULL && i < c->nmodules; i++) {
        d = table_find(c->modules[i]->directives, name);
        owner = c->modules[i];
    }
    if (m != NULL) {
        *m = owner;
    }
    return d;
}

/* the tokenizer */

enum { T_WORD, T_SEMI, T_OPEN, T_CLOSE, T_EOF, T_ERROR };

static int fail(parse_t *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* the error, and where it stands, into ps->err */
static void
say(parse_t *ps, const char *fmt, va_list ap)
{
    size_t n;

    vsnprintf(ps->err, ps->errlen, fmt, ap);
    n = strlen(ps->err);
    snprintf(ps->err + n, ps->errlen - n, " in %s:%d", ps->name, ps->line);
}

static int
fail(parse_t *ps, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(ps, fmt, ap);
    va_end(ap);
    return T_ERROR;
}

/*
 * A backslash as nginx reads it: before a quote or a backslash it is
 * dropped, \n \t \r are the control characters, and before anything
 * else it stays (so "\." in a regex keeps its meaning).
 */
static void
escape(nicd_buf_t *b, const char **p)
{
    const char *q = *p + 1;

    switch (*q) {
    case '"':
    case '\'':
    case '\\': nicd_buf_add(b, q, 1); break;
    case 'n': nicd_buf_add(b, "\n", 1); break;
    case 't': nicd_buf_add(b, "\t", 1); break;
    case 'r': nicd_buf_add(b, "\r", 1); break;
    default: nicd_buf_add(b, *p, 2);
    }
    *p += 2;
}

/* Next token; a word is stored in *word (malloc'ed). */
static int
next_token(parse_t *ps, char **word)
{
    nicd_buf_t b = {0};
    char       q;

    for (;;) {
        while (ps->p < ps->end && isspace((unsigned char) *ps->p)) {
            if (*ps->p == '\n') {
                ps->line++;
            }
            ps->p++;
        }
        if (ps->p < ps->end && *ps->p == '#') {
            while (ps->p < ps->end && *ps->p != '\n') {
                ps->p++;
            }
            continue;
        }
        break;
    }

    if (ps->p == ps->end) {
        return T_EOF;
    }
    switch (*ps->p) {
    case ';': ps->p++; return T_SEMI;
    case '{': ps->p++; return T_OPEN;
    case '}': ps->p++; return T_CLOSE;
    }

    if (*ps->p == '"' || *ps->p == '\'') {
        q = *ps->p++;
        while (ps->p < ps->end && *ps->p != q) {
            if (*ps->p == '\\' && ps->p + 1 < ps->end) {
                escape(&b, &ps->p);
                continue;
            }
            if (*ps->p == '\n') {
                ps->line++;
            }
            nicd_buf_add(&b, ps->p++, 1);
        }
        if (ps->p == ps->end) {
            nicd_buf_free(&b);
            return fail(ps, "unexpected end of file, expecting %c", q);
        }
        ps->p++;
    } else {
        /* nginx's word: up to a space, ";" or "{", but the "{" of "${"
         * belongs to it (a variable's name in braces), and so does a
         * "}" (only a token's first character closes a block) */
        while (ps->p < ps->end && !isspace((unsigned char) *ps->p)
               && *ps->p != ';'
               && (*ps->p != '{'
                   || (b.len > 0 && b.data[b.len - 1] == '$'
                       && ps->p[-1] == '$'))) {
            if (*ps->p == '\\' && ps->p + 1 < ps->end) {
                escape(&b, &ps->p);
                continue;
            }
            nicd_buf_add(&b, ps->p++, 1);
        }
    }
    nicd_buf_add(&b, "", 1);
    if (nicd_buf_failed(&b)) {
        nicd_buf_free(&b);
        return fail(ps, "out of memory");
    }
    *word = b.data;
    return T_WORD;
}

static void
free_words(parse_t *ps)
{
    int i;

    for (i = 0; i < ps->nwords; i++) {
        free(ps->words[i]);
    }
    ps->nwords = 0;
}

/* is d allowed where ps stands?  The top level is main, http and the
 * implicit server at once (nicd's one-site form). */
static int
allowed(const parse_t *ps, const directive_t *d)
{
    return (d->ctx & ps->ctx) != 0;
}

static const char *
ctx_name(unsigned ctx)
{
    switch (ctx) {
    case CTX_MAIN: return "events";
    case CTX_HTTP: return "http";
    case CTX_SRV: return "server";
    case CTX_LOC: return "location";
    case CTX_IF: return "if";
    }
    return "the top level";
}

const char nicd_conf_reported[] = "";

const char *
nicd_conf_error(parse_t *ps, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(ps, fmt, ap);
    va_end(ap);
    return NICD_CONF_ERROR;
}

/* a setter's message for the directive name: 0, or -1 with err */
static int
said(parse_t *ps, const char *name, const char *msg)
{
    if (msg == NULL) {
        return 0;
    }
    if (msg == NICD_CONF_ERROR) {
        return -1; /* the setter said it whole */
    }
    if (strncmp(msg, "is ", 3) == 0) {
        fail(ps, "\"%s\" directive %s", name, msg);
    } else {
        fail(ps, "%s in \"%s\" directive", msg, name);
    }
    return -1;
}

int
nicd_conf_apply(parse_t *ps, const char *name, const char **args, int nargs)
{
    const nicd_module_t *m;
    const directive_t   *d = directive_find(ps->conf, name, &m);
    const char          *msg = NULL;
    int                  i;

    if (d == NULL) {
        /* a name a module makes its own (a send backend's settings and
         * its report, "nic_status;") */
        for (i = 0; i < ps->conf->nmodules; i++) {
            m = ps->conf->modules[i];
            if (m->unknown != NULL && m->unknown(ps, name, args, nargs, &msg)) {
                return said(ps, name, msg);
            }
        }
        fail(ps, "unknown directive \"%s\"", name);
        return -1;
    }
    if (!allowed(ps, d)) {
        fail(ps, "\"%s\" directive is not allowed in %s", name,
             ctx_name(ps->ctx));
        return -1;
    }
    if (nargs < d->min || nargs > d->max) {
        fail(ps, "invalid number of arguments in \"%s\" directive", name);
        return -1;
    }
    if ((d->ctx & CTX_ONE) && (ps->ctx & (CTX_SRV | CTX_LOC))
        && ps->ctx != CTX_TOP) {
        log_error(LOG_WARN, 0,
                  "\"%s\" in %s applies to every server of nicd, which keeps "
                  "one value of it, in %s:%d",
                  name, ctx_name(ps->ctx), ps->name, ps->line);
    }
    ps->d = d;
    ps->module = m;
    msg = d->set(ps, args, nargs);
    ps->d = NULL;
    ps->module = NULL;
    return said(ps, name, msg);
}

void
nicd_conf_parse_init(parse_t *ps, nicd_conf_t *c, char *err, size_t errlen)
{
    memset(ps, 0, sizeof(*ps));
    ps->conf = c;
    ps->name = "command line";
    ps->err = err;
    ps->errlen = errlen;
    ps->ctx = CTX_TOP;
    ps->loc = c->http;
}

int
nicd_conf_set(nicd_conf_t *c, const char *name, const char **args, int nargs,
              char *err, size_t errlen)
{
    parse_t ps;

    nicd_conf_parse_init(&ps, c, err, errlen);
    if (nicd_conf_apply(&ps, name, args, nargs) != 0) {
        /* the command line has no line number */
        char *in = strstr(err, " in command line:");

        if (in != NULL) {
            *in = '\0';
        }
        return -1;
    }
    return 0;
}

static int parse_block(parse_t *ps, const char *block);
static int parse_text(parse_t *outer, const char *text, size_t len,
                      const char *name, const char *dir);

/* nicd -T: the file as read, after nginx's "# configuration file" line */
static int
dump_file(nicd_conf_t *c, const char *name, const char *text, size_t len)
{
    nicd_buf_t *b = &c->dump_text;

    nicd_buf_addf(b, "# configuration file %s:\n", name);
    nicd_buf_add(b, text, len);
    if (len > 0 && text[len - 1] != '\n') {
        nicd_buf_adds(b, "\n");
    }
    nicd_buf_adds(b, "\n");
    return nicd_buf_failed(b) ? -1 : 0;
}

static int
include_file(parse_t *ps, const char *full)
{
    char       dir[4096];
    char      *slash;
    nicd_buf_t text = {0};
    int        fd, rc = -1;
    ssize_t    n;

    snprintf(dir, sizeof(dir), "%s", full);
    slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
    } else {
        strcpy(dir, ".");
    }

    fd = open(full, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        fail(ps, "open() \"%s\" failed (%s)", full, strerror(errno));
        goto err;
    }
    /* to the end, whatever its size says (a pipe's is 0: -c /dev/stdin) */
    do {
        if (nicd_buf_reserve(&text, 65536) != 0) {
            fail(ps, "out of memory");
            goto err;
        }
        n = read(fd, text.data + text.len, text.size - text.len - 1);
        if (n == -1 && errno == EINTR) {
            continue;
        }
        if (n == -1) {
            fail(ps, "read() \"%s\" failed (%s)", full, strerror(errno));
            goto err;
        }
        text.len += (size_t) n;
    } while (n != 0);
    text.data[text.len] = '\0';
    if (ps->conf->dump && dump_file(ps->conf, full, text.data, text.len) != 0) {
        fail(ps, "out of memory");
        goto err;
    }
    /* an include's relative paths are the main file's directory's (nginx's
     * configuration prefix), however deep it is */
    rc = parse_text(ps, text.data, text.len, full,
                    ps->dir != NULL ? ps->dir : dir);

err:
    nicd_buf_free(&text);
    if (fd != -1) {
        close(fd);
    }
    return rc;
}

/* "include PATH": a file, or every file a glob matches in name order (none
 * is no error, as in nginx); relative to the main file's directory */
static int
do_include(parse_t *ps, const char *path)
{
    char   full[4096];
    glob_t g;
    size_t i;
    int    rc;

    if (path[0] == '/' || ps->dir == NULL || strcmp(ps->dir, ".") == 0) {
        snprintf(full, sizeof(full), "%s", path);
    } else {
        snprintf(full, sizeof(full), "%s/%s", ps->dir, path);
    }
    if (strpbrk(path, "*?[") == NULL) {
        return include_file(ps, full);
    }
    rc = glob(full, GLOB_ERR, NULL, &g);
    if (rc == GLOB_NOMATCH) {
        return 0;
    }
    if (rc != 0) {
        fail(ps, "glob() \"%s\" failed", full);
        return -1;
    }
    for (i = 0; i < g.gl_pathc && rc == 0; i++) {
        rc = include_file(ps, g.gl_pathv[i]);
    }
    globfree(&g);
    return rc;
}

/* The lines of a CTX_LINES block up to its "}" (in a file it includes:
 * to the file's end): each one's words go to the handler the block's
 * directive set (ps->lines); "include FILE" reads FILE's lines there, as
 * nginx's map, geo and types blocks take it. */
static int
parse_lines(parse_t *ps, const char *block, int in_file)
{
    const char *msg;
    char       *w, path[4096];
    int         t, rc;

    for (;;) {
        t = next_token(ps, &w);
        if (t == T_ERROR) {
            free_words(ps);
            return -1;
        }
        if (t == T_WORD) {
            if (ps->nwords == MAX_ARGS + 2) {
                free(w);
                free_words(ps);
                fail(ps, "too many words in a \"%s\" line", block);
                return -1;
            }
            ps->words[ps->nwords++] = w;
            continue;
        }
        if (ps->nwords == 0 && (in_file ? t == T_EOF : t == T_CLOSE)) {
            return 0;
        }
        if (t != T_SEMI || ps->nwords == 0) {
            free_words(ps);
            fail(ps, "unexpected %s in \"%s\"",
                 t == T_EOF ? "end of file" : "\";\" or \"}\"", block);
            return -1;
        }
        if (ps->nwords == 2 && strcmp(ps->words[0], "include") == 0) {
            snprintf(path, sizeof(path), "%s", ps->words[1]);
            free_words(ps);
            rc = do_include(ps, path);
            if (rc != 0) {
                return rc;
            }
            continue;
        }
        msg = ps->lines(ps, (const char **) ps->words, ps->nwords);
        free_words(ps);
        if (msg != NULL) {
            fail(ps, "%s in \"%s\"", msg, block);
            return -1;
        }
    }
}

/* A directive with a block of its own ("server {", "if (...) {"): its
 * setter says where the block's directives go (ps->loc, ps->srv), read
 * with the context the directive names, then where things were is
 * restored. */
static int
block_directive(parse_t *ps, const directive_t *d)
{
    nicd_loc_conf_t    *loc = ps->loc;
    nicd_server_conf_t *srv = ps->srv;
    unsigned            ctx = ps->ctx;
    char                name[32];
    int                 rc;

    snprintf(name, sizeof(name), "%s", ps->words[0]);
    rc = nicd_conf_apply(ps, ps->words[0], (const char **) ps->words + 1,
                         ps->nwords - 1);
    free_words(ps);
    if (rc == 0) {
        ps->ctx = d->block;
        ps->depth++;
        rc = d->block == CTX_LINES ? parse_lines(ps, name, 0)
                                   : parse_block(ps, name);
        ps->depth--;
    }
    ps->loc = loc;
    ps->srv = srv;
    ps->ctx = ctx;
    ps->lines = NULL;
    return rc;
}

/* words[0] ended by ";" (open 0) or "{" (open 1) */
static int
directive(parse_t *ps, int open)
{
    const directive_t *d;

    if (strcmp(ps->words[0], "include") == 0 && !open) {
        if (ps->nwords != 2) {
            fail(ps, "invalid number of arguments in \"include\" directive");
            return -1;
        }
        return do_include(ps, ps->words[1]);
    }
    d = directive_find(ps->conf, ps->words[0], NULL);
    if (open) {
        if (d == NULL || d->block == 0) {
            fail(ps, "\"%s\" blocks are not supported", ps->words[0]);
            return -1;
        }
        if (ps->depth >= MAX_DEPTH) {
            fail(ps, "blocks nested too deeply");
            return -1;
        }
        return block_directive(ps, d);
    }
    if (d != NULL && d->block != 0) {
        fail(ps, "directive \"%s\" has no opening \"{\"", ps->words[0]);
        return -1;
    }
    return nicd_conf_apply(ps, ps->words[0], (const char **) ps->words + 1,
                           ps->nwords - 1);
}

/* Parse directives until "}" (block != NULL) or the end of the text. */
static int
parse_block(parse_t *ps, const char *block)
{
    char *w;
    int   t, rc;

    for (;;) {
        t = next_token(ps, &w);
        switch (t) {
        case T_ERROR: free_words(ps); return -1;

        case T_WORD:
            if (ps->nwords == MAX_ARGS + 1) {
                free(w);
                free_words(ps);
                fail(ps, "too many arguments");
                return -1;
            }
            ps->words[ps->nwords++] = w;
            break;

        case T_SEMI:
            if (ps->nwords == 0) {
                fail(ps, "unexpected \";\"");
                return -1;
            }
            rc = directive(ps, 0);
            free_words(ps);
            if (rc != 0) {
                return -1;
            }
            break;

        case T_OPEN:
            if (ps->nwords == 0) {
                fail(ps, "unexpected \"{\"");
                return -1;
            }
            rc = directive(ps, 1);
            free_words(ps);
            if (rc != 0) {
                return -1;
            }
            break;

        case T_CLOSE:
            if (ps->nwords != 0 || block == NULL) {
                free_words(ps);
                fail(ps, "unexpected \"}\"");
                return -1;
            }
            return 0;

        case T_EOF:
            if (ps->nwords != 0) {
                free_words(ps);
                fail(ps, "unexpected end of file, expecting \";\" or \"}\"");
                return -1;
            }
            if (block != NULL) {
                fail(ps, "unexpected end of file, expecting \"}\"");
                return -1;
            }
            return 0;
        }
    }
}

/* Parse text as if it stood where outer stands (an include). */
static int
parse_text(parse_t *outer, const char *text, size_t len, const char *name,
           const char *dir)
{
    parse_t ps = *outer;
    int     rc;

    if (outer->depth >= MAX_DEPTH) {
        fail(outer, "includes nested too deeply");
        return -1;
    }
    ps.name = name;
    ps.dir = dir;
    ps.p = text;
    ps.end = text + len;
    ps.line = 1;
    ps.nwords = 0;
    ps.depth = outer->depth + 1;
    /* a file included in a block of lines (map, geo, types) holds lines */
    rc = ps.lines != NULL ? parse_lines(&ps, "include", 1)
                          : parse_block(&ps, NULL);
    return rc;
}

int
nicd_conf_parse_file(nicd_conf_t *c, const char *path, char *err, size_t errlen)
{
    parse_t ps;

    nicd_conf_parse_init(&ps, c, err, errlen);
    if (nicd_conf_str(&c->file, path) != NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return do_include(&ps, path);
}

static int
parse_string(nicd_conf_t *c, const char *text, const char *name, int override,
             char *err, size_t errlen)
{
    parse_t ps;

    nicd_conf_parse_init(&ps, c, err, errlen);
    ps.dir = ".";
    ps.depth = -1;
    ps.override = override;
    return parse_text(&ps, text, strlen(text), name, ".");
}

int
nicd_conf_parse_string(nicd_conf_t *c, const char *text, const char *name,
                       char *err, size_t errlen)
{
    return parse_string(c, text, name, 0, err, errlen);
}

int
nicd_conf_parse_override(nicd_conf_t *c, const char *text, char *err,
                         size_t errlen)
{
    return parse_string(c, text, "command line", 1, err, errlen);
}
