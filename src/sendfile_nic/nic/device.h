/*
 * The emulated NIC's on-board memory and the device side of the paper's
 * commands (Kim, Rixner and Pai, section 4, Figure 6): cache_init makes
 * the memory, cache_insert copies a file block into it ("DMA" from main
 * memory), pkt_append_cache sends bytes from it.  Transmission is real:
 * cached bytes reach the client from this memory, so a wrong directory
 * shows up as wrong bytes.  Bytes from main memory (pkt_append_mm) are
 * sent by the backend itself, from the file or from header buffers.
 */

#ifndef SNIC_DEVICE_H
#define SNIC_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct snic_device_s snic_device_t;

typedef struct {
    uint64_t inserts;      /* cache_insert commands */
    uint64_t insert_bytes; /* bytes copied into NIC memory */
    uint64_t cached_bytes; /* bytes sent from NIC memory */
    uint64_t insert_errors;
} snic_device_stats_t;

/*
 * cache_init: NIC memory of size bytes cut into blocks of block bytes
 * (size is rounded down to whole blocks), in a memfd, or with path (a
 * directory) in an unnamed file there.  NULL with err set on failure.
 */
snic_device_t *snic_device_create(size_t size, size_t block, const char *path,
                                  char *err, size_t errlen);
void           snic_device_destroy(snic_device_t *d);

uint32_t snic_device_blocks(const snic_device_t *d);
size_t   snic_device_block_size(const snic_device_t *d);

/* Where block slot starts in NIC memory. */
off_t snic_device_offset(const snic_device_t *d, uint32_t slot);

/*
 * cache_insert: copy len bytes (at most a block) of file fd at file_off
 * into block slot.  The block is punched out first, so data that sends
 * queued from its old contents keep their old pages (see device.c).
 * Returns 0, or -1 with errno (the block then holds nothing valid).
 */
int snic_device_insert(snic_device_t *d, uint32_t slot, int fd, off_t file_off,
                       size_t len);

/*
 * pkt_append_cache, executed: send up to len bytes of NIC memory from
 * nc_off to socket sock without copying them: vmsplice(2) + splice(2)
 * through the calling thread's pipe for a memfd, sendfile(2) for a file
 * (device.c says why).  Returns the bytes sent, or -1 with errno (EAGAIN
 * when the socket is full).
 */
ssize_t snic_device_send(snic_device_t *d, int sock, off_t nc_off, size_t len);

/*
 * The same in two steps, for a sender with several runs of NIC memory for
 * one socket: snic_device_gather() adds up to len bytes at nc_off to what
 * the calling thread has gathered (references to the pages, taken now,
 * so an insert that punches those blocks afterwards does not change
 * them), and snic_device_flush() sends all that to sock at once and drops
 * what the socket does not take.  hot: the blocks were cached before this
 * send (taken through the mapping, which is cheaper for blocks read
 * again; blocks just inserted are read from the memfd, device.c says
 * why).  gather returns the bytes it took (fewer
 * when the thread's pipe is full, 0 when nothing fits: flush first), or
 * -1 when the device or the thread has no splice path (use
 * snic_device_send()).  Nothing else may be sent by the thread between a
 * gather and its flush.  flush returns the bytes sent (0 if nothing was
 * gathered), or -1 with errno (EAGAIN when the socket is full).
 */
ssize_t snic_device_gather(snic_device_t *d, off_t nc_off, size_t len, int hot);
ssize_t snic_device_flush(snic_device_t *d, int sock);

/* The NIC memory's descriptor, to read it (snic_sendfile() through a
 * transport). */
int snic_device_fd(const snic_device_t *d);

/* The NIC memory mapped read-only (NULL if mmap(2) failed): a transport
 * that copies (TLS, gathered small responses) takes cached bytes from
 * here, with no read(2).  Coherent with inserts and punched holes; read
 * it under the same lock as the directory. */
const char *snic_device_memory(const snic_device_t *d);

const snic_device_stats_t *snic_device_stats(const snic_device_t *d);

/*
 * The calling process's own hold on the memory, its descriptor and its
 * mapping (NULL if none), apart from the device's state, which may live
 * in memory shared with other processes and be freed by someone else
 * (snic_nic_memory() in snic_nic.h).  snic_device_let_go() closes and unmaps
 * what snic_device_hold() gave.
 */
void snic_device_hold(const snic_device_t *d, int *fd, const void **map,
                      size_t *size);
void snic_device_let_go(int fd, const void *map, size_t size);

#endif /* SNIC_DEVICE_H */
