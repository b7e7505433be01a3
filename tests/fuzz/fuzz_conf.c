/*
 * Fuzz target: the configuration reader (nginx syntax), the finishing
 * merge of servers and locations, and the choice of a server and a
 * location (regexes included) for a few requests.  Whatever the text, it
 * must end in a configuration or an error message, never a crash or a
 * leak.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "server/conf/conf.h"
#include "server/http/lookup.h"
#include "server/modules/modules.h"
#include "server/core/roots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char                    *text = malloc(size + 1);
    char                     err[512];
    nicd_conf_t             *c = nicd_conf_new(nicd_modules);
    static const char *const uris[] = {"/", "/a/b.png", "/docs/", "/x.php",
                                       "/@named"};
    static const char *const hosts[] = {"example.org", "a.b.example.net",
                                        "www.example.com", ""};
    pcre2_match_data        *md = pcre2_match_data_create(10, NULL);
    int                      i, k, li;

    memcpy(text, data, size);
    text[size] = '\0';
    err[0] = '\0';
    /* include would read files named by the input: not in a fuzzer */
    if (strstr(text, "include") != NULL) {
        goto done;
    }
    if (nicd_conf_parse_string(c, text, "fuzz", err, sizeof(err)) != 0
        || nicd_conf_finish(c, err, sizeof(err)) != 0) {
        if (err[0] == '\0') {
            abort(); /* an error without a message */
        }
        goto done;
    }
    for (li = 0; li < c->nlistens; li++) {
        for (k = 0; k < 4; k++) {
            const nicd_server_conf_t *srv =
                nicd_conf_find_server(c, li, hosts[k], strlen(hosts[k]), md);

            for (i = 0; i < 5; i++) {
                (void) nicd_conf_find_location(srv, uris[i], strlen(uris[i]),
                                               md, NULL);
            }
        }
    }
done:
    pcre2_match_data_free(md);
    nicd_conf_free(c);
    free(text);
    return 0;
}
