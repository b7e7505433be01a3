/*
 * limit_rate and limit_rate_after (rate.c): what the protocols pace a
 * response's body by.
 */

#ifndef NICD_RATE_H
#define NICD_RATE_H

#include <stdint.h>

#include "server/http/handler.h"

/* the request at hand's response: at most *rate bytes a second (0: no
 * limit) after its first *after bytes; evaluated once a response */
void nicd_rate_of(nicd_conn_t *c, uint32_t *rate, uint32_t *after);

/* the handler's own rate for its response (X-Accel-Limit-Rate), over
 * limit_rate's */
void nicd_rate_set(nicd_conn_t *c, uint32_t rate);

#endif /* NICD_RATE_H */
