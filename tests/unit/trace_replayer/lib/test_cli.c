/* Unit tests of trace_replayer/lib/cli.c */

#include <math.h>
#include <string.h>

#include "lib/cli.c"
#include "harness.h"

static double
secs(const char *s)
{
    double v = -1;

    return cli_seconds(s, &v) == 0 ? v : -1;
}

static void
test_seconds(void)
{
    CHECK(secs("30") == 30);
    CHECK(secs("1.5") == 1.5);
    CHECK(secs("0.25s") == 0.25);
    CHECK(fabs(secs("250ms") - 0.25) < 1e-12);
    CHECK(fabs(secs("500us") - 0.0005) < 1e-12);
    CHECK(secs("1m") == 60);
    CHECK(secs("1m30s") == 90);
    CHECK(secs("1h 30m") == 5400);
    CHECK(secs("1.5h") == 5400);
    CHECK(secs("2d") == 172800);
    CHECK(secs("0") == 0);
    /* what is not a duration */
    CHECK(secs("") == -1);
    CHECK(secs(" ") == -1);
    CHECK(secs("-1") == -1);
    CHECK(secs("+1") == -1);
    CHECK(secs("1x") == -1);
    CHECK(secs("1 x") == -1);
    CHECK(secs("s") == -1);
    CHECK(secs(".") == -1);
    CHECK(secs("1e3") == -1);
    CHECK(secs("0x10") == -1);
    CHECK(secs("inf") == -1);
    CHECK(secs("nan") == -1);
    CHECK(secs("1000000000000") == -1); /* past a hundred years */
}

static void
test_count(void)
{
    uint64_t v = 7;

    CHECK(cli_count("0", &v) == 0 && v == 0);
    CHECK(cli_count("18446744073709551615", &v) == 0
          && v == 18446744073709551615ULL);
    CHECK(cli_count("18446744073709551616", &v) == -1);
    CHECK(cli_count("-1", &v) == -1);
    CHECK(cli_count(" 1", &v) == -1);
    CHECK(cli_count("1k", &v) == -1);
    CHECK(cli_count("", &v) == -1);
}

/* what cli_getopt says of each bad option, read back from stderr */
static void
test_getopt_messages(void)
{
    static const struct option longopts[] = {
        {"json", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const struct {
        const char *arg;
        const char *want;
    } cases[] = {
        {"--jsn", "t: unknown option --jsn (t --help lists the options)\n"},
        {"--jsn=x", "t: unknown option --jsn (t --help lists the options)\n"},
        {"--json", "t: --json wants a value (t --help lists the options)\n"},
        {"--js", "t: --json wants a value (t --help lists the options)\n"},
        {"--quiet=1",
         "t: --quiet takes no value (t --help lists the options)\n"},
        {"-x", "t: unknown option -x (t --help lists the options)\n"},
        {"-j", "t: -j wants a value (t --help lists the options)\n"},
    };
    char   buf[256], *argv[3];
    size_t i, n;
    FILE  *saved = stderr, *tmp;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tmp = tmpfile();
        CHECK(tmp != NULL);
        stderr = tmp;
        argv[0] = (char *) "t";
        argv[1] = (char *) cases[i].arg;
        argv[2] = NULL;
        optind = 0; /* glibc: start over */
        CHECK_INT(cli_getopt("t", 2, argv, "j:q", longopts), '?');
        stderr = saved;
        rewind(tmp);
        n = fread(buf, 1, sizeof(buf) - 1, tmp);
        buf[n] = '\0';
        fclose(tmp);
        CHECK_STR(buf, cases[i].want);
    }
    /* a good one goes through */
    argv[1] = (char *) "--json=-";
    optind = 0;
    CHECK_INT(cli_getopt("t", 2, argv, "j:q", longopts), 'j');
    CHECK_STR(optarg, "-");
}

static void
test_open_out(void)
{
    FILE *f = cli_open_out("t", "-");

    CHECK(f == stdout);
    CHECK_INT(cli_close_out("t", "-", f), 0);
    CHECK(cli_open_out("t", "/nonexistent/dir/x.json") == NULL);
}

int
main(void)
{
    RUN(test_seconds);
    RUN(test_count);
    RUN(test_getopt_messages);
    RUN(test_open_out);
    return harness_report("test_cli");
}
