/* Unit tests of trace_replayer/lib/models/specweb.c against SPECweb99's figures */

#include <math.h>
#include <string.h>

#include "lib/models/specweb.c"
#include "harness.h"

static void
test_file_set(void)
{
    static const uint64_t class0[9] = {102, 204, 307, 409, 512,
                                       614, 716, 819, 921};
    char                  name[48];
    int                   n;

    /* 25 + (400000 / 122000 * N) / 5, truncated */
    CHECK_INT(specweb_dirs(1), 25);
    CHECK_INT(specweb_dirs(100), 90);
    CHECK_INT(specweb_dirs(1000), 680);
    CHECK_INT(specweb_dirs(1536), 1032);
    for (n = 0; n < 9; n++) {
        CHECK_INT(specweb_size(0, n), class0[n]);
        CHECK_INT(specweb_size(1, n), 1024 * (n + 1));
        CHECK_INT(specweb_size(2, n), 10240 * (n + 1));
        CHECK_INT(specweb_size(3, n), 102400 * (n + 1));
    }
    CHECK_INT(specweb_dir_bytes(), 5119484);
    specweb_name(7, 2, 5, name);
    CHECK_STR(name, "/file_set/dir00007/class2_5");
}

static void
test_mix(void)
{
    specweb_t    *w = specweb_new(90, 3);
    specweb_req_t r;
    long          cls[4] = {0}, rank[4][9], dir0 = 0, conn[16] = {0};
    double        h9 = 0, h90 = 0;
    int           i, k, bad = 0;

    memset(rank, 0, sizeof(rank));
    for (i = 0; i < 100000; i++) {
        specweb_draw(w, &r);
        cls[r.cls]++;
        rank[r.cls][r.rank]++;
        bad += r.file != (int) specweb_rank_file[r.rank] || r.dir >= 90;
        dir0 += r.dir == 0;
        conn[specweb_conn_requests(w)]++;
    }
    CHECK_INT(bad, 0);
    for (k = 0; k < 4; k++) {
        CHECK(fabs(cls[k] / 1e5 - specweb_class_share[k]) < 0.005);
    }
    for (i = 1; i <= 9; i++) {
        h9 += 1.0 / i;
    }
    for (i = 1; i <= 90; i++) {
        h90 += 1.0 / i;
    }
    /* ranks within the two big classes follow Zipf(1) over 9 */
    for (k = 0; k < 2; k++) {
        for (i = 0; i < 9; i++) {
            CHECK(fabs((double) rank[k][i] / cls[k] - 1.0 / (i + 1) / h9)
                  < 0.005);
        }
    }
    CHECK(fabs(dir0 / 1e5 - 1 / h90) < 0.005);
    CHECK_INT(conn[4], 0);
    for (i = 5; i <= 15; i++) {
        CHECK(conn[i] > 8000 && conn[i] < 10200); /* 1/11 each */
    }
    specweb_free(w);
}

int
main(void)
{
    RUN(test_file_set);
    RUN(test_mix);
    return harness_report("test_specweb");
}
