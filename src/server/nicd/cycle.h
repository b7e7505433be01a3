/*
 * A configuration generation (cycle.c): read, made running, freed.
 */

#ifndef NICD_CYCLE_H
#define NICD_CYCLE_H

#include "server/core/nicd.h"
#include "server/nicd/options.h"

/* The configuration from the file, -g and the flags, in that order.
 * NULL with err set. */
nicd_conf_t *nicd_conf_load(const nicd_options_t *opts, char *err,
                            size_t errlen);

/* Everything of conf (which it takes) but the workers, numbered
 * generation.  NULL with err set (conf freed). */
nicd_cycle_t *nicd_cycle_create(nicd_conf_t *conf, int generation, char *err,
                                size_t errlen);
void          nicd_cycle_destroy(nicd_cycle_t *cy);

/* A start-up failure: on the terminal as nginx says it ("nicd: [emerg]
 * ..."), and in the error log where that is a file. */
void nicd_emerg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
