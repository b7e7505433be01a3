/* Unit tests of src/server/core/tls.c: the ciphertext buffer (our write BIO) */

#include "server/core/tls.c"
#include "harness.h"

#include <fcntl.h>

#if defined(HAVE_OPENSSL)

/* record k of the test: 5,000 bytes, byte i is (i * 7 + k) & 0xff */
static void
record(char *p, int k)
{
    int i;

    for (i = 0; i < 5000; i++) {
        p[i] = (char) ((i * 7 + k) & 0xff);
    }
}

/*
 * Two records buffered, a flush that the socket takes only in part (the
 * unsent bytes then start past the buffer's front), a third record that
 * still fits behind them: the peer must read the three in order, byte for
 * byte.  (A record appended at the buffer's length overwrote unsent bytes:
 * bad record MAC at the client.)
 */
static void
test_append_after_a_partial_send(void)
{
    nicd_worker_t w;
    nicd_conn_t   c;
    tls_conn_t    t;
    BIO          *b;
    char          want[3 * 5000], got[3 * 5000];
    int           sv[2], k, small = 4096;
    size_t        n = 0;
    ssize_t       r;

    memset(&w, 0, sizeof(w));
    memset(&c, 0, sizeof(c));
    memset(&t, 0, sizeof(t));
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    c.w = &w;
    c.sc.fd = sv[0];
    t.c = &c;
    pthread_once(&wbio_once, wbio_method_make);
    b = BIO_new(wbio_method);
    CHECK(b != NULL);
    BIO_set_data(b, &t);
    BIO_set_init(b, 1);

    for (k = 0; k < 3; k++) {
        record(want + k * 5000, k);
    }
    CHECK_INT(BIO_write(b, want, 5000), 5000);
    CHECK_INT(BIO_write(b, want + 5000, 5000), 5000);
    CHECK(BIO_flush(b) <= 0); /* the socket took part of it */
    CHECK(t.woff > 0 && t.wlen > 0);
    CHECK_INT(BIO_write(b, want + 10000, 5000), 5000);

    while (n < sizeof(got)) {
        r = read(sv[1], got + n, sizeof(got) - n);
        if (r <= 0) {
            break;
        }
        n += (size_t) r;
        BIO_flush(b);
    }
    CHECK_INT(n, sizeof(got));
    CHECK(memcmp(got, want, sizeof(got)) == 0);
    CHECK_INT(t.wlen, 0);

    BIO_free(b);
    free(t.wbuf);
    nicd_tls_worker_free(&w);
    close(sv[0]);
    close(sv[1]);
}

#endif

int
main(void)
{
#if defined(HAVE_OPENSSL)
    RUN(test_append_after_a_partial_send);
#endif
    return harness_report("test_tls");
}
