/*
 * libsendfile_nic: the pluggable send path of nicache.
 *
 * A response body is handed to a send backend as (socket, optional header
 * iovecs, file handle, offset, length).  The backend sends what the socket
 * accepts and reports how far it got.  The server never calls a send
 * syscall itself; it only queues data and calls snic_send().
 *
 * Backends are const structs of operations registered in a NULL-terminated
 * table (snic_backends[]) and chosen by name at start-up.  Nothing in this
 * library knows HTTP.
 *
 * Three headers by audience (as libevent keeps include/event2/ apart
 * from its *-internal.h): this one for the callers (a server: nicd's core,
 * the nginx module), snic_backend.h for who writes a backend (the send
 * helpers, the allocator the nic model's state comes from), snic_nic.h
 * for a server that sends by itself and asks the nic backend where bytes
 * are (the nginx module).
 */

#ifndef SNIC_H
#define SNIC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Return contract of every send operation. */
#define SNIC_OK 0 /* everything asked for was sent */
#define SNIC_AGAIN                                                             \
    -2                /* stopped early: socket full or chunk limit reached;
                       * wait until the socket is writable, then call again
                       * with the rest */
#define SNIC_ERROR -1 /* failed; errno says why; the connection is lost */

/*
 * A file handle: what a backend knows of the file it sends from.
 *
 * id_dev/id_ino identify the file; revision changes whenever its content
 * may have changed (see snic_file_revision()).  The server fills it from
 * the same stat() that the request used.
 */
typedef struct snic_file_s {
    int      fd;
    dev_t    id_dev;
    ino_t    id_ino;
    uint64_t revision;
    off_t    size;
    unsigned cacheable : 1; /* a regular file the backend may cache */
    /* all size bytes of the file at this revision, when the server keeps
     * them in memory (nicd's open file cache does for small files), else
     * NULL: a backend that would read the file to write it through a
     * transport (snic_send_file()) takes them from here instead */
    const char *mem;
} snic_file_t;

/*
 * Per-connection send state, owned by the server and handed to every call.
 * backend_data belongs to the backend (set by conn_open, if it has one).
 */
typedef struct snic_conn_s {
    int      fd;
    unsigned corked : 1; /* TCP_CORK is on (sendfile backend) */
    int      listener;   /* index of the listener that accepted it */
    int      nic;        /* "listen ... nic=K": the NIC to use; -1: any */
    void    *backend_data;
    /* set by a backend returning SNIC_AGAIN when it is pacing, not
     * waiting for the socket: call again after this many ns */
    uint64_t wait_ns;
    /* responses this connection has sent in full, counted by the server
     * (a backend that models per-response costs reads it) */
    uint64_t responses;
    /*
     * Set by the server when the connection's bytes go through a
     * transport of its own (TLS): backends then write everything with it
     * instead of the socket, and send file bytes by reading them into a
     * buffer (sendfile(2) would bypass the transport) - snic_send_iov()
     * and snic_sendfile() do both.  It takes the bytes it can and returns
     * how many, or -1 with errno (EAGAIN: call again when the socket is
     * writable).  NULL: the socket itself.
     */
    ssize_t (*write)(struct snic_conn_s *c, const struct iovec *iov, int n);
    void *transport; /* the transport's state, for write */
} snic_conn_t;

/*
 * One send request.  Header bytes (hdr[0..nhdr-1]) go out before the file
 * range [offset, offset + len).  file may be NULL: then only the iovecs
 * are sent.  more says that the caller has more data queued right behind
 * this request (the backend may hold back a partial packet).
 */
typedef struct snic_send_s {
    const struct iovec *hdr;
    int                 nhdr;
    snic_file_t        *file;
    off_t               offset;
    size_t              len;
    unsigned            more : 1;
} snic_send_t;

/* A backend parameter from the configuration: "name value". */
typedef struct snic_param_s {
    const char *name;
    const char *value;
} snic_param_t;

/*
 * Options common to every backend, set by the server's configuration.
 */
typedef struct snic_options_s {
    size_t              max_chunk; /* sendfile_max_chunk; 0: no limit */
    const snic_param_t *params;    /* backend-specific directives */
    int                 nparams;
} snic_options_t;

/*
 * The operations of one backend.
 *
 * Mandatory: name, send.
 * Optional (NULL when the backend has nothing to do): init, fini,
 * conn_open, conn_close, directives.
 */
typedef struct snic_backend_s {
    const char *name;
    const char *description;

    /*
     * Names of the configuration directives this backend accepts, NULL-
     * terminated; the server passes their values to init() in
     * snic_options_t.params.  NULL: none.
     */
    const char *const *directives;

    /*
     * Create the backend's state once per configuration.  Returns the
     * state (opaque to callers; may be NULL for a stateless backend) and 0,
     * or -1 with a message in err.
     */
    int (*init)(const snic_options_t *opt, void **state, char *err,
                size_t errlen);
    void (*fini)(void *state);

    /* A connection starts or ends; may set c->backend_data. */
    void (*conn_open)(void *state, snic_conn_t *c);
    void (*conn_close)(void *state, snic_conn_t *c);

    /*
     * Send as much of req as the socket accepts without blocking.
     * *sent receives the number of bytes sent (headers and body) by this
     * call, whatever it returns.
     * Returns SNIC_OK, SNIC_AGAIN or SNIC_ERROR (errno set).
     */
    int (*send)(void *state, snic_conn_t *c, const snic_send_t *req,
                size_t *sent);

    /*
     * Optional: the backend's counters as text into buf (at most len
     * bytes; returns the length it needed, as snprintf does), in format
     * SNIC_REPORT_JSON or SNIC_REPORT_PROMETHEUS; and set them to zero.
     * Safe to call from any worker thread while others send.
     */
    size_t (*report)(void *state, int format, char *buf, size_t len);
    void (*reset)(void *state);

    /*
     * Optional: does this configuration pace its sends (return SNIC_AGAIN
     * with wait_ns set)?  The server then runs its timers with
     * sub-millisecond precision, which costs a timerfd update per loop
     * iteration that other backends need not pay.  NULL: no.
     */
    int (*paces)(void *state);

    /*
     * Optional: one line the server logs at start (and nicd -V prints)
     * when the backend cannot do here what it was made for and falls
     * back (the uring backend without io_uring); NULL when all is well.
     */
    const char *(*notice)(void *state);
} snic_backend_t;

#define SNIC_REPORT_JSON       0
#define SNIC_REPORT_PROMETHEUS 1

/* The compiled backends, NULL-terminated; the first one is the default. */
extern const snic_backend_t *const snic_backends[];

/* The backend called name, or NULL. */
const snic_backend_t *snic_backend_find(const char *name);

/* The default backend ("sendfile"). */
const snic_backend_t *snic_backend_default(void);

/* Is name a directive of some compiled backend? */
int snic_backend_claims(const char *directive);

/*
 * Is name a report handler of some backend with a report operation
 * ("BACKEND_metrics": SNIC_REPORT_PROMETHEUS, "BACKEND_status":
 * SNIC_REPORT_JSON)?  The format, or -1.
 */
int snic_backend_report_format(const char *name);

/* Does backend b accept directive name? */
int snic_backend_accepts(const snic_backend_t *b, const char *name);

/*
 * A started backend: the operations and their state, used by the server.
 */
typedef struct snic_instance_s {
    const snic_backend_t *ops;
    void                 *state;
} snic_instance_t;

/*
 * Start backend b with opt.  Returns 0, or -1 with a message in err
 * (for instance "unknown parameter" or a bad value).
 */
int  snic_instance_start(snic_instance_t *in, const snic_backend_t *b,
                         const snic_options_t *opt, char *err, size_t errlen);
void snic_instance_stop(snic_instance_t *in);

/* Send through the instance's backend; same contract as send(). */
int snic_send(snic_instance_t *in, snic_conn_t *c, const snic_send_t *req,
              size_t *sent);

void snic_conn_open(snic_instance_t *in, snic_conn_t *c);

/* The instance's notice (see notice above), or NULL. */
const char *snic_notice(const snic_instance_t *in);

/* Does the instance pace its sends (see paces above)? */
int  snic_paces(const snic_instance_t *in);
void snic_conn_close(snic_instance_t *in, snic_conn_t *c);

/*
 * Fill f from an open descriptor and the stat() result the request used.
 */
void snic_file_init(snic_file_t *f, int fd, const struct stat *st);

/*
 * A 64-bit revision from mtime and ctime (nanoseconds), size and inode:
 * it changes whenever the content may have changed.
 */
uint64_t snic_file_revision(const struct stat *st);

#endif /* SNIC_H */
