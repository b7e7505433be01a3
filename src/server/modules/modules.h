/*
 * The modules nicd is built with, in the order their directives are
 * looked up and their worker hooks run (as nginx's generated
 * ngx_modules[]).  Only main.c, the tests and the fuzz targets name this
 * list; the configuration reader and the phases reach the modules
 * through it (conf/directive.h, http/handler.h).
 */

#ifndef NICD_MODULES_H
#define NICD_MODULES_H

#include "server/conf/directive.h"

extern nicd_module_t *const nicd_modules[];

/* Every module's init, before a configuration is read: their handlers
 * and filters into the phases (done once, whoever calls it again). */
void nicd_modules_init(void);

/* Every module's worker_init and worker_free, in the list's order (the
 * cycle's per-worker hooks call them). */
void nicd_modules_worker_init(struct nicd_worker_s *w);
void nicd_modules_worker_free(struct nicd_worker_s *w);

#endif /* NICD_MODULES_H */
