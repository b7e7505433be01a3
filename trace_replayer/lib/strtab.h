/*
 * Interned strings: each distinct byte string gets an id (0, 1, ... in
 * order of first sight).  Open addressing, the bytes in one arena: memory
 * grows with the distinct strings.
 */

#ifndef TRACE_STRTAB_H
#define TRACE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_strtab_s trace_strtab_t;

trace_strtab_t *trace_strtab_new(void);
void            trace_strtab_free(trace_strtab_t *t);

/* The id of s, added if new (*added = 1).  0, or -1 out of memory. */
int trace_strtab_intern(trace_strtab_t *t, const char *s, size_t len,
                        uint32_t *id, int *added);

/* The id of s, or -1 when it is not in the table. */
int trace_strtab_find(const trace_strtab_t *t, const char *s, size_t len,
                      uint32_t *id);

uint32_t    trace_strtab_count(const trace_strtab_t *t);
const char *trace_strtab_get(const trace_strtab_t *t, uint32_t id, size_t *len);

#endif /* TRACE_STRTAB_H */
