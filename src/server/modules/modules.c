/*
 * The list of modules (modules.h).
 */

#include <stddef.h>

#include "modules.h"

extern const nicd_module_t nicd_static_module, nicd_rewrite_module,
    nicd_try_files_module, nicd_error_page_module, nicd_headers_module,
    nicd_status_module, nicd_report_module, nicd_access_module,
    nicd_log_format_module, nicd_gzip_module, nicd_map_module, nicd_lua_module;

const nicd_module_t *const nicd_modules[] = {
    &nicd_static_module,
    &nicd_rewrite_module,
    &nicd_try_files_module,
    &nicd_error_page_module,
    &nicd_headers_module,
    &nicd_status_module,
    &nicd_report_module,
    &nicd_access_module,
    &nicd_log_format_module,
    &nicd_gzip_module,
    &nicd_map_module,
    &nicd_lua_module,
    NULL,
};

void
nicd_modules_init(void)
{
    int i;

    for (i = 0; nicd_modules[i] != NULL; i++) {
        if (nicd_modules[i]->init != NULL) {
            nicd_modules[i]->init();
        }
    }
}

void
nicd_modules_worker_init(struct nicd_worker_s *w)
{
    int i;

    for (i = 0; nicd_modules[i] != NULL; i++) {
        if (nicd_modules[i]->worker_init != NULL) {
            nicd_modules[i]->worker_init(w);
        }
    }
}

void
nicd_modules_worker_free(struct nicd_worker_s *w)
{
    int i;

    for (i = 0; nicd_modules[i] != NULL; i++) {
        if (nicd_modules[i]->worker_free != NULL) {
            nicd_modules[i]->worker_free(w);
        }
    }
}
