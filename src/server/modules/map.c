/*
 * map SOURCE $NAME { KEY VALUE; ... }  (nginx's ngx_http_map_module, for
 * the common cases): $NAME is VALUE of the first KEY that matches what
 * SOURCE expands to, evaluated when $NAME is used (its getter, here).
 * Strings match ignoring case and win over regular expressions ("~KEY",
 * "~*KEY" ignoring case, tried in the order written, their captures $1..$9
 * in VALUE); "default VALUE" when none matches (else the empty string).
 * VALUE may hold variables.  "\\" before a KEY takes it literally
 * ("\\default", "\\~x").  As nginx, a value is found once a request and
 * kept (internal redirects and "rewrite ... last" included), unless the
 * map says "volatile".  "hostnames": keys are host names as server_name
 * takes them ("*.example.org", ".example.org", "www.example.*"), the
 * source without a trailing dot; an exact key wins, then the longest
 * leading wildcard, then the longest trailing one, then the regexes.
 * "include FILE" reads FILE's lines (the configuration reader does).
 */

#include <string.h>
#include <strings.h>

#include "server/conf/directive.h"
#include "server/http/variables.h"

#define MATCH_PAIRS 10 /* $0..$9 of a regex key */
#define MAP_DEPTH   8  /* a map whose value uses a map ... (a loop: an error) */

nicd_module_t nicd_map_module;

typedef struct {
    char            *key;   /* a string, matched ignoring case; NULL: re */
    void            *re;    /* "~" or "~*": pcre2_code */
    const nicd_cv_t *value; /* with variables, and $1..$9 of re */
} map_entry_t;

typedef struct {
    const nicd_cv_t *source;  /* "$uri", "$host$uri" */
    map_entry_t     *entries; /* in the order written */
    int              nentries;
    const nicd_cv_t *deflt; /* NULL: "" */
    nicd_var_t      *var;   /* $NAME, the registry's (volatile with
                               "volatile") */
    int              hostnames;
} map_t;

/* hostnames: the best key for host (server_name's order), 1 with its
 * value, or 0 */
static int
host_entry(const map_t *m, const char *host, size_t len,
           const nicd_cv_t **value)
{
    size_t q, best = 0;
    int    i;

    for (i = 0; i < m->nentries; i++) {
        if (m->entries[i].key != NULL
            && (q = nicd_server_name_match(m->entries[i].key, host, len))
                   > best) {
            best = q;
            *value = m->entries[i].value;
        }
    }
    return best > 0;
}

/*
 * The getter of a map's variable: its source expanded, then the first
 * string equal to it (ignoring case), else the first regex matching it
 * (its captures for $1..$9 in the value), else the default.  The registry
 * keeps the value for the rest of the request unless the map is volatile.
 */
static int
map_get(nicd_conn_t *c, const nicd_vctx_t *x, const nicd_var_t *v,
        const char *s, size_t slen, nicd_buf_t *b)
{
    static __thread int depth;
    const map_t        *m = v->data;
    nicd_buf_t          src = {0}, val = {0};
    pcre2_match_data   *md;
    PCRE2_SIZE          caps[2 * MATCH_PAIRS];
    const nicd_cv_t    *value = m->deflt;
    nicd_vctx_t         mx = {x != NULL ? x->r : NULL,
                      x != NULL ? x->uri : NULL,
                      x != NULL ? x->ulen : 0,
                      NULL,
                      NULL,
                      0};
    int i, n = 0, rc = -1;

    (void) s;
    (void) slen;
    if (depth >= MAP_DEPTH) {
        log_error(LOG_ERR, 0,
                  "map $%s: variables nested too deeply, "
                  "client: %s",
                  v->name, nicd_client(c));
        return -1;
    }
    depth++;
    if (nicd_cv_eval(c, m->source, &mx, &src) != 0) {
        goto done;
    }
    if (m->hostnames) {
        if (src.len > 0 && src.data[src.len - 1] == '.') {
            src.data[--src.len] = '\0';
        }
        if (host_entry(m, src.data, src.len, &value)) {
            goto found;
        }
    }
    for (i = 0; i < m->nentries && !m->hostnames; i++) {
        if (m->entries[i].key != NULL && strlen(m->entries[i].key) == src.len
            && strncasecmp(m->entries[i].key, src.data, src.len) == 0) {
            value = m->entries[i].value;
            goto found;
        }
    }
    md = NICD_WORKER_CTX(c->w, nicd_map_module);
    if (md == NULL) {
        /* its own: a map is evaluated amid a rewrite, whose match data
         * (w->match) it must not overwrite */
        md = pcre2_match_data_create(MATCH_PAIRS, NULL);
        if (md == NULL) {
            goto done;
        }
        NICD_WORKER_CTX(c->w, nicd_map_module) = md;
    }
    for (i = 0; i < m->nentries; i++) {
        if (m->entries[i].re == NULL) {
            continue;
        }
        n = pcre2_match(m->entries[i].re, (PCRE2_SPTR) src.data, src.len, 0, 0,
                        md, NULL);
        if (n > 0) {
            /* a copy: the value's own maps match with the same data */
            memcpy(caps, pcre2_get_ovector_pointer(md),
                   sizeof(PCRE2_SIZE) * 2 * (size_t) n);
            value = m->entries[i].value;
            goto found;
        }
    }
    n = 0;
found:
    if (value == NULL) {
        rc = 0;
        goto done;
    }
    mx.subject = src.data;
    mx.caps = n > 0 ? caps : NULL;
    mx.ncaps = n;
    if (nicd_cv_eval(c, value, &mx, &val) == 0) {
        nicd_buf_add(b, val.data, val.len);
        rc = 0;
    }
done:
    depth--;
    nicd_buf_free(&src);
    nicd_buf_free(&val);
    return rc;
}

static const char *
map_line(parse_t *ps, const char **a, int n)
{
    map_t      *m = ps->lines_data;
    map_entry_t e;
    const char *key = a[0], *msg;
    char        err[512];
    int         i;

    if (n == 1 && strcmp(key, "volatile") == 0) {
        m->var->flags |= NICD_VAR_VOLATILE;
        return NULL;
    }
    if (n == 1 && strcmp(key, "hostnames") == 0) {
        m->hostnames = 1;
        return NULL;
    }
    if (n != 2) {
        return "invalid number of arguments";
    }
    if (strcmp(key, "default") == 0) {
        if (m->deflt != NULL) {
            return "duplicate default map parameter";
        }
        m->deflt = nicd_conf_cv(ps, a[1], &msg);
        return m->deflt == NULL ? msg : NULL;
    }
    memset(&e, 0, sizeof(e));
    if (key[0] == '~') {
        int caseless = key[1] == '*';

        e.re = nicd_conf_regex(ps->conf, key + 1 + caseless, caseless, err,
                               sizeof(err));
        if (e.re == NULL) {
            return nicd_conf_msg("%s", err);
        }
    } else {
        if (key[0] == '\\') {
            key++;
        } else if (m->hostnames && key[0] == '*' && key[1] != '.') {
            return nicd_conf_msg("invalid hostname or wildcard \"%s\"", key);
        }
        for (i = 0; i < m->nentries; i++) {
            if (m->entries[i].key != NULL
                && strcasecmp(m->entries[i].key, key) == 0) {
                return nicd_conf_msg("conflicting parameter \"%s\"", key);
            }
        }
        e.key = nicd_conf_strdup(ps->conf, key);
        if (e.key == NULL) {
            return "out of memory";
        }
    }
    e.value = nicd_conf_cv(ps, a[1], &msg);
    if (e.value == NULL) {
        return msg;
    }
    m->entries = nicd_conf_grow(ps->conf, m->entries, m->nentries, sizeof(e));
    if (m->entries == NULL) {
        return "out of memory";
    }
    m->entries[m->nentries++] = e;
    return NULL;
}

static const char *
set_map(parse_t *ps, const char **a, int n)
{
    map_t      *m;
    nicd_var_t  v;
    const char *msg;
    char       *name;
    size_t      i;

    (void) n;
    if (a[1][0] != '$' || a[1][1] == '\0') {
        return nicd_conf_msg("invalid variable name \"%s\"", a[1]);
    }
    m = nicd_conf_alloc(ps->conf, sizeof(*m));
    name = nicd_conf_strdup(ps->conf, a[1] + 1);
    if (m == NULL || name == NULL) {
        return "out of memory";
    }
    for (i = 0; name[i] != '\0'; i++) {
        name[i] =
            (char) (name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    }
    m->source = nicd_conf_cv(ps, a[0], &msg);
    if (m->source == NULL) {
        return msg;
    }
    /* the variable is the map's from here on; its entries fill in as the
     * block is read ("volatile" too: the registry keeps a pointer) */
    memset(&v, 0, sizeof(v));
    v.name = name;
    v.get = map_get;
    v.data = m;
    if ((msg = nicd_var_add(ps->conf, &v, &m->var)) != NULL) {
        return strncmp(msg, "the duplicate", 13) == 0
                   ? nicd_conf_msg("duplicate map variable \"%s\"", a[1])
                   : msg;
    }
    ps->lines = map_line;
    ps->lines_data = m;
    return NULL;
}

static const directive_t nicd_map_directives[] = {
    {"map", CTX_HTTP, 2, 2, set_map, 0, CTX_LINES},
    {"map_hash_max_size", CTX_HTTP, 1, 1, nicd_conf_housekeeping, 0, 0},
    {"map_hash_bucket_size", CTX_HTTP, 1, 1, nicd_conf_housekeeping, 0, 0},
    {NULL, 0, 0, 0, NULL, 0, 0},
};

/* the match data a worker made for its maps */
static void
map_worker_free(nicd_worker_t *w)
{
    pcre2_match_data_free(NICD_WORKER_CTX(w, nicd_map_module));
    NICD_WORKER_CTX(w, nicd_map_module) = NULL;
}

nicd_module_t nicd_map_module = {
    .name = "map",
    .directives = nicd_map_directives,
    .worker_free = map_worker_free,
};
