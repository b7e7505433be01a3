/*
 * The list of modules (modules.h).
 */

#include <stddef.h>
#include <string.h>

#include "server/core/nicd.h"
#include "server/modules/modules.h"

extern nicd_module_t nicd_http_core_module, nicd_http_ssl_module,
    nicd_variables_module, nicd_static_module, nicd_rewrite_module,
    nicd_try_files_module, nicd_error_page_module, nicd_headers_module,
    nicd_status_module, nicd_report_module, nicd_access_module,
    nicd_log_format_module, nicd_gzip_module, nicd_map_module,
    nicd_limit_req_module, nicd_charset_module, nicd_lua_module,
    nicd_http_keepalive_module, nicd_http_errlog_module, nicd_realip_module,
    nicd_limit_conn_module, nicd_http_files_module, nicd_http_head_module,
    nicd_random_index_module, nicd_http_tokens_module, nicd_geo_module,
    nicd_http_upstream_module, nicd_proxy_module, nicd_http_rate_module,
    nicd_http_redirect_module, nicd_http2_module, nicd_http_limit_except_module,
    nicd_ssi_module, nicd_sub_filter_module, nicd_http_gzip_module,
    nicd_addition_module, nicd_http_filter_module;

nicd_module_t *const nicd_modules[] = {
    &nicd_http_core_module,
    &nicd_http_ssl_module,
    &nicd_http_filter_module,
    &nicd_http_keepalive_module,
    &nicd_http_errlog_module,
    &nicd_http_files_module,
    &nicd_http_head_module,
    &nicd_http_tokens_module,
    &nicd_http_rate_module,
    &nicd_http_redirect_module,
    &nicd_http2_module,
    &nicd_http_limit_except_module,
    &nicd_http_gzip_module,
    &nicd_variables_module,
    &nicd_random_index_module, /* before static: its content runs first */
    &nicd_static_module,
    &nicd_rewrite_module,
    &nicd_try_files_module,
    &nicd_error_page_module,
    &nicd_headers_module,
    &nicd_status_module,
    &nicd_report_module,
    &nicd_realip_module, /* before the phases that read the address */
    &nicd_access_module,
    &nicd_log_format_module,
    &nicd_gzip_module,
    &nicd_charset_module,    /* after gzip: its body filter runs first */
    &nicd_ssi_module,        /* after gzip: its file filter runs first */
    &nicd_sub_filter_module, /* after charset and ssi: its filters run
                                ahead of theirs (nginx's order) */
    &nicd_addition_module,   /* after sub_filter: its filters run first */
    &nicd_map_module,
    &nicd_geo_module,
    &nicd_limit_req_module,
    &nicd_limit_conn_module, /* after limit_req: a delayed request is
                                counted once it goes on (nginx's order) */
    &nicd_lua_module,
    &nicd_http_upstream_module,
    &nicd_proxy_module,
    NULL,
};

/* each module has a slot in a worker's modctx[] (its worker state) */
_Static_assert(sizeof(nicd_modules) / sizeof(nicd_modules[0]) - 1
                   <= NICD_MAX_MODULES,
               "more modules than NICD_MAX_MODULES");

void
nicd_modules_init(void)
{
    static int done;
    int        i;

    if (done) {
        return; /* a module's init adds its handlers to the phases once */
    }
    done = 1;
    for (i = 0; nicd_modules[i] != NULL; i++) {
        if (nicd_modules[i]->init != NULL) {
            nicd_modules[i]->init();
        }
    }
}

/* every module's worker hook at offset off of nicd_module_t, in order */
static void
each_worker_hook(struct nicd_worker_s *w, size_t off)
{
    void (*hook)(struct nicd_worker_s *);
    int i;

    for (i = 0; nicd_modules[i] != NULL; i++) {
        memcpy(&hook, (const char *) nicd_modules[i] + off, sizeof(hook));
        if (hook != NULL) {
            hook(w);
        }
    }
}

void
nicd_modules_worker_init(struct nicd_worker_s *w)
{
    each_worker_hook(w, offsetof(nicd_module_t, worker_init));
}

void
nicd_modules_worker_free(struct nicd_worker_s *w)
{
    each_worker_hook(w, offsetof(nicd_module_t, worker_free));
}
