/*
 * The project's own compact trace format ("nic"), written by
 * nictrace convert and read faster than text:
 *
 *   "NICTRACE" 0x01                          magic and version
 *   then one record per request:
 *     u8     tag: bit 0 set when the record defines a new URL
 *     [varint len, len bytes]                the new URL (ids count from
 *                                            0 in order of definition)
 *     varint zigzag(time - previous time)    seconds
 *     varint client key
 *     u8     method (TRACE_GET, ...), varint status,
 *     varint bytes + 1 (0: unknown), varint URL id, u8 has_protocol
 *
 * Varints are little-endian base 128 (7 bits a byte, high bit: more).
 */

#include <stdlib.h>
#include <string.h>

#include "lib/formats/trace.h"

const unsigned char trace_nic_magic[TRACE_NIC_MAGIC_LEN] = {
    'N', 'I', 'C', 'T', 'R', 'A', 'C', 'E', 1};

static unsigned char *
put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char) (v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char) v;
    return p;
}

size_t
trace_nic_encode(trace_nic_enc_t *e, const trace_req_t *r, uint32_t url_id,
                 int define, unsigned char *out)
{
    unsigned char *p = out;
    int64_t        d = r->time - e->last_time;

    *p++ = (unsigned char) (define ? 1 : 0);
    if (define) {
        p = put_varint(p, r->url_len);
        memcpy(p, r->url, r->url_len);
        p += r->url_len;
    }
    p = put_varint(p, ((uint64_t) d << 1) ^ (uint64_t) (d >> 63));
    p = put_varint(p, r->client);
    *p++ = (unsigned char) r->method;
    p = put_varint(p, (uint64_t) r->status);
    p = put_varint(p, r->bytes_known ? r->bytes + 1 : 0);
    p = put_varint(p, url_id);
    *p++ = (unsigned char) (r->has_protocol ? 1 : 0);
    e->last_time = r->time;
    return (size_t) (p - out);
}
