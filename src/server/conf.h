/*
 * Configuration in nginx syntax.
 *
 * A configuration is a list of directives "name arg ...;" and blocks
 * "name arg ... { ... }".  nicd serves one site, so the http {}, server {}
 * and events {} blocks of an nginx file are accepted as plain containers;
 * types {} maps MIME types to extensions; include FILE reads another file
 * (relative to the including file's directory).  Directives of a send
 * backend (nic_cache_size, ...) are passed to the backend untouched.
 *
 * Errors name the file, the line and the directive, as nginx does:
 *   unknown directive "foo" in conf/nicd.conf:12
 */

#ifndef NICD_CONF_H
#define NICD_CONF_H

#include <stddef.h>
#include <sys/socket.h>

#include "../sendfile_nic/snic.h"

enum { NICD_SYMLINKS_OFF = 0, NICD_SYMLINKS_OUTSIDE, NICD_SYMLINKS_ON };
enum { NICD_IMS_OFF = 0, NICD_IMS_EXACT, NICD_IMS_BEFORE };

/* TCP_NOTSENT_LOWAT of every listener unless its listen says otherwise:
 * at most this much not yet sent queued in a socket (docs/config.md) */
#define NICD_NOTSENT_LOWAT (64 * 1024)

typedef struct {
    char                   *text; /* as written, e.g. "127.0.0.1:8080" */
    struct sockaddr_storage addr;
    socklen_t               addrlen;
    int                     backlog;
    int                     sndbuf; /* "sndbuf=SIZE": SO_SNDBUF; 0: the OS's */
    int                     lowat;  /* "notsent_lowat=": TCP_NOTSENT_LOWAT */
    int                     nic;    /* "nic=K": the emulated NIC; -1: any */
    int                     ssl;    /* "ssl": connections speak TLS */
    int                     http2;  /* "http2": h2 by ALPN, or h2c */
} nicd_listen_conf_t;

/* ssl_protocols, as bits */
#define NICD_TLS_1_0 0x1
#define NICD_TLS_1_1 0x2
#define NICD_TLS_1_2 0x4
#define NICD_TLS_1_3 0x8

typedef struct nicd_mime_s nicd_mime_t;

/*
 * A server {} block as TLS sees it: the names it answers (server_name:
 * exact, "*.example.org", ".example.org" or "www.example.*", as nginx)
 * and the certificate it presents to a client that asks for one of them
 * by SNI.  Everything else a server {} block says applies to the whole of
 * nicd, which serves one site.
 */
typedef struct {
    char **names;
    int    nnames;
    char  *cert; /* ssl_certificate in the block, else the http-level one */
    char  *key;
    char  *where; /* "file:line" of the block, for messages */
} nicd_server_conf_t;

/*
 * "location [=] PATH { HANDLER; }": a path answered by a handler instead
 * of a file: the send backend's report (its counters), HANDLER being
 * BACKEND_metrics (Prometheus text) or BACKEND_status (JSON), or a Lua
 * script ("lua_content_handler FILE;", lua.c).  "=" matches the path
 * exactly; without it, the longest matching prefix wins, as in nginx.
 */
typedef struct {
    char *path;
    int   exact;
    int   format;  /* SNIC_REPORT_*, or -1 for Lua */
    char *handler; /* as written, for messages */
    char *lua;     /* the Lua script, or NULL */
} nicd_location_t;

typedef struct nicd_conf_s {
    char *file; /* the main configuration file, NULL for none */

    int worker_threads; /* 0: one per CPU */
    int worker_connections;
    int worker_rlimit_nofile;

    nicd_listen_conf_t *listens;
    int                 nlistens;

    char  *root;
    char **index;
    int    nindex;
    int    autoindex;
    int    disable_symlinks;

    char  *access_log; /* NULL: off */
    size_t access_log_buffer;
    long   access_log_flush; /* ms */
    char  *error_log;        /* NULL: stderr */
    int    error_level;

    char         *backend;
    snic_param_t *params;
    int           nparams;
    char        **param_where; /* "file:line" of each param, for errors */
    size_t        sendfile_max_chunk;

    long   client_header_timeout; /* ms */
    long   keepalive_timeout;     /* ms; 0 disables keep-alive */
    long   send_timeout;          /* ms */
    int    keepalive_requests;
    size_t client_header_buffer_size;
    size_t large_header_buffer_size; /* max request line / header line */
    int    large_header_buffers;     /* head limit = size * number */
    size_t client_max_body_size;

    int  open_file_cache_max;      /* 0: off */
    long open_file_cache_valid;    /* ms */
    long open_file_cache_inactive; /* ms */

    nicd_mime_t *types;
    char        *default_type;

    int   if_modified_since;
    int   etag;
    int   server_tokens;
    int   max_ranges;
    char *pid;

    nicd_location_t *locations;
    int              nlocations;
    long             lua_time_limit; /* ms a Lua handler may run */

    /* TLS (nginx's ssl_* directives), for listeners marked "ssl" */
    char *ssl_certificate;
    char *ssl_certificate_key;
    int   ssl_protocols; /* NICD_TLS_* bits */
    char *ssl_ciphers;
    int   ssl_prefer_server_ciphers;
    long  ssl_session_cache;   /* sessions kept; 0: none (tickets only) */
    long  ssl_session_timeout; /* ms */
    int   ssl_session_tickets;
    char *ssl_dhparam;
    int   nssl; /* listeners with "ssl" */

    /* server {} blocks, for SNI; the default certificate (ssl_certificate
     * above) is the http-level one, else the first block's */
    nicd_server_conf_t *servers;
    int                 nservers;
    int                 cur_server; /* the block being read, -1: none */

    int    http2_max_concurrent_streams;
    size_t http2_max_header_size;  /* a request's header block */
    size_t http2_recv_buffer_size; /* an HTTP/2 connection's read buffer */
} nicd_conf_t;

/* The location that answers path (normalised), or NULL. */
const nicd_location_t *nicd_conf_location(const nicd_conf_t *c,
                                          const char *path, size_t len);

/* A configuration with every default set. */
nicd_conf_t *nicd_conf_new(void);
void         nicd_conf_free(nicd_conf_t *c);

/*
 * Read a file or a string of directives into c.  Returns 0, or -1 with a
 * message naming the file, line and directive in err.
 */
int nicd_conf_parse_file(nicd_conf_t *c, const char *path, char *err,
                         size_t errlen);
int nicd_conf_parse_string(nicd_conf_t *c, const char *text, const char *name,
                           char *err, size_t errlen);

/*
 * Apply one directive given as words (as the command line does).
 * Returns 0, or -1 with err set.
 */
int nicd_conf_set(nicd_conf_t *c, const char *name, const char **args,
                  int nargs, char *err, size_t errlen);

/*
 * Check the whole and fill what is still unset (default listen, MIME
 * types).  mime_path: the mime.types to load when the configuration
 * included none (NULL: built-in minimal set).  Returns 0 or -1 with err.
 */
int nicd_conf_finish(nicd_conf_t *c, char *err, size_t errlen);

/* MIME type for a file name (by extension); default_type if none. */
const char *nicd_conf_mime(const nicd_conf_t *c, const char *name, size_t len);

/* Parse "addr:port", "port", "[v6]:port", "*:port" into l. 0 or -1. */
int nicd_listen_parse(nicd_listen_conf_t *l, const char *text);

/* lua.c: compile the script file (the configuration checks every
 * lua_content_handler): 0, or -1 with the error in err. */
int nicd_lua_check(const char *file, char *err, size_t len);

#endif /* NICD_CONF_H */
