/*
 * Unit tests of src/server/http/hpack.c: the examples of RFC 7541's
 * Appendix C, the errors a decoder must refuse, and blocks of random
 * fields through both directions with libnghttp2 as the other end (its
 * deflater's blocks decoded here, this encoder's by its inflater), table
 * size changes included, so the two tables are checked to stay alike.
 */

#include "config.h"
#include "server/http/hpack.c"
#include "harness.h"

#if defined(HAVE_NGHTTP2)
#include "hpack_oracle.h"
#endif

#define MAXF 64

typedef struct {
    char   name[512];
    size_t nlen;
    char   value[2048];
    size_t vlen;
    int    never;
} tfield_t;

typedef struct {
    tfield_t f[MAXF];
    int      n;
    int      overflow;
} tlist_t;

static void
collect(void *arg, const nicd_hpack_field_t *f)
{
    tlist_t *l = arg;

    if (l->n == MAXF || f->nlen > 512 || f->vlen > 2048) {
        l->overflow = 1;
        return;
    }
    memcpy(l->f[l->n].name, f->name, f->nlen);
    l->f[l->n].nlen = f->nlen;
    memcpy(l->f[l->n].value, f->value, f->vlen);
    l->f[l->n].vlen = f->vlen;
    l->f[l->n].never = f->never_indexed;
    l->n++;
}

/* hex digits, spaces ignored, into out; the length */
static size_t
unhex(const char *s, uint8_t *out)
{
    size_t n = 0;
    int    hi = -1, v;

    for (; *s; s++) {
        if (*s == ' ') {
            continue;
        }
        v = *s <= '9' ? *s - '0' : *s - 'a' + 10;
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t) (hi << 4 | v);
            hi = -1;
        }
    }
    return n;
}

static int
field_is(const tlist_t *l, int i, const char *name, const char *value)
{
    return i < l->n && l->f[i].nlen == strlen(name)
           && memcmp(l->f[i].name, name, l->f[i].nlen) == 0
           && l->f[i].vlen == strlen(value)
           && memcmp(l->f[i].value, value, l->f[i].vlen) == 0;
}

static int
decode_hex(nicd_hpack_decoder_t *d, const char *hex, tlist_t *l)
{
    uint8_t b[256];
    size_t  n = unhex(hex, b);

    memset(l, 0, sizeof(*l));
    return nicd_hpack_decode(d, b, n, collect, l);
}

/* RFC 7541, C.4.1 and C.6.1 strings, and every byte value both ways */
static void
test_huffman(void)
{
    static const struct {
        const char *text, *hex;
    } cases[] = {
        { "www.example.com", "f1e3c2e5f23a6ba0ab90f4ff" },
        { "no-cache", "a8eb10649cbf" },
        { "custom-key", "25a849e95ba97d7f" },
        { "custom-value", "25a849e95bb8e8b4bf" },
        { "302", "6402" },
        { "private", "aec3771a4b" },
    };
    uint8_t expect[64], out[1024], all[256];
    char    text[2048];
    size_t  k, n;
    long    r;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        n = unhex(cases[k].hex, expect);
        CHECK_INT(nicd_hpack_huff_len((const uint8_t *) cases[k].text,
                                      strlen(cases[k].text)),
                  n);
        CHECK_INT(nicd_hpack_huff_encode((const uint8_t *) cases[k].text,
                                         strlen(cases[k].text), out),
                  n);
        CHECK(memcmp(out, expect, n) == 0);
        r = nicd_hpack_huff_decode(expect, n, text);
        CHECK_INT(r, (long) strlen(cases[k].text));
        CHECK(r > 0 && memcmp(text, cases[k].text, (size_t) r) == 0);
    }
    for (k = 0; k < 256; k++) {
        all[k] = (uint8_t) (255 - k);
    }
    n = nicd_hpack_huff_encode(all, 256, out);
    CHECK_INT(n, nicd_hpack_huff_len(all, 256));
    r = nicd_hpack_huff_decode(out, n, text);
    CHECK_INT(r, 256);
    CHECK(r == 256 && memcmp(text, all, 256) == 0);
    CHECK_INT(nicd_hpack_huff_decode(out, 0, text), 0);
}

static void
test_huffman_refused(void)
{
    uint8_t b[8];
    char    text[16];

    b[0] = 0x18; /* 'a' (00011) then padding of zeros */
    CHECK_INT(nicd_hpack_huff_decode(b, 1, text), -1);
    b[0] = 0x1f; /* 'a' then 3 ones: fine */
    CHECK_INT(nicd_hpack_huff_decode(b, 1, text), 1);
    b[1] = 0xff; /* then 8 more ones: padding longer than 7 bits */
    CHECK_INT(nicd_hpack_huff_decode(b, 2, text), -1);
    memset(b, 0xff, 4); /* EOS (30 ones) is never in a string */
    CHECK_INT(nicd_hpack_huff_decode(b, 4, text), -1);
    b[0] = 0xff; /* a lone byte of ones: 8 bits of padding */
    CHECK_INT(nicd_hpack_huff_decode(b, 1, text), -1);
}

/* RFC 7541, C.3 (plain) and C.4 (Huffman): three requests each */
static void
test_rfc_requests(void)
{
    static const char *blocks[2][3] = {
        { "828684410f7777772e6578616d706c652e636f6d",
          "828684be58086e6f2d6361636865",
          "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565" },
        { "828684418cf1e3c2e5f23a6ba0ab90f4ff",
          "828684be5886a8eb10649cbf",
          "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf" },
    };
    nicd_hpack_decoder_t d;
    tlist_t              l;
    int                  h;

    for (h = 0; h < 2; h++) {
        nicd_hpack_decoder_init(&d, 4096);
        CHECK_INT(decode_hex(&d, blocks[h][0], &l), NICD_HPACK_OK);
        CHECK_INT(l.n, 4);
        CHECK(field_is(&l, 0, ":method", "GET"));
        CHECK(field_is(&l, 1, ":scheme", "http"));
        CHECK(field_is(&l, 2, ":path", "/"));
        CHECK(field_is(&l, 3, ":authority", "www.example.com"));
        CHECK_INT(d.t.size, 57);
        CHECK_INT(decode_hex(&d, blocks[h][1], &l), NICD_HPACK_OK);
        CHECK_INT(l.n, 5);
        CHECK(field_is(&l, 3, ":authority", "www.example.com"));
        CHECK(field_is(&l, 4, "cache-control", "no-cache"));
        CHECK_INT(d.t.size, 110);
        CHECK_INT(decode_hex(&d, blocks[h][2], &l), NICD_HPACK_OK);
        CHECK_INT(l.n, 5);
        CHECK(field_is(&l, 1, ":scheme", "https"));
        CHECK(field_is(&l, 2, ":path", "/index.html"));
        CHECK(field_is(&l, 3, ":authority", "www.example.com"));
        CHECK(field_is(&l, 4, "custom-key", "custom-value"));
        CHECK_INT(d.t.size, 164);
        CHECK_INT(d.t.n, 3);
        nicd_hpack_decoder_free(&d);
    }
}

static void
test_decode_refused(void)
{
    static const char *bad[] = {
        "80",               /* index 0 */
        "be",               /* index 62, an empty dynamic table */
        "ff8001",           /* an index far past both tables */
        "823f",             /* a size update cut short, after a field */
        "8220",             /* a size update after a field */
        "3fe21f",           /* a size update to 4097, past the limit */
        "4085616263",       /* a name of 5 bytes where 3 are left */
        "400161",           /* a name and no value */
        "00016181ff",       /* a Huffman value of padding alone, 8 bits */
        "ffffffffffff7f",   /* an integer past 2^28 */
        "ff80808001",       /* 4 bytes after the prefix: too long */
        "0f",               /* an index cut short */
        "00",               /* a literal without its name */
    };
    nicd_hpack_decoder_t d;
    tlist_t              l;
    size_t               k;

    for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        nicd_hpack_decoder_init(&d, 4096);
        if (decode_hex(&d, bad[k], &l) != NICD_HPACK_ERROR) {
            h_current_failed = 1;
            fprintf(stderr, "block %s was not refused\n", bad[k]);
        }
        nicd_hpack_decoder_free(&d);
    }
    /* what is allowed: two size updates at the start, to 0 and back */
    nicd_hpack_decoder_init(&d, 4096);
    CHECK_INT(decode_hex(&d, "203fe11f82", &l), NICD_HPACK_OK);
    CHECK_INT(l.n, 1);
    CHECK_INT(d.t.max, 4096);
    CHECK_INT(decode_hex(&d, "", &l), NICD_HPACK_OK);
    nicd_hpack_decoder_free(&d);
}

/* a block cut short is judged on what it holds */
static void
test_scan(void)
{
    uint8_t b[16];
    size_t  n;

    n = unhex("ffffffff", b); /* an index with 3 bytes more to come */
    CHECK_INT(nicd_hpack_scan(b, n), -1);
    n = unhex("42ffffffff", b); /* a value length likewise */
    CHECK_INT(nicd_hpack_scan(b, n), -1);
    n = unhex("82ffffff", b); /* not yet too long: wait */
    CHECK_INT(nicd_hpack_scan(b, n), 0);
    n = unhex("8286400361", b); /* a name cut short */
    CHECK_INT(nicd_hpack_scan(b, n), 0);
    n = unhex("ff808001", b); /* the longest integer allowed */
    CHECK_INT(nicd_hpack_scan(b, n), 0);
}

/* RFC 7541, 4.4: a new entry named after the entry it evicts */
static void
test_evicted_name(void)
{
    nicd_hpack_decoder_t d;
    tlist_t              l;

    nicd_hpack_decoder_init(&d, 4096);
    /* max 64, then aaaa: bbbb (40), then [62]: cccc (40) evicts [62] */
    CHECK_INT(decode_hex(&d, "3f21 400461616161 0462626262 7e 0463636363",
                         &l),
              NICD_HPACK_OK);
    CHECK_INT(l.n, 2);
    CHECK(field_is(&l, 0, "aaaa", "bbbb"));
    CHECK(field_is(&l, 1, "aaaa", "cccc"));
    CHECK_INT(d.t.n, 1);
    CHECK_INT(decode_hex(&d, "be", &l), NICD_HPACK_OK);
    CHECK(field_is(&l, 0, "aaaa", "cccc"));
    /* an entry larger than the table empties it */
    CHECK_INT(decode_hex(&d, "40 0a61616161616161616161 21"
                             "616161616161616161616161616161616161616161616161"
                             "616161616161616161",
                         &l),
              NICD_HPACK_OK);
    CHECK_INT(l.n, 1);
    CHECK_INT(d.t.n, 0);
    CHECK_INT(d.t.size, 0);
    CHECK_INT(decode_hex(&d, "be", &l), NICD_HPACK_ERROR);
    nicd_hpack_decoder_free(&d);
}

static size_t
encode_all(nicd_hpack_encoder_t *e, const nicd_hpack_field_t *f, size_t n,
           uint8_t *out)
{
    size_t len = nicd_hpack_encode_begin(e, out), k;

    for (k = 0; k < n; k++) {
        len += nicd_hpack_encode(e, out + len, &f[k]);
    }
    return len;
}

/* the second response's repeated fields are one byte each */
static void
test_encoder_indexes(void)
{
    static const nicd_hpack_field_t f[] = {
        { "server", 6, "nicd", 4, 0 },
        { "date", 4, "Sun, 29 Nov 2026 02:00:00 GMT", 29, 0 },
        { "content-type", 12, "text/html", 9, 0 },
        { "content-length", 14, "1024", 4, 0 },
        { "accept-ranges", 13, "bytes", 5, 0 },
        { "x-secret", 8, "token", 5, 1 },
    };
    nicd_hpack_encoder_t e;
    nicd_hpack_decoder_t d;
    uint8_t              out[512];
    size_t               n1, n2, k;
    tlist_t              l;

    nicd_hpack_encoder_init(&e, 4096);
    nicd_hpack_decoder_init(&d, 4096);
    CHECK_INT(nicd_hpack_encode_status(&e, out, 200), 1);
    CHECK_INT(out[0], 0x88);
    n1 = encode_all(&e, f, 6, out);
    CHECK_INT(e.t.n, 4); /* not content-length, not the secret */
    memset(&l, 0, sizeof(l));
    CHECK_INT(nicd_hpack_decode(&d, out, n1, collect, &l), NICD_HPACK_OK);
    CHECK_INT(l.n, 6);
    for (k = 0; k < 6 && k < (size_t) l.n; k++) {
        CHECK(l.f[k].nlen == f[k].nlen && l.f[k].vlen == f[k].vlen
              && memcmp(l.f[k].value, f[k].value, f[k].vlen) == 0);
    }
    CHECK_INT(l.f[5].never, 1);
    n2 = encode_all(&e, f, 6, out);
    /* 4 indexed bytes, content-length 2+1+3 (a 4-bit prefix of 28),
     * the secret 1+1+6+1+4 (Huffman) */
    CHECK_INT(n2, 4 + 6 + 13);
    CHECK(n2 < n1);
    memset(&l, 0, sizeof(l));
    CHECK_INT(nicd_hpack_decode(&d, out, n2, collect, &l), NICD_HPACK_OK);
    CHECK(field_is(&l, 2, "content-type", "text/html"));
    CHECK(field_is(&l, 5, "x-secret", "token"));
    /* a status not in the static table, indexed after its first time */
    CHECK_INT(nicd_hpack_encode_status(&e, out, 302), 4);
    CHECK_INT(nicd_hpack_encode_status(&e, out, 302), 1);
    nicd_hpack_encoder_free(&e);
    nicd_hpack_decoder_free(&d);
}

#if defined(HAVE_NGHTTP2)

static uint64_t rng = 88172645463325252ull;

static unsigned
rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned) (rng % n);
}

static const char *names[] = {
    ":method",      ":path",         ":authority",     ":scheme",
    "user-agent",   "accept",        "cookie",         "content-type",
    "x-custom-one", "x-trace-id",    "accept-encoding", "cache-control",
    "if-none-match", "authorization", "x",             "a-long-header-name-of-some-size",
};

static char pool[8][64];

/* a random field: names mostly from a list, values often repeated */
static void
random_field(nghttp2_nv *nv, nicd_hpack_field_t *f, char *vbuf)
{
    size_t vlen, k;

    f->name = names[rnd(16)];
    f->nlen = strlen(f->name);
    switch (rnd(4)) {
    case 0: /* from a small pool: hits in the tables */
        f->value = pool[rnd(8)];
        vlen = strlen(f->value);
        break;
    case 1: /* any bytes */
        vlen = rnd(200);
        for (k = 0; k < vlen; k++) {
            vbuf[k] = (char) rnd(256);
        }
        f->value = vbuf;
        break;
    case 2: /* long printable: evictions */
        vlen = 100 + rnd(1500);
        for (k = 0; k < vlen; k++) {
            vbuf[k] = (char) (' ' + rnd(95));
        }
        f->value = vbuf;
        break;
    default:
        f->value = f->name == names[0] ? "GET" : "gzip, deflate";
        vlen = strlen(f->value);
    }
    f->vlen = vlen;
    f->never_indexed = rnd(10) == 0;
    nv->name = (uint8_t *) f->name;
    nv->namelen = f->nlen;
    nv->value = (uint8_t *) f->value;
    nv->valuelen = f->vlen;
    nv->flags = f->never_indexed ? NGHTTP2_NV_FLAG_NO_INDEX
                                 : NGHTTP2_NV_FLAG_NONE;
}

/*
 * l holds the fields f; never-indexed ones arrive so, and others too
 * unless strict (nghttp2's deflater keeps short cookies and every
 * authorization out of the tables by its own choice)
 */
static int
same(const tlist_t *l, const nicd_hpack_field_t *f, size_t n, int strict)
{
    size_t k;

    if (l->overflow || (size_t) l->n != n) {
        return 0;
    }
    for (k = 0; k < n; k++) {
        if (l->f[k].nlen != f[k].nlen || l->f[k].vlen != f[k].vlen
            || memcmp(l->f[k].name, f[k].name, f[k].nlen) != 0
            || memcmp(l->f[k].value, f[k].value, f[k].vlen) != 0
            || (l->f[k].never != f[k].never_indexed
                && (strict || f[k].never_indexed))) {
            return 0;
        }
    }
    return 1;
}

/* nghttp2's inflater over a block, its fields into l; -1 on its error */
static int
inflate_block(nghttp2_hd_inflater *inf, uint8_t *in, size_t len, tlist_t *l)
{
    memset(l, 0, sizeof(*l));
    return oracle_inflate(inf, in, len, collect, l);
}

static const size_t sizes[] = { 0, 64, 256, 1000, 4096, 4096, 4096, 8192 };

/* nghttp2's blocks, decoded here, through table size changes */
static void
test_against_nghttp2_deflater(void)
{
    nghttp2_hd_deflater *def;
    nicd_hpack_decoder_t d;
    nghttp2_nv           nv[MAXF];
    nicd_hpack_field_t   f[MAXF];
    static char          vb[MAXF][2048];
    static uint8_t       out[256 * 1024];
    tlist_t              l;
    size_t               n, k, blocks, bad = 0;
    ssize_t              len;

    for (k = 0; k < 8; k++) {
        snprintf(pool[k], sizeof(pool[k]), "value-%zu-%s", k,
                 k % 2 ? "x" : "a-longer-one");
    }
    CHECK_INT(nghttp2_hd_deflate_new(&def, 4096), 0);
    nicd_hpack_decoder_init(&d, 4096);
    for (blocks = 0; blocks < 3000; blocks++) {
        if (rnd(50) == 0) {
            nghttp2_hd_deflate_change_table_size(def, sizes[rnd(7)]);
        }
        n = 1 + rnd(20);
        for (k = 0; k < n; k++) {
            random_field(&nv[k], &f[k], vb[k]);
        }
        len = nghttp2_hd_deflate_hd(def, out, sizeof(out), nv, n);
        CHECK(len >= 0);
        memset(&l, 0, sizeof(l));
        if (len < 0
            || nicd_hpack_decode(&d, out, (size_t) len, collect, &l) != 0
            || !same(&l, f, n, 0)) {
            if (bad++ == 0) {
                fprintf(stderr, "block %zu: %d fields of %zu, overflow %d\n", blocks, l.n, n, l.overflow);
                for (k = 0; k < n && k < (size_t) l.n; k++) {
                    fprintf(stderr, " %zu: %.*s=%zu/%zu never %d/%d\n", k, (int) f[k].nlen, f[k].name, f[k].vlen, l.f[k].vlen, f[k].never_indexed, l.f[k].never);
                }
            }
        }
    }
    CHECK_INT(bad, 0);
    nghttp2_hd_deflate_del(def);
    nicd_hpack_decoder_free(&d);
}

/* this encoder's blocks, decoded by nghttp2, through SETTINGS changes */
static void
test_against_nghttp2_inflater(void)
{
    nghttp2_hd_inflater *inf;
    nicd_hpack_encoder_t e;
    nghttp2_nv           nv[MAXF];
    nicd_hpack_field_t   f[MAXF];
    static char          vb[MAXF][2048];
    static uint8_t       out[256 * 1024];
    tlist_t              l;
    size_t               n, k, blocks, len, bad = 0, bound, changes = 0;
    size_t               s1, s2;

    CHECK_INT(nghttp2_hd_inflate_new(&inf), 0);
    nicd_hpack_encoder_init(&e, 4096);
    for (blocks = 0; blocks < 3000; blocks++) {
        if (rnd(40) == 0) { /* one or two SETTINGS before the block */
            s1 = sizes[rnd(8)];
            nicd_hpack_encoder_settings(&e, s1);
            nghttp2_hd_inflate_change_table_size(inf, s1);
            if (rnd(2)) {
                s2 = sizes[rnd(8)];
                nicd_hpack_encoder_settings(&e, s2);
                nghttp2_hd_inflate_change_table_size(inf, s2);
            }
            changes++;
        }
        n = 1 + rnd(20);
        len = nicd_hpack_encode_begin(&e, out);
        CHECK(len <= 12);
        for (k = 0; k < n; k++) {
            random_field(&nv[k], &f[k], vb[k]);
            bound = NICD_HPACK_BOUND(f[k].nlen, f[k].vlen);
            s1 = nicd_hpack_encode(&e, out + len, &f[k]);
            if (s1 > bound) {
                bad++;
            }
            len += s1;
        }
        if (inflate_block(inf, out, len, &l) != 0 || !same(&l, f, n, 1)) {
            bad++;
        }
    }
    CHECK(changes > 10);
    CHECK_INT(bad, 0);
    nghttp2_hd_inflate_del(inf);
    nicd_hpack_encoder_free(&e);
}

#else

static void
test_against_nghttp2_deflater(void)
{
    SKIP("built without libnghttp2");
}

static void
test_against_nghttp2_inflater(void)
{
    SKIP("built without libnghttp2");
}

#endif

int
main(void)
{
    RUN(test_huffman);
    RUN(test_huffman_refused);
    RUN(test_rfc_requests);
    RUN(test_decode_refused);
    RUN(test_scan);
    RUN(test_evicted_name);
    RUN(test_encoder_indexes);
    RUN(test_against_nghttp2_deflater);
    RUN(test_against_nghttp2_inflater);
    return harness_report("test_hpack");
}
