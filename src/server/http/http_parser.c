/*
 * HTTP/1.1 request-head parser.
 *
 * RFC 9112 rules applied here (a MUST unless said):
 * - a request line is method SP request-target SP HTTP-version CRLF; bare
 *   LF is accepted as a line end (section 2.2 allows it);
 * - empty lines before the request line are ignored (SHOULD, 2.2);
 * - no whitespace between a field name and its colon: 400 (5.1); other
 *   bytes than a token's in a name are nginx's to judge (odd_names);
 * - obs-fold in a request: 400 (5.2, "reject or replace"; we reject);
 * - HTTP/1.1 without exactly one valid Host: 400 (3.2);
 * - Transfer-Encoding whose last coding is not chunked: 400 (6.3);
 * - Content-Length that is not a number, or several that differ: 400;
 * - Transfer-Encoding in an HTTP/1.0 request: 400 (6.1: faulty framing);
 * - a major version other than 1: 505.
 */

#include <string.h>

#include "server/http/http_parser.h"

enum {
    S_START = 0,
    S_METHOD,
    S_TARGET_START,
    S_TARGET,
    S_VERSION,
    S_LINE_CR,
    S_FIELD_START,
    S_NAME,
    S_VALUE_START,
    S_VALUE,
    S_FIELD_CR,
    S_HEAD_CR
};

/*
 * A header name's bytes, as nginx reads them: letters, digits and '-'
 * make a plain name; ':' ends it; controls, space and DEL are a bad
 * request; any other byte ('_', '.', ...) makes the name odd (nginx's
 * invalid_header: the server ignores or keeps it, nicd_head_filter).
 */
static const unsigned char name_class[256] = {
    /* 1: plain, 2: odd, 0 (the rest): bad */
    [0x21 ... 0x2c] = 2, ['-'] = 1,           [0x2e ... 0x2f] = 2,
    ['0' ... '9'] = 1,   [0x3a ... 0x40] = 2, ['A' ... 'Z'] = 1,
    [0x5b ... 0x60] = 2, ['a' ... 'z'] = 1,   [0x7b ... 0x7e] = 2,
    [0x80 ... 0xff] = 2,
};

static inline int
name_byte(nicd_http_req_t *p, unsigned char c)
{
    p->odd_names |= name_class[c] >> 1;
    return name_class[c] != 0;
}

int
nicd_http_name_odd(const char *name, size_t len, int underscores)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (name_class[(unsigned char) name[i]] != 1
            && !(underscores && name[i] == '_')) {
            return 1;
        }
    }
    return 0;
}

static const struct {
    const char *name;
    uint32_t    len;
    int         method;
} methods[] = {
    {"GET", 3, NICD_M_GET},       {"HEAD", 4, NICD_M_HEAD},
    {"POST", 4, NICD_M_POST},     {"PUT", 3, NICD_M_PUT},
    {"DELETE", 6, NICD_M_DELETE}, {"OPTIONS", 7, NICD_M_OPTIONS},
    {"TRACE", 5, NICD_M_TRACE},   {"CONNECT", 7, NICD_M_CONNECT},
    {"PATCH", 5, NICD_M_PATCH},
};

void
nicd_http_req_init(nicd_http_req_t *p, uint32_t max_line, uint32_t max_field,
                   uint32_t max_head)
{
    p->max_line = max_line;
    p->max_field = max_field;
    p->max_head = max_head;
    nicd_http_req_reset(p);
}

void
nicd_http_req_reset(nicd_http_req_t *p)
{
    uint32_t max_line = p->max_line;
    uint32_t max_field = p->max_field;
    uint32_t max_head = p->max_head;

    /* headers[] is not cleared: nheaders says how much of it is valid */
    memset(p, 0, offsetof(nicd_http_req_t, headers));
    p->nheaders = 0;
    memset(&p->head_len, 0, sizeof(*p) - offsetof(nicd_http_req_t, head_len));
    p->max_line = max_line;
    p->max_field = max_field;
    p->max_head = max_head;
}

static int
nicd_span_ieq(const char *buf, nicd_span_t s, const char *lower)
{
    uint32_t i;

    for (i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char) buf[s.off + i];

        if (lower[i] == '\0') {
            return 0;
        }
        if (c >= 'A' && c <= 'Z') {
            c = (unsigned char) (c | 0x20);
        }
        if (c != (unsigned char) lower[i]) {
            return 0;
        }
    }
    return lower[s.len] == '\0';
}

/*
 * The request target: origin-form "/path?query", absolute-form
 * "http://authority/path?query", or "*" (asterisk-form).  A "#fragment"
 * a client should not have sent is left out, as nginx leaves it out.
 * Returns 0 or 400.
 */
static int
split_target(nicd_http_req_t *p, const char *buf)
{
    uint32_t    i, start, end, q;
    const char *t = buf + p->target.off;
    const char *frag = memchr(t, '#', p->target.len);
    uint32_t    n = frag != NULL ? (uint32_t) (frag - t) : p->target.len;

    start = 0;
    p->authority.len = 0;

    if (t[0] != '/') {
        if (n == 1 && t[0] == '*') {
            p->path = p->target;
            p->query.off = p->target.off + 1;
            p->query.len = 0;
            return 0;
        }
        /* absolute-form: scheme "://" authority path-abempty [ "?" query ] */
        for (i = 0; i < n && t[i] != ':'; i++) {
            unsigned char c = (unsigned char) t[i];
            if (!((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
                && !(i > 0
                     && ((c >= '0' && c <= '9') || c == '+' || c == '-'
                         || c == '.'))) {
                return 400;
            }
        }
        if (i == 0 || i + 2 >= n || t[i + 1] != '/' || t[i + 2] != '/') {
            return 400;
        }
        start = i + 3;
        for (i = start; i < n && t[i] != '/' && t[i] != '?'; i++) {
            /* authority */
        }
        if (i == start) {
            return 400;
        }
        p->authority.off = p->target.off + start;
        p->authority.len = i - start;
        start = i;
    }

    for (q = start; q < n && t[q] != '?'; q++) {
    }
    end = q;
    p->path.off = p->target.off + start;
    p->path.len = end - start; /* 0 for "http://host": means "/" */
    if (q < n) {
        p->query.off = p->target.off + q + 1;
        p->query.len = n - q - 1;
    } else {
        p->query.off = p->target.off + n;
        p->query.len = 0;
    }
    return 0;
}

/* Does a comma-separated list value contain token (case-insensitive)? */
static int
list_has(const char *buf, nicd_span_t v, const char *token)
{
    uint32_t i = 0, s, e;

    while (i < v.len) {
        while (i < v.len
               && (buf[v.off + i] == ' ' || buf[v.off + i] == '\t'
                   || buf[v.off + i] == ',')) {
            i++;
        }
        s = i;
        while (i < v.len && buf[v.off + i] != ',') {
            i++;
        }
        e = i;
        while (e > s
               && (buf[v.off + e - 1] == ' ' || buf[v.off + e - 1] == '\t')) {
            e--;
        }
        if (e > s
            && nicd_span_ieq(buf, (nicd_span_t){v.off + s, e - s}, token)) {
            return 1;
        }
    }
    return 0;
}

/*
 * Content-Length: 1*DIGIT, one of them, in one field line: a list, even
 * of identical values ("42, 42"), and a second Content-Length line are
 * refused as nginx refuses them (RFC 9112, 6.3 lets a recipient reject
 * them; accepting lists is where request smuggling starts).
 * Returns 0 with *out set, or -1.
 */
static int
parse_content_length(const char *buf, nicd_span_t v, uint64_t *out)
{
    uint32_t i = 0;
    uint64_t n = 0;

    while (i < v.len && buf[v.off + i] >= '0' && buf[v.off + i] <= '9') {
        if (n > (UINT64_MAX - 9) / 10) {
            return -1;
        }
        n = n * 10 + (uint64_t) (buf[v.off + i] - '0');
        i++;
    }
    if (i == 0 || i != v.len) {
        return -1;
    }
    *out = n;
    return 0;
}

/* an absolute-form authority's characters (RFC 3986): a reg-name's or
 * an IPv4 address's, and inside "[...]" an IPv6 or IPvFuture literal's */
static int
authority_char(unsigned char c, int literal)
{
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
        return 1;
    }
    if ((c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'
        || c == '~') {
        return 1;
    }
    return literal && c != 0 && strchr("!$&'()*+,;=:", c) != NULL;
}

/*
 * A Host value (strict 0) or an absolute-form authority (strict 1), as
 * nginx validates them: uri-host [ ":" port ], a "[...]" literal whose
 * colons are not a port, no empty host and no ".."; no path separator,
 * control or space.  An authority is held to RFC 3986 too: its host's
 * characters, a literal closed and followed by nothing but a port, a
 * port of digits.
 */
static int
valid_host_by_byte(const char *buf, nicd_span_t v, int strict)
{
    const char *h = buf + v.off;
    uint32_t    i, host_len = v.len;
    int64_t     dot = -2; /* where the last '.' stood */
    int         literal = 0, rest = 0;

    for (i = 0; i < v.len; i++) {
        unsigned char c = (unsigned char) h[i];

        if (c <= ' ' || c == 0x7f || c == '/' || c == '\\') {
            return 0;
        }
        if (strict && rest) {
            /* after the host: ":" then the port's digits, only */
            if (rest == 1 ? c != ':' : !(c >= '0' && c <= '9')) {
                return 0;
            }
            rest = 2;
            continue;
        }
        if (strict && c != '[' && c != ']' && c != ':'
            && !authority_char(c, literal)) {
            return 0;
        }
        switch (c) {
        case '.':
            if (dot == (int64_t) i - 1) {
                return 0;
            }
            dot = i;
            break;
        case ':':
            if (!literal && !rest) {
                host_len = i;
                rest = 2; /* a Host's port: not checked (nginx 1.22) */
            }
            break;
        case '[':
            if (strict && i != 0) {
                return 0;
            }
            literal = i == 0;
            break;
        case ']':
            if (literal) {
                host_len = i + 1;
                literal = 0;
                rest = 1;
            } else if (strict) {
                return 0;
            }
            break;
        }
    }
    if (strict && literal) {
        return 0; /* "[" never closed */
    }
    if (dot == (int64_t) host_len - 1) {
        host_len--; /* "example.com." is example.com */
    }
    return host_len > 0;
}

/* what a Host byte is to valid_host(): most are none of these */
enum { HB_BAD = 1, HB_DOT = 2, HB_COLON = 4, HB_LITERAL = 8 };
static const uint8_t host_byte[256] = {
    [0 ... 0x20] = HB_BAD, [0x7f] = HB_BAD,    ['/'] = HB_BAD,
    ['\\'] = HB_BAD,       ['.'] = HB_DOT,     [':'] = HB_COLON,
    ['['] = HB_LITERAL,    [']'] = HB_LITERAL,
};

/*
 * valid_host_by_byte()'s answer for a Host value, without a branch a
 * byte: a name or an IPv4 address and a port, the common case, is read
 * by one table look a byte; a "[...]" literal and an absolute-form
 * authority (strict) go byte by byte.
 */
static int
valid_host(const char *buf, nicd_span_t v, int strict)
{
    const unsigned char *h = (const unsigned char *) buf + v.off;
    unsigned             any = 0, twice = 0, prev = 0, k;
    uint32_t             i, host_len = v.len;
    int64_t              dot = -2; /* the last '.' (nginx's rule, below) */

    if (strict) {
        return valid_host_by_byte(buf, v, strict);
    }
    for (i = 0; i < v.len; i++) {
        k = host_byte[h[i]];
        any |= k;
        twice |= k & prev; /* ".." */
        prev = k;
        host_len = (k & HB_COLON) && i < host_len ? i : host_len;
        dot = (k & HB_DOT) ? (int64_t) i : dot;
    }
    if (any & HB_LITERAL) {
        return valid_host_by_byte(buf, v, strict);
    }
    if ((any & HB_BAD) || (twice & HB_DOT)) {
        return 0;
    }
    if (dot == (int64_t) host_len - 1) {
        host_len--; /* "example.com." is example.com */
    }
    return host_len > 0;
}

#define SET_INDEX(field)                                                       \
    do {                                                                       \
        if (p->field < 0) {                                                    \
            p->field = i;                                                      \
        }                                                                      \
    } while (0)
/* a field nginx takes once: a second is a 400 ("client sent duplicate
 * header line") */
#define SET_UNIQUE(field)                                                      \
    do {                                                                       \
        if (p->field >= 0) {                                                   \
            return 400;                                                        \
        }                                                                      \
        p->field = i;                                                          \
    } while (0)

enum { SEEN_EXPECT = 1, SEEN_RANGE = 2, SEEN_TE = 4 };

/* After the head is complete: framing, Host, well-known fields. */
static int
finish_head(nicd_http_req_t *p, const char *buf)
{
    int      i, hosts = 0, conn_close = 0, conn_keep = 0, have_cl = 0;
    int      seen = 0, te_unknown = 0;
    uint64_t cl;

    p->h_host = p->h_if_none_match = p->h_if_modified_since = -1;
    p->h_if_match = p->h_if_unmodified_since = p->h_range = -1;
    p->h_if_range = p->h_referer = p->h_user_agent = -1;
    p->h_accept_encoding = p->h_authorization = -1;

    for (i = 0; i < p->nheaders; i++) {
        nicd_span_t n = p->headers[i].name, v = p->headers[i].value;

        switch (n.len) {
        case 4:
            if (nicd_span_ieq(buf, n, "host")) {
                if (++hosts > 1 || !valid_host(buf, v, 0)) {
                    return 400;
                }
                p->h_host = i;
            }
            break;
        case 5:
            if (nicd_span_ieq(buf, n, "range")) {
                SET_INDEX(h_range);
            }
            break;
        case 6:
            if (nicd_span_ieq(buf, n, "expect")) {
                if (seen & SEEN_EXPECT) {
                    return 400;
                }
                seen |= SEEN_EXPECT;
                p->expect_continue |= list_has(buf, v, "100-continue");
            }
            break;
        case 7:
            if (nicd_span_ieq(buf, n, "referer")) {
                SET_INDEX(h_referer);
            }
            break;
        case 8:
            if (nicd_span_ieq(buf, n, "if-match")) {
                SET_UNIQUE(h_if_match);
            } else if (nicd_span_ieq(buf, n, "if-range")) {
                SET_UNIQUE(h_if_range);
            }
            break;
        case 10:
            if (nicd_span_ieq(buf, n, "connection")) {
                conn_close |= list_has(buf, v, "close");
                conn_keep |= list_has(buf, v, "keep-alive");
            } else if (nicd_span_ieq(buf, n, "user-agent")) {
                SET_INDEX(h_user_agent);
            }
            break;
        case 13:
            if (nicd_span_ieq(buf, n, "if-none-match")) {
                SET_UNIQUE(h_if_none_match);
            } else if (nicd_span_ieq(buf, n, "authorization")) {
                SET_UNIQUE(h_authorization);
            } else if (nicd_span_ieq(buf, n, "content-range")) {
                if (seen & SEEN_RANGE) {
                    return 400;
                }
                seen |= SEEN_RANGE;
            }
            break;
        case 14:
            if (nicd_span_ieq(buf, n, "content-length")) {
                if (have_cl || parse_content_length(buf, v, &cl) != 0) {
                    return 400;
                }
                have_cl = 1;
                p->content_length = cl;
            }
            break;
        case 17:
            if (nicd_span_ieq(buf, n, "if-modified-since")) {
                SET_UNIQUE(h_if_modified_since);
            } else if (nicd_span_ieq(buf, n, "transfer-encoding")) {
                if (p->version == 10 || (seen & SEEN_TE)) {
                    return 400;
                }
                seen |= SEEN_TE;
                /* "chunked" alone: nginx answers any other coding, and
                 * a list ("identity, chunked", "gzip, chunked"), with 501
                 * (RFC 9112, 6.1: a coding the server does not know),
                 * once the other fields are known good */
                if (!nicd_span_ieq(buf, v, "chunked")) {
                    te_unknown = 1;
                }
                p->chunked = 1;
            }
            break;
        case 15:
            if (nicd_span_ieq(buf, n, "accept-encoding")) {
                SET_INDEX(h_accept_encoding);
            }
            break;
        case 19:
            if (nicd_span_ieq(buf, n, "if-unmodified-since")) {
                SET_UNIQUE(h_if_unmodified_since);
            }
            break;
        }
    }

    /* an absolute-form target's host wins over Host (RFC 9112, 3.2.2),
     * and is held to the same rules */
    if (p->authority.len > 0 && !valid_host(buf, p->authority, 1)) {
        return 400;
    }
    if (p->version == 11 && hosts == 0) {
        return 400;
    }
    if (te_unknown) {
        return 501;
    }
    if (p->chunked && have_cl) {
        return 400; /* request smuggling shape (RFC 9112, 6.3) */
    }

    p->has_body = p->chunked || p->content_length > 0;
    if (p->version == 11) {
        p->keepalive = !conn_close;
    } else {
        p->keepalive = conn_keep && !conn_close;
    }
    return 0;
}

int
nicd_http_method(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (methods[i].len == len && memcmp(name, methods[i].name, len) == 0) {
            return methods[i].method;
        }
    }
    return NICD_M_UNKNOWN;
}

const char *
nicd_http_method_name(int method)
{
    size_t i;

    for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (methods[i].method == method) {
            return methods[i].name;
        }
    }
    return "UNKNOWN";
}

/* a method's characters, as nginx takes them: upper-case letters, "_"
 * and "-" ("get" is a 400 there, "FOO" a 405) */
#define METHOD_CHAR(c) (((c) >= 'A' && (c) <= 'Z') || (c) == '_' || (c) == '-')

int
nicd_http_method_valid(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if (!METHOD_CHAR(name[i])) {
            return 0;
        }
    }
    return len > 0;
}

static void
set_method(nicd_http_req_t *p, const char *buf)
{
    p->method = nicd_http_method(buf + p->method_s.off, p->method_s.len);
}

/*
 * The version after the target: "HTTP/" DIGIT "." DIGIT.  Checked when the
 * line ends, from mark to end.  Returns 0, 400 or 505.
 */
static int
parse_version(nicd_http_req_t *p, const char *buf, uint32_t end)
{
    const char *v = buf + p->mark;
    uint32_t    n = end - p->mark;

    if (n != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.' || v[5] < '0'
        || v[5] > '9' || v[7] < '0' || v[7] > '9') {
        return 400;
    }
    if (v[5] != '1') {
        return 505;
    }
    p->version = v[7] == '0' ? 10 : 11;
    return 0;
}

/*
 * The runs of plain bytes in the target, a field name and a field value,
 * taken without going round the switch for each (most of the parser's
 * time on a small request was that dispatch): the last byte of the run
 * at pos (pos itself when the byte there is none), stopping short of the
 * first position at which the per-byte limits could answer (the line or
 * the field too long, the head full), so they answer at the same byte.
 * A name's odd bytes are noted, a value's end without trailing spaces
 * kept.  Inline with a constant kind, each is its own tight loop.
 */
enum { RUN_TARGET, RUN_NAME, RUN_VALUE };

/* the first position at which a per-byte limit could answer, for a line
 * of at most max bytes begun at line_start (or len, if that comes first) */
static inline uint32_t
limit_stop(const nicd_http_req_t *p, uint32_t line_start, uint32_t max,
           size_t len)
{
    uint32_t stop = line_start + max;

    stop = stop > p->max_head - 1 ? p->max_head - 1 : stop;
    return stop < len ? stop : (uint32_t) len;
}

static inline uint32_t
run(nicd_http_req_t *p, const char *buf, uint32_t pos, size_t len, int kind)
{
    uint32_t stop = limit_stop(
        p, p->line_start, kind == RUN_TARGET ? p->max_line : p->max_field, len);
    unsigned char c = (unsigned char) buf[pos];

    while (pos + 1 < stop
           && (kind == RUN_NAME     ? c != ':' && name_byte(p, c)
               : kind == RUN_TARGET ? c > ' ' && c != 0x7f
                                    : c >= ' ' && c != 0x7f)) {
        if (kind == RUN_VALUE && c != ' ') {
            p->value_end = pos + 1;
        }
        c = (unsigned char) buf[++pos];
    }
    return pos;
}

/*
 * Whether the bytes from pos up to pos + n can be taken in one step, as
 * the switch would take them one by one: they are there, and at none of
 * them could a per-byte limit of the line begun at line_start, or of the
 * head, answer (as run() stops short of it).
 */
static inline int
room_for(const nicd_http_req_t *p, uint32_t line_start, uint32_t pos,
         size_t len, uint32_t n)
{
    return pos + n < limit_stop(p, line_start, p->max_line, len);
}

/* At a method's first byte (pos): "GET " taken at once where room_for()
 * allows, as S_METHOD would take it; the position of its space, else pos
 * (S_METHOD goes on byte by byte) */
static inline uint32_t
get_at_once(nicd_http_req_t *p, const char *buf, uint32_t pos, size_t len)
{
    if (buf[pos] != 'G' || !room_for(p, pos, pos, len, 3)
        || memcmp(buf + pos, "GET ", 4) != 0) {
        return pos;
    }
    p->method_s.len = 3;
    p->method = NICD_M_GET;
    p->state = S_TARGET_START;
    return pos + 3;
}

/* At the space after the target (pos): "HTTP/1.1" or "HTTP/1.0" and CRLF,
 * most lines' end, taken at once where room_for() allows, as S_VERSION
 * and S_LINE_CR would take them; the position of the LF, else pos */
static inline uint32_t
version_at_once(nicd_http_req_t *p, const char *buf, uint32_t pos, size_t len)
{
    if (!room_for(p, p->line_start, pos, len, 10)
        || memcmp(buf + pos + 1, "HTTP/1.", 7) != 0
        || (buf[pos + 8] != '1' && buf[pos + 8] != '0') || buf[pos + 9] != '\r'
        || buf[pos + 10] != '\n') {
        return pos;
    }
    p->version = buf[pos + 8] == '0' ? 10 : 11;
    p->line.off = p->line_start;
    p->line.len = pos + 9 - p->line_start;
    p->line_start = pos + 11;
    p->state = S_FIELD_START;
    return pos + 10;
}

/*
 * The limits after the byte at pos, checked per byte so that a slow
 * sender cannot grow a line past them between two calls: 414 for the
 * request line, 431 for a field or the head (its final LF included, the
 * head must fit in max_head bytes: the caller's buffer is no larger);
 * else 0.
 */
static inline int
over_limit(const nicd_http_req_t *p, uint32_t pos)
{
    if (p->state <= S_VERSION && p->state != S_START
        && pos - p->line_start >= p->max_line) {
        return 414;
    }
    if (p->state >= S_NAME && pos - p->line_start >= p->max_field) {
        return 431;
    }
    return pos + 1 >= p->max_head ? 431 : 0;
}

int
nicd_http_parse(nicd_http_req_t *p, const char *buf, size_t len)
{
    uint32_t      pos = p->pos;
    uint32_t      end;
    unsigned char c;
    int           rc;

    if (len > p->max_head + 2) {
        /* the caller never needs to hand us more than a head can hold */
        len = p->max_head + 2;
    }

    for (; pos < len; pos++) {
        c = (unsigned char) buf[pos];

        switch (p->state) {
        case S_START:
            if (c == '\r' || c == '\n') {
                if (pos >= 64) {
                    return 400; /* not "a few" empty lines */
                }
                break;
            }
            if (!METHOD_CHAR(c)) {
                return 400;
            }
            p->line_start = pos;
            p->method_s.off = pos;
            p->state = S_METHOD;
            pos = get_at_once(p, buf, pos, len);
            break;

        case S_METHOD:
            if (c == ' ') {
                p->method_s.len = pos - p->method_s.off;
                set_method(p, buf);
                p->state = S_TARGET_START;
            } else if (!METHOD_CHAR(c)) {
                return 400;
            }
            break;

        case S_TARGET_START:
            if (c <= ' ' || c == 0x7f) {
                return 400;
            }
            p->target.off = pos;
            p->state = S_TARGET;
            break;

        case S_TARGET:
            c = (unsigned char) buf[pos = run(p, buf, pos, len, RUN_TARGET)];
            if (c == ' ') {
                p->target.len = pos - p->target.off;
                p->mark = pos + 1;
                p->state = S_VERSION;
                pos = version_at_once(p, buf, pos, len);
            } else if (c < ' ' || c == 0x7f) {
                /* CR or LF here is an HTTP/0.9 request: not supported */
                return 400;
            }
            break;

        case S_VERSION:
            if (c == '\r' || c == '\n') {
                rc = parse_version(p, buf, pos);
                if (rc != 0) {
                    return rc;
                }
                p->line.off = p->line_start;
                p->line.len = pos - p->line_start;
                p->state = c == '\r' ? S_LINE_CR : S_FIELD_START;
                if (c == '\n') {
                    p->line_start = pos + 1;
                }
            } else if (pos - p->mark >= 8) {
                return 400; /* longer than "HTTP/1.1" */
            }
            break;

        case S_LINE_CR:
            if (c != '\n') {
                return 400;
            }
            p->line_start = pos + 1;
            p->state = S_FIELD_START;
            break;

        case S_FIELD_START:
            if (c == '\r') {
                p->line_start = pos;
                p->state = S_HEAD_CR;
                break;
            }
            if (c == '\n') {
                goto done;
            }
            if (c == ':' || !name_byte(p, c)) {
                return 400; /* obs-fold, whitespace or no name */
            }
            if (p->nheaders == NICD_HTTP_MAX_HEADERS) {
                return 431;
            }
            p->line_start = pos;
            p->headers[p->nheaders].name.off = pos;
            p->state = S_NAME;
            break;

        case S_NAME:
            c = (unsigned char) buf[pos = run(p, buf, pos, len, RUN_NAME)];
            if (c == ':') {
                p->headers[p->nheaders].name.len =
                    pos - p->headers[p->nheaders].name.off;
                p->state = S_VALUE_START;
            } else if (!name_byte(p, c)) {
                return 400;
            }
            break;

        case S_VALUE_START:
            if (c == ' ' || c == '\t') {
                break;
            }
            p->headers[p->nheaders].value.off = pos;
            p->value_end = pos;
            p->state = S_VALUE;
            /* fall through */

        case S_VALUE:
            c = (unsigned char) buf[pos = run(p, buf, pos, len, RUN_VALUE)];
            if (c == '\r' || c == '\n') {
                p->headers[p->nheaders].value.len =
                    p->value_end - p->headers[p->nheaders].value.off;
                p->nheaders++;
                if (c == '\r') {
                    p->state = S_FIELD_CR;
                } else {
                    p->state = S_FIELD_START;
                }
                break;
            }
            if ((c < ' ' && c != '\t') || c == 0x7f) {
                return 400;
            }
            if (c != ' ' && c != '\t') {
                p->value_end = pos + 1;
            }
            break;

        case S_FIELD_CR:
            if (c != '\n') {
                return 400;
            }
            p->state = S_FIELD_START;
            break;

        case S_HEAD_CR:
            if (c != '\n') {
                return 400;
            }
            goto done;
        }

        if ((rc = over_limit(p, pos)) != 0) {
            return rc;
        }
    }

    p->pos = pos;
    return NICD_HTTP_AGAIN;

done:
    end = pos + 1;
    p->pos = end;
    p->head_len = end;

    if ((rc = split_target(p, buf)) != 0 || (rc = finish_head(p, buf)) != 0) {
        return rc;
    }
    return NICD_HTTP_DONE;
}
