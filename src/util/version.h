/*
 * The version of nicache's programs (nicd and the trace tools), one place.
 */

#ifndef NICACHE_VERSION_H
#define NICACHE_VERSION_H

#define NICACHE_VERSION "0.1.0"

/* the long option every tool takes for it (clear of any letter) */
#define NICACHE_OPT_VERSION 0x7301

#endif /* NICACHE_VERSION_H */
