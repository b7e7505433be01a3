/*
 * Addresses and address blocks as nginx's allow/deny and
 * set_real_ip_from write them: "192.0.2.1", "10.0.0.0/8", "2001:db8::/32".
 */

#ifndef NICACHE_CIDR_H
#define NICACHE_CIDR_H

#include <stdint.h>

typedef struct {
    int     family; /* AF_INET, AF_INET6 */
    uint8_t addr[16], mask[16];
} nicache_cidr_t;

/* text ("ADDR[/BITS]") into c (the address masked): 0, or -1 */
int nicache_cidr_parse(const char *text, nicache_cidr_t *c);

/* the address text (len bytes) into bin: AF_INET (4 bytes),
 * AF_INET6 (16), or 0 when it is no address */
int nicache_addr_parse(const char *text, size_t len, uint8_t bin[16]);

/* is the address (family, bin) in c?  1 or 0 */
int nicache_cidr_match(const nicache_cidr_t *c, int family, const uint8_t *bin);

#endif /* NICACHE_CIDR_H */
