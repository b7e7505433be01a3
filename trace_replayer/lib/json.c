/* A small JSON reader: see json.h. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/json.h"

#define JSON_MAX_DEPTH 32

typedef struct {
    const char *p, *end, *start;
    char       *err;
    size_t      errlen;
} ctx_t;

static json_t *value(ctx_t *c, int depth);

static int
fail(ctx_t *c, const char *what)
{
    if (c->err[0] == '\0') {
        snprintf(c->err, c->errlen, "%s at byte %zu", what,
                 (size_t) (c->p - c->start));
    }
    return -1;
}

static void
ws(ctx_t *c)
{
    while (
        c->p < c->end
        && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
        c->p++;
    }
}

/* four hex digits at p (before end) */
static int
hex4(const char *p, const char *end, unsigned *out)
{
    int i;

    *out = 0;
    if (end - p < 4) {
        return -1;
    }
    for (i = 0; i < 4; i++) {
        char ch = p[i];

        *out <<= 4;
        if (ch >= '0' && ch <= '9') {
            *out |= (unsigned) (ch - '0');
        } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f') {
            *out |= (unsigned) ((ch | 0x20) - 'a' + 10);
        } else {
            return -1;
        }
    }
    return 0;
}

/* code point cp as UTF-8 at o (at most 4 bytes, never more than the
 * escape it came from) */
static char *
utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char) cp;
    } else if (cp < 0x800) {
        *o++ = (char) (0xc0 | (cp >> 6));
        *o++ = (char) (0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char) (0xe0 | (cp >> 12));
        *o++ = (char) (0x80 | ((cp >> 6) & 0x3f));
        *o++ = (char) (0x80 | (cp & 0x3f));
    } else {
        *o++ = (char) (0xf0 | (cp >> 18));
        *o++ = (char) (0x80 | ((cp >> 12) & 0x3f));
        *o++ = (char) (0x80 | ((cp >> 6) & 0x3f));
        *o++ = (char) (0x80 | (cp & 0x3f));
    }
    return o;
}

static char *
string(ctx_t *c)
{
    const char *s;
    char       *out, *o;

    c->p++; /* the quote */
    for (s = c->p; s < c->end && *s != '"'; s++) {
        if (*s == '\\') {
            s++;
        }
    }
    if (s >= c->end) {
        fail(c, "unterminated string");
        return NULL;
    }
    out = o = malloc((size_t) (s - c->p) + 1);
    if (out == NULL) {
        fail(c, "out of memory");
        return NULL;
    }
    for (; c->p < s; c->p++) {
        if (*c->p != '\\') {
            *o++ = *c->p;
            continue;
        }
        c->p++;
        switch (*c->p) {
        case '"':
        case '\\':
        case '/': *o++ = *c->p; break;
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned cp, lo;

            if (hex4(c->p + 1, s, &cp) != 0) {
                free(out);
                fail(c, "bad \\u escape");
                return NULL;
            }
            c->p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && c->p + 2 < s && c->p[1] == '\\'
                && c->p[2] == 'u' && hex4(c->p + 3, s, &lo) == 0 && lo >= 0xdc00
                && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                c->p += 6;
            }
            if (cp == 0 || (cp >= 0xd800 && cp < 0xe000)) {
                free(out);
                fail(c, "unsupported \\u escape (NUL or a lone surrogate)");
                return NULL;
            }
            o = utf8(o, cp);
            break;
        }
        default:
            free(out);
            fail(c, "unsupported escape");
            return NULL;
        }
    }
    *o = '\0';
    c->p = s + 1;
    return out;
}

static json_t *
node(ctx_t *c, int type)
{
    json_t *v = calloc(1, sizeof(*v));

    if (v == NULL) {
        fail(c, "out of memory");
        return NULL;
    }
    v->type = type;
    return v;
}

/* elements of an array or members of an object, up to close */
static json_t *
container(ctx_t *c, int type, char close, int depth)
{
    json_t *v = node(c, type), **tail, *e;
    char   *key = NULL;

    if (v == NULL) {
        return NULL;
    }
    tail = &v->child;
    c->p++;
    ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return v;
    }
    for (;;) {
        ws(c);
        if (type == JSON_OBJECT) {
            if (c->p >= c->end || *c->p != '"' || (key = string(c)) == NULL) {
                fail(c, "expected a member name");
                goto err;
            }
            ws(c);
            if (c->p >= c->end || *c->p != ':') {
                free(key);
                fail(c, "expected ':'");
                goto err;
            }
            c->p++;
        }
        e = value(c, depth + 1);
        if (e == NULL) {
            free(key);
            goto err;
        }
        e->key = key;
        key = NULL;
        *tail = e;
        tail = &e->next;
        ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == close) {
            c->p++;
            return v;
        }
        fail(c, "expected ',' or the end of a list");
        goto err;
    }
err:
    json_free(v);
    return NULL;
}

static json_t *
value(ctx_t *c, int depth)
{
    json_t *v;
    char   *end;

    ws(c);
    if (depth > JSON_MAX_DEPTH) {
        fail(c, "nested too deep");
        return NULL;
    }
    if (c->p >= c->end) {
        fail(c, "unexpected end");
        return NULL;
    }
    switch (*c->p) {
    case '{': return container(c, JSON_OBJECT, '}', depth);
    case '[': return container(c, JSON_ARRAY, ']', depth);
    case '"':
        v = node(c, JSON_STRING);
        if (v != NULL && (v->string = string(c)) == NULL) {
            free(v);
            v = NULL;
        }
        return v;
    }
#define WORD(w)                                                                \
    ((size_t) (c->end - c->p) >= sizeof(w) - 1                                 \
     && memcmp(c->p, w, sizeof(w) - 1) == 0)
    if (WORD("true") || WORD("false")) {
        v = node(c, JSON_BOOL);
        if (v != NULL) {
            v->number = *c->p == 't';
            c->p += *c->p == 't' ? 4 : 5;
        }
        return v;
    }
    if (WORD("null")) {
        c->p += 4;
        return node(c, JSON_NULL);
    }
#undef WORD
    if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
        char   buf[64];
        size_t n = 0;

        /* strtod needs a terminated string; numbers are short */
        while (c->p + n < c->end && n < sizeof(buf) - 1
               && strchr("+-0123456789.eE", c->p[n]) != NULL) {
            buf[n] = c->p[n];
            n++;
        }
        buf[n] = '\0';
        v = node(c, JSON_NUMBER);
        if (v == NULL) {
            return NULL;
        }
        v->number = strtod(buf, &end);
        if (end != buf + n || n == 0) {
            free(v);
            fail(c, "bad number");
            return NULL;
        }
        c->p += n;
        return v;
    }
    fail(c, "unexpected character");
    return NULL;
}

json_t *
json_parse(const char *p, size_t n, char *err, size_t errlen)
{
    ctx_t   c = {p, p + n, p, err, errlen};
    json_t *v;

    err[0] = '\0';
    v = value(&c, 0);
    if (v == NULL) {
        return NULL;
    }
    ws(&c);
    if (c.p != c.end) {
        json_free(v);
        fail(&c, "trailing bytes");
        return NULL;
    }
    return v;
}

void
json_free(json_t *v)
{
    json_t *n;

    for (; v != NULL; v = n) {
        n = v->next;
        json_free(v->child);
        free(v->string);
        free(v->key);
        free(v);
    }
}

const json_t *
json_get(const json_t *o, const char *key)
{
    const json_t *e;

    if (o == NULL || o->type != JSON_OBJECT) {
        return NULL;
    }
    for (e = o->child; e != NULL; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            return e;
        }
    }
    return NULL;
}

void
json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char) *s;

        if (ch == '"' || ch == '\\') {
            fputc('\\', f);
            fputc(ch, f);
        } else if (ch < 0x20) {
            fprintf(f, "\\u%04x", ch);
        } else {
            fputc(ch, f);
        }
    }
    fputc('"', f);
}

char *
json_read_file(const char *path, size_t *n, char *err, size_t errlen)
{
    FILE  *f = fopen(path, "r");
    char  *buf = NULL;
    size_t cap = 0, k;

    *n = 0;
    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (trace_grow(&buf, &cap, *n + 65537, 1, 262144) != 0) {
            free(buf);
            fclose(f);
            snprintf(err, errlen, "%s: out of memory", path);
            return NULL;
        }
        k = fread(buf + *n, 1, cap - *n - 1, f);
        if (k == 0) {
            break;
        }
        *n += k;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[*n] = '\0';
    return buf;
}
