/*
 * Web access-log traces: one request record, whatever the format it came
 * from.  Shared by nictrace, nicreplay and nicsim.
 */

#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>
#include <stdint.h>

enum {
    TRACE_GET = 0,
    TRACE_HEAD,
    TRACE_POST,
    TRACE_OTHER /* any other method: counted, not replayed */
};

typedef struct {
    int64_t     time;   /* seconds since the epoch, UTC */
    uint32_t    usec;   /* and microseconds, when the log has them */
    uint64_t    client; /* a key for the client (host or client id) */
    int         method;
    const char *url; /* the request target, as logged */
    size_t      url_len;
    int         status;
    uint64_t    bytes; /* response bytes; 0 when unknown ("-") */
    int         bytes_known;
    int         has_protocol; /* "HTTP/x.y" was logged */
    uint32_t    url_id;       /* the compact format's URL number + 1 (0: none):
                           the same for every record of that URL */
} trace_req_t;

/* Why a line did not parse (0: it did). */
enum {
    TRACE_OK = 0,
    TRACE_ERR_FIELDS, /* not host ident user [date] "request" status bytes */
    TRACE_ERR_DATE,
    TRACE_ERR_REQUEST, /* no method and target inside the quotes */
    TRACE_ERR_STATUS,
    TRACE_ERR_BYTES
};

const char *trace_err_str(int err);

/*
 * Parse one Common Log Format or Combined line (without its newline):
 *   host ident authuser [dd/Mon/yyyy:hh:mm:ss +zzzz] "request" status bytes
 *   [ "referer" "user-agent" ]
 * What real logs do is accepted: a request without a protocol ("GET /"),
 * "-" for the byte count, quotes inside the request (the request ends at
 * the last quote followed by a status and a byte count), any method.
 * r->url points into line.  Returns TRACE_OK or a TRACE_ERR_* value.
 */
int trace_clf_parse(const char *line, size_t len, trace_req_t *r);

/* Parts of it other formats share: "01/Jul/1995:00:00:01 -0400" (26
 * characters) to UTC seconds (0, or -1); "METHOD SP target [SP protocol]"
 * into r's method, url and has_protocol (0, or -1); a method's TRACE_*. */
int trace_clf_date(const char *p, size_t len, int64_t *out);
int trace_request_parse(const char *req, size_t len, trace_req_t *r);
int trace_method(const char *m, size_t n);

/*
 * Logs as people configure them (trace_fmt.c): an nginx log_format string
 * ("$remote_addr - $remote_user [$time_local] \"$request\" $status
 * $body_bytes_sent ..."), or JSON lines whose keys are nginx's variable
 * names (with or without "$") or common aliases (ip, time, timestamp,
 * method, url, path, bytes, size, duration).  Understood: $remote_addr
 * ($http_x_forwarded_for when it is "-"), $time_local, $time_iso8601,
 * $msec, $request or $request_method with $request_uri (or $uri and
 * $args), $status, $body_bytes_sent (else $bytes_sent), $request_time
 * (the record's time becomes the request's start); other variables are
 * read and ignored.
 */
typedef struct trace_fields_s trace_fields_t;

trace_fields_t *trace_fields_template(const char *fmt, char *err,
                                      size_t errlen);
trace_fields_t *trace_fields_json(void);
void            trace_fields_free(trace_fields_t *t);

/* One line into r (pointing into t's buffers until the next call):
 * TRACE_OK or TRACE_ERR_*. */
int trace_fields_parse(trace_fields_t *t, const char *line, size_t len,
                       trace_req_t *r);

/*
 * WorldCup98 binary logs (the 1998 World Cup site's access logs as
 * published by the Internet Traffic Archive): 20-byte big-endian records
 *   u32 time, u32 client id, u32 object id, u32 size (0xFFFFFFFF:
 *   unknown), u8 method, u8 status (HTTP version in the top two bits, an
 *   index into the status code table in the low six), u8 type, u8 server.
 * URLs come from the object mapping file: "id path" per line, where the
 * path is the rest of the line and may contain spaces.
 */
#define TRACE_WC98_RECORD 20

/*
 * Decode one record into r (r->url is left NULL: see the mapping) and
 * *object.  A status index outside the table gives status 0 ("other").
 */
void trace_wc98_decode(const unsigned char *rec, trace_req_t *r,
                       uint32_t *object);

typedef struct trace_wc98_map_s trace_wc98_map_t;

/* Read a mapping file (plain or gzip).  NULL with err set. */
trace_wc98_map_t *trace_wc98_map_load(const char *path, char *err,
                                      size_t errlen);
void              trace_wc98_map_free(trace_wc98_map_t *m);
size_t            trace_wc98_map_count(const trace_wc98_map_t *m);

/* The URL of object id, or NULL when the mapping has none. */
const char *trace_wc98_map_url(const trace_wc98_map_t *m, uint32_t id,
                               size_t *len);

/*
 * The project's own compact format (trace_nic.c has the layout), written
 * by nictrace convert.
 */
#define TRACE_NIC_MAGIC_LEN 9
extern const unsigned char trace_nic_magic[TRACE_NIC_MAGIC_LEN];

/* the largest record for a URL of len bytes */
#define TRACE_NIC_MAX_RECORD(len) (64 + (len))

typedef struct {
    int64_t last_time;
} trace_nic_enc_t;

/*
 * Encode r into out (room for TRACE_NIC_MAX_RECORD(r->url_len)); define:
 * the record also defines URL url_id (the next id).  Returns its length.
 */
size_t trace_nic_encode(trace_nic_enc_t *e, const trace_req_t *r,
                        uint32_t url_id, int define, unsigned char *out);

#endif /* TRACE_H */
