/*
 * niccompare's process (niccompare.h): dying with a message, signals, the
 * server it started and the work directory it made, both cleaned up on
 * every way out.  The bottom of the program's parts: it calls none.
 */

#include <ftw.h>

#include "niccompare/niccompare.h"

/* the server this process started, stopped on every way out, and the
 * work directory it made, removed on every way out (unless --keep): at
 * file scope because the signal handler and die() must reach them */
static volatile pid_t server_pid = -1;

void
niccompare_server_is(pid_t pid)
{
    server_pid = pid;
}
static char made_dir[PATH_MAX];

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st;
    (void) flag;
    (void) ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

void
niccompare_remove_on_exit(const char *dir)
{
    snprintf(made_dir, sizeof(made_dir), "%s", dir);
}

/* the work directory niccompare made, and everything in it */
static void
remove_made(void)
{
    if (made_dir[0] != '\0') {
        nftw(made_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
        made_dir[0] = '\0';
    }
}

void
niccompare_stop_server(void)
{
    pid_t pid = server_pid;
    int   st;

    if (pid > 0) {
        server_pid = -1;
        kill(pid, SIGTERM);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
}

void
niccompare_die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "niccompare: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    niccompare_stop_server();
    remove_made();
    exit(1);
}

void
niccompare_cleanup(void)
{
    niccompare_stop_server();
    remove_made();
}

void
niccompare_on_signal(int sig)
{
    pid_t pid = server_pid;

    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    remove_made();
    signal(sig, SIG_DFL);
    raise(sig);
}
