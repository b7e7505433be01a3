/*
 * Errors counted by cause (causes.h).
 */

#include <stdlib.h>
#include <string.h>

#include "lib/causes.h"
#include "lib/json.h"

const cause_t *
causes_add(causes_t *c, const char *what, int err, const char *why)
{
    return causes_add_n(c, what, err, why, 1);
}

const cause_t *
causes_add_n(causes_t *c, const char *what, int err, const char *why,
             uint64_t n)
{
    int i;

    cause_t k;

    c->total += n;
    snprintf(k.what, sizeof(k.what), "%s", what);
    snprintf(k.why, sizeof(k.why), "%s", err == 0 && why != NULL ? why : "");
    for (i = 0; i < c->n; i++) {
        cause_t *r = &c->row[i];

        if (r->err == err && strcmp(r->what, k.what) == 0
            && strcmp(r->why, k.why) == 0) {
            r->n += n;
            return r;
        }
    }
    if (c->n == CAUSES_MAX) {
        c->other += n;
        return NULL;
    }
    k.err = err;
    k.n = n;
    c->row[c->n] = k;
    return &c->row[c->n++];
}

const char *
causes_reason(const cause_t *r)
{
    return r->err != 0 ? strerror(r->err) : r->why;
}

/* most frequent first; ties in the order they came */
static void
sorted(const causes_t *c, int *idx)
{
    int i, j, k;

    for (i = 0; i < c->n; i++) {
        idx[i] = i;
    }
    for (i = 1; i < c->n; i++) {
        for (j = i, k = idx[i]; j > 0 && c->row[idx[j - 1]].n < c->row[k].n;
             j--) {
            idx[j] = idx[j - 1];
        }
        idx[j] = k;
    }
}

const char *
causes_format(const causes_t *c, int max, char *buf, size_t len)
{
    int    idx[CAUSES_MAX], i;
    size_t off = 0;

    if (len == 0) {
        return buf;
    }
    buf[0] = '\0';
    if (c->total == 0) {
        snprintf(buf, len, "none");
        return buf;
    }
    sorted(c, idx);
    for (i = 0; i < c->n && i < max && off < len; i++) {
        const cause_t *r = &c->row[idx[i]];
        int k = snprintf(buf + off, len - off, "%s%s: %s %llu", i ? ", " : "",
                         r->what, causes_reason(r), (unsigned long long) r->n);

        off += k > 0 ? (size_t) k : 0;
    }
    if (off < len && (i < c->n || c->other > 0)) {
        uint64_t more = c->other;

        for (; i < c->n; i++) {
            more += c->row[idx[i]].n;
        }
        snprintf(buf + off, len - off, ", and %llu more",
                 (unsigned long long) more);
    }
    return buf;
}

void
causes_json(const causes_t *c, FILE *f)
{
    int idx[CAUSES_MAX], i;

    sorted(c, idx);
    fputc('[', f);
    for (i = 0; i < c->n; i++) {
        const cause_t *r = &c->row[idx[i]];

        fputs(i ? ", {\"what\": " : "{\"what\": ", f);
        json_write_string(f, r->what);
        fputs(", \"reason\": ", f);
        json_write_string(f, causes_reason(r));
        fprintf(f, ", \"count\": %llu}", (unsigned long long) r->n);
    }
    if (c->other > 0) {
        fprintf(f,
                "%s{\"what\": \"other\", \"reason\": \"more than %d "
                "causes\", \"count\": %llu}",
                c->n ? ", " : "", CAUSES_MAX, (unsigned long long) c->other);
    }
    fputc(']', f);
}
