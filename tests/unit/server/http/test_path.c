/* Unit tests of src/server/http/path.c */

#include "server/http/path.c"
#include "harness.h"

static const char *
norm(const char *in, int *status)
{
    static char out[1024];
    size_t      len;

    *status = nicd_path_normalize(in, strlen(in), out, &len, 1);
    if (*status != 0) {
        return NULL;
    }
    if (len != strlen(out)) {
        return "(length mismatch)";
    }
    return out;
}

static void
test_normalize(void)
{
    static const struct {
        const char *in;
        const char *out;
    } ok[] = {
        {"", "/"},
        {"/", "/"},
        {"/a", "/a"},
        {"/a/", "/a/"},
        {"/a//b", "/a/b"},
        {"/./a", "/a"},
        {"/a/.", "/a/"},
        {"/a/./b", "/a/b"},
        {"/a/../b", "/b"},
        {"/a/b/..", "/a/"},
        {"/a/b/../", "/a/"},
        {"/a/b/../../c", "/c"},
        {"/%61%62", "/ab"},
        {"/a%20b", "/a b"},
        {"/a/%2e%2e/b", "/b"},
        {"/a/%2E/b", "/a/b"},
        {"/...", "/..."},
        {"/..a", "/..a"},
        {"/a..", "/a.."},
        {"/%252e%252e/x", "/%2e%2e/x"}, /* decoded once only */
        {"/a%5cb", "/a\\b"},
    };
    static const char *bad[] = {
        "/..",     "/../",        "/../a",   "/a/../..",  "/a/../../b",
        "/%2e%2e", "/%2e%2e/",    "/.%2e/a", "/%2E%2E/a", "/a/%2e%2e/%2e%2e/b",
        "/a%2fb",  "/a%2F..%2Fb", "/a%00",   "/%",        "/%a",
        "/%zz",    "/%g0",        "a",       "../a",      "/./../a",
    };
    size_t i;
    int    st;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        const char *got = norm(ok[i].in, &st);
        if (got == NULL || strcmp(got, ok[i].out) != 0) {
            fprintf(stderr, "normalize(\"%s\"): got \"%s\" want \"%s\"\n",
                    ok[i].in, got ? got : "(error)", ok[i].out);
        }
        CHECK_INT(st, 0);
        CHECK(got != NULL && strcmp(got, ok[i].out) == 0);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *got = norm(bad[i], &st);
        if (got != NULL) {
            fprintf(stderr, "normalize(\"%s\"): got \"%s\" want 400\n", bad[i],
                    got);
        }
        CHECK_INT(st, 400);
    }
}

/* merge_slashes off: empty segments kept, ".." takes the one before it */
static void
test_keep_slashes(void)
{
    static const struct {
        const char *in;
        const char *out;
    } ok[] = {
        {"/foo//../bar", "/foo/bar"}, {"/foo///../bar", "/foo//bar"},
        {"/a//b", "/a//b"},           {"//", "//"},
        {"//..", "/"},                {"/a//./b/", "/a//b/"},
    };
    char   out[64];
    size_t len, i;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        CHECK(nicd_path_normalize(ok[i].in, strlen(ok[i].in), out, &len, 0)
              == 0);
        CHECK_STR(out, ok[i].out);
        CHECK(len == strlen(ok[i].out));
    }
    CHECK(nicd_path_normalize("/..", 3, out, &len, 0) == 400);
}

static void
test_escape(void)
{
    char out[64];

    nicd_path_escape("a b/c\"d", 7, out);
    CHECK_STR(out, "a%20b/c%22d");
    nicd_html_escape("<a href='x'>&</a>", 17, out);
    CHECK_STR(out, "&lt;a href='x'&gt;&amp;&lt;/a&gt;");
}

int
main(void)
{
    RUN(test_normalize);
    RUN(test_keep_slashes);
    RUN(test_escape);
    return harness_report("test_path");
}
