/* Unit tests of src/server/modules/access.c */

#include "server/modules/access.c"
#include "harness.h"

/* Apache's MD5 against what "openssl passwd -apr1" wrote */
static void
test_apr1(void)
{
    char out[64];

    CHECK_INT(apr1("secret1", "$apr1$abcdefgh$", out, sizeof(out)), 0);
    CHECK_STR(out, "$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY.");
    CHECK(password_ok("secret1", "$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY."));
    CHECK(!password_ok("secret2", "$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY."));
    /* a password longer than 16 bytes takes the long path */
    CHECK_INT(
        apr1("a-password-of-thirty-bytes-xx", "$apr1$s$", out, sizeof(out)), 0);
    CHECK(password_ok("a-password-of-thirty-bytes-xx", out));
    CHECK(password_ok("x", "{PLAIN}x") && !password_ok("y", "{PLAIN}x"));
    /* {SHA}: base64 of SHA-1("abc") */
    CHECK(password_ok("abc", "{SHA}qZk+NkcGgWq6PiVxeFDCbJzQ2J0="));
    CHECK(!password_ok("abd", "{SHA}qZk+NkcGgWq6PiVxeFDCbJzQ2J0="));
    CHECK(!password_ok("abc", "{SHA}short"));
    CHECK(!password_ok("abc", "*"));
}

static void
test_rules(void)
{
    access_conf_t l;
    rule_t        r[3];

    memset(&l, 0, sizeof(l));
    memset(r, 0, sizeof(r));
    /* deny 10.1.2.3; allow 10.0.0.0/8; deny all */
    r[0].deny = 1;
    CHECK_INT(nicache_cidr_parse("10.1.2.3", &r[0].block), 0);
    CHECK_INT(nicache_cidr_parse("10.0.0.0/8", &r[1].block), 0);
    r[2].deny = 1;
    r[2].all = 1;
    CHECK_INT(nicache_cidr_parse("10.0.0.0/33", &r[1].block), -1);
    CHECK_INT(nicache_cidr_parse("10.0.0.0/", &r[1].block), -1);
    CHECK_INT(nicache_cidr_parse("host/8", &r[1].block), -1);
    CHECK_INT(nicache_cidr_parse("10.255.255.255/8", &r[1].block), 0);
    l.rules = r;
    l.nrules = 3;
    CHECK(!allowed(&l, "10.1.2.3"));
    CHECK(allowed(&l, "10.1.2.4"));
    CHECK(!allowed(&l, "11.0.0.1"));
    CHECK(!allowed(&l, "::1"));
    CHECK(!allowed(&l, "unix:")); /* only "all" takes it */
    CHECK_INT(nicache_cidr_parse("2001:db8::/32", &r[1].block), 0);
    CHECK(allowed(&l, "2001:db8:1::5") && !allowed(&l, "2001:db9::5"));
}

static void
test_credentials(void)
{
    char        buf[128];
    nicd_str_t  v;
    const char *pw;

    v.p = "Basic dXNlcjpwYXNzOndvcmQ=";
    v.len = strlen(v.p);
    pw = nicd_basic_credentials(&v, buf, sizeof(buf));
    CHECK(pw != NULL);
    if (pw != NULL) {
        CHECK_STR(buf, "user");
        CHECK_STR(pw, "pass:word"); /* the first colon splits */
    }
    v.p = "Basic !!!!";
    v.len = strlen(v.p);
    CHECK(nicd_basic_credentials(&v, buf, sizeof(buf)) == NULL);
    v.p = "Bearer dXNlcjpw";
    v.len = strlen(v.p);
    CHECK(nicd_basic_credentials(&v, buf, sizeof(buf)) == NULL);
    v.p = "Basic bm9jb2xvbg=="; /* "nocolon" */
    v.len = strlen(v.p);
    CHECK(nicd_basic_credentials(&v, buf, sizeof(buf)) == NULL);
}

int
main(void)
{
    RUN(test_apr1);
    RUN(test_rules);
    RUN(test_credentials);
    return harness_report("test_access");
}
