/*
 * Fuzz target: the JSON reader of nicreplay merge.  Parse, walk, free;
 * never crash, never leak (ASan).
 */

#include <stdint.h>
#include <stdlib.h>

#include "lib/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t
walk(const json_t *v)
{
    size_t n = 0;

    for (; v != NULL; v = v->next) {
        n += 1 + walk(v->child);
    }
    return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char    err[128];
    json_t *v = json_parse((const char *) data, size, err, sizeof(err));

    if (v == NULL && err[0] == '\0') {
        abort(); /* a refusal says why */
    }
    if (v != NULL && walk(v) > size) {
        abort();
    }
    json_get(v, "requests");
    json_free(v);
    return 0;
}
