/*
 * A tiny unit-test harness.  A test is a function run with RUN(); each
 * CHECK that fails prints file:line and what failed, and fails the test.
 * The program ends with one line "NAME: N passed, N failed" (tests, not
 * checks), with ", N skipped" after it when a test said SKIP (it could
 * not run here: counted, never passed), and exits non-zero when any
 * failed.
 */

#ifndef NICD_HARNESS_H
#define NICD_HARNESS_H

#include <stdio.h>
#include <string.h>

static int h_passed, h_failed, h_current_failed;
static int h_skipped, h_current_skipped;

/* the test cannot run here: say why, and count it as skipped */
#define SKIP(why)                                                            \
    do {                                                                     \
        h_current_skipped = 1;                                               \
        printf("skipped: %s\n", (why));                                      \
    } while (0)

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            h_current_failed = 1;                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,           \
                    __LINE__, #cond);                                        \
        }                                                                    \
    } while (0)

#define CHECK_INT(a, b)                                                      \
    do {                                                                     \
        long long h_a = (long long) (a), h_b = (long long) (b);              \
        if (h_a != h_b) {                                                    \
            h_current_failed = 1;                                            \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n",\
                    __FILE__, __LINE__, #a, #b, h_a, h_b);                   \
        }                                                                    \
    } while (0)

#define CHECK_STR(a, b)                                                      \
    do {                                                                     \
        const char *h_a = (a), *h_b = (b);                                   \
        if (h_a == NULL || h_b == NULL || strcmp(h_a, h_b) != 0) {           \
            h_current_failed = 1;                                            \
            fprintf(stderr, "%s:%d: check failed: %s == %s (\"%s\" != "      \
                    "\"%s\")\n", __FILE__, __LINE__, #a, #b,                 \
                    h_a ? h_a : "(null)", h_b ? h_b : "(null)");             \
        }                                                                    \
    } while (0)

#define RUN(fn)                                                              \
    do {                                                                     \
        h_current_failed = 0;                                                \
        h_current_skipped = 0;                                               \
        fn();                                                                \
        if (h_current_failed) {                                              \
            h_failed++;                                                      \
            fprintf(stderr, "FAILED: %s\n", #fn);                            \
        } else if (h_current_skipped) {                                      \
            h_skipped++;                                                     \
        } else {                                                             \
            h_passed++;                                                      \
        }                                                                    \
    } while (0)

static int
harness_report(const char *name)
{
    if (h_skipped > 0 || h_current_skipped) {
        printf("%s: %d passed, %d failed, %d skipped\n", name, h_passed,
               h_failed, h_skipped + (h_passed + h_failed + h_skipped == 0));
    } else {
        printf("%s: %d passed, %d failed\n", name, h_passed, h_failed);
    }
    return h_failed != 0;
}

#endif /* NICD_HARNESS_H */
