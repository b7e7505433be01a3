/*
 * Fuzz target: a whole connection, as the network sees it.  The input is
 * written into one end of a socket pair whose other end is a nicd
 * connection (conn.c) on a worker's event loop, and the loop runs until
 * the connection is closed; what nicd answers is read and dropped.
 *
 * The first byte chooses how the bytes arrive (mod 3) and which send
 * backend sends the answers (/ 3, mod 3: sendfile, copy, nic):
 *   0  HTTP/1.1 on a plain listener (parser, handlers, pipelining)
 *   1  HTTP/2 with prior knowledge on a clear-text "http2" listener: the
 *      client preface is put in front, so the input starts at the frames
 *      (the frame path through nghttp2 and http2.c)
 *   2  raw bytes to an "ssl http2" listener (tls.c's handshake and record
 *      path through OpenSSL, up to where a real handshake would be needed)
 *
 * It checks what the sanitizers check, and that every connection ends:
 * after the input and the end of it, nicd must close (or be ready to) and
 * leave nothing open.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "server/http/handler.h"
#include "server/http/http2.h"
#include "server/core/nicd.h"
#include "loopback.h"

#if defined(HAVE_OPENSSL)
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NBACKENDS 3

static const char *const backends[NBACKENDS] = {"sendfile", "copy", "nic"};

static char          dir[64];
static nicd_cycle_t  cycles[NBACKENDS];
static nicd_worker_t workers[NBACKENDS];
static int           ready; /* 1 set up, -1 setting up failed */

static void
put_file(const char *name, size_t len)
{
    char   path[128];
    char  *buf = malloc(len + 1);
    FILE  *f;
    size_t i;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f == NULL || buf == NULL) {
        abort();
    }
    for (i = 0; i < len; i++) {
        buf[i] = (char) ('a' + i % 26);
    }
    if (fwrite(buf, 1, len, f) != len) {
        abort();
    }
    fclose(f);
    free(buf);
}

/* a self-signed P-256 certificate for the "ssl" listener */
static int
put_certificate(void)
{
#if defined(HAVE_OPENSSL)
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509     *x = X509_new();
    char      path[128];
    FILE     *f;
    int       ok;

    ok = key != NULL && x != NULL
         && ASN1_INTEGER_set(X509_get_serialNumber(x), 1) == 1
         && X509_gmtime_adj(X509_getm_notBefore(x), 0) != NULL
         && X509_gmtime_adj(X509_getm_notAfter(x), 86400) != NULL
         && X509_set_pubkey(x, key) == 1
         && X509_NAME_add_entry_by_txt(
                X509_get_subject_name(x), "CN", MBSTRING_ASC,
                (const unsigned char *) "localhost", -1, -1, 0)
                == 1
         && X509_set_issuer_name(x, X509_get_subject_name(x)) == 1
         && X509_sign(x, key, EVP_sha256()) > 0;
    snprintf(path, sizeof(path), "%s/cert.pem", dir);
    if (ok && (f = fopen(path, "w")) != NULL) {
        ok = PEM_write_X509(f, x) == 1;
        fclose(f);
    }
    snprintf(path, sizeof(path), "%s/key.pem", dir);
    if (ok && (f = fopen(path, "w")) != NULL) {
        ok = PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL) == 1;
        fclose(f);
    }
    X509_free(x);
    EVP_PKEY_free(key);
    return ok ? 0 : -1;
#else
    return 0;
#endif
}

static int
setup_one(int b)
{
    nicd_cycle_t  *cy = &cycles[b];
    nicd_worker_t *w = &workers[b];
    char           text[4096], err[256];

    snprintf(text, sizeof(text),
             "root %s/www; access_log off; send_backend %s;"
             " nic_cache_size 64k; listen 127.0.0.1:1;"
             " listen 127.0.0.1:2 http2;"
#if defined(HAVE_OPENSSL)
             " listen 127.0.0.1:3 ssl http2;"
             " ssl_certificate %s/cert.pem; ssl_certificate_key %s/key.pem;"
#endif
             " autoindex on; http2_max_concurrent_streams 8;"
             " client_max_body_size 64k; lua_time_limit 50ms;"
             " location /l/ { lua_content_handler %s/echo.lua; }"
             /* the phases: rewrites, try_files, error pages, headers */
             " rewrite ^/old/(.*)$ /new/$1 permanent;"
             " location ~* \\.(png|txt)$ { expires 1d; add_header X-A b; }"
             " location /t/ { try_files $uri $uri/ @fb; }"
             " location @fb { return 200 \"fb $uri $args $host\"; }"
             " location /r/ { rewrite ^/r/(.*)$ /$1 last; }"
             /* variables: map, set, add_header with them */
             " map $http_user_agent $ua { default o; ~*(b)ot b$1; x y; }"
             " location /m/ { set $v \"$ua-$arg_a\"; add_header X-V $v;"
             " return 200 \"$v $status\"; }"
             " location /loop/ { rewrite ^ /loop/ last; }"
             " location /a/ { alias %s/www/; gzip_static on; }"
             " location /p/ { auth_basic x; auth_basic_user_file /dev/null;"
             " deny 10.0.0.0/8; }"
             " location = /s { stub_status; }"
             " error_page 404 /404.html; charset utf-8;"
             " server { server_name v.test; return 301 https://$host; }",
             dir, backends[b],
#if defined(HAVE_OPENSSL)
             dir, dir,
#endif
             dir, dir);
    if (loopback_cycle(cy, w, text, backends[b], err, sizeof(err)) != 0) {
        fprintf(stderr, "fuzz_conn: %s backend: %s\n", backends[b], err);
        return -1;
    }
    return 0;
}

static void
teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (dir[0] != '\0' && system(cmd) != 0) {
        fprintf(stderr, "fuzz_conn: could not remove %s\n", dir);
    }
}

static int
setup(void)
{
    char path[128];
    int  b;

    strcpy(dir, "/tmp/nicd-fuzz-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    atexit(teardown);
    snprintf(path, sizeof(path), "%s/www", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/www/d", dir);
    mkdir(path, 0755);
    put_file("www/index.html", 100);
    put_file("www/a.txt", 1);
    put_file("www/big.bin", 40000);
    put_file("www/d/x.css", 3000);
    {
        /* a Lua location: bodies held and read whole, the script's
         * answers, its errors and its time limit */
        static const char echo[] =
            "return function(r)\n"
            "  if r.query == 'loop' then while true do end end\n"
            "  if r.query == 'err' then error('x') end\n"
            "  return 200, {['X-M'] = r.method}, (r.body or '') .. r.target\n"
            "end\n";
        FILE *f;

        snprintf(path, sizeof(path), "%s/echo.lua", dir);
        f = fopen(path, "w");
        if (f == NULL
            || fwrite(echo, 1, sizeof(echo) - 1, f) != sizeof(echo) - 1
            || fclose(f) != 0) {
            return -1;
        }
    }
    log_error_open("/dev/null", LOG_DEBUG); /* every line formatted */
    if (put_certificate() != 0) {
        return -1;
    }
    for (b = 0; b < NBACKENDS; b++) {
        if (setup_one(b) != 0) {
            return -1;
        }
    }
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    nicd_worker_t    *w;
    struct sockaddr   sa;
    int               sv[2], mode, listener, open;
    size_t            answered;

    if (ready == 0) {
        ready = setup() == 0 ? 1 : -1;
    }
    if (ready != 1) {
        abort(); /* the harness itself is broken: say so loudly */
    }
    if (size < 1) {
        return 0;
    }
    mode = data[0] % 3;
    w = &workers[(data[0] / 3) % NBACKENDS];
    listener = mode; /* the listeners are in the same order */
#if !defined(HAVE_OPENSSL)
    if (mode == 2) {
        return 0;
    }
#endif
    data++;
    size--;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv)
        != 0) {
        abort();
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_family = AF_UNIX;
    nicd_conn_accept(w, sv[1], listener, &sa);
    if (w->nconns != 1) {
        abort();
    }
    if (mode == 1 && send(sv[0], preface, sizeof(preface) - 1, 0) < 0) {
        abort();
    }

    /* an HTTP/2 server may drop its streams at the client's end, so the
     * client ends its side only when nicd has nothing more to say */
    answered = loopback_turns(w, sv[0], (const char *) data, size, NULL, &open);
    if (getenv("FUZZ_CONN_VERBOSE") != NULL) {
        fprintf(stderr, "mode %d backend %s: %zu bytes in, %zu out\n", mode,
                w->cycle->backend.ops->name, size, answered);
    }
    if (open) {
        /* input all sent and read, the client gone: still open means a
         * connection that would wait for its timeout; count that as a
         * failure */
        fprintf(stderr, "fuzz_conn: connection still open after %d turns\n",
                LOOPBACK_TURNS);
        abort();
    }
    if (mode == 1 && answered == 0) {
        abort(); /* an HTTP/2 server always sends its SETTINGS */
    }
    close(sv[0]);
    return 0;
}
