/*
 * Unit tests of trace_replayer/lib/formats/trace_wc98.c, on the WorldCup98 sample
 * against figures computed independently (Python's struct and gzip over
 * the same files).
 */

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/formats/trace_wc98.c"
#include "harness.h"

#define LOG "../shared/traces/worldcup98/test_log.gz"
#define MAP "../shared/traces/worldcup98/object_mappings.sort.gz"

static void
test_decode_by_hand(void)
{
    /* time 1, client 2, object 3, size unknown, HEAD, HTTP/1.1 304 */
    static const unsigned char rec[20] = {
        0, 0, 0, 1,    0,    0,    0,    2, 0,
        0, 0, 3, 0xff, 0xff, 0xff, 0xff, 1, (2 << 6) | 13,
        0, 0,
    };
    trace_req_t r;
    uint32_t    obj;

    trace_wc98_decode(rec, &r, &obj);
    CHECK_INT(r.time, 1);
    CHECK_INT(r.client, 2);
    CHECK_INT(obj, 3);
    CHECK(!r.bytes_known && r.bytes == 0);
    CHECK_INT(r.method, TRACE_HEAD);
    CHECK_INT(r.status, 304);
    CHECK(r.has_protocol);
}

static void
test_sample_log(void)
{
    gzFile        f = gzopen(LOG, "rb");
    unsigned char rec[TRACE_WC98_RECORD];
    trace_req_t   r;
    uint32_t      obj, first_obj = 0;
    int           n = 0, s200 = 0, s304 = 0, s206 = 0, nosize = 0, gets = 0;
    int64_t       t0 = 0, t1 = 0;
    uint64_t      bytes = 0;

    CHECK(f != NULL);
    if (f == NULL) {
        fprintf(stderr,
                "%s is missing (shared/ must be beside the "
                "checkout)\n",
                LOG);
        return;
    }
    while (gzread(f, rec, sizeof(rec)) == (int) sizeof(rec)) {
        trace_wc98_decode(rec, &r, &obj);
        if (n == 0) {
            t0 = r.time;
            first_obj = obj;
        }
        t1 = r.time;
        n++;
        s200 += r.status == 200;
        s304 += r.status == 304;
        s206 += r.status == 206;
        nosize += !r.bytes_known;
        gets += r.method == TRACE_GET;
        bytes += r.bytes;
    }
    gzclose(f);
    CHECK_INT(n, 1000);
    CHECK_INT(s200, 844);
    CHECK_INT(s304, 152);
    CHECK_INT(s206, 4);
    CHECK_INT(nosize, 24);
    CHECK_INT(gets, 1000);
    CHECK_INT(bytes, 5410216);
    CHECK_INT(t0, 893971817);
    CHECK_INT(t1, 893973655);
    CHECK_INT(first_obj, 3208);
}

static void
test_mapping(void)
{
    char              err[256];
    trace_wc98_map_t *m = trace_wc98_map_load(MAP, err, sizeof(err));
    const char       *u;
    size_t            len;

    CHECK(m != NULL);
    if (m == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(trace_wc98_map_count(m), 89997);
    u = trace_wc98_map_url(m, 3208, &len);
    CHECK(u != NULL && len == 17 && memcmp(u, "/images/hm_bg.jpg", 17) == 0);
    u = trace_wc98_map_url(m, 2753, &len);
    CHECK(u != NULL && strcmp(u, "/art/romania team.gif") == 0);
    u = trace_wc98_map_url(m, 0, &len);
    CHECK(u != NULL && strcmp(u, "/images/home_intro.anim.gif") == 0);
    u = trace_wc98_map_url(m, 89996, &len);
    CHECK(u != NULL && strcmp(u, "/common/digits/whiteodo/0.gif") == 0);
    CHECK(trace_wc98_map_url(m, 89997, &len) == NULL);
    CHECK(trace_wc98_map_url(m, 4000000000u, &len) == NULL);
    trace_wc98_map_free(m);

    CHECK(trace_wc98_map_load("/nonexistent", err, sizeof(err)) == NULL);
    CHECK_STR(err, "/nonexistent: cannot open");
}

/* a plain (not gzip) file, and a bad line named by its number */
static void
test_mapping_errors(void)
{
    char              path[] = "/tmp/wc98-map-XXXXXX", err[256], want[300];
    int               fd = mkstemp(path);
    const char       *text = "  1 /a b.html\r\n2 /c\nnot a line\n";
    trace_wc98_map_t *m;
    size_t            len;

    CHECK(write(fd, text, strlen(text)) == (ssize_t) strlen(text));
    close(fd);
    m = trace_wc98_map_load(path, err, sizeof(err));
    CHECK(m == NULL);
    snprintf(want, sizeof(want), "%s:3: not \"id path\"", path);
    CHECK_STR(err, want);

    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(write(fd, text, 20) == 20); /* the two good lines */
    close(fd);
    m = trace_wc98_map_load(path, err, sizeof(err));
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_INT(trace_wc98_map_count(m), 2);
        CHECK_STR(trace_wc98_map_url(m, 1, &len), "/a b.html");
        CHECK_STR(trace_wc98_map_url(m, 2, &len), "/c");
        trace_wc98_map_free(m);
    }
    unlink(path);
}

int
main(void)
{
    RUN(test_decode_by_hand);
    RUN(test_sample_log);
    RUN(test_mapping);
    RUN(test_mapping_errors);
    return harness_report("test_trace_wc98");
}
