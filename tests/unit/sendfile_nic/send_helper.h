/*
 * Shared by the backend tests: a loopback TCP pair with a small send
 * buffer (so that a 1 MiB send stops early and resumes), and a driver that calls a
 * backend until a request is sent, as the server does, reading the other
 * end as it goes.
 */

#ifndef SEND_HELPER_H
#define SEND_HELPER_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/tcp_pair.h"

/* *tx: a non-blocking sender with a small buffer; *rx: the receiver. */
static int
small_pair(int *tx, int *rx)
{
    if (tcp_pair(tx, rx, 4096, 0) != 0) {
        return -1;
    }
    return fcntl(*tx, F_SETFL, O_NONBLOCK);
}

/*
 * A stand-in for a transport of the connection's own (TLS): when
 * via_transport is set, send_all() gives the connection a write hook that
 * takes at most 1,000 bytes a call, XORs them with 0x5a and sends them;
 * the receiving side undoes the XOR.  A byte that reached the socket any
 * other way (sendfile(2) past the transport) comes out wrong.
 */
static int via_transport;

/* the backend's directives for backend_contract() (none by default) */
static const snic_param_t *contract_params;
static int                 contract_nparams;

static ssize_t __attribute__((unused))
xor_write(snic_conn_t *c, const struct iovec *iov, int n)
{
    unsigned char buf[1000];
    size_t        k = 0, take;
    ssize_t       w;
    int           i;

    for (i = 0; i < n && k < sizeof(buf); i++) {
        take = iov[i].iov_len < sizeof(buf) - k ? iov[i].iov_len
                                                : sizeof(buf) - k;
        memcpy(buf + k, iov[i].iov_base, take);
        k += take;
    }
    for (i = 0; i < (int) k; i++) {
        buf[i] ^= 0x5a;
    }
    w = send(c->fd, buf, k, MSG_NOSIGNAL);
    return w;
}

/* Read whatever is available on rx without blocking. */
static size_t
drain(int rx, char *buf, size_t cap, size_t have)
{
    ssize_t n, i;

    while (have < cap) {
        n = recv(rx, buf + have, cap - have, MSG_DONTWAIT);
        if (n <= 0) {
            break;
        }
        for (i = 0; via_transport && i < n; i++) {
            buf[have + (size_t) i] ^= 0x5a;
        }
        have += (size_t) n;
    }
    return have;
}

/*
 * Send hdr (one string, may be empty) then file[off, off+len) through the
 * instance, retrying on SNIC_AGAIN after reading the receiver, as the
 * server's flush does.  Returns the bytes received in out, or -1 when the
 * backend failed.  *agains counts the SNIC_AGAIN returns.
 */
static long
send_all(snic_instance_t *in, int tx, int rx, const char *hdr,
         snic_file_t *file, off_t off, size_t len, char *out, size_t cap,
         int *agains)
{
    snic_conn_t   c;
    snic_send_t   req;
    struct iovec  iov;
    struct pollfd pfd;
    size_t       hdr_left = strlen(hdr), sent, got = 0, total;
    const char  *hp = hdr;
    int          rc;

    memset(&c, 0, sizeof(c));
    c.fd = tx;
    if (via_transport) {
        c.write = xor_write;
    }
    snic_conn_open(in, &c);
    total = hdr_left + len;
    *agains = 0;

    for (;;) {
        memset(&req, 0, sizeof(req));
        iov.iov_base = (void *) hp;
        iov.iov_len = hdr_left;
        req.hdr = &iov;
        req.nhdr = hdr_left > 0 ? 1 : 0;
        req.file = len > 0 ? file : NULL;
        req.offset = off;
        req.len = len;

        rc = snic_send(in, &c, &req, &sent);
        if (sent > hdr_left) {
            off += (off_t) (sent - hdr_left);
            len -= sent - hdr_left;
            hp += hdr_left;
            hdr_left = 0;
        } else {
            hp += sent;
            hdr_left -= sent;
        }
        if (rc == SNIC_OK) {
            if (hdr_left != 0 || len != 0) {
                return -2; /* OK but not everything sent */
            }
            break;
        }
        if (rc == SNIC_ERROR) {
            snic_conn_close(in, &c);
            return -1;
        }
        (*agains)++;
        got = drain(rx, out, cap, got);
        pfd.fd = tx;
        pfd.events = POLLOUT;
        poll(&pfd, 1, 1000);
    }
    snic_conn_close(in, &c);
    while (got < total && got < cap) {
        ssize_t n = recv(rx, out + got, cap - got, 0), i;

        if (n <= 0) {
            break;
        }
        for (i = 0; via_transport && i < n; i++) {
            out[got + (size_t) i] ^= 0x5a;
        }
        got += (size_t) n;
    }
    return (long) got;
}

/* A temporary file of size bytes, byte i = (i * 7 + i / 251) & 0xff. */
static int
pattern_file(size_t size, char *path, size_t pathlen)
{
    char  *buf = malloc(size ? size : 1);
    size_t i;
    int    fd;

    snprintf(path, pathlen, "/tmp/snic-test-XXXXXX");
    fd = mkstemp(path);
    for (i = 0; i < size; i++) {
        buf[i] = (char) ((i * 7 + i / 251) & 0xff);
    }
    if (write(fd, buf, size) != (ssize_t) size) {
        fd = -1;
    }
    free(buf);
    return fd;
}

static int
pattern_ok(const char *p, size_t off, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        if ((unsigned char) p[i]
            != (unsigned char) (((off + i) * 7 + (off + i) / 251) & 0xff)) {
            return 0;
        }
    }
    return 1;
}

/*
 * The contract every backend must keep, checked for backend b: headers
 * alone, headers and a whole file, a range in the middle, and a file
 * truncated under us (SNIC_ERROR, errno EIO).  Returns failures.
 */
static int __attribute__((unused))
backend_contract(const snic_backend_t *b, size_t max_chunk)
{
    snic_instance_t in;
    snic_options_t  opt;
    snic_file_t     file;
    struct stat     st;
    char            path[64], err[128];
    char           *out;
    size_t          size = 1 << 20, cap = (1 << 20) + 4096;
    const char     *hdr = "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n";
    long            got;
    int             fd, tx, rx, agains, failures = 0;

    memset(&opt, 0, sizeof(opt));
    opt.max_chunk = max_chunk;
    opt.params = contract_params;
    opt.nparams = contract_nparams;
    if (snic_instance_start(&in, b, &opt, err, sizeof(err)) != 0) {
        return 1;
    }
    out = malloc(cap);
    fd = pattern_file(size, path, sizeof(path));
    fstat(fd, &st);
    snic_file_init(&file, fd, &st);

    /* headers only */
    if (small_pair(&tx, &rx) != 0) {
        return 1;
    }
    got = send_all(&in, tx, rx, hdr, NULL, 0, 0, out, cap, &agains);
    failures += got != (long) strlen(hdr) || memcmp(out, hdr, strlen(hdr));
    close(tx);
    close(rx);

    /* headers and the whole file: stops early many times */
    small_pair(&tx, &rx);
    got = send_all(&in, tx, rx, hdr, &file, 0, size, out, cap, &agains);
    failures += got != (long) (strlen(hdr) + size);
    failures += memcmp(out, hdr, strlen(hdr)) != 0;
    failures += !pattern_ok(out + strlen(hdr), 0, size);
    failures += agains == 0;
    close(tx);
    close(rx);

    /* a range that starts and ends inside, no headers */
    small_pair(&tx, &rx);
    got = send_all(&in, tx, rx, "", &file, 4095, 70001, out, cap, &agains);
    failures += got != 70001 || !pattern_ok(out, 4095, 70001);
    close(tx);
    close(rx);

    /* truncated under us: an error, never made-up bytes */
    small_pair(&tx, &rx);
    if (ftruncate(fd, 1000) != 0) {
        failures++;
    }
    got = send_all(&in, tx, rx, "", &file, 0, size, out, cap, &agains);
    failures += got != -1 || errno != EIO;
    close(tx);
    close(rx);

    close(fd);
    unlink(path);
    free(out);
    snic_instance_stop(&in);
    return failures;
}

#endif /* SEND_HELPER_H */
