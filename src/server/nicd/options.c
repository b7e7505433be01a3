/*
 * nicd's command line: its flags, --help and --version.
 */

#include <event2/event.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "server/core/nicd.h"
#include "server/nicd/options.h"

static void
usage(FILE *out)
{
    fprintf(out, "usage: nicd [-c FILE] [-g 'DIRECTIVES'] [--root DIR] "
                 "[--listen HOST:PORT]\n"
                 "            [--threads N] [--backend NAME] [-t] [-V] [-h]\n"
                 "\n"
                 "  -c FILE            read the configuration from FILE\n"
                 "  -g 'DIRECTIVES'    add top-level directives (\"root www; "
                 "listen 8080;\")\n"
                 "  --root DIR         serve DIR (overrides the file)\n"
                 "  --listen HOST:PORT listen there, instead of the file's "
                 "listen directives\n"
                 "  --threads N        worker threads (default: one per CPU)\n"
                 "  --backend NAME     send backend (nicd -V lists them)\n"
                 "  -t                 test the configuration and exit\n"
                 "  -V, --version      print version, features and send "
                 "backends\n"
                 "  -h, --help         this text\n"
                 "\n"
                 "Without -c, nicd serves the directory of --root (default: "
                 "html) on\n127.0.0.1:8080.  Signals: HUP reload, USR1 reopen "
                 "logs, QUIT graceful stop,\nTERM/INT fast stop.\n");
}

static void
version(void)
{
    const snic_backend_t *const *b;

    printf("nicd version: nicd/%s\n", NICD_VERSION);
    printf("built with libevent %s (running %s)\n", LIBEVENT_VERSION,
           event_get_version());
    printf("features:%s\n", NICD_FEATURES);
    printf("send backends:\n");
    for (b = snic_backends; *b != NULL; b++) {
        snic_instance_t in;
        snic_options_t  opt = {0, NULL, 0};
        char            err[256];
        const char     *note = NULL;

        /* probed as at start: a backend that cannot work here says so */
        if ((*b)->notice != NULL
            && snic_instance_start(&in, *b, &opt, err, sizeof(err)) == 0) {
            note = snic_notice(&in);
            printf("  %-10s %s%s%s%s\n", (*b)->name, (*b)->description,
                   *b == snic_backend_default() ? " (default)" : "",
                   note != NULL ? "; unavailable here: " : "",
                   note != NULL ? note : "");
            snic_instance_stop(&in);
            continue;
        }
        printf("  %-10s %s%s\n", (*b)->name, (*b)->description,
               *b == snic_backend_default() ? " (default)" : "");
    }
}

int
nicd_options_parse(nicd_options_t *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"root", required_argument, NULL, 'r'},
        {"listen", required_argument, NULL, 'l'},
        {"threads", required_argument, NULL, 'n'},
        {"backend", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int ch;

    memset(o, 0, sizeof(*o));
    while ((ch = getopt_long(argc, argv, "c:g:tVh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c': o->conf_file = optarg; break;
        case 'g': o->directives = optarg; break;
        case 't': o->test = 1; break;
        case 'V': version(); return 0;
        case 'h': usage(stdout); return 0;
        case 'r': o->root = optarg; break;
        case 'l': o->listen = optarg; break;
        case 'n': o->threads = optarg; break;
        case 'b': o->backend = optarg; break;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "nicd: unexpected argument \"%s\"\n", argv[optind]);
        usage(stderr);
        return 2;
    }

    return -1;
}
