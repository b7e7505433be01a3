/* Unit tests of src/util/logcache.c */

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/logcache.c"
#include "harness.h"

static int
lines_in(const char *path)
{
    FILE *f = fopen(path, "r");
    int   n = 0, ch;

    while (f != NULL && (ch = fgetc(f)) != EOF) {
        n += ch == '\n';
    }
    if (f != NULL) {
        fclose(f);
    }
    return n;
}

/* nginx's access_log.t sequence: max 3, min_uses 2, then the directory
 * renamed away: files kept open still take lines, the rest are lost */
static void
test_kept_open_after_min_uses(void)
{
    char          dir[] = "/tmp/nicd-lc-XXXXXX", moved[64], p[128];
    log_fcache_t *fc = log_fcache_new(3, 20000, 60000, 2);
    const char   *seq[] = {"lru", "lru", "once", "first", "first", "second",
                           "second"};
    const char   *after[] = {"lru", "once", "first", "second"};
    size_t        i;

    CHECK(mkdtemp(dir) != NULL && fc != NULL);
    for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, seq[i]);
        CHECK_INT(log_path_write(fc, p, "x\n", 2, 1000 + (long) i), 0);
    }
    CHECK_INT(fc->n, 3); /* lru left when second came */
    snprintf(moved, sizeof(moved), "%s.moved", dir);
    CHECK_INT(rename(dir, moved), 0);
    for (i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, after[i]);
        CHECK_INT(log_path_write(fc, p, "x\n", 2, 2000 + (long) i),
                  strcmp(after[i], "first") == 0
                          || strcmp(after[i], "second") == 0
                      ? 0
                      : -1);
    }
    snprintf(p, sizeof(p), "%s/lru", moved);
    CHECK_INT(lines_in(p), 2);
    snprintf(p, sizeof(p), "%s/once", moved);
    CHECK_INT(lines_in(p), 1);
    snprintf(p, sizeof(p), "%s/first", moved);
    CHECK_INT(lines_in(p), 3);
    log_fcache_free(fc);
    for (i = 0; i < 4; i++) {
        snprintf(p, sizeof(p), "%s/%s", moved, after[i]);
        unlink(p);
    }
    rmdir(moved);
}

/* inactive entries leave; an entry open longer than valid is opened
 * again (a file renamed away is made anew); no cache: open and close */
static void
test_inactive_valid_and_none(void)
{
    char          p[] = "/tmp/nicd-lc1-XXXXXX", moved[64];
    int           fd = mkstemp(p);
    log_fcache_t *fc = log_fcache_new(4, 100, 500, 1);

    close(fd);
    CHECK_INT(log_path_write(fc, p, "a\n", 2, 0), 0);
    CHECK(fc->newest != NULL && fc->newest->fd != -1);
    CHECK_INT(log_path_write(fc, "/tmp/nicd-lc-other", "b\n", 2, 200), 0);
    CHECK_INT(fc->n, 1); /* the first was idle past inactive */
    unlink("/tmp/nicd-lc-other");
    CHECK_INT(log_path_write(fc, p, "c\n", 2, 250), 0);
    snprintf(moved, sizeof(moved), "%s.1", p);
    CHECK_INT(rename(p, moved), 0);
    CHECK_INT(log_path_write(fc, p, "d\n", 2, 300), 0); /* still open */
    CHECK_INT(log_path_write(fc, p, "e\n", 2, 800), 0); /* past valid */
    CHECK_INT(lines_in(moved), 3);
    CHECK_INT(lines_in(p), 1);
    CHECK_INT(log_path_write(NULL, p, "f\n", 2, 0), 0);
    CHECK_INT(lines_in(p), 2);
    CHECK_INT(log_path_write(NULL, "/nonexistent/dir/x", "g\n", 2, 0), -1);
    log_fcache_free(fc);
    unlink(p);
    unlink(moved);
}

int
main(void)
{
    RUN(test_kept_open_after_min_uses);
    RUN(test_inactive_valid_and_none);
    return harness_report("test_logcache");
}
