/* Unit tests of src/server/modules/sub_filter.c */

#include "server/modules/sub_filter.c"
#include "harness.h"

/* the strings (match, value pairs, NULL-ended) ready to run */
static sub_ctx_t *
ctx_of(const char *const *pairs, int once)
{
    sub_ctx_t *x = calloc(1, sizeof(*x));
    int        n = 0, i;

    while (pairs[2 * n] != NULL) {
        n++;
    }
    x->p = calloc((size_t) n, sizeof(*x->p));
    x->n = n;
    x->once = once;
    for (i = 0; i < n; i++) {
        nicd_buf_adds(&x->p[i].match, pairs[2 * i]);
        nicd_buf_adds(&x->p[i].value, pairs[2 * i + 1]);
        pair_ready(x, &x->p[i]);
    }
    return x;
}

/* the plain reading of the rules: at each place, the first string in
 * order (not yet used, with once) that matches there, any ASCII case */
static void
reference(const char *const *pairs, int once, const char *in, nicd_buf_t *out)
{
    size_t i = 0, n = strlen(in), k;
    int    used[8] = {0}, j;

    while (i < n) {
        for (j = 0; pairs[2 * j] != NULL; j++) {
            k = strlen(pairs[2 * j]);
            if (!used[j] && k > 0 && k <= n - i
                && strncasecmp(in + i, pairs[2 * j], k) == 0) {
                break;
            }
        }
        if (pairs[2 * j] == NULL) {
            nicd_buf_add(out, in + i, 1);
            i++;
            continue;
        }
        nicd_buf_adds(out, pairs[2 * j + 1]);
        i += strlen(pairs[2 * j]);
        used[j] = once;
    }
}

/* a and b hold the same bytes (either may be empty, its data NULL) */
static int
same(const nicd_buf_t *a, const nicd_buf_t *b)
{
    return a->len == b->len
           && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* in cut at each of cuts (ascending, 0-ended) through a fresh ctx */
static int
pieces(const char *const *pairs, int once, const char *in, const size_t *cuts,
       nicd_buf_t *out)
{
    sub_ctx_t *x = ctx_of(pairs, once);
    size_t     from = 0, n = strlen(in);
    int        rc = 0, i;

    for (i = 0; cuts[i] != 0 && rc == 0; i++) {
        rc = replace(x, in + from, cuts[i] - from, 0, out);
        from = cuts[i];
    }
    if (rc == 0) {
        rc = replace(x, in + from, n - from, 1, out);
    }
    ctx_free(x);
    return rc;
}

static const char *const set1[] = {"foo", "bar", "fo", "X", NULL};
static const char *const set2[] = {"abcdef", "1", "ab", "2", "b", "", NULL};
static const char *const set3[] = {"aa", "<a>", NULL};
static const char *const *sets[] = {set1, set2, set3};
static const char *bodies[] = {
    "", "foo", "FOO fo f", "ffoofoFoo", "abcdeab", "abcdefab", "ab",
    "aaaaa", "xabcdefabcdeab b", "no match at all",
};

/* split anywhere, in two or in bytes, the body comes out as read whole,
 * and as the plain reading of the rules says */
static void
test_splits_agree(void)
{
    size_t s, b, i, cut[2], bytes[64];
    int    once;

    for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
        for (once = 0; once <= 1; once++) {
            for (b = 0; b < sizeof(bodies) / sizeof(bodies[0]); b++) {
                const char *in = bodies[b];
                size_t      n = strlen(in);
                nicd_buf_t  want = {0}, got = {0};

                reference(sets[s], once, in, &want);
                for (i = 0; i < n; i++) {
                    cut[0] = i;
                    cut[1] = 0;
                    got.len = 0;
                    CHECK_INT(pieces(sets[s], once, in, i > 0 ? cut : &cut[1],
                                     &got),
                              0);
                    CHECK(same(&got, &want));
                }
                CHECK(n < 64);
                for (i = 1; i < n; i++) {
                    bytes[i - 1] = i; /* a piece a byte */
                }
                bytes[n > 0 ? n - 1 : 0] = 0;
                got.len = 0;
                CHECK_INT(pieces(sets[s], once, in, bytes, &got), 0);
                if (!same(&got, &want)) {
                    fprintf(stderr, "set %zu once %d \"%s\": \"%.*s\" not "
                                    "\"%.*s\"\n",
                            s, once, in, (int) got.len,
                            got.len > 0 ? got.data : "", (int) want.len,
                            want.len > 0 ? want.data : "");
                    CHECK(0);
                }
                nicd_buf_free(&want);
                nicd_buf_free(&got);
            }
        }
    }
}

/* the first in order wins where two begin at one place; once means once
 * for each string; a string cut short at the end is no match */
static void
test_rules(void)
{
    nicd_buf_t got = {0};
    size_t     none = 0;

    CHECK_INT(pieces(set2, 1, "abcdef ab abcdef", &none, &got), 0);
    CHECK(got.len == 9 && memcmp(got.data, "1 2 acdef", 9) == 0);
    got.len = 0;
    CHECK_INT(pieces(set1, 0, "FoO fOo", &none, &got), 0);
    CHECK(got.len == 7 && memcmp(got.data, "bar bar", 7) == 0);
    got.len = 0;
    CHECK_INT(pieces(set2, 0, "xab", &none, &got), 0);
    CHECK(got.len == 2 && memcmp(got.data, "x2", 2) == 0);
    nicd_buf_free(&got);
}

int
main(void)
{
    RUN(test_splits_agree);
    RUN(test_rules);
    return harness_report("test_sub_filter");
}
