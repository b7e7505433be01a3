/*
 * Fuzz target: everything that reads a request from the network.  The
 * input is split in two at a point it chooses itself, so the parser's
 * resumption is fuzzed too; a complete head then goes through the path
 * normaliser, the Range parser, the date parser and (for a chunked body)
 * the chunk skipper, as the handler would.  A short input is also parsed
 * one byte at a time under limits it chooses (where the parser's steps
 * over several bytes never apply): the answer and the fields must be
 * those of the whole input at once.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "server/http/http_parser.h"
#include "server/http/path.h"
#include "server/http/range.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* whole and byte by byte agree, under line and field limits of 1 to 64
 * bytes and a head limit of 1 to 128 */
static void
steps_agree(const uint8_t *data, const char *buf, size_t len)
{
    static nicd_http_req_t whole, step;
    uint32_t               line = 1 + data[0] % 64, field = 1 + data[0] / 4 % 64;
    uint32_t               head = 1 + (uint32_t) (len + data[0]) % 128;
    size_t                 i;
    int                    rw, rc = NICD_HTTP_AGAIN;

    nicd_http_req_init(&whole, line, field, head);
    rw = nicd_http_parse(&whole, buf, len);
    nicd_http_req_init(&step, line, field, head);
    for (i = 1; i <= len && rc == NICD_HTTP_AGAIN; i++) {
        rc = nicd_http_parse(&step, buf, i);
    }
    if (rc != rw) {
        abort();
    }
    if (rc == NICD_HTTP_DONE
        && (step.method != whole.method || step.version != whole.version
            || step.line.off != whole.line.off
            || step.line.len != whole.line.len
            || step.head_len != whole.head_len
            || step.nheaders != whole.nheaders
            || step.target.len != whole.target.len)) {
        abort();
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static nicd_http_req_t req;
    const char            *buf;
    char                  *path;
    size_t                 split, len, plen;
    nicd_range_t           ranges[16];
    int                    rc, n, i;

    if (size < 1) {
        return 0;
    }
    split = data[0] % size;
    buf = (const char *) data + 1;
    len = size - 1;
    if (split > len) {
        split = len;
    }

    if (len <= 256) {
        steps_agree(data, buf, len);
    }
    nicd_http_req_init(&req, 1024, 1024, 4096);

    rc = nicd_http_parse(&req, buf, split);
    if (rc == NICD_HTTP_AGAIN) {
        rc = nicd_http_parse(&req, buf, len);
    }
    if (rc != NICD_HTTP_DONE) {
        return 0;
    }
    if (req.head_len > len || req.nheaders > NICD_HTTP_MAX_HEADERS) {
        abort(); /* a result outside the input */
    }

    path = malloc(req.path.len + 2);
    if (nicd_path_normalize(buf + req.path.off, req.path.len, path, &plen,
                            !(data[0] & 0x80))
        == 0) {
        if (path[0] != '/' || strstr(path, "/../") != NULL
            || (plen >= 3 && strcmp(path + plen - 3, "/..") == 0)
            || strlen(path) != plen) {
            abort(); /* a normalised path that could leave the root */
        }
    }
    free(path);

    if (req.h_range >= 0) {
        nicd_span_t v = req.headers[req.h_range].value;
        if (nicd_range_parse(buf + v.off, v.len, 1000, 16, ranges, &n)
            == NICD_RANGE_OK) {
            for (i = 0; i < n; i++) {
                if (ranges[i].start < 0 || ranges[i].end >= 1000
                    || ranges[i].start > ranges[i].end) {
                    abort();
                }
            }
        }
    }
    if (req.chunked) {
        /* the body after the head, as the connection would skip it */
        nicd_chunked_t ch;
        size_t         used = 0;

        memset(&ch, 0, sizeof(ch));
        rc = nicd_http_chunked_skip(&ch, buf + req.head_len, len - req.head_len,
                                    &used);
        if (used > len - req.head_len) {
            abort();
        }
    }
    if (req.h_if_modified_since >= 0) {
        nicd_span_t v = req.headers[req.h_if_modified_since].value;
        (void) nicd_http_date_parse(buf + v.off, v.len);
    }
    return 0;
}
