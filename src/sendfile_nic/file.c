/*
 * File handles: identity and revision of a file a backend sends from.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for embedders (the nginx module) that do not */
#endif

#include <sys/stat.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_backend.h"

uint64_t
snic_file_revision(const struct stat *st)
{
    uint64_t h = 0;

    h = snic_mix(h, (uint64_t) st->st_mtim.tv_sec);
    h = snic_mix(h, (uint64_t) st->st_mtim.tv_nsec);
    h = snic_mix(h, (uint64_t) st->st_ctim.tv_sec);
    h = snic_mix(h, (uint64_t) st->st_ctim.tv_nsec);
    h = snic_mix(h, (uint64_t) st->st_size);
    h = snic_mix(h, (uint64_t) st->st_ino);
    return h;
}

void
snic_file_init(snic_file_t *f, int fd, const struct stat *st)
{
    f->fd = fd;
    f->id_dev = st->st_dev;
    f->id_ino = st->st_ino;
    f->revision = snic_file_revision(st);
    f->size = st->st_size;
    f->cacheable = S_ISREG(st->st_mode) ? 1 : 0;
    f->mem = NULL;
}
