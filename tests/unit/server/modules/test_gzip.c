/* Unit tests of src/server/modules/gzip.c */

#include "server/modules/gzip.c"
#include "harness.h"

/* what it compresses, zlib gives back */
static void
test_round_trip(void)
{
    static const char text[] = "abcabcabcabcabcabcabcabcabc, and more text";
    nicd_buf_t        z = {0};
    char              back[128];
    z_stream          s;

    CHECK_INT(gzip_compress(6, text, sizeof(text) - 1, &z), 0);
    CHECK(z.len > 18 && (unsigned char) z.data[0] == 0x1f
          && (unsigned char) z.data[1] == 0x8b);
    memset(&s, 0, sizeof(s));
    CHECK_INT(inflateInit2(&s, 15 + 16), Z_OK);
    s.next_in = (Bytef *) z.data;
    s.avail_in = (uInt) z.len;
    s.next_out = (Bytef *) back;
    s.avail_out = sizeof(back);
    CHECK_INT(inflate(&s, Z_FINISH), Z_STREAM_END);
    CHECK_INT(sizeof(back) - s.avail_out, sizeof(text) - 1);
    CHECK(memcmp(back, text, sizeof(text) - 1) == 0);
    inflateEnd(&s);
    nicd_buf_free(&z);
}

int
main(void)
{
    RUN(test_round_trip);
    return harness_report("test_gzip");
}
