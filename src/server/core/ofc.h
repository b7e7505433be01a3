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
 * A file asked for fewer than min_uses times (open_file_cache_min_uses)
 * since it entered is opened per request: its entry only counts the uses
 * (no descriptor).  With errors on (open_file_cache_errors) a name that
 * could not be opened is kept too, with its error, revalidated as the
 * others are.
 *
 * A regular file of at most NICD_OFC_MEM_MAX bytes that enters the cache
 * is read into memory once (snic_file_t.mem), so responses that copy it
 * (gathered with their header) need no read; its bytes are as old as its
 * stat, like the rest of the entry.
 *
 * Which symlinks are followed is the request's (disable_symlinks, per
 * location): an entry is found only by a request opening it the same way.
 * off: all; outside (nicd's): those resolving below the root, opened with
 * openat2(RESOLVE_BENEATH), so a symlink leaving it fails with EXDEV
 * (403); on and if_not_owner: the whole name is walked from "/" (or from
 * the end of from=) a component at a time, as nginx walks it (ELOOP).
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
    int          root_fd;  /* the directory path is below */
    int          symlinks; /* how it was opened: nicd_open_how_t's */
    size_t       from;
    int          err;  /* a kept error (open_file_cache_errors), else 0 */
    unsigned     uses; /* since it entered */

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
    int         max; /* 0: no caching, open per request */
    long        valid_ms;
    long        inactive_ms;
    unsigned    min_uses;
    int         errors;
    const void *conf; /* nicd_conf_t, for MIME types */

    nicd_file_t **table;
    unsigned      mask;
    int           count;
    nicd_file_t  *lru_head, *lru_tail;

    /* counters */
    unsigned long hits, misses, revalidations, reopens;
} nicd_ofc_t;

struct nicd_conf_s;

/* c empty, with conf's open_file_cache settings: 0, or -1 (no memory) */
int  nicd_ofc_init(nicd_ofc_t *c, const struct nicd_conf_s *conf);
void nicd_ofc_free(nicd_ofc_t *c);

/* where a file is, and which symlinks its name may go through */
typedef struct {
    int root_fd;  /* the directory the path is below (a root or alias) */
    int symlinks; /* NICD_SYMLINKS_* */
    /* on, if_not_owner: the whole name (the root's, then the path),
     * checked after its first `from` bytes (disable_symlinks from=; 0:
     * from "/") */
    const char *full;
    size_t      from;
} nicd_open_how_t;

/*
 * Open path (normalised, starting with '/') below how->root_fd; on
 * success *out holds a reference to release with nicd_ofc_release().
 * Returns 0 or an errno value (ENOENT, EXDEV for a path leaving the root,
 * ELOOP for a refused symlink, EMFILE, ...).
 */
int nicd_ofc_open(nicd_ofc_t *c, const nicd_open_how_t *how, const char *path,
                  size_t len, long now_ms, nicd_file_t **out);

/*
 * Open name with flags, following its symlinks as mode
 * (NICD_SYMLINKS_ON or _NOTOWNER) allows, as nginx's disable_symlinks:
 * each component after the first `from` bytes is opened in turn from
 * the one before it; on: none may be a symlink; if_not_owner: a symlink
 * must have the owner of what it names.  A descriptor, or -1 with errno
 * (ELOOP: a symlink refused).
 */
int  nicd_open_checked(const char *name, size_t from, int mode, int flags);
void nicd_ofc_release(nicd_ofc_t *c, nicd_file_t *f);

/* Drop entries unused for inactive_ms (called once a second). */
void nicd_ofc_expire(nicd_ofc_t *c, long now_ms);

#endif /* NICD_OFC_H */
