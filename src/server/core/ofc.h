/*
 * The open file cache: descriptors and stat results by path, per worker
 * thread (no locks), as nginx's open_file_cache.
 *
 * An entry is revalidated with a stat() of its path once it is older than
 * "valid" (valid=0: on every request); if the path now names another
 * inode the entry is replaced.  The stat a request uses is the one its
 * file handle's revision comes from.  An entry in use by a response in
 * flight stays open until released, even when it leaves the cache.
 *
 * A regular file of at most NICD_OFC_MEM_MAX bytes that enters the cache
 * is read into memory once (snic_file_t.mem), so responses that copy it
 * (gathered with their header) need no read; its bytes are as old as its
 * stat, like the rest of the entry.
 *
 * Paths are opened below the root with openat2(RESOLVE_BENEATH), so a
 * symlink that resolves outside the root fails with EXDEV (403).
 */

#ifndef NICD_OFC_H
#define NICD_OFC_H

#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "sendfile_nic/snic.h"

/* the largest file whose bytes the cache keeps (transport.c's
 * GATHER_FILE: the largest range a response gathers) */
#define NICD_OFC_MEM_MAX (16 * 1024)

typedef struct nicd_file_s nicd_file_t;

struct nicd_file_s {
    nicd_file_t *hnext;         /* hash chain */
    nicd_file_t *lprev, *lnext; /* LRU list, most recent first */
    unsigned     hash;
    int          refs;
    unsigned     in_cache : 1;
    unsigned     is_dir : 1;
    int          root_fd; /* the directory path is below */

    snic_file_t file; /* fd, id, revision, size */
    time_t      mtime;
    long        validated_ms;
    long        used_ms;
    char        etag[48];
    size_t      etag_len;
    char        last_modified[32];
    const char *mime;

    size_t path_len;
    char   path[]; /* normalised, "/..." */
};

typedef struct {
    int         symlinks; /* NICD_SYMLINKS_* */
    int         max;      /* 0: no caching, open per request */
    long        valid_ms;
    long        inactive_ms;
    const void *conf; /* nicd_conf_t, for MIME types */

    nicd_file_t **table;
    unsigned      mask;
    int           count;
    nicd_file_t  *lru_head, *lru_tail;

    /* counters */
    unsigned long hits, misses, revalidations, reopens;
} nicd_ofc_t;

int  nicd_ofc_init(nicd_ofc_t *c, int symlinks, int max, long valid_ms,
                   long inactive_ms, const void *conf);
void nicd_ofc_free(nicd_ofc_t *c);

/*
 * Open path (normalised, starting with '/') below the directory root_fd
 * (a location's root or alias); on success
 * *out holds a reference to release with nicd_ofc_release().
 * Returns 0 or an errno value (ENOENT, EXDEV for a path leaving the root,
 * ELOOP for a refused symlink, EMFILE, ...).
 */
int  nicd_ofc_open(nicd_ofc_t *c, int root_fd, const char *path, size_t len,
                   long now_ms, nicd_file_t **out);
void nicd_ofc_release(nicd_ofc_t *c, nicd_file_t *f);

/* Drop entries unused for inactive_ms (called once a second). */
void nicd_ofc_expire(nicd_ofc_t *c, long now_ms);

#endif /* NICD_OFC_H */
