/*
 * nicd: the flags, the configuration, then the master thread (master.c)
 * until a signal stops it; with -t, the configuration checked as a start
 * would check it; with -s, a signal to the running master.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "server/nicd/cycle.h"
#include "server/nicd/master.h"
#include "server/modules/modules.h"
#include "server/nicd/options.h"

/* what the configuration is called in -t's lines */
static const char *
conf_name(const nicd_options_t *opts)
{
    return opts->conf_file != NULL ? opts->conf_file
                                   : "(built-in: no file at " NICD_CONF_PATH
                                     ")";
}

/* "-t": the same checks as a start, without starting */
static int
test_conf(const nicd_options_t *opts, nicd_conf_t *conf)
{
    char          err[1024];
    nicd_cycle_t *cy;

    if (opts->dump && conf->dump_text.len > 0) {
        fwrite(conf->dump_text.data, 1, conf->dump_text.len, stdout);
        fflush(stdout);
    }
    cy = nicd_cycle_create(conf, 1, err, sizeof(err));
    if (cy == NULL) {
        nicd_emerg("%s", err);
        fprintf(stderr, "nicd: configuration file %s test failed\n",
                conf_name(opts));
        return 1;
    }
    nicd_cycle_destroy(cy);
    if (!opts->quiet) {
        fprintf(stderr,
                "nicd: the configuration file %s syntax is ok\n"
                "nicd: configuration file %s test is successful\n",
                conf_name(opts), conf_name(opts));
    }
    return 0;
}

/* "-s NAME": the signal to the master whose pid the file names */
static int
signal_master(const nicd_options_t *opts, const nicd_conf_t *conf)
{
    static const struct {
        const char *name;
        int         sig;
    } sigs[] = {{"stop", SIGTERM},
                {"quit", SIGQUIT},
                {"reopen", SIGUSR1},
                {"reload", SIGHUP}};
    FILE *f;
    long  pid = 0;
    int   i, sig = SIGTERM;

    for (i = 0; i < 4; i++) {
        if (strcmp(sigs[i].name, opts->signal) == 0) {
            sig = sigs[i].sig;
        }
    }
    if (conf->pid == NULL) {
        fprintf(stderr,
                "nicd: [error] no pid file to signal: %s has no "
                "\"pid\" directive\n",
                conf_name(opts));
        return 1;
    }
    f = fopen(conf->pid, "r");
    if (f == NULL) {
        fprintf(stderr, "nicd: [error] open() \"%s\" failed (%s)\n", conf->pid,
                strerror(errno));
        return 1;
    }
    if (fscanf(f, "%ld", &pid) != 1 || pid <= 0) {
        fclose(f);
        fprintf(stderr, "nicd: [error] invalid PID number in \"%s\"\n",
                conf->pid);
        return 1;
    }
    fclose(f);
    if (kill((pid_t) pid, sig) != 0) {
        fprintf(stderr, "nicd: [error] kill(%ld, %d) failed (%s)\n", pid, sig,
                strerror(errno));
        return 1;
    }
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
    /* relative paths (the configuration, roots, logs) are the prefix's */
    if (opts.prefix != NULL && chdir(opts.prefix) != 0) {
        fprintf(stderr, "nicd: [emerg] chdir() \"%s\" failed (%s)\n",
                opts.prefix, strerror(errno));
        return 1;
    }
    if (opts.error_log != NULL
        && log_error_open(opts.error_log, LOG_NOTICE) != 0) {
        fprintf(stderr,
                "nicd: [alert] could not open error log file: "
                "open() \"%s\" failed (%s)\n",
                opts.error_log, strerror(errno));
        return 1;
    }
    if (opts.conf_file == NULL && access(NICD_CONF_PATH, F_OK) == 0) {
        opts.conf_file = NICD_CONF_PATH;
    }
    nicd_modules_init(); /* their hooks into the phases */
    conf = nicd_conf_load(&opts, err, sizeof(err));
    if (conf == NULL) {
        nicd_emerg("%s", err);
        if (opts.test) {
            fprintf(stderr, "nicd: configuration file %s test failed\n",
                    conf_name(&opts));
        }
        return 1;
    }
    if (opts.signal != NULL) {
        rc = signal_master(&opts, conf);
        nicd_conf_free(conf);
        return rc;
    }
    return opts.test ? test_conf(&opts, conf) : nicd_master_run(&opts, conf);
}
