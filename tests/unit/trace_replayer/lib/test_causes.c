/* Unit tests of trace_replayer/lib/causes.c */

#include <errno.h>
#include <string.h>

#include "lib/causes.c"
#include "harness.h"

/* the same step and reason add up; the commonest comes first */
static void
test_counts_and_order(void)
{
    causes_t c;
    char     buf[256];
    int      i;

    memset(&c, 0, sizeof(c));
    CHECK_STR(causes_format(&c, 3, buf, sizeof(buf)), "none");
    causes_add(&c, "timeout", 0, "no byte within --timeout");
    for (i = 0; i < 3; i++) {
        causes_add(&c, "connect", ECONNREFUSED, "ignored with an errno");
    }
    causes_add(&c, "read", ECONNRESET, NULL);
    causes_add(&c, "read", ECONNRESET, NULL);
    CHECK_INT((int) c.total, 6);
    CHECK_INT(c.n, 3);
    CHECK_STR(causes_format(&c, 3, buf, sizeof(buf)),
              "connect: Connection refused 3, read: Connection reset by "
              "peer 2, timeout: no byte within --timeout 1");
    /* fewer rows than there are: the rest summed */
    CHECK_STR(causes_format(&c, 1, buf, sizeof(buf)),
              "connect: Connection refused 3, and 3 more");
    /* a short buffer is cut, never overrun */
    causes_format(&c, 3, buf, 12);
    CHECK_INT((int) strlen(buf), 11);
}

/* past CAUSES_MAX different causes: counted as other, never lost */
static void
test_overflow_and_merge(void)
{
    causes_t c;
    char     why[16], buf[512];
    int      i;

    memset(&c, 0, sizeof(c));
    for (i = 0; i < CAUSES_MAX + 2; i++) {
        snprintf(why, sizeof(why), "answered %d", 400 + i);
        causes_add(&c, "status", 0, why);
    }
    CHECK_INT(c.n, CAUSES_MAX);
    CHECK_INT((int) c.other, 2);
    CHECK_INT((int) c.total, CAUSES_MAX + 2);
    causes_add_n(&c, "status", 0, "answered 400", 5);
    CHECK_INT((int) c.row[0].n, 6);
    CHECK(strncmp(causes_format(&c, 1, buf, sizeof(buf)),
                  "status: answered 400 6, and 17 more", 64)
          == 0);
}

int
main(void)
{
    RUN(test_counts_and_order);
    RUN(test_overflow_and_merge);
    return harness_report("test_causes");
}
