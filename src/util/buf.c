/*
 * Buffers, number and date formatting, nginx-style size and time values.
 */

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "util/civil.h"
#include "util/duration.h"
#include "util/size.h"
#include "util/buf.h"

int
nicd_buf_grow(nicd_buf_t *b, size_t n)
{
    size_t size;
    char  *p;

    if (nicd_buf_failed(b)) {
        return -1;
    }
    if (b->size - b->len >= n) {
        return 0;
    }
    size = b->size ? b->size : 256;
    while (size - b->len < n) {
        size *= 2;
    }
    p = realloc(b->data, size);
    if (p == NULL) {
        b->len = (size_t) -1;
        return -1;
    }
    b->data = p;
    b->size = size;
    return 0;
}

void
nicd_buf_free(nicd_buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->size = 0;
}

void
nicd_buf_adds(nicd_buf_t *b, const char *s)
{
    nicd_buf_add(b, s, strlen(s));
}

size_t
nicd_u64_to_str(char *p, uint64_t v)
{
    char   tmp[20];
    size_t n = 0, i;

    do {
        tmp[n++] = (char) ('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (i = 0; i < n; i++) {
        p[i] = tmp[n - 1 - i];
    }
    return n;
}

void
nicd_buf_add_u64(nicd_buf_t *b, uint64_t v)
{
    char tmp[20];

    nicd_buf_add(b, tmp, nicd_u64_to_str(tmp, v));
}

void
nicd_buf_addf(nicd_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    int     n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || nicd_buf_reserve(b, (size_t) n + 1) != 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t) n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t) n;
}

static const char wdays[7][4] = {"Sun", "Mon", "Tue", "Wed",
                                 "Thu", "Fri", "Sat"};
static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

static char *
put2(char *p, int v)
{
    *p++ = (char) ('0' + v / 10 % 10);
    *p++ = (char) ('0' + v % 10);
    return p;
}

static char *
put4(char *p, int v)
{
    p = put2(p, v / 100);
    return put2(p, v % 100);
}

void
nicd_http_date(char *out, time_t t)
{
    struct tm tm;
    char     *p = out;

    gmtime_r(&t, &tm);
    memcpy(p, wdays[tm.tm_wday], 3);
    p += 3;
    *p++ = ',';
    *p++ = ' ';
    p = put2(p, tm.tm_mday);
    *p++ = ' ';
    memcpy(p, months[tm.tm_mon], 3);
    p += 3;
    *p++ = ' ';
    p = put4(p, tm.tm_year + 1900);
    *p++ = ' ';
    p = put2(p, tm.tm_hour);
    *p++ = ':';
    p = put2(p, tm.tm_min);
    *p++ = ':';
    p = put2(p, tm.tm_sec);
    memcpy(p, " GMT", 5);
}

void
nicd_log_date(char *out, time_t t)
{
    struct tm tm;
    long      off;
    char     *p = out;

    localtime_r(&t, &tm);
    off = tm.tm_gmtoff / 60;
    p = put2(p, tm.tm_mday);
    *p++ = '/';
    memcpy(p, months[tm.tm_mon], 3);
    p += 3;
    *p++ = '/';
    p = put4(p, tm.tm_year + 1900);
    *p++ = ':';
    p = put2(p, tm.tm_hour);
    *p++ = ':';
    p = put2(p, tm.tm_min);
    *p++ = ':';
    p = put2(p, tm.tm_sec);
    *p++ = ' ';
    *p++ = off < 0 ? '-' : '+';
    if (off < 0) {
        off = -off;
    }
    p = put2(p, (int) (off / 60));
    p = put2(p, (int) (off % 60));
    *p = '\0';
}

static int
month_index(const char *p)
{
    int i;

    for (i = 0; i < 12; i++) {
        if (strncmp(p, months[i], 3) == 0) {
            return i + 1;
        }
    }
    return -1;
}

/*
 * Accepts "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT"
 * and "Sun Nov  6 08:49:37 1994"; returns -1 for anything else.
 */
time_t
nicd_http_date_parse(const char *s, size_t len)
{
    char        buf[64];
    const char *p, *comma;
    int         d, mon, y, hh, mm, ss, n;
    char        mname[4];

    if (len == 0 || len >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';

    comma = strchr(buf, ',');
    n = 0;
    if (comma != NULL) {
        p = comma + 1;
        if (sscanf(p, " %2d %3s %4d %2d:%2d:%2d GMT%n", &d, mname, &y, &hh, &mm,
                   &ss, &n)
                == 6
            && n > 0 && p[n] == '\0') {
            /* IMF-fixdate */
        } else if (sscanf(p, " %2d-%3[A-Za-z]-%2d %2d:%2d:%2d GMT%n", &d, mname,
                          &y, &hh, &mm, &ss, &n)
                       == 6
                   && n > 0 && p[n] == '\0') {
            /* RFC 850: two-digit year, 50 and later is 19xx */
            y += y < 50 ? 2000 : 1900;
        } else {
            return -1;
        }
    } else {
        if (sscanf(buf, "%*3s %3s %2d %2d:%2d:%2d %4d%n", mname, &d, &hh, &mm,
                   &ss, &y, &n)
                != 6
            || n == 0 || buf[n] != '\0') {
            return -1;
        }
    }

    mname[3] = '\0';
    mon = month_index(mname);
    if (mon < 0 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60 || y < 1970
        || hh < 0 || mm < 0 || ss < 0) {
        return -1;
    }
    return (time_t) (nicache_days_from_civil(y, mon, d) * 86400L + hh * 3600L
                     + mm * 60L + ss);
}

int
nicd_parse_size(const char *s, size_t *out)
{
    uint64_t v;

    if (nicache_parse_size(s, &v) != 0 || v > SIZE_MAX) {
        return -1;
    }
    *out = (size_t) v;
    return 0;
}

int
nicd_parse_msec(const char *s, long *out)
{
    long long v;

    if (nicache_parse_time(s, 0, &v) != 0 || v > 0x7fffffffLL) {
        return -1;
    }
    *out = (long) v;
    return 0;
}

void
nicd_buf_add_json(nicd_buf_t *b, const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char) s[i];

        if (ch == '"' || ch == '\\') {
            nicd_buf_addf(b, "\\%c", ch);
        } else if (ch < 0x20) {
            nicd_buf_addf(b, "\\u%04X", ch); /* nginx's, upper case */
        } else {
            nicd_buf_add(b, s + i, 1);
        }
    }
}

/* s with the bytes keep() refuses as %XX */
static void
add_percent_but(nicd_buf_t *b, const char *s, size_t len,
                int (*keep)(unsigned char))
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i;
    char              e[3] = {'%', 0, 0};

    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char) s[i];

        if (keep(ch)) {
            nicd_buf_add(b, s + i, 1);
        } else {
            e[1] = hex[ch >> 4];
            e[2] = hex[ch & 15];
            nicd_buf_add(b, e, 3);
        }
    }
}

static int
unreserved(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
           || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_'
           || ch == '~';
}

void
nicd_buf_add_percent(nicd_buf_t *b, const char *s, size_t len)
{
    add_percent_but(b, s, len, unreserved);
}

/* nginx's NGX_ESCAPE_URI: controls, space, '#', '%', '?', the
 * characters RFC 3986 does not allow ('"', '<', '>', '\\', '^', '`', '{',
 * '|', '}') and bytes past ASCII */
static int
in_uri(unsigned char ch)
{
    return ch > 0x20 && ch < 0x7f && strchr("#%?\"<>\\^`{|}", ch) == NULL;
}

void
nicd_buf_add_uri(nicd_buf_t *b, const char *s, size_t len)
{
    add_percent_but(b, s, len, in_uri);
}

void
nicd_buf_add_escaped(nicd_buf_t *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t            i;
    char              e[4] = {'\\', 'x', 0, 0};

    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char) s[i];

        if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\') {
            e[2] = hex[ch >> 4];
            e[3] = hex[ch & 15];
            nicd_buf_add(b, e, 4);
        } else {
            nicd_buf_add(b, s + i, 1);
        }
    }
}

int
nicd_base64_decode(unsigned char *out, const char *in, size_t len)
{
    static const char alpha[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t   i, k, o = 0;
    uint32_t v;
    int      pad;

    if (len % 4 != 0) {
        return -1;
    }
    for (i = 0; i < len; i += 4) {
        v = 0;
        pad = 0;
        for (k = 0; k < 4; k++) {
            const char *p;

            if (in[i + k] == '=' && i + 4 == len && k >= 2) {
                pad++;
                v <<= 6;
                continue;
            }
            p = in[i + k] != '\0' ? strchr(alpha, in[i + k]) : NULL;
            if (p == NULL || pad > 0) {
                return -1;
            }
            v = (v << 6) | (uint32_t) (p - alpha);
        }
        out[o++] = (unsigned char) (v >> 16);
        if (pad < 2) {
            out[o++] = (unsigned char) (v >> 8);
        }
        if (pad < 1) {
            out[o++] = (unsigned char) v;
        }
    }
    return (int) o;
}
