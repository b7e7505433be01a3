/* Unit tests of src/util/buf.c */

#include "util/buf.c"
#include "harness.h"

static void
test_buffer(void)
{
    nicd_buf_t b = {0};
    int        i;

    for (i = 0; i < 1000; i++) {
        NICD_BUF_LIT(&b, "abc");
    }
    CHECK_INT(b.len, 3000);
    nicd_buf_add_u64(&b, 18446744073709551615ULL);
    CHECK(memcmp(b.data + 3000, "18446744073709551615", 20) == 0);
    nicd_buf_addf(&b, "%d-%s", 42, "x");
    CHECK(memcmp(b.data + 3020, "42-x", 4) == 0);
    CHECK(!nicd_buf_failed(&b));
    nicd_buf_free(&b);
}

static void
test_http_date(void)
{
    char out[NICD_HTTP_DATE_LEN + 1];

    nicd_http_date(out, 784111777);
    CHECK_STR(out, "Sun, 06 Nov 1994 08:49:37 GMT");
    CHECK_INT(nicd_http_date_parse(out, strlen(out)), 784111777);
    CHECK_INT(nicd_http_date_parse("Sunday, 06-Nov-94 08:49:37 GMT", 30),
              784111777);
    CHECK_INT(nicd_http_date_parse("Sun Nov  6 08:49:37 1994", 24),
              784111777);
    CHECK_INT(nicd_http_date_parse("Sun, 06 Nov 1994 08:49:37", 25), -1);
    CHECK_INT(nicd_http_date_parse("Sun, 06 Foo 1994 08:49:37 GMT", 29), -1);
    CHECK_INT(nicd_http_date_parse("Sun, 32 Nov 1994 08:49:37 GMT", 29), -1);
    CHECK_INT(nicd_http_date_parse("Sun, 06 Nov 1994 08:49:37 GMTx", 30),
              -1);
    CHECK_INT(nicd_http_date_parse("garbage", 7), -1);
    CHECK_INT(nicd_http_date_parse("", 0), -1);
    nicd_http_date(out, 0);
    CHECK_STR(out, "Thu, 01 Jan 1970 00:00:00 GMT");
    nicd_http_date(out, 1709251199); /* leap year, 29 Feb 2024 */
    CHECK_STR(out, "Thu, 29 Feb 2024 23:59:59 GMT");
    CHECK_INT(nicd_http_date_parse(out, strlen(out)), 1709251199);
}

static void
test_log_date(void)
{
    char out[NICD_LOG_DATE_LEN + 1];

    setenv("TZ", "UTC", 1);
    tzset();
    nicd_log_date(out, 784111777);
    CHECK_STR(out, "06/Nov/1994:08:49:37 +0000");
}

static void
test_sizes_and_times(void)
{
    size_t s;
    long   ms;

    CHECK(nicd_parse_size("512", &s) == 0 && s == 512);
    CHECK(nicd_parse_size("16k", &s) == 0 && s == 16384);
    CHECK(nicd_parse_size("2M", &s) == 0 && s == 2097152);
    CHECK(nicd_parse_size("1g", &s) == 0 && s == 1073741824);
    CHECK(nicd_parse_size("1x", &s) == -1);
    CHECK(nicd_parse_size("k", &s) == -1);
    CHECK(nicd_parse_size("-1", &s) == -1);
    CHECK(nicd_parse_msec("75", &ms) == 0 && ms == 75000);
    CHECK(nicd_parse_msec("75s", &ms) == 0 && ms == 75000);
    CHECK(nicd_parse_msec("500ms", &ms) == 0 && ms == 500);
    CHECK(nicd_parse_msec("2m", &ms) == 0 && ms == 120000);
    CHECK(nicd_parse_msec("1h", &ms) == 0 && ms == 3600000);
    /* nginx's units all work for times in milliseconds too */
    CHECK(nicd_parse_msec("1w", &ms) == 0 && ms == 604800000);
    CHECK(nicd_parse_msec("1y", &ms) == -1); /* past the long in ms */
    CHECK(nicd_parse_msec("99999999999", &ms) == -1);
    CHECK(nicd_parse_msec("1x", &ms) == -1);
    CHECK(nicd_parse_msec("", &ms) == -1);
}

/* nginx's ngx_parse_time: units, sums, seconds */
static void
test_parse_time(void)
{
    long long t;

    CHECK(nicache_parse_time("1y", 1, &t) == 0 && t == 31536000);
    CHECK(nicache_parse_time("30d", 1, &t) == 0 && t == 2592000);
    CHECK(nicache_parse_time("1M", 1, &t) == 0 && t == 2592000);
    CHECK(nicache_parse_time("1h 30m", 1, &t) == 0 && t == 5400);
    CHECK(nicache_parse_time("1d12h", 1, &t) == 0 && t == 129600);
    CHECK(nicache_parse_time("90", 1, &t) == 0 && t == 90);
    CHECK(nicache_parse_time("1500ms", 0, &t) == 0 && t == 1500);
    CHECK(nicache_parse_time("1h x", 1, &t) == -1);
    CHECK(nicache_parse_time("h", 1, &t) == -1);
    CHECK(nicache_parse_time("99999999999999999999y", 1, &t) == -1);
}

static void
test_base64(void)
{
    unsigned char out[16];

    CHECK_INT(nicd_base64_decode(out, "dXNlcjpwdw==", 12), 7);
    CHECK(memcmp(out, "user:pw", 7) == 0);
    CHECK_INT(nicd_base64_decode(out, "YWJj", 4), 3);
    CHECK_INT(nicd_base64_decode(out, "YWI=", 4), 2);
    CHECK_INT(nicd_base64_decode(out, "", 0), 0);
    CHECK_INT(nicd_base64_decode(out, "YWJ", 3), -1);   /* not 4k long */
    CHECK_INT(nicd_base64_decode(out, "Y!Jj", 4), -1);  /* not base64 */
    CHECK_INT(nicd_base64_decode(out, "YQ==YWJj", 8), -1); /* = inside */
    CHECK_INT(nicd_base64_decode(out, "Y=Jj", 4), -1);
}

static void
test_escaped(void)
{
    nicd_buf_t b = {0};

    /* a " b \ c 0x01 0xff z: four escaped, four kept */
    nicd_buf_add_escaped(&b, "a\"b\\c\x01\xffz", 8);
    CHECK_INT(b.len, 4 * 4 + 4);
    CHECK(memcmp(b.data, "a\\x22b\\x5Cc\\x01\\xFFz", b.len) == 0);
    nicd_buf_free(&b);
}

/* a URI component: unreserved kept, the rest (here "/", " ", "=", a
 * newline and a UTF-8 byte) as %XX in upper case */
static void
test_percent(void)
{
    nicd_buf_t b = {0};

    nicd_buf_add_percent(&b, "aZ9-._~/ =\n\xc3", 12);
    CHECK_INT(b.len, 7 + 5 * 3);
    CHECK(memcmp(b.data, "aZ9-._~%2F%20%3D%0A%C3", b.len) == 0);
    nicd_buf_free(&b);
}

int
main(void)
{
    RUN(test_buffer);
    RUN(test_percent);
    RUN(test_http_date);
    RUN(test_log_date);
    RUN(test_sizes_and_times);
    RUN(test_parse_time);
    RUN(test_base64);
    RUN(test_escaped);
    return harness_report("test_buf");
}
