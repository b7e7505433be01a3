/*
 * Materialised file contents (see content.h for the definition).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hash.h"
#include "lib/rng.h"
#include "lib/models/content.h"

uint64_t
trace_content_seed(const char *path, size_t len)
{
    return nicache_fnv1a64(path, len);
}

void
trace_content(uint64_t seed, uint64_t off, unsigned char *buf, size_t len)
{
    uint64_t w, word = off / 8;
    unsigned k = (unsigned) (off % 8);
    size_t   i = 0;

    while (i < len) {
        w = trace_rng_mix(seed + word) >> (8 * k);
        for (; k < 8 && i < len; k++) {
            buf[i++] = (unsigned char) (w & 0xff);
            w >>= 8;
        }
        k = 0;
        word++;
    }
}

int
trace_make_parents(int dirfd, char *rel)
{
    char *p;

    for (p = strchr(rel, '/'); p != NULL; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdirat(dirfd, rel, 0755) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return 0;
}

int
trace_content_write(int dirfd, const char *name, uint64_t size,
                    unsigned char *buf, size_t bufsize)
{
    uint64_t seed = trace_content_seed(name, strlen(name)), off = 0;
    char    *rel = strdup(name + 1);
    size_t   n;
    int      fd;

    if (rel == NULL || trace_make_parents(dirfd, rel) != 0) {
        free(rel);
        return -1;
    }
    fd = openat(dirfd, rel,
                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    free(rel);
    if (fd == -1) {
        return -1;
    }
    while (off < size) {
        n = size - off < bufsize ? (size_t) (size - off) : bufsize;
        trace_content(seed, off, buf, n);
        if (write(fd, buf, n) != (ssize_t) n) {
            close(fd);
            return -1;
        }
        off += n;
    }
    return close(fd);
}
