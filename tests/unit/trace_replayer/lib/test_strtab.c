/* Unit tests of trace_replayer/lib/strtab.c */

#include "lib/strtab.c"
#include "harness.h"

/* an empty string first (the fuzzer found it touching a NULL arena) */
static void
test_empty_first(void)
{
    trace_strtab_t *t = trace_strtab_new();
    uint32_t        id;
    size_t          len;
    int             added;

    CHECK_INT(trace_strtab_intern(t, "", 0, &id, &added), 0);
    CHECK(id == 0 && added);
    CHECK_INT(trace_strtab_intern(t, "/a", 2, &id, &added), 0);
    CHECK(id == 1 && added);
    CHECK_INT(trace_strtab_intern(t, "", 0, &id, &added), 0);
    CHECK(id == 0 && !added);
    CHECK(trace_strtab_get(t, 0, &len) != NULL && len == 0);
    trace_strtab_free(t);
}

static void
test_many(void)
{
    trace_strtab_t *t = trace_strtab_new();
    char            s[32];
    uint32_t        id, i;
    size_t          len;
    int             added, bad = 0;

    for (i = 0; i < 50000; i++) {
        len = (size_t) snprintf(s, sizeof(s), "/file/%u.html", i);
        bad += trace_strtab_intern(t, s, len, &id, &added) != 0 || id != i
               || !added;
    }
    for (i = 0; i < 50000; i += 7) {
        len = (size_t) snprintf(s, sizeof(s), "/file/%u.html", i);
        bad += trace_strtab_find(t, s, len, &id) != 0 || id != i;
        bad += memcmp(trace_strtab_get(t, i, &len), s, len) != 0;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(trace_strtab_count(t), 50000);
    CHECK_INT(trace_strtab_find(t, "/nope", 5, &id), -1);
    trace_strtab_free(t);
}

int
main(void)
{
    RUN(test_empty_first);
    RUN(test_many);
    return harness_report("test_strtab");
}
