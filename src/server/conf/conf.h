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

#include "sendfile_nic/snic.h"
#include "util/buf.h"

enum {
    NICD_SYMLINKS_OFF = 0,
    NICD_SYMLINKS_OUTSIDE,
    NICD_SYMLINKS_ON,
    NICD_SYMLINKS_NOTOWNER
};
enum { NICD_IMS_OFF = 0, NICD_IMS_EXACT, NICD_IMS_BEFORE };
enum { NICD_LINGER_OFF = 0, NICD_LINGER_ON, NICD_LINGER_ALWAYS };

/* TCP_NOTSENT_LOWAT of every listener unless its listen says otherwise:
 * at most this much not yet sent queued in a socket (docs/config.md) */
#define NICD_NOTSENT_LOWAT (64 * 1024)

typedef struct {
    char                   *text;  /* as written, e.g. "127.0.0.1:8080" */
    char                   *where; /* "file:line" of its first listen */
    struct sockaddr_storage addr;
    socklen_t               addrlen;
    int                     backlog;
    int                     sndbuf; /* "sndbuf=SIZE": SO_SNDBUF; 0: the OS's */
    int                     lowat;  /* "notsent_lowat=": TCP_NOTSENT_LOWAT */
    int                     nic;    /* "nic=K": the emulated NIC; -1: any */
    int                     ssl;    /* "ssl": connections speak TLS */
    int                     http2;  /* "http2": h2 by ALPN, or h2c */
    int                     default_srv; /* the server whose listen says
                                            "default_server", or -1 */
} nicd_listen_conf_t;

/* ssl_protocols, as bits */
#define NICD_TLS_1_0 0x1
#define NICD_TLS_1_1 0x2
#define NICD_TLS_1_2 0x4
#define NICD_TLS_1_3 0x8

typedef struct nicd_mime_s nicd_mime_t;

struct nicd_conn_s;
struct nicd_request_s;
typedef struct nicd_loc_conf_s nicd_loc_conf_t;
typedef struct nicd_srv_conf_s nicd_server_conf_t;

/* a setting not given at this level: the enclosing one's applies */
#define NICD_UNSET (-2)

/* what a location matches, nginx's kinds (from NICD_LOC_REGEX on: no
 * prefix that a URI is matched against) */
enum {
    NICD_LOC_SERVER = 0,  /* a server's (or http's) own settings */
    NICD_LOC_PREFIX,      /* location /p/ */
    NICD_LOC_EXACT,       /* location = /p */
    NICD_LOC_NOREGEX,     /* location ^~ /p/: a prefix that stops regexes */
    NICD_LOC_REGEX,       /* location ~ re */
    NICD_LOC_REGEX_CI,    /* location ~* re */
    NICD_LOC_NAMED,       /* location @name: only by try_files, error_page */
    NICD_LOC_LIMIT_EXCEPT /* a limit_except block: by a request's method */
};

/* a location's content handler: files (static.c) when none is set */
typedef void (*nicd_content_pt)(struct nicd_conn_s          *c,
                                const struct nicd_request_s *r,
                                const nicd_loc_conf_t       *lc);

/*
 * A location's settings, and the server's and http's own (the same
 * struct, kind NICD_LOC_SERVER): the core's, and the location tree; a
 * setting not written at a level is taken from the enclosing one when
 * the configuration is finished, as nginx merges its loc_conf.  Each
 * module's own settings are in mconf[], made and merged by its hooks
 * (directive.h).  Fields are not added here for a module
 * (test_structure.py).
 */
struct nicd_loc_conf_s {
    int                 kind;
    char               *name; /* the path, regex or @name as written */
    size_t              name_len;
    void               *re; /* pcre2_code of a regex location */
    nicd_loc_conf_t    *parent;
    nicd_server_conf_t *srv;
    nicd_loc_conf_t   **locs; /* nested locations, in file order */
    int                 nlocs;
    char               *where; /* "file:line" */
    int                 internal;
    /* each module's own settings of this level, by its index (NULL for a
     * module that keeps none): NICD_LOC_CONF() */
    void **mconf;

    /* core: where files come from */
    char *root; /* root or alias (with alias set) */
    int   alias;
    int   root_fd;      /* opened by the cycle; -1 before */
    int   root_vars;    /* alias with regex captures: resolved per request */
    int   root_default; /* nobody wrote a root: "html", opened if it can */
    void *root_cv;      /* alias with variables, compiled (nicd_cv_t) */
    int   etag, if_modified_since, max_ranges;
    char *default_type;

    /* the content handler, when not files: a report or Lua */
    nicd_content_pt handler;
    char           *handler_name;
    int             handler_body; /* the handler takes the request body,
                                     read whole first, and any method */

    /* modules/error_page.c */
    /* gzip_vary (the core's, as nginx's: gzip and gzip_static both read
     * it) */
    int gzip_vary;
};

/*
 * A server {} block: a site of its own, chosen by the address a
 * connection came to and the Host (SNI under TLS) against server_name
 * (exact, "*.example.org", ".example.org", "www.example.*", "~regex"),
 * else the default_server of that address (else its first server).
 */
/*
 * The TLS settings nginx takes in http {} and in server {}
 * (http/ssl_conf.c): a server's own, where it sets any, else the http
 * level's; NICD_UNSET (NULL) until merged.
 */
typedef struct {
    int         protocols; /* NICD_TLS_* bits */
    const char *ciphers;
    int         prefer_server_ciphers;
    long        session_cache;   /* sessions kept; 0: none (tickets only) */
    long        session_timeout; /* ms */
    int         session_tickets;
    const char *dhparam;
    const char *ecdh_curve;       /* groups, "auto": OpenSSL's */
    int         reject_handshake; /* ssl_reject_handshake */
    const char *passwords;        /* ssl_password_file's lines, "\n" between;
                              NULL: none */
    int         verify_client;    /* NICD_VERIFY_* */
    int         verify_depth;
    const char *client_certificate;  /* CAs asked for and trusted */
    const char *trusted_certificate; /* CAs trusted, not named */
    const char *crl;
} nicd_ssl_conf_t;

/* ssl_verify_client */
enum {
    NICD_VERIFY_OFF = 0,
    NICD_VERIFY_ON,
    NICD_VERIFY_OPTIONAL,
    NICD_VERIFY_OPTIONAL_NO_CA
};

struct nicd_srv_conf_s {
    char **names;
    void **name_re; /* pcre2_code of each "~" name, else NULL */
    int    nnames;
    int   *listens; /* indices in nicd_conf_t.listens */
    int    nlistens;
    int    implicit; /* the top level's own (nicd's one-site form) */
    char  *cert;     /* ssl_certificate in the block, else http's */
    char  *key;
    /* the same with variables, compiled (nicd_cv_t; NULL: none): loaded
     * at each handshake */
    void             *cert_cv, *key_cv;
    nicd_ssl_conf_t  *ssl;   /* its TLS settings: its own, or http's */
    char             *where; /* "file:line" of the block, for messages */
    nicd_loc_conf_t  *loc;   /* the server's own settings and locations */
    nicd_loc_conf_t **named; /* @name locations */
    int               nnamed;
    int               index; /* in nicd_conf_t.servers */
};

struct nicd_module_s;

typedef struct nicd_conf_s {
    /* the modules whose directives it reads, ending with NULL (main.c's
     * list, modules/modules.c) */
    struct nicd_module_s *const *modules;
    int                          nmodules;
    char      *file;      /* the main configuration file, NULL for none */
    int        dump;      /* nicd -T: keep each file read, */
    nicd_buf_t dump_text; /* here, after a "# configuration file" line */
    void      *arena;     /* what the server and location settings allocate,
                    freed with the configuration */

    int worker_threads; /* 0: one per CPU */
    int worker_connections;
    /* events { use METHOD; }: the workers' loop (a NICD_LOOP_*: -1 until
     * set) and, for libevent's, the method it is held to ("": its own
     * choice) */
    int  event_loop;
    char event_method[16];
    int  worker_rlimit_nofile;

    nicd_listen_conf_t *listens;
    int                 nlistens;

    char **access_paths; /* every access log's file, once (their index is
                            the access logs' file) */
    int    naccess_paths;
    int   *access_gzip; /* access_log ... gzip[=LEVEL] of each (0: none) */
    struct nicd_log_format_s **log_formats;
    int                        nlog_formats;
    struct nicd_vars_s        *vars;   /* the variables and templates
                                        (http/variables.c), NULL: none */
    struct nicd_phases_s      *phases; /* each phase's handlers, those the
                                          modules use here (http/phases.c) */
    size_t                     access_log_buffer;
    long                       access_log_flush; /* ms */
    int   access_log_buffered; /* a buffer= or gzip: written every flush=,
                                else each line at once */
    char *error_log;           /* NULL: stderr */
    int   error_level;

    char         *backend;
    snic_param_t *params;
    int           nparams;
    char        **param_where; /* "file:line" of each param, for errors */
    size_t        sendfile_max_chunk;

    long   client_header_timeout; /* ms */
    long   client_body_timeout;   /* ms, between two reads of a body */
    long   send_timeout;          /* ms */
    int    lingering_close;       /* NICD_LINGER_* */
    long   lingering_time;        /* ms: the most a close may drain */
    long   lingering_timeout;     /* ms: the longest wait for more to drain */
    size_t client_header_buffer_size;
    size_t large_header_buffer_size; /* max request line / header line */
    int    large_header_buffers;     /* head limit = size * number */
    size_t client_max_body_size;

    int  open_file_cache_max;      /* 0: off */
    long open_file_cache_valid;    /* ms */
    long open_file_cache_inactive; /* ms */
    int  open_file_cache_min_uses;
    int  open_file_cache_errors;

    nicd_mime_t *types;

    int    merge_slashes; /* 0: empty path segments kept (nginx's off) */
    char  *pid;
    int    daemon; /* daemon on: the master leaves the terminal */
    char **env;    /* env NAME=VALUE: set before the workers start */
    int    nenv;
    char  *root_override; /* --root DIR: every server's root */
    struct {
        const char *path;
        int         fd;
        const char *base; /* an alias naming a file: its name in path (fd
                             its directory); NULL: a directory */
    } * roots;            /* the directories roots and aliases name, opened */
    int   nroots;
    char *listen_override; /* --listen ADDR: every server's address */

    /* the http level's settings (and the top level's: nicd's one-site
     * form), which servers and locations inherit */
    nicd_loc_conf_t *http;
    /* every location with a Lua handler, for the workers' Lua states */
    nicd_loc_conf_t **lua_locs;
    int               nlua;
    int               body_handlers;      /* locations with handler_body */
    long              lua_time_limit;     /* ms a Lua handler may run */
    int               internal_redirects; /* cap, as nginx's 10 */
    int keep_sent; /* a $sent_http_ variable is read: responses keep their
                      header fields (variables.c says so) */

    /* TLS (nginx's ssl_* directives), for listeners marked "ssl" */
    char           *ssl_certificate;
    char           *ssl_certificate_key;
    nicd_ssl_conf_t ssl;  /* the http level's protocols, ciphers, ... */
    int             nssl; /* listeners with "ssl" */

    /* server {} blocks (the implicit top-level one first, when there is
     * one); the default certificate (ssl_certificate above) is the
     * http-level one, else the first block's */
    nicd_server_conf_t **servers;
    int                  nservers;
    /* per listen (same index as listens): its servers, the default first */
    nicd_server_conf_t ***listen_servers;
    int                  *listen_nservers;

    size_t http2_max_header_size;  /* a request's header block (0: no
                                      limit but the header buffers') */
    size_t http2_recv_buffer_size; /* an HTTP/2 connection's read buffer */
} nicd_conf_t;

/*
 * How well server_name pattern p matches host h (len bytes, any case),
 * nginx's order: exact, then the longest leading wildcard ("*.a.org",
 * ".a.org" also matching a.org), then the longest trailing one
 * ("www.a.*").  0: no match.  Regex names are matched apart.
 */
size_t nicd_server_name_match(const char *p, const char *h, size_t len);

/* A configuration with every default set, reading the directives of
 * modules (a list ending with NULL) besides the core's. */
nicd_conf_t *nicd_conf_new(struct nicd_module_s *const *modules);
void         nicd_conf_free(nicd_conf_t *c);

/*
 * Read a file or a string of directives into c.  Returns 0, or -1 with a
 * message naming the file, line and directive in err.
 */
int nicd_conf_parse_file(nicd_conf_t *c, const char *path, char *err,
                         size_t errlen);
int nicd_conf_parse_string(nicd_conf_t *c, const char *text, const char *name,
                           char *err, size_t errlen);
/* -g: directives at the top level that may replace the file's (root) */
int nicd_conf_parse_override(nicd_conf_t *c, const char *text, char *err,
                             size_t errlen);

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

/* MIME type for a file name (by extension); NULL if none (the
 * location's default_type applies). */
const char *nicd_conf_mime(const nicd_conf_t *c, const char *name, size_t len);

#endif /* NICD_CONF_H */
