/*
 * add_header NAME VALUE [always] and expires (nginx's
 * ngx_http_headers_module): added to responses of status 200, 201, 204,
 * 206, 301, 302, 303, 304, 307 and 308, or of any status with "always".
 * VALUE may hold variables (a field whose value expands to nothing is left
 * out, as nginx does).
 * "expires TIME|epoch|max|off|modified TIME" sets Expires and
 * Cache-Control (max-age, or no-cache for a time in the past).
 */

#include <stdlib.h>
#include <string.h>

#include "../../util/duration.h"
#include "../../util/buf.h"
#include "directive.h"

static const char *
set_add_header(parse_t *ps, const char **a, int n)
{
    nicd_loc_conf_t  *l = ps->loc;
    nicd_add_header_t h;

    if (n == 3 && strcmp(a[2], "always") != 0) {
        return nicd_conf_msg("invalid parameter \"%s\"", a[2]);
    }
    h.name = nicd_conf_strdup(ps->conf, a[0]);
    h.value = nicd_conf_strdup(ps->conf, a[1]);
    h.nlen = strlen(a[0]);
    h.vlen = strlen(a[1]);
    h.always = n == 3;
    h.vars = strchr(a[1], '$') != NULL;
    l->headers = nicd_conf_grow(ps->conf, l->headers, l->nheaders, sizeof(h));
    if (h.name == NULL || h.value == NULL || l->headers == NULL) {
        return "out of memory";
    }
    l->headers[l->nheaders++] = h;
    return NULL;
}

static const char *
set_expires(parse_t *ps, const char **a, int n)
{
    nicd_loc_conf_t *l = ps->loc;
    const char      *t = a[n - 1];
    long long        secs;
    int              neg = 0;

    if (n == 2 && strcmp(a[0], "modified") != 0) {
        return nicd_conf_msg("invalid value \"%s\"", a[0]);
    }
    if (n == 1 && strcmp(t, "off") == 0) {
        l->expires_kind = NICD_EXPIRES_OFF;
        return NULL;
    }
    if (n == 1 && strcmp(t, "epoch") == 0) {
        l->expires_kind = NICD_EXPIRES_EPOCH;
        return NULL;
    }
    if (n == 1 && strcmp(t, "max") == 0) {
        l->expires_kind = NICD_EXPIRES_MAX;
        return NULL;
    }
    if (t[0] == '@') {
        return "\"@time\" is not supported";
    }
    if (t[0] == '-' || t[0] == '+') {
        neg = t[0] == '-';
        t++;
    }
    if (nicache_parse_time(t, 1, &secs) != 0 || secs > 0x7fffffffLL) {
        return nicd_conf_msg("invalid value \"%s\"", a[n - 1]);
    }
    l->expires = (long) (neg ? -secs : secs);
    l->expires_kind = n == 2 ? NICD_EXPIRES_MODIFIED : NICD_EXPIRES_ACCESS;
    return NULL;
}

static const directive_t nicd_headers_directives[] = {
    {"add_header", CTX_HSL, 2, 3, set_add_header, 0},
    {"expires", CTX_HSL, 1, 2, set_expires, 0},
    {NULL, 0, 0, 0, NULL, 0},
};

const nicd_module_t nicd_headers_module = {
    .name = "headers",
    .directives = nicd_headers_directives,
};
