/*
 * MIME types (nginx's types {}): extensions to types, an open-addressing
 * table of lowercase extensions, and the built-in set used when a
 * configuration includes none.
 */

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/conf/conf.h"
#include "server/conf/mime.h"

typedef struct {
    char *ext;
    char *type;
} mime_slot_t;

struct nicd_mime_s {
    mime_slot_t *slots;
    size_t       size; /* power of two */
    size_t       used;
};

static uint32_t
hash_lower(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    size_t   i;

    for (i = 0; i < len; i++) {
        h ^= (uint32_t) tolower((unsigned char) s[i]);
        h *= 16777619u;
    }
    return h;
}

int
nicd_mime_add(nicd_mime_t *m, const char *ext, const char *type)
{
    size_t       i, len = strlen(ext);
    mime_slot_t *old;
    size_t       oldsize, k;

    if ((m->used + 1) * 2 > m->size) {
        old = m->slots;
        oldsize = m->size;
        m->size = m->size ? m->size * 2 : 64;
        m->slots = calloc(m->size, sizeof(mime_slot_t));
        if (m->slots == NULL) {
            m->slots = old;
            m->size = oldsize;
            return -1;
        }
        m->used = 0;
        for (k = 0; k < oldsize; k++) {
            if (old[k].ext != NULL) {
                i = hash_lower(old[k].ext, strlen(old[k].ext)) & (m->size - 1);
                while (m->slots[i].ext != NULL) {
                    i = (i + 1) & (m->size - 1);
                }
                m->slots[i] = old[k];
                m->used++;
            }
        }
        free(old);
    }

    i = hash_lower(ext, len) & (m->size - 1);
    while (m->slots[i].ext != NULL) {
        if (strcasecmp(m->slots[i].ext, ext) == 0) {
            free(m->slots[i].type); /* a later mapping wins, as in nginx */
            m->slots[i].type = strdup(type);
            return m->slots[i].type == NULL ? -1 : 0;
        }
        i = (i + 1) & (m->size - 1);
    }
    m->slots[i].ext = strdup(ext);
    m->slots[i].type = strdup(type);
    m->used++;
    return (m->slots[i].ext == NULL || m->slots[i].type == NULL) ? -1 : 0;
}

void
nicd_mime_free(nicd_mime_t *m)
{
    size_t i;

    if (m == NULL) {
        return;
    }
    for (i = 0; i < m->size; i++) {
        free(m->slots[i].ext);
        free(m->slots[i].type);
    }
    free(m->slots);
    free(m);
}

const char *
nicd_conf_mime(const nicd_conf_t *c, const char *name, size_t len)
{
    const nicd_mime_t *m = c->types;
    const char        *ext = NULL;
    size_t             i, elen;

    for (i = len; i > 0; i--) {
        if (name[i - 1] == '.') {
            ext = name + i;
            break;
        }
        if (name[i - 1] == '/') {
            break;
        }
    }
    if (ext == NULL || m == NULL || m->size == 0) {
        return NULL;
    }
    elen = (size_t) (name + len - ext);
    i = hash_lower(ext, elen) & (m->size - 1);
    while (m->slots[i].ext != NULL) {
        if (strlen(m->slots[i].ext) == elen
            && strncasecmp(m->slots[i].ext, ext, elen) == 0) {
            return m->slots[i].type;
        }
        i = (i + 1) & (m->size - 1);
    }
    return NULL;
}

static const char *const builtin_types[][2] = {
    {"html", "text/html"},        {"htm", "text/html"},
    {"css", "text/css"},          {"js", "text/javascript"},
    {"txt", "text/plain"},        {"json", "application/json"},
    {"png", "image/png"},         {"jpg", "image/jpeg"},
    {"jpeg", "image/jpeg"},       {"gif", "image/gif"},
    {"svg", "image/svg+xml"},     {"ico", "image/x-icon"},
    {"pdf", "application/pdf"},   {"xml", "text/xml"},
    {"wasm", "application/wasm"}, {"woff2", "font/woff2"},
};

nicd_mime_t *
nicd_mime_new(void)
{
    return calloc(1, sizeof(nicd_mime_t));
}

nicd_mime_t *
nicd_mime_builtin(void)
{
    nicd_mime_t *m = nicd_mime_new();
    size_t       i;

    for (i = 0;
         m != NULL && i < sizeof(builtin_types) / sizeof(builtin_types[0]);
         i++) {
        if (nicd_mime_add(m, builtin_types[i][0], builtin_types[i][1]) != 0) {
            nicd_mime_free(m);
            return NULL;
        }
    }
    return m;
}
