/*
 * What gathering a body's pages into a pipe costs, by where the bytes
 * live: the first half of every zero-copy send (sendfile(2) is a splice
 * into a pipe of the kernel's, then from it to the socket).  Three
 * sources of the same bytes:
 *   file    splice(2) from a regular file in DIR (its page cache, read in
 *           batches: filemap_splice_read);
 *   memfd   splice(2) from a memfd, as the nic backend's NIC memory was
 *           sent before (shmem_file_splice_read, a page at a time);
 *   mapping vmsplice(2) from a read-only shared mapping of that memfd,
 *           as the nic backend sends it now (a page-table walk).
 * Each gather is then drained to /dev/null, the same for all three, so
 * only the differences are the sources'.  No socket is involved: the
 * loopback's TCP work, which dominates a real send and moves from run to
 * run on a shared machine, is left out.
 *
 * Usage: build/bench/splice_gather [KIB...] (default 4 16 64 256)
 * Environment: TMPDIR (default /tmp) is where the file goes.
 * Prints, per size, the median of 7 rounds of microseconds per gather.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define AREA   (16 * 1024 * 1024) /* a 16 MiB NIC memory */
#define ROUNDS 7
#define BYTES  (2048ul * 1024 * 1024) /* gathered per round and source */

enum { FROM_FILE, FROM_MEMFD, FROM_MAPPING, NSOURCES };

static const char *source_name[NSOURCES] = {"file", "memfd", "mapping"};

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return x < y ? -1 : x > y;
}

static int
fill(int fd, const char *buf)
{
    return pwrite(fd, buf, AREA, 0) == AREA ? 0 : -1;
}

/* One round: microseconds per gather of len bytes from source src. */
static double
round_us(int src, int fd, const char *map, const int *pp, int null, size_t len)
{
    size_t n = BYTES / len, i;
    double t0 = now();

    for (i = 0; i < n; i++) {
        off_t        off = (off_t) (i * len % (AREA - len + 1));
        struct iovec iov;
        ssize_t      in;

        off -= off % 4096;
        if (src == FROM_MAPPING) {
            iov.iov_base = (char *) map + off;
            iov.iov_len = len;
            in = vmsplice(pp[1], &iov, 1, 0);
        } else {
            in = splice(fd, &off, pp[1], NULL, len, 0);
        }
        if (in != (ssize_t) len
            || splice(pp[0], NULL, null, NULL, len, 0) != (ssize_t) len) {
            fprintf(stderr, "splice_gather: %s: %s\n", source_name[src],
                    in == -1 ? strerror(errno) : "short gather");
            exit(1);
        }
    }
    return (now() - t0) / (double) n * 1e6;
}

int
main(int argc, char **argv)
{
    static const size_t defaults[] = {4, 16, 64, 256};
    const char *dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    double      us[NSOURCES][ROUNDS];
    char       *buf = malloc(AREA), *map;
    int         fd[NSOURCES], pp[2], null, a, s, r;
    size_t      i, len;

    if (buf == NULL) {
        return 1;
    }
    for (i = 0; i < AREA; i++) {
        buf[i] = (char) (i * 131 + i / 4096);
    }
    fd[FROM_FILE] = open(dir, O_TMPFILE | O_RDWR, 0600);
    fd[FROM_MEMFD] = memfd_create("splice-gather", 0);
    fd[FROM_MAPPING] = fd[FROM_MEMFD];
    null = open("/dev/null", O_WRONLY);
    if (fd[FROM_FILE] == -1 || fd[FROM_MEMFD] == -1 || null == -1
        || fill(fd[FROM_FILE], buf) != 0 || fill(fd[FROM_MEMFD], buf) != 0
        || pipe(pp) != 0 || fcntl(pp[1], F_SETPIPE_SZ, 1024 * 1024) == -1) {
        fprintf(stderr, "splice_gather: set-up in %s: %s\n", dir,
                strerror(errno));
        return 1;
    }
    map = mmap(NULL, AREA, PROT_READ, MAP_SHARED, fd[FROM_MEMFD], 0);
    if (map == MAP_FAILED) {
        fprintf(stderr, "splice_gather: mmap: %s\n", strerror(errno));
        return 1;
    }

    printf("gather into a pipe, then drain to /dev/null: us per gather, "
           "median of %d rounds (file in %s)\n",
           ROUNDS, dir);
    printf("%8s %10s %10s %10s\n", "KiB", source_name[0], source_name[1],
           source_name[2]);
    for (a = 1; a < argc || (argc == 1 && a <= 4); a++) {
        len = (argc > 1 ? strtoul(argv[a], NULL, 10) : defaults[a - 1]) * 1024;
        if (len == 0 || len > 1024 * 1024) {
            fprintf(stderr, "splice_gather: sizes are 1 to 1024 KiB\n");
            return 2;
        }
        /* the sources take turns, so a slow spell of the machine hits
         * all of them */
        for (r = 0; r < ROUNDS; r++) {
            for (s = 0; s < NSOURCES; s++) {
                us[s][r] = round_us(s, fd[s], map, pp, null, len);
            }
        }
        printf("%8zu", len / 1024);
        for (s = 0; s < NSOURCES; s++) {
            qsort(us[s], ROUNDS, sizeof(double), cmp_double);
            printf(" %10.2f", us[s][ROUNDS / 2]);
        }
        printf("\n");
    }
    return 0;
}
