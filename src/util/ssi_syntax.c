/*
 * A server-side include command's syntax (ssi_syntax.h).
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "util/log.h"
#include "util/ssi_syntax.h"

/* the "-->" that ends the command from p (a quoted value may hold one),
 * or NULL */
static const char *
command_end(const char *p, const char *end)
{
    const char *s, *e;

    for (s = p; s + 3 <= end; s++) {
        if (s[0] == '-' && s[1] == '-' && s[2] == '>') {
            return s;
        }
        if (*s == '"' || *s == '\'') {
            e = memchr(s + 1, *s, (size_t) (end - s - 1));
            if (e == NULL) {
                return NULL;
            }
            s = e;
        }
    }
    return NULL;
}

static size_t
skip_space(const char *q, size_t i, size_t len)
{
    while (i < len && isspace((unsigned char) q[i])) {
        i++;
    }
    return i;
}

int
ssi_parse_command(const char *p, const char *end, size_t max_value,
                  nicd_buf_t *cmd, char **name, ssi_param_t *ps, int *n,
                  const char **next)
{
    const char *close = command_end(p, end);
    size_t      i, len, from;
    char       *q, quote;

    if (close == NULL) {
        *next = end;
        return -1;
    }
    *next = close + 3;
    cmd->len = 0;
    nicd_buf_add(cmd, p, (size_t) (close - p));
    nicd_buf_add(cmd, "", 1);
    if (nicd_buf_failed(cmd)) {
        return -1;
    }
    q = cmd->data;
    len = cmd->len - 1;
    i = skip_space(q, 0, len);
    *name = q + i;
    while (i < len && isalpha((unsigned char) q[i])) {
        i++;
    }
    if (q + i == *name || (i < len && !isspace((unsigned char) q[i]))) {
        return -1;
    }
    q[i++] = '\0';
    for (*n = 0;; (*n)++) {
        i = skip_space(q, i, len);
        if (i >= len) {
            return 0;
        }
        if (*n == SSI_MAX_PARAMS) {
            return -1;
        }
        from = i;
        while (i < len && (isalnum((unsigned char) q[i]) || q[i] == '_')) {
            i++;
        }
        ps[*n].name = q + from;
        ps[*n].nlen = i - from;
        if (i == from || i >= len || q[i] != '=' || i + 1 >= len
            || (q[i + 1] != '"' && q[i + 1] != '\'')) {
            return -1;
        }
        q[i] = '\0';
        quote = q[i + 1];
        i += 2;
        ps[*n].value = q + i;
        while (i < len && q[i] != quote) {
            i += q[i] == '\\' && i + 1 < len ? 2 : 1;
        }
        if (i >= len) {
            return -1;
        }
        q[i] = '\0';
        ps[*n].vlen = (size_t) (q + i - ps[*n].value);
        i++;
        if (ps[*n].vlen > max_value) {
            log_error(LOG_ERR, 0,
                      "the \"%s\" SSI parameter is longer than "
                      "\"ssi_value_length\" (%zu)",
                      ps[*n].name, max_value);
            return -1;
        }
    }
}

const ssi_param_t *
ssi_param(const ssi_param_t *ps, int n, const char *name)
{
    size_t len = strlen(name);
    int    i;

    for (i = 0; i < n; i++) {
        if (ps[i].nlen == len && strncasecmp(ps[i].name, name, len) == 0) {
            return &ps[i];
        }
    }
    return NULL;
}

void
ssi_encode(int how, const char *v, size_t len, nicd_buf_t *b)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i;

    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char) v[i];
        char          esc[3] = {'%', hex[ch >> 4], hex[ch & 15]};

        if (how == SSI_ENC_URL
            && (ch <= ' ' || ch >= 0x7f || strchr("\"#%'<>", ch) != NULL)) {
            nicd_buf_add(b, esc, 3);
        } else if (how == SSI_ENC_ENTITY && ch == '<') {
            NICD_BUF_LIT(b, "&lt;");
        } else if (how == SSI_ENC_ENTITY && ch == '>') {
            NICD_BUF_LIT(b, "&gt;");
        } else if (how == SSI_ENC_ENTITY && ch == '&') {
            NICD_BUF_LIT(b, "&amp;");
        } else if (how == SSI_ENC_ENTITY && ch == '"') {
            NICD_BUF_LIT(b, "&quot;");
        } else {
            nicd_buf_add(b, v + i, 1);
        }
    }
}

int
ssi_check_params(const char *cmd, const ssi_param_t *ps, int n,
                 const char *const *allowed, const char *const *required)
{
    int i, k;

    for (i = 0; i < n; i++) {
        for (k = 0; allowed[k] != NULL; k++) {
            if (strlen(allowed[k]) == ps[i].nlen
                && strncasecmp(allowed[k], ps[i].name, ps[i].nlen) == 0) {
                break;
            }
        }
        if (allowed[k] == NULL) {
            log_error(LOG_ERR, 0,
                      "invalid parameter \"%s\" in SSI command "
                      "\"%s\"",
                      ps[i].name, cmd);
            return -1;
        }
    }
    for (k = 0; required[k] != NULL; k++) {
        if (ssi_param(ps, n, required[k]) == NULL) {
            log_error(LOG_ERR, 0, "no parameter \"%s\" in SSI command \"%s\"",
                      required[k], cmd);
            return -1;
        }
    }
    return 0;
}

int
ssi_expr(const char *e, size_t len, ssi_eval_pt eval, void *data,
         ssi_caps_t *caps)
{
    nicd_buf_t left = {0}, right = {0};
    size_t     i = 0, j;
    int        neg = 0, rc = -1, truth;

    while (i < len && isspace((unsigned char) e[i])) {
        i++;
    }
    if (i < len && e[i] == '!') {
        neg = 1;
        i++;
        while (i < len && isspace((unsigned char) e[i])) {
            i++;
        }
    }
    /* the left side: up to a space or an operator */
    for (j = i; j < len && !isspace((unsigned char) e[j]) && e[j] != '='
                && !(e[j] == '!' && j + 1 < len && e[j + 1] == '=');
         j++) {
    }
    if (j == i || eval(data, e + i, j - i, &left) != 0) {
        goto done;
    }
    while (j < len && isspace((unsigned char) e[j])) {
        j++;
    }
    if (j == len) {
        truth = left.len > 0;
    } else {
        int ne = e[j] == '!';

        j += ne ? 2 : 1;
        if (!ne && e[j - 1] != '=') {
            goto done;
        }
        while (j < len && isspace((unsigned char) e[j])) {
            j++;
        }
        if (j < len && e[j] == '/' && len - j >= 2 && e[len - 1] == '/') {
            pcre2_code       *re;
            pcre2_match_data *md;
            int               err, k;
            PCRE2_SIZE        eoff;

            nicd_buf_add(&right, e + j + 1, len - j - 2);
            nicd_buf_add(&right, "", 1);
            if (nicd_buf_failed(&right)) {
                goto done;
            }
            re = pcre2_compile((PCRE2_SPTR) right.data, right.len - 1, 0, &err,
                               &eoff, NULL);
            if (re == NULL) {
                log_error(LOG_ERR, 0, "invalid regex \"%s\" in SSI \"if\"",
                          right.data);
                goto done;
            }
            md = pcre2_match_data_create_from_pattern(re, NULL);
            k = md == NULL ? -1
                           : pcre2_match(re, (PCRE2_SPTR) left.data, left.len,
                                         0, 0, md, NULL);
            truth = k > 0;
            if (k > 0) {
                /* its captures for what follows */
                PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

                caps->subject.len = 0;
                nicd_buf_add(&caps->subject, left.data, left.len);
                caps->n = k > 10 ? 10 : k;
                memcpy(caps->ovec, ov, (size_t) caps->n * 2 * sizeof(*ov));
            }
            pcre2_match_data_free(md);
            pcre2_code_free(re);
        } else {
            if (eval(data, e + j, len - j, &right) != 0) {
                goto done;
            }
            truth = left.len == right.len
                    && memcmp(left.data, right.data, left.len) == 0;
        }
        if (ne) {
            truth = !truth;
        }
    }
    rc = neg ? !truth : truth;
done:
    if (rc == -1) {
        log_error(LOG_ERR, 0, "invalid expression in \"%.*s\"", (int) len, e);
    }
    nicd_buf_free(&left);
    nicd_buf_free(&right);
    return rc;
}
