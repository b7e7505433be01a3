/*
 * nictrace synth (nictrace.h): a synthetic trace.
 */

#include "lib/cli.h"
#include "nictrace/nictrace.h"

typedef struct {
    gzFile         out;
    int64_t        start, second;
    char           date[40];
    char           name[64];
    trace_synth_t *s;
} synth_out_t;

static int
synth_line(void *ctx, const trace_synth_req_t *r)
{
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    synth_out_t             *o = ctx;
    int64_t                  t = o->start + (int64_t) r->time;
    time_t                   tt;
    struct tm                tm;
    char                     line[256];
    int                      n;

    if (t != o->second || o->date[0] == '\0') {
        tt = (time_t) t;
        gmtime_r(&tt, &tm);
        snprintf(o->date, sizeof(o->date), "%02d/%s/%04d:%02d:%02d:%02d +0000",
                 tm.tm_mday, mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
                 tm.tm_min, tm.tm_sec);
        o->second = t;
    }
    trace_synth_name(o->s, r->file, o->name);
    n = snprintf(line, sizeof(line),
                 "10.%u.%u.%u - - [%s] \"GET %s HTTP/1.0\" 200 %llu\n",
                 (unsigned) (r->client >> 16) & 0xff,
                 (unsigned) (r->client >> 8) & 0xff,
                 (unsigned) r->client & 0xff, o->date, o->name,
                 (unsigned long long) r->size);
    return gzwrite(o->out, line, (unsigned) n) == n ? 0 : 1;
}

/* "1995-07-01", "1995-07-01T04:00:00" (UTC) or epoch seconds */
static int
parse_start(const char *v, int64_t *out)
{
    int   y, m, d, hh = 0, mm = 0, ss = 0, n = 0;
    char *end;

    if (sscanf(v, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3) {
        if (v[n] == 'T'
            && sscanf(v + n, "T%2d:%2d:%2d%n", &hh, &mm, &ss, &n) == 3) {
            n += (int) (strchr(v, 'T') - v);
        }
        if (v[n] != '\0' || m < 1 || m > 12 || d < 1 || d > 31 || hh > 23
            || mm > 59 || ss > 60) {
            return -1;
        }
        *out =
            nicache_days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
        return 0;
    }
    *out = strtoll(v, &end, 10);
    return end == v || *end != '\0' ? -1 : 0;
}

static const char *const synth_names[SY_N] = {
    "like",     "requests", "files",    "zipf",    "sizes",
    "data-set", "avg-size", "max-size", "clients", "duration",
    "locality", "start",    "seed"};

/* the options as given onto cfg; 0, or -1 after saying which is bad */
static int
synth_config(const char *const *opt, trace_synth_cfg_t *cfg)
{
    char     err[256], *end = NULL;
    uint64_t u;
    double   d;
    int      i, bad;

    trace_synth_defaults(cfg);
    if (opt[SY_LIKE] != NULL && trace_synth_preset(cfg, opt[SY_LIKE]) != 0) {
        fprintf(stderr,
                "nictrace: --like: unknown preset \"%s\" (nasa, "
                "worldcup)\n",
                opt[SY_LIKE]);
        return -1;
    }
    for (i = SY_REQUESTS; i < SY_N; i++) {
        if (opt[i] == NULL) {
            continue;
        }
        bad = 0;
        switch (i) {
        case SY_SIZES:
            if (trace_synth_parse_sizes(opt[i], &cfg->sizes, err, sizeof(err))
                != 0) {
                fprintf(stderr, "nictrace: --sizes: %s\n", err);
                return -1;
            }
            break;
        case SY_DATA_SET:
        case SY_AVG_SIZE:
        case SY_MAX_SIZE:
            bad = nicache_parse_size(opt[i], &u) != 0;
            if (i == SY_DATA_SET) {
                cfg->data_set = u;
            } else if (i == SY_AVG_SIZE) {
                cfg->avg_size = (double) u;
            } else {
                cfg->max_size = u;
            }
            break;
        case SY_DURATION: bad = cli_seconds(opt[i], &cfg->duration) != 0; break;
        case SY_ZIPF:
        case SY_LOCALITY:
            d = strtod(opt[i], &end);
            bad = end == opt[i] || *end != '\0';
            *(i == SY_ZIPF ? &cfg->zipf : &cfg->locality) = d;
            break;
        case SY_START: bad = parse_start(opt[i], &cfg->start) != 0; break;
        default:
            u = strtoull(opt[i], &end, 10);
            bad = end == opt[i] || *end != '\0' || opt[i][0] == '-'
                  || (i == SY_FILES && u > UINT32_MAX);
            if (i == SY_REQUESTS) {
                cfg->requests = u;
            } else if (i == SY_FILES) {
                cfg->files = (uint32_t) u;
            } else if (i == SY_CLIENTS) {
                cfg->clients = u;
            } else {
                cfg->seed = u;
            }
        }
        if (bad) {
            fprintf(stderr, "nictrace: --%s: \"%s\" is not a valid value\n",
                    synth_names[i], opt[i]);
            return -1;
        }
    }
    return 0;
}

int
nictrace_synth(const char *const *opt, const char *out_path, const char *json)
{
    trace_synth_cfg_t   cfg;
    trace_synth_stats_t st;
    synth_out_t         o;
    char                err[512], a[32], b[32];
    size_t              n;
    FILE               *info;
    int                 rc;

    if (synth_config(opt, &cfg) != 0) {
        return 2;
    }
    /* the log on standard output: the summary beside it, on stderr; the
     * JSON to --json's file (opened now: a bad path costs nothing) */
    info = out_path == NULL ? stderr : stdout;
    if (json != NULL && strcmp(json, "-") != 0
        && (info = cli_open_out("nictrace", json)) == NULL) {
        return 1;
    }
    memset(&o, 0, sizeof(o));
    o.s = trace_synth_new(&cfg, err, sizeof(err));
    if (o.s == NULL) {
        fprintf(stderr, "nictrace: synth: %s\n", err);
        cli_close_out("nictrace", json,
                      json != NULL && info != stderr ? info : NULL);
        return 1;
    }
    o.start = cfg.start;
    n = out_path ? strlen(out_path) : 0;
    /* zlib writes plain files too ("T"): one path for both */
    o.out = out_path == NULL ? gzdopen(dup(1), "wT")
            : n > 3 && strcmp(out_path + n - 3, ".gz") == 0
                ? gzopen(out_path, "wb6")
                : gzopen(out_path, "wT");
    if (o.out == NULL) {
        fprintf(stderr, "nictrace: %s: %s\n", out_path ? out_path : "stdout",
                strerror(errno ? errno : ENOMEM));
        trace_synth_free(o.s);
        cli_close_out("nictrace", json,
                      json != NULL && info != stderr ? info : NULL);
        return 1;
    }
    rc = trace_synth_run(o.s, synth_line, &o);
    if (gzclose(o.out) != Z_OK || rc != 0) {
        fprintf(stderr, "nictrace: %s: %s\n", out_path ? out_path : "stdout",
                rc < 0 ? "out of memory" : "write failed");
        trace_synth_free(o.s);
        cli_close_out("nictrace", json,
                      json != NULL && info != stderr ? info : NULL);
        return 1;
    }
    trace_synth_stats(o.s, &st);
    if (json != NULL) {
        fprintf(info,
                "{\"requests\": %llu, \"files\": %llu, \"data_set_bytes\": "
                "%llu, \"total_response_bytes\": %llu, \"avg_response_bytes\": "
                "%.1f, \"duration_s\": %.0f, \"clients\": %llu, \"sessions\": "
                "%llu, \"zipf\": %g, \"locality\": %g, \"sizes\": \"%s\", "
                "\"seed\": %llu}\n",
                (unsigned long long) st.requests, (unsigned long long) st.files,
                (unsigned long long) st.data_set,
                (unsigned long long) st.total_bytes,
                (double) st.total_bytes / (double) st.requests, st.duration,
                (unsigned long long) st.clients,
                (unsigned long long) st.sessions, cfg.zipf, cfg.locality,
                cfg.sizes.kind, (unsigned long long) cfg.seed);
    } else {
        fprintf(info, "%s requests to %s files, ",
                nictrace_thousands(st.requests, a),
                nictrace_thousands(st.files, b));
        fprintf(info, "data set %s B, ", nictrace_thousands(st.data_set, a));
        fprintf(info, "average response %.0f B, %.0f s, ",
                (double) st.total_bytes / (double) st.requests, st.duration);
        fprintf(info, "%s clients in %s sessions\n",
                nictrace_thousands(st.clients, a),
                nictrace_thousands(st.sessions, b));
    }
    trace_synth_free(o.s);
    return cli_close_out("nictrace", json,
                         json != NULL && info != stderr ? info : NULL)
           != 0;
}
