/* Unit tests of src/server/http/range.c */

#include "server/http/range.c"
#include "harness.h"

static nicd_range_t r[16];
static int          n;

static int
parse(const char *v, off_t size)
{
    return nicd_range_parse(v, strlen(v), size, 16, r, &n);
}

static void
test_forms(void)
{
    CHECK_INT(parse("bytes=0-9", 100), NICD_RANGE_OK);
    CHECK_INT(n, 1);
    CHECK_INT(r[0].start, 0);
    CHECK_INT(r[0].end, 9);

    CHECK_INT(parse("bytes=90-", 100), NICD_RANGE_OK);
    CHECK_INT(r[0].start, 90);
    CHECK_INT(r[0].end, 99);

    CHECK_INT(parse("bytes=-10", 100), NICD_RANGE_OK);
    CHECK_INT(r[0].start, 90);
    CHECK_INT(r[0].end, 99);

    /* a suffix longer than the file is the whole file */
    CHECK_INT(parse("bytes=-500", 100), NICD_RANGE_OK);
    CHECK_INT(r[0].start, 0);
    CHECK_INT(r[0].end, 99);

    /* an end past the file is clipped */
    CHECK_INT(parse("bytes=50-5000", 100), NICD_RANGE_OK);
    CHECK_INT(r[0].end, 99);

    CHECK_INT(parse("BYTES=1-2 , 5-6", 100), NICD_RANGE_OK);
    CHECK_INT(n, 2);
    CHECK_INT(r[1].start, 5);
    CHECK_INT(r[1].end, 6);
}

static void
test_unsatisfiable(void)
{
    CHECK_INT(parse("bytes=100-", 100), NICD_RANGE_UNSATISFIABLE);
    CHECK_INT(parse("bytes=100-200", 100), NICD_RANGE_UNSATISFIABLE);
    CHECK_INT(parse("bytes=-0", 100), NICD_RANGE_UNSATISFIABLE);
    CHECK_INT(parse("bytes=5-1", 100), NICD_RANGE_UNSATISFIABLE);
    /* an empty file goes out whole (nginx) */
    CHECK_INT(parse("bytes=0-0", 0), NICD_RANGE_IGNORE);
    CHECK_INT(parse("bytes=-5", 0), NICD_RANGE_IGNORE);
    /* one satisfiable among unsatisfiable ones is kept alone */
    CHECK_INT(parse("bytes=200-300,0-0", 100), NICD_RANGE_OK);
    CHECK_INT(n, 1);
    CHECK_INT(r[0].end, 0);
}

/* another unit: the whole file */
static void
test_ignored(void)
{
    static const char *cases[] = {
        "items=0-1", "bytes 0-1", "bytes=", "",
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_INT(parse(cases[i], 100), NICD_RANGE_IGNORE);
    }
}

/* a specifier that does not parse: 416, as nginx */
static void
test_refused(void)
{
    static const char *cases[] = {
        "bytes=a-b",   "bytes=1",     "bytes=--1",
        "bytes=0-1;x", "bytes=1-2-3", "bytes=99999999999999999999-",
        "bytes=1-2,",  "bytes=,1-2",  "bytes=10-11 12-",
        "bytes=0-\t1",
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_INT(parse(cases[i], 100), NICD_RANGE_UNSATISFIABLE);
    }
}

static void
test_max(void)
{
    nicd_range_t few[2];

    CHECK_INT(nicd_range_parse("bytes=0-0,1-1", 13, 100, 2, few, &n),
              NICD_RANGE_OK);
    CHECK_INT(nicd_range_parse("bytes=0-0,1-1,2-2", 17, 100, 2, few, &n),
              NICD_RANGE_IGNORE);
    /* unsatisfiable ones do not count (nginx's) */
    CHECK_INT(nicd_range_parse("bytes=0-0,200-,1-1", 18, 100, 2, few, &n),
              NICD_RANGE_OK);
    CHECK_INT(n, 2);
}

/* ranges that add up to more than the file: the whole file (nginx's
 * rule), so "bytes=0-,0-,..." cannot send the file once per range */
static void
test_amplification(void)
{
    nicd_range_t many[64];

    CHECK_INT(nicd_range_parse("bytes=0-,0-", 11, 100, 64, many, &n),
              NICD_RANGE_IGNORE);
    CHECK_INT(nicd_range_parse("bytes=0-59,40-99", 16, 100, 64, many, &n),
              NICD_RANGE_IGNORE);
    CHECK_INT(nicd_range_parse("bytes=-60,0-59", 14, 100, 64, many, &n),
              NICD_RANGE_IGNORE);
    /* exactly the file's size, even in pieces, is still a 206 */
    CHECK_INT(nicd_range_parse("bytes=0-49,50-99", 16, 100, 64, many, &n),
              NICD_RANGE_OK);
    CHECK_INT(n, 2);
    CHECK_INT(nicd_range_parse("bytes=0-9,0-9", 13, 100, 64, many, &n),
              NICD_RANGE_OK);
    /* unsatisfiable specs add nothing */
    CHECK_INT(nicd_range_parse("bytes=0-99,200-300", 18, 100, 64, many, &n),
              NICD_RANGE_OK);
    CHECK_INT(n, 1);
}

int
main(void)
{
    RUN(test_forms);
    RUN(test_unsatisfiable);
    RUN(test_ignored);
    RUN(test_refused);
    RUN(test_max);
    RUN(test_amplification);
    return harness_report("test_range");
}
