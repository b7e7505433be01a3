/*
 * What a send backend's writer needs (snic.h is the callers'): the send
 * helpers every backend shares (io.c), the memory the nic model's state
 * comes from (mem.c), and the cache model itself (snic_model.h).
 */

#ifndef SNIC_BACKEND_H
#define SNIC_BACKEND_H

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_model.h"

/* the allocator snic_set_allocator() set (snic_nic.h); shared: its
 * memory is mapped in several processes */
int   snic_allocator_shared(void);
void *snic_calloc(size_t n, size_t size);
void *snic_malloc(size_t size);
void  snic_free(void *p);

/*
 * Helpers shared by backends.
 */

/* Total length of n iovecs. */
size_t snic_iov_len(const struct iovec *iov, int n);

/*
 * Send the iovecs on c: through c->write when the connection has a
 * transport, else with sendmsg(), adding MSG_MORE when more is set.
 * Returns bytes sent (may be short), or -1 with errno (EAGAIN included).
 */
ssize_t snic_send_iov(snic_conn_t *c, const struct iovec *iov, int n, int more);

/*
 * Send up to len bytes of fd from *off on c, advancing *off: sendfile(2)
 * on the socket, or, when c has a transport, a pread() into a buffer
 * written through it.  Returns bytes sent, 0 when fd ends at *off, -1 with
 * errno (EAGAIN included).
 */
ssize_t snic_sendfile(snic_conn_t *c, int fd, off_t *off, size_t len);

/*
 * snic_sendfile() of f's bytes, taking them from f->mem when c has a
 * transport and the server holds them in memory (no pread(2)).
 */
ssize_t snic_send_file(snic_conn_t *c, const snic_file_t *f, off_t *off,
                       size_t len);

/*
 * The header iovecs of req past its first skip bytes, into iov (at most
 * max): how many.
 */
int snic_header_iov(const snic_send_t *req, size_t skip, struct iovec *iov,
                    int max);

/*
 * Send the header iovecs of req that are not sent yet; *done is how many
 * header bytes went out before this call and is advanced.  Returns
 * SNIC_OK when all header bytes are out, else SNIC_AGAIN or SNIC_ERROR.
 */
int snic_send_headers(snic_conn_t *c, const snic_send_t *req, size_t *done,
                      int more);

#endif /* SNIC_BACKEND_H */
