/*
 * HPACK, HTTP/2's header compression (RFC 7541): a decoder for the field
 * blocks a client sends and an encoder for the server's responses, each
 * with its own dynamic table.  The framing layer joins a HEADERS frame
 * and its CONTINUATION frames into one block before decoding it.
 */

#ifndef NICD_HPACK_H
#define NICD_HPACK_H

#include <stddef.h>
#include <stdint.h>

/* SETTINGS_HEADER_TABLE_SIZE's initial value (RFC 9113, 6.5.2) */
#define NICD_HPACK_TABLE_SIZE 4096

#define NICD_HPACK_OK    0
#define NICD_HPACK_ERROR -1 /* a connection error, COMPRESSION_ERROR */

typedef struct {
    uint32_t off; /* of the name in the table's bytes; the value follows */
    uint32_t nlen;
    uint32_t vlen;
    uint32_t hash; /* of name and value, for the encoder's search */
} nicd_hpack_entry_t;

/* a dynamic table (RFC 7541, 2.3.2), grown as entries come */
typedef struct {
    nicd_hpack_entry_t *ent; /* a ring, the oldest at head */
    uint32_t            cap; /* entries the ring holds */
    uint32_t            head;
    uint32_t            n;
    char               *bytes; /* names and values, the oldest first */
    size_t              bcap;
    size_t              bend; /* where the next entry's bytes go */
    size_t              size; /* RFC 7541, 4.1: lengths plus 32 each */
    size_t              max;  /* the current maximum size */
} nicd_hpack_table_t;

typedef struct {
    const char *name;
    size_t      nlen;
    const char *value;
    size_t      vlen;
    unsigned    never_indexed : 1; /* kept out of every table, hop to hop */
} nicd_hpack_field_t;

/* one field of a block, its bytes valid until the callback returns */
typedef void (*nicd_hpack_emit_pt)(void *arg, const nicd_hpack_field_t *f);

typedef struct {
    nicd_hpack_table_t t;
    size_t             limit;   /* the SETTINGS value we advertised */
    char              *scratch; /* Huffman-decoded strings */
    size_t             scap;
} nicd_hpack_decoder_t;

typedef struct {
    nicd_hpack_table_t t;
    size_t             limit; /* the largest size this encoder uses */
    size_t             low;   /* the smallest maximum since the last block */
    unsigned           pending : 1; /* a size update is owed */
} nicd_hpack_encoder_t;

/* the most bytes nicd_hpack_encode() writes for a field */
#define NICD_HPACK_BOUND(nlen, vlen) ((nlen) + (vlen) + 16)

void nicd_hpack_decoder_init(nicd_hpack_decoder_t *d, size_t limit);
void nicd_hpack_decoder_free(nicd_hpack_decoder_t *d);

/*
 * Decode one whole field block, calling emit for each field in order.
 * NICD_HPACK_OK, or NICD_HPACK_ERROR for a block that breaks RFC 7541
 * (an index out of the tables, a bad Huffman string, a size update past
 * the limit or after a field, a truncated representation); after an
 * error the table is no longer the peer's and the connection must end.
 */
int nicd_hpack_decode(nicd_hpack_decoder_t *d, const uint8_t *in, size_t len,
                      nicd_hpack_emit_pt emit, void *arg);

/* a block's first bytes, its end still to come: -1 when they already
 * break RFC 7541 (an integer too long), else 0 */
int nicd_hpack_scan(const uint8_t *in, size_t len);

/* an encoder whose table holds at most limit bytes (<= 4096 is usual) */
void nicd_hpack_encoder_init(nicd_hpack_encoder_t *e, size_t limit);
void nicd_hpack_encoder_free(nicd_hpack_encoder_t *e);

/* the peer's SETTINGS_HEADER_TABLE_SIZE changed */
void nicd_hpack_encoder_settings(nicd_hpack_encoder_t *e, size_t value);

/* the start of a block: the size updates owed; at most 12 bytes */
size_t nicd_hpack_encode_begin(nicd_hpack_encoder_t *e, uint8_t *out);

/* ":status"; at most 6 bytes */
size_t nicd_hpack_encode_status(nicd_hpack_encoder_t *e, uint8_t *out,
                                unsigned status);

/*
 * One field, its name in lower case; at most NICD_HPACK_BOUND bytes.
 * Fields that differ from response to response (content-length, etag,
 * location, set-cookie, ...) are sent without indexing, others indexed.
 */
size_t nicd_hpack_encode(nicd_hpack_encoder_t *e, uint8_t *out,
                         const nicd_hpack_field_t *f);

/* Huffman coding (RFC 7541, 5.2 and Appendix B) */
size_t nicd_hpack_huff_len(const uint8_t *s, size_t len);
size_t nicd_hpack_huff_encode(const uint8_t *s, size_t len, uint8_t *out);
/* the decoded length, or -1 for a bad string; out holds len * 8 / 5 */
long nicd_hpack_huff_decode(const uint8_t *in, size_t len, char *out);

#endif /* NICD_HPACK_H */
