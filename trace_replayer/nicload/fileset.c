/*
 * nicload fileset: the SPECweb99 file set under a root (nicload.h).
 */

#include "nicload/nicload.h"

/* ---- the file set ---- */

int
nicload_fileset(uint32_t n, const char *root)
{
    uint32_t       dirs = specweb_dirs(n), d, have = 0;
    unsigned char *buf = malloc(1 << 16);
    char           name[48], path[4096], line[128];
    struct stat    st;
    uint64_t       bytes = 0, files = 0;
    FILE          *m;
    int            dirfd, k, f, rc = 1;

    if (buf == NULL) {
        fprintf(stderr, "nicload: out of memory\n");
        return 1;
    }
    if (mkdir(root, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "nicload: %s: %s\n", root, strerror(errno));
        free(buf);
        return 1;
    }
    snprintf(path, sizeof(path), "%s/file_set/%s", root, MARKER);
    m = fopen(path, "r");
    if (m != NULL) {
        if (fgets(line, sizeof(line), m) == NULL
            || sscanf(line, "specweb99 file set of %u directories", &have)
                   != 1) {
            have = 0;
        }
        fclose(m);
    }
    snprintf(path, sizeof(path), "%s/file_set", root);
    if (stat(path, &st) == 0 && have == 0) {
        fprintf(stderr,
                "nicload: %s exists and is not a file set nicload made: "
                "remove it first\n",
                path);
        free(buf);
        return 1;
    }
    if (have != 0 && have != dirs) {
        fprintf(stderr,
                "nicload: %s holds a file set of %u directories; %u "
                "connections need %u: remove it, or make it elsewhere\n",
                path, have, n, dirs);
        free(buf);
        return 1;
    }
    dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        fprintf(stderr, "nicload: %s: %s\n", root, strerror(errno));
        free(buf);
        return 1;
    }
    for (d = 0; d < dirs; d++) {
        for (k = 0; k < SPECWEB_CLASSES; k++) {
            for (f = 0; f < SPECWEB_FILES; f++) {
                specweb_name(d, k, f, name);
                files++;
                bytes += specweb_size(k, f);
                /* a file set already there: only what is missing or of
                 * another size is written again */
                if (have == dirs && fstatat(dirfd, name + 1, &st, 0) == 0
                    && (uint64_t) st.st_size == specweb_size(k, f)) {
                    continue;
                }
                if (trace_content_write(dirfd, name, specweb_size(k, f), buf,
                                        1 << 16)
                    != 0) {
                    fprintf(stderr, "nicload: %s%s: %s\n", root, name,
                            strerror(errno));
                    goto done;
                }
            }
        }
    }
    snprintf(path, sizeof(path), "%s/file_set/%s", root, MARKER);
    m = fopen(path, "w");
    if (m == NULL
        || fprintf(m, "specweb99 file set of %u directories\n", dirs) < 0
        || fclose(m) != 0) {
        fprintf(stderr, "nicload: %s: %s\n", path, strerror(errno));
        goto done;
    }
    printf("%u directories, %llu files, %llu bytes in %s/file_set (for %u "
           "connections)\n",
           dirs, (unsigned long long) files, (unsigned long long) bytes, root,
           n);
    rc = 0;

done:
    close(dirfd);
    free(buf);
    return rc;
}
