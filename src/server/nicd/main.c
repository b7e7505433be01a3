/*
 * nicd: the flags, the configuration, then the master thread (master.c)
 * until a signal stops it; with -t, the configuration checked as a start
 * would check it.
 */

#include <stdio.h>

#include "server/nicd/cycle.h"
#include "server/nicd/master.h"
#include "server/modules/modules.h"
#include "server/nicd/options.h"

/* "-t": the same checks as a start, without starting */
static int
test_conf(const nicd_options_t *opts, nicd_conf_t *conf)
{
    const char   *name = opts->conf_file ? opts->conf_file : "(none)";
    char          err[1024];
    nicd_cycle_t *cy = nicd_cycle_create(conf, 1, err, sizeof(err));

    if (cy == NULL) {
        fprintf(stderr, "nicd: [emerg] %s\n", err);
        fprintf(stderr, "nicd: configuration file %s test failed\n", name);
        return 1;
    }
    nicd_cycle_destroy(cy);
    fprintf(stderr,
            "nicd: the configuration file %s syntax is ok\n"
            "nicd: configuration file %s test is successful\n",
            name, name);
    return 0;
}

int
main(int argc, char **argv)
{
    nicd_options_t opts;
    nicd_conf_t   *conf;
    char           err[1024];
    int            rc = nicd_options_parse(&opts, argc, argv);

    if (rc >= 0) {
        return rc;
    }
    nicd_modules_init(); /* their hooks into the phases */
    conf = nicd_conf_load(&opts, err, sizeof(err));
    if (conf == NULL) {
        fprintf(stderr, "nicd: [emerg] %s\n", err);
        if (opts.test) {
            fprintf(stderr, "nicd: configuration file %s test failed\n",
                    opts.conf_file ? opts.conf_file : "(none)");
        }
        return 1;
    }
    return opts.test ? test_conf(&opts, conf) : nicd_master_run(&opts, conf);
}
