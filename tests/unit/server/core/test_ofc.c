/* Unit tests of src/server/core/ofc.c */

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "server/core/ofc.c"
#include "harness.h"
#include "server/modules/modules.h"

static char         root[] = "/tmp/nicd-ofc-XXXXXX";
static char         outside[] = "/tmp/nicd-out-XXXXXX";
static int          root_fd;
static nicd_conf_t *conf;

static void
put(const char *dir, const char *name, const char *content)
{
    char path[512];
    int  fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (write(fd, content, strlen(content)) < 0) {
        perror("write");
    }
    close(fd);
}

static void
setup(void)
{
    char p[512], t[512];
    char err[256];

    if (mkdtemp(root) == NULL || mkdtemp(outside) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    put(root, "a.txt", "hello");
    put(outside, "secret", "SECRET");
    snprintf(p, sizeof(p), "%s/sub", root);
    mkdir(p, 0755);
    put(p, "b.html", "<b>");
    /* an absolute symlink out, a relative one out, one that stays inside */
    snprintf(p, sizeof(p), "%s/out_abs", root);
    snprintf(t, sizeof(t), "%s/secret", outside);
    if (symlink(t, p) != 0) {
        perror("symlink");
    }
    snprintf(p, sizeof(p), "%s/out_rel", root);
    snprintf(t, sizeof(t), "../%s/secret", strrchr(outside, '/') + 1);
    if (symlink(t, p) != 0) {
        perror("symlink");
    }
    snprintf(p, sizeof(p), "%s/in_rel", root);
    if (symlink("sub/b.html", p) != 0) {
        perror("symlink");
    }
    root_fd = open(root, O_PATH | O_DIRECTORY);
    conf = nicd_conf_new(nicd_modules);
    nicd_conf_finish(conf, err, sizeof(err));
}

/* c with these open_file_cache settings */
static int
init(nicd_ofc_t *c, int max, long valid_ms, long inactive_ms)
{
    conf->open_file_cache_max = max;
    conf->open_file_cache_valid = valid_ms;
    conf->open_file_cache_inactive = inactive_ms;
    return nicd_ofc_init(c, conf);
}

static void
teardown(void)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "rm -rf %s %s", root, outside);
    if (system(cmd) != 0) {
        perror("system");
    }
    nicd_conf_free(conf);
    close(root_fd);
}

static void
test_open_and_cache(void)
{
    nicd_ofc_t   c;
    nicd_file_t *f, *g;
    nicd_open_how_t how = {root_fd, NICD_SYMLINKS_OUTSIDE, NULL, 0};

    CHECK_INT(init(&c, 10, 60000, 60000),
              0);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 1000, &f), 0);
    CHECK_INT(f->file.size, 5);
    CHECK(!f->is_dir);
    CHECK_STR(f->mime, "text/plain");
    CHECK(f->etag[0] == '"' && f->etag[f->etag_len - 1] == '"');
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 2000, &g), 0);
    CHECK(f == g);
    CHECK_INT(c.hits, 1);
    CHECK_INT(f->refs, 2);
    nicd_ofc_release(&c, f);
    nicd_ofc_release(&c, g);

    CHECK_INT(nicd_ofc_open(&c, &how, "/", 1, 2000, &f), 0);
    CHECK(f->is_dir);
    nicd_ofc_release(&c, f);
    CHECK_INT(nicd_ofc_open(&c, &how, "/nope", 5, 2000, &f), ENOENT);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt/x", 8, 2000, &f), ENOTDIR);
    nicd_ofc_free(&c);
}

/* valid=0: every open re-stats; a rewrite in place changes the revision,
 * a rename over the path gives a new descriptor */
static void
test_revalidation(void)
{
    nicd_ofc_t   c;
    nicd_file_t *f;
    uint64_t     rev;
    ino_t        ino;
    char         tmp[512], dst[512];
    nicd_open_how_t how = {root_fd, NICD_SYMLINKS_OUTSIDE, NULL, 0};

    init(&c, 10, 0, 60000);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 1000, &f), 0);
    rev = f->file.revision;
    ino = f->file.id_ino;
    nicd_ofc_release(&c, f);

    put(root, "a.txt", "hello, world");
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 1000, &f), 0);
    CHECK_INT(f->file.size, 12);
    CHECK(f->file.revision != rev);
    CHECK(f->file.id_ino == ino);
    CHECK_INT(c.revalidations, 1);
    /* a small file's bytes in memory follow the revision */
    CHECK(f->file.mem != NULL && memcmp(f->file.mem, "hello, world", 12) == 0);

    /* rewritten while a response still holds it: the entry is made anew
     * and the response keeps the bytes it was sending */
    put(root, "a.txt", "HELLO, WORLD");
    {
        nicd_file_t *g;

        CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 1000, &g), 0);
        CHECK(g != f);
        CHECK(g->file.mem != NULL
              && memcmp(g->file.mem, "HELLO, WORLD", 12) == 0);
        CHECK(memcmp(f->file.mem, "hello, world", 12) == 0);
        CHECK_INT(c.reopens, 1);
        nicd_ofc_release(&c, g);
    }
    nicd_ofc_release(&c, f);

    snprintf(tmp, sizeof(tmp), "%s/a.tmp", root);
    snprintf(dst, sizeof(dst), "%s/a.txt", root);
    put(root, "a.tmp", "replaced");
    CHECK_INT(rename(tmp, dst), 0);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 1000, &f), 0);
    CHECK_INT(f->file.size, 8);
    CHECK(f->file.id_ino != ino);
    CHECK_INT(c.reopens, 2);
    nicd_ofc_release(&c, f);

    /* with a validity period the cached stat is used until it expires */
    nicd_ofc_free(&c);
    init(&c, 10, 5000, 60000);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 1000, &f), 0);
    nicd_ofc_release(&c, f);
    put(root, "a.txt", "x");
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 2000, &f), 0);
    CHECK_INT(f->file.size, 8);
    nicd_ofc_release(&c, f);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 7000, &f), 0);
    CHECK_INT(f->file.size, 1);
    nicd_ofc_release(&c, f);
    nicd_ofc_free(&c);
}

static void
test_symlinks(void)
{
    nicd_ofc_t      c;
    nicd_file_t    *f;
    nicd_open_how_t how = {root_fd, NICD_SYMLINKS_OUTSIDE, NULL, 0};
    char            full[600];

    init(&c, 0, 0, 0);
    CHECK_INT(nicd_ofc_open(&c, &how, "/out_abs", 8, 0, &f), EXDEV);
    CHECK_INT(nicd_ofc_open(&c, &how, "/out_rel", 8, 0, &f), EXDEV);
    CHECK_INT(nicd_ofc_open(&c, &how, "/in_rel", 7, 0, &f), 0);
    CHECK_INT(f->file.size, 3);
    nicd_ofc_release(&c, f);

    /* on: the whole name is walked */
    how.symlinks = NICD_SYMLINKS_ON;
    how.full = full;
    snprintf(full, sizeof(full), "%s/in_rel", root);
    CHECK_INT(nicd_ofc_open(&c, &how, "/in_rel", 7, 0, &f), ELOOP);
    snprintf(full, sizeof(full), "%s/sub/b.html", root);
    CHECK_INT(nicd_ofc_open(&c, &how, "/sub/b.html", 11, 0, &f), 0);
    nicd_ofc_release(&c, f);

    how.symlinks = NICD_SYMLINKS_OFF;
    how.full = NULL;
    CHECK_INT(nicd_ofc_open(&c, &how, "/out_abs", 8, 0, &f), 0);
    CHECK_INT(f->file.size, 6);
    nicd_ofc_release(&c, f);
    nicd_ofc_free(&c);
}

/* an entry is found only by a request opening it the same way */
static void
test_symlinks_cached(void)
{
    nicd_ofc_t      c;
    nicd_file_t    *f;
    nicd_open_how_t off = {root_fd, NICD_SYMLINKS_OFF, NULL, 0};
    nicd_open_how_t on = {root_fd, NICD_SYMLINKS_ON, NULL, 0};
    char            full[600];

    snprintf(full, sizeof(full), "%s/out_abs", root);
    on.full = full;
    init(&c, 10, 60000, 60000);
    CHECK_INT(nicd_ofc_open(&c, &off, "/out_abs", 8, 0, &f), 0);
    nicd_ofc_release(&c, f);
    CHECK_INT(nicd_ofc_open(&c, &on, "/out_abs", 8, 0, &f), ELOOP);
    CHECK_INT(nicd_ofc_open(&c, &off, "/out_abs", 8, 0, &f), 0);
    nicd_ofc_release(&c, f);
    CHECK_INT(c.hits, 1);
    nicd_ofc_free(&c);
}

/* nginx's walk: a symlink anywhere, from=, a trailing "/", owners */
static void
test_open_checked(void)
{
    char p[600], link[600];
    int  fd;

    snprintf(p, sizeof(p), "%s/sub/b.html", root);
    fd = nicd_open_checked(p, 0, NICD_SYMLINKS_ON, O_RDONLY);
    CHECK(fd >= 0);
    close(fd);

    /* a directory through a symlink: refused below it, unless from=
     * names the link's part */
    snprintf(link, sizeof(link), "%s/sublink", root);
    CHECK_INT(symlink("sub", link), 0);
    snprintf(p, sizeof(p), "%s/sublink/b.html", root);
    CHECK_INT(nicd_open_checked(p, 0, NICD_SYMLINKS_ON, O_RDONLY), -1);
    CHECK_INT(errno, ENOTDIR);
    fd = nicd_open_checked(p, strlen(link), NICD_SYMLINKS_ON, O_RDONLY);
    CHECK(fd >= 0);
    close(fd);
    /* ... and with the same owner, if_not_owner follows it */
    fd = nicd_open_checked(p, 0, NICD_SYMLINKS_NOTOWNER, O_RDONLY);
    CHECK(fd >= 0);
    close(fd);

    /* a file named with a trailing "/" is not a directory */
    snprintf(p, sizeof(p), "%s/a.txt/", root);
    CHECK_INT(nicd_open_checked(p, 0, NICD_SYMLINKS_ON, O_RDONLY), -1);
    CHECK_INT(errno, ENOTDIR);

    /* another owner's link: refused by if_not_owner (root may give it
     * away; otherwise skipped) */
    snprintf(p, sizeof(p), "%s/out_abs", root);
    if (lchown(p, 65534, 65534) == 0) {
        CHECK_INT(nicd_open_checked(p, 0, NICD_SYMLINKS_NOTOWNER, O_RDONLY),
                  -1);
        CHECK_INT(errno, ELOOP);
    } else {
        SKIP("if_not_owner with another owner: not root");
    }
}

/* open_file_cache_min_uses: opened per request until asked for that
 * often; open_file_cache_errors: a name's error is kept as valid says */
static void
test_min_uses_and_errors(void)
{
    nicd_ofc_t      c;
    nicd_file_t    *f, *g;
    nicd_open_how_t how = {root_fd, NICD_SYMLINKS_OFF, NULL, 0};
    char            p[512];

    conf->open_file_cache_min_uses = 3;
    init(&c, 10, 60000, 60000);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 0, &f), 0);
    CHECK(!f->in_cache);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 0, &g), 0);
    CHECK(!g->in_cache && g != f);
    nicd_ofc_release(&c, f);
    nicd_ofc_release(&c, g);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 0, &f), 0);
    CHECK(f->in_cache); /* the third use keeps it */
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 0, &g), 0);
    CHECK(g == f);
    nicd_ofc_release(&c, f);
    nicd_ofc_release(&c, g);
    nicd_ofc_free(&c);
    conf->open_file_cache_min_uses = 1;

    conf->open_file_cache_errors = 1;
    init(&c, 10, 5000, 60000);
    CHECK_INT(nicd_ofc_open(&c, &how, "/late", 5, 0, &f), ENOENT);
    put(root, "late", "now");
    CHECK_INT(nicd_ofc_open(&c, &how, "/late", 5, 1000, &f), ENOENT);
    CHECK_INT(nicd_ofc_open(&c, &how, "/late", 5, 6000, &f), 0);
    nicd_ofc_release(&c, f);
    nicd_ofc_free(&c);
    conf->open_file_cache_errors = 0;
    snprintf(p, sizeof(p), "%s/late", root);
    unlink(p);
}

/* an entry in use survives eviction until released */
static void
test_eviction_keeps_references(void)
{
    nicd_ofc_t   c;
    nicd_file_t *f, *g;
    char         buf[8];
    nicd_open_how_t how = {root_fd, NICD_SYMLINKS_OUTSIDE, NULL, 0};

    init(&c, 1, 60000, 1000);
    CHECK_INT(nicd_ofc_open(&c, &how, "/a.txt", 6, 0, &f), 0);
    CHECK_INT(nicd_ofc_open(&c, &how, "/sub/b.html", 11, 0, &g), 0);
    CHECK_INT(c.count, 1);
    CHECK(!f->in_cache);
    CHECK(pread(f->file.fd, buf, 1, 0) == 1); /* still open */
    nicd_ofc_release(&c, f);
    nicd_ofc_release(&c, g);
    nicd_ofc_expire(&c, 500);
    CHECK_INT(c.count, 1);
    nicd_ofc_expire(&c, 1000);
    CHECK_INT(c.count, 0);
    nicd_ofc_free(&c);
}

int
main(void)
{
    setup();
    RUN(test_open_and_cache);
    RUN(test_revalidation);
    RUN(test_symlinks);
    RUN(test_symlinks_cached);
    RUN(test_open_checked);
    RUN(test_min_uses_and_errors);
    RUN(test_eviction_keeps_references);
    teardown();
    return harness_report("test_ofc");
}
