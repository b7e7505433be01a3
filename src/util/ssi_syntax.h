/*
 * The syntax of a server-side include command, as nginx's SSI reads it:
 *
 *   <!--# NAME PARAM="VALUE" PARAM='VALUE' ... -->
 *
 * (the server's SSI module, modules/ssi.c, carries the commands out).
 */

#ifndef NICD_SSI_SYNTAX_H
#define NICD_SSI_SYNTAX_H

#include <stddef.h>

#include "util/buf.h"

#define SSI_MAX_PARAMS 16

typedef struct {
    const char *name; /* in the command's copy, NUL-terminated */
    size_t      nlen;
    char       *value; /* NUL-terminated; its "\" escapes left in */
    size_t      vlen;
} ssi_param_t;

/*
 * The command whose text begins at p (past "<!--#"; the document ends at
 * end): its name and parameters copied into cmd, *name and ps (up to
 * SSI_MAX_PARAMS, *n of them), *next past its "-->".  0, or -1 for a
 * command that does not parse (a value longer than max_value, logged, is
 * one): *next past its "-->", or end when there is none.
 */
int ssi_parse_command(const char *p, const char *end, size_t max_value,
                      nicd_buf_t *cmd, char **name, ssi_param_t *ps, int *n,
                      const char **next);

/* the parameter called name (any case) among the n of ps, or NULL */
const ssi_param_t *ssi_param(const ssi_param_t *ps, int n, const char *name);

/* the n parameters ps of command cmd are among allowed (NULL-ended)
 * and hold every one of required (NULL-ended): 0, or -1 (logged, as
 * nginx says it) */
int ssi_check_params(const char *cmd, const ssi_param_t *ps, int n,
                     const char *const *allowed, const char *const *required);

/* the captures of an if expression's regex, for $1..$9 after it */
typedef struct {
    nicd_buf_t subject;
    size_t     ovec[20]; /* (PCRE2_SIZE) */
    int        n;
} ssi_caps_t;

/* a template's value (variables replaced) appended to b: 0, or -1 */
typedef int (*ssi_eval_pt)(void *data, const char *s, size_t len,
                           nicd_buf_t *b);

/*
 * An "if" expression e (len bytes), as nginx's SSI takes it: "$var"
 * (true when not empty), "$var = TEXT", "$var != TEXT", "$var = /REGEX/"
 * (its captures into caps), "$var != /REGEX/", each after an optional
 * "!"; the sides' templates evaluated by eval(data, ...).  1 true, 0
 * false, -1 an error (logged).
 */
int ssi_expr(const char *e, size_t len, ssi_eval_pt eval, void *data,
             ssi_caps_t *caps);

/* how echo writes a value (its encoding=) */
enum { SSI_ENC_ENTITY = 0, SSI_ENC_NONE, SSI_ENC_URL };

/* v (len bytes) appended to b as echo writes it: for HTML (nginx's
 * ngx_escape_html: '<', '>', '&', '"' as entities), for a URL (nginx's
 * ngx_escape_uri with NGX_ESCAPE_HTML: space, '"', '#', '%', '\'', '<',
 * '>', control and 8-bit bytes as %XX), or as it is */
void ssi_encode(int how, const char *v, size_t len, nicd_buf_t *b);

#endif /* NICD_SSI_SYNTAX_H */
