/*
 * The directories a configuration's roots and aliases name, opened when
 * the configuration becomes the running one (roots.c).
 */

#ifndef NICD_ROOTS_H
#define NICD_ROOTS_H

#include "server/conf/conf.h"

/*
 * Open every root and alias directory (one descriptor each, shared by the
 * locations naming it): 0, or -1 with err naming the directory and where
 * it was set.  Closed by nicd_conf_close_roots().
 */
int  nicd_conf_open_roots(nicd_conf_t *c, char *err, size_t errlen);
void nicd_conf_close_roots(nicd_conf_t *c);

#endif /* NICD_ROOTS_H */
