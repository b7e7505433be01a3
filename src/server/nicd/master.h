/*
 * The master thread (master.c): it starts each generation's workers,
 * reloads, retires old generations and handles signals as nginx does.
 */

#ifndef NICD_MASTER_H
#define NICD_MASTER_H

#include "server/core/nicd.h"
#include "server/nicd/options.h"

/* Serve conf (taken) until a signal stops nicd: the exit status. */
int nicd_master_run(const nicd_options_t *opts, nicd_conf_t *conf);

#endif
