/*
 * Replays a fuzz target's corpus without libFuzzer, so that "make test"
 * checks every kept input with gcc (and under ASan+UBSan in
 * "make test-asan").  Usage: fuzz_X CORPUS_DIR
 * Prints how many inputs it replayed, then "NAME: 1 passed, 0 failed"
 * (the corpus is one test); an input that crashes stops the program,
 * which the runner counts as a failure.
 */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
    DIR           *d;
    struct dirent *de;
    char           path[4096];
    FILE          *f;
    uint8_t       *buf;
    long           size;
    int            n = 0;
    const char    *name = strrchr(argv[0], '/');

    name = name ? name + 1 : argv[0];
    if (argc != 2 || (d = opendir(argv[1])) == NULL) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", name);
        return 2;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
        f = fopen(path, "rb");
        if (f == NULL) {
            continue;
        }
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc((size_t) size + 1);
        if (fread(buf, 1, (size_t) size, f) != (size_t) size) {
            size = 0;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t) size);
        free(buf);
        n++;
    }
    closedir(d);
    if (n == 0) {
        printf("%s: 0 passed, 1 failed (empty corpus)\n", name);
        return 1;
    }
    printf("%s: %d inputs replayed\n%s: 1 passed, 0 failed\n", name, n, name);
    return 0;
}
