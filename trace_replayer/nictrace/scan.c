/*
 * nictrace's one pass over a trace (nictrace.h), for the subcommands.
 */

#include "nictrace/nictrace.h"

/* 1234567 -> "1,234,567" */
const char *
nictrace_thousands(uint64_t v, char *buf)
{
    char   tmp[32];
    size_t n =
        (size_t) snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long) v);
    size_t i, o = 0;

    for (i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0) {
            buf[o++] = ',';
        }
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

void
nictrace_json_string(const char *s)
{
    putchar('"');
    for (; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\') {
            printf("\\%c", *s);
        } else if ((unsigned char) *s < 0x20) {
            printf("\\u%04x", *s);
        } else {
            putchar(*s);
        }
    }
    putchar('"');
}

void
nictrace_scan_free(scan_t *sc)
{
    trace_close(sc->reader);
    trace_files_free(sc->files);
    trace_map_free(sc->map);
}

/* Read the whole trace into sc; 0, or 1 after saying why on stderr. */
int
nictrace_scan(const trace_src_t *src, trace_sessions_t *sessions, int map,
              scan_t *sc)
{
    memset(sc, 0, sizeof(*sc));
    sc->files = trace_files_new();
    sc->map = map ? trace_map_new() : NULL;
    if (sc->files == NULL || (map && sc->map == NULL)) {
        fprintf(stderr, "nictrace: out of memory\n");
        nictrace_scan_free(sc);
        return 1;
    }
    return nictrace_scan_more(src, sessions, sc);
}

int
nictrace_scan_more(const trace_src_t *src, trace_sessions_t *sessions,
                   scan_t *sc)
{
    char        err[512], a[32];
    trace_req_t r;
    double      start = nicache_now_s(), last = start;
    int         rc;

    trace_close(sc->reader);
    sc->reader = trace_src_open(src, err, sizeof(err));
    if (sc->reader == NULL) {
        fprintf(stderr, "nictrace: %s\n", err);
        nictrace_scan_free(sc);
        return 1;
    }
    while ((rc = trace_next(sc->reader, &r, err, sizeof(err))) == 1) {
        if (sc->requests == 0 || r.time < sc->t0) {
            sc->t0 = r.time;
        }
        if (sc->requests == 0 || r.time > sc->t1) {
            sc->t1 = r.time;
        }
        sc->requests++;
        sc->bytes += r.bytes;
        if (sessions != NULL) {
            int opened, grouped;

            if (trace_session(sessions, &r, &opened, &grouped) == UINT64_MAX) {
                snprintf(err, sizeof(err), "out of memory");
                rc = -1;
                break;
            }
        }
        if (trace_files_add(sc->files, &r) != 0
            || (sc->map != NULL && trace_map_add(sc->map, &r) != 0)) {
            snprintf(err, sizeof(err), "out of memory");
            rc = -1;
            break;
        }
        if ((sc->requests & 0xffff) == 0 && nicache_now_s() - last >= 2.0) {
            last = nicache_now_s();
            fprintf(stderr, "nictrace: %s records, %.0f/s\n",
                    nictrace_thousands(sc->requests, a),
                    (double) sc->requests / (last - start));
        }
    }
    if (rc < 0) {
        fprintf(stderr, "nictrace: %s: %s\n", src->path, err);
        nictrace_scan_free(sc);
        return 1;
    }
    return 0;
}

/*
 * A trace in which nothing parsed is a failure of every command: one line
 * saying so (after what the command printed), and exit 1.
 */
int
nictrace_no_records(const char *path, uint64_t records, const trace_reader_t *t)
{
    char why[512];

    if (records > 0) {
        return 0;
    }
    fprintf(stderr, "nictrace: failed: %s\n",
            trace_no_record_why(t, path, why, sizeof(why)));
    return 1;
}

/* A log out of order past 1 % (trace_late_failure): 1 after saying so */
int
nictrace_late(const char *path, const trace_reader_t *t)
{
    char why[512];

    if (trace_late_failure(t, path, why, sizeof(why)) == NULL) {
        return 0;
    }
    fprintf(stderr, "nictrace: failed: %s\n", why);
    return 1;
}
