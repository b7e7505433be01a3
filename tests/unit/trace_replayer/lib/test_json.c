/* Unit tests of trace_replayer/lib/json.c */

#include "lib/json.c"
#include "harness.h"

static void
test_parse(void)
{
    static const char *text =
        " {\"a\": 1.5, \"b\": [1, [2, 3], {}], \"c\": {\"200\": 7},"
        " \"s\": \"q\\\"\\\\\\n\", \"t\": true, \"n\": null, \"e\": -2e3}";
    char          err[128];
    json_t       *v = json_parse(text, strlen(text), err, sizeof(err));
    const json_t *b;

    CHECK(v != NULL);
    if (v == NULL) {
        return;
    }
    CHECK(json_get(v, "a")->number == 1.5);
    b = json_get(v, "b");
    CHECK(b->type == JSON_ARRAY && b->child->number == 1
          && b->child->next->child->next->number == 3
          && b->child->next->next->type == JSON_OBJECT);
    CHECK(json_get(json_get(v, "c"), "200")->number == 7);
    CHECK_STR(json_get(v, "s")->string, "q\"\\\n");
    CHECK(json_get(v, "t")->type == JSON_BOOL && json_get(v, "t")->number);
    CHECK(json_get(v, "n")->type == JSON_NULL);
    CHECK(json_get(v, "e")->number == -2000);
    CHECK(json_get(v, "missing") == NULL);
    json_free(v);
}

static void
test_refused(void)
{
    static const char *bad[] = {
        "", "{", "{\"a\" 1}", "{\"a\": 1,}", "[1 2]", "{a: 1}", "\"x",
        "[1] 2", "01x", "\"\\u0000\"", "\"\\ud800\"", "\"\\u12\"",
        "{\"a\": -}", "tru",
    };
    char   err[128], deep[200];
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *v = json_parse(bad[i], strlen(bad[i]), err, sizeof(err));

        if (v != NULL) {
            fprintf(stderr, "accepted: %s\n", bad[i]);
        }
        CHECK(v == NULL && err[0] != '\0');
        json_free(v);
    }
    memset(deep, '[', sizeof(deep));
    CHECK(json_parse(deep, sizeof(deep), err, sizeof(err)) == NULL);
    CHECK(strstr(err, "deep") != NULL);
}

/* \\u escapes become UTF-8, surrogate pairs one code point */
static void
test_unicode(void)
{
    static const char in[] = "\"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"";
    char              err[128];
    json_t           *v = json_parse(in, strlen(in), err, sizeof(err));

    CHECK(v != NULL && v->type == JSON_STRING);
    if (v != NULL) {
        CHECK_STR(v->string, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    }
    json_free(v);
}

int
main(void)
{
    RUN(test_parse);
    RUN(test_refused);
    RUN(test_unicode);
    return harness_report("json");
}
