/*
 * A small JSON reader for what the tools write themselves (nicreplay
 * merge reads nicreplay's --json files): a tree of values parsed from a
 * buffer, strings without escapes beyond the simple ones, nesting bounded.
 * Not a general-purpose library; it refuses what it does not understand.
 */

#ifndef TRACE_JSON_H
#define TRACE_JSON_H

#include <stddef.h>
#include <stdio.h>

enum {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
};

typedef struct json_s json_t;

struct json_s {
    int     type;
    double  number; /* JSON_NUMBER, JSON_BOOL (0 or 1) */
    char   *string; /* JSON_STRING; the key of a member */
    char   *key;    /* a member of an object: its name */
    json_t *child;  /* JSON_ARRAY, JSON_OBJECT: the first element */
    json_t *next;   /* the next element of its array or object */
};

/* The whole file at path, NUL-terminated, its length in *n: malloc'd, or
 * NULL with err set ("PATH: why"). */
char *json_read_file(const char *path, size_t *n, char *err, size_t errlen);

/* Parse p[0..n): the tree, or NULL with err set (and the byte offset). */
json_t *json_parse(const char *p, size_t n, char *err, size_t errlen);
void    json_free(json_t *v);

/* Write s to f as a JSON string (quoted, '"', '\\' and control
 * characters escaped). */
void json_write_string(FILE *f, const char *s);

/* The member key of object o, or NULL. */
const json_t *json_get(const json_t *o, const char *key);

#endif /* TRACE_JSON_H */
