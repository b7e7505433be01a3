/*
 * The bytes of a materialised file: a function of (path, offset), so a
 * client can check every byte it receives without a copy of the docroot.
 *
 *   seed        = FNV-1a 64 of the file's name from the docroot, with a
 *                 leading '/' (trace_file_name(): the URL path decoded,
 *                 "//" merged, "index.html" after a trailing '/')
 *   word i      = splitmix64(seed + i), bytes 8i .. 8i+7, little-endian
 *   byte at o   = byte o % 8 of word o / 8
 *
 * splitmix64(x): z = x + 0x9e3779b97f4a7c15;
 *   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
 *   z = (z ^ (z >> 27)) * 0x94d049bb133111eb;  return z ^ (z >> 31).
 */

#ifndef TRACE_CONTENT_H
#define TRACE_CONTENT_H

#include <stddef.h>
#include <stdint.h>

/* The seed of a file's bytes: nicache_fnv1a64 of its name. */
uint64_t trace_content_seed(const char *path, size_t len);

/* Fill buf with the len bytes at offset off of the file with seed. */
void trace_content(uint64_t seed, uint64_t off, unsigned char *buf, size_t len);

/*
 * Write the file name (from a docroot, with its leading '/') of size bytes
 * below the directory dirfd, making its parent directories, never
 * following a symlink; buf (bufsize bytes) is scratch.  0, or -1 with
 * errno.
 */
int trace_content_write(int dirfd, const char *name, uint64_t size,
                        unsigned char *buf, size_t bufsize);

/* mkdir -p of the directories of the relative path rel below dirfd (rel
 * is changed and restored); 0, or -1 with errno. */
int trace_make_parents(int dirfd, char *rel);

#endif /* TRACE_CONTENT_H */
