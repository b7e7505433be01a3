/*
 * The nic backend for an embedder that sends by itself (the nginx
 * module): where a file's bytes are, NIC memory or the file, and the
 * shared memory its state may live in.  snic.h is every caller's.
 */

#ifndef SNIC_NIC_H
#define SNIC_NIC_H

#include "sendfile_nic/snic.h"

/*
 * Memory for the nic backend's state (mem.c).  By default the C heap; a
 * program that shares one emulated NIC between processes sets an
 * allocator over shared memory (mapped at one address in all of them)
 * around snic_instance_start() and says shared: the backend's locks are
 * then process-shared (and robust: a process that dies holding one does
 * not stop the others).  free may be NULL (an arena).  Not thread-safe:
 * set it while nothing else runs.
 */
typedef struct snic_allocator_s {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *p);
    void    *ctx;
    unsigned shared : 1;
} snic_allocator_t;

void snic_set_allocator(const snic_allocator_t *a); /* NULL: the heap */

/*
 * The nic backend for a server that sends by itself (the nginx module:
 * nginx's write filter calls sendfile(2), not a backend).  The server
 * opens a connection with the instance's conn_open as nicd does, then,
 * for each file range of a response, asks where its bytes are:
 * snic_nic_map() walks the range block by block, as the nic backend's
 * send would (lookups, inserts, fallbacks, counters), and describes up
 * to max pieces, in order: from NIC memory (fd is the device's memfd or
 * file, off the offset in it) or from the file (fd is f->fd).  Adjacent
 * blocks from the same source that are adjacent there too make one piece
 * (a file cached in consecutive slots is one piece, as nic_send sends it
 * in one run).  The slots of a piece from NIC memory, [slot, slot +
 * nslots), are pinned (not replaced) until the server has handed the
 * piece to the kernel and calls snic_nic_unpin() with them (after that the
 * punch-hole interlock of nic/device.c keeps queued bytes right).
 * Returns the count of pieces, *mapped the bytes they cover (less than
 * len when max is reached), or -1 (not a nic instance).
 * When a response ends, snic_nic_response_done() charges the bus and
 * host models for it, with other: its bytes that were not file blocks
 * (headers, generated bodies); it returns how long (ns) to wait before
 * the next send when nic_bus_limit is on, else 0.
 */
typedef struct snic_piece_s {
    int      from_nic;
    int      fd;
    off_t    off;
    size_t   len;
    uint32_t slot;   /* from_nic: the first pinned slot */
    uint32_t nslots; /* from_nic: how many, from slot on */
} snic_piece_t;

int      snic_nic_map(snic_instance_t *in, snic_conn_t *c, const snic_file_t *f,
                      off_t off, size_t len, snic_piece_t *p, int max,
                      size_t *mapped);
void     snic_nic_unpin(snic_instance_t *in, snic_conn_t *c, uint32_t slot,
                        uint32_t nslots);
uint64_t snic_nic_response_done(snic_instance_t *in, snic_conn_t *c,
                                size_t other);

/*
 * What of a nic instance's NIC memory the calling process holds itself,
 * apart from the instance's state: each NIC's descriptor and read-only
 * mapping.  An embedder whose state lives in shared memory that it frees
 * without snic_instance_stop() (nginx frees a shared zone a reload no
 * longer uses) takes these while the state is there, and gives them to
 * snic_nic_memory_release() once the process is done with that NIC
 * memory: then the memory itself goes when no process holds it.
 * snic_nic_memory() returns how many it filled (at most max), or -1
 * (not a nic instance).
 */
typedef struct snic_nic_memory_s {
    int         fd;
    const void *map;
    size_t      size;
} snic_nic_memory_t;

int  snic_nic_memory(const snic_instance_t *in, snic_nic_memory_t *m, int max);
void snic_nic_memory_release(const snic_nic_memory_t *m, int n);

#endif /* SNIC_NIC_H */
