/*
 * nicd's command line (options.c): what the flags ask for, nginx's flags
 * and nicd's own long ones.
 */

#ifndef NICD_OPTIONS_H
#define NICD_OPTIONS_H

typedef struct {
    const char *conf_file;  /* -c, else NICD_CONF_PATH where it exists */
    const char *directives; /* -g */
    const char *prefix;     /* -p: relative paths are its (the working
                               directory's without it) */
    const char *error_log;  /* -e: the log until the file names one */
    const char *signal;     /* -s stop|quit|reopen|reload */
    const char *root;
    const char *listen;
    const char *backend;
    const char *threads;
    int         test;  /* -t, or -T */
    int         dump;  /* -T: also print the files read */
    int         quiet; /* -q: -t says only what fails */
} nicd_options_t;

/* argv into o: -1 to go on, else the exit status (--help, --version, a
 * bad flag) */
int nicd_options_parse(nicd_options_t *o, int argc, char **argv);

#endif
