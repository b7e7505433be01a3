/*
 * The listening sockets (listening.c), kept across generations.
 */

#ifndef NICD_LISTENING_H
#define NICD_LISTENING_H

#include "server/core/nicd.h"

typedef struct {
    char *text; /* the listen directive's address */
    int   idx;  /* the worker slot it belongs to */
    int   fd;
    int   gen; /* newest generation using it */
} nicd_listener_t;

typedef struct {
    nicd_listener_t *v;
    int              n;
} nicd_listeners_t;

/*
 * The socket of worker slot idx for listen address l, reused when an
 * earlier generation had it, marked as used by generation gen.  With
 * port 0, slot 0 gets a port from the kernel and the other slots bind
 * the same one.  Returns fd or -1 with err.
 */
int nicd_listener_get(nicd_listeners_t *ls, const nicd_listen_conf_t *l,
                      int idx, int gen, char *err, size_t errlen);

/* Close the sockets that no generation from oldest_alive on uses. */
void nicd_listeners_prune(nicd_listeners_t *ls, int oldest_alive);

/* "listening on http://127.0.0.1:8080/" for each address of cy */
void nicd_listeners_say(const nicd_listeners_t *ls, const nicd_cycle_t *cy);

/* every socket closed */
void nicd_listeners_free(nicd_listeners_t *ls);

#endif
