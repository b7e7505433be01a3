/*
 * Requests in progress limited per key, as nginx's
 * ngx_http_limit_conn_module:
 *
 *   limit_conn_zone KEY zone=NAME:SIZE;   (http)
 *       a zone of counts, one per value of KEY (a template: usually
 *       $binary_remote_addr); an empty KEY is not limited.  SIZE bounds
 *       the keys counted at once (about 8,000 a megabyte, as nginx's):
 *       a request whose key finds no room is refused.
 *   limit_conn ZONE N;   (http, server, location; several at one level;
 *       a level without any takes its enclosing level's)
 *   limit_conn_dry_run on | off;  limit_conn_log_level info | notice |
 *       warn | error;  limit_conn_status CODE;  $limit_conn_status
 *       (PASSED, REJECTED, REJECTED_DRY_RUN)
 *
 * As nginx counts "connections": a request whose head is in counts from
 * its location's preaccess phase until its response has gone (or its
 * connection, or HTTP/2 stream, ended first), so an HTTP/2 connection's
 * streams count one each and a long download counts all along.  A
 * request over a limit gets limit_conn_status (503) and a log line at
 * limit_conn_log_level; it is checked once, whatever internal redirects
 * follow.  The zones are the configuration's, shared by every worker
 * thread (a mutex each); the counts of requests still in progress when
 * a reload comes stay with the old configuration's zones.
 */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "server/conf/directive.h"
#include "server/http/phases.h"
#include "server/http/variables.h"

#define KEY_MAX    255 /* nginx's: a longer key is not limited */
#define NODE_BYTES 128 /* zone bytes a key counted stands for */
#define ZONE_MIN   (32 * 1024)
#define MAX_LIMITS 16
#define NBUCKETS   1024

typedef struct node_s {
    struct node_s *next;
    uint64_t       hash;
    unsigned       count;
    size_t         len;
    char           key[];
} node_t;

typedef struct {
    char           *name;
    size_t          size; /* 0: named by limit_conn, not yet defined */
    nicd_cv_t      *key;
    const char     *where; /* the first limit_conn that named it */
    pthread_mutex_t lock;
    node_t         *buckets[NBUCKETS];
    size_t          cap, used; /* keys counted: at most, now */
} zone_t;

typedef struct {
    zone_t  *zone;
    unsigned conns;
} limit_t;

typedef struct {
    limit_t *limits;
    int      nlimits;
    int      dry_run, log_level, status;
    /* the http level's: every zone, and $limit_conn_status' index */
    zone_t **zones;
    int      nzones;
    int      status_var;
} lc_conf_t;

/* one count a request holds, given back when its response has gone */
typedef struct {
    zone_t *zone;
    node_t *node;
} held_t;

nicd_module_t nicd_limit_conn_module;

static void *
create_conf(nicd_conf_t *c)
{
    lc_conf_t *l = nicd_conf_alloc(c, sizeof(*l));

    if (l != NULL) {
        l->dry_run = NICD_UNSET;
        l->log_level = NICD_UNSET;
        l->status = NICD_UNSET;
    }
    return l;
}

static const char *
merge_conf(nicd_conf_t *c, const void *prev, void *conf)
{
    const lc_conf_t *p = prev;
    lc_conf_t       *l = conf;

    (void) c;
    NICD_MERGE_LIST(l, p, limits, nlimits);
    NICD_MERGE(l, p, dry_run, 0);
    NICD_MERGE(l, p, log_level, LOG_ERR);
    NICD_MERGE(l, p, status, 503);
    return NULL;
}

/* the zone called name (len bytes), made (undefined) when there is none */
static zone_t *
zone_named(nicd_conf_t *c, const char *name, size_t len)
{
    lc_conf_t *h = NICD_LOC_CONF(c->http, nicd_limit_conn_module);

    return nicd_conf_named_object(c, (void ***) &h->zones, &h->nzones, name,
                                  len, sizeof(zone_t));
}

static const char *
set_zone(parse_t *ps, const char **a, int n)
{
    const char *err, *colon;
    zone_t     *z;
    size_t      size = 0;

    (void) n;
    if (strncmp(a[1], "zone=", 5) != 0
        || (colon = strchr(a[1] + 5, ':')) == NULL || colon == a[1] + 5) {
        return nicd_conf_msg("invalid zone size \"%s\"", a[1]);
    }
    if (nicd_conf_size(colon + 1, &size) != NULL || size < ZONE_MIN) {
        return nicd_conf_msg("zone \"%.*s\" is too small",
                             (int) (colon - a[1] - 5), a[1] + 5);
    }
    z = zone_named(ps->conf, a[1] + 5, (size_t) (colon - a[1] - 5));
    if (z == NULL) {
        return "out of memory";
    }
    if (z->size != 0) {
        return nicd_conf_msg("duplicate zone \"%s\"", z->name);
    }
    if ((z->key = nicd_conf_cv(ps, a[0], &err)) == NULL) {
        return err;
    }
    z->size = size;
    return NULL;
}

static const char *
set_limit(parse_t *ps, const char **a, int n)
{
    lc_conf_t *l = nicd_conf_module_loc(ps);
    limit_t    lim;
    int        i, conns;
    char       where[256];

    (void) n;
    if (nicd_conf_positive(a[1], &conns) != NULL || conns > 65535) {
        return nicd_conf_msg("invalid number of connections \"%s\"", a[1]);
    }
    lim.zone = zone_named(ps->conf, a[0], strlen(a[0]));
    lim.conns = (unsigned) conns;
    if (lim.zone == NULL) {
        return "out of memory";
    }
    for (i = 0; i < l->nlimits; i++) {
        if (l->limits[i].zone == lim.zone) {
            return "is duplicate";
        }
    }
    if (l->nlimits == MAX_LIMITS) {
        return nicd_conf_msg("more than %d \"limit_conn\" at one level",
                             MAX_LIMITS);
    }
    if (lim.zone->where == NULL) {
        snprintf(where, sizeof(where), "%s:%d", ps->name, ps->line);
        lim.zone->where = nicd_conf_strdup(ps->conf, where);
    }
    l->limits = nicd_conf_grow(ps->conf, l->limits, l->nlimits, sizeof(lim));
    if (l->limits == NULL) {
        return "out of memory";
    }
    l->limits[l->nlimits++] = lim;
    return NULL;
}

static const nicd_conf_enum_t log_levels[] = {
    {"info", LOG_INFO}, {"notice", LOG_NOTICE},
    {"warn", LOG_WARN}, {"error", LOG_ERR},
    {NULL, 0},
};
static const nicd_conf_bounds_t statuses = {400, 599};

/* ---- counting ---- */

/* the count of key in z (lock held), made when there is none and room;
 * NULL when the zone is full or out of memory */
static node_t *
node_of(zone_t *z, const char *key, size_t len)
{
    uint64_t h = nicache_fnv1a64(key, len);
    node_t **b = &z->buckets[h % NBUCKETS], *nd;

    for (nd = *b; nd != NULL; nd = nd->next) {
        if (nd->hash == h && nd->len == len && memcmp(nd->key, key, len) == 0) {
            return nd;
        }
    }
    if (z->used >= z->cap || (nd = malloc(sizeof(*nd) + len)) == NULL) {
        return NULL;
    }
    nd->hash = h;
    nd->count = 0;
    nd->len = len;
    memcpy(nd->key, key, len);
    nd->next = *b;
    *b = nd;
    z->used++;
    return nd;
}

/* a request's count given back; the key forgotten at 0 */
static void
give_back(void *data)
{
    held_t  *hd = data;
    zone_t  *z = hd->zone;
    node_t **p;

    pthread_mutex_lock(&z->lock);
    if (--hd->node->count == 0) {
        for (p = &z->buckets[hd->node->hash % NBUCKETS]; *p != hd->node;
             p = &(*p)->next) {
        }
        *p = hd->node->next;
        free(hd->node);
        z->used--;
    }
    pthread_mutex_unlock(&z->lock);
    free(hd);
}

static void
set_status(nicd_conn_t *c, const lc_conf_t *h, const char *st)
{
    (void) nicd_var_store(c, h->status_var, st, strlen(st));
}

/* one limit: the request counted (1), not limited (0: an empty or too
 * long key), or over it (-1: logged) */
static int
take(nicd_conn_t *c, const lc_conf_t *l, const limit_t *lim, nicd_buf_t *key)
{
    zone_t *z = lim->zone;
    node_t *nd;
    held_t *hd;

    if (nicd_cv_eval(c, z->key, NULL, key) != 0 || key->len == 0) {
        return 0;
    }
    if (key->len > KEY_MAX) {
        log_error(LOG_ERR, 0,
                  "the value of the \"%s\" key is more than %d bytes, "
                  "client: %s",
                  nicd_cv_source(z->key), KEY_MAX, nicd_client(c));
        return 0;
    }
    pthread_mutex_lock(&z->lock);
    nd = node_of(z, key->data, key->len);
    if (nd == NULL || nd->count >= lim->conns) {
        pthread_mutex_unlock(&z->lock);
        if (nd == NULL) {
            log_error(LOG_ALERT, 0,
                      "could not allocate node in limit_conn zone \"%s\"",
                      z->name);
        }
        log_error(l->log_level, 0,
                  "limiting connections%s by zone \"%s\", client: %s",
                  l->dry_run ? ", dry run," : "", z->name, nicd_client(c));
        return -1;
    }
    if ((hd = malloc(sizeof(*hd))) == NULL
        || nicd_req_cleanup(c->r, give_back, hd) != 0) {
        free(hd);
        pthread_mutex_unlock(&z->lock);
        return -1;
    }
    nd->count++;
    hd->zone = z;
    hd->node = nd;
    pthread_mutex_unlock(&z->lock);
    return 1;
}

static int
limit_conn_handler(nicd_conn_t *c, const nicd_request_t *r,
                   const nicd_loc_conf_t *loc, const char *uri, size_t len)
{
    const lc_conf_t *l = NICD_LOC_CONF(loc, nicd_limit_conn_module);
    const lc_conf_t *h =
        NICD_LOC_CONF(c->w->cycle->conf->http, nicd_limit_conn_module);
    nicd_buf_t key = {0};
    nicd_str_t was;
    int        i, rc = 0;

    (void) uri;
    (void) len;
    if (l->nlimits == 0) {
        return NICD_DECLINED;
    }
    /* once a request, whatever internal redirects follow */
    if (nicd_var_kept(c, h->status_var, &was) && was.len > 0) {
        return NICD_DECLINED;
    }
    for (i = 0; i < l->nlimits && rc >= 0; i++) {
        rc = take(c, l, &l->limits[i], &key);
    }
    nicd_buf_free(&key);
    if (rc >= 0) {
        set_status(c, h, "PASSED");
        return NICD_DECLINED;
    }
    /* over a limit: the counts it took go back at once (nginx's) */
    nicd_cleanup_run(c->r->cleanup);
    c->r->cleanup = NULL;
    if (l->dry_run) {
        set_status(c, h, "REJECTED_DRY_RUN");
        return NICD_DECLINED;
    }
    set_status(c, h, "REJECTED");
    nicd_respond_error(c, l->status, r->method == NICD_M_HEAD, NULL, 0);
    return NICD_DONE;
}

/* ---- once the configuration is read ---- */

static int
uses(const nicd_loc_conf_t *lc, const void *arg)
{
    const lc_conf_t *l = NICD_LOC_CONF(lc, nicd_limit_conn_module);

    (void) arg;
    return l != NULL && l->nlimits > 0;
}

static void
zone_free(void *p)
{
    zone_t *z = p;
    node_t *nd, *next;
    int     i;

    for (i = 0; i < NBUCKETS; i++) {
        for (nd = z->buckets[i]; nd != NULL; nd = next) {
            next = nd->next;
            free(nd);
        }
    }
    pthread_mutex_destroy(&z->lock);
}

static const char *
limit_conn_postconfiguration(nicd_conf_t *c)
{
    lc_conf_t *h = NICD_LOC_CONF(c->http, nicd_limit_conn_module);
    int        i;

    for (i = 0; h != NULL && i < h->nzones; i++) {
        zone_t *z = h->zones[i];

        if (z->size == 0) {
            return nicd_conf_msg("zero size shared memory zone \"%s\" (named "
                                 "by \"limit_conn\" in %s, made by no "
                                 "\"limit_conn_zone\")",
                                 z->name, z->where != NULL ? z->where : "?");
        }
        z->cap = z->size / NODE_BYTES;
        if (pthread_mutex_init(&z->lock, NULL) != 0
            || nicd_conf_cleanup(c, zone_free, z) != 0) {
            return "out of memory";
        }
    }
    if (h != NULL && h->nzones > 0
        && (h->status_var = nicd_var_index(c, "limit_conn_status", 17)) < 0) {
        return "out of memory";
    }
    return nicd_conf_any_level(c, uses, NULL)
               ? nicd_phase_add(c, NICD_PHASE_PREACCESS, limit_conn_handler)
               : NULL;
}

/* $limit_conn_status: what the handler stored (empty where no limit ran) */
static const nicd_var_t limit_conn_vars[] = {
    {"limit_conn_status", nicd_var_empty, 0, NULL},
    {NULL, NULL, 0, NULL},
};

static const directive_t limit_conn_directives[] = {
    {"limit_conn_zone", CTX_HTTP, 2, 2, set_zone, 0},
    {"limit_conn", CTX_HSL, 2, 2, set_limit, 0},
    {"limit_conn_dry_run", CTX_HSL, 1, 1, nicd_conf_slot_flag,
     offsetof(lc_conf_t, dry_run)},
    {"limit_conn_log_level", CTX_HSL, 1, 1, nicd_conf_slot_enum,
     offsetof(lc_conf_t, log_level), 0, log_levels},
    {"limit_conn_status", CTX_HSL, 1, 1, nicd_conf_slot_num,
     offsetof(lc_conf_t, status), 0, &statuses},
    {NULL, 0, 0, 0, NULL, 0},
};

nicd_module_t nicd_limit_conn_module = {
    .name = "limit_conn",
    .directives = limit_conn_directives,
    .create_loc_conf = create_conf,
    .merge_loc_conf = merge_conf,
    .postconfiguration = limit_conn_postconfiguration,
    .variables = limit_conn_vars,
};
