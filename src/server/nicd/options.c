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
    fprintf(out,
            "usage: nicd [-?hvVtTq] [-s signal] [-p prefix] [-e filename]\n"
            "            [-c filename] [-g directives] [--root DIR] "
            "[--listen HOST:PORT]\n"
            "            [--threads N] [--backend NAME]\n"
            "\n"
            "  -?, -h, --help     this text\n"
            "  -v                 print the version and exit\n"
            "  -V, --version      print version, features and send backends\n"
            "  -t                 test the configuration and exit\n"
            "  -T                 test it, print the files read, and exit\n"
            "  -q                 with -t: say only what fails\n"
            "  -s SIGNAL          tell the running master (its pid file): "
            "stop, quit,\n"
            "                     reopen, reload\n"
            "  -p PREFIX          the directory relative paths are in "
            "(default: the\n"
            "                     working directory)\n"
            "  -e FILE|stderr     the error log until the configuration "
            "names one\n"
            "  -c FILE            the configuration (default: %s)\n"
            "  -g 'DIRECTIVES'    add top-level directives (\"root www; "
            "listen 8080;\")\n"
            "  --root DIR         serve DIR (overrides the file)\n"
            "  --listen HOST:PORT listen there, instead of the file's "
            "listen directives\n"
            "  --threads N        worker threads (default: one per CPU)\n"
            "  --backend NAME     send backend (nicd -V lists them)\n"
            "\n"
            "Without a configuration file, nicd serves the directory of "
            "--root (default:\nhtml) on 127.0.0.1:8080.  Signals: HUP "
            "reload, USR1 reopen logs, QUIT graceful\nstop, TERM/INT fast "
            "stop.\n",
            NICD_CONF_PATH);
}

static void
version(void)
{
    const snic_backend_t *const *b;
    char                         why[160];

    printf("nicd version: nicd/%s\n", NICD_VERSION);
    printf("built with libevent %s (running %s)\n", LIBEVENT_VERSION,
           event_get_version());
    printf("features:%s\n", NICD_FEATURES);
    /* probed as at start: events { use io_uring; } falls back to
     * libevent's loop where this says it cannot work */
    if (nicd_loop_uring_works(why, sizeof(why))) {
        printf("event loops: libevent (the default), io_uring\n");
    } else {
        printf("event loops: libevent (the default); io_uring not here: %s\n",
               why);
    }
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
    int ch, i;

    memset(o, 0, sizeof(*o));
    /* nginx's "-?" is getopt's own error answer: taken before getopt */
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-?") == 0) {
            usage(stdout);
            return 0;
        }
    }
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":c:g:p:e:s:tTqvVh", longopts, NULL))
           != -1) {
        switch (ch) {
        case 'c': o->conf_file = optarg; break;
        case 'g': o->directives = optarg; break;
        case 'p': o->prefix = optarg; break;
        case 'e': o->error_log = optarg; break;
        case 's':
            if (strcmp(optarg, "stop") != 0 && strcmp(optarg, "quit") != 0
                && strcmp(optarg, "reopen") != 0
                && strcmp(optarg, "reload") != 0) {
                fprintf(stderr, "nicd: invalid option: \"-s %s\"\n", optarg);
                return 2;
            }
            o->signal = optarg;
            break;
        case 't': o->test = 1; break;
        case 'T': o->test = o->dump = 1; break;
        case 'q': o->quiet = 1; break;
        case 'v':
            fprintf(stderr, "nicd version: nicd/%s\n", NICD_VERSION);
            return 0;
        case 'V': version(); return 0;
        case 'h': usage(stdout); return 0;
        case 'r': o->root = optarg; break;
        case 'l': o->listen = optarg; break;
        case 'n': o->threads = optarg; break;
        case 'b': o->backend = optarg; break;
        case ':':
            fprintf(stderr, "nicd: option \"-%c\" requires an argument\n",
                    optopt);
            usage(stderr);
            return 2;
        default:
            if (optopt != 0) {
                fprintf(stderr, "nicd: invalid option: \"%c\"\n", optopt);
            } else {
                fprintf(stderr, "nicd: invalid option: \"%s\"\n",
                        argv[optind - 1]);
            }
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "nicd: unexpected argument \"%s\"\n", argv[optind]);
        usage(stderr);
        return 2;
    }

    return -1;
}
