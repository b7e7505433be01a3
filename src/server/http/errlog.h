/*
 * The error logs of the levels of the configuration (errlog.c): the
 * phases point the answering thread's lines at its location's.
 */

#ifndef NICD_ERRLOG_H
#define NICD_ERRLOG_H

#include "server/conf/conf.h"

/* this thread's lines to lc's error_log sinks (those it takes from its
 * enclosing levels), or, lc NULL or without any, to the error log */
void nicd_errlog_use(const nicd_loc_conf_t *lc);

#endif /* NICD_ERRLOG_H */
