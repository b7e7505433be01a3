/*
 * limit_except (limit_except.c): the settings a request's method is
 * answered with.
 */

#ifndef NICD_LIMIT_EXCEPT_H
#define NICD_LIMIT_EXCEPT_H

#include "server/conf/conf.h"

/* lc, or its limit_except block's settings when method (NICD_M_*) is not
 * one the block lets through */
const nicd_loc_conf_t *nicd_limit_except(const nicd_loc_conf_t *lc, int method);

#endif /* NICD_LIMIT_EXCEPT_H */
