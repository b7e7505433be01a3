/* Unit tests of trace_replayer/lib/models/content.c */

#include <string.h>

#include "lib/models/content.c"
#include "harness.h"

static void
test_known_values(void)
{
    unsigned char b[8];
    /* splitmix64's first output from state 0 is 0xe220a8397b1dcdaf */
    static const unsigned char want[8] = {0xaf, 0xcd, 0x1d, 0x7b,
                                          0x39, 0xa8, 0x20, 0xe2};

    trace_content(0, 0, b, 8);
    CHECK(memcmp(b, want, 8) == 0);
    /* FNV-1a 64: the empty string is the offset basis; "a" is known */
    CHECK(trace_content_seed("", 0) == 14695981039346656037ULL);
    CHECK(trace_content_seed("a", 1) == 0xaf63dc4c8601ec8cULL);
}

/* any offset and length give the same bytes as one fill of the whole */
static void
test_offsets_agree(void)
{
    unsigned char whole[1000], part[1000];
    uint64_t      seed = trace_content_seed("/x/y.html", 9);
    size_t        off, len;
    int           bad = 0;

    trace_content(seed, 0, whole, sizeof(whole));
    for (off = 0; off < 40; off++) {
        for (len = 0; off + len <= 60; len += 7) {
            trace_content(seed, off, part, len);
            bad += memcmp(part, whole + off, len) != 0;
        }
    }
    trace_content(seed, 993, part, 7);
    bad += memcmp(part, whole + 993, 7) != 0;
    CHECK_INT(bad, 0);
    /* another path, other bytes */
    trace_content(trace_content_seed("/x/z.html", 9), 0, part, 64);
    CHECK(memcmp(part, whole, 64) != 0);
}

int
main(void)
{
    RUN(test_known_values);
    RUN(test_offsets_agree);
    return harness_report("test_content");
}
