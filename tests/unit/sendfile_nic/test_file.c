/* Unit tests of src/sendfile_nic/file.c */

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "sendfile_nic/file.c"
#include "harness.h"

static void
test_file_init(void)
{
    char        path[] = "/tmp/snic-file-XXXXXX";
    struct stat st;
    snic_file_t f;
    int         fd = mkstemp(path);

    CHECK(write(fd, "abc", 3) == 3);
    fstat(fd, &st);
    snic_file_init(&f, fd, &st);
    CHECK_INT(f.fd, fd);
    CHECK_INT(f.size, 3);
    CHECK(f.cacheable);
    CHECK(f.id_ino == st.st_ino && f.id_dev == st.st_dev);
    CHECK(f.revision == snic_file_revision(&st)); /* a function of stat */
    close(fd);
    unlink(path);
}

/*
 * Each field the revision covers changes it on its own.  (Whether the
 * kernel moves ctime on a write depends on its timestamp granularity, so
 * the fields are changed here directly.)
 */
static void
test_revision_covers_each_field(void)
{
    struct stat st, t;
    uint64_t    r;

    memset(&st, 0, sizeof(st));
    st.st_mtim.tv_sec = 1000;
    st.st_ctim.tv_sec = 1000;
    st.st_size = 4096;
    st.st_ino = 7;
    r = snic_file_revision(&st);

    t = st;
    t.st_mtim.tv_sec++;
    CHECK(snic_file_revision(&t) != r);
    t = st;
    t.st_mtim.tv_nsec++;
    CHECK(snic_file_revision(&t) != r);
    t = st;
    t.st_ctim.tv_sec++;
    CHECK(snic_file_revision(&t) != r);
    t = st;
    t.st_ctim.tv_nsec++;
    CHECK(snic_file_revision(&t) != r);
    t = st;
    t.st_size++;
    CHECK(snic_file_revision(&t) != r);
    t = st;
    t.st_ino++;
    CHECK(snic_file_revision(&t) != r);
    /* swapping mtime and ctime values is a different revision too */
    t = st;
    t.st_mtim.tv_sec = 2000;
    st.st_ctim.tv_sec = 2000;
    CHECK(snic_file_revision(&t) != snic_file_revision(&st));
}

int
main(void)
{
    RUN(test_file_init);
    RUN(test_revision_covers_each_field);
    return harness_report("test_file");
}
