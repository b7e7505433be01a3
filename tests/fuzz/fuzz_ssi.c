/*
 * Fuzz target: an SSI document's commands (util/ssi_syntax.c), as the
 * ssi module reads them: each "<!--#" parsed; a parsed command's name and
 * parameters lie in its copy, NUL-terminated; an "expr" parameter
 * evaluated (its templates as they are) and an "echo" value encoded.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/ssi_syntax.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
as_is(void *data, const char *s, size_t len, nicd_buf_t *b)
{
    (void) data;
    nicd_buf_add(b, s, len);
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *doc = (const char *) data, *end = doc + size, *p = doc, *next;
    nicd_buf_t  cmd = {0}, enc = {0};
    ssi_param_t ps[SSI_MAX_PARAMS];
    ssi_caps_t  caps;
    char       *name;
    int         n, i;

    static int  quiet;

    if (!quiet) {
        log_error_open("/dev/null", LOG_ERR); /* (bad input says why) */
        quiet = 1;
    }
    memset(&caps, 0, sizeof(caps));
    while ((p = memmem(p, (size_t) (end - p), "<!--#", 5)) != NULL) {
        if (ssi_parse_command(p + 5, end, 256, &cmd, &name, ps, &n, &next)
            == 0) {
            if (n < 0 || n > SSI_MAX_PARAMS || name < cmd.data
                || name >= cmd.data + cmd.len) {
                abort();
            }
            for (i = 0; i < n; i++) {
                if (ps[i].value[ps[i].vlen] != '\0'
                    || ps[i].name[ps[i].nlen] != '\0' || ps[i].vlen > 256) {
                    abort();
                }
                if (strcmp(ps[i].name, "expr") == 0) {
                    (void) ssi_expr(ps[i].value, ps[i].vlen, as_is, NULL,
                                    &caps);
                }
                enc.len = 0;
                ssi_encode(i % 3, ps[i].value, ps[i].vlen, &enc);
            }
        }
        if (next <= p || next > end) {
            abort();
        }
        p = next;
    }
    nicd_buf_free(&cmd);
    nicd_buf_free(&enc);
    nicd_buf_free(&caps.subject);
    return 0;
}
