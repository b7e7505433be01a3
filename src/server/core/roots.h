/*
 * The directories a configuration's roots and aliases name, opened when
 * the configuration becomes the running one (roots.c).
 */

#ifndef NICD_ROOTS_H
#define NICD_ROOTS_H

#include "server/conf/conf.h"

/*
 * Open every root and alias directory (one descriptor each, shared by the
 * locations naming it): 0, or -1 with err naming the directory when
 * --root names one that cannot be opened.  Another that cannot be is
 * noted in the log, and opened when a request first finds it there
 * (nicd_conf_root_fd), as nginx opens nothing at start.  Closed by
 * nicd_conf_close_roots().
 */
int nicd_conf_open_roots(nicd_conf_t *c, char *err, size_t errlen);

/* the descriptor of l's root or alias directory, opening it if it could
 * not be before (any thread): -1 while it cannot be */
int  nicd_conf_root_fd(nicd_conf_t *c, const nicd_loc_conf_t *l);
void nicd_conf_close_roots(nicd_conf_t *c);
/* an alias naming a file ("alias /srv/data.bin;"): its name in the
 * directory nicd_conf_root_fd() opened; NULL: l's root is a directory */
const char *nicd_conf_root_file(const nicd_conf_t *c, const nicd_loc_conf_t *l);

#endif /* NICD_ROOTS_H */
