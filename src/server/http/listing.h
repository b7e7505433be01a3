/*
 * Directory listings, byte for byte as nginx's autoindex writes them
 * (listing.c); the static module reads the directory and sends them.
 */

#ifndef NICD_LISTING_H
#define NICD_LISTING_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "util/buf.h"

/* a directory entry of a listing */
typedef struct {
    char  *name;
    size_t len;
    int    dir;
    off_t  size;
    time_t mtime;
} nicd_listing_entry_t;

/* nginx's order: directories first, then by name */
void nicd_listing_sort(nicd_listing_entry_t *e, size_t n);

/* does an HTML listing of the request at hand go out in UTF-8 (nginx
 * counts characters then)? */
struct nicd_conn_s;
int nicd_listing_utf8(struct nicd_conn_s *c);

/* the html page of directory path (as requested): names counted in
 * characters with utf8 (the location's charset is UTF-8), times local
 * with localtime_, sizes exact with exact_size (else rounded as nginx) */
void nicd_listing_html(nicd_buf_t *b, const char *path, nicd_listing_entry_t *e,
                       size_t n, int utf8, int localtime_, int exact_size);
/* nginx's json and xml listings */
void nicd_listing_json(nicd_buf_t *b, nicd_listing_entry_t *e, size_t n);
void nicd_listing_xml(nicd_buf_t *b, nicd_listing_entry_t *e, size_t n);

#endif /* NICD_LISTING_H */
