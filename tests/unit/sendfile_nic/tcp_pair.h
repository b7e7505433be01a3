/*
 * A connected loopback TCP pair for the send-path tests.  sndbuf and
 * rcvbuf set SO_SNDBUF on the sender and SO_RCVBUF on the receiver
 * (0: the kernel's default).  Returns 0, or -1.
 */

#ifndef TCP_PAIR_H
#define TCP_PAIR_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int __attribute__((unused))
tcp_pair(int *tx, int *rx, int sndbuf, int rcvbuf)
{
    struct sockaddr_in sa;
    socklen_t          len = sizeof(sa);
    int                l;

    l = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(l, (struct sockaddr *) &sa, sizeof(sa)) != 0 || listen(l, 1) != 0
        || getsockname(l, (struct sockaddr *) &sa, &len) != 0) {
        close(l);
        return -1;
    }
    *tx = socket(AF_INET, SOCK_STREAM, 0);
    if (sndbuf > 0) {
        setsockopt(*tx, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    }
    if (connect(*tx, (struct sockaddr *) &sa, sizeof(sa)) != 0) {
        close(l);
        return -1;
    }
    *rx = accept(l, NULL, NULL);
    close(l);
    if (*rx >= 0 && rcvbuf > 0) {
        setsockopt(*rx, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    }
    return *rx < 0 ? -1 : 0;
}

#endif /* TCP_PAIR_H */
