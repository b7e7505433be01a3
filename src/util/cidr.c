/*
 * Address blocks (cidr.h).
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util/cidr.h"

int
nicache_addr_parse(const char *text, size_t len, uint8_t bin[16])
{
    char buf[INET6_ADDRSTRLEN];

    if (len >= sizeof(buf)) {
        return 0;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (inet_pton(AF_INET, buf, bin) == 1) {
        return AF_INET;
    }
    return inet_pton(AF_INET6, buf, bin) == 1 ? AF_INET6 : 0;
}

int
nicache_cidr_parse(const char *text, nicache_cidr_t *c)
{
    const char *slash = strchr(text, '/');
    size_t      alen = slash != NULL ? (size_t) (slash - text) : strlen(text);
    char       *end;
    long        bits;
    int         i, len;

    memset(c, 0, sizeof(*c));
    c->family = nicache_addr_parse(text, alen, c->addr);
    if (c->family == 0) {
        return -1;
    }
    len = c->family == AF_INET ? 4 : 16;
    bits = len * 8;
    if (slash != NULL) {
        bits = strtol(slash + 1, &end, 10);
        if (slash[1] == '\0' || *end != '\0' || bits < 0 || bits > len * 8) {
            return -1;
        }
    }
    for (i = 0; i < len; i++, bits -= 8) {
        c->mask[i] = bits >= 8  ? 0xff
                     : bits > 0 ? (uint8_t) (0xff << (8 - bits))
                                : 0;
        c->addr[i] &= c->mask[i];
    }
    return 0;
}

int
nicache_cidr_match(const nicache_cidr_t *c, int family, const uint8_t *bin)
{
    int k, len = family == AF_INET ? 4 : 16;

    if (c->family != family) {
        return 0;
    }
    for (k = 0; k < len; k++) {
        if ((bin[k] & c->mask[k]) != c->addr[k]) {
            return 0;
        }
    }
    return 1;
}
