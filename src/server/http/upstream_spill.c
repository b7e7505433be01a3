/*
 * A proxied response's body kept in a temporary file while its client is
 * slower than its upstream (upstream.h: nicd_spill_t), as nginx's
 * proxy_max_temp_file_size and proxy_temp_path: a file with no name in
 * the directory (O_TMPFILE; where the file system has none, a named one
 * unlinked at once), so nothing is left behind whatever becomes of the
 * request.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/http/upstream.h"

/* a file of its own in dir: a descriptor, or -1 (errno) */
static int
temp_open(const char *dir)
{
    char name[PATH_MAX];
    int  fd;

#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR)) {
        return fd;
    }
#endif
    if (snprintf(name, sizeof(name), "%s/nicd.XXXXXX", dir)
        >= (int) sizeof(name)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkostemp(name, O_CLOEXEC);
    if (fd >= 0) {
        (void) unlink(name);
    }
    return fd;
}

int
nicd_spill_store(nicd_spill_t *s, const char *dir, const char *p, size_t n)
{
    ssize_t k;

    if (s->fd < 0 && (s->fd = temp_open(dir)) < 0) {
        return -1;
    }
    while (n > 0) {
        k = pwrite(s->fd, p, n, s->wr);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            if (k == 0) {
                errno = ENOSPC;
            }
            return -1;
        }
        s->wr += k;
        p += k;
        n -= (size_t) k;
    }
    return 0;
}

ssize_t
nicd_spill_read(nicd_spill_t *s, char *buf, size_t cap)
{
    size_t  want = (size_t) (s->wr - s->rd);
    ssize_t k;

    if (want > cap) {
        want = cap;
    }
    do {
        k = pread(s->fd, buf, want, s->rd);
    } while (k < 0 && errno == EINTR);
    if (k == 0 && want > 0) {
        errno = EIO; /* (shorter than written: the file was cut) */
        return -1;
    }
    if (k > 0) {
        s->rd += k;
        if (s->rd == s->wr) {
            /* all read back: the file starts again, its blocks freed */
            s->rd = s->wr = 0;
            (void) ftruncate(s->fd, 0);
        }
    }
    return k;
}

void
nicd_spill_close(nicd_spill_t *s)
{
    if (s->fd >= 0) {
        close(s->fd);
    }
    s->fd = -1;
    s->rd = s->wr = 0;
}

const char *
nicd_upstream_slot_temp_path(parse_t *ps, const char **a, int n)
{
    const char *err;
    int         i;

    for (i = 1; i < n; i++) {
        if ((a[i][0] != '1' && a[i][0] != '2') || a[i][1] != '\0') {
            return nicd_conf_msg("invalid value \"%s\"", a[i]);
        }
    }
    if (ps->d->offset == 0) {
        return nicd_conf_housekeeping(ps, a, n);
    }
    if ((err = nicd_conf_slot_str(ps, a, n)) != NULL) {
        return err;
    }
    /* made when the configuration is read, as nginx's paths are */
    if (mkdir(a[0], 0700) != 0 && errno != EEXIST) {
        return nicd_conf_msg("mkdir() \"%s\" failed (%d: %s)", a[0], errno,
                             strerror(errno));
    }
    return NULL;
}
