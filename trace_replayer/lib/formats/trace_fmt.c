/*
 * Logs in the formats people configure: nginx's log_format strings and
 * JSON lines.  Both name their fields with nginx's variables, so both go
 * through one table of fields (vars[]) and one place that turns a field's
 * text into the record (set_field()); trace_fields_finish() then checks
 * that the record has what the tools need.
 *
 * A log_format string is compiled into literals and variables.  A
 * variable's value runs to the first place the next literal appears
 * (characters after a backslash are skipped, so nginx's and Apache's
 * escaped quotes do not end a quoted field), or to the end of the line.
 * nginx writes variables with \xHH escapes (and \" \\ for escape=default);
 * they are decoded before use.
 *
 * Times: $time_local, $time_iso8601 or $msec give the time the line was
 * written, which for nginx is when the request ended; with $request_time
 * the record's time is its start (time - request_time), the time a
 * replay must send it at.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/civil.h"
#include "util/hash.h"
#include "lib/grow.h"
#include "lib/json.h"
#include "util/hex.h"
#include "lib/formats/format.h"
#include "lib/formats/trace.h"

enum {
    F_SKIP = 0,
    F_ADDR,
    F_FORWARDED,
    F_TIME_LOCAL,
    F_TIME_ISO,
    F_MSEC,
    F_REQUEST,
    F_METHOD,
    F_REQUEST_URI,
    F_URI,
    F_ARGS,
    F_STATUS,
    F_BODY_BYTES,
    F_BYTES,
    F_REQUEST_TIME,
    F_PROTOCOL,
    F_TIME_LAYOUT, /* ${time LAYOUT}: strptime's directives */
    F_COUNT
};

/* nginx variable names first, then what JSON logs commonly call them */
static const struct {
    const char *name;
    int         field;
} vars[] = {
    {"remote_addr", F_ADDR},
    {"http_x_forwarded_for", F_FORWARDED},
    {"time_local", F_TIME_LOCAL},
    {"time_iso8601", F_TIME_ISO},
    {"msec", F_MSEC},
    {"request", F_REQUEST},
    {"request_method", F_METHOD},
    {"request_uri", F_REQUEST_URI},
    {"uri", F_URI},
    {"args", F_ARGS},
    {"query_string", F_ARGS},
    {"status", F_STATUS},
    {"body_bytes_sent", F_BODY_BYTES},
    {"bytes_sent", F_BYTES},
    {"request_time", F_REQUEST_TIME},
    {"server_protocol", F_PROTOCOL},
    /* JSON aliases */
    {"remote_ip", F_ADDR},
    {"client_ip", F_ADDR},
    {"ip", F_ADDR},
    {"time", F_TIME_ISO},
    {"timestamp", F_TIME_ISO},
    {"@timestamp", F_TIME_ISO},
    {"method", F_METHOD},
    {"url", F_REQUEST_URI},
    {"path", F_REQUEST_URI},
    {"bytes", F_BODY_BYTES},
    {"size", F_BODY_BYTES},
    {"duration", F_REQUEST_TIME},
    {NULL, 0},
};

static int
field_of(const char *name, size_t n)
{
    int i;

    if (n > 0 && name[0] == '$') {
        name++;
        n--;
    }
    for (i = 0; vars[i].name != NULL; i++) {
        if (strlen(vars[i].name) == n && memcmp(vars[i].name, name, n) == 0) {
            return vars[i].field;
        }
    }
    return F_SKIP;
}

typedef struct {
    int    field; /* F_SKIP for a literal */
    char  *lit;
    size_t len;
} item_t;

struct trace_fields_s {
    item_t *items;
    int     nitems;
    int     json;
    /* one line's values, decoded */
    char  *val[F_COUNT];
    size_t vlen[F_COUNT];
    char  *buf; /* the decoded values of one line */
    size_t cap;
    char  *url; /* $uri?$args, or the request's target */
    size_t url_cap;
    /* ${time LAYOUT}: the line's time, read by the layout */
    int64_t layout_s;
    int     has_layout;
};

void
trace_fields_free(trace_fields_t *t)
{
    int i;

    if (t == NULL) {
        return;
    }
    for (i = 0; i < t->nitems; i++) {
        free(t->items[i].lit);
    }
    free(t->items);
    free(t->buf);
    free(t->url);
    free(t);
}

static trace_fields_t *
fields_new(void)
{
    return calloc(1, sizeof(trace_fields_t));
}

static int
add_item(trace_fields_t *t, int field, const char *lit, size_t len)
{
    item_t *n = realloc(t->items, (size_t) (t->nitems + 1) * sizeof(item_t));

    if (n == NULL) {
        return -1;
    }
    t->items = n;
    n[t->nitems].field = field;
    n[t->nitems].len = len;
    n[t->nitems].lit = NULL;
    if (lit != NULL) {
        n[t->nitems].lit = malloc(len + 1);
        if (n[t->nitems].lit == NULL) {
            return -1;
        }
        memcpy(n[t->nitems].lit, lit, len);
        n[t->nitems].lit[len] = '\0';
    }
    t->nitems++;
    return 0;
}

static int
is_name(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || c == '_';
}

trace_fields_t *
trace_fields_template(const char *fmt, char *err, size_t errlen)
{
    trace_fields_t *t = fields_new();
    const char     *p = fmt, *lit = fmt, *name;
    size_t          n;
    int             have[F_COUNT] = {0}, f;

    if (t == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    while (*p != '\0') {
        if (*p != '$') {
            p++;
            continue;
        }
        if (p > lit && add_item(t, -1, lit, (size_t) (p - lit)) != 0) {
            goto oom;
        }
        if (t->nitems > 0 && t->items[t->nitems - 1].field >= 0
            && t->items[t->nitems - 1].field != F_TIME_LAYOUT && lit == p) {
            snprintf(err, errlen,
                     "log format: two variables with nothing between them at "
                     "\"%.20s\"",
                     p);
            goto fail;
        }
        p++;
        if (strncmp(p, "{time ", 6) == 0) {
            /* ${time %d/%b/%Y,%H:%M:%S}: a time as its layout says, which
             * decides where it ends */
            const char *close = strchr(p, '}');

            if (close == NULL || close == p + 6) {
                snprintf(err, errlen,
                         "log format: ${time LAYOUT} wants a layout and a } "
                         "at \"%.20s\"",
                         p - 1);
                goto fail;
            }
            have[F_TIME_LAYOUT] = 1;
            if (add_item(t, F_TIME_LAYOUT, p + 6, (size_t) (close - p - 6))
                != 0) {
                goto oom;
            }
            p = lit = close + 1;
            continue;
        }
        if (*p == '{') {
            name = ++p;
            while (is_name(*p)) {
                p++;
            }
            if (*p != '}') {
                snprintf(err, errlen, "log format: unclosed ${ at \"%.20s\"",
                         name - 2);
                goto fail;
            }
            n = (size_t) (p - name);
            p++;
        } else {
            name = p;
            while (is_name(*p)) {
                p++;
            }
            n = (size_t) (p - name);
        }
        if (n == 0) {
            snprintf(err, errlen, "log format: a $ without a variable name");
            goto fail;
        }
        f = field_of(name, n);
        have[f] = 1;
        if (add_item(t, f, NULL, 0) != 0) {
            goto oom;
        }
        lit = p;
    }
    if (p > lit && add_item(t, -1, lit, (size_t) (p - lit)) != 0) {
        goto oom;
    }
    if (!have[F_TIME_LOCAL] && !have[F_TIME_ISO] && !have[F_MSEC]
        && !have[F_TIME_LAYOUT]) {
        snprintf(err, errlen,
                 "log format: no time ($time_local, $time_iso8601, $msec or "
                 "${time LAYOUT})");
        goto fail;
    }
    if (!have[F_REQUEST] && !have[F_REQUEST_URI] && !have[F_URI]) {
        snprintf(err, errlen,
                 "log format: no request ($request, $request_uri or $uri)");
        goto fail;
    }
    if (!have[F_STATUS]) {
        snprintf(err, errlen, "log format: no $status");
        goto fail;
    }
    return t;

oom:
    snprintf(err, errlen, "out of memory");
fail:
    trace_fields_free(t);
    return NULL;
}

trace_fields_t *
trace_fields_json(void)
{
    trace_fields_t *t = fields_new();

    if (t != NULL) {
        t->json = 1;
    }
    return t;
}

/* Keep field f's value: p[0..n), decoding \xHH, \" and \\ when escaped. */
static void
keep(trace_fields_t *t, int f, const char *p, size_t n, size_t *used,
     int escaped)
{
    char  *o = t->buf + *used;
    size_t i;

    t->val[f] = o;
    for (i = 0; i < n; i++) {
        if (escaped && p[i] == '\\' && i + 1 < n) {
            if (p[i + 1] == 'x' && i + 3 < n && nicache_hexval(p[i + 2]) >= 0
                && nicache_hexval(p[i + 3]) >= 0) {
                *o++ = (char) (nicache_hexval(p[i + 2]) * 16
                               + nicache_hexval(p[i + 3]));
                i += 3;
                continue;
            }
            if (p[i + 1] == '"' || p[i + 1] == '\\') {
                *o++ = p[++i];
                continue;
            }
        }
        *o++ = p[i];
    }
    t->vlen[f] = (size_t) (o - t->val[f]);
    *o++ = '\0';
    *used = (size_t) (o - t->buf);
}

static int
reserve(trace_fields_t *t, size_t need)
{
    return trace_grow(&t->buf, &t->cap, need, 1, 256);
}

/* digits with an optional fraction: whole and microseconds */
static int
seconds_us(const char *p, size_t n, int64_t *s, int64_t *us)
{
    size_t  i = 0;
    int64_t v = 0, frac = 0, scale = 100000;

    if (n == 0) {
        return -1;
    }
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
        if (v > INT64_MAX / 10 - 10) {
            return -1;
        }
        v = v * 10 + (p[i] - '0');
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
            frac += (p[i] - '0') * scale;
            scale /= 10;
        }
    }
    if (i != n) {
        return -1;
    }
    *s = v;
    *us = frac;
    return 0;
}

static int
num(const char *p, size_t n, int *out, int max)
{
    int v = 0;

    if (n == 0 || n > 9) {
        return -1;
    }
    while (n-- > 0) {
        if (*p < '0' || *p > '9') {
            return -1;
        }
        v = v * 10 + (*p++ - '0');
    }
    *out = v;
    return v > max ? -1 : 0;
}

/* "2015-03-01T12:00:00+00:00" (or Z, or with a fraction) to UTC */
static int
iso8601(const char *p, size_t n, int64_t *s, int64_t *us)
{
    int     y, mo, d, hh, mm, ss, zh = 0, zm = 0, sign = 0;
    size_t  i = 19;
    int64_t frac = 0, scale = 100000;

    if (n < 20 || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != ' ')
        || p[13] != ':' || p[16] != ':' || num(p, 4, &y, 9999)
        || num(p + 5, 2, &mo, 12) || num(p + 8, 2, &d, 31)
        || num(p + 11, 2, &hh, 23) || num(p + 14, 2, &mm, 59)
        || num(p + 17, 2, &ss, 60) || mo < 1 || d < 1) {
        return -1;
    }
    if (p[i] == '.') {
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
            frac += (p[i] - '0') * scale;
            scale /= 10;
        }
    }
    if (i < n && p[i] == 'Z') {
        i++;
    } else if (i + 6 == n && (p[i] == '+' || p[i] == '-') && p[i + 3] == ':'
               && num(p + i + 1, 2, &zh, 23) == 0
               && num(p + i + 4, 2, &zm, 59) == 0) {
        sign = p[i] == '-' ? -1 : 1;
        i += 6;
    } else {
        return -1;
    }
    if (i != n) {
        return -1;
    }
    *s = nicache_days_from_civil(y, mo, d) * 86400 + hh * 3600 + mm * 60 + ss
         - sign * (zh * 3600 + zm * 60);
    *us = frac;
    return 0;
}

static int
is_dash(trace_fields_t *t, int f)
{
    return t->val[f] == NULL || t->vlen[f] == 0
           || (t->vlen[f] == 1 && t->val[f][0] == '-');
}

/* The values of one line, into r. */
static int
finish(trace_fields_t *t, trace_req_t *r)
{
    int64_t s = 0, us = 0, rs, rus;
    int     status, f;

    if (t->has_layout) {
        s = t->layout_s;
    } else if (t->val[F_MSEC] != NULL) {
        if (seconds_us(t->val[F_MSEC], t->vlen[F_MSEC], &s, &us) != 0) {
            return TRACE_ERR_DATE;
        }
    } else if (t->val[F_TIME_ISO] != NULL) {
        if (iso8601(t->val[F_TIME_ISO], t->vlen[F_TIME_ISO], &s, &us) != 0
            && trace_clf_date(t->val[F_TIME_ISO], t->vlen[F_TIME_ISO], &s)
                   != 0) {
            return TRACE_ERR_DATE;
        }
    } else if (t->val[F_TIME_LOCAL] != NULL) {
        if (trace_clf_date(t->val[F_TIME_LOCAL], t->vlen[F_TIME_LOCAL], &s)
            != 0) {
            return TRACE_ERR_DATE;
        }
    } else {
        return TRACE_ERR_DATE;
    }
    if (!is_dash(t, F_REQUEST_TIME)
        && seconds_us(t->val[F_REQUEST_TIME], t->vlen[F_REQUEST_TIME], &rs,
                      &rus)
               == 0) {
        s -= rs;
        us -= rus;
        if (us < 0) {
            us += 1000000;
            s--;
        }
    }
    r->time = s;
    r->usec = (uint32_t) us;

    if (t->val[F_REQUEST] != NULL && !is_dash(t, F_REQUEST)) {
        if (trace_request_parse(t->val[F_REQUEST], t->vlen[F_REQUEST], r)
            != 0) {
            return TRACE_ERR_REQUEST;
        }
    } else {
        f = t->val[F_REQUEST_URI] != NULL ? F_REQUEST_URI : F_URI;
        if (is_dash(t, f)) {
            return TRACE_ERR_REQUEST;
        }
        r->url = t->val[f];
        r->url_len = t->vlen[f];
        if (f == F_URI && !is_dash(t, F_ARGS)) {
            size_t need = t->vlen[F_URI] + 1 + t->vlen[F_ARGS];

            if (trace_grow(&t->url, &t->url_cap, need, 1, 256) != 0) {
                return TRACE_ERR_REQUEST;
            }
            memcpy(t->url, t->val[F_URI], t->vlen[F_URI]);
            t->url[t->vlen[F_URI]] = '?';
            memcpy(t->url + t->vlen[F_URI] + 1, t->val[F_ARGS],
                   t->vlen[F_ARGS]);
            r->url = t->url;
            r->url_len = need;
        }
        r->method = is_dash(t, F_METHOD)
                        ? TRACE_GET
                        : trace_method(t->val[F_METHOD], t->vlen[F_METHOD]);
        r->has_protocol = !is_dash(t, F_PROTOCOL);
    }

    if (t->val[F_STATUS] == NULL
        || num(t->val[F_STATUS], t->vlen[F_STATUS], &status, 999) != 0
        || t->vlen[F_STATUS] != 3) {
        return TRACE_ERR_STATUS;
    }
    r->status = status;

    f = t->val[F_BODY_BYTES] != NULL ? F_BODY_BYTES : F_BYTES;
    r->bytes = 0;
    r->bytes_known = !is_dash(t, f);
    if (r->bytes_known) {
        int64_t b, frac;

        if (seconds_us(t->val[f], t->vlen[f], &b, &frac) != 0 || frac != 0) {
            return TRACE_ERR_BYTES;
        }
        r->bytes = (uint64_t) b;
    }

    f = !is_dash(t, F_ADDR) ? F_ADDR : F_FORWARDED;
    r->client = t->val[f] != NULL ? nicache_fnv1a64(t->val[f], t->vlen[f]) : 0;
    return TRACE_OK;
}

/*
 * ${time LAYOUT} at *p: strptime's reading of it (C locale: English month
 * names, AM/PM; %z an offset, else UTC), *p moved past what it took.
 */
static int
layout_time(trace_fields_t *t, const char *layout, const char **p,
            const char *end)
{
    char        buf[128];
    size_t      n = (size_t) (end - *p) < sizeof(buf) - 1 ? (size_t) (end - *p)
                                                          : sizeof(buf) - 1;
    struct tm   tm;
    const char *e;

    memcpy(buf, *p, n);
    buf[n] = '\0';
    memset(&tm, 0, sizeof(tm));
    tm.tm_mday = 1;
    e = strptime(buf, layout, &tm);
    if (e == NULL || e == buf) {
        return -1;
    }
    t->layout_s = (int64_t) timegm(&tm) - tm.tm_gmtoff;
    t->has_layout = 1;
    *p += e - buf;
    return 0;
}

static int
parse_template(trace_fields_t *t, const char *line, size_t len, trace_req_t *r)
{
    const char *p = line, *end = line + len, *v, *e;
    size_t      used = 0;
    int         i;

    if (reserve(t, len + F_COUNT + 1) != 0) {
        return TRACE_ERR_FIELDS;
    }
    for (i = 0; i < t->nitems; i++) {
        const item_t *it = &t->items[i];

        if (it->field < 0) {
            if ((size_t) (end - p) < it->len || memcmp(p, it->lit, it->len)) {
                return TRACE_ERR_FIELDS;
            }
            p += it->len;
            continue;
        }
        if (it->field == F_TIME_LAYOUT) {
            if (layout_time(t, it->lit, &p, end) != 0) {
                return TRACE_ERR_DATE;
            }
            continue;
        }
        v = p;
        if (i + 1 == t->nitems) {
            e = end;
        } else {
            const item_t *next = &t->items[i + 1];

            for (e = v; e < end; e++) {
                if (*e == '\\') {
                    e++; /* an escaped character never ends a field */
                    continue;
                }
                if ((size_t) (end - e) >= next->len
                    && memcmp(e, next->lit, next->len) == 0) {
                    break;
                }
            }
            if (e > end) {
                e = end;
            }
            if (e == end) {
                return TRACE_ERR_FIELDS;
            }
        }
        if (it->field != F_SKIP) {
            keep(t, it->field, v, (size_t) (e - v), &used, 1);
        }
        p = e;
    }
    return finish(t, r);
}

static int
parse_json(trace_fields_t *t, const char *line, size_t len, trace_req_t *r)
{
    char          err[128], num_s[64];
    json_t       *o = json_parse(line, len, err, sizeof(err));
    const json_t *m;
    size_t        used = 0, need = len + F_COUNT + 64 * F_COUNT;
    int           f, rc;

    if (o == NULL || o->type != JSON_OBJECT || reserve(t, need) != 0) {
        json_free(o);
        return TRACE_ERR_FIELDS;
    }
    for (m = o->child; m != NULL; m = m->next) {
        f = field_of(m->key, strlen(m->key));
        if (f == F_SKIP || t->val[f] != NULL) {
            continue;
        }
        if (m->type == JSON_STRING) {
            keep(t, f, m->string, strlen(m->string), &used, 0);
        } else if (m->type == JSON_NUMBER) {
            if (f == F_TIME_ISO) {
                f = F_MSEC; /* a number for a time: seconds */
            }
            snprintf(num_s, sizeof(num_s), "%.6f", m->number);
            if (f != F_MSEC && f != F_REQUEST_TIME) {
                snprintf(num_s, sizeof(num_s), "%.0f", m->number);
            }
            keep(t, f, num_s, strlen(num_s), &used, 0);
        }
    }
    rc = finish(t, r);
    json_free(o);
    return rc;
}

int
trace_fields_parse(trace_fields_t *t, const char *line, size_t len,
                   trace_req_t *r)
{
    memset(t->val, 0, sizeof(t->val));
    memset(t->vlen, 0, sizeof(t->vlen));
    t->has_layout = 0;
    return t->json ? parse_json(t, line, len, r)
                   : parse_template(t, line, len, r);
}

/* ---- the formats as the reader reads them (format.h) ---- */

static int
json_probe(const unsigned char *p, size_t n)
{
    size_t i = 0;

    while (i < n && (p[i] == ' ' || p[i] == '\t')) {
        i++;
    }
    return i < n && p[i] == '{';
}

static int
fields_next(void *state, trace_input_t *in, trace_req_t *r, int *bad)
{
    size_t len;
    int    rc = trace_input_line(in, &len);

    if (rc != 1) {
        return rc;
    }
    while (len > 0 && in->line[len - 1] == '\r') {
        len--;
    }
    *bad = trace_fields_parse(state, in->line, len, r);
    return *bad == TRACE_OK ? 1 : -2;
}

static void *
json_open(trace_input_t *in, const trace_format_args_t *a, char *err,
          size_t errlen)
{
    trace_fields_t *f = trace_fields_json();

    (void) in;
    (void) a;
    if (f == NULL) {
        snprintf(err, errlen, "out of memory");
    }
    return f;
}

static void *
layout_open(trace_input_t *in, const trace_format_args_t *a, char *err,
            size_t errlen)
{
    (void) in;
    return trace_fields_template(a->layout, err, errlen);
}

static void
fields_close(void *state)
{
    trace_fields_free(state);
}

const trace_format_t trace_format_json = {
    "json", json_probe, json_open, fields_next, fields_close, 1, 0};
const trace_format_t trace_format_log_format = {
    "log_format", NULL, layout_open, fields_next, fields_close, 1, 0};
