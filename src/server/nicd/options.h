/*
 * nicd's command line (options.c): what the flags ask for.
 */

#ifndef NICD_OPTIONS_H
#define NICD_OPTIONS_H

typedef struct {
    const char *conf_file;
    const char *directives; /* -g */
    const char *root;
    const char *listen;
    const char *backend;
    const char *threads;
    int         test;
} nicd_options_t;

/* argv into o: -1 to go on, else the exit status (--help, --version, a
 * bad flag) */
int nicd_options_parse(nicd_options_t *o, int argc, char **argv);

#endif
