/*
 * Fuzz target: the configuration reader (nginx syntax).  Whatever the
 * text, it must end in a configuration or an error message, never a crash
 * or a leak.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char        *text = malloc(size + 1);
    char         err[512];
    nicd_conf_t *c = nicd_conf_new();

    memcpy(text, data, size);
    text[size] = '\0';
    err[0] = '\0';
    /* include would read files named by the input: not in a fuzzer */
    if (strstr(text, "include") == NULL
        && nicd_conf_parse_string(c, text, "fuzz", err, sizeof(err)) != 0
        && err[0] == '\0') {
        abort(); /* an error without a message */
    }
    nicd_conf_free(c);
    free(text);
    return 0;
}
