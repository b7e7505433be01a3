/*
 * A growable byte buffer and the small formatting helpers the response
 * path uses instead of printf.
 */

#ifndef NICD_BUF_H
#define NICD_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

typedef struct {
    char  *data;
    size_t len;
    size_t size;
} nicd_buf_t;

#define nicd_buf_failed(b) ((b)->len == (size_t) -1)

/* the growing part of nicd_buf_reserve() */
int nicd_buf_grow(nicd_buf_t *b, size_t n);

/* Make room for n more bytes; 0, or -1 when out of memory.  (Inline:
 * the response path asks for room many times a request, and the room is
 * almost always there.) */
static inline int
nicd_buf_reserve(nicd_buf_t *b, size_t n)
{
    return b->size - b->len >= n && !nicd_buf_failed(b) ? 0
                                                        : nicd_buf_grow(b, n);
}

void nicd_buf_free(nicd_buf_t *b);

/*
 * Appends.  They never fail: on allocation failure they set b->len to
 * (size_t) -1 once, and every later append is ignored; check with
 * nicd_buf_failed() when done.
 */
static inline void
nicd_buf_add(nicd_buf_t *b, const void *p, size_t n)
{
    /* nothing to add: an empty buffer may have no data to point past */
    if (n == 0 || nicd_buf_reserve(b, n) != 0) {
        return;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void nicd_buf_adds(nicd_buf_t *b, const char *s);
/* s percent-encoded as a URI component: all but letters, digits and
 * "-._~" as %XX (RFC 3986's unreserved) */
void nicd_buf_add_percent(nicd_buf_t *b, const char *s, size_t len);
/* s as a URI's path, as nginx's proxy escapes one (NGX_ESCAPE_URI):
 * controls, space, "#%?", the bytes RFC 3986 does not allow unescaped
 * ("\"<>\\^`{|}") and bytes past ASCII as %XX */
void nicd_buf_add_uri(nicd_buf_t *b, const char *s, size_t len);
/* s as nginx escapes log variables: '"', '\\' and non-printables as
 * \xHH. */
void nicd_buf_add_escaped(nicd_buf_t *b, const char *s, size_t len);
/* s inside a JSON string, as nginx writes one (escape=json, autoindex):
 * '"' and '\\' escaped, control bytes as \u00XX, the rest as it is. */
void nicd_buf_add_json(nicd_buf_t *b, const char *s, size_t len);
void nicd_buf_add_u64(nicd_buf_t *b, uint64_t v);
void nicd_buf_addf(nicd_buf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define NICD_BUF_LIT(b, s) nicd_buf_add((b), (s), sizeof(s) - 1)

/* Decimal digits of v into p (at least 20 bytes); returns the length. */
size_t nicd_u64_to_str(char *p, uint64_t v);

/* RFC 9110 IMF-fixdate, 29 characters plus NUL. */
#define NICD_HTTP_DATE_LEN 29
void nicd_http_date(char *out, time_t t);
/* Parse IMF-fixdate (and the obsolete RFC 850 and asctime forms); -1 if
 * invalid. */
time_t nicd_http_date_parse(const char *s, size_t len);

/* nginx's $time_local: "21/Nov/2026:08:39:13 +0000". */
#define NICD_LOG_DATE_LEN 26
void nicd_log_date(char *out, time_t t);

/*
 * Sizes and times as nginx writes them: "512", "16k", "2m", "1g";
 * "500ms", "75s", "5m", "1h", "1d" (a bare number is seconds).
 * Return 0, or -1 when malformed.
 */
int nicd_parse_size(const char *s, size_t *out);
int nicd_parse_msec(const char *s, long *out);
/* (nginx's time syntax itself: nicache_parse_time, src/util/duration.h) */

/*
 * Standard base64 (RFC 4648, with its padding) of in (len bytes, a
 * multiple of 4) into out (at least len / 4 * 3 bytes): the decoded
 * length, or -1 for anything else.
 */
int nicd_base64_decode(unsigned char *out, const char *in, size_t len);

#endif /* NICD_BUF_H */
