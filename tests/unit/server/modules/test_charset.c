/* Unit tests of src/server/modules/charset.c: maps and recoding */

#include "server/modules/charset.c"
#include "harness.h"
#include "conf_load.h"

/* in recoded by the map from charset a to charset b of c, into out */
static int
recode(nicd_conf_t *c, const char *a, const char *b, const char *in,
       size_t len, nicd_buf_t *out)
{
    const cs_conf_t *h = http_conf(c);
    const table_t   *t = find_table(h, find_charset(h, a, strlen(a)),
                                    find_charset(h, b, strlen(b)));

    out->len = 0;
    return t == NULL ? -2 : t->rc.run(&t->rc, in, len, out);
}

#define SAME(buf, lit)                                                         \
    CHECK((buf).len == sizeof(lit) - 1                                         \
          && memcmp((buf).data, (lit), sizeof(lit) - 1) == 0)

static void
test_8bit_both_ways(void)
{
    nicd_conf_t *c = conf_load("http { charset_map a-1 b-1 { 58 59; C1 E1; } }");
    nicd_buf_t   out = {0};

    CHECK(c != NULL);
    if (c == NULL) {
        return;
    }
    CHECK_INT(recode(c, "a-1", "b-1", "XaX\xc1\xc2", 5, &out), 0);
    SAME(out, "YaY\xe1?"); /* a byte no line names: "?" */
    CHECK_INT(recode(c, "B-1", "A-1", "Y\xe1\xc1", 3, &out), 0);
    SAME(out, "X\xc1?");
    CHECK_INT(recode(c, "a-1", "c-1", "x", 1, &out), -2);
    CHECK(find_table(http_conf(c), 0, 1)->rc.same_length);
    nicd_buf_free(&out);
    nicd_conf_free(c);
}

static void
test_utf8_both_ways(void)
{
    nicd_conf_t *c = conf_load("http { charset_map k-8 utf-8 {"
                          " C1 D0B0; E1 D090; 80 E282AC; } }");
    nicd_buf_t   out = {0};

    CHECK(c != NULL);
    if (c == NULL) {
        return;
    }
    CHECK_INT(recode(c, "k-8", "utf-8", "a\xc1\xe1\x80\xff", 5, &out), 0);
    SAME(out, "a\xd0\xb0\xd0\x90\xe2\x82\xac?");
    CHECK(!find_table(http_conf(c), 0, 1)->rc.same_length);
    /* back: a character the map lacks is an entity, one beyond the BMP
     * too; bytes that are no UTF-8 are "?" as nginx reads them (a byte
     * below 0x80 inside a character is taken with it) */
    CHECK_INT(recode(c, "utf-8", "k-8",
                     "\xd0\xb0\xe2\x82\xac \xe4\xb8\xad\xf0\x9f\x98\x80", 13,
                     &out),
              0);
    SAME(out, "\xc1\x80 &#20013;&#128512;");
    CHECK_INT(recode(c, "utf-8", "k-8", "\xff\xc3 end", 6, &out), 0);
    SAME(out, "?end");
    CHECK_INT(recode(c, "utf-8", "k-8", "\xc0\x80x\xd0", 4, &out), 0);
    SAME(out, "??x?"); /* 0xC0 leads nothing; a character cut short */
    CHECK_INT(recode(c, "utf-8", "k-8", "\xe0\x80\x80", 3, &out), 0);
    SAME(out, "?"); /* an overlong form */
    nicd_buf_free(&out);
    nicd_conf_free(c);
}

static void
test_refused(void)
{
    static const char *bad[] = {
        "http { charset_map utf-8 k-8 { } }",
        "http { charset_map a-1 A-1 { } }",
        "http { charset_map a-1 b-1 { } charset_map b-1 a-1 { } }",
        "http { charset_map a-1 b-1 { 100 41; } }",
        "http { charset_map a-1 utf-8 { 41 F09F9880; } }",
        "http { charset_map a-1 utf-8 { 41 C3; } }",
        "http { charset_map a-1 b-1 { } charset c-1; source_charset a-1; }",
        "http { charset a-1; charset a-1; }",
    };
    nicd_conf_t *c;
    size_t       i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        c = conf_load(bad[i]);
        CHECK(c == NULL);
        if (c != NULL) {
            nicd_conf_free(c);
        }
    }
    /* variables: decided per request, so taken */
    c = conf_load("http { charset $host; source_charset $uri; }");
    CHECK(c != NULL);
    if (c != NULL) {
        nicd_conf_free(c);
    }
}

static void
test_type_charset(void)
{
    const char *t = "text/html; q=1; Charset=KOI8-R ;x";
    const char *v;
    size_t      len = 0;

    v = type_charset(t, strlen(t), &len);
    CHECK(v != NULL && len == 6 && memcmp(v, "KOI8-R", 6) == 0);
    CHECK(type_charset("text/html", 9, &len) == NULL);
    CHECK(type_charset("text/html; charset=", 19, &len) == NULL);
}

int
main(void)
{
    RUN(test_8bit_both_ways);
    RUN(test_utf8_both_ways);
    RUN(test_refused);
    RUN(test_type_charset);
    return harness_report("test_charset");
}
