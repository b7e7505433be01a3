/*
 * Fuzz target: the compact trace format.  The input is a trace file
 * (written to a memfd, since readers open paths); every record read must
 * have a URL inside the table, and the reader must end, never crash.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/formats/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char            path[64], err[256];
    int             fd = memfd_create("fuzz", 0);
    trace_reader_t *t;
    trace_req_t     r;
    int             n = 0;

    if (fd < 0 || write(fd, trace_nic_magic, TRACE_NIC_MAGIC_LEN) < 0
        || (size > 0 && write(fd, data, size) != (ssize_t) size)) {
        abort();
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    t = trace_open(path, "nic", NULL, err, sizeof(err));
    if (t == NULL) {
        abort(); /* the magic is there */
    }
    while (trace_next(t, &r, err, sizeof(err)) == 1 && n++ < 100000) {
        if (r.url == NULL || r.url_len > (1 << 20)) {
            abort();
        }
    }
    trace_close(t);
    close(fd);
    return 0;
}
