/*
 * SPECweb99's static workload (the figures, docs/nicload.md says
 * where they come from):
 *
 *   file set   dirs(N) = (int) (25 + ((400000.0 / 122000.0) * N) / 5.0)
 *              directories for N connections, each of 4 classes x 9
 *              files; file n (0..8) of class k has base_k * (n + 1) / 10
 *              bytes (integer division), bases 1024, 10240, 102400,
 *              1024000; named /file_set/dirNNNNN/classK_N;
 *   mix        class 0/1/2/3 with probabilities 0.35/0.50/0.14/0.01; the
 *              directory by Zipf (alpha 1) over the directories, rank r
 *              being directory r; the file of the class by Zipf (alpha 1)
 *              over 9 ranks, rank r being file number 4, 3, 5, 2, 6, 1,
 *              7, 8, 0;
 *   keep-alive a connection carries 5 to 15 requests (uniform).
 *
 * The bytes of every file are content.h's function of its name, as
 * nictrace docroot's, so a client checks them without the file set.
 */

#ifndef TRACE_SPECWEB_H
#define TRACE_SPECWEB_H

#include <stddef.h>
#include <stdint.h>

#define SPECWEB_CLASSES 4
#define SPECWEB_FILES   9

extern const double   specweb_class_share[SPECWEB_CLASSES];
extern const uint32_t specweb_rank_file[SPECWEB_FILES];

/* Directories of the file set for n connections. */
uint32_t specweb_dirs(uint32_t connections);

/* Bytes of file n of class k. */
uint64_t specweb_size(int cls, int n);

/* Bytes of one directory (5,119,484). */
uint64_t specweb_dir_bytes(void);

/* "/file_set/dirNNNNN/classK_N" into buf (48 bytes). */
void specweb_name(uint32_t dir, int cls, int n, char *buf);

typedef struct specweb_s specweb_t;

/* The request mix over dirs directories, drawn from seed. */
specweb_t *specweb_new(uint32_t dirs, uint64_t seed);
void       specweb_free(specweb_t *w);

typedef struct {
    uint32_t dir;
    int      cls, file, rank; /* rank: of the file within its class */
} specweb_req_t;

/* The next request of the mix. */
void specweb_draw(specweb_t *w, specweb_req_t *r);

/* Requests the next connection carries (5 to 15). */
int specweb_conn_requests(specweb_t *w);

/* A uniform draw in (0, 1] from w's generator. */
double specweb_uniform(specweb_t *w);

#endif /* TRACE_SPECWEB_H */
