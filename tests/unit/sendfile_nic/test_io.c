/* Unit tests of src/sendfile_nic/io.c */

#include "sendfile_nic/io.c"
#include "harness.h"
#include "sendfile_nic/send_helper.h"
#include "sendfile_nic/snic_backend.h"

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

/* a write hook that keeps what it is given (a transport of one's own) */
static char   kept[256];
static size_t nkept;

static ssize_t
keep(snic_conn_t *c, const struct iovec *iov, int n)
{
    size_t k = iov[0].iov_len < sizeof(kept) - nkept
                   ? iov[0].iov_len
                   : sizeof(kept) - nkept;

    (void) c;
    (void) n;
    memcpy(kept + nkept, iov[0].iov_base, k);
    nkept += k;
    return (ssize_t) k;
}

/*
 * snic_send_file: through a transport, the bytes come from the file's
 * copy in memory when there is one (here other bytes than the file's, so
 * the source shows), else from the file; without a transport, sendfile
 * from the file whatever mem says.
 */
static void
test_send_file_takes_bytes_from_memory(void)
{
    char        path[] = "/tmp/nicd-test-io-XXXXXX", out[64];
    const char  mem[] = "in memory, not on disk";
    snic_conn_t sc;
    snic_file_t f;
    struct stat st;
    off_t       off;
    int         fd = mkstemp(path), tx = -1, rx = -1;

    CHECK(fd != -1);
    CHECK(write(fd, "the bytes on the disk!", 22) == 22);
    fstat(fd, &st);
    snic_file_init(&f, fd, &st);
    CHECK(f.mem == NULL);
    memset(&sc, 0, sizeof(sc));
    sc.write = keep;

    /* no copy in memory: read from the file */
    off = 4;
    CHECK_INT(snic_send_file(&sc, &f, &off, 5), 5);
    CHECK_INT(off, 9);
    CHECK(nkept == 5 && memcmp(kept, "bytes", 5) == 0);

    /* a copy in memory: taken from there, bounded by the size */
    f.mem = mem;
    nkept = 0;
    off = 3;
    CHECK_INT(snic_send_file(&sc, &f, &off, 100), 19);
    CHECK_INT(off, 22);
    CHECK(nkept == 19 && memcmp(kept, mem + 3, 19) == 0);

    /* no transport: sendfile(2) from the file */
    CHECK_INT(small_pair(&tx, &rx), 0);
    sc.write = NULL;
    sc.fd = tx;
    off = 0;
    CHECK_INT(snic_send_file(&sc, &f, &off, 22), 22);
    CHECK(recv(rx, out, sizeof(out), 0) == 22
          && memcmp(out, "the bytes on the disk!", 22) == 0);
    close(tx);
    close(rx);
    close(fd);
    unlink(path);
}

int
main(void)
{
    RUN(test_send_headers_resumes);
    RUN(test_send_file_takes_bytes_from_memory);
    return harness_report("test_io");
}
