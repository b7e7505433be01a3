/* Unit tests of src/sendfile_nic/nic/device.c */

#include "sendfile_nic/nic/device.c"

#include <poll.h>
#include "sendfile_nic/tcp_pair.h"
#include "harness.h"

#define BLOCK 4096
#define NBLK 16

/* a file of n bytes where byte i is (i * 13 + seed) & 0xff */
static int
pattern_file(size_t n, int seed)
{
    char   path[] = "/tmp/snic-dev-XXXXXX";
    char  *buf = malloc(n);
    size_t i;
    int    fd = mkstemp(path);

    unlink(path);
    for (i = 0; i < n; i++) {
        buf[i] = (char) ((i * 13 + (size_t) seed) & 0xff);
    }
    if (write(fd, buf, n) != (ssize_t) n) {
        fd = -1;
    }
    free(buf);
    return fd;
}

static int
pattern_at(const unsigned char *p, size_t file_off, size_t n, int seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (p[i] != (unsigned char) (((file_off + i) * 13 + (size_t) seed)
                                     & 0xff)) {
            return 0;
        }
    }
    return 1;
}

/* a connected loopback pair with room for 64 KiB nobody reads yet */
static int
roomy_pair(int *tx, int *rx)
{
    return tcp_pair(tx, rx, 1 << 20, 1 << 20);
}

static size_t
recv_all(int rx, unsigned char *buf, size_t n)
{
    size_t  got = 0;
    ssize_t k;

    while (got < n) {
        k = recv(rx, buf + got, n - got, 0);
        if (k <= 0) {
            break;
        }
        got += (size_t) k;
    }
    return got;
}

static void
test_create(void)
{
    char           err[128];
    snic_device_t *d = snic_device_create(16 * 1024 + 100, BLOCK, NULL,
                                          err, sizeof(err));

    CHECK(d != NULL);
    CHECK_INT(snic_device_blocks(d), 4);
    CHECK_INT(snic_device_block_size(d), BLOCK);
    CHECK_INT(snic_device_offset(d, 3), 3 * BLOCK);
    snic_device_destroy(d);
    CHECK(snic_device_create(100, BLOCK, NULL, err, sizeof(err)) == NULL);
    CHECK_STR(err, "NIC memory of 100 bytes cannot hold blocks of 4096 "
                   "bytes");
    CHECK(snic_device_create(BLOCK, 0, NULL, err, sizeof(err)) == NULL);
    /* nic_memory_path: a directory that is not there is named */
    CHECK(snic_device_create(BLOCK, BLOCK, "/nonexistent-nicache", err,
                             sizeof(err))
          == NULL);
    CHECK_STR(err, "NIC memory in /nonexistent-nicache: No such file or "
                   "directory");
}

/* inserted blocks (whole and partial) are the bytes sent from NIC memory */
static void
test_insert_and_send(void)
{
    char           err[128];
    snic_device_t *d = snic_device_create(NBLK * BLOCK, BLOCK, NULL,
                                          err, sizeof(err));
    unsigned char  buf[BLOCK * 2];
    int            fd = pattern_file(5 * BLOCK, 1), tx, rx;

    CHECK_INT(snic_device_insert(d, 2, fd, BLOCK, BLOCK), 0);
    CHECK_INT(snic_device_insert(d, 3, fd, 4 * BLOCK, 100), 0);
    CHECK_INT(roomy_pair(&tx, &rx), 0);
    CHECK_INT(snic_device_send(d, tx, snic_device_offset(d, 2), BLOCK),
              BLOCK);
    CHECK_INT(snic_device_send(d, tx, snic_device_offset(d, 3) + 10, 90),
              90);
    CHECK_INT(recv_all(rx, buf, BLOCK + 90), BLOCK + 90);
    CHECK(pattern_at(buf, BLOCK, BLOCK, 1));
    CHECK(pattern_at(buf + BLOCK, 4 * BLOCK + 10, 90, 1));
    /* the read-only mapping copying transports read: the same bytes */
    CHECK(snic_device_memory(d) != NULL);
    CHECK(pattern_at((const unsigned char *) snic_device_memory(d)
                         + snic_device_offset(d, 2),
                     BLOCK, BLOCK, 1));
    CHECK(pattern_at((const unsigned char *) snic_device_memory(d)
                         + snic_device_offset(d, 3),
                     4 * BLOCK, 100, 1));
    CHECK_INT(snic_device_stats(d)->inserts, 2);
    CHECK_INT(snic_device_stats(d)->insert_bytes, BLOCK + 100);
    CHECK_INT(snic_device_stats(d)->cached_bytes, BLOCK + 90);

    /* a block past the end of the file: an error, counted */
    CHECK_INT(snic_device_insert(d, 4, fd, 5 * BLOCK - 10, 100), -1);
    CHECK_INT(errno, EIO);
    CHECK_INT(snic_device_insert(d, NBLK, fd, 0, 10), -1);
    CHECK_INT(snic_device_insert(d, 0, fd, 0, BLOCK + 1), -1);
    CHECK_INT(snic_device_stats(d)->insert_errors, 3);
    close(tx);
    close(rx);
    close(fd);
    snic_device_destroy(d);
}

/*
 * 64 KiB sent from NIC memory to a socket nobody has read yet, then the
 * same blocks filled with other data.  Without the punch (written straight
 * into the memfd) the queued bytes change: this is the hazard, and it
 * must show here or the second half proves nothing.  With
 * snic_device_insert() (punch first) none of them change.
 */
static void
punch_interlock(const char *path)
{
    char           err[128];
    snic_device_t *d;
    unsigned char *got = malloc(NBLK * BLOCK);
    char          *other = malloc(NBLK * BLOCK);
    int            a = pattern_file(NBLK * BLOCK, 1);
    int            b = pattern_file(NBLK * BLOCK, 2);
    int            tx, rx, i, changed;

    memset(other, 0x5a, NBLK * BLOCK);

    /* the hazard: overwrite without punching */
    d = snic_device_create(NBLK * BLOCK, BLOCK, path, err, sizeof(err));
    CHECK(d != NULL);
    for (i = 0; i < NBLK; i++) {
        snic_device_insert(d, (uint32_t) i, a, (off_t) i * BLOCK, BLOCK);
    }
    roomy_pair(&tx, &rx);
    CHECK_INT(snic_device_send(d, tx, 0, NBLK * BLOCK), NBLK * BLOCK);
    CHECK(pwrite(d->fd, other, NBLK * BLOCK, 0) == NBLK * BLOCK);
    CHECK_INT(recv_all(rx, got, NBLK * BLOCK), NBLK * BLOCK);
    for (changed = 0, i = 0; i < NBLK * BLOCK; i++) {
        changed += got[i] == 0x5a;
    }
    fprintf(stderr, "without the punch, %d of %d queued bytes changed\n",
            changed, NBLK * BLOCK);
    CHECK(changed > 0);
    close(tx);
    close(rx);
    snic_device_destroy(d);

    /* the interlock: insert() punches before it writes */
    d = snic_device_create(NBLK * BLOCK, BLOCK, path, err, sizeof(err));
    CHECK(d != NULL);
    for (i = 0; i < NBLK; i++) {
        snic_device_insert(d, (uint32_t) i, a, (off_t) i * BLOCK, BLOCK);
    }
    roomy_pair(&tx, &rx);
    CHECK_INT(snic_device_send(d, tx, 0, NBLK * BLOCK), NBLK * BLOCK);
    for (i = 0; i < NBLK; i++) {
        CHECK_INT(snic_device_insert(d, (uint32_t) i, b, (off_t) i * BLOCK,
                                     BLOCK), 0);
    }
    CHECK_INT(recv_all(rx, got, NBLK * BLOCK), NBLK * BLOCK);
    CHECK(pattern_at(got, 0, NBLK * BLOCK, 1));
    /* the mapping shows the new contents at once (a punched hole and
     * the pages written after it) */
    CHECK(pattern_at((const unsigned char *) snic_device_memory(d), 0,
                     NBLK * BLOCK, 2));
    /* and the new contents are what goes out next */
    CHECK_INT(snic_device_send(d, tx, 0, NBLK * BLOCK), NBLK * BLOCK);
    CHECK_INT(recv_all(rx, got, NBLK * BLOCK), NBLK * BLOCK);
    CHECK(pattern_at(got, 0, NBLK * BLOCK, 2));
    close(tx);
    close(rx);
    snic_device_destroy(d);

    close(a);
    close(b);
    free(got);
    free(other);
}

static void
test_punch_interlock(void)
{
    punch_interlock(NULL);
}

/* the same with the NIC memory in an unnamed file (nic_memory_path) on
 * the filesystem of the test's temporary directory */
static void
test_punch_interlock_in_a_file(void)
{
    const char *dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";

    punch_interlock(dir);
}

/*
 * A memfd's bytes leave through the thread's pipe.  A send the socket
 * takes only part of must leave the pipe empty: bytes left in it would
 * go out first on the next send, on whatever connection that is.
 */
static void
test_partial_send_leaves_pipe_empty(void)
{
    enum { N = 64 }; /* 256 KiB, more than the small socket takes */
    char           err[128];
    snic_device_t *d = snic_device_create(N * BLOCK, BLOCK, NULL, err,
                                          sizeof(err));
    unsigned char *got = malloc(N * BLOCK);
    int            fd = pattern_file(N * BLOCK, 3), tx, rx, tx2, rx2, i;
    ssize_t        k;
    size_t         sent, recvd;

    CHECK(d != NULL && d->splice);
    for (i = 0; i < N; i++) {
        CHECK_INT(snic_device_insert(d, (uint32_t) i, fd, (off_t) i * BLOCK,
                                     BLOCK), 0);
    }
    CHECK_INT(tcp_pair(&tx, &rx, 4096, 4096), 0);
    CHECK_INT(roomy_pair(&tx2, &rx2), 0);
    CHECK(fcntl(tx, F_SETFL, O_NONBLOCK) == 0);

    k = snic_device_send(d, tx, 0, N * BLOCK);
    CHECK(k > 0 && k < N * BLOCK);
    sent = k > 0 ? (size_t) k : 0;
    CHECK(thread_pipe() != NULL); /* the splice path was taken */

    /* another connection gets its own bytes, nothing left over */
    CHECK_INT(snic_device_send(d, tx2, snic_device_offset(d, 5), BLOCK),
              BLOCK);
    CHECK_INT(recv_all(rx2, got, BLOCK), BLOCK);
    CHECK(pattern_at(got, 5 * BLOCK, BLOCK, 3));

    /* the first connection: the rest, sent as the reader makes room;
     * every byte must be the block's own */
    for (recvd = 0; recvd < N * BLOCK;) {
        if (sent < N * BLOCK) {
            k = snic_device_send(d, tx, (off_t) sent, N * BLOCK - sent);
            if (k > 0) {
                sent += (size_t) k;
            } else if (k != -1 || errno != EAGAIN) {
                break;
            }
        }
        k = recv(rx, got + recvd, N * BLOCK - recvd, MSG_DONTWAIT);
        if (k > 0) {
            recvd += (size_t) k;
        } else if (k == 0 || errno != EAGAIN
                   || poll(&(struct pollfd){.fd = rx, .events = POLLIN}, 1,
                           5000)
                          != 1) {
            break;
        }
    }
    CHECK_INT(recvd, N * BLOCK);
    CHECK(pattern_at(got, 0, N * BLOCK, 3));
    close(tx);
    close(rx);
    close(tx2);
    close(rx2);
    close(fd);
    free(got);
    snic_device_destroy(d);
}

/*
 * Runs from three places of NIC memory gathered, then flushed at once:
 * the socket gets them in order.  An insert that punches a gathered
 * block before the flush does not change what goes out.  A flush the
 * socket takes only part of drops the rest, and the next send is right.
 */
static void
test_gather_then_flush(void)
{
    char           err[128];
    snic_device_t *d = snic_device_create(NBLK * BLOCK, BLOCK, NULL, err,
                                          sizeof(err));
    unsigned char *got = malloc(NBLK * BLOCK);
    int            a = pattern_file(NBLK * BLOCK, 4);
    int            b = pattern_file(NBLK * BLOCK, 5), tx, rx, i;
    ssize_t        k;

    CHECK(d != NULL);
    for (i = 0; i < NBLK; i++) {
        snic_device_insert(d, (uint32_t) i, a, (off_t) i * BLOCK, BLOCK);
    }
    CHECK_INT(roomy_pair(&tx, &rx), 0);
    CHECK_INT(snic_device_flush(d, tx), 0); /* nothing gathered */
    /* through the mapping (hot) and from the memfd, mixed */
    CHECK_INT(snic_device_gather(d, snic_device_offset(d, 9), BLOCK, 0),
              BLOCK);
    CHECK_INT(snic_device_gather(d, snic_device_offset(d, 2) + 100, 50, 0),
              50);
    CHECK_INT(snic_device_gather(d, snic_device_offset(d, 12), 2 * BLOCK, 1),
              2 * BLOCK);
    /* blocks 9 and 12 gathered (each way), then filled with other bytes */
    CHECK_INT(snic_device_insert(d, 9, b, 0, BLOCK), 0);
    CHECK_INT(snic_device_insert(d, 12, b, 0, BLOCK), 0);
    CHECK_INT(snic_device_flush(d, tx), 3 * BLOCK + 50);
    CHECK_INT(recv_all(rx, got, 3 * BLOCK + 50), 3 * BLOCK + 50);
    CHECK(pattern_at(got, 9 * BLOCK, BLOCK, 4));
    CHECK(pattern_at(got + BLOCK, 2 * BLOCK + 100, 50, 4));
    CHECK(pattern_at(got + BLOCK + 50, 12 * BLOCK, 2 * BLOCK, 4));
    close(tx);
    close(rx);

    /* partly taken: the rest is dropped, not sent later (the 8 blocks,
     * 8 times over, are more than the small socket takes) */
    CHECK_INT(tcp_pair(&tx, &rx, 4096, 4096), 0);
    CHECK(fcntl(tx, F_SETFL, O_NONBLOCK) == 0);
    for (i = 0; i < 8 * NBLK; i += 2) {
        CHECK_INT(snic_device_gather(
                      d, snic_device_offset(d, (uint32_t) (i % NBLK)), BLOCK,
                      i % 4 == 0),
                  BLOCK);
    }
    k = snic_device_flush(d, tx);
    CHECK(k > 0 && k < 4 * NBLK * BLOCK);
    CHECK_INT(snic_device_flush(d, tx), 0);
    close(tx);
    close(rx);
    CHECK_INT(roomy_pair(&tx, &rx), 0);
    CHECK_INT(snic_device_send(d, tx, snic_device_offset(d, 3), BLOCK),
              BLOCK);
    CHECK_INT(recv_all(rx, got, BLOCK), BLOCK);
    CHECK(pattern_at(got, 3 * BLOCK, BLOCK, 4));
    close(tx);
    close(rx);
    close(a);
    close(b);
    free(got);
    snic_device_destroy(d);
}

int
main(void)
{
    RUN(test_create);
    RUN(test_insert_and_send);
    RUN(test_punch_interlock);
    RUN(test_punch_interlock_in_a_file);
    RUN(test_partial_send_leaves_pipe_empty);
    RUN(test_gather_then_flush);
    return harness_report("test_device");
}
