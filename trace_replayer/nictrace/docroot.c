/*
 * nictrace docroot (nictrace.h): one file per object of a trace, its
 * bytes a function of (path, offset), and the manifest.
 */

#include "nictrace/nictrace.h"

/* docroot */

/* a directory (and its parents) for a redirect */
static int
make_dir(int dirfd, const char *name)
{
    size_t n = strlen(name);
    char  *rel = malloc(n + 1);
    int    rc;

    if (rel == NULL) {
        return -1;
    }
    memcpy(rel, name + 1, n - 1);
    rel[n - 1] = '/';
    rel[n] = '\0';
    rc = trace_make_parents(dirfd, rel);
    free(rel);
    return rc;
}

static double
share(uint64_t part, uint64_t whole)
{
    return whole > 0 ? (double) part / (double) whole : 1.0;
}

/*
 * root holds the docroot of another trace (its manifest names one): 1
 * after saying so.  Files of two traces in one docroot would serve
 * neither right, and the manifest would describe only the last.
 */
static int
foreign_docroot(const char *root, const char *trace)
{
    char  path[PATH_MAX], line[PATH_MAX + 16], mine[PATH_MAX], theirs[PATH_MAX];
    FILE *f;
    int   n;

    snprintf(path, sizeof(path), "%s/%s", root, TRACE_MANIFEST_NAME);
    f = fopen(path, "r");
    if (f == NULL) {
        return 0; /* a new docroot, or one half made */
    }
    n = fgets(line, sizeof(line), f) != NULL
                && fgets(line, sizeof(line), f) != NULL
            ? (int) strcspn(line, "\n")
            : -1;
    fclose(f);
    if (n < 9 || strncmp(line, "# trace: ", 9) != 0) {
        return 0;
    }
    line[n] = '\0';
    if (strcmp(line + 9, trace) == 0
        || (realpath(line + 9, theirs) != NULL && realpath(trace, mine) != NULL
            && strcmp(theirs, mine) == 0)) {
        return 0;
    }
    fprintf(stderr,
            "nictrace: failed: %s is the docroot of another trace (%s); "
            "make this one's in an empty directory\n",
            root, line + 9);
    return 1;
}

int
nictrace_docroot(const trace_src_t *src, const char *root, int json)
{
    char                     a[32], b[32];
    scan_t                   sc;
    unsigned char           *buf = malloc(1 << 16);
    const trace_map_stats_t *st;
    trace_obj_t              o;
    uint32_t                 id;
    int                      dirfd = -1, fd, rc = 1;
    FILE                    *mf = NULL;
    char                     real[PATH_MAX]; /* the manifest names it */

    if (buf == NULL || nictrace_scan(src, NULL, 1, &sc) != 0) {
        free(buf);
        return 1;
    }
    if (nictrace_no_records(src->path, sc.requests, sc.reader) != 0
        || nictrace_late(src->path, sc.reader) != 0
        || foreign_docroot(root, src->path) != 0) {
        goto done;
    }
    if (trace_map_decide(sc.map) != 0) {
        fprintf(stderr, "nictrace: out of memory\n");
        goto done;
    }
    if (mkdir(root, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "nictrace: mkdir %s: %s\n", root, strerror(errno));
        goto done;
    }
    dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd == -1) {
        fprintf(stderr, "nictrace: %s: %s\n", root, strerror(errno));
        goto done;
    }
    unlinkat(dirfd, TRACE_MANIFEST_NAME, 0); /* none while half made */
    for (id = 0; id < trace_map_count(sc.map); id++) {
        trace_map_get(sc.map, id, &o);
        if (o.kind == TRACE_OBJ_MISSING
            || (o.kind == TRACE_OBJ_FILE
                    ? trace_content_write(dirfd, o.name, o.size, buf, 1 << 16)
                    : make_dir(dirfd, o.name))
                   == 0) {
            continue;
        }
        fprintf(stderr, "nictrace: %s%s: %s%s\n", root, o.name, strerror(errno),
                errno == ENOTDIR || errno == EISDIR || errno == EEXIST
                        || errno == ELOOP
                    ? " (is DIR the docroot of another trace? start from an "
                      "empty one)"
                    : "");
        goto done;
    }
    fd = openat(dirfd, TRACE_MANIFEST_NAME,
                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    mf = fd == -1 ? NULL : fdopen(fd, "w");
    if (mf == NULL
        || trace_map_write(sc.map, mf,
                           realpath(src->path, real) != NULL ? real : src->path)
               != 0
        || fclose(mf) != 0) {
        fprintf(stderr, "nictrace: %s/%s: %s\n", root, TRACE_MANIFEST_NAME,
                strerror(errno));
        mf = NULL;
        goto done;
    }
    st = trace_map_stats(sc.map);
    if (json) {
        printf("{\"root\": ");
        nictrace_json_string(root);
        printf(", \"manifest\": \"%s\", \"objects\": %llu, \"files\": %llu, "
               "\"bytes\": %llu, \"redirects\": %llu, \"missing\": %llu, "
               "\"renamed\": %llu, \"log_2xx\": %llu, \"answerable_2xx\": "
               "%llu, \"share_2xx\": %.6f, \"log_404\": %llu, "
               "\"stays_404\": %llu, \"log_3xx\": %llu, \"stays_3xx\": %llu, "
               "\"log_304\": %llu, \"log_other\": %llu, \"exceptions\": "
               "{\"2xx_not_a_file\": %llu, \"3xx_or_404_on_a_file\": %llu}, "
               "\"other_methods\": %llu, \"parse_errors\": %llu}\n",
               TRACE_MANIFEST_NAME, (unsigned long long) st->objects,
               (unsigned long long) st->files, (unsigned long long) st->bytes,
               (unsigned long long) st->redirects,
               (unsigned long long) st->missing,
               (unsigned long long) st->renamed,
               (unsigned long long) st->log_2xx,
               (unsigned long long) st->answerable_2xx,
               share(st->answerable_2xx, st->log_2xx),
               (unsigned long long) st->log_404,
               (unsigned long long) st->stays_404,
               (unsigned long long) st->log_3xx,
               (unsigned long long) st->stays_3xx,
               (unsigned long long) st->log_304,
               (unsigned long long) st->log_other,
               (unsigned long long) (st->log_2xx - st->answerable_2xx),
               (unsigned long long) st->other_3xx_404,
               (unsigned long long) st->other_methods,
               (unsigned long long) trace_bad_count(sc.reader));
    } else {
        printf("%s files, %s bytes written under %s; %llu directories for "
               "redirects, %llu objects missing (%llu renamed, see %s)\n",
               nictrace_thousands(st->files, a),
               nictrace_thousands(st->bytes, b), root,
               (unsigned long long) st->redirects,
               (unsigned long long) st->missing,
               (unsigned long long) st->renamed, TRACE_MANIFEST_NAME);
        printf("2xx answerable as 2xx: %.2f %% (%llu of %llu GET/HEAD); 404 "
               "staying 404: %llu of %llu; 3xx answered 301: %llu of %llu\n",
               100 * share(st->answerable_2xx, st->log_2xx),
               (unsigned long long) st->answerable_2xx,
               (unsigned long long) st->log_2xx,
               (unsigned long long) st->stays_404,
               (unsigned long long) st->log_404,
               (unsigned long long) st->stays_3xx,
               (unsigned long long) st->log_3xx);
        if (st->other_3xx_404 > 0) {
            printf("%llu 3xx or 404 requests name an object that also "
                   "succeeded: answered 2xx\n",
                   (unsigned long long) st->other_3xx_404);
        }
        if (st->other_methods > 0) {
            printf("%llu requests with other methods than GET and HEAD: not "
                   "replayed\n",
                   (unsigned long long) st->other_methods);
        }
    }
    rc = 0;

done:
    free(buf);
    if (dirfd != -1) {
        close(dirfd);
    }
    nictrace_scan_free(&sc);
    return rc;
}
