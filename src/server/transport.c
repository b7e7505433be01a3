/* Plain TCP: recv(2); the backends write to the socket themselves. */

#include <sys/socket.h>

#include "nicd.h"
#include "transport.h"

static ssize_t
plain_recv(nicd_conn_t *c, void *buf, size_t len)
{
    return recv(c->sc.fd, buf, len, 0);
}

const nicd_transport_t nicd_transport_plain = {
    "tcp", NULL, NULL, plain_recv, NULL, NULL, NULL, NULL,
};
