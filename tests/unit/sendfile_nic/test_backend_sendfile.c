/* Unit tests of src/sendfile_nic/backend_sendfile.c */

#include "sendfile_nic/backend_sendfile.c"
#include "harness.h"
#include "sendfile_nic/send_helper.h"

static void
test_contract(void)
{
    CHECK_INT(backend_contract(&snic_backend_sendfile, 0), 0);
}

/* max_chunk: one call sends at most that much body, then SNIC_AGAIN */
static void
test_max_chunk(void)
{
    CHECK_INT(backend_contract(&snic_backend_sendfile, 65536), 0);
}

/* with more set, the socket is corked until the last request */
static void
test_cork(void)
{
    snic_instance_t in;
    snic_options_t  opt;
    snic_conn_t     c;
    snic_send_t     req;
    struct iovec    iov = {(void *) "abc", 3};
    char            err[64];
    size_t          sent;
    int             tx, rx, on = -1;
    socklen_t       len = sizeof(on);

    memset(&opt, 0, sizeof(opt));
    snic_instance_start(&in, &snic_backend_sendfile, &opt, err, sizeof(err));
    small_pair(&tx, &rx);
    memset(&c, 0, sizeof(c));
    c.fd = tx;
    memset(&req, 0, sizeof(req));
    req.hdr = &iov;
    req.nhdr = 1;
    req.more = 1;
    CHECK_INT(snic_send(&in, &c, &req, &sent), SNIC_OK);
    CHECK(c.corked);
    getsockopt(tx, IPPROTO_TCP, TCP_CORK, &on, &len);
    CHECK_INT(on, 1);
    req.more = 0;
    CHECK_INT(snic_send(&in, &c, &req, &sent), SNIC_OK);
    CHECK(!c.corked);
    getsockopt(tx, IPPROTO_TCP, TCP_CORK, &on, &len);
    CHECK_INT(on, 0);
    close(tx);
    close(rx);
    snic_instance_stop(&in);
}

/* every byte through a transport of the connection's own (TLS) */
static void
test_through_transport(void)
{
    via_transport = 1;
    CHECK_INT(backend_contract(&snic_backend_sendfile, 0), 0);
    CHECK_INT(backend_contract(&snic_backend_sendfile, 65536), 0);
    via_transport = 0;
}

/* a large body is not corked (its tail would wait): the cork comes off
 * before it, and is not put on for it */
static void
test_no_cork_for_a_large_body(void)
{
    snic_instance_t in;
    snic_options_t  opt;
    snic_conn_t     c;
    snic_send_t     req;
    snic_file_t     file;
    struct stat     st;
    struct iovec    iov = {(void *) "abc", 3};
    char            err[64], path[64], *out = malloc(1 << 20);
    size_t          sent;
    int             tx, rx, fd, agains;

    memset(&opt, 0, sizeof(opt));
    snic_instance_start(&in, &snic_backend_sendfile, &opt, err, sizeof(err));
    fd = pattern_file(CORK_MAX, path, sizeof(path));
    fstat(fd, &st);
    snic_file_init(&file, fd, &st);
    small_pair(&tx, &rx);
    memset(&c, 0, sizeof(c));
    c.fd = tx;
    memset(&req, 0, sizeof(req));
    req.hdr = &iov;
    req.nhdr = 1;
    req.more = 1;
    CHECK_INT(snic_send(&in, &c, &req, &sent), SNIC_OK);
    CHECK(c.corked); /* headers alone, more behind: packed */
    req.file = &file;
    req.len = CORK_MAX;
    snic_send(&in, &c, &req, &sent);
    CHECK(!c.corked); /* a large body, more behind: not held */
    close(tx);
    close(rx);
    /* the bytes still arrive whole */
    small_pair(&tx, &rx);
    CHECK_INT(send_all(&in, tx, rx, "", &file, 0, CORK_MAX, out, 1 << 20,
                       &agains),
              CORK_MAX);
    CHECK(pattern_ok(out, 0, CORK_MAX));
    close(tx);
    close(rx);
    close(fd);
    unlink(path);
    free(out);
    snic_instance_stop(&in);
}

int
main(void)
{
    RUN(test_contract);
    RUN(test_max_chunk);
    RUN(test_cork);
    RUN(test_no_cork_for_a_large_body);
    RUN(test_through_transport);
    return harness_report("test_backend_sendfile");
}
