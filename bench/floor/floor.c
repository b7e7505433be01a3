/*
 * The floor responders' shared part (floor.h).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floor.h"

static floor_file_t *files;
static int           nfiles; /* the last one: the 404 */

static void
die(const char *prog, const char *what, int err)
{
    fprintf(stderr, "%s: %s%s%s\n", prog, what, err ? ": " : "",
            err ? strerror(err) : "");
    exit(2);
}

static int
add_file(const char *name, const char *status, const char *body, size_t blen)
{
    floor_file_t *f;
    char          head[160];
    int           k;

    f = realloc(files, (size_t) (nfiles + 1) * sizeof(*files));
    if (f == NULL) {
        return -1;
    }
    files = f;
    f = &files[nfiles];
    k = snprintf(head, sizeof(head),
                 "HTTP/1.1 %s\r\nServer: floor\r\n"
                 "Content-Type: application/octet-stream\r\n"
                 "Content-Length: %zu\r\n\r\n",
                 status, blen);
    f->nlen = strlen(name);
    f->name = strdup(name);
    f->len = (size_t) k + blen;
    f->resp = malloc(f->len);
    if (f->name == NULL || f->resp == NULL) {
        return -1;
    }
    memcpy(f->resp, head, (size_t) k);
    memcpy(f->resp + k, body, blen);
    nfiles++;
    return 0;
}

/* every regular file of dir, as "/name" */
static void
load(const char *prog, const char *dir)
{
    DIR           *d = opendir(dir);
    struct dirent *de;
    char           path[4096], name[300], *body;
    struct stat    st;
    int            fd;

    if (d == NULL) {
        die(prog, dir, errno);
    }
    while ((de = readdir(d)) != NULL) {
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (de->d_name[0] == '.' || stat(path, &st) != 0
            || !S_ISREG(st.st_mode)) {
            continue;
        }
        fd = open(path, O_RDONLY);
        body = malloc((size_t) st.st_size + 1);
        if (fd == -1 || body == NULL
            || read(fd, body, (size_t) st.st_size) != st.st_size) {
            die(prog, path, errno);
        }
        close(fd);
        snprintf(name, sizeof(name), "/%s", de->d_name);
        if (add_file(name, "200 OK", body, (size_t) st.st_size) != 0) {
            die(prog, "out of memory", 0);
        }
        free(body);
    }
    closedir(d);
    if (nfiles >= UINT16_MAX || add_file("", "404 Not Found", "", 0) != 0) {
        die(prog, "too many files, or out of memory", 0);
    }
}

int
floor_start(int argc, char **argv, const char *prog)
{
    static const struct option opts[] = {{"port", required_argument, NULL, 'p'},
                                         {"root", required_argument, NULL, 'r'},
                                         {NULL, 0, NULL, 0}};
    struct sockaddr_in         sa = {0};
    const char                *root = NULL;
    char                      *end;
    long                       port = -1;
    int                        o, fd, one = 1;

    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 'p':
            port = strtol(optarg, &end, 10);
            if (*end != '\0' || port < 1 || port > 65535) {
                die(prog, "--port: not a port", 0);
            }
            break;
        case 'r': root = optarg; break;
        default:
            fprintf(stderr, "usage: %s --port N --root DIR\n", prog);
            exit(2);
        }
    }
    if (port < 0 || root == NULL || optind != argc) {
        fprintf(stderr, "usage: %s --port N --root DIR\n", prog);
        exit(2);
    }
    signal(SIGPIPE, SIG_IGN); /* a peer gone: EPIPE, not the end */
    load(prog, root);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1) {
        die(prog, "socket", errno);
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t) port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) != 0
        || listen(fd, 4096) != 0) {
        die(prog, "listen on 127.0.0.1", errno);
    }
    return fd;
}

/* the response to the request line at p (len bytes, up to its "\r\n") */
static uint16_t
response_of(const char *p, size_t len)
{
    const char *path = memchr(p, ' ', len), *e;
    int         i;

    if (path == NULL) {
        return (uint16_t) (nfiles - 1);
    }
    path++;
    for (e = path; e < p + len && *e != ' ' && *e != '?'; e++) {
    }
    for (i = 0; i < nfiles - 1; i++) {
        if (files[i].nlen == (size_t) (e - path)
            && memcmp(files[i].name, path, files[i].nlen) == 0) {
            return (uint16_t) i;
        }
    }
    return (uint16_t) (nfiles - 1);
}

int
floor_take(floor_conn_t *c)
{
    size_t      at = 0;
    const char *end;

    while ((end = memmem(c->in + at, c->inlen - at, "\r\n\r\n", 4)) != NULL) {
        if (c->qlen == FLOOR_QUEUE) {
            return -1;
        }
        c->q[(c->qhead + c->qlen++) % FLOOR_QUEUE] =
            response_of(c->in + at, (size_t) (end - (c->in + at)));
        at = (size_t) (end - c->in) + 4;
    }
    if (at == 0 && c->inlen == FLOOR_IN) {
        return -1;
    }
    memmove(c->in, c->in + at, c->inlen - at);
    c->inlen -= at;
    return 0;
}

int
floor_iov(const floor_conn_t *c, struct iovec *iov, int n)
{
    unsigned i;
    int      k = 0;

    for (i = 0; i < c->qlen && k < n; i++) {
        const floor_file_t *f = &files[c->q[(c->qhead + i) % FLOOR_QUEUE]];
        size_t              off = i == 0 ? c->sent : 0;

        iov[k].iov_base = f->resp + off;
        iov[k].iov_len = f->len - off;
        k++;
    }
    return k;
}

void
floor_sent(floor_conn_t *c, size_t n)
{
    while (n > 0 && c->qlen > 0) {
        size_t left = files[c->q[c->qhead]].len - c->sent;

        if (n < left) {
            c->sent += n;
            return;
        }
        n -= left;
        c->sent = 0;
        c->qhead = (c->qhead + 1) % FLOOR_QUEUE;
        c->qlen--;
    }
}
