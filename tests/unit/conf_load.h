/*
 * A configuration read from text for a unit test, with every module
 * (tests of a module's settings and what it makes of them).
 */

#ifndef NICD_TEST_CONF_LOAD_H
#define NICD_TEST_CONF_LOAD_H

#include <stdio.h>

#include "server/conf/conf.h"
#include "server/modules/modules.h"

/* text read and finished, or NULL (the reason printed) */
static nicd_conf_t *
conf_load(const char *text)
{
    nicd_conf_t *c = nicd_conf_new(nicd_modules);
    char         err[1024];

    if (c == NULL) {
        return NULL;
    }
    if (nicd_conf_parse_string(c, text, "test.conf", err, sizeof(err)) != 0
        || nicd_conf_finish(c, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        nicd_conf_free(c);
        return NULL;
    }
    return c;
}

#endif /* NICD_TEST_CONF_LOAD_H */
