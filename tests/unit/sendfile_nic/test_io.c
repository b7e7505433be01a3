/* Unit tests of src/sendfile_nic/io.c */

#include "../../../src/sendfile_nic/io.c"
#include "harness.h"
#include "send_helper.h"

/* headers in many iovecs resume at the right byte after a short send */
static void
test_send_headers_resumes(void)
{
    static char  big[200000];
    struct iovec iov[3];
    snic_send_t  req;
    size_t       done, total = 0, got = 0;
    char        *out = malloc(sizeof(big) + 16);
    int          tx = -1, rx = -1, rc, i;
    snic_conn_t  sc;

    for (i = 0; i < (int) sizeof(big); i++) {
        big[i] = (char) (i % 251);
    }
    iov[0].iov_base = (void *) "head:";
    iov[0].iov_len = 5;
    iov[1].iov_base = big;
    iov[1].iov_len = sizeof(big);
    iov[2].iov_base = (void *) ":tail";
    iov[2].iov_len = 5;
    CHECK_INT(snic_iov_len(iov, 3), sizeof(big) + 10);

    CHECK_INT(small_pair(&tx, &rx), 0);
    memset(&sc, 0, sizeof(sc));
    sc.fd = tx;
    memset(&req, 0, sizeof(req));
    for (;;) {
        /* the caller advances the iovecs past what was sent */
        size_t skip = total;
        struct iovec rest[3];
        int k = 0;
        for (i = 0; i < 3; i++) {
            if (skip >= iov[i].iov_len) {
                skip -= iov[i].iov_len;
                continue;
            }
            rest[k].iov_base = (char *) iov[i].iov_base + skip;
            rest[k].iov_len = iov[i].iov_len - skip;
            skip = 0;
            k++;
        }
        req.hdr = rest;
        req.nhdr = k;
        rc = snic_send_headers(&sc, &req, &done, 0);
        total += done;
        if (rc != SNIC_AGAIN) {
            break;
        }
        got = drain(rx, out, sizeof(big) + 16, got);
    }
    CHECK_INT(rc, SNIC_OK);
    CHECK_INT(total, sizeof(big) + 10);
    close(tx);
    while (got < sizeof(big) + 10) {
        ssize_t n = recv(rx, out + got, sizeof(big) + 16 - got, 0);
        if (n <= 0) {
            break;
        }
        got += (size_t) n;
    }
    CHECK_INT(got, sizeof(big) + 10);
    CHECK(memcmp(out, "head:", 5) == 0);
    CHECK(memcmp(out + 5, big, sizeof(big)) == 0);
    CHECK(memcmp(out + 5 + sizeof(big), ":tail", 5) == 0);
    close(rx);
    free(out);
}

int
main(void)
{
    RUN(test_send_headers_resumes);
    return harness_report("test_io");
}
