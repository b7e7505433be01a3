/*
 * How a location's files are opened (files.c): which symlinks their
 * names may go through, nginx's disable_symlinks.
 */

#ifndef NICD_FILES_H
#define NICD_FILES_H

#include <sys/stat.h>

#include "server/conf/conf.h"
#include "server/core/nicd.h"
#include "server/core/ofc.h"

/*
 * How lc opens the file at root_fd (the directory named root) + path:
 * when the location checks symlinks (on, if_not_owner) how->full is the
 * whole name (the worker's until the next call), with from= evaluated
 * against it.  0, or -1 (out of memory, a variable failed: logged).
 */
int nicd_files_how(nicd_conn_t *c, const nicd_loc_conf_t *lc, int root_fd,
                   const char *root, const char *path, size_t len,
                   nicd_open_how_t *how);

/*
 * The stat of name (a whole path, $request_filename say: if's -f, -d,
 * -e, -x) reached as lc's disable_symlinks allows: 0, or -1 with errno.
 */
int nicd_files_stat(nicd_conn_t *c, const nicd_loc_conf_t *lc, const char *name,
                    struct stat *st);

/* log_not_found of lc: is a file not found an error line? */
int nicd_files_log_not_found(const nicd_loc_conf_t *lc);

#endif /* NICD_FILES_H */
