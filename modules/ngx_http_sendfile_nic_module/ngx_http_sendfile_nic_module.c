
/*
 * ngx_http_sendfile_nic_module: nicache's emulated network interface data
 * cache inside nginx.
 *
 * A body filter after the copy filter: a buffer that points into a regular
 * file is split at NIC block boundaries; each block that is cached (or
 * that may be inserted now) becomes a buffer that points into the
 * emulated NIC memory, a memfd (or a file: sendfile_nic_memory_path), so
 * that nginx's own sendfile() sends it from there.  Other blocks keep
 * pointing into the file (normal DMA, a fallback counted by reason).  The
 * directory, the policies, the NIC memory and the interconnect and host
 * models are nicache's library (src/sendfile_nic/), the same code nicd
 * runs.
 *
 * One emulated NIC (or sendfile_nic_count of them) serves all worker
 * processes: the library's state is allocated in a shared memory zone
 * while the master reads the configuration, with process-shared locks,
 * and the NIC memory is created there too, so every worker inherits it.
 *
 * A block handed to nginx in a buffer is pinned until nginx has passed
 * it to the kernel; from then on the punch-hole interlock of the library
 * keeps the queued bytes right when the block is replaced.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "sendfile_nic/snic.h"
#include "sendfile_nic/snic_nic.h"
#include "sendfile_nic/nic/params.h"


#define NGX_HTTP_SENDFILE_NIC_PIECES  16


/*
 * the parameters of one emulated NIC set (sendfile_nic_count NICs), as
 * written (len 0: not set, the library's default): one a row of the
 * library's table (nic/params.h), whose order indexes them
 */
typedef struct {
    ngx_str_t           v[SNIC_NIC_NPARAMS];
} ngx_http_sendfile_nic_params_t;


/*
 * A shared zone's data: the parameters, and the library's instance in
 * the zone once the zone exists.  Every location whose parameters are the
 * same finds the same zone by its name, so they share one NIC set.
 *
 * The NIC memory (a memfd or a file, and its mapping) is held by each
 * process apart from the zone: this cycle's hold is released with the
 * cycle's pool unless the next cycle took the zone over (next), or this
 * cycle took it over from a previous one that is still there because
 * this cycle failed (prev).  So a reload that changes the parameters lets
 * the old NIC memory go once the old workers have exited.
 */
typedef struct ngx_http_sendfile_nic_zone_s  ngx_http_sendfile_nic_zone_t;

struct ngx_http_sendfile_nic_zone_s {
    ngx_http_sendfile_nic_params_t   params;
    snic_instance_t                 *nic;
    snic_nic_memory_t               *memory;
    ngx_int_t                        nmemory;
    ngx_http_sendfile_nic_zone_t    *prev;
    ngx_http_sendfile_nic_zone_t    *next;
};


typedef struct {
    ngx_flag_t                       enable;
    ngx_int_t                        report;     /* SNIC_REPORT_*, or -1 */
    ngx_http_sendfile_nic_params_t   params;
    ngx_http_sendfile_nic_zone_t    *zone;       /* NULL: not used here */
} ngx_http_sendfile_nic_loc_conf_t;


/* per connection: the library's connection (which NIC, what it counted) */
typedef struct {
    snic_conn_t         sc;
    snic_instance_t    *nic;
    ngx_msec_t          resume;     /* paced: no sends before this time */
} ngx_http_sendfile_nic_conn_t;


typedef struct {
    ngx_buf_t          *buf;
    uint32_t            slot;       /* the buffer's slots, from slot on */
    uint32_t            nslots;
} ngx_http_sendfile_nic_pin_t;


/*
 * A worker's note of an open file, by descriptor: the identity and the
 * revision of its last fstat(), and what nginx's open file cache said of
 * the descriptor then.  Kept only where the location has an open file
 * cache: its entry vouches for the descriptor (nginx keeps it open, and
 * reopens it when the file is replaced), so the note is good while the
 * cache says the same of it and open_file_cache_valid has not passed.
 */
typedef struct {
    snic_file_t         file;
    ngx_file_uniq_t     uniq;
    time_t              mtime;
    off_t               size;
    ngx_uint_t          name;       /* hash of the file's name */
    time_t              checked;    /* 0: no note */
} ngx_http_sendfile_nic_note_t;


/* per request */
typedef struct {
    ngx_http_sendfile_nic_conn_t  *conn;
    ngx_array_t                    pins;    /* ngx_http_sendfile_nic_pin_t */
    ngx_file_t                    *memory;  /* the NIC memory, as a file */
    ngx_fd_t                       fd;      /* the file last looked at */
    snic_file_t                    file;
    off_t                          other;   /* bytes not from files */
    ngx_chain_t                   *held;    /* paced: waits for the timer */
} ngx_http_sendfile_nic_ctx_t;


static ngx_int_t ngx_http_sendfile_nic_body_filter(ngx_http_request_t *r,
    ngx_chain_t *in);
static ngx_int_t ngx_http_sendfile_nic_map(ngx_http_request_t *r,
    ngx_http_sendfile_nic_ctx_t *ctx, ngx_buf_t *b, ngx_chain_t ***last);
static ngx_int_t ngx_http_sendfile_nic_vouch(ngx_http_request_t *r,
    ngx_http_core_loc_conf_t *clcf, ngx_file_t *file,
    ngx_open_file_info_t *of);
static ngx_int_t ngx_http_sendfile_nic_file(ngx_http_request_t *r,
    ngx_file_t *file, snic_file_t *f);
static void ngx_http_sendfile_nic_unpin_sent(ngx_http_sendfile_nic_ctx_t *ctx,
    ngx_uint_t all);
static void ngx_http_sendfile_nic_request_cleanup(void *data);
static ngx_http_sendfile_nic_conn_t *ngx_http_sendfile_nic_conn(
    ngx_http_request_t *r, snic_instance_t *nic);
static void ngx_http_sendfile_nic_conn_cleanup(void *data);
static ngx_int_t ngx_http_sendfile_nic_log_handler(ngx_http_request_t *r);
static ngx_int_t ngx_http_sendfile_nic_report_handler(ngx_http_request_t *r);
static char *ngx_http_sendfile_nic_param(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_sendfile_nic_report(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static ngx_int_t ngx_http_sendfile_nic_init_zone(ngx_shm_zone_t *shm_zone,
    void *data);
static void ngx_http_sendfile_nic_zone_cleanup(void *data);
static ngx_int_t ngx_http_sendfile_nic_add_zone(ngx_conf_t *cf,
    ngx_http_sendfile_nic_loc_conf_t *slcf);
static void *ngx_http_sendfile_nic_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_sendfile_nic_merge_loc_conf(ngx_conf_t *cf, void *parent,
    void *child);
static ngx_int_t ngx_http_sendfile_nic_init(ngx_conf_t *cf);


static ngx_command_t  ngx_http_sendfile_nic_commands[] = {

    { ngx_string("sendfile_nic"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_sendfile_nic_loc_conf_t, enable),
      NULL },

    /* sendfile_nic_cache_size, ...: one command a row of the library's
     * parameter table, as nicd's nic_cache_size, ... */
#define NGX_HTTP_SENDFILE_NIC_PARAM(name, type, min, max, dflt, hint)         \
    { ngx_string("sendfile_nic_" #name),                                      \
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,  \
      ngx_http_sendfile_nic_param,                                            \
      NGX_HTTP_LOC_CONF_OFFSET,                                               \
      SNIC_NIC_P_##name,                                                      \
      NULL },

    SNIC_NIC_PARAMS(NGX_HTTP_SENDFILE_NIC_PARAM)

#undef NGX_HTTP_SENDFILE_NIC_PARAM

    { ngx_string("sendfile_nic_status"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_sendfile_nic_report,
      NGX_HTTP_LOC_CONF_OFFSET,
      SNIC_REPORT_JSON,
      NULL },

    { ngx_string("sendfile_nic_metrics"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_sendfile_nic_report,
      NGX_HTTP_LOC_CONF_OFFSET,
      SNIC_REPORT_PROMETHEUS,
      NULL },

      ngx_null_command
};


static ngx_http_module_t  ngx_http_sendfile_nic_module_ctx = {
    NULL,                                  /* preconfiguration */
    ngx_http_sendfile_nic_init,            /* postconfiguration */

    NULL,                                  /* create main configuration */
    NULL,                                  /* init main configuration */

    NULL,                                  /* create server configuration */
    NULL,                                  /* merge server configuration */

    ngx_http_sendfile_nic_create_loc_conf, /* create location configuration */
    ngx_http_sendfile_nic_merge_loc_conf   /* merge location configuration */
};


ngx_module_t  ngx_http_sendfile_nic_module = {
    NGX_MODULE_V1,
    &ngx_http_sendfile_nic_module_ctx,     /* module context */
    ngx_http_sendfile_nic_commands,        /* module directives */
    NGX_HTTP_MODULE,                       /* module type */
    NULL,                                  /* init master */
    NULL,                                  /* init module */
    NULL,                                  /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    NULL,                                  /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


static ngx_http_output_body_filter_pt    ngx_http_next_body_filter;

/* this worker's notes of open files, indexed by descriptor */
static ngx_http_sendfile_nic_note_t     *ngx_http_sendfile_nic_notes;
static ngx_uint_t                        ngx_http_sendfile_nic_nnotes;

/* how nginx's open file cache releases a file a request took from it */
static ngx_pool_cleanup_pt               ngx_http_sendfile_nic_ofc_cleanup;


static ngx_int_t
ngx_http_sendfile_nic_body_filter(ngx_http_request_t *r, ngx_chain_t *in)
{
    ngx_int_t                           rc;
    ngx_msec_t                          now;
    ngx_chain_t                        *cl, *out, **last;
    ngx_pool_cleanup_t                 *cln;
    snic_instance_t                   *nic;
    ngx_http_sendfile_nic_ctx_t       *ctx;
    ngx_http_sendfile_nic_loc_conf_t  *slcf;

    slcf = ngx_http_get_module_loc_conf(r, ngx_http_sendfile_nic_module);

    if (!slcf->enable || slcf->zone == NULL || slcf->zone->nic == NULL) {
        return ngx_http_next_body_filter(r, in);
    }

    nic = slcf->zone->nic;

    ctx = ngx_http_get_module_ctx(r->main, ngx_http_sendfile_nic_module);

    if (ctx && ctx->conn->nic != nic) {
        /* a subrequest in a location with other NICs: not emulated */
        return ngx_http_next_body_filter(r, in);
    }

    if (ctx == NULL) {
        ctx = ngx_pcalloc(r->main->pool, sizeof(ngx_http_sendfile_nic_ctx_t));
        if (ctx == NULL) {
            return NGX_ERROR;
        }

        ctx->conn = ngx_http_sendfile_nic_conn(r, nic);
        if (ctx->conn == NULL) {
            return NGX_ERROR;
        }

        if (ngx_array_init(&ctx->pins, r->main->pool, 8,
                           sizeof(ngx_http_sendfile_nic_pin_t))
            != NGX_OK)
        {
            return NGX_ERROR;
        }

        ctx->fd = NGX_INVALID_FILE;

        cln = ngx_pool_cleanup_add(r->main->pool, 0);
        if (cln == NULL) {
            return NGX_ERROR;
        }

        cln->handler = ngx_http_sendfile_nic_request_cleanup;
        cln->data = ctx;

        ngx_http_set_ctx(r->main, ctx, ngx_http_sendfile_nic_module);
    }

    /* nic_bus_limit: no sends before the modelled bus and host allow */

    if (ctx->conn->resume) {
        now = ngx_current_msec;

        if ((ngx_msec_int_t) (ctx->conn->resume - now) > 0) {
            if (in && ngx_chain_add_copy(r->pool, &ctx->held, in) != NGX_OK) {
                return NGX_ERROR;
            }

            r->connection->buffered |= NGX_HTTP_WRITE_BUFFERED;
            r->connection->write->delayed = 1;
            ngx_add_timer(r->connection->write, ctx->conn->resume - now);

            return NGX_AGAIN;
        }

        ctx->conn->resume = 0;
    }

    if (ctx->held) {
        if (in && ngx_chain_add_copy(r->pool, &ctx->held, in) != NGX_OK) {
            return NGX_ERROR;
        }

        in = ctx->held;
        ctx->held = NULL;
    }

    out = NULL;
    last = &out;

    for (cl = in; cl; cl = cl->next) {

        if (cl->buf->in_file && !ngx_buf_in_memory(cl->buf)
            && cl->buf->file_last > cl->buf->file_pos)
        {
            if (ngx_http_sendfile_nic_map(r, ctx, cl->buf, &last) != NGX_OK) {
                return NGX_ERROR;
            }

            continue;
        }

        if (ngx_buf_in_memory(cl->buf)) {
            ctx->other += cl->buf->last - cl->buf->pos;
        }

        *last = ngx_alloc_chain_link(r->pool);
        if (*last == NULL) {
            return NGX_ERROR;
        }

        (*last)->buf = cl->buf;
        last = &(*last)->next;
    }

    *last = NULL;

    rc = ngx_http_next_body_filter(r, out);

    ngx_http_sendfile_nic_unpin_sent(ctx, 0);

    return rc;
}


/*
 * Replace file buffer b by buffers for its blocks: from NIC memory or from
 * the file, as the library decides.  b itself is left consumed.
 */

static ngx_int_t
ngx_http_sendfile_nic_map(ngx_http_request_t *r,
    ngx_http_sendfile_nic_ctx_t *ctx, ngx_buf_t *b, ngx_chain_t ***last)
{
    int                           i, n;
    off_t                         pos;
    size_t                        mapped;
    ngx_buf_t                    *nb;
    ngx_chain_t                  *cl;
    snic_piece_t                  p[NGX_HTTP_SENDFILE_NIC_PIECES];
    ngx_http_sendfile_nic_pin_t  *pin;

    if (ctx->fd != b->file->fd) {
        if (ngx_http_sendfile_nic_file(r, b->file, &ctx->file) != NGX_OK) {
            return NGX_ERROR;
        }

        ctx->fd = b->file->fd;
    }

    pos = b->file_pos;
    nb = NULL;

    while (pos < b->file_last) {

        n = snic_nic_map(ctx->conn->nic, &ctx->conn->sc, &ctx->file, pos,
                         (size_t) (b->file_last - pos), p,
                         NGX_HTTP_SENDFILE_NIC_PIECES, &mapped);
        if (n <= 0) {
            return NGX_ERROR;
        }

        for (i = 0; i < n; i++) {
            nb = ngx_calloc_buf(r->pool);
            if (nb == NULL) {
                return NGX_ERROR;
            }

            nb->in_file = 1;
            nb->file_pos = p[i].off;
            nb->file_last = p[i].off + (off_t) p[i].len;
            nb->tag = (ngx_buf_tag_t) &ngx_http_sendfile_nic_module;

            if (p[i].from_nic) {
                if (ctx->memory == NULL
                    || ctx->memory->fd != (ngx_fd_t) p[i].fd)
                {
                    ctx->memory = ngx_pcalloc(r->pool, sizeof(ngx_file_t));
                    if (ctx->memory == NULL) {
                        return NGX_ERROR;
                    }

                    ctx->memory->fd = p[i].fd;
                    ngx_str_set(&ctx->memory->name, "NIC memory");
                    ctx->memory->log = r->connection->log;
                }

                nb->file = ctx->memory;

                pin = ngx_array_push(&ctx->pins);
                if (pin == NULL) {
                    snic_nic_unpin(ctx->conn->nic, &ctx->conn->sc, p[i].slot,
                                   p[i].nslots);
                    return NGX_ERROR;
                }

                pin->buf = nb;
                pin->slot = p[i].slot;
                pin->nslots = p[i].nslots;

            } else {
                nb->file = b->file;
            }

            cl = ngx_alloc_chain_link(r->pool);
            if (cl == NULL) {
                return NGX_ERROR;
            }

            cl->buf = nb;
            **last = cl;
            *last = &cl->next;
        }

        pos += (off_t) mapped;
    }

    /* the flags of b go with its last piece */

    if (nb) {
        nb->last_buf = b->last_buf;
        nb->last_in_chain = b->last_in_chain;
        nb->flush = b->flush;
        nb->sync = b->sync;
    }

    b->file_pos = b->file_last;

    return NGX_OK;
}


/*
 * What nginx's open file cache says of the file's descriptor (inode,
 * mtime, size in of), if the request holds the cache's entry for it:
 * NGX_OK, else NGX_DECLINED.  The entry is found among the request pool's
 * cleanups (nginx releases a file taken from its cache with one, whose
 * handler the module learns from its own first ngx_open_cached_file()
 * call); failing that, by asking the cache for the name again.
 */

static ngx_int_t
ngx_http_sendfile_nic_vouch(ngx_http_request_t *r,
    ngx_http_core_loc_conf_t *clcf, ngx_file_t *file,
    ngx_open_file_info_t *of)
{
    ngx_pool_cleanup_t             *cln;
    ngx_cached_open_file_t         *cached;
    ngx_open_file_cache_cleanup_t  *ofcln;

    if (ngx_http_sendfile_nic_ofc_cleanup) {
        for (cln = r->pool->cleanup; cln; cln = cln->next) {
            if (cln->handler != ngx_http_sendfile_nic_ofc_cleanup) {
                continue;
            }

            ofcln = cln->data;
            cached = ofcln->file;

            if (ofcln->cache == clcf->open_file_cache
                && cached->fd == file->fd
                && cached->err == 0
                && !cached->close)
            {
                of->uniq = cached->uniq;
                of->mtime = cached->mtime;
                of->size = cached->size;
                return NGX_OK;
            }
        }
    }

    /*
     * asking counts a use of the file: with open_file_cache_min_uses
     * above 1 that would keep files open sooner than configured
     */

    if (clcf->open_file_cache_min_uses > 1) {
        return NGX_DECLINED;
    }

    ngx_memzero(of, sizeof(ngx_open_file_info_t));

    of->read_ahead = clcf->read_ahead;
    of->directio = clcf->directio;
    of->valid = clcf->open_file_cache_valid;
    of->min_uses = clcf->open_file_cache_min_uses;
    of->errors = clcf->open_file_cache_errors;
    of->events = clcf->open_file_cache_events;

    if (ngx_http_set_disable_symlinks(r, clcf, &file->name, of) != NGX_OK
        || ngx_open_cached_file(clcf->open_file_cache, &file->name, of,
                                r->pool)
           != NGX_OK
        || of->fd != file->fd)
    {
        return NGX_DECLINED;
    }

    /* the cleanup ngx_open_cached_file() has just added for a file */

    cln = r->pool->cleanup;

    if (ngx_http_sendfile_nic_ofc_cleanup == NULL
        && cln && cln->handler && !of->is_dir)
    {
        ofcln = cln->data;

        if (ofcln->cache == clcf->open_file_cache
            && ofcln->file && ofcln->file->fd == of->fd)
        {
            ngx_http_sendfile_nic_ofc_cleanup = cln->handler;
        }
    }

    return NGX_OK;
}


/*
 * The identity and revision of the open file: from the worker's note when
 * nginx's open file cache vouches for the descriptor and the note is
 * recent enough (as nicd's open file cache, the revision is checked again
 * each open_file_cache_valid), else from fstat().  Without an open file
 * cache nginx opens the file for each request, and so is it checked.
 * The names of files from static handlers (static, gzip_static, mp4,
 * flv) end with a NUL, as ngx_open_cached_file() needs; upstream
 * responses (temporary and cache files) are left alone.
 */

static ngx_int_t
ngx_http_sendfile_nic_file(ngx_http_request_t *r, ngx_file_t *file,
    snic_file_t *f)
{
    time_t                         now;
    ngx_uint_t                     n, name;
    ngx_file_info_t                fi;
    ngx_open_file_info_t           of;
    ngx_http_core_loc_conf_t      *clcf;
    ngx_http_sendfile_nic_note_t  *note;

    clcf = ngx_http_get_module_loc_conf(r, ngx_http_core_module);

    note = NULL;
    name = 0;

    if (clcf->open_file_cache
        && r->upstream == NULL
        && file->fd >= 0
        && ngx_http_sendfile_nic_vouch(r, clcf, file, &of) == NGX_OK)
    {
        if ((ngx_uint_t) file->fd >= ngx_http_sendfile_nic_nnotes) {
            n = ngx_max(64, 2 * (ngx_uint_t) file->fd);

            note = ngx_calloc(n * sizeof(ngx_http_sendfile_nic_note_t),
                              r->connection->log);
            if (note == NULL) {
                return NGX_ERROR;
            }

            if (ngx_http_sendfile_nic_notes) {
                ngx_memcpy(note, ngx_http_sendfile_nic_notes,
                           ngx_http_sendfile_nic_nnotes
                           * sizeof(ngx_http_sendfile_nic_note_t));
                ngx_free(ngx_http_sendfile_nic_notes);
            }

            ngx_http_sendfile_nic_notes = note;
            ngx_http_sendfile_nic_nnotes = n;
        }

        note = &ngx_http_sendfile_nic_notes[file->fd];
        name = ngx_hash_key(file->name.data, file->name.len);
        now = ngx_time();

        if (note->checked
            && now - note->checked < clcf->open_file_cache_valid
            && note->uniq == of.uniq
            && note->mtime == of.mtime
            && note->size == of.size
            && note->name == name)
        {
            *f = note->file;
            return NGX_OK;
        }
    }

    if (ngx_fd_info(file->fd, &fi) == NGX_FILE_ERROR) {
        ngx_log_error(NGX_LOG_CRIT, r->connection->log, ngx_errno,
                      ngx_fd_info_n " \"%V\" failed", &file->name);
        return NGX_ERROR;
    }

    snic_file_init(f, file->fd, &fi);

    if (note) {
        note->file = *f;
        note->uniq = of.uniq;
        note->mtime = of.mtime;
        note->size = of.size;
        note->name = name;
        note->checked = now;
    }

    return NGX_OK;
}


/* unpin the blocks nginx has handed to the kernel (or all of them) */

static void
ngx_http_sendfile_nic_unpin_sent(ngx_http_sendfile_nic_ctx_t *ctx,
    ngx_uint_t all)
{
    ngx_uint_t                    i, k;
    ngx_http_sendfile_nic_pin_t  *pin;

    pin = ctx->pins.elts;
    k = 0;

    for (i = 0; i < ctx->pins.nelts; i++) {
        if (all || pin[i].buf->file_pos >= pin[i].buf->file_last) {
            snic_nic_unpin(ctx->conn->nic, &ctx->conn->sc, pin[i].slot,
                           pin[i].nslots);
            continue;
        }

        pin[k++] = pin[i];
    }

    ctx->pins.nelts = k;
}


static void
ngx_http_sendfile_nic_request_cleanup(void *data)
{
    ngx_http_sendfile_nic_ctx_t  *ctx = data;

    ngx_http_sendfile_nic_unpin_sent(ctx, 1);
}


/*
 * The library's connection for r's connection to nic: made on first use
 * and kept with a cleanup of the connection's pool, where it is found
 * again (a connection may reach several NIC sets, one per location).
 */

static ngx_http_sendfile_nic_conn_t *
ngx_http_sendfile_nic_conn(ngx_http_request_t *r, snic_instance_t *nic)
{
    ngx_connection_t              *c;
    ngx_pool_cleanup_t            *cln;
    ngx_http_sendfile_nic_conn_t  *sc;

    c = r->connection;

    for (cln = c->pool->cleanup; cln; cln = cln->next) {
        if (cln->handler == ngx_http_sendfile_nic_conn_cleanup
            && ((ngx_http_sendfile_nic_conn_t *) cln->data)->nic == nic)
        {
            return cln->data;
        }
    }

    cln = ngx_pool_cleanup_add(c->pool, sizeof(ngx_http_sendfile_nic_conn_t));
    if (cln == NULL) {
        return NULL;
    }

    sc = cln->data;
    ngx_memzero(sc, sizeof(ngx_http_sendfile_nic_conn_t));

    sc->sc.fd = c->fd;
    sc->sc.nic = -1;
    sc->nic = nic;

    if (nic->ops->conn_open) {
        nic->ops->conn_open(nic->state, &sc->sc);
    }

    cln->handler = ngx_http_sendfile_nic_conn_cleanup;

    return sc;
}


static void
ngx_http_sendfile_nic_conn_cleanup(void *data)
{
    ngx_http_sendfile_nic_conn_t  *sc = data;

    if (sc->nic->ops->conn_close) {
        sc->nic->ops->conn_close(sc->nic->state, &sc->sc);
    }
}


/* a response ended: charge the interconnect and host models for it */

static ngx_int_t
ngx_http_sendfile_nic_log_handler(ngx_http_request_t *r)
{
    uint64_t                      wait;
    ngx_http_sendfile_nic_ctx_t  *ctx;

    ctx = ngx_http_get_module_ctx(r, ngx_http_sendfile_nic_module);

    if (ctx == NULL) {
        return NGX_OK;
    }

    wait = snic_nic_response_done(ctx->conn->nic, &ctx->conn->sc,
                                  r->header_size + (size_t) ctx->other);

    /*
     * nginx's timers count milliseconds: a shorter wait is taken as one
     * (the library's clocks make up a late wake-up within their slack)
     */

    if (wait > 0) {
        ctx->conn->resume = ngx_current_msec
                            + (ngx_msec_t) ((wait + 999999) / 1000000);
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_sendfile_nic_report_handler(ngx_http_request_t *r)
{
    size_t                              len, need;
    ngx_int_t                           rc;
    ngx_buf_t                          *b;
    ngx_chain_t                         out;
    snic_instance_t                    *nic;
    ngx_http_sendfile_nic_loc_conf_t   *slcf;

    if (!(r->method & (NGX_HTTP_GET|NGX_HTTP_HEAD))) {
        return NGX_HTTP_NOT_ALLOWED;
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    slcf = ngx_http_get_module_loc_conf(r, ngx_http_sendfile_nic_module);
    nic = slcf->zone ? slcf->zone->nic : NULL;

    if (nic == NULL || nic->ops->report == NULL) {
        return NGX_HTTP_NOT_FOUND;
    }

    /* the counters, as nicd's nic_status and nic_metrics give them */

    len = 4096;

    for ( ;; ) {
        b = ngx_create_temp_buf(r->pool, len);
        if (b == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }

        need = nic->ops->report(nic->state, (int) slcf->report,
                                (char *) b->pos, len);
        if (need < len) {
            break;
        }

        len = need + 1;
    }

    b->last = b->pos + need;
    b->last_buf = (r == r->main) ? 1 : 0;
    b->last_in_chain = 1;

    /* "?reset": answer the counters, then set them to zero */

    if (r->args.len == 5 && ngx_strncmp(r->args.data, "reset", 5) == 0
        && nic->ops->reset)
    {
        nic->ops->reset(nic->state);
    }

    r->headers_out.status = NGX_HTTP_OK;
    r->headers_out.content_length_n = (off_t) need;

    if (slcf->report == SNIC_REPORT_JSON) {
        ngx_str_set(&r->headers_out.content_type, "application/json");

    } else {
        ngx_str_set(&r->headers_out.content_type,
                    "text/plain; version=0.0.4");
    }

    r->headers_out.content_type_len = r->headers_out.content_type.len;
    r->headers_out.content_type_lowcase = NULL;

    rc = ngx_http_send_header(r);

    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc;
    }

    out.buf = b;
    out.next = NULL;

    return ngx_http_output_filter(r, &out);
}


static char *
ngx_http_sendfile_nic_report(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_sendfile_nic_loc_conf_t  *slcf = conf;

    ngx_http_core_loc_conf_t  *clcf;

    if (slcf->report != NGX_CONF_UNSET) {
        return "is duplicate";
    }

    slcf->report = (ngx_int_t) cmd->offset;

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    clcf->handler = ngx_http_sendfile_nic_report_handler;

    return NGX_CONF_OK;
}


/* parameter i as a number: its value, or the library's default */

static double
ngx_http_sendfile_nic_num(ngx_http_sendfile_nic_params_t *pa, ngx_uint_t i)
{
    return snic_nic_param_num((int) i, (char *) pa->v[i].data);
}


static int
ngx_http_sendfile_nic_count(ngx_http_sendfile_nic_zone_t *z)
{
    return (int) ngx_http_sendfile_nic_num(&z->params, SNIC_NIC_P_count);
}


/* a parameter of the library's table, checked as nicd checks it */

static char *
ngx_http_sendfile_nic_param(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_sendfile_nic_loc_conf_t  *slcf = conf;

    ngx_str_t  *value, *v;

    v = &slcf->params.v[cmd->offset];

    if (v->data) {
        return "is duplicate";
    }

    value = cf->args->elts;

    if (!snic_nic_param_ok((int) cmd->offset, (char *) value[1].data)) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "invalid value \"%V\" in \"%V\" directive%s",
                           &value[1], &cmd->name,
                           snic_nic_params[cmd->offset].hint);
        return NGX_CONF_ERROR;
    }

    *v = value[1];

    return NGX_CONF_OK;
}


/*
 * The shared zone's contents: the library's instance, allocated from the
 * zone's slab pool while the master reads the configuration.  A reload
 * with the same parameters keeps the zone, and with it the cache.
 */

static void *
ngx_http_sendfile_nic_zone_alloc(void *ctx, size_t size)
{
    return ngx_slab_alloc_locked(ctx, size);
}


static void
ngx_http_sendfile_nic_zone_free(void *ctx, void *p)
{
    ngx_slab_free_locked(ctx, p);
}


static ngx_int_t
ngx_http_sendfile_nic_init_zone(ngx_shm_zone_t *shm_zone, void *data)
{
    ngx_http_sendfile_nic_zone_t  *z = shm_zone->data;

    char               err[256];
    ngx_int_t          rc;
    ngx_uint_t         i, n;
    snic_param_t       params[SNIC_NIC_NPARAMS];
    snic_options_t     opt;
    ngx_slab_pool_t   *shpool;
    snic_instance_t   *nic;
    snic_allocator_t   a;

    ngx_http_sendfile_nic_zone_t  *prev;

    if (data) {
        /* the previous cycle's zone: same name, so same parameters */
        prev = data;
        z->nic = prev->nic;

        z->nmemory = prev->nmemory;
        ngx_memcpy(z->memory, prev->memory,
                   prev->nmemory * sizeof(snic_nic_memory_t));
        z->prev = prev;
        prev->next = z;

        return NGX_OK;
    }

    shpool = (ngx_slab_pool_t *) shm_zone->shm.addr;

    if (shm_zone->shm.exists) {
        z->nic = shpool->data;
        return NGX_OK;
    }

    n = 0;

    for (i = 0; i < SNIC_NIC_NPARAMS; i++) {
        if (z->params.v[i].data) {
            params[n].name = snic_nic_params[i].directive;
            params[n++].value = (char *) z->params.v[i].data;
        }
    }

    ngx_memzero(&opt, sizeof(snic_options_t));
    opt.params = params;
    opt.nparams = (int) n;

    a.alloc = ngx_http_sendfile_nic_zone_alloc;
    a.free = ngx_http_sendfile_nic_zone_free;
    a.ctx = shpool;
    a.shared = 1;

    ngx_shmtx_lock(&shpool->mutex);

    nic = ngx_slab_alloc_locked(shpool, sizeof(snic_instance_t));
    rc = NGX_ERROR;

    if (nic) {
        snic_set_allocator(&a);
        rc = snic_instance_start(nic, snic_backend_find("nic"), &opt, err,
                                 sizeof(err))
             == 0 ? NGX_OK : NGX_ERROR;
        snic_set_allocator(NULL);

    } else {
        ngx_cpystrn((u_char *) err, (u_char *) "the zone is too small",
                    sizeof(err));
    }

    ngx_shmtx_unlock(&shpool->mutex);

    if (rc != NGX_OK) {
        ngx_log_error(NGX_LOG_EMERG, shm_zone->shm.log, 0,
                      "sendfile_nic: %s", err);
        return NGX_ERROR;
    }

    shpool->data = nic;
    z->nic = nic;
    z->nmemory = ngx_max(snic_nic_memory(nic, z->memory,
                                         ngx_http_sendfile_nic_count(z)), 0);

    return NGX_OK;
}


static void
ngx_http_sendfile_nic_zone_cleanup(void *data)
{
    ngx_http_sendfile_nic_zone_t  *z = data;

    if (z->next) {
        /* the next cycle holds the NIC memory now */
        z->next->prev = NULL;
        return;
    }

    if (z->prev) {
        /* this cycle failed; the previous one keeps its hold */
        z->prev->next = NULL;
        return;
    }

    snic_nic_memory_release(z->memory, z->nmemory);
    z->nmemory = 0;
}


static void *
ngx_http_sendfile_nic_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_sendfile_nic_loc_conf_t  *slcf;

    slcf = ngx_pcalloc(cf->pool, sizeof(ngx_http_sendfile_nic_loc_conf_t));
    if (slcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     slcf->params.v[] = { 0, NULL } (not set);
     *     slcf->zone = NULL;
     */

    slcf->enable = NGX_CONF_UNSET;
    slcf->report = NGX_CONF_UNSET;

    return slcf;
}


static char *
ngx_http_sendfile_nic_merge_loc_conf(ngx_conf_t *cf, void *parent,
    void *child)
{
    ngx_http_sendfile_nic_loc_conf_t  *prev = parent;
    ngx_http_sendfile_nic_loc_conf_t  *conf = child;

    ngx_uint_t  i;

    ngx_conf_merge_value(conf->enable, prev->enable, 0);

    if (conf->report == NGX_CONF_UNSET) {
        conf->report = -1;
    }

    for (i = 0; i < SNIC_NIC_NPARAMS; i++) {
        if (conf->params.v[i].data == NULL) {
            conf->params.v[i] = prev->params.v[i];
        }
    }

    if ((conf->enable || conf->report != -1)
        && ngx_http_sendfile_nic_add_zone(cf, conf) != NGX_OK)
    {
        return NGX_CONF_ERROR;
    }

    return NGX_CONF_OK;
}


/*
 * The shared zone of slcf's parameters, made on first use.  The zone
 * holds the directory, the policy's lists and the pins (well under 256
 * bytes a slot for every policy) and a block for copying in, per NIC;
 * its name carries the parameters, so that locations with the same ones
 * share one NIC set, a reload that keeps them keeps the cache, and one
 * that changes them starts a new cache.
 */

static ngx_int_t
ngx_http_sendfile_nic_add_zone(ngx_conf_t *cf,
    ngx_http_sendfile_nic_loc_conf_t *slcf)
{
    size_t                           size, slots, len, cache, block;
    u_char                          *p;
    ngx_str_t                        name;
    ngx_uint_t                       i, count;
    ngx_shm_zone_t                  *zone;
    ngx_pool_cleanup_t              *cln;
    ngx_http_sendfile_nic_zone_t    *z;
    ngx_http_sendfile_nic_params_t  *pa;

    pa = &slcf->params;

    cache = (size_t) ngx_http_sendfile_nic_num(pa, SNIC_NIC_P_cache_size);
    block = (size_t) ngx_http_sendfile_nic_num(pa, SNIC_NIC_P_block_size);
    count = (ngx_uint_t) ngx_http_sendfile_nic_num(pa, SNIC_NIC_P_count);

    slots = cache / block;
    size = 8 * ngx_pagesize + count * (slots * 256 + block + 64 * 1024);

    /* the name: every parameter, numbers as their values ("16m" and
     * "16777216" are one zone), names as written, unset ones empty */
    len = sizeof("sendfile_nic");
    for (i = 0; i < SNIC_NIC_NPARAMS; i++) {
        len += 1 + ngx_max(pa->v[i].len, 32);
    }

    p = ngx_pnalloc(cf->pool, len);
    if (p == NULL) {
        return NGX_ERROR;
    }

    name.data = p;
    p = ngx_cpymem(p, "sendfile_nic", sizeof("sendfile_nic") - 1);

    for (i = 0; i < SNIC_NIC_NPARAMS; i++) {
        *p++ = ':';

        switch (snic_nic_params[i].type) {
        case SNIC_NP_POLICY:
        case SNIC_NP_BUS:
        case SNIC_NP_TESTBED:
        case SNIC_NP_TLS:
        case SNIC_NP_PATH:
            p = ngx_cpymem(p, pa->v[i].data, pa->v[i].len);
            break;

        default:
            p += snprintf((char *) p, 32, "%.17g",
                          ngx_http_sendfile_nic_num(pa, i));
        }
    }

    name.len = p - name.data;

    zone = ngx_shared_memory_add(cf, &name, size,
                                 &ngx_http_sendfile_nic_module);
    if (zone == NULL) {
        return NGX_ERROR;
    }

    if (zone->data == NULL) {
        z = ngx_pcalloc(cf->pool, sizeof(ngx_http_sendfile_nic_zone_t));
        if (z == NULL) {
            return NGX_ERROR;
        }

        z->params = *pa;

        z->memory = ngx_pcalloc(cf->pool,
                                count * sizeof(snic_nic_memory_t));
        if (z->memory == NULL) {
            return NGX_ERROR;
        }

        cln = ngx_pool_cleanup_add(cf->cycle->pool, 0);
        if (cln == NULL) {
            return NGX_ERROR;
        }

        cln->handler = ngx_http_sendfile_nic_zone_cleanup;
        cln->data = z;

        zone->init = ngx_http_sendfile_nic_init_zone;
        zone->data = z;
        slcf->zone = z;

    } else {
        slcf->zone = zone->data;
    }

    return NGX_OK;
}


static ngx_int_t
ngx_http_sendfile_nic_init(ngx_conf_t *cf)
{
    ngx_http_handler_pt        *h;
    ngx_http_core_main_conf_t  *cmcf;

    ngx_http_next_body_filter = ngx_http_top_body_filter;
    ngx_http_top_body_filter = ngx_http_sendfile_nic_body_filter;

    cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);

    h = ngx_array_push(&cmcf->phases[NGX_HTTP_LOG_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_sendfile_nic_log_handler;

    return NGX_OK;
}
