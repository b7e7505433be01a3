/*
 * HPACK (RFC 7541).  The dynamic table keeps its entries in a ring of
 * descriptors and their bytes in one buffer, the oldest first: entries
 * leave from the oldest end, so the live bytes stay contiguous and a new
 * entry is appended after them; when the buffer's end is reached the
 * live bytes move to its start (grown so that a move happens at most
 * once per buffer's worth of bytes added).  A new entry may take its
 * name from an entry it evicts (RFC 7541, 4.4): its bytes are copied
 * before any entry leaves.
 *
 * The Huffman code of Appendix B is canonical (codes given in order of
 * length, then of symbol), so the codes follow from the lengths, the
 * only data kept here; decoding takes the first 8 bits through a table
 * and longer codes by comparing against each length's last code.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/hpack.h"

/* RFC 7541, Appendix B: the code length of each symbol, 256 being EOS */
/* clang-format off */
static const uint8_t huff_bits[257] = {
    /*   0 */ 13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
    /*  16 */ 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
    /*  32 */ 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
    /*  48 */ 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
    /*  64 */ 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
    /*  80 */ 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
    /*  96 */ 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
    /* 112 */ 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
    /* 128 */ 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
    /* 144 */ 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
    /* 160 */ 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
    /* 176 */ 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
    /* 192 */ 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
    /* 208 */ 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
    /* 224 */ 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
    /* 240 */ 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
    /* 256 */ 30,
};
/* clang-format on */

#define HUFF_MIN 5
#define HUFF_MAX 30
#define HUFF_EOS 256

static uint32_t huff_code[257];
static uint16_t huff_sorted[257];         /* by (length, symbol) */
static uint32_t huff_first[HUFF_MAX + 1]; /* each length's first code */
static uint32_t huff_limit[HUFF_MAX + 1]; /* one past its last */
static uint16_t huff_start[HUFF_MAX + 1]; /* its first in huff_sorted */
static uint16_t huff_fast[256]; /* first 8 bits: length << 8 | symbol */

/* RFC 7541, Appendix A */
typedef struct {
    const char *name;
    uint8_t     nlen;
    const char *value;
    uint8_t     vlen;
} static_field_t;

#define SF(n, v)                                                               \
    {                                                                          \
        n, sizeof(n) - 1, v, sizeof(v) - 1                                     \
    }
#define STATIC_N 61

static const static_field_t static_table[STATIC_N + 1] = {
    {NULL, 0, NULL, 0},
    SF(":authority", ""),
    SF(":method", "GET"),
    SF(":method", "POST"),
    SF(":path", "/"),
    SF(":path", "/index.html"),
    SF(":scheme", "http"),
    SF(":scheme", "https"),
    SF(":status", "200"),
    SF(":status", "204"),
    SF(":status", "206"),
    SF(":status", "304"),
    SF(":status", "400"),
    SF(":status", "404"),
    SF(":status", "500"),
    SF("accept-charset", ""),
    SF("accept-encoding", "gzip, deflate"),
    SF("accept-language", ""),
    SF("accept-ranges", ""),
    SF("accept", ""),
    SF("access-control-allow-origin", ""),
    SF("age", ""),
    SF("allow", ""),
    SF("authorization", ""),
    SF("cache-control", ""),
    SF("content-disposition", ""),
    SF("content-encoding", ""),
    SF("content-language", ""),
    SF("content-length", ""),
    SF("content-location", ""),
    SF("content-range", ""),
    SF("content-type", ""),
    SF("cookie", ""),
    SF("date", ""),
    SF("etag", ""),
    SF("expect", ""),
    SF("expires", ""),
    SF("from", ""),
    SF("host", ""),
    SF("if-match", ""),
    SF("if-modified-since", ""),
    SF("if-none-match", ""),
    SF("if-range", ""),
    SF("if-unmodified-since", ""),
    SF("last-modified", ""),
    SF("link", ""),
    SF("location", ""),
    SF("max-forwards", ""),
    SF("proxy-authenticate", ""),
    SF("proxy-authorization", ""),
    SF("range", ""),
    SF("referer", ""),
    SF("refresh", ""),
    SF("retry-after", ""),
    SF("server", ""),
    SF("set-cookie", ""),
    SF("strict-transport-security", ""),
    SF("transfer-encoding", ""),
    SF("user-agent", ""),
    SF("vary", ""),
    SF("via", ""),
    SF("www-authenticate", ""),
};

/* the static entries by name length, each chain in index order */
#define STATIC_NLEN_MAX 32
static uint8_t static_head[STATIC_NLEN_MAX];
static uint8_t static_next[STATIC_N + 1];

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void
tables_make(void)
{
    uint32_t code = 0;
    unsigned len, sym, n = 0, j;

    for (len = HUFF_MIN; len <= HUFF_MAX; len++) {
        huff_start[len] = (uint16_t) n;
        huff_first[len] = code;
        for (sym = 0; sym <= HUFF_EOS; sym++) {
            if (huff_bits[sym] != len) {
                continue;
            }
            huff_sorted[n++] = (uint16_t) sym;
            huff_code[sym] = code++;
        }
        huff_limit[len] = code;
        code <<= 1;
    }
    for (sym = 0; sym < HUFF_EOS; sym++) {
        len = huff_bits[sym];
        if (len > 8) {
            continue;
        }
        for (j = 0; j < 1u << (8 - len); j++) {
            huff_fast[huff_code[sym] << (8 - len) | j] =
                (uint16_t) (len << 8 | sym);
        }
    }
    for (j = STATIC_N; j > 0; j--) {
        len = static_table[j].nlen;
        static_next[j] = static_head[len];
        static_head[len] = (uint8_t) j;
    }
}

static void
tables_init(void)
{
    pthread_once(&tables_once, tables_make);
}

size_t
nicd_hpack_huff_len(const uint8_t *s, size_t len)
{
    size_t bits = 0, i;

    for (i = 0; i < len; i++) {
        bits += huff_bits[s[i]];
    }
    return (bits + 7) / 8;
}

size_t
nicd_hpack_huff_encode(const uint8_t *s, size_t len, uint8_t *out)
{
    uint64_t acc = 0;
    unsigned n = 0;
    uint8_t *p = out;
    size_t   i;

    tables_init();
    for (i = 0; i < len; i++) {
        acc = acc << huff_bits[s[i]] | huff_code[s[i]];
        n += huff_bits[s[i]];
        while (n >= 8) {
            n -= 8;
            *p++ = (uint8_t) (acc >> n);
        }
    }
    if (n > 0) { /* padded with the most significant bits of EOS */
        *p++ = (uint8_t) (acc << (8 - n) | 0xffu >> n);
    }
    return (size_t) (p - out);
}

long
nicd_hpack_huff_decode(const uint8_t *in, size_t len, char *out)
{
    uint64_t acc = 0; /* the bits not yet decoded, from the top */
    unsigned bits = 0, l, sym, f;
    uint32_t c = 0;
    size_t   i = 0;
    char    *p = out;

    tables_init();
    for (;;) {
        while (bits <= 56 && i < len) {
            acc |= (uint64_t) in[i++] << (56 - bits);
            bits += 8;
        }
        if (bits == 0) {
            break;
        }
        f = huff_fast[acc >> 56];
        if (f != 0 && f >> 8 <= bits) {
            l = f >> 8;
            sym = f & 0xff;
        } else {
            for (l = 9; l <= HUFF_MAX; l++) {
                if (l > bits) {
                    break;
                }
                c = (uint32_t) (acc >> (64 - l));
                if (c < huff_limit[l]) {
                    break;
                }
            }
            if (l > bits) {
                break; /* what is left must be padding */
            }
            sym = huff_sorted[huff_start[l] + c - huff_first[l]];
            if (sym == HUFF_EOS) {
                return -1; /* RFC 7541, 5.2 */
            }
        }
        *p++ = (char) sym;
        acc <<= l;
        bits -= l;
    }
    /* at most 7 bits of padding, all ones (the start of EOS) */
    if (bits > 7 || (bits > 0 && acc >> (64 - bits) != (1u << bits) - 1)) {
        return -1;
    }
    return (long) (p - out);
}

#define INT_LONG  -1 /* more than 3 bytes after the prefix */
#define INT_SHORT -2 /* cut short */

/*
 * RFC 7541, 5.1: an integer of an n-bit prefix, or INT_LONG, INT_SHORT.
 * At most 3 bytes follow the prefix (values up to 2^21 and some, as
 * nginx reads them): no length, index or table size is larger.
 */
static long
int_decode(const uint8_t *in, size_t len, size_t *i, unsigned n)
{
    uint32_t mask = (1u << n) - 1, v;
    unsigned m = 0;
    uint8_t  b;

    if (*i >= len) {
        return INT_SHORT;
    }
    v = in[(*i)++] & mask;
    if (v < mask) {
        return (long) v;
    }
    do {
        if (m > 14) {
            return INT_LONG;
        }
        if (*i >= len) {
            return INT_SHORT;
        }
        b = in[(*i)++];
        v += (uint32_t) (b & 0x7f) << m;
        m += 7;
    } while (b & 0x80);
    return (long) v;
}

static size_t
int_encode(uint8_t *out, uint8_t first, unsigned n, size_t v)
{
    size_t mask = ((size_t) 1 << n) - 1, i = 0;

    if (v < mask) {
        out[0] = (uint8_t) (first | v);
        return 1;
    }
    out[i++] = (uint8_t) (first | mask);
    v -= mask;
    while (v >= 128) {
        out[i++] = (uint8_t) (0x80 | (v & 0x7f));
        v >>= 7;
    }
    out[i++] = (uint8_t) v;
    return i;
}

/* RFC 7541, 5.2: Huffman when it is shorter */
static size_t
str_encode(uint8_t *out, const char *s, size_t len)
{
    size_t hl = nicd_hpack_huff_len((const uint8_t *) s, len), n;

    if (hl < len) {
        n = int_encode(out, 0x80, 7, hl);
        return n + nicd_hpack_huff_encode((const uint8_t *) s, len, out + n);
    }
    n = int_encode(out, 0, 7, len);
    memcpy(out + n, s, len);
    return n + len;
}

/* the dynamic table */

static void
table_init(nicd_hpack_table_t *t, size_t max)
{
    memset(t, 0, sizeof(*t));
    t->max = max;
}

static void
table_free(nicd_hpack_table_t *t)
{
    free(t->ent);
    free(t->bytes);
    memset(t, 0, sizeof(*t));
}

/* index 1 is the newest entry */
static nicd_hpack_entry_t *
table_get(nicd_hpack_table_t *t, size_t idx)
{
    return &t->ent[(t->head + t->n - idx) & (t->cap - 1)];
}

/* entries leave, the oldest first, until the size is at most want */
static void
table_evict(nicd_hpack_table_t *t, size_t want)
{
    nicd_hpack_entry_t *e;

    while (t->n > 0 && t->size > want) {
        e = &t->ent[t->head];
        t->size -= (size_t) e->nlen + e->vlen + 32;
        t->head = (t->head + 1) & (t->cap - 1);
        t->n--;
    }
}

static int
table_grow_ring(nicd_hpack_table_t *t)
{
    uint32_t            cap = t->cap ? t->cap * 2 : 16, k;
    nicd_hpack_entry_t *ent = malloc(cap * sizeof(*ent));

    if (ent == NULL) {
        return -1;
    }
    for (k = 0; k < t->n; k++) {
        ent[k] = t->ent[(t->head + k) & (t->cap - 1)];
    }
    free(t->ent);
    t->ent = ent;
    t->cap = cap;
    t->head = 0;
    return 0;
}

/* make room for need bytes at bend; *name, *value moved with the bytes */
static int
table_room(nicd_hpack_table_t *t, size_t need, const char **name,
           const char **value)
{
    size_t live, ncap, noff = 0, voff = 0, k;
    int    nin, vin;
    char  *b;

    if (t->bytes != NULL && t->bend + need <= t->bcap) {
        return 0;
    }
    nin = t->bytes && *name >= t->bytes && *name < t->bytes + t->bcap;
    vin = t->bytes && *value >= t->bytes && *value < t->bytes + t->bcap;
    noff = nin ? (size_t) (*name - t->bytes) : 0;
    voff = vin ? (size_t) (*value - t->bytes) : 0;
    live = t->n > 0 ? t->ent[t->head].off : t->bend;
    if (live > 0) {
        memmove(t->bytes, t->bytes + live, t->bend - live);
        for (k = 0; k < t->n; k++) {
            t->ent[(t->head + k) & (t->cap - 1)].off -= (uint32_t) live;
        }
        t->bend -= live;
        noff -= nin ? live : 0;
        voff -= vin ? live : 0;
    }
    if (t->bytes == NULL || t->bend + need > t->bcap / 2) {
        ncap = t->bcap ? t->bcap : 256;
        while (ncap < 2 * (t->bend + need)) {
            ncap *= 2;
        }
        b = realloc(t->bytes, ncap);
        if (b == NULL) {
            return -1;
        }
        t->bytes = b;
        t->bcap = ncap;
    }
    *name = nin ? t->bytes + noff : *name;
    *value = vin ? t->bytes + voff : *value;
    return 0;
}

/*
 * Add an entry (RFC 7541, 4.4): 1 added, its bytes' places in *name and
 * *value; 0 too large for the table (which is then empty); -1 no memory.
 */
static int
table_add(nicd_hpack_table_t *t, const char **name, size_t nlen,
          const char **value, size_t vlen, uint32_t hash)
{
    nicd_hpack_entry_t *e;
    size_t              need = nlen + vlen;

    if (need + 32 > t->max) {
        table_evict(t, 0);
        return 0;
    }
    if (table_room(t, need, name, value) != 0
        || (t->n == t->cap && table_grow_ring(t) != 0)) {
        return -1;
    }
    memcpy(t->bytes + t->bend, *name, nlen);
    memcpy(t->bytes + t->bend + nlen, *value, vlen);
    table_evict(t, t->max - need - 32);
    e = &t->ent[(t->head + t->n) & (t->cap - 1)];
    e->off = (uint32_t) t->bend;
    e->nlen = (uint32_t) nlen;
    e->vlen = (uint32_t) vlen;
    e->hash = hash;
    t->n++;
    t->size += need + 32;
    *name = t->bytes + t->bend;
    *value = *name + nlen;
    t->bend += need;
    return 1;
}

/* the field at a 1-based index of both tables; -1 when there is none */
static int
field_at(nicd_hpack_table_t *t, size_t idx, nicd_hpack_field_t *f)
{
    nicd_hpack_entry_t *e;

    if (idx == 0) {
        return -1;
    }
    if (idx <= STATIC_N) {
        f->name = static_table[idx].name;
        f->nlen = static_table[idx].nlen;
        f->value = static_table[idx].value;
        f->vlen = static_table[idx].vlen;
        return 0;
    }
    if (idx - STATIC_N > t->n) {
        return -1;
    }
    e = table_get(t, idx - STATIC_N);
    f->name = t->bytes + e->off;
    f->nlen = e->nlen;
    f->value = f->name + e->nlen;
    f->vlen = e->vlen;
    return 0;
}

/*
 * The start of a block whose end has not come: INT_LONG when an integer
 * in it is already too long (nginx ends such a connection before the
 * rest comes, and so does nghttp2), else 0.  Only lengths are read.
 */
int
nicd_hpack_scan(const uint8_t *in, size_t len)
{
    size_t i = 0, k;
    long   v;
    int    strings;

    while (i < len) {
        if (in[i] & 0x80) {
            v = int_decode(in, len, &i, 7);
            strings = 0;
        } else if ((in[i] & 0xe0) == 0x20) {
            v = int_decode(in, len, &i, 5);
            strings = 0;
        } else {
            v = int_decode(in, len, &i, in[i] & 0x40 ? 6 : 4);
            strings = v == 0 ? 2 : 1;
        }
        for (k = 0; v >= 0 && k < (size_t) strings; k++) {
            v = int_decode(in, len, &i, 7);
            i += v >= 0 ? (size_t) v : 0;
        }
        if (v < 0) {
            return v == INT_LONG ? -1 : 0;
        }
    }
    return 0;
}

/* the decoder */

void
nicd_hpack_decoder_init(nicd_hpack_decoder_t *d, size_t limit)
{
    tables_init();
    table_init(&d->t, limit);
    d->limit = limit;
    d->scratch = NULL;
    d->scap = 0;
}

void
nicd_hpack_decoder_free(nicd_hpack_decoder_t *d)
{
    table_free(&d->t);
    free(d->scratch);
    d->scratch = NULL;
    d->scap = 0;
}

/* a string literal at in[*i], Huffman-decoded at *sp when it is coded */
static int
str_decode(const uint8_t *in, size_t len, size_t *i, const char **s,
           size_t *slen, char **sp)
{
    int  huff;
    long n;

    if (*i >= len) {
        return -1;
    }
    huff = in[*i] & 0x80;
    n = int_decode(in, len, i, 7);
    if (n < 0 || (size_t) n > len - *i) {
        return -1;
    }
    if (!huff) {
        *s = (const char *) in + *i;
        *slen = (size_t) n;
    } else {
        long r = nicd_hpack_huff_decode(in + *i, (size_t) n, *sp);

        if (r < 0) {
            return -1;
        }
        *s = *sp;
        *slen = (size_t) r;
        *sp += r;
    }
    *i += (size_t) n;
    return 0;
}

/* a literal field (RFC 7541, 6.2), its first byte at in[*i] */
static int
literal(nicd_hpack_decoder_t *d, const uint8_t *in, size_t len, size_t *i,
        nicd_hpack_field_t *f)
{
    int   indexing = in[*i] & 0x40;
    long  idx;
    char *sp = d->scratch;

    f->never_indexed = !indexing && (in[*i] & 0x10);
    idx = int_decode(in, len, i, indexing ? 6 : 4);
    if (idx < 0) {
        return -1;
    }
    if (idx > 0) {
        if (field_at(&d->t, (size_t) idx, f) != 0) {
            return -1;
        }
    } else if (str_decode(in, len, i, &f->name, &f->nlen, &sp) != 0) {
        return -1;
    }
    if (str_decode(in, len, i, &f->value, &f->vlen, &sp) != 0) {
        return -1;
    }
    if (indexing
        && table_add(&d->t, &f->name, f->nlen, &f->value, f->vlen, 0) < 0) {
        return -1;
    }
    return 0;
}

int
nicd_hpack_decode(nicd_hpack_decoder_t *d, const uint8_t *in, size_t len,
                  nicd_hpack_emit_pt emit, void *arg)
{
    nicd_hpack_field_t f;
    size_t             i = 0, need = len / 5 * 8 + 8;
    int                fields = 0;
    long               v;

    if (need > d->scap) { /* room for any field's decoded strings */
        char *s = realloc(d->scratch, need);

        if (s == NULL) {
            return NICD_HPACK_ERROR;
        }
        d->scratch = s;
        d->scap = need;
    }
    while (i < len) {
        if (in[i] & 0x80) { /* indexed (6.1) */
            v = int_decode(in, len, &i, 7);
            if (v < 0 || field_at(&d->t, (size_t) v, &f) != 0) {
                return NICD_HPACK_ERROR;
            }
            f.never_indexed = 0;
        } else if ((in[i] & 0xe0) == 0x20) { /* size update (6.3) */
            v = int_decode(in, len, &i, 5);
            if (fields || v < 0 || (size_t) v > d->limit) {
                return NICD_HPACK_ERROR;
            }
            d->t.max = (size_t) v;
            table_evict(&d->t, d->t.max);
            continue;
        } else if (literal(d, in, len, &i, &f) != 0) {
            return NICD_HPACK_ERROR;
        }
        fields = 1;
        emit(arg, &f);
    }
    return NICD_HPACK_OK;
}

/* the encoder */

void
nicd_hpack_encoder_init(nicd_hpack_encoder_t *e, size_t limit)
{
    tables_init();
    table_init(&e->t,
               limit < NICD_HPACK_TABLE_SIZE ? limit : NICD_HPACK_TABLE_SIZE);
    e->limit = limit;
    /* the peer's table starts at 4096: a smaller one must be said */
    e->pending = e->t.max != NICD_HPACK_TABLE_SIZE;
    e->low = e->t.max;
}

void
nicd_hpack_encoder_free(nicd_hpack_encoder_t *e)
{
    table_free(&e->t);
}

/*
 * RFC 7541, 4.2: the first block after a change starts with the
 * smallest maximum the table had since the last block, then the final.
 */
void
nicd_hpack_encoder_settings(nicd_hpack_encoder_t *e, size_t value)
{
    size_t m = value < e->limit ? value : e->limit;

    if (!e->pending) {
        if (m == e->t.max) {
            return;
        }
        e->pending = 1;
        e->low = m;
    } else if (m < e->low) {
        e->low = m;
    }
    table_evict(&e->t, e->low);
    e->t.max = m;
}

size_t
nicd_hpack_encode_begin(nicd_hpack_encoder_t *e, uint8_t *out)
{
    size_t n = 0;

    if (e->pending) {
        n = int_encode(out, 0x20, 5, e->low);
        if (e->low != e->t.max) {
            n += int_encode(out + n, 0x20, 5, e->t.max);
        }
        e->pending = 0;
    }
    return n;
}

size_t
nicd_hpack_encode_status(nicd_hpack_encoder_t *e, uint8_t *out, unsigned status)
{
    nicd_hpack_field_t f;
    char               v[3];
    unsigned           k;

    switch (status) { /* the static table's */
    case 200: k = 8; break;
    case 204: k = 9; break;
    case 206: k = 10; break;
    case 304: k = 11; break;
    case 400: k = 12; break;
    case 404: k = 13; break;
    case 500: k = 14; break;
    default: k = 0;
    }
    if (k != 0) {
        out[0] = (uint8_t) (0x80 | k);
        return 1;
    }
    status %= 1000;
    v[0] = (char) ('0' + status / 100);
    v[1] = (char) ('0' + status / 10 % 10);
    v[2] = (char) ('0' + status % 10);
    f.name = ":status";
    f.nlen = 7;
    f.value = v;
    f.vlen = 3;
    f.never_indexed = 0;
    return nicd_hpack_encode(e, out, &f);
}

/*
 * A filter for the encoder's search, not an identity (a match is
 * compared whole): the lengths, the name's first 8 bytes and the
 * value's first and last 8, so a field of any length costs three steps.
 */
static uint32_t
field_hash(const nicd_hpack_field_t *f)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t       a = 0, b = 0, c = 0, h;

    if (f->nlen > 0) {
        memcpy(&a, f->name, f->nlen < 8 ? f->nlen : 8);
    }
    if (f->vlen > 0) {
        memcpy(&b, f->value, f->vlen < 8 ? f->vlen : 8);
    }
    if (f->vlen > 8) {
        memcpy(&c, f->value + f->vlen - 8, 8);
    }
    h = (a ^ (uint64_t) f->nlen << 56) * k;
    h = (h ^ h >> 29 ^ b) * k;
    h = (h ^ h >> 29 ^ c ^ (uint64_t) f->vlen << 48) * k;
    return (uint32_t) (h ^ h >> 32);
}

/* fields whose values differ from response to response */
static int
worth_indexing(const nicd_hpack_field_t *f, size_t max)
{
    static const struct {
        const char *name;
        size_t      len;
    } skip[] = {
        {"content-length", 14}, {"content-range", 13}, {"etag", 4},
        {"location", 8},        {"set-cookie", 10},    {"age", 3},
        {":path", 5},
    };
    size_t k;

    if (f->never_indexed || f->nlen + f->vlen + 32 > max / 4 * 3) {
        return 0;
    }
    for (k = 0; k < sizeof(skip) / sizeof(skip[0]); k++) {
        if (f->nlen == skip[k].len
            && memcmp(f->name, skip[k].name, f->nlen) == 0) {
            return 0;
        }
    }
    return 1;
}

/* the static index of f's name (0: none), *exact when the value matches */
static size_t
static_find(const nicd_hpack_field_t *f, int *exact)
{
    size_t k, name = 0;

    *exact = 0;
    if (f->nlen >= STATIC_NLEN_MAX) {
        return 0;
    }
    for (k = static_head[f->nlen]; k != 0; k = static_next[k]) {
        if (memcmp(static_table[k].name, f->name, f->nlen) != 0) {
            continue;
        }
        if (static_table[k].vlen == f->vlen
            && memcmp(static_table[k].value, f->value, f->vlen) == 0) {
            *exact = 1;
            return k;
        }
        name = name ? name : k;
    }
    return name;
}

/*
 * The dynamic index of f (*exact), or of its name when want_name (0:
 * none).  The hash is compared first: most fields a server sends are in
 * the table whole, and their names are in the static table.
 */
static size_t
dynamic_find(nicd_hpack_table_t *t, const nicd_hpack_field_t *f, uint32_t hash,
             int want_name, int *exact)
{
    nicd_hpack_entry_t *en;
    const char         *b;
    size_t              k, name = 0;

    *exact = 0;
    for (k = 1; k <= t->n; k++) {
        en = table_get(t, k);
        if (en->nlen != f->nlen) {
            continue;
        }
        b = t->bytes + en->off;
        if (en->hash == hash && en->vlen == f->vlen
            && memcmp(b, f->name, f->nlen) == 0
            && memcmp(b + f->nlen, f->value, f->vlen) == 0) {
            *exact = 1;
            return STATIC_N + k;
        }
        if (want_name && name == 0 && memcmp(b, f->name, f->nlen) == 0) {
            name = STATIC_N + k;
        }
    }
    return name;
}

size_t
nicd_hpack_encode(nicd_hpack_encoder_t *e, uint8_t *out,
                  const nicd_hpack_field_t *f)
{
    size_t      name, dname, n;
    uint32_t    hash = 0;
    int         exact, index;
    const char *nm = f->name, *val = f->value;

    name = static_find(f, &exact);
    if (exact && !f->never_indexed) {
        return int_encode(out, 0x80, 7, name);
    }
    if (e->t.n > 0 && !f->never_indexed) {
        hash = field_hash(f);
        dname = dynamic_find(&e->t, f, hash, name == 0, &exact);
        if (exact) {
            return int_encode(out, 0x80, 7, dname);
        }
        name = name ? name : dname;
    }
    /* the room taken first: an entry the peer adds and we could not
     * would shift every index after it */
    index = worth_indexing(f, e->t.max);
    if (index
        && (table_room(&e->t, f->nlen + f->vlen, &nm, &val) != 0
            || (e->t.n == e->t.cap && table_grow_ring(&e->t) != 0))) {
        index = 0;
    }
    if (index && hash == 0) {
        hash = field_hash(f);
    }
    if (index) {
        n = int_encode(out, 0x40, 6, name);
    } else {
        n = int_encode(out, f->never_indexed ? 0x10 : 0, 4, name);
    }
    if (name == 0) {
        n += str_encode(out + n, f->name, f->nlen);
    }
    n += str_encode(out + n, f->value, f->vlen);
    if (index) {
        (void) table_add(&e->t, &nm, f->nlen, &val, f->vlen, hash);
    }
    return n;
}
