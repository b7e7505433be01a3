/*
 * The MIME types table of a configuration (mime.c); nicd_conf_mime()
 * (conf.h) reads it.
 */

#ifndef NICD_MIME_H
#define NICD_MIME_H

#include "server/conf/conf.h"

/* an empty table, or NULL */
nicd_mime_t *nicd_mime_new(void);
/* ext (any case) is of type, in m: 0 or -1 */
int  nicd_mime_add(nicd_mime_t *m, const char *ext, const char *type);
void nicd_mime_free(nicd_mime_t *m);
/* a table of the built-in types (html, css, js, png, ...), or NULL */
nicd_mime_t *nicd_mime_builtin(void);

#endif /* NICD_MIME_H */
